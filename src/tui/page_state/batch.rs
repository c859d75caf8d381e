//! The Batch tab's state, and a batch as read from a file or a paste ([`Loaded`], the result of
//! a read). A leaf: [`crate::tui::state::State`] holds it, the page
//! [`crate::tui::pages::batch`] changes and draws it.

use crate::api::batch::{BatchName, BatchRequest, BatchResult};

/// The Batch tab's state.
#[derive(Debug, Default)]
pub struct BatchState {
    pub names: Vec<BatchName>,
    /// Names screened so far (the progress bar).
    pub done: usize,
    pub results: Vec<BatchResult>,
    pub running: bool,
    pub hits_only: bool,
    pub by_score: bool,
    pub selected: usize,
    /// The `/` words rows must hold.
    pub words: Option<String>,
    pub error: Option<String>,
    /// The input's header and each name's cells (a delimited file with a header; else
    /// empty): every column is kept through to the table and the export.
    pub header: Vec<String>,
    pub roles: Vec<Option<&'static str>>,
    pub cells: Vec<Vec<String>>,
    /// Which input columns were used and which only kept (said at load and when done).
    pub note: Option<String>,
}

/// A batch read from a file or a paste: the names, and the input's columns.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub request: BatchRequest,
    pub header: Vec<String>,
    pub roles: Vec<Option<&'static str>>,
    /// Each name's cells, in the order of `request.names`.
    pub cells: Vec<Vec<String>>,
}

impl Loaded {
    /// Names without columns (pasted, one per line, or JSON).
    pub fn names(request: BatchRequest) -> Loaded {
        Loaded {
            request,
            header: Vec::new(),
            roles: Vec::new(),
            cells: Vec::new(),
        }
    }

    /// Which columns were used and which were kept only, for the status bar.
    pub fn columns_note(&self) -> Option<String> {
        if self.header.is_empty() {
            return None;
        }
        let mut used: Vec<String> = Vec::new();
        let mut kept = Vec::new();
        for (name, role) in self.header.iter().zip(&self.roles) {
            match role {
                Some(role) if name.eq_ignore_ascii_case(role) => used.push(name.clone()),
                Some(role) => used.push(format!("{name} (as {role})")),
                None => kept.push(name.as_str()),
            }
        }
        let mut parts = vec![format!("used: {}", used.join(", "))];
        if !kept.is_empty() {
            parts.push(format!("kept: {}", kept.join(", ")));
        }
        Some(crate::tui::text::sanitize(&format!(
            "columns {}",
            parts.join(" · ")
        )))
    }
}

impl BatchState {
    /// The rows shown, after the filter and sort, with their input position.
    pub fn indexed_rows(&self) -> Vec<(usize, &BatchResult)> {
        let mut rows: Vec<(usize, &BatchResult)> = self
            .results
            .iter()
            .enumerate()
            .filter(|(_, r)| !self.hits_only || r.matches > 0)
            .filter(|(i, r)| {
                self.words.as_deref().is_none_or(|w| {
                    crate::tui::filter::matches(w, &r.name)
                        || self
                            .cells
                            .get(*i)
                            .is_some_and(|c| crate::tui::filter::matches(w, &c.join(" ")))
                })
            })
            .collect();
        if self.by_score {
            rows.sort_by_key(|(_, r)| std::cmp::Reverse(r.best_score.unwrap_or(0)));
        }
        rows
    }

    /// The rows shown, after the filter and sort.
    pub fn rows(&self) -> Vec<&BatchResult> {
        self.indexed_rows().into_iter().map(|(_, r)| r).collect()
    }

    /// The input columns kept besides the name (their header index and title).
    pub fn extra_columns(&self) -> Vec<(usize, &str)> {
        self.header
            .iter()
            .enumerate()
            .filter(|(i, _)| self.roles.get(*i).copied().flatten() != Some("name"))
            .map(|(i, h)| (i, h.as_str()))
            .collect()
    }

    /// The cell of input row `row` in column `col`.
    pub fn cell(&self, row: usize, col: usize) -> &str {
        self.cells
            .get(row)
            .and_then(|c| c.get(col))
            .map_or("", String::as_str)
    }
}
