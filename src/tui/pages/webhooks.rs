//! The Webhooks tab: the registered endpoints; create (URL, then events), edit, enable or
//! disable, delete (asks first), send a test and show its outcome, and the delivery log.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::api::webhooks::{WebhookTestResult, WebhookUpdate};
use crate::tui::action::{Call, Effect, Outcome, Slot};
use crate::tui::keymap::Command;
use crate::tui::state::{Prompt, PromptKind, State, call};
use crate::tui::text::{fit, sanitize};
use crate::tui::theme;
use crate::tui::widgets::table;

pub use crate::tui::page_state::webhooks::WebhooksState;

/// The events a new webhook subscribes to unless changed.
pub fn default_events() -> String {
    crate::webhooks::EVENT_KINDS.join(", ")
}

/// The events typed in a prompt: comma- or space-separated.
pub fn parse_events(text: &str) -> Vec<String> {
    text.split([',', ' '])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Handles a command on the Webhooks tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let w = &mut state.webhooks;
    if w.log {
        match command {
            Command::Back => w.log = false,
            Command::Refresh => {
                if let Some(id) = w.current().map(|x| x.id.clone()) {
                    return vec![call(state, Call::Deliveries(id))];
                }
            }
            _ => {}
        }
        return Vec::new();
    }
    if table::step(&mut w.selected, w.items.len(), command) {
        return Vec::new();
    }
    match command {
        Command::Refresh => return vec![call(state, Call::Webhooks)],
        Command::Add => {
            state.prompt = Some(Prompt::new(
                "New webhook: URL (https://…)",
                PromptKind::WebhookUrl { edit: None },
            ));
        }
        Command::Edit => {
            if let Some(hook) = w.current() {
                state.prompt = Some(Prompt::with_value(
                    format!("Edit webhook {}: URL", hook.id),
                    PromptKind::WebhookUrl {
                        edit: Some((hook.id.clone(), hook.events.join(", "))),
                    },
                    &hook.url,
                ));
            }
        }
        Command::Toggle => {
            if let Some(hook) = w.current() {
                let id = hook.id.clone();
                let request = WebhookUpdate {
                    active: Some(!hook.active),
                    ..WebhookUpdate::default()
                };
                return vec![call(state, Call::UpdateWebhook(id, request))];
            }
        }
        Command::Remove => {
            if let Some(hook) = w.current() {
                state.prompt = Some(Prompt::new(
                    format!(
                        "Delete webhook {} ({})? (y/n)",
                        hook.id,
                        sanitize(&hook.url)
                    ),
                    PromptKind::ConfirmDeleteWebhook {
                        webhook_id: hook.id.clone(),
                    },
                ));
            }
        }
        Command::Test if state.net.offline => {
            state.error("offline = true in the config: no webhook is called from here");
        }
        Command::Test => {
            if let Some(id) = w.current().map(|x| x.id.clone()) {
                w.test = None;
                return vec![call(state, Call::TestWebhook(id))];
            }
        }
        Command::Activate => {
            if let Some(id) = w.current().map(|x| x.id.clone()) {
                w.log = true;
                w.deliveries.clear();
                return vec![call(state, Call::Deliveries(id))];
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Applies a result for the Webhooks tab.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    let w = &mut state.webhooks;
    match outcome {
        Outcome::Webhooks(Ok(items)) => {
            w.items = items;
            w.loaded = true;
            w.error = None;
            // The cursor goes to a new webhook, whose secret is shown (y copies it).
            let new = w.fresh.take();
            if let Some(i) = new.and_then(|id| w.items.iter().position(|h| h.id == id)) {
                w.selected = i;
            }
            w.selected = table::clamp(w.selected, w.items.len());
            Vec::new()
        }
        Outcome::WebhookSaved(Ok(hook)) => {
            let what = if hook.active { "enabled" } else { "disabled" };
            if let Some(secret) = &hook.secret {
                w.secret = Some((hook.id.clone(), secret.clone()));
                w.fresh = Some(hook.id.clone());
            }
            state.info(format!("webhook {} saved ({what})", hook.id));
            vec![call(state, Call::Webhooks)]
        }
        Outcome::WebhookDeleted(Ok(hook)) => {
            state.info(format!("webhook {} deleted", hook.id));
            vec![call(state, Call::Webhooks)]
        }
        Outcome::WebhookTested(id, Ok(result)) => {
            let text = test_line(&result);
            let delivered = result.delivered;
            w.test = Some((id, result));
            if delivered {
                state.info(text);
            } else {
                state.error(format!(
                    "{text} · check the URL and that the endpoint is up"
                ));
            }
            // The test is in the delivery log too.
            vec![call(state, Call::Webhooks)]
        }
        Outcome::Deliveries(Ok(items)) => {
            w.deliveries = items;
            Vec::new()
        }
        Outcome::Webhooks(Err(e)) => {
            w.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        Outcome::WebhookSaved(Err(e))
        | Outcome::WebhookDeleted(Err(e))
        | Outcome::WebhookTested(_, Err(e))
        | Outcome::Deliveries(Err(e)) => {
            state.service_error(&e);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

fn test_line(r: &WebhookTestResult) -> String {
    let status = r
        .status_code
        .map_or("no answer".to_owned(), |c| format!("HTTP {c}"));
    let verdict = if r.delivered {
        "delivered"
    } else {
        "NOT delivered"
    };
    let mut text = format!("test {verdict}: {status} in {} ms", r.latency_ms);
    if let Some(e) = &r.error {
        text.push_str(&format!(" · {}", sanitize(e)));
    }
    text
}

/// Draws the Webhooks tab.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let w = &state.webhooks;
    if w.log {
        draw_log(frame, area, state);
        return;
    }
    let extra = extra_lines(w);
    // Every line wrapped whole (a secret cut off is a secret lost): as many rows as it takes.
    let inner = area.width.saturating_sub(2).max(1) as usize;
    let rows: usize = extra.iter().map(|l| l.width().max(1).div_ceil(inner)).sum();
    let [list, below] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(if extra.is_empty() { 0 } else { rows as u16 + 2 }),
    ])
    .areas(area);
    let title = " Webhooks · a add · e edit · Space on/off · t test · d delete · Enter log ";
    let block = Block::bordered().title(fit(title, area.width.saturating_sub(2) as usize));
    if w.items.is_empty() {
        let empty = format!(
            "No webhook. a registers an HTTPS endpoint that receives signed events ({}).",
            default_events()
        );
        let pending = state.requests.pending(Slot::Webhooks) || !w.loaded;
        let text = table::placeholder(w.error.as_deref(), pending, w.loaded, &empty);
        table::message(frame, list, block, text);
    } else {
        let wide = area.width >= 100;
        let rows = w
            .items
            .iter()
            .map(|h| {
                let mut row = vec![
                    if h.active { "ON" } else { "OFF" }.to_owned(),
                    h.url.clone(),
                    h.events.join(","),
                    h.pending.to_string(),
                ];
                if wide {
                    row.push(h.id.clone());
                }
                row
            })
            .collect();
        let mut widths = vec![
            Constraint::Length(4),
            Constraint::Fill(2),
            Constraint::Fill(1),
            Constraint::Length(7),
        ];
        let mut header = vec!["On", "URL", "Events", "Pending"];
        if wide {
            widths.push(Constraint::Length(30));
            header.push("Id");
        }
        table::draw(frame, list, block, &header, &widths, rows, Some(w.selected));
    }
    if !extra.is_empty() {
        frame.render_widget(
            Paragraph::new(extra)
                .wrap(Wrap { trim: false })
                .block(Block::bordered()),
            below,
        );
    }
}

/// The test outcome, a new secret and why a webhook was disabled, under the list.
pub(crate) fn extra_lines(w: &WebhooksState) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some((id, secret)) = &w.secret {
        lines.push(Line::from(format!(
            "secret of {} (shown once: y copies it; keep it to check signatures):",
            sanitize(id)
        )));
        lines.push(Line::styled(sanitize(secret), theme::accent()));
    }
    if let Some((id, r)) = &w.test {
        let style = if r.delivered {
            ratatui::style::Style::default()
        } else {
            theme::error()
        };
        // The verdict, then the error on lines of its own (its wrapping never depends on
        // the latency's digits).
        let verdict = test_line(&WebhookTestResult {
            error: None,
            ..r.clone()
        });
        lines.push(Line::styled(format!("{}: {verdict}", sanitize(id)), style));
        if let Some(e) = &r.error {
            lines.push(Line::styled(sanitize(e), style));
        }
    }
    if let Some(h) = w.current()
        && let Some(reason) = &h.disabled_reason
    {
        lines.push(Line::styled(
            format!("{} disabled: {}", sanitize(&h.id), sanitize(reason)),
            theme::warn(),
        ));
    }
    lines
}

fn draw_log(frame: &mut Frame, area: Rect, state: &State) {
    let w = &state.webhooks;
    let id = sanitize(w.current().map_or("", |h| h.id.as_str()));
    let block = Block::bordered().title(format!(" Delivery log · {id} · r reload · Esc back "));
    if w.deliveries.is_empty() {
        let empty = "No delivery yet: t on the list sends a test event.";
        let pending = state.requests.pending(Slot::Deliveries);
        table::message(
            frame,
            area,
            block,
            table::placeholder(None, pending, true, empty),
        );
        return;
    }
    let rows = w
        .deliveries
        .iter()
        .map(|d| {
            vec![
                d.at.get(..16).unwrap_or(&d.at).replace('T', " "),
                d.kind.clone(),
                d.attempt.to_string(),
                d.status_code.map_or("—".to_owned(), |c| c.to_string()),
                format!("{} ms", d.latency_ms),
                d.error.clone().unwrap_or_else(|| "ok".to_owned()),
            ]
        })
        .collect();
    let widths = [
        Constraint::Length(16),
        Constraint::Length(16),
        Constraint::Length(3),
        Constraint::Length(4),
        Constraint::Length(8),
        Constraint::Fill(1),
    ];
    let header = ["At (UTC)", "Event", "Try", "HTTP", "Latency", "Outcome"];
    table::draw(frame, area, block, &header, &widths, rows, None);
}
