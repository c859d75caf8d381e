//! Prints the match-quality table of the README: every query of a labelled set (default
//! `../shared/eval/dev.csv`) screened against the real lists (default `../shared/data/lists`).
//!
//! `cargo run --release --example eval [-- [--threshold N] [--misses] [CSV] [LISTS_DIR]]`;
//! `--latency` also times each query alone on one thread; `--misses` also lists the positives not ranked first and the negatives that alerted;
//! `--sets` also prints the development set by half (tune / measure), the cross-script set
//! and the combined-changes set built from the lists (`quality::sets`); `--diagnose` prints
//! the combined-changes set's misses on its tune half with their causes, and the development
//! set's false alarms on its tune half (`quality::diagnose`); `--dump FILE` writes every
//! query's full results (development set, its dated variant, typed, cross-script and
//! combined-changes queries; `quality::dump`) to FILE, to compare two builds line by line.
//! `--false-alarms` prints only the negatives of the whole set that alert, each with its
//! first hit's explanation (`quality::diagnose::false_alarms`).
//! `--latency-sample N` screens only the first N queries, each alone on one thread, after
//! building the index, and prints nothing else: a fixed workload for instruction counts
//! (`valgrind --tool=callgrind --toggle-collect='eval::screen_sample*'`), where the index
//! build would otherwise dominate.

use std::collections::HashMap;
use std::path::PathBuf;

use sanctions_engine::{self as engine, DEFAULT_THRESHOLD, Request};
use sanctions_eval::{self as quality, Report};

/// The allocator the `sanctions` binary uses (`src/main.rs`), so that the figures are the
/// program's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// What to print; see the module's documentation.
#[derive(clap::Parser)]
#[command(about = "Match quality of the engine on a labelled query set")]
struct Options {
    /// The labelled queries (default `../shared/eval/dev.csv`).
    csv: Option<PathBuf>,
    /// The folder of list files (default `../shared/data/lists`).
    lists: Option<PathBuf>,
    /// The alert threshold the tables count at.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    threshold: u8,
    /// Also list the positives not ranked first and the negatives that alerted.
    #[arg(long)]
    misses: bool,
    /// Also time each query alone on one thread, then all at once on every core.
    #[arg(long)]
    latency: bool,
    /// Also print the halves, the typed, cross-script and combined-changes sets.
    #[arg(long)]
    sets: bool,
    /// Print the combined-changes misses and the false alarms of the tune halves.
    #[arg(long)]
    diagnose: bool,
    /// Print only the negatives that alert, with their first hit's explanation.
    #[arg(long)]
    false_alarms: bool,
    /// Write every query's full results to this file.
    #[arg(long, value_name = "FILE")]
    dump: Option<PathBuf>,
    /// Screen only the first N queries, each alone, and print nothing else.
    #[arg(long, value_name = "N")]
    latency_sample: Option<usize>,
}

fn main() -> color_eyre::Result<()> {
    let options = <Options as clap::Parser>::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let csv = (options.csv.clone()).unwrap_or_else(|| root.join("eval/dev.csv"));
    let lists = (options.lists.clone()).unwrap_or_else(|| root.join("data/lists"));
    let (entries, index, problems) = load_index(&lists);
    let mut queries = quality::read_queries(&std::fs::read_to_string(&csv)?)?;
    if !problems.is_empty() {
        keep_queries_of_lists_read(&mut queries, &problems);
    }
    let threshold = options.threshold;
    if let Some(n) = options.latency_sample {
        let sample = &queries[..n.min(queries.len())];
        let started = std::time::Instant::now();
        let hits = screen_sample(&index, sample);
        eprintln!(
            "screened {} queries alone in {:.2?} ({hits} hits)",
            sample.len(),
            started.elapsed()
        );
    } else if let Some(file) = &options.dump {
        write_dump(file, &index, &entries, &queries)?;
    } else if options.false_alarms {
        print!(
            "{}",
            quality::diagnose::false_alarms(&index, &queries, threshold)
        );
    } else if options.diagnose {
        print_diagnosis(&index, &entries, &queries, threshold);
    } else {
        print_tables(&options, &index, &entries, &queries);
    }
    Ok(())
}

/// The lists' names and their index, and the problems of the files that could not be read.
fn load_index(
    lists: &std::path::Path,
) -> (
    Vec<sanctions_model::EntityNames>,
    engine::Index,
    Vec<String>,
) {
    let started = std::time::Instant::now();
    let (entries, problems) = quality::names_from_dir(lists);
    let index = engine::Index::build(&entries);
    for p in &problems {
        eprintln!("warning: {p}");
    }
    eprintln!(
        "indexed {} entries, {} names in {:.2?}",
        index.entity_count(),
        index.name_count(),
        started.elapsed()
    );
    (entries, index, problems)
}

/// Some lists are missing: keeps only the negatives and the positives whose target is in a
/// list read.
fn keep_queries_of_lists_read(queries: &mut Vec<quality::LabelledQuery>, problems: &[String]) {
    let missing: Vec<String> = problems
        .iter()
        .filter_map(|p| p.split(':').next().map(|c| format!("{c}:")))
        .collect();
    queries.retain(|q| {
        q.expected_entity_id.is_empty()
            || q.expected_entity_id
                .split('|')
                .any(|id| !missing.iter().any(|m| id.starts_with(m.as_str())))
    });
    eprintln!(
        "measuring {} queries whose targets are in the lists read",
        queries.len()
    );
}

/// The combined-changes set's misses on its tune half, and the development set's false alarms
/// on its tune half.
fn print_diagnosis(
    index: &engine::Index,
    entries: &[sanctions_model::EntityNames],
    queries: &[quality::LabelledQuery],
    threshold: u8,
) {
    let tune: Vec<quality::LabelledQuery> = quality::sets::combined(entries, &positives(queries))
        .into_iter()
        .filter(|q| q.category.ends_with(" tune"))
        .collect();
    let original = entries
        .iter()
        .map(|e| (e.entity_id.clone(), e.primary_name.clone()))
        .collect();
    print!(
        "{}",
        quality::diagnose::misses(index, &tune, &original, threshold)
    );
    let dev_tune: Vec<quality::LabelledQuery> = queries
        .iter()
        .filter(|q| quality::half_of(&q.qid) == "tune")
        .cloned()
        .collect();
    print!(
        "\nfalse alarms of the development set's tune half:\n{}",
        quality::diagnose::false_alarms(index, &dev_tune, threshold)
    );
}

/// The positives of `queries`.
fn positives(queries: &[quality::LabelledQuery]) -> Vec<quality::LabelledQuery> {
    queries
        .iter()
        .filter(|q| !q.expected_entity_id.is_empty())
        .cloned()
        .collect()
}

/// The quality table, and what the options add to it.
fn print_tables(
    options: &Options,
    index: &engine::Index,
    entries: &[sanctions_model::EntityNames],
    queries: &[quality::LabelledQuery],
) {
    let threshold = options.threshold;
    let started = std::time::Instant::now();
    let outcomes = quality::run(index, queries);
    eprintln!(
        "screened {} queries in {:.2?}",
        queries.len(),
        started.elapsed()
    );
    println!("{}", Report::new(&outcomes, threshold).markdown());
    if options.sets {
        print_sets(index, entries, queries, &outcomes, threshold);
    }
    if options.latency {
        print_latency(index, queries);
    }
    if options.misses {
        print_misses(index, queries, &outcomes, threshold);
    }
}

/// Each query alone on one thread (median, p99, the slowest), then every query at once on all
/// cores (names per second), at the default options.
fn print_latency(index: &engine::Index, queries: &[quality::LabelledQuery]) {
    let mut timed: Vec<(std::time::Duration, &str)> = queries
        .iter()
        .map(|q| {
            let started = std::time::Instant::now();
            let _ = engine::screen(index, &Request::new(q.query.clone()));
            (started.elapsed(), q.query.as_str())
        })
        .collect();
    timed.sort();
    for (t, q) in timed.iter().rev().take(5) {
        eprintln!("slowest: {t:?} {q:?}");
    }
    let times: Vec<std::time::Duration> = timed.iter().map(|(t, _)| *t).collect();
    let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    eprintln!("latency: median {:?}, p99 {:?}", at(0.5), at(0.99));
    use rayon::prelude::*;
    let started = std::time::Instant::now();
    queries.par_iter().for_each(|q| {
        let _ = engine::screen(index, &Request::new(q.query.clone()));
    });
    let elapsed = started.elapsed();
    eprintln!(
        "batch: {} names in {elapsed:.2?} on all cores, {:.0} names/s",
        queries.len(),
        queries.len() as f64 / elapsed.as_secs_f64()
    );
}

/// The positives not ranked first or under the threshold and the negatives that alerted, each
/// with its first three results.
fn print_misses(
    index: &engine::Index,
    queries: &[quality::LabelledQuery],
    outcomes: &[quality::Outcome],
    threshold: u8,
) {
    let by_qid: HashMap<&str, &quality::LabelledQuery> =
        queries.iter().map(|q| (q.qid.as_str(), q)).collect();
    for o in outcomes {
        let bad = if o.positive {
            o.rank != Some(1) || o.target_score.is_none_or(|s| s < threshold)
        } else {
            o.top_score.is_some_and(|s| s >= threshold)
        };
        if !bad {
            continue;
        }
        let q = by_qid[o.qid.as_str()];
        println!(
            "\n{} [{}] {:?} expected {} (rank {:?}, score {:?})",
            o.qid, o.category, q.query, q.expected_entity_id, o.rank, o.target_score
        );
        if let Ok(result) = engine::screen(index, &q.request(3)) {
            for m in result.hits {
                println!(
                    "    {:>3} {} | {} ({})",
                    m.score, m.entity_id, m.matched_name, m.primary_name
                );
            }
        }
    }
}

/// The development set by half, the cross-script set and the combined-changes set.
fn print_sets(
    index: &engine::Index,
    entries: &[sanctions_model::EntityNames],
    queries: &[quality::LabelledQuery],
    outcomes: &[quality::Outcome],
    threshold: u8,
) {
    for half in ["tune", "measure"] {
        let part: Vec<quality::Outcome> = outcomes
            .iter()
            .filter(|o| quality::half_of(&o.qid) == half)
            .cloned()
            .collect();
        let r = Report::new(&part, threshold);
        println!(
            "dev {half}: {} positives, recall@1 {:.1}, recall@10 {:.1}, recall at {threshold} {:.1}; {} negatives, false positives {:.1}",
            r.positives.queries,
            100.0 * r.positives.recall_at_1,
            100.0 * r.positives.recall_at_10,
            100.0 * r.positives.recall,
            r.negatives.queries,
            100.0 * r.negatives.false_positive_rate,
        );
    }
    println!("\n| typed query | first result | score |\n|---|---|---:|");
    for (query, _) in quality::sets::TYPED_CASES
        .iter()
        .chain(quality::sets::TYPED_CASES_MISSED)
    {
        let request = engine::Request {
            threshold: Some(0),
            ..engine::Request::new(*query)
        };
        let first = engine::screen(index, &request)
            .ok()
            .and_then(|r| r.hits.into_iter().next());
        match first {
            Some(h) => println!(
                "| {query} | {} ({}) | {} |",
                h.primary_name, h.entity_id, h.score
            ),
            None => println!("| {query} | none | |"),
        }
    }
    let with = quality::sets::with_facts(entries, queries);
    let mut dob_only = with.clone();
    dob_only.iter_mut().for_each(|q| q.country.clear());
    let mut without = with.clone();
    without.iter_mut().for_each(|q| {
        q.date_of_birth.clear();
        q.country.clear();
    });
    println!(
        "\n| development set | positives | recall at {threshold} | negatives | false positives at {threshold} |\n|---|---:|---:|---:|---:|"
    );
    for (label, set) in [
        ("name only", &without),
        ("with date of birth", &dob_only),
        ("with date of birth and country", &with),
    ] {
        let r = Report::new(&quality::run(index, set), threshold);
        println!(
            "| {label} | {} | {:.1} | {} | {:.1} |",
            r.positives.queries,
            100.0 * r.positives.recall,
            r.negatives.queries,
            100.0 * r.negatives.false_positive_rate
        );
    }
    let cross = quality::sets::cross_script(entries);
    let forward = engine::Index::build(&cross.forward);
    let reverse = engine::Index::build(&cross.reverse);
    let mut cross_outcomes = quality::run(&forward, &cross.forward_queries);
    cross_outcomes.extend(quality::run(&reverse, &cross.reverse_queries));
    println!(
        "\ncross-script\n{}",
        Report::new(&cross_outcomes, threshold).markdown()
    );
    let positives = positives(queries);
    let combined = quality::sets::combined(entries, &positives);
    let combined_outcomes = quality::run(index, &combined);
    println!(
        "\ncombined changes\n{}",
        Report::new(&combined_outcomes, threshold).markdown()
    );
    if std::env::var_os("EVAL_SHOW").is_some() {
        for (q, o) in combined
            .iter()
            .chain(&cross.forward_queries)
            .zip(combined_outcomes.iter().chain(&cross_outcomes))
        {
            if o.target_score.is_none_or(|s| s < threshold) {
                println!(
                    "MISS [{}] {:?} -> {} ({:?})",
                    q.category, q.query, q.expected_entity_id, o.target_score
                );
            }
        }
    }
}

/// Writes [`quality::dump`] of every set `--sets` measures to `file`.
fn write_dump(
    file: &std::path::Path,
    index: &engine::Index,
    entries: &[sanctions_model::EntityNames],
    queries: &[quality::LabelledQuery],
) -> color_eyre::Result<()> {
    let typed: Vec<quality::LabelledQuery> = quality::sets::TYPED_CASES
        .iter()
        .chain(quality::sets::TYPED_CASES_MISSED)
        .enumerate()
        .map(|(i, (query, _))| quality::LabelledQuery {
            qid: format!("typed{i}"),
            query: query.to_string(),
            ..Default::default()
        })
        .collect();
    let positives = positives(queries);
    let cross = quality::sets::cross_script(entries);
    let forward = engine::Index::build(&cross.forward);
    let reverse = engine::Index::build(&cross.reverse);
    let mut lines = quality::dump(index, queries);
    lines.extend(quality::dump(
        index,
        &quality::sets::with_facts(entries, queries),
    ));
    lines.extend(quality::dump(index, &typed));
    lines.extend(quality::dump(
        index,
        &quality::sets::combined(entries, &positives),
    ));
    lines.extend(quality::dump(&forward, &cross.forward_queries));
    lines.extend(quality::dump(&reverse, &cross.reverse_queries));
    lines.push(String::new());
    std::fs::write(file, lines.join("\n"))?;
    eprintln!(
        "wrote {} screened queries to {}",
        lines.len() - 1,
        file.display()
    );
    Ok(())
}

/// Screens each query alone at the default options; the number of hits, so that nothing is
/// optimised away. Not inlined, so that a profiler can count this function alone.
#[inline(never)]
fn screen_sample(index: &engine::Index, queries: &[quality::LabelledQuery]) -> usize {
    queries
        .iter()
        .filter_map(|q| engine::screen(index, &Request::new(q.query.clone())).ok())
        .map(|s| s.hits.len())
        .sum()
}
