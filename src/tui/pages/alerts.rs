//! The Alerts tab: newest first, filtered by status and by `/` words, loaded a page at a
//! time (↓ past the last row loads the next); Space selects several, and `a` / `x`
//! acknowledge or resolve the selection (or the row under the cursor) with one note;
//! Enter opens the linked screening on the Screen tab.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::Block;

use crate::api::alerts::{Alert, AlertKind, AlertStatus};
use crate::tui::action::{Call, Effect, Outcome, Slot};
use crate::tui::keymap::Command;
use crate::tui::queue::InternalEvent;
use crate::tui::state::{Prompt, PromptKind, State, call};
use crate::tui::widgets::table;

pub use crate::tui::page_state::alerts::{AlertsState, MAX_ROWS, PAGE};

/// A reload of the first page (the selection is kept for the rows still shown).
pub fn reload(state: &mut State) -> Effect {
    state.alerts.appending = false;
    let query = state.alerts.query();
    call(state, Call::Alerts(query))
}

/// Loads the next page, unless one is loading or there is none.
fn load_more(state: &mut State) -> Vec<Effect> {
    let a = &mut state.alerts;
    if !a.more() || state.requests.pending(Slot::Alerts) {
        return Vec::new();
    }
    let mut query = a.query();
    query.cursor = a.next.clone();
    a.appending = true;
    vec![call(state, Call::Alerts(query))]
}

/// Handles a command on the Alerts tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let a = &mut state.alerts;
    let at_end = a.selected + 1 >= a.items.len();
    if matches!(command, Command::Down | Command::Bottom) && at_end {
        return load_more(state);
    }
    if table::step(&mut a.selected, a.items.len(), command) {
        return Vec::new();
    }
    match command {
        Command::Refresh => vec![reload(state)],
        Command::CycleStatus => {
            a.status = match a.filter() {
                Some(AlertStatus::Open) => Some(AlertStatus::Acknowledged),
                Some(AlertStatus::Acknowledged) => Some(AlertStatus::Resolved),
                Some(AlertStatus::Resolved) => None,
                None => Some(AlertStatus::Open),
            };
            a.status_set = true;
            a.selected = 0;
            a.marked.clear();
            vec![reload(state)]
        }
        Command::Toggle => {
            toggle(a);
            Vec::new()
        }
        Command::Back => {
            a.marked.clear();
            Vec::new()
        }
        Command::Acknowledge => ask_note(state, AlertStatus::Acknowledged),
        Command::Resolve => ask_note(state, AlertStatus::Resolved),
        Command::Activate => {
            if let Some(id) = a.items.get(a.selected).and_then(|x| x.screening_id.clone()) {
                state.queue.push(InternalEvent::OpenScreening(id));
                return Vec::new();
            }
            state.error("this alert has no linked screening");
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Selects or unselects the row under the cursor, and moves to the next row.
fn toggle(a: &mut AlertsState) {
    let Some(alert) = a.items.get(a.selected) else {
        return;
    };
    if !a.marked.remove(&alert.id) {
        a.marked.insert(alert.id.clone());
    }
    table::step(&mut a.selected, a.items.len(), Command::Down);
}

/// Opens the note prompt for the selected alerts, or the one under the cursor.
fn ask_note(state: &mut State, status: AlertStatus) -> Vec<Effect> {
    let a = &state.alerts;
    let marked = a.marked_items();
    let targets: Vec<&Alert> = if marked.is_empty() {
        a.items.get(a.selected).into_iter().collect()
    } else {
        marked
    };
    let (open, closed): (Vec<&Alert>, Vec<&Alert>) = targets
        .into_iter()
        .partition(|x| x.status.can_become(status));
    if open.is_empty() {
        if closed.is_empty() {
            state.error("no alert here");
        } else {
            state.error(format!("already {status} or resolved: nothing to change"));
        }
        return Vec::new();
    }
    let title = match open.as_slice() {
        [one] => format!("{status} alert {}: note (required)", one.id),
        many => format!(
            "{status} {} selected alerts: one note for all (required)",
            many.len()
        ),
    };
    let mut prompt = Prompt::new(
        title,
        PromptKind::AlertStatus {
            alert_ids: open.iter().map(|x| x.id.clone()).collect(),
            status,
        },
    );
    if !closed.is_empty() {
        prompt.hint = Some(format!(
            "{} selected alert(s) already {status} or resolved are left as they are",
            closed.len()
        ));
    }
    state.prompt = Some(prompt);
    Vec::new()
}

/// Applies a result for the Alerts tab.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::Alerts(Ok(page)) => {
            let a = &mut state.alerts;
            if std::mem::take(&mut a.appending) {
                a.items.extend(page.items);
            } else {
                a.items = page.items;
            }
            a.items.truncate(MAX_ROWS);
            a.next = page.next_cursor;
            a.loaded = true;
            a.error = None;
            a.selected = table::clamp(a.selected, a.items.len());
            Vec::new()
        }
        Outcome::AlertsSet { done, failed } => {
            changed(state, &done, failed);
            vec![reload(state), call(state, Call::OpenAlerts)]
        }
        Outcome::Alerts(Err(e)) => {
            state.alerts.appending = false;
            state.alerts.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Says what changed (and what failed: the alerts after it are left untouched).
fn changed(
    state: &mut State,
    done: &[Alert],
    failed: Option<(String, crate::service::ServiceError, usize)>,
) {
    for alert in done {
        state.alerts.marked.remove(&alert.id);
    }
    let what = match done {
        [one] => format!("alert {} is now {}", one.id, one.status),
        many => format!(
            "{} alerts are now {}",
            many.len(),
            many.first()
                .map_or("changed".into(), |x| x.status.to_string())
        ),
    };
    match failed {
        None => state.info(what),
        Some((id, e, left)) => {
            let prefix = if done.is_empty() {
                String::new()
            } else {
                format!("{what}; ")
            };
            state.error(format!(
                "{prefix}alert {id} failed ({e}); {left} more left unchanged and still selected"
            ));
        }
    }
}

/// Draws the Alerts tab.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let a = &state.alerts;
    let filter = a.filter().map_or("all", |s| s.as_str());
    let title = crate::tui::text::fit(&title(a, filter), area.width.saturating_sub(2) as usize);
    let block = Block::bordered().title(title);
    if !a.loaded || a.items.is_empty() {
        let empty = if a.more() {
            format!("No {filter} alert matches the words of / in those loaded: ↓ loads more.")
        } else {
            format!(
                "No {filter} alert. Alerts come from screenings with matches and from watchlist names that gain a match after a list update."
            )
        };
        let pending = state.requests.pending(Slot::Alerts);
        let text = table::placeholder(a.error.as_deref(), pending, a.loaded, &empty);
        table::message(frame, area, block, text);
        return;
    }
    let wide = area.width >= 100;
    let status = a.filter().is_none();
    let rows = a.items.iter().map(|x| row(x, a, wide, status)).collect();
    let (header, widths) = columns(wide, status);
    let mut block = block;
    if a.more() || state.requests.pending(Slot::Alerts) {
        let more = if state.requests.pending(Slot::Alerts) {
            " loading more… "
        } else {
            " more: ↓ past the last row loads them "
        };
        block = block.title_bottom(more);
    }
    table::draw(frame, area, block, &header, &widths, rows, Some(a.selected));
}

/// The title: the filter, how many rows and how many selected, then the keys.
fn title(a: &AlertsState, filter: &str) -> String {
    let count = if a.more() {
        format!("{}+", a.items.len())
    } else {
        a.items.len().to_string()
    };
    let marked = a.marked_items().len();
    let keys = if marked > 0 {
        format!("{marked} SELECTED · a ack · x resolve (one note) · Esc unselect")
    } else {
        "Space select · a ack · x resolve · s status · Enter opens".to_owned()
    };
    format!(" Alerts · {filter} · {count} · {keys} ")
}

fn row(x: &Alert, a: &AlertsState, wide: bool, status: bool) -> Vec<String> {
    let mark = if a.marked.contains(&x.id) { "✓" } else { " " };
    let when = if wide {
        "%Y-%m-%d %H:%M"
    } else {
        "%m-%d %H:%M"
    };
    let kind = if wide {
        x.kind.to_string()
    } else {
        short_kind(x.kind).to_owned()
    };
    let mut row = vec![
        mark.to_owned(),
        x.created_at.strftime(when).to_string(),
        x.severity.as_str().to_owned(),
        kind,
    ];
    if status {
        row.push(x.status.to_string());
    }
    row.push(x.title.clone());
    row
}

/// The columns: narrow ones sized to their longest value, the title gets the rest (the
/// status only when every status is shown).
fn columns(wide: bool, status: bool) -> (Vec<&'static str>, Vec<Constraint>) {
    let mut header = vec![
        "",
        if wide { "Created (UTC)" } else { "Created" },
        if wide { "Severity" } else { "Sev." },
        "Kind",
    ];
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(if wide { 16 } else { 11 }),
        Constraint::Length(if wide { 8 } else { 6 }),
        Constraint::Length(if wide { 16 } else { 9 }),
    ];
    if status {
        header.push("Status");
        widths.push(Constraint::Length(12));
    }
    header.push("Title");
    widths.push(Constraint::Fill(1));
    (header, widths)
}

/// The kind in one word, for 80 columns.
fn short_kind(kind: AlertKind) -> &'static str {
    match kind {
        AlertKind::ScreeningMatch => "screening",
        AlertKind::FavoriteMatch => "watchlist",
        AlertKind::ListUpdated => "list",
        AlertKind::WebhookDisabled => "webhook",
    }
}
