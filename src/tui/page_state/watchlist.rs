//! The Watchlist tab's state. A leaf: [`crate::tui::state::State`] holds it, the page
//! [`crate::tui::pages::watchlist`] changes and draws it.

use crate::api::favorites::Favorite;

/// The Watchlist tab's state.
#[derive(Debug, Default)]
pub struct WatchlistState {
    pub items: Vec<Favorite>,
    pub total: u64,
    pub loaded: bool,
    pub selected: usize,
    pub error: Option<String>,
}
