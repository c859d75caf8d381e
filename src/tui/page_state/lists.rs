//! The Lists tab's state: the lists, a list's update history, and the running update or import.
//! A leaf: [`crate::tui::state::State`] holds it, the page [`crate::tui::pages::lists`] changes
//! and draws it.

use crate::api::lists::{ListInfo, UpdateInfo};
use crate::model::ListCode;
use crate::tui::widgets::table;

/// Data older than this many days is flagged.
pub const STALE_DAYS: i64 = 7;

/// The Lists tab's state.
#[derive(Debug, Default)]
pub struct ListsState {
    pub lists: Vec<ListInfo>,
    pub loaded: bool,
    pub selected: usize,
    pub error: Option<String>,
    /// The update history shown (Enter on a list), newest first.
    pub updates: Option<(ListCode, Vec<UpdateInfo>)>,
    /// Whether `u` / `i` can run here (local mode).
    pub can_run: bool,
    /// The running update or import and its latest output line.
    pub job: Option<(&'static str, String)>,
    /// The folder of the last import (the next prompt starts with it).
    pub last_dir: Option<String>,
    /// Why the last update or import failed, shown whole (wrapped) under the table.
    pub failure: Option<String>,
}

impl ListsState {
    /// Replaces the lists.
    pub fn set(&mut self, lists: Vec<ListInfo>) {
        self.lists = lists;
        self.loaded = true;
        self.error = None;
        self.selected = table::clamp(self.selected, self.lists.len());
    }
}
