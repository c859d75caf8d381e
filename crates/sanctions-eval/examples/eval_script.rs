//! Diagnoses the cross-script set's misses on its **tune half only** (the measure half is
//! never looked at): each Arabic- or Hebrew-script query whose target scores under the
//! threshold, with the target's best name and the alignment that scored it, grouped by a
//! rough cause and counted.
//!
//! `cargo run --release --example eval_script [-- [--all] [--reverse] [LISTS_DIR]]`:
//! `--all` prints every miss (default: the first 15 of each cause), `--reverse` diagnoses
//! the Latin -> Arabic-script queries instead; `--words NAME...` prints how names normalise.
//! `--proxy` learns the lexicon from one half of the tune half only (`quality::quarter_of`:
//! `tune-a`) and diagnoses the other (`tune-b`): a stand-in for the measure half, whose
//! entries the committed lexicon never saw, to find what generalises.

use std::collections::BTreeMap;
use std::path::PathBuf;

use sanctions_engine::{self as engine, DEFAULT_THRESHOLD, MatchKind};
use sanctions_eval::{self as quality, diagnose};

fn main() -> color_eyre::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    let reverse = args.iter().any(|a| a == "--reverse");
    let proxy = args.iter().any(|a| a == "--proxy");
    if args.first().is_some_and(|a| a == "--words") {
        // How names normalise: each token, its kind and its consonant skeleton.
        for name in &args[1..] {
            let tokens = sanctions_engine::normalize::tokens(name, false);
            let shown: Vec<String> = tokens
                .iter()
                .map(|t| {
                    let skeleton = sanctions_engine::script::skeleton(&t.text);
                    format!("{}[{:?} {skeleton}]", t.text, t.kind)
                })
                .collect();
            println!("{name}: {}", shown.join(" "));
        }
        return Ok(());
    }
    args.retain(|a| !a.starts_with("--"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let lists = args
        .first()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../../../shared/data/lists"));
    let (entries, _) = quality::names_from_dir(&lists);
    if proxy {
        let text = quality::lexicon::learn_from(&entries, |id| quality::quarter_of(id) == "tune-a");
        assert!(engine::replace_lexicon_for_evaluation(text));
    }
    let cross = quality::sets::cross_script(&entries);
    let (index, queries) = if reverse {
        (engine::Index::build(&cross.reverse), cross.reverse_queries)
    } else {
        (engine::Index::build(&cross.forward), cross.forward_queries)
    };
    let wanted = |q: &quality::LabelledQuery| {
        let c = &q.category;
        let part = if proxy {
            quality::quarter_of(&q.expected_entity_id) == "tune-b"
        } else {
            c.ends_with(" tune")
        };
        part && (c.starts_with("arabic") || c.starts_with("hebrew") || reverse)
    };
    let mut causes: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut total = 0;
    for q in queries.iter().filter(|q| wanted(q)) {
        total += 1;
        let result = engine::screen(&index, &q.request(500))?;
        let target = result
            .hits
            .iter()
            .find(|h| q.expected_entity_id.split('|').any(|id| id == h.entity_id));
        if target.is_some_and(|h| h.score >= DEFAULT_THRESHOLD) {
            continue;
        }
        let Some(hit) = target else {
            causes
                .entry("not a candidate")
                .or_default()
                .push(format!("{:?} -> {}", q.query, q.expected_entity_id));
            continue;
        };
        let pairs = &hit.explanation.tokens;
        let unmatched_query = pairs
            .iter()
            .filter(|p| p.query.is_some() && p.kind == MatchKind::Unmatched)
            .count();
        let unmatched_listed = pairs
            .iter()
            .filter(|p| p.query.is_none() && p.kind == MatchKind::Unmatched)
            .count();
        let cause = match (unmatched_query, unmatched_listed) {
            (0, 0) => "all paired, weak pairs",
            (0, _) => "listed words left over",
            (_, 0) => "query words left over",
            _ => "both sides left over",
        };
        let first = result.hits.first().map_or(String::new(), |h| {
            format!(" [first: {} {}]", h.score, h.matched_name)
        });
        causes.entry(cause).or_default().push(format!(
            "{:?} -> {:?} {}: {}{first}",
            q.query,
            hit.matched_name,
            hit.score,
            diagnose::explain(hit)
        ));
    }
    let missed: usize = causes.values().map(Vec::len).sum();
    let part = if proxy { "tune-b" } else { "tune-half" };
    println!(
        "{missed} of {total} {part} queries under {DEFAULT_THRESHOLD}: recall {:.1}%",
        100.0 * (total - missed) as f32 / total.max(1) as f32
    );
    for (cause, lines) in &causes {
        println!("\n## {cause}: {}", lines.len());
        for l in lines.iter().take(if all { usize::MAX } else { 15 }) {
            println!("  {l}");
        }
    }
    Ok(())
}
