//! A table of rows with a selected row, drawn the same way on every tab.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Row, Table, TableState};

use crate::tui::text::sanitize;

/// Draws `rows` (sanitised) under `header` with `widths`, row `selected` highlighted and
/// marked with `>` (visible without colour).
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    block: Block,
    header: &[&str],
    widths: &[Constraint],
    rows: Vec<Vec<String>>,
    selected: Option<usize>,
) {
    let header = Row::new(header.iter().map(|h| h.to_string()))
        .style(Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));
    let rows = rows
        .into_iter()
        .map(|cells| Row::new(cells.into_iter().map(|c| sanitize(&c))));
    let table = Table::new(rows, widths.to_vec())
        .header(header)
        .block(block)
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ");
    let mut state = TableState::default().with_selected(selected);
    frame.render_stateful_widget(table, area, &mut state);
}
