//! The Alerts tab's state: the rows loaded, the cursor, the selection and the status filter. A
//! leaf: [`crate::tui::state::State`] holds it, the page [`crate::tui::pages::alerts`] changes
//! and draws it.

use std::collections::BTreeSet;

use crate::api::alerts::{Alert, AlertQuery, AlertStatus};

/// Alerts read per page.
pub const PAGE: usize = 200;
/// Most alerts held at once (pages beyond are not loaded: narrow with `s` or `/`).
pub const MAX_ROWS: usize = 5_000;

/// The Alerts tab's state.
#[derive(Debug, Default)]
pub struct AlertsState {
    pub items: Vec<Alert>,
    /// The cursor of the next page, when there is one.
    pub next: Option<String>,
    /// The page in flight is the next page (appended), not a reload.
    pub appending: bool,
    pub loaded: bool,
    pub selected: usize,
    /// The ids selected with Space.
    pub marked: BTreeSet<String>,
    /// `None`: every status. Starts at open.
    pub status: Option<AlertStatus>,
    pub status_set: bool,
    pub error: Option<String>,
}

impl AlertsState {
    /// The status filter (open until changed).
    pub fn filter(&self) -> Option<AlertStatus> {
        if self.status_set {
            self.status
        } else {
            Some(AlertStatus::Open)
        }
    }

    /// The query of the first page for the current filter.
    pub fn query(&self) -> AlertQuery {
        AlertQuery {
            status: self.filter(),
            kind: None,
            since: None,
            limit: Some(PAGE),
            cursor: None,
        }
    }

    /// Whether more alerts can be loaded.
    pub fn more(&self) -> bool {
        self.next.is_some() && self.items.len() < MAX_ROWS
    }

    /// The selected alerts shown (a selection hidden by a filter or a reload is not acted on).
    pub fn marked_items(&self) -> Vec<&Alert> {
        self.items
            .iter()
            .filter(|a| self.marked.contains(&a.id))
            .collect()
    }
}
