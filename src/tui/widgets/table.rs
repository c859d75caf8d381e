//! A table of rows with a selected row, drawn the same way on every tab, and what the tabs'
//! tables share besides: the cursor keys, keeping the cursor on a row after a reload, and
//! the message shown in the table's place while it has no row.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Text;
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState, Wrap};

use crate::tui::keymap::Command;
use crate::tui::text::{fit, sanitize};

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
    // Sanitised too: the Batch tab's headers are the input file's column names.
    let header = Row::new(header.iter().map(|h| sanitize(h)))
        .style(Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));
    // The columns' widths as the table lays them out, so that a cell cut short ends in `…`
    // (eight rows of one long name cut at the same place would look identical otherwise).
    let columns = column_widths(block.inner(area).width, widths, selected.is_some());
    let rows = rows.into_iter().map(|cells| {
        Row::new(
            cells
                .into_iter()
                .enumerate()
                .map(|(i, c)| match columns.get(i) {
                    Some(&w) => fit(&c, w as usize),
                    None => sanitize(&c),
                }),
        )
    });
    let table = Table::new(rows, widths.to_vec())
        .header(header)
        .block(block)
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ");
    let mut state = TableState::default().with_selected(selected);
    frame.render_stateful_widget(table, area, &mut state);
}

/// The width of each column, as ratatui's table computes it (selection marker, then the
/// columns with one space between them, from the start).
fn column_widths(width: u16, widths: &[Constraint], selection: bool) -> Vec<u16> {
    let marker = if selection { 2 } else { 0 };
    let area = Rect::new(0, 0, width.saturating_sub(marker), 1);
    Layout::horizontal(widths.to_vec())
        .flex(Flex::Start)
        .spacing(1)
        .split(area)
        .iter()
        .map(|r| r.width)
        .collect()
}

/// Moves the cursor `selected` of a table of `len` rows on Up, Down, Top or Bottom (never
/// past the last row); true when `command` was one of them.
pub fn step(selected: &mut usize, len: usize, command: Command) -> bool {
    match command {
        Command::Up => *selected = selected.saturating_sub(1),
        Command::Down if *selected + 1 < len => *selected += 1,
        Command::Down => {}
        Command::Top => *selected = 0,
        Command::Bottom => *selected = len.saturating_sub(1),
        _ => return false,
    }
    true
}

/// The cursor `selected` kept on one of `len` rows (row 0 when there is none).
pub fn clamp(selected: usize, len: usize) -> usize {
    selected.min(len.saturating_sub(1))
}

/// The text in a table's place while it has no row: the load `error`, `Loading…` while a
/// request is `pending`, `Not loaded: r reloads.` before the first load, else `empty`.
pub fn placeholder(error: Option<&str>, pending: bool, loaded: bool, empty: &str) -> String {
    match error {
        // A remote server's message, or one quoting an input file, sanitised.
        Some(e) => format!("✗ {}", sanitize(e)),
        None if pending => "Loading…".to_owned(),
        None if !loaded => "Not loaded: r reloads.".to_owned(),
        None => empty.to_owned(),
    }
}

/// Draws `text` (wrapped) in `block`, in a table's place.
pub fn message<'a>(frame: &mut Frame, area: Rect, block: Block, text: impl Into<Text<'a>>) {
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: false }).block(block),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_stays_on_a_row() {
        let mut selected = 0;
        assert!(step(&mut selected, 3, Command::Up));
        assert_eq!(selected, 0);
        step(&mut selected, 3, Command::Down);
        step(&mut selected, 3, Command::Down);
        step(&mut selected, 3, Command::Down);
        assert_eq!(selected, 2);
        step(&mut selected, 3, Command::Top);
        assert_eq!(selected, 0);
        step(&mut selected, 3, Command::Bottom);
        assert_eq!(selected, 2);
        step(&mut selected, 0, Command::Bottom);
        assert_eq!(selected, 0);
        assert!(!step(&mut selected, 3, Command::Refresh));
        assert_eq!(clamp(7, 3), 2);
        assert_eq!(clamp(7, 0), 0);
        assert_eq!(clamp(1, 3), 1);
    }

    #[test]
    fn the_placeholder_says_why_there_is_no_row() {
        assert_eq!(placeholder(Some("down"), true, true, "none"), "✗ down");
        assert_eq!(
            placeholder(Some("\u{1b}[31mred\u{202e}"), false, true, "none"),
            "✗ [31mred"
        );
        assert_eq!(placeholder(None, true, false, "none"), "Loading…");
        assert_eq!(
            placeholder(None, false, false, "none"),
            "Not loaded: r reloads."
        );
        assert_eq!(placeholder(None, false, true, "none"), "none");
    }
}
