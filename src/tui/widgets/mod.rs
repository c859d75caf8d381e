//! Widgets shared by the tabs.

pub mod score_bar;
pub mod status_bar;
pub mod table;
