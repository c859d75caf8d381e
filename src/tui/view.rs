//! The top-level drawing: tab bar, the current tab, the status bar, and the overlays (help,
//! prompt, too-small screen). Reads the state only.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::keymap;
use super::pages;
use super::state::{State, Tab};
use super::text::{fit, sanitize};
use super::theme;
use super::widgets::status_bar;

/// Below this size only the "too small" screen is drawn.
pub const MIN_WIDTH: u16 = 60;
/// Below this size only the "too small" screen is drawn.
pub const MIN_HEIGHT: u16 = 16;

/// Draws the whole UI.
pub fn render(frame: &mut Frame, state: &State) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!(
            "Terminal too small: {}x{}, needs {MIN_WIDTH}x{MIN_HEIGHT}.\nEnlarge it, or q to quit.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(2),
    ])
    .areas(area);
    draw_tabs(frame, tabs, state);
    match state.tab {
        Tab::Screen => pages::screen_view::draw(frame, body, state),
        Tab::Batch => pages::batch::draw(frame, body, state),
        Tab::Lists => pages::lists::draw(frame, body, state),
        Tab::Watchlist => pages::watchlist::draw(frame, body, state),
        Tab::Alerts => pages::alerts::draw(frame, body, state),
        Tab::Briefs => pages::briefs::draw(frame, body, state),
        Tab::Webhooks => pages::webhooks::draw(frame, body, state),
    }
    status_bar::draw(frame, status, state);
    if state.help {
        draw_help(frame, body, state);
    }
    if let Some(prompt) = &state.prompt {
        draw_prompt(frame, body, prompt);
    }
}

fn draw_tabs(frame: &mut Frame, area: Rect, state: &State) {
    let mut spans = Vec::new();
    if area.width >= 100 {
        spans.push(Span::styled(" sanctions ", theme::badge()));
    }
    for (i, tab) in Tab::ALL.iter().enumerate() {
        let label = format!(" {}:{} ", i + 1, tab.title());
        if *tab == state.tab {
            spans.push(Span::styled(
                format!("[{}]", label.trim()),
                theme::accent().add_modifier(Modifier::UNDERLINED),
            ));
        } else {
            spans.push(Span::raw(label));
        }
    }
    let line = Line::from(spans);
    if line.width() > area.width as usize {
        // Tabs cut off at the right: say so, and how to reach them.
        let sign = " ›more: ] ";
        let [tabs, more] = Layout::horizontal([
            Constraint::Min(0),
            Constraint::Length(sign.chars().count() as u16),
        ])
        .areas(area);
        frame.render_widget(Paragraph::new(line), tabs);
        frame.render_widget(Paragraph::new(Span::styled(sign, theme::warn())), more);
        return;
    }
    frame.render_widget(Paragraph::new(line), area);
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [v] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [h] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(v);
    h
}

fn draw_help(frame: &mut Frame, area: Rect, state: &State) {
    let (tab, scroll) = (state.tab, state.help_scroll);
    let lines: Vec<Line> = state
        .keys
        .for_tab(tab)
        .map(|b| Line::from(format!(" {:<10} {}", keymap::key_name(b), b.help)))
        .collect();
    let total = lines.len() as u16;
    let rect = centered(area, 64, total + 2);
    // When it does not fit, ↑↓ scroll it; the title says where it is.
    let visible = rect.height.saturating_sub(2);
    let scroll = scroll.min(total.saturating_sub(visible));
    let more = if total > visible {
        format!(
            " {}-{}/{total} ↑↓",
            scroll + 1,
            (scroll + visible).min(total)
        )
    } else {
        String::new()
    };
    frame.render_widget(Clear, rect);
    let title = format!(" Help · {}{more} · Esc closes ", tab.title());
    let block = Block::bordered().title(fit(&title, rect.width.saturating_sub(2) as usize));
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), rect);
}

fn draw_prompt(frame: &mut Frame, area: Rect, prompt: &super::state::Prompt) {
    let width = area.width.saturating_sub(4).min(90);
    // A yes/no question with details (what a decision records) shows them wrapped.
    let details = prompt.hint.as_deref().filter(|_| prompt.yes_no());
    let detail_lines = details.map_or(0, |d| {
        (d.chars().count() as u16).div_ceil(width.saturating_sub(3).max(1)) + 1
    });
    let rect = centered(
        area,
        width,
        if prompt.yes_no() { 3 + detail_lines } else { 5 },
    );
    frame.render_widget(Clear, rect);
    let title = fit(
        &format!(" {} ", prompt.title),
        rect.width.saturating_sub(2) as usize,
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    if prompt.yes_no() {
        let mut lines = Vec::new();
        if let Some(d) = details {
            lines.push(Line::from(format!(" {d}")));
            lines.push(Line::from(""));
        }
        lines.push(Line::from(" y: yes · any other key: no"));
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
        return;
    }
    let width = inner.width.max(1) as usize;
    let scroll = prompt.input.visual_scroll(width);
    let visible: String = sanitize(prompt.input.value())
        .chars()
        .skip(scroll)
        .collect();
    let [field, note] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(2)]).areas(inner);
    frame.render_widget(Paragraph::new(fit(&visible, width)), field);
    let hint = match &prompt.error {
        Some(e) => Line::from(Span::styled(format!("✗ {e}"), theme::error())),
        None => match &prompt.hint {
            Some(h) => Line::from(Span::raw(h.clone())),
            None if prompt.is_path() => Line::from(Span::styled(
                "Tab completes the path · Enter confirms · Esc cancels",
                Style::default().add_modifier(Modifier::DIM),
            )),
            None => Line::from(Span::styled(
                "Enter confirms · Esc cancels",
                Style::default().add_modifier(Modifier::DIM),
            )),
        },
    };
    frame.render_widget(Paragraph::new(hint).wrap(Wrap { trim: true }), note);
    let x = prompt.input.visual_cursor().saturating_sub(scroll) as u16;
    frame.set_cursor_position(Position::new(field.x + x.min(field.width), field.y));
}
