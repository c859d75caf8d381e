//! `sanctions screen` and `sanctions batch`.

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use color_eyre::eyre::{Context as _, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

use super::lists::NO_DATA_HINT;
use super::output::print_json;
use super::{BatchArgs, Context, ScreenArgs, ScreenOptions};
use crate::api::screening::{Match, ScreenRequest};
use crate::batch;
use crate::engine::{self, Index};
use crate::service::mapping;

/// Screens one name and prints the matches.
pub fn run_screen(ctx: &Context, args: ScreenArgs) -> Result<ExitCode> {
    let Some(index) = load_index(ctx)? else {
        return Ok(ExitCode::FAILURE);
    };
    let mut request = request(&args.options);
    request.name = args.name;
    request.date_of_birth = args.dob;
    request.country = args.country;
    if !args.lists.is_empty() {
        request.lists = Some(args.lists);
    }
    let result = mapping::result(
        &request.name,
        engine::screen(&index, &mapping::request(&request))?,
    );
    if args.json {
        print_json(&result)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    let threshold = request.threshold.unwrap_or(engine::DEFAULT_THRESHOLD);
    if result.results.is_empty() {
        writeln!(
            out,
            "No match for {:?} at score {threshold} or above (of {} entries).",
            result.query,
            index.entity_count()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{} match{} for {:?} at score {threshold} or above{}:\n",
        result.total_matches,
        if result.total_matches == 1 { "" } else { "es" },
        result.query,
        if result.results.len() < result.total_matches {
            format!(", best {} shown", result.results.len())
        } else {
            String::new()
        }
    )?;
    for (rank, m) in result.results.iter().enumerate() {
        print_match(&mut out, rank + 1, m)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_match(out: &mut impl Write, rank: usize, m: &Match) -> std::io::Result<()> {
    writeln!(
        out,
        "{rank:>2}. {:>3}  {}  [{}, {}{}]  {}",
        m.score,
        m.name,
        m.list,
        m.kind,
        m.country
            .as_deref()
            .map(|c| format!(", {c}"))
            .unwrap_or_default(),
        m.entity_id
    )?;
    if m.matched_name != m.name {
        writeln!(out, "         matched alias: {}", m.matched_name)?;
    }
    writeln!(out, "         why: {}", explain(m))
}

/// `putin = putin (exact 100), v ~ vladimir (initial 90), - vladimirovich`.
fn explain(m: &Match) -> String {
    m.explanation
        .iter()
        .map(|t| match (&t.query_token, &t.listed_token) {
            (Some(q), Some(l)) if t.how == "exact" => format!("{q} = {l}"),
            (Some(q), Some(l)) => format!("{q} ~ {l} ({} {})", t.how, t.similarity),
            (Some(q), None) => format!("{q} not on the list"),
            (None, Some(l)) => format!("{l} not in the query"),
            (None, None) => String::new(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Screens every name of a file.
pub fn run_batch(ctx: &Context, args: BatchArgs) -> Result<ExitCode> {
    let bytes = read_input(&args.file)?;
    let items = batch::parse_input(&bytes)
        .wrap_err_with(|| format!("cannot read the batch {}", args.file.display()))?;
    let Some(index) = load_index(ctx)? else {
        return Ok(ExitCode::FAILURE);
    };
    let template = request(&args.options);
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(items.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} names {eta}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let lines = batch::screen_all(&index, &items, &template, || bar.inc(1));
    bar.finish_and_clear();

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        for line in &lines {
            serde_json::to_writer(&mut out, line)?;
            writeln!(out)?;
        }
    } else {
        let flagged = lines.iter().filter(|l| l.total_matches > 0).count();
        writeln!(
            out,
            "{:>6}  {:>7}  {:>5}  name / best match",
            "row", "matches", "score"
        )?;
        for line in &lines {
            let qid = match &line.qid {
                crate::api::screening::Qid::Row(n) => n.to_string(),
                crate::api::screening::Qid::Text(t) => t.clone(),
            };
            let best = line.results.first();
            writeln!(
                out,
                "{qid:>6}  {:>7}  {:>5}  {}{}",
                line.total_matches,
                best.map(|m| m.score.to_string()).unwrap_or_default(),
                line.query,
                match (best, &line.error) {
                    (_, Some(e)) => format!("  (not screened: {e})"),
                    (Some(m), None) => format!("  ->  {} [{}] {}", m.name, m.list, m.entity_id),
                    (None, None) => String::new(),
                }
            )?;
        }
        writeln!(out, "\n{} of {} names matched.", flagged, lines.len())?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn read_input(path: &std::path::Path) -> Result<Vec<u8>> {
    let limit = batch::MAX_INPUT_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(path)
            .wrap_err_with(|| format!("cannot open {}", path.display()))?
            .take(limit)
            .read_to_end(&mut bytes)
            .wrap_err_with(|| format!("cannot read {}", path.display()))?;
    }
    Ok(bytes)
}

fn request(options: &ScreenOptions) -> ScreenRequest {
    ScreenRequest {
        name: String::new(),
        kind: options.kind.map(Into::into),
        threshold: options.threshold,
        limit: options.limit,
        lists: None,
        date_of_birth: None,
        country: None,
    }
}

/// The index over the store's lists, or `None` (after printing how to get data) when the
/// store is empty.
pub fn load_index(ctx: &Context) -> Result<Option<Index>> {
    let store = ctx.open_store()?;
    let names = store.entity_names()?;
    if names.is_empty() {
        eprintln!("{NO_DATA_HINT}");
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let index = Index::build(&names);
    tracing::info!(
        entities = index.entity_count(),
        names = index.name_count(),
        ms = started.elapsed().as_millis() as u64,
        "screening index built"
    );
    if index.entity_count() == 0 {
        bail!("the store holds names but no entries could be indexed");
    }
    Ok(Some(index))
}
