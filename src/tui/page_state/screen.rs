//! The Screen tab's state: the fields, the screening shown, the detail and the history. A leaf:
//! [`crate::tui::state::State`] holds it, the page [`crate::tui::pages::screen`] changes and
//! draws it.

use tui_input::Input;

use crate::api::entities::EntityDetail;
use crate::api::screening::{KindFilter, Match, ScreenRequest};
use crate::api::screenings::ScreeningSummary;
use crate::model::ReviewStatus;

/// Where the keyboard is on the Screen tab.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Focus {
    #[default]
    Name,
    /// Optional date of birth (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    Dob,
    /// Optional country (ISO code or name).
    Country,
    Results,
}

/// Screenings read per page of the history.
pub const HISTORY_PAGE: usize = 200;
/// Most screenings of the history held at once.
pub const HISTORY_MAX: usize = 5_000;

/// Whether match `m` holds every word of `words` (its names, list, id, type, country).
fn match_has(m: &Match, words: &str) -> bool {
    let text = format!(
        "{} {} {} {} {} {}",
        m.name,
        m.matched_name,
        m.list_code.code(),
        m.entity_id,
        m.kind,
        m.country.as_deref().unwrap_or("")
    );
    crate::tui::filter::matches(words, &text)
}

/// Shortest name previewed as you type (shorter ones match too much to be useful).
pub const PREVIEW_MIN_CHARS: usize = 2;

/// What the lower part of the tab shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Results,
    Detail,
    History,
}

/// The screening shown: stored (Enter), or a preview as you type (empty `id`).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub id: String,
    pub query: String,
    pub total: u64,
    pub results: Vec<Match>,
    pub status: Option<ReviewStatus>,
    /// What the screening was checked against (missing and stale lists, entries searched).
    pub coverage: Option<crate::api::coverage::Coverage>,
    /// The review decisions recorded on it, oldest first.
    pub decisions: Vec<crate::model::DecisionRecord>,
    /// The date of birth and country it was screened with (a stored screening reopened:
    /// none, as the form is cleared), which `w` keeps with the name on the watchlist.
    pub evidence: Evidence,
}

/// A date of birth and a country, as typed.
pub type Evidence = (Option<String>, Option<String>);

impl Shown {
    /// Whether this is a preview (not stored, so no decision can be recorded on it).
    pub fn is_preview(&self) -> bool {
        self.id.is_empty()
    }
}

/// The Screen tab's state.
#[derive(Debug, Default)]
pub struct ScreenState {
    pub name: Input,
    pub dob: Input,
    pub country: Input,
    /// The date of birth and country of the latest screening and of the latest preview
    /// asked for, given to the result each brings ([`Shown::evidence`]).
    pub asked: (Evidence, Evidence),
    /// The number of the latest typing pause awaited; older ones are ignored.
    pub debounce: u64,
    pub kind: Option<KindFilter>,
    /// Lowest score shown; the engine's default when `None`.
    pub threshold: Option<u8>,
    pub focus: Focus,
    pub view: View,
    pub shown: Option<Shown>,
    pub selected: usize,
    pub detail: Option<EntityDetail>,
    pub scroll: u16,
    pub history: Vec<ScreeningSummary>,
    /// The row under the cursor among the history rows shown (see [`Self::history_visible`]).
    pub history_selected: usize,
    /// The cursor of the history's next page, when there is one.
    pub history_next: Option<String>,
    /// The history page in flight is the next page (appended), not a reload.
    pub history_appending: bool,
    /// The `/` words the history is filtered by.
    pub history_words: Option<String>,
    /// The `/` words the results are filtered by (cleared by the next screening shown).
    pub words: Option<String>,
    pub error: Option<String>,
    /// The name was just run (Enter): the next character typed starts a new name instead of
    /// appending to it (any other key keeps the name for editing).
    pub replace: bool,
}

impl ScreenState {
    /// Whether a text field (name, date of birth, country) has the keyboard.
    pub fn in_text(&self) -> bool {
        self.focus != Focus::Results && self.view == View::Results
    }

    /// Whether `Esc` has something to back out of.
    pub fn can_back(&self) -> bool {
        self.view != View::Results || self.focus != Focus::Results
    }

    /// The text field with the keyboard, if any.
    pub fn field_mut(&mut self) -> Option<&mut Input> {
        if self.view != View::Results {
            return None;
        }
        match self.focus {
            Focus::Name => Some(&mut self.name),
            Focus::Dob => Some(&mut self.dob),
            Focus::Country => Some(&mut self.country),
            Focus::Results => None,
        }
    }

    /// The match under the cursor (among those shown).
    pub fn current(&self) -> Option<&Match> {
        self.visible().get(self.selected).copied()
    }

    /// The results shown: every match of the screening, or those with the `/` words.
    pub fn visible(&self) -> Vec<&Match> {
        let Some(shown) = &self.shown else {
            return Vec::new();
        };
        shown
            .results
            .iter()
            .filter(|m| self.words.as_deref().is_none_or(|w| match_has(m, w)))
            .collect()
    }

    /// The history rows shown: every one loaded, or those with the `/` words.
    pub fn history_visible(&self) -> Vec<&ScreeningSummary> {
        self.history
            .iter()
            .filter(|h| {
                self.history_words.as_deref().is_none_or(|w| {
                    let text = format!("{} {} {} {}", h.id, h.query, h.status, h.created_by);
                    crate::tui::filter::matches(w, &text)
                })
            })
            .collect()
    }

    /// Whether more history can be loaded.
    pub fn history_more(&self) -> bool {
        self.history_next.is_some() && self.history.len() < HISTORY_MAX
    }

    pub fn request(&self) -> ScreenRequest {
        let optional = |input: &Input| {
            let v = input.value().trim();
            (!v.is_empty()).then(|| v.to_owned())
        };
        let mut request = ScreenRequest::new(self.name.value().trim());
        request.kind = self.kind;
        request.threshold = self.threshold;
        request.date_of_birth = optional(&self.dob);
        request.country = optional(&self.country);
        request
    }
}
