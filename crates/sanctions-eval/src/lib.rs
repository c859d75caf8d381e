//! Measuring match quality on a labelled query set (`qid,query,type_hint,category,
//! expected_entity_id`, as `../shared/eval/dev.csv`): recall@1, recall@10, recall and
//! false-positive rate at a threshold, overall and per category.

use sanctions_model as model;
use sanctions_service::ingest;

pub mod diagnose;
pub mod lexicon;
pub mod sets;

use std::collections::BTreeMap;
use std::path::PathBuf;

use rayon::prelude::*;

use sanctions_engine::{self as engine, Index, KindFilter, Request};

/// One labelled query.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct LabelledQuery {
    pub qid: String,
    pub query: String,
    #[serde(default)]
    pub type_hint: String,
    pub category: String,
    /// Acceptable entity ids joined by `|`; empty for a name on no list.
    #[serde(default)]
    pub expected_entity_id: String,
    /// A date of birth to screen with (`YYYY[-MM[-DD]]`), or empty.
    #[serde(default)]
    pub date_of_birth: String,
    /// A country to screen with, or empty.
    #[serde(default)]
    pub country: String,
}

impl LabelledQuery {
    /// The request that measures this query: its type hint, every result down to score 0,
    /// at most `limit` of them.
    pub fn request(&self, limit: usize) -> Request {
        let kind = match self.type_hint.trim() {
            "individual" => Some(KindFilter::Individual),
            "entity" => Some(KindFilter::Entity),
            _ => None,
        };
        Request {
            kind,
            threshold: Some(0),
            limit: Some(limit),
            // The set was made from every listed entry, ended World Bank debarments included:
            // it measures name matching, not which listings are in force.
            include_ended: true,
            date_of_birth: Some(self.date_of_birth.clone()).filter(|d| !d.is_empty()),
            country: Some(self.country.clone()).filter(|c| !c.is_empty()),
            ..Request::new(self.query.clone())
        }
    }

    fn expected(&self) -> Vec<&str> {
        self.expected_entity_id
            .split('|')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    }
}

/// The half of the development set a query belongs to (`tune` or `measure`), by a stable
/// hash of its id: rules are tuned on one half and the other is only measured.
pub fn half_of(qid: &str) -> &'static str {
    if engine::hash_text(qid).is_multiple_of(2) {
        "tune"
    } else {
        "measure"
    }
}

/// The quarter of an entry or query id: `tune-a` or `tune-b` (the tune half split again by
/// the same hash), or `measure`. `eval_script --proxy` learns the lexicon from `tune-a` and
/// diagnoses `tune-b`, so that what generalises can be looked at without looking at the
/// measure half.
pub fn quarter_of(qid: &str) -> &'static str {
    match engine::hash_text(qid) % 4 {
        0 => "tune-a",
        2 => "tune-b",
        _ => "measure",
    }
}

/// Reads a labelled query set from CSV.
pub fn read_queries(csv_text: &str) -> Result<Vec<LabelledQuery>, csv::Error> {
    csv::Reader::from_reader(csv_text.as_bytes())
        .deserialize()
        .collect()
}

/// What happened to one query.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub qid: String,
    pub category: String,
    pub positive: bool,
    /// Rank (1-based, ties at the target's score counted as 1 ahead of it) of the first
    /// expected entity among the results, if it was found.
    pub rank: Option<usize>,
    /// Score of the best expected entity found.
    pub target_score: Option<u8>,
    /// Best score of any result (for negatives: the false alarm's score).
    pub top_score: Option<u8>,
}

/// Screens every query (threshold 0, ten results) and records where the expected entity
/// landed.
pub fn run(index: &Index, queries: &[LabelledQuery]) -> Vec<Outcome> {
    queries
        .par_iter()
        .map(|q| {
            let results = engine::screen(index, &q.request(10))
                .map(|r| r.hits)
                .unwrap_or_default();
            let expected = q.expected();
            let target = results
                .iter()
                .position(|m| expected.contains(&m.entity_id.as_str()));
            let target_score = target.map(|i| results[i].score);
            let rank =
                target_score.map(|score| 1 + results.iter().filter(|m| m.score > score).count());
            Outcome {
                qid: q.qid.clone(),
                category: q.category.clone(),
                positive: !expected.is_empty(),
                rank,
                target_score,
                top_score: results.first().map(|m| m.score),
            }
        })
        .collect()
}

/// Every query's full results, one line each, for comparing two builds of the engine
/// exactly (`eval --dump FILE`): each query screened three ways (as [`run`] measures it, at
/// the engine's defaults with its type hint as a batch or the server would, and down to 50
/// with up to 100 results, which looks deepest into the candidates), each screening's total
/// and every hit's entry, score, matched name, explanation and facts.
pub fn dump(index: &Index, queries: &[LabelledQuery]) -> Vec<String> {
    queries
        .par_iter()
        .map(|q| {
            let measured = q.request(10);
            let defaults = Request {
                threshold: None,
                limit: None,
                include_ended: false,
                ..measured.clone()
            };
            let deep = Request {
                threshold: Some(50),
                limit: Some(100),
                ..measured.clone()
            };
            let mut line = format!("{} {:?}", q.qid, q.query);
            for request in [measured, defaults, deep] {
                line.push_str(&format!(" | {:?}", engine::screen(index, &request)));
            }
            line
        })
        .collect()
}

/// Figures for one group of queries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub queries: usize,
    pub recall_at_1: f64,
    pub recall_at_10: f64,
    /// Positives whose expected entity scored at or above the threshold.
    pub recall: f64,
    /// Negatives with any result at or above the threshold.
    pub false_positive_rate: f64,
}

/// The quality report: overall, positives' and negatives' figures and per category.
#[derive(Debug, Clone)]
pub struct Report {
    pub threshold: u8,
    pub positives: Figures,
    pub negatives: Figures,
    pub categories: BTreeMap<String, Figures>,
    /// Recall at the lowest threshold whose false-positive rate is at most 1% and 5%.
    pub recall_at_fpr_1: f64,
    pub recall_at_fpr_5: f64,
}

impl Report {
    pub fn new(outcomes: &[Outcome], threshold: u8) -> Report {
        let mut categories: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
        for o in outcomes {
            categories.entry(o.category.clone()).or_default().push(o);
        }
        let pos: Vec<&Outcome> = outcomes.iter().filter(|o| o.positive).collect();
        let neg: Vec<&Outcome> = outcomes.iter().filter(|o| !o.positive).collect();
        Report {
            threshold,
            positives: figures(&pos, threshold),
            negatives: figures(&neg, threshold),
            categories: categories
                .into_iter()
                .map(|(c, os)| (c, figures(&os, threshold)))
                .collect(),
            recall_at_fpr_1: recall_at_fpr(&pos, &neg, 0.01),
            recall_at_fpr_5: recall_at_fpr(&pos, &neg, 0.05),
        }
    }

    /// The report as a Markdown table.
    pub fn markdown(&self) -> String {
        let pct = |x: f64| format!("{:.1}", x * 100.0);
        let mut out = format!(
            "| category | queries | recall@1 | recall@10 | recall at {t} | false positives at {t} |\n|---|---:|---:|---:|---:|---:|\n",
            t = self.threshold
        );
        let mut row = |name: &str, f: &Figures, positive: bool| {
            let (r1, r10, r, fp) = if positive {
                (
                    pct(f.recall_at_1),
                    pct(f.recall_at_10),
                    pct(f.recall),
                    "".into(),
                )
            } else {
                ("".into(), "".into(), "".into(), pct(f.false_positive_rate))
            };
            out.push_str(&format!(
                "| {name} | {} | {r1} | {r10} | {r} | {fp} |\n",
                f.queries
            ));
        };
        row("**all positives**", &self.positives, true);
        row("**all negatives**", &self.negatives, false);
        for (name, f) in &self.categories {
            row(name, f, !name.starts_with("neg_"));
        }
        out.push_str(&format!(
            "\nRecall where false positives are at most 1%: {}; at most 5%: {}.\n",
            pct(self.recall_at_fpr_1),
            pct(self.recall_at_fpr_5)
        ));
        out
    }
}

fn figures(outcomes: &[&Outcome], threshold: u8) -> Figures {
    let n = outcomes.len();
    if n == 0 {
        return Figures::default();
    }
    let share = |pred: &dyn Fn(&Outcome) -> bool| {
        outcomes.iter().filter(|o| pred(o)).count() as f64 / n as f64
    };
    Figures {
        queries: n,
        recall_at_1: share(&|o| o.rank == Some(1)),
        recall_at_10: share(&|o| o.rank.is_some_and(|r| r <= 10)),
        recall: share(&|o| o.target_score.is_some_and(|s| s >= threshold)),
        false_positive_rate: share(&|o| o.top_score.is_some_and(|s| s >= threshold)),
    }
}

fn recall_at_fpr(pos: &[&Outcome], neg: &[&Outcome], max_fpr: f64) -> f64 {
    (0..=101u16)
        .find_map(|t| {
            let t8 = t.min(100) as u8;
            let fp = neg
                .iter()
                .filter(|o| t <= 100 && o.top_score.is_some_and(|s| s >= t8))
                .count() as f64;
            (neg.is_empty() || fp / neg.len() as f64 <= max_fpr).then(|| {
                let hits = pos
                    .iter()
                    .filter(|o| t <= 100 && o.target_score.is_some_and(|s| s >= t8))
                    .count();
                hits as f64 / pos.len().max(1) as f64
            })
        })
        .unwrap_or(0.0)
}

/// Builds an index straight from the official files under `dir` (`dir/<code>/...`, all eight
/// lists), for measurements; returns the lists that could not be read alongside.
pub fn index_from_dir(dir: &std::path::Path) -> (Index, Vec<String>) {
    let (names, problems) = names_from_dir(dir);
    (Index::build(&names), problems)
}

/// The names of every entry of the official files under `dir`, and the lists that could
/// not be read.
pub fn names_from_dir(dir: &std::path::Path) -> (Vec<crate::model::EntityNames>, Vec<String>) {
    let mut names = Vec::new();
    let mut problems = Vec::new();
    for (list, parsed) in crate::ingest::parse_lists(dir, &crate::model::ListCode::ALL) {
        match parsed {
            Ok(parsed) => names.extend(parsed.entities.iter().map(crate::model::EntityNames::of)),
            Err(e) => problems.push(format!("{list}: {e}")),
        }
    }
    (names, problems)
}

/// `../shared` beside the repository (the real lists under `data/`, the query sets under
/// `eval/`); a missing folder fails with a message saying so.
pub fn shared_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    assert!(
        dir.join("data").is_dir(),
        "{} is missing: the evaluation needs the eight official lists there \
         (see ../shared/data/SOURCES.md)",
        dir.join("data").display()
    );
    dir
}
