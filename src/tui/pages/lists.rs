//! The Lists tab: the eight lists with their entry count, last import and age (stale data
//! stands out), their update history, and (local mode) updating from the publishers or
//! importing from a folder, with the progress in the status bar.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::api::lists::UpdateInfo;
use crate::model::ListCode;
use crate::tui::action::{Call, Effect, Outcome, Slot};
use crate::tui::keymap::Command;
use crate::tui::lists_job::ListsWork;
use crate::tui::state::{Prompt, PromptKind, State, call};
use crate::tui::widgets::table;

pub use crate::tui::page_state::lists::{ListsState, STALE_DAYS};

/// Why `u` does nothing under `[ui] offline = true`.
pub const OFFLINE_UPDATE: &str = "offline = true in the config: no list is downloaded from the publishers; import them from a folder (i) instead";
/// Why `u` does nothing until `[ui] downloads = true`.
pub const DOWNLOADS_OFF: &str = "downloads are off: set downloads = true under [ui] in the config file to download the lists from the publishers, or import them from a folder (i)";

/// Handles a command on the Lists tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let l = &mut state.lists;
    if table::step(&mut l.selected, l.lists.len(), command) {
        return Vec::new();
    }
    match command {
        Command::Refresh => return vec![call(state, Call::Lists)],
        Command::Activate => {
            if let Some(code) = l.lists.get(l.selected).map(|x| x.list_code) {
                l.updates = Some((code, Vec::new()));
                return vec![call(state, Call::ListUpdates(code))];
            }
        }
        Command::Back => l.updates = None,
        Command::Fetch if state.net.offline => state.error(OFFLINE_UPDATE),
        Command::Fetch if !state.net.downloads && l.can_run => state.error(DOWNLOADS_OFF),
        Command::Fetch => return start(state, ListsWork::Update),
        Command::Import => {
            // The field starts empty (typing never appends to an old path); the last folder
            // is offered as a hint.
            let mut prompt = Prompt::new(
                "Import the lists from a folder (one folder per list code): path",
                PromptKind::ListsImport,
            );
            prompt.hint = l
                .last_dir
                .as_ref()
                .map(|d| crate::tui::text::sanitize(&format!("last: {d} · Tab completes")));
            state.prompt = Some(prompt);
        }
        _ => {}
    }
    Vec::new()
}

/// Starts `work` unless one runs already or this is not the local mode.
pub fn start(state: &mut State, work: ListsWork) -> Vec<Effect> {
    if let Some((name, _)) = &state.lists.job {
        state.error(format!("{name} is running: wait for it to finish"));
        return Vec::new();
    }
    if !state.lists.can_run {
        state.error(format!(
            "{} works on the data folder of the machine that holds it: run `sanctions {}` there",
            work.name(),
            work.name()
        ));
        return Vec::new();
    }
    if let ListsWork::Import(dir) = &work {
        state.lists.last_dir = Some(dir.display().to_string());
    }
    state.lists.job = Some((work.name(), "starting…".to_owned()));
    state.info(format!("{} started", work.name()));
    vec![call(state, Call::RunLists(work))]
}

/// The step the running update or import has reached.
pub fn progress(state: &mut State, line: &str) {
    let line = crate::tui::text::sanitize(line.trim());
    if let Some((name, latest)) = state.lists.job.as_mut() {
        *latest = line.clone();
        let name = *name;
        state.info(format!("{name}: {line}"));
    }
}

/// Applies a list's update history.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::ListUpdates(Ok(records)) => {
            if let Some((_, shown)) = state.lists.updates.as_mut() {
                *shown = records;
            }
        }
        Outcome::ListUpdates(Err(e)) => {
            state.lists.updates = None;
            state.service_error(&e);
        }
        Outcome::ListsRan(result) => {
            state.lists.job = None;
            match result {
                Ok(summary) => {
                    state.lists.failure = None;
                    state.info(crate::tui::text::sanitize(&summary));
                }
                Err(e) => {
                    state.lists.failure = Some(crate::tui::text::sanitize(&e));
                    state.error(e);
                }
            }
            // Some lists may be new even after a failure of others.
            return vec![call(state, Call::Lists), call(state, Call::OpenAlerts)];
        }
        _ => {}
    }
    Vec::new()
}

fn draw_updates(
    frame: &mut Frame,
    area: Rect,
    state: &State,
    code: ListCode,
    records: &[UpdateInfo],
) {
    let block = Block::bordered().title(format!(
        " Update history of {} · newest first · Esc back ",
        code.code()
    ));
    if records.is_empty() {
        let pending = state.requests.pending(Slot::ListUpdates);
        let text = table::placeholder(None, pending, true, "No update recorded.");
        table::message(frame, area, block, text);
        return;
    }
    let failures = failures(records);
    let area = if failures.is_empty() {
        area
    } else {
        let inner = usize::from(area.width.saturating_sub(2)).max(1);
        let lines: usize = failures
            .iter()
            .map(|f| {
                // Words wrap whole: one line of slack for a reason longer than a line.
                let width = unicode_width::UnicodeWidthStr::width(f.as_str());
                width.div_ceil(inner).max(1) + usize::from(width > inner)
            })
            .sum();
        let height = u16::try_from(lines + 2)
            .unwrap_or(u16::MAX)
            .min(area.height / 2);
        let [table_area, below] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(height)]).areas(area);
        let block = Block::bordered().title(" Why it failed ");
        frame.render_widget(
            Paragraph::new(failures.join("\n"))
                .wrap(Wrap { trim: false })
                .block(block),
            below,
        );
        table_area
    };
    let rows = records
        .iter()
        .map(|r| {
            vec![
                r.at.get(..16).unwrap_or(&r.at).replace('T', " "),
                r.origin.clone(),
                r.published.clone().unwrap_or_else(|| "-".into()),
                format!("+{} -{} ~{}", r.added, r.removed, r.changed),
                r.total.to_string(),
                r.failed
                    .clone()
                    .map_or("ok".into(), |f| format!("FAILED: {f}")),
            ]
        })
        .collect();
    let widths = [
        Constraint::Length(16),
        Constraint::Length(8),
        Constraint::Length(10),
        Constraint::Length(18),
        Constraint::Length(7),
        Constraint::Fill(1),
    ];
    let header = [
        "When (UTC)",
        "Origin",
        "Published",
        "Changes",
        "Total",
        "Outcome",
    ];
    table::draw(frame, area, block, &header, &widths, rows, None);
}

/// The failed updates of a history, newest first, each with its whole reason (a table
/// cell would cut it at 80 columns).
fn failures(records: &[UpdateInfo]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| {
            let why = r.failed.as_deref()?;
            let at = r.at.get(..16).unwrap_or(&r.at).replace('T', " ");
            Some(crate::tui::text::sanitize(&format!("{at}: {why}")))
        })
        .take(5)
        .collect()
}

/// Age in whole days of an RFC 3339 time, relative to `now`.
pub fn age_days(at: &str, now: jiff::Timestamp) -> Option<i64> {
    let at: jiff::Timestamp = at.parse().ok()?;
    Some(now.duration_since(at).as_secs() / 86_400)
}

/// The height of the box under the table: a failure's whole reason, or the help.
pub fn help_height(l: &ListsState, empty: bool) -> u16 {
    match (&l.job, &l.failure) {
        (None, Some(_)) => 7,
        _ if empty => 7,
        _ => 4,
    }
}

/// Draws the Lists tab.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let l = &state.lists;
    if let Some((code, records)) = &l.updates {
        draw_updates(frame, area, state, *code, records);
        return;
    }
    let filtered = state.filter(crate::tui::state::Tab::Lists);
    let empty = l.loaded && filtered.is_none() && l.lists.iter().all(|x| x.count == 0);
    let [top, help] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(help_height(l, empty)),
    ])
    .areas(area);
    let title = match filtered {
        Some(words) => format!(" Lists · filter: {words} · / changes it "),
        None => " Lists ".to_owned(),
    };
    let block = Block::bordered().title(crate::tui::text::fit(
        &title,
        top.width.saturating_sub(2) as usize,
    ));
    if l.loaded && l.lists.is_empty() {
        let text = "No list matches the filter: / with nothing shows all.";
        table::message(frame, top, block, text);
    } else if !l.loaded {
        let pending = state.requests.pending(Slot::Lists);
        let text = table::placeholder(l.error.as_deref(), pending, false, "");
        table::message(frame, top, block, text);
    } else {
        let rows = l
            .lists
            .iter()
            .map(|x| {
                let age = x.updated_at.as_deref().and_then(|u| age_days(u, state.now));
                let age_text = match age {
                    None => "never".to_owned(),
                    Some(d) if d > STALE_DAYS => format!("{d} d  STALE"),
                    Some(d) => format!("{d} d"),
                };
                vec![
                    x.list_code.code().to_owned(),
                    x.list_name.clone(),
                    x.count.to_string(),
                    x.updated_at
                        .as_deref()
                        .map_or("-".into(), |u| u.get(..16).unwrap_or(u).replace('T', " ")),
                    x.published.clone().unwrap_or_else(|| "-".into()),
                    age_text,
                ]
            })
            .collect();
        let widths = [
            Constraint::Length(10),
            Constraint::Fill(1),
            Constraint::Length(7),
            Constraint::Length(16),
            Constraint::Length(10),
            Constraint::Length(11),
        ];
        let header = [
            "Code",
            "List",
            "Entries",
            "Imported (UTC)",
            "Published",
            "Age",
        ];
        table::draw(frame, top, block, &header, &widths, rows, Some(l.selected));
    }
    let u = match (state.net.offline, state.net.downloads) {
        (true, _) => "u: no download (offline = true)",
        (false, false) => "u downloads once [ui] downloads = true",
        (false, true) => "u updates from the publishers (needs internet)",
    };
    let text = match (&l.job, l.can_run, empty) {
        (None, _, _) if l.failure.is_some() => {
            format!("✗ {}", l.failure.as_deref().unwrap_or(""))
        }
        (Some((name, line)), ..) => format!("{name} running (the UI stays usable): {line}"),
        (None, true, true) => format!("No list has been imported yet. Press i and type the folder of the official files (one folder per list code, e.g. ../shared/data/lists; Tab completes). {u}."),
        (None, true, false) => format!("{u} · i imports from a folder (Tab completes the path) · Enter shows a list's update history · / filters."),
        (None, false, true) => "The server has no list imported yet. On the server's machine run:\n  sanctions lists import DIR   (offline: the official files, one folder per list code)\n  sanctions lists update       (download from the publishers)".to_owned(),
        (None, false, false) => "Lists are updated on the server's machine (`sanctions lists update`).\nEnter shows a list's update history · / filters.".to_owned(),
    };
    frame.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .block(Block::bordered()),
        help,
    );
}
