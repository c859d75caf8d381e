//! `sanctions batch`: read a file of names (or refuse it with the reason), screen every row,
//! report each row, the rows not screened, and what was checked.

use std::collections::HashMap;
use std::io::{IsTerminal, Read, Write};

use color_eyre::eyre::{Context as _, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::exit::{self, Exit};
use super::matches::print_coverage;
use super::output::{safe, thousands, warn, write_json_line};
use super::screen::Prepared;
use super::{BatchArgs, Context};
use crate::api::screening::KindFilter;
use crate::batch::{self, InputOptions};
use crate::model::Entity;

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
    let prepared = Prepared::new(ctx, &args.options, json)?;
    let template = prepared.template(&args.options);
    let bar = if std::io::stderr().is_terminal() && !json {
        let bar = ProgressBar::new(input.items.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} names {eta}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut lines = batch::screen_all(&prepared.index, &input.items, &template, || bar.inc(1));
    bar.finish_and_clear();
    // One person's entries on several lists grouped (as in `screen`); the best `--limit`
    // groups kept.
    let limit = u32::from(args.options.limit);
    let mut entities: HashMap<String, Entity> = HashMap::new();
    for line in &mut lines {
        line.coverage = Some(prepared.coverage(line.kind));
        for m in &line.results {
            if !entities.contains_key(&m.entity_id)
                && let Some(e) = prepared.store.entity(&m.entity_id)?
            {
                entities.insert(m.entity_id.clone(), e);
            }
        }
        crate::grouping::assign(&mut line.results, &entities);
        line.results.retain(|m| m.group.is_some_and(|g| g <= limit));
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
        for line in &lines {
            let place = line
                .line
                .or(line.position)
                .map(|n| n.to_string())
                .unwrap_or_default();
            let best = line.results.first();
            let tail = match (best, &line.error) {
                (_, Some(e)) => format!("  NOT SCREENED: {}", safe(e)),
                (Some(m), None) => format!(
                    "  ->  {} [{}] {}",
                    safe(&m.name),
                    m.list_name,
                    safe(&m.entity_id)
                ),
                (None, None) => String::new(),
            };
            writeln!(
                out,
                "{place:>8}  {:>10}  {:>7}  {:>5}  {}{tail}",
                safe(&line.qid),
                line.total_matches,
                best.map(|m| m.score.to_string()).unwrap_or_default(),
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
        print_coverage(&mut out, &prepared.coverage(kind))?;
    }
    out.flush()?;
    drop(out);
    if not_screened > 0 {
        let places: Vec<String> = input
            .items
            .iter()
            .filter(|i| lines.iter().any(|l| l.qid == i.qid && l.error.is_some()))
            .take(10)
            .map(|i| i.place())
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
