//! `sanctions batch`: read a file of names (or refuse it with the reason), screen every row
//! through the service, report each row, the rows not screened, and what was checked.
//!
//! Locally without `--store` each row is a `preview` (nothing stored; several at a time, in
//! input order). With `--store`, and always through a server, rows go 500 at a time through
//! `screen_batch`, which stores each one as a screening.

use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;

use crate::service::Service;
use color_eyre::eyre::{Context as _, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::connect;
use super::exit::{self, Exit};
use super::matches::print_coverage;
use super::output::{json_line, safe, thousands, warn};
use super::screen::{check_coverage, service_error, template};
use super::workflow::runtime;
use super::{BatchArgs, Context};
use crate::api::coverage::Coverage;
use crate::api::screening::{BatchLine, KindFilter};
use crate::batch::{self, Batch, InputOptions, Mode, Plan, Screened, merged};

/// Screens every name of a file.
pub fn run(ctx: &Context, args: BatchArgs, json: bool) -> Result<Exit> {
    // The index first: its read is the longest step of the start, and names piped in on
    // standard input may take a while to arrive.
    connect::read_ahead(ctx);
    let bytes = read_input(&args.file)?;
    let source = source_name(&args.file);
    let mode = if args.store || ctx.remote.is_some() {
        Mode::Store
    } else {
        Mode::Preview
    };
    // The file is parsed while the service opens; a bad file is still reported first.
    let (input, svc) = std::thread::scope(|scope| {
        let parsing = scope.spawn(|| batch::parse_input(&bytes, &input_options(&args)));
        let svc = open_service(ctx, mode).inspect(|svc| svc.warm_up());
        (parsing.join(), svc)
    });
    let input = input
        .map_err(|_| exit::data(format!("cannot read the batch {}", safe(&source))))?
        .map_err(|e| exit::data(format!("cannot read the batch {}: {e}", safe(&source))))?;
    warn_duplicates(&input, json);
    let svc = svc?;
    let rt = runtime()?;
    let checked = rt.block_on(check_coverage(svc.as_ref(), &args.options, json))?;
    let template = template(&args.options, &checked);
    if mode == Mode::Store {
        warn_stored(ctx, &args, json);
    }
    let plan = Plan {
        template: &template,
        checked: &checked,
        mode,
    };
    let bar = progress_bar(input.items.len(), json);
    let mut screened = rt
        .block_on(batch::screen_items(&svc, &input.items, &plan, &|n| {
            bar.inc(n)
        }))
        .map_err(service_error)?;
    // The process ends after printing: its index is left for the system to take back.
    svc.keep_index_until_exit();
    bar.finish_and_clear();
    let kind = args.options.kind.map(Into::into);
    print(&mut screened, &input, &source, kind, &checked, json)?;
    let exit = verdict(&screened, &input, args.options.fail_on_match);
    // As the index: the rows and their answers (thousands of small allocations, freed one
    // by one on the main thread after every core is done) are left for the system.
    std::mem::forget((screened, input, bytes));
    exit
}

fn input_options(args: &BatchArgs) -> InputOptions {
    InputOptions {
        column: args.column.clone(),
        lines: args.lines,
        kind: args.options.kind.map(Into::into),
    }
}

fn source_name(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

fn warn_duplicates(input: &Batch, json: bool) {
    for (qid, places) in &input.duplicates {
        let count = places.len();
        let places = places.join(", ");
        warn(
            &format!("qid {:?} is used by {count} rows ({places})", safe(qid)),
            json,
        );
    }
}

/// The service: one that stores screenings for a stored batch, else a reading one.
fn open_service(ctx: &Context, mode: Mode) -> Result<Arc<dyn Service>> {
    if mode == Mode::Preview {
        return connect::read_service(ctx);
    }
    let connected = connect::service(ctx)?;
    if connected.read_only {
        return Err(exit::data(
            "--store: the data folder is read-only, so no screening can be stored",
        ));
    }
    Ok(connected.service)
}

fn warn_stored(ctx: &Context, args: &BatchArgs, json: bool) {
    if ctx.remote.is_some() && !args.store {
        warn(
            "through a server every batch name is stored as a screening (--store is implied)",
            json,
        );
    }
}

fn progress_bar(len: usize, json: bool) -> ProgressBar {
    if !std::io::stderr().is_terminal() || json {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} names {eta}") {
        bar.set_style(style);
    }
    bar
}

fn print(
    screened: &mut Screened,
    input: &Batch,
    source: &str,
    kind: Option<KindFilter>,
    checked: &Coverage,
    json: bool,
) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if json {
        for line in json_lines(&mut screened.lines)? {
            writeln!(out, "{line}")?;
        }
    } else {
        print_table(&mut out, screened, input, source)?;
        let searched = screened
            .lines
            .iter()
            .filter(|l| l.kind == kind)
            .find_map(|l| l.coverage.as_ref());
        print_coverage(&mut out, &merged(checked, searched))?;
    }
    out.flush()?;
    Ok(())
}

/// Each row's JSON line, in order, made on every core. The rows share a few coverages (the
/// lists checked, one per type screened), which are most of a line's bytes: each is written
/// once and set into the lines that hold it, where serde writes `"coverage":null` for a line
/// whose coverage is taken out for the moment (the key cannot occur unescaped in a string,
/// and only `screening_id` may follow it).
fn json_lines(lines: &mut [BatchLine]) -> Result<Vec<String>> {
    let mut shared: Vec<(Coverage, String)> = Vec::new();
    for coverage in lines.iter().filter_map(|l| l.coverage.as_ref()) {
        if !shared.iter().any(|(c, _)| c == coverage) {
            shared.push((coverage.clone(), json_line(coverage)?));
        }
    }
    lines
        .par_iter_mut()
        .map(|line| {
            let Some((_, text)) = shared
                .iter()
                .find(|(c, _)| line.coverage.as_ref() == Some(c))
            else {
                return json_line(line);
            };
            let coverage = line.coverage.take();
            let bare = json_line(line);
            line.coverage = coverage;
            with_coverage(bare?, text)
        })
        .collect()
}

/// A line's JSON written without its coverage, with the coverage's JSON `text` in its place:
/// the three parts copied into one string (`String::replace_range` moves a replacement longer
/// than what it replaces in byte by byte, and a coverage is over a kilobyte).
fn with_coverage(bare: String, text: &str) -> Result<String> {
    const KEY: &str = "\"coverage\":";
    let at = bare
        .rfind("\"coverage\":null")
        .ok_or_else(|| color_eyre::eyre::eyre!("a batch line's JSON has no coverage field"))?
        + KEY.len();
    Ok([&bare[..at], text, &bare[at + "null".len()..]].concat())
}

fn print_table(
    out: &mut impl Write,
    screened: &Screened,
    input: &Batch,
    source: &str,
) -> Result<()> {
    writeln!(
        out,
        "Read {} as {}.\n",
        safe(source),
        safe(&input.description)
    )?;
    writeln!(
        out,
        "{:>8}  {:>10}  {:>7}  {:>5}  name / best match",
        "line", "qid", "matches", "score"
    )?;
    for (line, score) in screened.lines.iter().zip(&screened.best) {
        print_row(out, line, *score)?;
    }
    let (rows, matched, refused) = (
        screened.lines.len(),
        screened.matched(),
        screened.not_screened(),
    );
    writeln!(
        out,
        "\n{} rows: {} matched, {} no match, {} not screened.",
        thousands(rows as u64),
        thousands(matched as u64),
        thousands((rows - matched - refused) as u64),
        thousands(refused as u64)
    )?;
    Ok(())
}

fn print_row(out: &mut impl Write, line: &BatchLine, score: Option<u8>) -> Result<()> {
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
            safe(&m.list_name),
            safe(&m.entity_id)
        ),
        (None, None, Some(id)) => format!("  ({})", safe(id)),
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
    Ok(())
}

/// The exit: refused rows named (data error), else a match with `--fail-on-match`.
fn verdict(screened: &Screened, input: &Batch, fail_on_match: bool) -> Result<Exit> {
    let not_screened = screened.not_screened();
    if not_screened > 0 {
        let places: Vec<String> = input
            .items
            .iter()
            .zip(&screened.lines)
            .filter(|(_, l)| l.error.is_some())
            .take(10)
            .map(|(i, _)| i.place())
            .collect();
        let more = if not_screened > places.len() {
            ", ..."
        } else {
            ""
        };
        return Err(exit::data(format!(
            "{not_screened} row(s) not screened ({}{more}); the others were",
            places.join(", ")
        )));
    }
    Ok(if fail_on_match && screened.matched() > 0 {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn coverage(entries: u64) -> Coverage {
        Coverage {
            lists: Vec::new(),
            missing: Vec::new(),
            stale: Vec::new(),
            max_age_days: 7,
            entries_searched: entries,
            complete: true,
        }
    }

    fn line(query: &str, coverage: Option<Coverage>, screening_id: Option<&str>) -> BatchLine {
        BatchLine {
            qid: "1".into(),
            line: Some(2),
            position: None,
            query: query.into(),
            kind: None,
            total_matches: 0,
            results: Vec::new(),
            error: None,
            coverage,
            screening_id: screening_id.map(str::to_owned),
        }
    }

    #[test]
    fn the_shared_coverage_is_set_into_each_line_as_serde_writes_it() {
        let mut lines = vec![
            line("\"coverage\":null", Some(coverage(5)), Some("scr_1")),
            line("a", Some(coverage(5)), None),
            line("b", Some(coverage(6)), Some("scr_2")),
            line("c", None, None),
            line("d\u{202E}", Some(coverage(5)), None),
        ];
        let plain: Vec<String> = lines.iter().map(|l| json_line(l).unwrap()).collect();
        assert_eq!(json_lines(&mut lines).unwrap(), plain);
        assert_eq!(lines[1].coverage, Some(coverage(5)), "put back");
    }
}
