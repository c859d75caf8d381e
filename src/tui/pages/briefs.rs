//! The Briefs tab: latest-first news about list changes (date, severity, title, lists), a
//! brief's scrollable body with its link, and filters (a list, and `/` words).

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::api::briefs::Brief;
use crate::tui::action::{Call, Effect, Outcome, Slot};
use crate::tui::keymap::Command;
use crate::tui::state::{State, call};
use crate::tui::text::{fit, sanitize};
use crate::tui::theme;
use crate::tui::widgets::table;

pub use crate::tui::page_state::briefs::BriefsState;

/// Sets the `/` words (empty clears them) and reloads.
pub fn set_words(state: &mut State, words: &str) -> Vec<Effect> {
    let words = words.trim();
    state.briefs.words = (!words.is_empty()).then(|| words.to_owned());
    reload(state)
}

fn reload(state: &mut State) -> Vec<Effect> {
    state.briefs.selected = 0;
    state.briefs.open = false;
    let query = state.briefs.query();
    vec![call(state, Call::Briefs(query))]
}

/// Handles a command on the Briefs tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let b = &mut state.briefs;
    if b.open {
        match command {
            Command::Up => b.scroll = b.scroll.saturating_sub(1),
            Command::Down => b.scroll = b.scroll.saturating_add(1).min(2000),
            Command::Top => b.scroll = 0,
            Command::Back => b.open = false,
            _ => {}
        }
        return Vec::new();
    }
    if table::step(&mut b.selected, b.items.len(), command) {
        return Vec::new();
    }
    match command {
        Command::Activate if b.current().is_some() => {
            b.open = true;
            b.scroll = 0;
        }
        Command::Refresh => return reload(state),
        Command::CycleList => {
            // Cycle through the lists of the Lists tab, then back to all.
            let codes: Vec<String> = state
                .lists
                .lists
                .iter()
                .map(|l| l.list_code.code().to_owned())
                .collect();
            let next = match &b.list {
                None => codes.first().cloned(),
                Some(cur) => codes
                    .iter()
                    .position(|c| c == cur)
                    .and_then(|i| codes.get(i + 1).cloned()),
            };
            b.list = next;
            return reload(state);
        }
        Command::Fetch => {
            let local = state.status.mode == "LOCAL";
            let note = match (local, state.net.offline, state.net.feeds) {
                (false, ..) => "new list updates and the server's feeds",
                (true, true, _) => "new list updates only (offline = true: no feed is read)",
                (true, false, false) => {
                    "new list updates only (feeds are off: [ui] feeds = true reads the publishers' news feeds)"
                }
                (true, false, true) => "new list updates and the configured feeds",
            };
            state.info(format!("fetching briefs: {note}…"));
            return vec![call(state, Call::RefreshBriefs)];
        }
        _ => {}
    }
    Vec::new()
}

/// Applies a result for the Briefs tab.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::Briefs(Ok(page)) => {
            let b = &mut state.briefs;
            b.items = page.items;
            b.more = page.next_cursor.is_some();
            b.loaded = true;
            b.error = None;
            b.selected = table::clamp(b.selected, b.items.len());
            Vec::new()
        }
        Outcome::Briefs(Err(e)) => {
            state.briefs.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        Outcome::BriefsRefreshed(Ok(report)) => {
            let failed: Vec<String> = report
                .feeds
                .iter()
                .filter(|f| f.error.is_some())
                .map(|f| f.name.clone())
                .collect();
            let new: usize = report.feeds.iter().map(|f| f.new).sum();
            let mut text = format!(
                "briefs fetched: {} list update(s), {new} new feed item(s)",
                report.list_updates
            );
            if !failed.is_empty() {
                text.push_str(&format!(
                    "; feeds that failed (offline?): {}",
                    failed.join(", ")
                ));
            }
            state.info(sanitize(&text));
            reload(state)
        }
        Outcome::BriefsRefreshed(Err(e)) => {
            state.service_error(&e);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Draws the Briefs tab.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let b = &state.briefs;
    if b.open
        && let Some(brief) = b.current()
    {
        draw_detail(frame, area, brief, b.scroll);
        return;
    }
    let title = format!(
        " Briefs · {}{} · l list · / words · u fetch · Enter read ",
        b.filters(),
        if b.more { " (first 100)" } else { "" }
    );
    let block = Block::bordered().title(fit(&title, area.width.saturating_sub(2) as usize));
    if b.items.is_empty() {
        let empty = if b.list.is_some() || b.words.is_some() {
            "No brief matches these filters: l cycles the list back to all, / with nothing clears the words."
        } else {
            "No brief yet. A brief is written for each list update (import or update the lists), \
             and from the feeds of the config file: u fetches them now."
        };
        // Before the first answer the tab is loading: it asks on opening.
        let pending = state.requests.pending(Slot::Briefs) || !b.loaded;
        let text = table::placeholder(b.error.as_deref(), pending, b.loaded, empty);
        table::message(frame, area, block, text);
        return;
    }
    let wide = area.width >= 100;
    let rows = b
        .items
        .iter()
        .map(|x| {
            let mut row = vec![
                x.published_at
                    .get(..10)
                    .unwrap_or(&x.published_at)
                    .to_owned(),
                x.severity.clone(),
                x.title.clone(),
                x.lists.join(","),
            ];
            if wide {
                row.push(x.source.clone());
            }
            row
        })
        .collect();
    if wide {
        let widths = [
            Constraint::Length(10),
            Constraint::Length(8),
            Constraint::Fill(1),
            Constraint::Length(16),
            Constraint::Length(12),
        ];
        let header = ["Date", "Severity", "Title", "Lists", "Source"];
        table::draw(frame, area, block, &header, &widths, rows, Some(b.selected));
    } else {
        let widths = [
            Constraint::Length(10),
            Constraint::Length(8),
            Constraint::Fill(1),
            Constraint::Length(10),
        ];
        let header = ["Date", "Severity", "Title", "Lists"];
        table::draw(frame, area, block, &header, &widths, rows, Some(b.selected));
    }
}

fn draw_detail(frame: &mut Frame, area: Rect, brief: &Brief, scroll: u16) {
    let block = Block::bordered().title(" Brief · ↑↓ scroll · y copies the link · Esc back ");
    let mut lines: Vec<Line<'static>> = vec![
        Line::styled(sanitize(&brief.title), theme::accent()),
        Line::from(format!(
            "{} UTC · severity {} · {} · lists {}",
            sanitize(
                &brief
                    .published_at
                    .get(..16)
                    .unwrap_or(&brief.published_at)
                    .replace('T', " ")
            ),
            sanitize(&brief.severity),
            sanitize(&brief.source),
            sanitize(&brief.lists.join(", ")),
        )),
    ];
    if let Some(url) = &brief.url {
        lines.push(Line::from(format!("link: {}", sanitize(url))));
    }
    if !brief.countries.is_empty() {
        lines.push(Line::from(format!(
            "countries: {}",
            sanitize(&brief.countries.join(", "))
        )));
    }
    lines.push(Line::from(""));
    if !brief.summary.trim().is_empty() && !brief.body.contains(brief.summary.trim()) {
        lines.push(Line::from(sanitize(&brief.summary)));
        lines.push(Line::from(""));
    }
    // The body is markdown: drawn as styled text, never shown as raw markup.
    lines.extend(crate::tui::markdown::lines(&brief.body));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        area,
    );
}
