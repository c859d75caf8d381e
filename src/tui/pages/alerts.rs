//! The Alerts tab: newest first, filtered by status; acknowledge or resolve with a note;
//! Enter opens the linked screening on the Screen tab.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::Block;

use crate::api::alerts::{Alert, AlertQuery, AlertStatus};
use crate::tui::action::{Call, Effect, Outcome, Slot};
use crate::tui::keymap::Command;
use crate::tui::state::{Prompt, PromptKind, State, Tab};
use crate::tui::update::call;
use crate::tui::widgets::table;

/// The Alerts tab's state.
#[derive(Debug, Default)]
pub struct AlertsState {
    pub items: Vec<Alert>,
    pub more: bool,
    pub loaded: bool,
    pub selected: usize,
    /// `None`: every status. Starts at open.
    pub status: Option<AlertStatus>,
    pub status_set: bool,
    pub error: Option<String>,
}

impl AlertsState {
    /// The status filter (open until changed).
    pub fn filter(&self) -> Option<AlertStatus> {
        if self.status_set {
            self.status
        } else {
            Some(AlertStatus::Open)
        }
    }

    /// The query for the current filter.
    pub fn query(&self) -> AlertQuery {
        AlertQuery {
            status: self.filter(),
            kind: None,
            since: None,
            limit: Some(200),
            cursor: None,
        }
    }
}

/// Handles a command on the Alerts tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let a = &mut state.alerts;
    if table::step(&mut a.selected, a.items.len(), command) {
        return Vec::new();
    }
    match command {
        Command::Refresh => {
            let query = a.query();
            return vec![call(state, Call::Alerts(query))];
        }
        Command::CycleStatus => {
            a.status = match a.filter() {
                Some(AlertStatus::Open) => Some(AlertStatus::Acknowledged),
                Some(AlertStatus::Acknowledged) => Some(AlertStatus::Resolved),
                Some(AlertStatus::Resolved) => None,
                None => Some(AlertStatus::Open),
            };
            a.status_set = true;
            a.selected = 0;
            let query = a.query();
            return vec![call(state, Call::Alerts(query))];
        }
        Command::Acknowledge | Command::Resolve => {
            if let Some(alert) = a.items.get(a.selected) {
                let status = if command == Command::Acknowledge {
                    AlertStatus::Acknowledged
                } else {
                    AlertStatus::Resolved
                };
                state.prompt = Some(Prompt::new(
                    format!("{} alert {}: note (required)", status.as_str(), alert.id),
                    PromptKind::AlertStatus {
                        alert_id: alert.id.clone(),
                        status,
                    },
                ));
            }
        }
        Command::Activate => {
            if let Some(id) = a.items.get(a.selected).and_then(|x| x.screening_id.clone()) {
                state.tab = Tab::Screen;
                return vec![call(state, Call::Screening(id))];
            }
            state.error("this alert has no linked screening");
        }
        _ => {}
    }
    Vec::new()
}

/// Applies a result for the Alerts tab.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::Alerts(Ok(page)) => {
            let a = &mut state.alerts;
            a.items = page.items;
            a.more = page.next_cursor.is_some();
            a.loaded = true;
            a.error = None;
            a.selected = table::clamp(a.selected, a.items.len());
            Vec::new()
        }
        Outcome::AlertSet(Ok(alert)) => {
            state.info(format!("alert {} is now {}", alert.id, alert.status));
            let query = state.alerts.query();
            vec![
                call(state, Call::Alerts(query)),
                call(state, Call::OpenAlerts),
            ]
        }
        Outcome::Alerts(Err(e)) => {
            state.alerts.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        Outcome::AlertSet(Err(e)) => {
            state.service_error(&e);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Draws the Alerts tab.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let a = &state.alerts;
    let filter = a.filter().map_or("all", |s| s.as_str());
    let block = Block::bordered().title(format!(
        " Alerts · {filter}{} · s filter · a ack · x resolve · Enter screening ",
        if a.more { " (first 200)" } else { "" }
    ));
    if !a.loaded || a.items.is_empty() {
        let empty = format!(
            "No {filter} alert. Alerts come from screenings with matches and from watchlist names that gain a match after a list update."
        );
        let pending = state.requests.pending(Slot::Alerts);
        let text = table::placeholder(a.error.as_deref(), pending, a.loaded, &empty);
        table::message(frame, area, block, text);
        return;
    }
    let rows = a
        .items
        .iter()
        .map(|x| {
            vec![
                x.created_at.strftime("%Y-%m-%d %H:%M").to_string(),
                x.severity.as_str().to_owned(),
                x.kind.to_string(),
                x.status.to_string(),
                x.title.clone(),
            ]
        })
        .collect();
    let widths = [
        Constraint::Length(16),
        Constraint::Length(8),
        Constraint::Length(15),
        Constraint::Length(12),
        Constraint::Fill(1),
    ];
    let header = ["Created (UTC)", "Severity", "Kind", "Status", "Title"];
    table::draw(frame, area, block, &header, &widths, rows, Some(a.selected));
}
