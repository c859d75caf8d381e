//! Why positives are missed: for each query whose expected entry scored under the threshold,
//! the entry's best name and explanation (or that the candidate stage never reached it),
//! the best-scoring result instead, and a cause, with the misses counted by cause. For
//! tuning (`cargo run --release --example eval -- --diagnose`), on the tune half only.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::engine::{self, Hit, Index, MatchKind};

use super::LabelledQuery;

/// Why a positive was missed, read off its target's explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cause {
    /// The candidate stage never scored any name of the target.
    NotACandidate,
    /// A query word of at most three letters found no partner.
    ShortWordUnpaired,
    /// A longer query word found no partner.
    WordUnpaired,
    /// Every query word found a partner, but listed words were left over.
    ListedWordsLeft,
    /// Every word on both sides paired, but the pairs are too weak (typos on variants).
    WeakPairs,
    /// The names met only as whole strings.
    WholeName,
}

impl Cause {
    fn label(self) -> &'static str {
        match self {
            Cause::NotACandidate => "not a candidate",
            Cause::ShortWordUnpaired => "a query word of <= 3 letters unpaired",
            Cause::WordUnpaired => "a query word of >= 4 letters unpaired",
            Cause::ListedWordsLeft => "every query word paired, listed words left over",
            Cause::WeakPairs => "every word paired, pairs too weak",
            Cause::WholeName => "met as whole names only",
        }
    }
}

/// The cause of a miss from the target's hit (`None`: never a candidate).
pub fn cause(hit: Option<&Hit>) -> Cause {
    let Some(hit) = hit else {
        return Cause::NotACandidate;
    };
    let tokens = &hit.explanation.tokens;
    let unpaired_query: Vec<&str> = tokens
        .iter()
        .filter(|t| t.kind == MatchKind::Unmatched && t.listed.is_none())
        .filter_map(|t| t.query.as_deref())
        .collect();
    if tokens.len() == 1 && tokens[0].kind == MatchKind::Joined && !unpaired_query.is_empty() {
        return Cause::WholeName;
    }
    if unpaired_query.iter().any(|w| w.chars().count() <= 3) {
        Cause::ShortWordUnpaired
    } else if !unpaired_query.is_empty() {
        Cause::WordUnpaired
    } else if tokens
        .iter()
        .any(|t| t.kind == MatchKind::Unmatched && t.query.is_none())
    {
        Cause::ListedWordsLeft
    } else if tokens.len() == 1 && tokens[0].kind == MatchKind::Joined {
        Cause::WholeName
    } else {
        Cause::WeakPairs
    }
}

/// A hit's explanation on one line, a pair each: `query ~ listed (how similarity)`.
pub fn explain(hit: &Hit) -> String {
    hit.explanation
        .tokens
        .iter()
        .map(|t| {
            format!(
                "{} ~ {} ({} {})",
                t.query.as_deref().unwrap_or("-"),
                t.listed.as_deref().unwrap_or("-"),
                t.kind.as_str(),
                t.similarity
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The report: every miss of `queries` at `threshold` with its cause, then the counts.
/// `original` gives, by entry id, the name a query was made from (shown when known).
pub fn misses(
    index: &Index,
    queries: &[LabelledQuery],
    original: &BTreeMap<String, String>,
    threshold: u8,
) -> String {
    let mut out = String::new();
    let mut counts: BTreeMap<Cause, usize> = BTreeMap::new();
    let mut positives = 0;
    for q in queries.iter().filter(|q| !q.expected_entity_id.is_empty()) {
        positives += 1;
        let expected: Vec<&str> = q.expected_entity_id.split('|').map(str::trim).collect();
        let hits = engine::screen(index, &q.request(engine::MAX_LIMIT))
            .map(|r| r.hits)
            .unwrap_or_default();
        let target = hits
            .iter()
            .find(|h| expected.contains(&h.entity_id.as_str()));
        if target.is_some_and(|h| h.score >= threshold) {
            continue;
        }
        let cause = cause(target);
        *counts.entry(cause).or_default() += 1;
        let from = expected
            .first()
            .and_then(|id| original.get(*id))
            .map_or("", String::as_str);
        let _ = writeln!(
            out,
            "\n[{}] {:?} (from {:?}) -> {}: {}",
            q.category,
            q.query,
            from,
            q.expected_entity_id,
            cause.label()
        );
        match target {
            Some(h) => {
                let _ = writeln!(
                    out,
                    "    target {} as {:?}: {}",
                    h.score,
                    h.matched_name,
                    explain(h)
                );
            }
            None => {
                let _ = writeln!(out, "    target not among the candidates");
            }
        }
        let target_id = target.map(|h| h.entity_id.as_str());
        if let Some(best) = hits
            .first()
            .filter(|h| Some(h.entity_id.as_str()) != target_id)
        {
            let _ = writeln!(
                out,
                "    best   {} {} as {:?}: {}",
                best.score,
                best.entity_id,
                best.matched_name,
                explain(best)
            );
        }
    }
    let missed: usize = counts.values().sum();
    let _ = writeln!(
        out,
        "\n{missed} of {positives} positives under {threshold}, by cause:"
    );
    for (cause, n) in &counts {
        let _ = writeln!(out, "  {:>4}  {}", n, cause.label());
    }
    out
}

/// The negatives of `queries` (no expected entry) with a result at or above `threshold`,
/// each with the result's explanation: what a rule that raises recall must not raise.
pub fn false_alarms(index: &Index, queries: &[LabelledQuery], threshold: u8) -> String {
    let mut out = String::new();
    let mut alarms = 0;
    let negatives: Vec<&LabelledQuery> = queries
        .iter()
        .filter(|q| q.expected_entity_id.is_empty())
        .collect();
    for q in &negatives {
        let Some(hit) = engine::screen(index, &q.request(1))
            .ok()
            .and_then(|r| r.hits.into_iter().next())
            .filter(|h| h.score >= threshold)
        else {
            continue;
        };
        alarms += 1;
        let _ = writeln!(
            out,
            "[{}] {:?} -> {} {} as {:?}: {}",
            q.category,
            q.query,
            hit.score,
            hit.entity_id,
            hit.matched_name,
            explain(&hit)
        );
    }
    let _ = writeln!(
        out,
        "\n{alarms} of {} negatives at or above {threshold}",
        negatives.len()
    );
    out
}
