//! The state of each tab, in leaf modules below [`super::state`] (which holds them) and
//! [`super::pages`] (which change and draw them): no page imports another, and the state
//! imports no page.

pub mod alerts;
pub mod batch;
pub mod briefs;
pub mod lists;
pub mod screen;
pub mod watchlist;
pub mod webhooks;
