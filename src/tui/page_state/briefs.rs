//! The Briefs tab's state: the briefs loaded, the one open, and the filters. A leaf:
//! [`crate::tui::state::State`] holds it, the page [`crate::tui::pages::briefs`] changes and
//! draws it.

use crate::api::briefs::{Brief, BriefQuery};
use crate::tui::text::sanitize;

/// Briefs loaded at once.
pub const PAGE: usize = 100;

/// The Briefs tab's state.
#[derive(Debug, Default)]
pub struct BriefsState {
    pub items: Vec<Brief>,
    pub more: bool,
    pub loaded: bool,
    pub selected: usize,
    /// The open brief's body is shown instead of the list.
    pub open: bool,
    pub scroll: u16,
    /// Only briefs touching this list (a list code), when set.
    pub list: Option<String>,
    /// Only briefs with these words (`/`), when set.
    pub words: Option<String>,
    pub error: Option<String>,
}

impl BriefsState {
    /// The query for the current filters.
    pub fn query(&self) -> BriefQuery {
        BriefQuery {
            limit: Some(PAGE),
            list: self.list.clone(),
            q: self.words.clone(),
            ..BriefQuery::default()
        }
    }

    /// The brief under the cursor.
    pub fn current(&self) -> Option<&Brief> {
        self.items.get(self.selected)
    }

    pub fn filters(&self) -> String {
        let mut parts = Vec::new();
        if let Some(l) = &self.list {
            parts.push(format!("list {l}"));
        }
        if let Some(w) = &self.words {
            parts.push(format!("words {:?}", sanitize(w)));
        }
        if parts.is_empty() {
            "all".to_owned()
        } else {
            parts.join(", ")
        }
    }
}
