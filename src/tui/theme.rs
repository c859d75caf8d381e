//! Styles. Only the 16 basic colours (they degrade everywhere), none at all with `NO_COLOR`;
//! every meaning is also carried by text or a symbol.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};

fn colour() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()))
}

fn fg(color: Color) -> Style {
    if colour() {
        Style::default().fg(color)
    } else {
        Style::default()
    }
}

/// The mode badge.
pub fn badge() -> Style {
    Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
}

/// Something that needs attention (open alerts, stale data).
pub fn warn() -> Style {
    fg(Color::Yellow).add_modifier(Modifier::BOLD)
}

/// An error.
pub fn error() -> Style {
    fg(Color::Red).add_modifier(Modifier::BOLD)
}

/// The selected tab and headings.
pub fn accent() -> Style {
    fg(Color::Cyan).add_modifier(Modifier::BOLD)
}
