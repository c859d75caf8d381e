//! The one [`State`] of the UI: which tab, each tab's state, the prompt, requests in flight
//! and the status bar. Render functions only read it; only `update` writes it.

use std::collections::HashMap;

use tui_input::Input;

use super::action::{Call, Effect, ReqId, Slot};
use super::page_state;

pub use super::tab::Tab;

/// The current request of each slot.
#[derive(Debug, Default)]
pub struct Requests {
    next: ReqId,
    current: HashMap<Slot, ReqId>,
}

impl Requests {
    /// A new id that becomes the current request of `slot`.
    pub fn start(&mut self, slot: Slot) -> ReqId {
        self.next += 1;
        self.current.insert(slot, self.next);
        self.next
    }

    /// Whether `id` is the current request of `slot`; if so it is finished.
    pub fn finish(&mut self, slot: Slot, id: ReqId) -> bool {
        if self.current.get(&slot) == Some(&id) {
            self.current.remove(&slot);
            true
        } else {
            false
        }
    }

    /// Forgets the request of `slot`: its result, if it still comes, is dropped.
    pub fn cancel(&mut self, slot: Slot) {
        self.current.remove(&slot);
    }

    /// Whether `slot` has a request in flight.
    pub fn pending(&self, slot: Slot) -> bool {
        self.current.contains_key(&slot)
    }

    /// Number of requests in flight.
    pub fn count(&self) -> usize {
        self.current.len()
    }
}

/// The screening index, built in the background at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    Building,
    Ready,
    Failed(String),
}

/// A message of the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Info(String),
    Error(String),
}

/// What the status bar shows besides the message.
#[derive(Debug)]
pub struct Status {
    /// `LOCAL`, or `REMOTE host`.
    pub mode: String,
    pub index: IndexState,
    /// The newest list import (RFC 3339), once known.
    pub freshness: Option<String>,
    /// Open alerts, and whether there are more than counted.
    pub open_alerts: Option<(usize, bool)>,
    pub message: Option<Message>,
    pub spinner: usize,
    /// The server's rate-limit figures after its last answer (remote mode).
    pub rate_limit: Option<crate::service::RateLimit>,
    /// The server did not answer (remote mode): the idle timer retries until it does.
    pub unreachable: bool,
    /// Idle-timer ticks so far.
    pub polls: u64,
}

/// What the UI may send off this machine (`[ui] feeds` and `[ui] offline`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Network {
    /// The publishers' news feeds are read (off unless configured).
    pub feeds: bool,
    /// `u` in Lists downloads the lists from the publishers (off unless configured).
    pub downloads: bool,
    /// Nothing leaves the machine: list downloads and feed reads are refused.
    pub offline: bool,
}

/// What a confirmed prompt does.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptKind {
    /// A review decision with its note, for one match or the whole screening.
    Decide {
        screening_id: String,
        entity_id: Option<String>,
        decision: crate::model::Decision,
    },
    /// A final decision (`true_match`, `false_positive`) with its note, confirmed (y/n)
    /// after the prompt named the screening and the entity.
    ConfirmDecide {
        screening_id: String,
        entity_id: Option<String>,
        decision: crate::model::Decision,
        note: String,
    },
    /// Four-eyes review: a second reviewer's verdict on the proposal of a match (or every
    /// proposal of the screening), with its note.
    Verdict {
        screening_id: String,
        entity_id: Option<String>,
        verdict: crate::api::screenings::Verdict,
    },
    /// The verdict with its note, confirmed (y/n) after the prompt named the screening, the
    /// entity and the decision proposed.
    ConfirmVerdict {
        screening_id: String,
        entity_id: Option<String>,
        verdict: crate::api::screenings::Verdict,
        note: String,
    },
    /// Acknowledge or resolve alerts (one, or those selected) with one note.
    AlertStatus {
        alert_ids: Vec<String>,
        status: crate::model::AlertStatus,
    },
    /// A name to add to the watchlist.
    AddFavorite,
    /// The optional date of birth of the watchlist name just typed (empty: none).
    AddFavoriteDob { name: String },
    /// Its optional country (empty: none).
    AddFavoriteCountry { name: String, dob: Option<String> },
    /// Its optional note (empty: none).
    AddFavoriteNote {
        name: String,
        dob: Option<String>,
        country: Option<String>,
    },
    /// Remove a watchlist name (y/n, no text).
    ConfirmRemove { favorite_id: String, name: String },
    /// The path of a batch file.
    BatchPath,
    /// The folder to import the lists from (one folder per list code).
    ListsImport,
    /// The path of a file of names to add to the watchlist.
    WatchlistImport,
    /// The path of a new file the batch results are written to (`.json`, else CSV).
    BatchExport,
    /// Quit although work is running (y/n).
    ConfirmQuit,
    /// Words a table is filtered by (`/`; nothing clears the filter).
    Filter(Tab),
    /// A webhook's URL; then its events are asked. `edit`: the webhook's id and events.
    WebhookUrl { edit: Option<(String, String)> },
    /// A webhook's events, comma-separated; `edit`: the id of the webhook changed.
    WebhookEvents { url: String, edit: Option<String> },
    /// Delete a webhook (y/n).
    ConfirmDeleteWebhook { webhook_id: String },
}

/// A modal one-line prompt (or a yes/no question when `kind` needs no text).
#[derive(Debug)]
pub struct Prompt {
    pub title: String,
    pub kind: PromptKind,
    pub input: Input,
    pub error: Option<String>,
    /// A hint under the field (the candidates of a path completion).
    pub hint: Option<String>,
}

impl Prompt {
    /// A prompt titled `title`.
    pub fn new(title: impl Into<String>, kind: PromptKind) -> Prompt {
        Prompt {
            title: title.into(),
            kind,
            input: Input::default(),
            error: None,
            hint: None,
        }
    }

    /// A prompt titled `title` whose field starts with `value`.
    pub fn with_value(title: impl Into<String>, kind: PromptKind, value: &str) -> Prompt {
        let mut prompt = Prompt::new(title, kind);
        prompt.input = Input::new(value.to_owned());
        prompt
    }

    /// Whether this is a yes/no question.
    pub fn yes_no(&self) -> bool {
        matches!(
            self.kind,
            PromptKind::ConfirmRemove { .. }
                | PromptKind::ConfirmQuit
                | PromptKind::ConfirmDeleteWebhook { .. }
                | PromptKind::ConfirmDecide { .. }
                | PromptKind::ConfirmVerdict { .. }
        )
    }

    /// Whether the field holds a file or folder path (Tab completes it).
    pub fn is_path(&self) -> bool {
        matches!(
            self.kind,
            PromptKind::BatchPath
                | PromptKind::WatchlistImport
                | PromptKind::BatchExport
                | PromptKind::ListsImport
        )
    }

    /// Whether an empty answer is allowed (it clears a filter).
    pub fn empty_ok(&self) -> bool {
        matches!(
            self.kind,
            PromptKind::Filter(_)
                | PromptKind::AddFavoriteDob { .. }
                | PromptKind::AddFavoriteCountry { .. }
                | PromptKind::AddFavoriteNote { .. }
        )
    }
}

/// The whole UI state.
#[derive(Debug)]
pub struct State {
    pub tab: Tab,
    /// The time ages are measured against (given at start, so that drawing stays pure).
    pub now: jiff::Timestamp,
    pub help: bool,
    /// The first line of the help overlay shown (it scrolls at small sizes).
    pub help_scroll: u16,
    pub quit: bool,
    /// Text to put on the clipboard (OSC 52); the terminal loop sends it and clears it.
    pub clipboard: Option<String>,
    /// The `/` words of each table (Briefs filters on the service).
    pub filters: HashMap<Tab, String>,
    pub prompt: Option<Prompt>,
    pub requests: Requests,
    pub status: Status,
    pub screen: page_state::screen::ScreenState,
    pub batch: page_state::batch::BatchState,
    pub lists: page_state::lists::ListsState,
    pub watchlist: page_state::watchlist::WatchlistState,
    pub alerts: page_state::alerts::AlertsState,
    pub briefs: page_state::briefs::BriefsState,
    pub webhooks: page_state::webhooks::WebhooksState,
    /// The keys in force (the defaults with the config's remaps).
    pub keys: super::keymap::Keymap,
    /// Whether mouse clicks and the wheel are on (`[ui] mouse`).
    pub mouse: bool,
    /// What may leave the machine.
    pub net: Network,
    /// What the pages asked of the rest of the UI, drained by `update` after each action.
    pub queue: super::queue::Queue,
}

impl State {
    /// The state at start, in `mode` (`LOCAL` or `REMOTE host`).
    pub fn new(mode: &str, now: jiff::Timestamp) -> State {
        State {
            tab: Tab::Screen,
            now,
            help: false,
            help_scroll: 0,
            quit: false,
            clipboard: None,
            filters: HashMap::new(),
            prompt: None,
            requests: Requests::default(),
            status: Status {
                mode: mode.to_owned(),
                index: IndexState::Building,
                freshness: None,
                open_alerts: None,
                message: None,
                spinner: 0,
                rate_limit: None,
                unreachable: false,
                polls: 0,
            },
            screen: Default::default(),
            batch: Default::default(),
            lists: Default::default(),
            watchlist: Default::default(),
            alerts: Default::default(),
            briefs: Default::default(),
            webhooks: Default::default(),
            keys: Default::default(),
            mouse: false,
            net: Network::default(),
            queue: Default::default(),
        }
    }

    /// Whether any work runs (the spinner turns, quitting asks first).
    pub fn busy(&self) -> bool {
        self.requests.count() > 0 || self.status.index == IndexState::Building
    }

    /// Whether a text field has the keyboard.
    pub fn in_text(&self) -> bool {
        match &self.prompt {
            Some(p) => !p.yes_no(),
            None => self.tab == Tab::Screen && self.screen.in_text(),
        }
    }

    /// The keyboard mode the status bar shows: `TYPING` (every printable key is typed),
    /// `CONFIRM` (a yes/no question), `REVIEW` (the Screen tab's results: letters decide)
    /// or `COMMANDS` (letters are the tab's commands).
    pub fn mode_label(&self) -> &'static str {
        match &self.prompt {
            Some(p) if p.yes_no() => "CONFIRM",
            Some(_) => "TYPING",
            None if self.in_text() => "TYPING",
            None if self.tab == Tab::Screen => "REVIEW",
            None => "COMMANDS",
        }
    }

    /// Shows an error in the status bar.
    pub fn error(&mut self, message: impl std::fmt::Display) {
        self.status.message = Some(Message::Error(super::text::sanitize(&message.to_string())));
    }

    /// Shows a service error in the status bar, what to do first (so that it survives
    /// truncation at 80 columns), then the error itself.
    pub fn service_error(&mut self, error: &crate::service::ServiceError) {
        use crate::service::ServiceError as E;
        let advice = match error {
            E::Unauthorized(_) => {
                "API key refused: check it (SANCTIONS_API_KEY or the config file)".to_owned()
            }
            E::Forbidden(_) => "not allowed: your plan, or its credits are used up".to_owned(),
            E::RateLimited { retry_after, .. } => match retry_after {
                Some(s) => format!("rate limited: wait {s} s, then try again"),
                None => "rate limited: wait a moment, then try again".to_owned(),
            },
            E::Unavailable(_) if self.status.mode.starts_with("REMOTE") => {
                self.status.unreachable = true;
                "server unreachable: is it running? Retried every few seconds; nothing typed is lost".to_owned()
            }
            _ => {
                self.error(error);
                return;
            }
        };
        self.error(format!("{advice} · {error}"));
    }

    /// The `/` words of `tab`, if any.
    pub fn filter(&self, tab: Tab) -> Option<&str> {
        self.filters.get(&tab).map(String::as_str)
    }

    /// Shows a notice in the status bar.
    pub fn info(&mut self, message: impl Into<String>) {
        self.status.message = Some(Message::Info(message.into()));
    }
}

/// Starts `call` as the current request of its slot.
pub fn call(state: &mut State, call: Call) -> Effect {
    let id = state.requests.start(call.slot());
    Effect::Call(id, call)
}
