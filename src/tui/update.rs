//! `update(&mut State, Action) -> Vec<Effect>`: every change of the UI state, with no I/O.
//! Global keys and the prompt are handled here; each tab's keys and results in its page.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::{Input, InputRequest};

use super::action::{Action, Call, Effect, Outcome, Slot};
use super::keymap::Command;
use super::pages;
use super::queue::InternalEvent;
pub use super::state::call;
use super::state::{IndexState, Message, Prompt, PromptKind, State, Tab};

/// The effects to run at start: build the index and load what the status bar shows.
pub fn init(state: &mut State) -> Vec<Effect> {
    let mut effects = vec![Effect::Warmup];
    effects.push(call(state, Call::Lists));
    effects.push(call(state, Call::OpenAlerts));
    effects
}

/// Applies one action, then the internal events it pushed (see [`super::queue`]).
pub fn update(state: &mut State, action: Action) -> Vec<Effect> {
    let mut effects = apply(state, action);
    while let Some(event) = state.queue.pop() {
        effects.extend(on_event(state, event));
    }
    effects
}

/// Does what a page asked of the rest of the UI.
fn on_event(state: &mut State, event: InternalEvent) -> Vec<Effect> {
    match event {
        InternalEvent::SwitchTab(tab) => switch(state, tab.index()),
        InternalEvent::OpenScreening(id) => {
            state.tab = Tab::Screen;
            vec![call(state, Call::Screening(id))]
        }
        InternalEvent::Key(key) => on_key(state, key),
    }
}

fn apply(state: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) => on_key(state, key),
        Action::Paste(text) => on_paste(state, &text),
        Action::Resize => Vec::new(),
        Action::Mouse {
            event,
            width,
            height,
        } => super::mouse::on_mouse(state, event, width, height),
        Action::Tick => {
            state.status.spinner = state.status.spinner.wrapping_add(1);
            Vec::new()
        }
        Action::Poll => poll(state),
        Action::IndexReady(result) => {
            state.status.index = match result {
                Ok(()) => IndexState::Ready,
                Err(e) => IndexState::Failed(super::text::sanitize(&e)),
            };
            Vec::new()
        }
        Action::Done(id, outcome) => on_done(state, id, *outcome),
        Action::PreviewDue(n) => pages::screen::preview_due(state, n),
        Action::BatchProgress(rows) => {
            pages::batch::progress(state, rows);
            Vec::new()
        }
        Action::ListsProgress(step) => {
            pages::lists::progress(state, super::lists_job::describe(step));
            Vec::new()
        }
        Action::RateLimit(limit) => {
            state.status.rate_limit = Some(limit);
            Vec::new()
        }
    }
}

/// Seconds between two ticks of the idle timer (one wake-up, no redraw unless work starts).
pub const POLL_SECS: u64 = 5;
/// The open-alert count is refreshed every this many idle ticks (30 s): one small read.
pub const OPEN_ALERTS_EVERY: u64 = 6;

/// The idle timer: an unreachable server is tried again (one list read); otherwise the
/// open-alert count is refreshed now and then.
fn poll(state: &mut State) -> Vec<Effect> {
    state.status.polls += 1;
    if state.status.unreachable {
        if state.requests.pending(Slot::Lists) {
            return Vec::new();
        }
        return vec![call(state, Call::Lists)];
    }
    if state.status.polls.is_multiple_of(OPEN_ALERTS_EVERY)
        && !state.requests.pending(Slot::OpenAlerts)
    {
        return vec![call(state, Call::OpenAlerts)];
    }
    Vec::new()
}

/// The server answered again after being unreachable: the old error goes, the tab shown
/// and the open-alert count are read again.
fn reconnected(state: &mut State) -> Vec<Effect> {
    state.status.unreachable = false;
    state.info("the server answers again: reconnected, and the tab reloaded");
    let mut effects = switch(state, state.tab.index());
    if !state.requests.pending(Slot::OpenAlerts) {
        effects.push(call(state, Call::OpenAlerts));
    }
    effects
}

fn dispatch(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::Lists(Ok(lists)) => {
            state.status.freshness = lists.iter().filter_map(|l| l.updated_at.clone()).max();
            state.lists.error = None;
            state.lists.set(lists);
            if state.status.unreachable {
                return reconnected(state);
            }
            Vec::new()
        }
        Outcome::OpenAlerts(Ok(page)) => {
            state.status.open_alerts = Some((page.items.len(), page.next_cursor.is_some()));
            Vec::new()
        }
        Outcome::Lists(Err(e)) | Outcome::OpenAlerts(Err(e)) => {
            state.lists.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        Outcome::ListUpdates(_) | Outcome::ListsRan(_) => pages::lists::on_done(state, outcome),
        Outcome::Favorites(_) | Outcome::FavoriteRemoved(_) | Outcome::Rescreened(_) => {
            pages::watchlist::on_done(state, outcome)
        }
        Outcome::FavoriteAdded(_) | Outcome::FavoritesImported(_) => {
            let mut effects = pages::watchlist::on_done(state, outcome);
            effects.push(call(state, Call::OpenAlerts));
            effects
        }
        Outcome::Alerts(_) | Outcome::AlertsSet { .. } => pages::alerts::on_done(state, outcome),
        Outcome::BatchLoaded(_) | Outcome::Batch(_) | Outcome::Written(_) => {
            pages::batch::on_done(state, outcome)
        }
        Outcome::Briefs(_) | Outcome::BriefsRefreshed(_) => pages::briefs::on_done(state, outcome),
        Outcome::Webhooks(_)
        | Outcome::WebhookSaved(_)
        | Outcome::WebhookDeleted(_)
        | Outcome::WebhookTested(..)
        | Outcome::Deliveries(_) => pages::webhooks::on_done(state, outcome),
        Outcome::Completed(typed, found) => {
            completed(state, &typed, found);
            Vec::new()
        }
        other => pages::screen::on_done(state, other),
    }
}

fn on_done(state: &mut State, id: u64, outcome: Outcome) -> Vec<Effect> {
    let slot = slot_of(&outcome);
    if !state.requests.finish(slot, id) {
        return Vec::new(); // superseded: a newer request of this slot is current
    }
    let effects = dispatch(state, outcome);
    super::tables::apply(state);
    effects
}

fn slot_of(outcome: &Outcome) -> Slot {
    match outcome {
        Outcome::Screened(_) => Slot::Screen,
        Outcome::Previewed(_) => Slot::Preview,
        Outcome::Screening(_) => Slot::Screening,
        Outcome::History(_) => Slot::History,
        Outcome::Entity(_) => Slot::Entity,
        Outcome::Decided(_) | Outcome::Verdict(_) => Slot::Decide,
        Outcome::Lists(_) => Slot::Lists,
        Outcome::ListUpdates(_) => Slot::ListUpdates,
        Outcome::Favorites(_) => Slot::Favorites,
        Outcome::FavoriteAdded(_) | Outcome::FavoriteRemoved(_) | Outcome::FavoritesImported(_) => {
            Slot::FavoriteChange
        }
        Outcome::Rescreened(_) => Slot::Rescreen,
        Outcome::Alerts(_) => Slot::Alerts,
        Outcome::OpenAlerts(_) => Slot::OpenAlerts,
        Outcome::AlertsSet { .. } => Slot::AlertChange,
        Outcome::BatchLoaded(_) | Outcome::Batch(_) => Slot::Batch,
        Outcome::Briefs(_) => Slot::Briefs,
        Outcome::BriefsRefreshed(_) => Slot::BriefsRefresh,
        Outcome::Webhooks(_) => Slot::Webhooks,
        Outcome::WebhookSaved(_) | Outcome::WebhookDeleted(_) => Slot::WebhookChange,
        Outcome::WebhookTested(..) => Slot::WebhookTest,
        Outcome::Deliveries(_) => Slot::Deliveries,
        Outcome::Written(_) => Slot::Export,
        Outcome::Completed(..) => Slot::Complete,
        Outcome::ListsRan(_) => Slot::ListsJob,
    }
}

fn on_paste(state: &mut State, text: &str) -> Vec<Effect> {
    if state.tab == Tab::Batch && state.prompt.is_none() && !state.batch.running {
        // Names pasted on the Batch tab (one per line) are screened as a batch.
        return pages::batch::paste(state, text);
    }
    // A one-line field takes the first line; the rest is never run together into it.
    let lines: Vec<&str> = super::text::split_lines(text)
        .into_iter()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let clean = super::text::sanitize(lines.first().copied().unwrap_or(""));
    if lines.len() > 1 {
        state.info(format!(
            "pasted {} lines: only the first is kept in this field; paste on the Batch tab (2) to screen each line",
            lines.len()
        ));
    }
    let replace = std::mem::take(&mut state.screen.replace);
    if let Some(prompt) = state.prompt.as_mut().filter(|p| !p.yes_no()) {
        insert(&mut prompt.input, &clean);
    } else if state.tab == Tab::Screen
        && let Some(field) = state.screen.field_mut()
    {
        if replace {
            *field = Input::default();
        }
        insert(field, &clean);
        return pages::screen::changed(state);
    }
    Vec::new()
}

/// Inserts `text` at the cursor of `input`, bounded to 500 characters in all.
fn insert(input: &mut Input, text: &str) {
    for c in text.chars() {
        if input.value().chars().count() >= 500 {
            break;
        }
        input.handle(InputRequest::InsertChar(c));
    }
}

/// Edits `input` with `key` (typing, deletion, cursor moves); false if the key is not an edit.
pub fn edit(input: &mut Input, key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let request = match key.code {
        KeyCode::Char('u') if ctrl => InputRequest::DeleteLine,
        KeyCode::Char('w') if ctrl => InputRequest::DeletePrevWord,
        KeyCode::Char('a') if ctrl => InputRequest::GoToStart,
        KeyCode::Char('e') if ctrl => InputRequest::GoToEnd,
        KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
            if input.value().chars().count() >= 500 || c.is_control() {
                return true;
            }
            InputRequest::InsertChar(c)
        }
        KeyCode::Backspace => InputRequest::DeletePrevChar,
        KeyCode::Delete => InputRequest::DeleteNextChar,
        KeyCode::Left => InputRequest::GoToPrevChar,
        KeyCode::Right => InputRequest::GoToNextChar,
        KeyCode::Home => InputRequest::GoToStart,
        KeyCode::End => InputRequest::GoToEnd,
        _ => return false,
    };
    input.handle(request);
    true
}

fn on_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
    if let Some(after) = after_esc(state, key) {
        let mut effects = on_key(state, KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        effects.extend(on_key(state, after));
        return effects;
    }
    if state.prompt.is_some() {
        return on_prompt_key(state, key);
    }
    let command = state.keys.lookup(key, state.tab, state.in_text());
    if state.help {
        match command {
            Some(Command::Help | Command::Back) => state.help = false,
            Some(Command::Quit) => return quit(state),
            Some(Command::Up) => state.help_scroll = state.help_scroll.saturating_sub(1),
            Some(Command::Down) => state.help_scroll = state.help_scroll.saturating_add(1).min(60),
            Some(Command::Top) => state.help_scroll = 0,
            _ => {}
        }
        return Vec::new();
    }
    // Right after Enter, a character typed starts the next name; any other key keeps it.
    let replace = std::mem::take(&mut state.screen.replace) && command.is_none();
    let Some(command) = command else {
        if state.tab == Tab::Screen
            && let Some(field) = state.screen.field_mut()
        {
            let before = field.value().to_owned();
            if replace && is_typed_char(key) {
                *field = Input::default();
            }
            edit(field, key);
            if field.value() != before {
                return pages::screen::changed(state);
            }
        }
        return Vec::new();
    };
    let count = Tab::ALL.len();
    let current = state.tab.index();
    match command {
        Command::Quit => quit(state),
        Command::Help => {
            state.help = true;
            state.help_scroll = 0;
            Vec::new()
        }
        Command::Copy => {
            match super::tables::copy_target(state) {
                Some(text) => {
                    let what = if text.starts_with("whsec_") {
                        "the webhook's secret".to_owned()
                    } else {
                        format!("{text:?}")
                    };
                    state.info(format!("copied {what} (OSC 52: the terminal's clipboard)"));
                    state.clipboard = Some(text);
                }
                None => state.error("nothing selected to copy"),
            }
            Vec::new()
        }
        Command::Filter if state.tab.filterable() => {
            let tab = state.tab;
            let current = match tab {
                Tab::Briefs => state.briefs.words.clone().unwrap_or_default(),
                _ => state.filter(tab).unwrap_or("").to_owned(),
            };
            state.prompt = Some(Prompt::with_value(
                format!("Filter {} by words (empty: show all)", tab.title()),
                PromptKind::Filter(tab),
                &current,
            ));
            Vec::new()
        }
        Command::NextTab => switch(state, (current + 1) % count),
        Command::PrevTab => switch(state, (current + count - 1) % count),
        Command::GoTab(i) => switch(state, i),
        Command::Back if state.status.message.is_some() && !page_can_back(state) => {
            state.status.message = None;
            Vec::new()
        }
        other => match state.tab {
            Tab::Screen => pages::screen::on_command(state, other),
            Tab::Batch => pages::batch::on_command(state, other),
            Tab::Lists => pages::lists::on_command(state, other),
            Tab::Watchlist => pages::watchlist::on_command(state, other),
            Tab::Alerts => pages::alerts::on_command(state, other),
            Tab::Briefs => pages::briefs::on_command(state, other),
            Tab::Webhooks => pages::webhooks::on_command(state, other),
        },
    }
}

/// Esc and the key typed right after it, read together (a quick typist over SSH, a terminal
/// that writes both at once), arrive as that key with Alt. With no Alt binding of its own,
/// the key is taken as typed: Esc, then the key without Alt (returned), as a shell's line
/// editor takes Esc as a prefix.
fn after_esc(state: &State, key: KeyEvent) -> Option<KeyEvent> {
    let alt_char = key.modifiers - KeyModifiers::SHIFT == KeyModifiers::ALT
        && matches!(key.code, KeyCode::Char(_));
    let bound = || state.keys.lookup(key, state.tab, state.in_text()).is_some();
    (alt_char && !bound()).then(|| KeyEvent::new(key.code, key.modifiers - KeyModifiers::ALT))
}

/// A printable character without Ctrl or Alt (what a text field types).
fn is_typed_char(key: KeyEvent) -> bool {
    matches!(key.code, KeyCode::Char(_))
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

fn page_can_back(state: &State) -> bool {
    match state.tab {
        Tab::Screen => state.screen.can_back(),
        Tab::Briefs => state.briefs.open,
        Tab::Webhooks => state.webhooks.log,
        Tab::Alerts => !state.alerts.marked.is_empty(),
        _ => false,
    }
}

fn quit(state: &mut State) -> Vec<Effect> {
    if state.requests.count() > 0 {
        state.prompt = Some(Prompt::new(
            "Work is still running. Quit anyway? (y/n)",
            PromptKind::ConfirmQuit,
        ));
    } else {
        state.quit = true;
    }
    Vec::new()
}

/// Switches to the tab at `index` of [`Tab::ALL`] and loads what it shows.
pub fn switch(state: &mut State, index: usize) -> Vec<Effect> {
    let Some(&tab) = Tab::ALL.get(index) else {
        return Vec::new();
    };
    state.tab = tab;
    state.help = false;
    match tab {
        Tab::Lists if !state.requests.pending(Slot::Lists) => vec![call(state, Call::Lists)],
        Tab::Watchlist => vec![call(state, Call::Favorites)],
        Tab::Alerts => vec![pages::alerts::reload(state), call(state, Call::OpenAlerts)],
        Tab::Briefs if !state.briefs.loaded => {
            let query = state.briefs.query();
            vec![call(state, Call::Briefs(query))]
        }
        Tab::Webhooks => vec![call(state, Call::Webhooks)],
        _ => Vec::new(),
    }
}

fn on_prompt_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
    let Some(prompt) = state.prompt.as_mut() else {
        return Vec::new();
    };
    let ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
    if prompt.yes_no() {
        let yes = matches!(key.code, KeyCode::Char('y' | 'Y'));
        let Some(prompt) = state.prompt.take() else {
            return Vec::new();
        };
        if !yes {
            if ctrl_c && prompt.kind == PromptKind::ConfirmQuit {
                state.quit = true;
            }
            return Vec::new();
        }
        return match prompt.kind {
            PromptKind::ConfirmQuit => {
                state.quit = true;
                Vec::new()
            }
            PromptKind::ConfirmRemove { favorite_id, .. } => {
                vec![call(state, Call::RemoveFavorite(favorite_id))]
            }
            PromptKind::ConfirmDeleteWebhook { webhook_id } => {
                vec![call(state, Call::DeleteWebhook(webhook_id))]
            }
            PromptKind::ConfirmDecide {
                screening_id,
                entity_id,
                decision,
                note,
            } => {
                let request = crate::api::screenings::DecisionRequest {
                    entity_id,
                    decision,
                    note,
                };
                vec![call(state, Call::Decide(screening_id, request))]
            }
            PromptKind::ConfirmVerdict {
                screening_id,
                entity_id,
                verdict,
                note,
            } => {
                let request = crate::api::screenings::VerdictRequest {
                    verdict,
                    entity_id,
                    note,
                };
                vec![call(state, Call::Verdict(screening_id, request))]
            }
            _ => Vec::new(),
        };
    }
    match key.code {
        KeyCode::Esc => {
            state.prompt = None;
            Vec::new()
        }
        _ if ctrl_c => quit(state),
        KeyCode::Enter => submit_prompt(state),
        KeyCode::Tab if prompt.is_path() => {
            let typed = prompt.input.value().to_owned();
            vec![call(state, Call::Complete(typed))]
        }
        _ => {
            edit(&mut prompt.input, key);
            prompt.error = None;
            prompt.hint = None;
            Vec::new()
        }
    }
}

fn submit_prompt(state: &mut State) -> Vec<Effect> {
    let Some(prompt) = state.prompt.as_mut() else {
        return Vec::new();
    };
    let value = prompt.input.value().trim().to_owned();
    if value.is_empty() && !prompt.empty_ok() {
        prompt.error = Some(match prompt.kind {
            PromptKind::Decide { .. }
            | PromptKind::Verdict { .. }
            | PromptKind::AlertStatus { .. } => "a note is required: say why".to_owned(),
            PromptKind::BatchPath => "type the path of a CSV, text or JSON file".to_owned(),
            PromptKind::ListsImport => {
                "type the folder holding one folder per list code".to_owned()
            }
            PromptKind::BatchExport => "type the path of a new .csv or .json file".to_owned(),
            PromptKind::WatchlistImport => "type the path of a CSV, text or JSON file".to_owned(),
            PromptKind::WebhookUrl { .. } => "type the URL that receives the events".to_owned(),
            PromptKind::WebhookEvents { .. } => {
                format!(
                    "name at least one of: {}",
                    pages::webhooks::default_events()
                )
            }
            _ => "type a name".to_owned(),
        });
        return Vec::new();
    }
    let Some(prompt) = state.prompt.take() else {
        return Vec::new();
    };
    state.status.message = None;
    match prompt.kind {
        PromptKind::Decide {
            screening_id,
            entity_id,
            decision,
        } if pages::screen::is_final(decision) => {
            pages::screen::confirm_decision(state, screening_id, entity_id, decision, value);
            Vec::new()
        }
        PromptKind::Decide {
            screening_id,
            entity_id,
            decision,
        } => {
            let request = crate::api::screenings::DecisionRequest {
                entity_id,
                decision,
                note: value,
            };
            vec![call(state, Call::Decide(screening_id, request))]
        }
        PromptKind::Verdict {
            screening_id,
            entity_id,
            verdict,
        } => {
            pages::screen::confirm_verdict(state, screening_id, entity_id, verdict, value);
            Vec::new()
        }
        PromptKind::AlertStatus { alert_ids, status } => {
            let request = crate::api::alerts::AlertStatusRequest {
                status,
                note: value,
            };
            vec![call(state, Call::SetAlerts(alert_ids, request))]
        }
        PromptKind::AddFavorite
        | PromptKind::AddFavoriteDob { .. }
        | PromptKind::AddFavoriteCountry { .. }
        | PromptKind::AddFavoriteNote { .. } => add_favorite_step(state, prompt.kind, value),
        PromptKind::ListsImport => {
            let dir = super::complete::expand(&value);
            pages::lists::start(state, super::lists_job::ListsWork::Import(dir))
        }
        PromptKind::BatchPath => {
            vec![call(
                state,
                Call::ReadBatch(super::complete::expand(&value)),
            )]
        }
        PromptKind::BatchExport => {
            let path = super::complete::expand(&value);
            pages::batch::export(state, &path.to_string_lossy())
        }
        PromptKind::WatchlistImport => vec![call(
            state,
            Call::ImportFavorites(super::complete::expand(&value)),
        )],
        PromptKind::Filter(Tab::Briefs) => pages::briefs::set_words(state, &value),
        PromptKind::Filter(Tab::Screen) => pages::screen::set_words(state, &value),
        PromptKind::Filter(tab) => super::tables::set(state, tab, &value),
        PromptKind::WebhookUrl { edit } => {
            let (events, id) = match edit {
                Some((id, events)) => (events, Some(id)),
                None => (pages::webhooks::default_events(), None),
            };
            state.prompt = Some(Prompt::with_value(
                "Events, comma-separated",
                PromptKind::WebhookEvents {
                    url: value,
                    edit: id,
                },
                &events,
            ));
            Vec::new()
        }
        PromptKind::WebhookEvents { url, edit } => {
            let events = pages::webhooks::parse_events(&value);
            let call_ = match edit {
                Some(id) => Call::UpdateWebhook(
                    id,
                    crate::api::webhooks::WebhookUpdate {
                        url: Some(url),
                        events: Some(events),
                        ..Default::default()
                    },
                ),
                None => Call::CreateWebhook(crate::api::webhooks::WebhookCreate {
                    url,
                    events,
                    description: None,
                }),
            };
            vec![call(state, call_)]
        }
        PromptKind::ConfirmRemove { .. }
        | PromptKind::ConfirmQuit
        | PromptKind::ConfirmDeleteWebhook { .. }
        | PromptKind::ConfirmDecide { .. }
        | PromptKind::ConfirmVerdict { .. } => Vec::new(),
    }
}

/// Applies a path completion to the prompt, if it still holds the text completed.
fn completed(state: &mut State, typed: &str, found: Result<Vec<super::complete::Entry>, String>) {
    let Some(prompt) = state.prompt.as_mut().filter(|p| p.is_path()) else {
        return;
    };
    if prompt.input.value() != typed {
        return; // typed on meanwhile
    }
    match found {
        Ok(entries) => {
            let (value, hint) = super::complete::complete(typed, &entries);
            if value != typed {
                prompt.input = Input::new(value);
            }
            prompt.hint = hint.map(|h| super::text::sanitize(&h));
        }
        Err(e) => prompt.hint = Some(super::text::sanitize(&e)),
    }
}

/// Whether the status bar shows an error.
pub fn has_error(state: &State) -> bool {
    matches!(state.status.message, Some(Message::Error(_)))
}

/// One answer of the watchlist add form: name, then date of birth, country and note (each
/// optional); the last sends the request, whose date of birth and country the service checks.
fn add_favorite_step(state: &mut State, kind: PromptKind, value: String) -> Vec<Effect> {
    let some = |v: String| (!v.trim().is_empty()).then_some(v);
    let (label, next) = match kind {
        PromptKind::AddFavorite => (
            format!(
                "Date of birth of {:?} (YYYY or YYYY-MM-DD, optional)",
                super::text::sanitize(&value)
            ),
            PromptKind::AddFavoriteDob { name: value },
        ),
        PromptKind::AddFavoriteDob { name } => (
            "Country (code or name, e.g. RU; optional)".to_owned(),
            PromptKind::AddFavoriteCountry {
                name,
                dob: some(value),
            },
        ),
        PromptKind::AddFavoriteCountry { name, dob } => (
            format!(
                "Note for {:?} (optional: why it is watched; Enter adds)",
                super::text::sanitize(&name)
            ),
            PromptKind::AddFavoriteNote {
                name,
                dob,
                country: some(value),
            },
        ),
        PromptKind::AddFavoriteNote { name, dob, country } => {
            let request = crate::api::favorites::FavoriteRequest {
                name,
                kind: None,
                note: some(value),
                date_of_birth: dob,
                country,
            };
            return vec![call(state, Call::AddFavorite(request))];
        }
        _ => return Vec::new(),
    };
    state.prompt = Some(Prompt::new(label, next));
    Vec::new()
}
