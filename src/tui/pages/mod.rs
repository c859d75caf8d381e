//! One module per tab: its state, its keys and results, and its drawing.

pub mod alerts;
pub mod batch;
pub mod briefs;
pub mod lists;
pub mod screen;
pub mod screen_view;
pub mod watchlist;
pub mod webhooks;
