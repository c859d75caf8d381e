//! `sanctions batch`: read a file of names (or refuse it with the reason), screen every row
//! through the service, report each row, the rows not screened, and what was checked.
//!
//! Locally without `--store` each row is a `preview` (nothing stored; several at a time, in
//! input order). With `--store`, and always through a server, rows go 500 at a time through
//! `screen_batch`, which stores each one as a screening.

use std::io::{IsTerminal, Read, Write};

use color_eyre::eyre::{Context as _, Result};
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};

use super::connect;
use super::exit::{self, Exit};
use super::matches::print_coverage;
use super::output::{safe, thousands, warn, write_json_line};
use super::screen::{check_coverage, merged, service_error, template};
use super::workflow::runtime;
use super::{BatchArgs, Context};
use crate::api::batch::{BatchName, BatchRequest, MAX_BATCH};
use crate::api::screening::{BatchLine, KindFilter, ScreenRequest};
use crate::batch::{self, InputOptions};

/// Previews run at once (locally: on the blocking pool, over both cores).
const IN_FLIGHT: usize = 8;

/// Screens every name of a file.
pub fn run(ctx: &Context, args: BatchArgs, json: bool) -> Result<Exit> {
    let bytes = read_input(&args.file)?;
    let kind: Option<KindFilter> = args.options.kind.map(Into::into);
    let options = InputOptions {
        column: args.column.clone(),
        lines: args.lines,
        kind,
    };
    let source = if args.file.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        args.file.display().to_string()
    };
    let input = batch::parse_input(&bytes, &options)
        .map_err(|e| exit::data(format!("cannot read the batch {}: {e}", safe(&source))))?;
    for (qid, places) in &input.duplicates {
        warn(
            &format!(
                "qid {:?} is used by {} rows ({})",
                safe(qid),
                places.len(),
                places.join(", ")
            ),
            json,
        );
    }
    let by_batch = args.store || ctx.remote.is_some();
    let svc = if by_batch {
        let connected = connect::service(ctx)?;
        if connected.read_only {
            return Err(exit::data(
                "--store: the data folder is read-only, so no screening can be stored",
            ));
        }
        connected.service
    } else {
        connect::read_service(ctx)?
    };
    let rt = runtime()?;
    let coverage = rt.block_on(check_coverage(svc.as_ref(), &args.options, json))?;
    let template = template(&args.options, &coverage);
    let bar = if std::io::stderr().is_terminal() && !json {
        let bar = ProgressBar::new(input.items.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} names {eta}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut lines: Vec<BatchLine> = input.items.iter().map(batch::unscreened_line).collect();
    let todo: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].error.is_none())
        .collect();
    bar.inc((lines.len() - todo.len()) as u64);
    // The best score of each row, for the table (a stored batch answers no match details).
    let mut best: Vec<Option<u8>> = vec![None; lines.len()];
    if by_batch {
        if ctx.remote.is_some() && !args.store {
            warn(
                "through a server every batch name is stored as a screening (--store is implied)",
                json,
            );
        }
        if todo
            .iter()
            .any(|&i| input.items[i].date_of_birth.is_some() || input.items[i].country.is_some())
        {
            warn(
                "the dob and country columns are not weighed in a stored batch (screen those names one by one with `screen --dob --country`)",
                json,
            );
        }
        for chunk in todo.chunks(MAX_BATCH) {
            let request = BatchRequest {
                names: chunk
                    .iter()
                    .map(|&i| BatchName::Typed {
                        name: input.items[i].name.clone(),
                        kind: input.items[i].kind,
                    })
                    .collect(),
                options: Some(template.clone()),
            };
            let response = rt
                .block_on(svc.screen_batch(request))
                .map_err(service_error)?;
            for (&i, result) in chunk.iter().zip(response.results) {
                let line = &mut lines[i];
                line.total_matches = result.matches;
                line.screening_id = Some(result.screening_id);
                line.coverage = Some(merged(&coverage, None));
                best[i] = result.best_score;
            }
            bar.inc(chunk.len() as u64);
        }
    } else {
        let calls = todo.iter().map(|&i| {
            let svc = svc.clone();
            let item = &input.items[i];
            let request = ScreenRequest {
                name: item.name.clone(),
                kind: item.kind,
                date_of_birth: item.date_of_birth.clone(),
                country: item.country.clone(),
                ..template.clone()
            };
            async move { (i, svc.preview(request).await) }
        });
        let answers: Vec<_> = rt.block_on(
            futures::stream::iter(calls)
                .buffered(IN_FLIGHT)
                .inspect(|_| bar.inc(1))
                .collect(),
        );
        for (i, answer) in answers {
            let line = &mut lines[i];
            match answer {
                Ok(response) => {
                    let result = response.result;
                    line.total_matches = result.total_matches;
                    line.coverage = Some(merged(&coverage, result.coverage.as_ref()));
                    best[i] = result.results.first().map(|m| m.score);
                    line.results = result.results;
                }
                Err(e) => line.error = Some(e.to_string()),
            }
        }
    }
    bar.finish_and_clear();
    // A row not screened still says what the batch was checked against (for its type).
    for i in 0..lines.len() {
        if lines[i].coverage.is_none() {
            let same = lines
                .iter()
                .find(|l| l.kind == lines[i].kind && l.coverage.is_some())
                .and_then(|l| l.coverage.clone());
            lines[i].coverage = Some(same.unwrap_or_else(|| merged(&coverage, None)));
        }
    }
    let not_screened = lines.iter().filter(|l| l.error.is_some()).count();
    let matched = lines.iter().filter(|l| l.total_matches > 0).count();

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if json {
        for line in &lines {
            write_json_line(&mut out, line)?;
        }
    } else {
        writeln!(
            out,
            "Read {} as {}.\n",
            safe(&source),
            safe(&input.description)
        )?;
        writeln!(
            out,
            "{:>8}  {:>10}  {:>7}  {:>5}  name / best match",
            "line", "qid", "matches", "score"
        )?;
        for (line, score) in lines.iter().zip(&best) {
            let place = line
                .line
                .or(line.position)
                .map(|n| n.to_string())
                .unwrap_or_default();
            let tail = match (line.results.first(), &line.error, &line.screening_id) {
                (_, Some(e), _) => format!("  NOT SCREENED: {}", safe(e)),
                (Some(m), None, _) => format!(
                    "  ->  {} [{}] {}",
                    safe(&m.name),
                    m.list_name,
                    safe(&m.entity_id)
                ),
                (None, None, Some(id)) => format!("  ({id})"),
                (None, None, None) => String::new(),
            };
            writeln!(
                out,
                "{place:>8}  {:>10}  {:>7}  {:>5}  {}{tail}",
                safe(&line.qid),
                line.total_matches,
                score.map(|s| s.to_string()).unwrap_or_default(),
                safe(&line.query),
            )?;
        }
        writeln!(
            out,
            "\n{} rows: {} matched, {} no match, {} not screened.",
            thousands(lines.len() as u64),
            thousands(matched as u64),
            thousands((lines.len() - matched - not_screened) as u64),
            thousands(not_screened as u64)
        )?;
        let searched = lines
            .iter()
            .filter(|l| l.kind == kind)
            .find_map(|l| l.coverage.as_ref());
        print_coverage(&mut out, &merged(&coverage, searched))?;
    }
    out.flush()?;
    drop(out);
    if not_screened > 0 {
        let places: Vec<String> = input
            .items
            .iter()
            .zip(&lines)
            .filter(|(_, l)| l.error.is_some())
            .take(10)
            .map(|(i, _)| i.place())
            .collect();
        return Err(exit::data(format!(
            "{not_screened} row(s) not screened ({}{}); the others were",
            places.join(", "),
            if not_screened > places.len() {
                ", ..."
            } else {
                ""
            }
        )));
    }
    Ok(if args.options.fail_on_match && matched > 0 {
        Exit::MatchFound
    } else {
        Exit::Success
    })
}

fn read_input(path: &std::path::Path) -> Result<Vec<u8>> {
    let limit = batch::MAX_INPUT_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .take(limit)
            .read_to_end(&mut bytes)
            .wrap_err("cannot read standard input")?;
    } else {
        std::fs::File::open(path)
            .map_err(|e| {
                exit::data(format!(
                    "cannot open {}: {e}",
                    safe(&path.display().to_string())
                ))
            })?
            .take(limit)
            .read_to_end(&mut bytes)
            .wrap_err_with(|| format!("cannot read {}", path.display()))?;
    }
    Ok(bytes)
}
