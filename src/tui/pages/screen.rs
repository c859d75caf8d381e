//! The Screen tab's state and behaviour: the name, date-of-birth and country fields, type and
//! threshold, results as you type (debounced previews, nothing stored), the stored
//! screening's results, a match's detail, decisions and the history of screenings.
//! Drawing is in [`super::screen_view`].

use tui_input::Input;

use crate::api::screening::KindFilter;
use crate::api::screenings::{StoredScreening, Verdict};
use crate::model::{Decision, ReviewStatus};

use crate::tui::action::{Call, Effect, Outcome, Slot};
use crate::tui::keymap::Command;
use crate::tui::state::{Prompt, PromptKind, State, call};
use crate::tui::widgets::table;

pub use crate::tui::page_state::screen::{
    Focus, HISTORY_MAX, HISTORY_PAGE, PREVIEW_MIN_CHARS, ScreenState, Shown, View,
};

/// Something that changes the results changed (a field, the type, the threshold): wait for a
/// pause in typing, then preview. A stored screening on screen stays until the preview comes.
pub fn changed(state: &mut State) -> Vec<Effect> {
    let remote = !previews_on(state);
    let s = &mut state.screen;
    s.debounce += 1;
    if remote || s.name.value().trim().chars().count() < PREVIEW_MIN_CHARS {
        // Nothing worth previewing: drop a preview on screen and any preview in flight.
        if s.shown.as_ref().is_some_and(Shown::is_preview) {
            s.shown = None;
        }
        s.error = None;
        state.requests.cancel(Slot::Preview);
        return Vec::new();
    }
    vec![Effect::Debounce(s.debounce)]
}

/// Why results as you type are off in remote mode: a server counts every screening request
/// of a key against its per-minute budget and its monthly credits, previews included.
pub const REMOTE_NO_PREVIEW: &str = "Remote mode: no results as you type (on a server each would count against the key's requests per minute and monthly credits). Enter screens and stores the name: one request.";

/// Whether results as you type are on: locally (they cost nothing), never against a server.
pub fn previews_on(state: &State) -> bool {
    state.status.mode == "LOCAL"
}

/// A typing pause ended: preview now if `n` is still the latest.
pub fn preview_due(state: &mut State, n: u64) -> Vec<Effect> {
    if !previews_on(state) {
        return Vec::new();
    }
    let s = &state.screen;
    if n != s.debounce || s.name.value().trim().chars().count() < PREVIEW_MIN_CHARS {
        return Vec::new();
    }
    let request = s.request();
    state.screen.asked.1 = (request.date_of_birth.clone(), request.country.clone());
    vec![call(state, Call::Preview(request))]
}

fn run(state: &mut State) -> Vec<Effect> {
    let s = &mut state.screen;
    if s.name.value().trim().is_empty() {
        s.error = Some("type a name to screen".into());
        return Vec::new();
    }
    s.error = None;
    // The stored screening supersedes any preview still coming.
    s.debounce += 1;
    state.requests.cancel(Slot::Preview);
    let request = state.screen.request();
    state.screen.asked.0 = (request.date_of_birth.clone(), request.country.clone());
    state.screen.replace = state.screen.focus == Focus::Name;
    vec![call(state, Call::Screen(request))]
}

/// Handles a command on the Screen tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let s = &mut state.screen;
    match (s.view, command) {
        (_, Command::ToggleType) => {
            s.kind = match s.kind {
                None => Some(KindFilter::Individual),
                Some(KindFilter::Individual) => Some(KindFilter::Entity),
                Some(KindFilter::Entity) => None,
            };
            changed(state)
        }
        (_, Command::ThresholdUp) => {
            s.threshold = Some(s.threshold.unwrap_or(75).saturating_add(5).min(100));
            changed(state)
        }
        (_, Command::ThresholdDown) => {
            s.threshold = Some(s.threshold.unwrap_or(80).saturating_sub(5).max(50));
            changed(state)
        }
        (_, Command::History) => {
            s.view = View::History;
            s.history_selected = 0;
            s.history_appending = false;
            vec![call(state, Call::History(None))]
        }
        (View::Results | View::History, Command::Filter) => filter_prompt(state),
        (View::Results, Command::FocusNext) => {
            s.focus = match s.focus {
                Focus::Name => Focus::Dob,
                Focus::Dob => Focus::Country,
                Focus::Country => Focus::Results,
                Focus::Results => Focus::Name,
            };
            Vec::new()
        }
        (View::Results, Command::FocusPrev) => {
            s.focus = match s.focus {
                Focus::Name => Focus::Results,
                Focus::Dob => Focus::Name,
                Focus::Country => Focus::Dob,
                Focus::Results => Focus::Country,
            };
            Vec::new()
        }
        (View::Results, Command::Activate) if s.focus != Focus::Results => run(state),
        (View::Results, Command::Activate) => match s.current() {
            Some(m) => {
                let id = m.entity_id.clone();
                s.view = View::Detail;
                s.scroll = 0;
                s.detail = None;
                vec![call(state, Call::Entity(id))]
            }
            None => Vec::new(),
        },
        (View::Results, Command::Up) if s.focus == Focus::Results => {
            if s.selected == 0 {
                s.focus = Focus::Name; // up from the first row: back to the name field
            }
            s.selected = s.selected.saturating_sub(1);
            Vec::new()
        }
        (View::Results, Command::Down) => {
            let len = s.visible().len();
            if s.focus != Focus::Results && len > 0 {
                s.focus = Focus::Results;
            } else if s.selected + 1 < len {
                s.selected += 1;
            }
            Vec::new()
        }
        (View::Results, command @ (Command::Top | Command::Bottom)) => {
            let len = s.visible().len();
            table::step(&mut s.selected, len, command);
            Vec::new()
        }
        (View::Results, Command::Back) => {
            // Out of the name field, so that number keys switch tabs.
            s.focus = Focus::Results;
            Vec::new()
        }
        (View::Detail, Command::Up) => {
            s.scroll = s.scroll.saturating_sub(1);
            Vec::new()
        }
        (View::Detail, Command::Down) => {
            s.scroll = s.scroll.saturating_add(1).min(500);
            Vec::new()
        }
        (View::Detail | View::History, Command::Back) => {
            s.view = View::Results;
            Vec::new()
        }
        (View::History, Command::Down | Command::Bottom)
            if s.history_selected + 1 >= s.history_visible().len() =>
        {
            more_history(state)
        }
        (
            View::History,
            command @ (Command::Up | Command::Down | Command::Top | Command::Bottom),
        ) => {
            let len = s.history_visible().len();
            table::step(&mut s.history_selected, len, command);
            Vec::new()
        }
        (View::History, Command::Activate) => match s.history_visible().get(s.history_selected) {
            Some(summary) => {
                let id = summary.id.clone();
                vec![call(state, Call::Screening(id))]
            }
            None => Vec::new(),
        },
        (View::Results | View::Detail, Command::FalsePositiveAll) => {
            decide_all(state, Decision::FalsePositive)
        }
        (View::Results | View::Detail, Command::TrueMatchAll) => {
            decide_all(state, Decision::TrueMatch)
        }
        (View::Results | View::Detail, Command::EscalateAll) => {
            decide_all(state, Decision::Escalated)
        }
        (View::Results | View::Detail, Command::FalsePositive) => {
            decide(state, Decision::FalsePositive)
        }
        (View::Results | View::Detail, Command::TrueMatch) => decide(state, Decision::TrueMatch),
        (View::Results | View::Detail, Command::Escalate) => decide(state, Decision::Escalated),
        (View::Results | View::Detail, Command::ConfirmProposal) => {
            verdict(state, Verdict::Confirm)
        }
        (View::Results | View::Detail, Command::RejectProposal) => verdict(state, Verdict::Reject),
        (View::Results | View::Detail, Command::AddToWatchlist) => {
            let Some(shown) = &s.shown else {
                state.error("screen a name first (Enter), then add it to the watchlist");
                return Vec::new();
            };
            let (date_of_birth, country) = shown.evidence.clone();
            let request = crate::api::favorites::FavoriteRequest {
                name: shown.query.clone(),
                kind: s.kind,
                note: None,
                date_of_birth,
                country,
            };
            vec![call(state, Call::AddFavorite(request))]
        }
        _ => Vec::new(),
    }
}

/// Loads the next page of the history, unless one is loading or there is none.
fn more_history(state: &mut State) -> Vec<Effect> {
    let s = &mut state.screen;
    if !s.history_more() || state.requests.pending(Slot::History) {
        return Vec::new();
    }
    s.history_appending = true;
    let cursor = s.history_next.clone();
    vec![call(state, Call::History(cursor))]
}

/// `/` on the Screen tab: filters the history, or the results being reviewed.
fn filter_prompt(state: &mut State) -> Vec<Effect> {
    let s = &state.screen;
    let (what, current) = match s.view {
        View::History => ("the history", s.history_words.clone()),
        _ if s.shown.is_some() => ("the results", s.words.clone()),
        _ => {
            state.error("nothing to filter yet: screen a name first");
            return Vec::new();
        }
    };
    state.prompt = Some(Prompt::with_value(
        format!("Filter {what} by words (empty: show all)"),
        PromptKind::Filter(crate::tui::state::Tab::Screen),
        current.as_deref().unwrap_or(""),
    ));
    Vec::new()
}

/// Sets the `/` words of the history or the results (empty clears them).
pub fn set_words(state: &mut State, words: &str) -> Vec<Effect> {
    let words: String = words.trim().chars().take(200).collect();
    let words = (!words.is_empty()).then_some(words);
    let s = &mut state.screen;
    if s.view == View::History {
        s.history_words = words;
        s.history_selected = 0;
    } else {
        s.words = words;
        s.selected = 0;
    }
    Vec::new()
}

const NOT_STORED: &str = "press Enter in the name field first: decisions are recorded on a stored screening, not on results as you type";

/// Opens the note prompt for a decision on the whole screening.
fn decide_all(state: &mut State, decision: Decision) -> Vec<Effect> {
    let Some(shown) = state.screen.shown.as_ref().filter(|x| !x.is_preview()) else {
        state.error(NOT_STORED);
        return Vec::new();
    };
    state.prompt = Some(Prompt::new(
        format!(
            "{decision} for the whole screening of {:?}: note (required)",
            crate::tui::text::sanitize(&shown.query)
        ),
        PromptKind::Decide {
            screening_id: shown.id.clone(),
            entity_id: None,
            decision,
        },
    ));
    Vec::new()
}

/// Opens the note prompt for a decision on the selected match.
fn decide(state: &mut State, decision: Decision) -> Vec<Effect> {
    let s = &state.screen;
    let Some(shown) = s.shown.as_ref().filter(|x| !x.is_preview()) else {
        state.error(NOT_STORED);
        return Vec::new();
    };
    let entity = s.current().map(|m| (m.entity_id.clone(), m.name.clone()));
    let target = match &entity {
        Some((id, name)) => format!("{name} ({id})"),
        None => format!("the screening of {:?}", shown.query),
    };
    state.prompt = Some(Prompt::new(
        format!("{decision} for {target}: note (required)"),
        PromptKind::Decide {
            screening_id: shown.id.clone(),
            entity_id: entity.map(|(id, _)| id),
            decision,
        },
    ));
    Vec::new()
}

/// The proposal waiting on the match `entity_id` of `shown` (four-eyes review), if any.
pub fn pending_proposal(shown: &Shown, entity_id: &str) -> Option<crate::model::Pending> {
    let matched: Vec<String> = shown.results.iter().map(|m| m.entity_id.clone()).collect();
    crate::model::replay(&matched, &shown.decisions)
        .into_iter()
        .find(|s| s.entity_id == entity_id)
        .and_then(|s| s.pending)
}

/// Opens the note prompt of a second reviewer's verdict on the selected match's proposal.
fn verdict(state: &mut State, verdict: Verdict) -> Vec<Effect> {
    let s = &state.screen;
    let Some(shown) = s.shown.as_ref().filter(|x| !x.is_preview()) else {
        state.error(NOT_STORED);
        return Vec::new();
    };
    let Some(m) = s.current() else {
        return Vec::new();
    };
    let Some(pending) = pending_proposal(shown, &m.entity_id) else {
        state.error(format!(
            "no proposal awaits a second reviewer on {} ({})",
            m.name, m.entity_id
        ));
        return Vec::new();
    };
    let word = verdict_word(verdict);
    state.prompt = Some(Prompt::new(
        format!(
            "{word} the proposal: note (required) · {} by {} for {} ({})",
            pending.decision,
            crate::tui::text::sanitize(&pending.actor),
            m.name,
            m.entity_id
        ),
        PromptKind::Verdict {
            screening_id: shown.id.clone(),
            entity_id: Some(m.entity_id.clone()),
            verdict,
        },
    ));
    Vec::new()
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Confirm => "Confirm",
        Verdict::Reject => "Reject",
    }
}

/// Asks (y/n) before a verdict is recorded, naming the screening, the entity and the
/// decision proposed: the same confirmation as a final decision's.
pub fn confirm_verdict(
    state: &mut State,
    screening_id: String,
    entity_id: Option<String>,
    verdict: Verdict,
    note: String,
) {
    let shown = state.screen.shown.as_ref().filter(|x| x.id == screening_id);
    let query = shown.map_or(String::new(), |x| x.query.clone());
    let pending = shown
        .zip(entity_id.as_deref())
        .and_then(|(x, e)| pending_proposal(x, e));
    let proposal = pending.map_or(String::new(), |p| format!("{} by {}", p.decision, p.actor));
    let entity = entity_id.as_deref().unwrap_or("every match");
    let closes = match verdict {
        Verdict::Confirm => "It closes the review",
        Verdict::Reject => "The match is open again",
    };
    let mut prompt = Prompt::new(
        format!("{} the proposal? {closes}", verdict_word(verdict)),
        PromptKind::ConfirmVerdict {
            screening_id: screening_id.clone(),
            entity_id: entity_id.clone(),
            verdict,
            note: note.clone(),
        },
    );
    prompt.hint = Some(crate::tui::text::sanitize(&format!(
        "{} the proposal {proposal} for {entity} on screening {screening_id} of {query:?}, note {note:?}",
        verdict_word(verdict).to_lowercase()
    )));
    state.prompt = Some(prompt);
}

/// Whether `decision` closes the review (it then asks for a confirmation first).
pub fn is_final(decision: Decision) -> bool {
    matches!(decision, Decision::TrueMatch | Decision::FalsePositive)
}

/// Asks (y/n) before a final decision is recorded, naming the screening and the entity.
pub fn confirm_decision(
    state: &mut State,
    screening_id: String,
    entity_id: Option<String>,
    decision: Decision,
    note: String,
) {
    let shown = state.screen.shown.as_ref().filter(|x| x.id == screening_id);
    let query = shown.map_or(String::new(), |x| x.query.clone());
    let entity = match &entity_id {
        Some(id) => {
            let name = shown
                .and_then(|x| x.results.iter().find(|m| &m.entity_id == id))
                .map_or(String::new(), |m| format!("{} ", m.name));
            format!("the entry {name}({id})")
        }
        None => "every match (the whole screening)".to_owned(),
    };
    let mut prompt = Prompt::new(
        format!("Record {decision}? It closes the review"),
        PromptKind::ConfirmDecide {
            screening_id: screening_id.clone(),
            entity_id,
            decision,
            note: note.clone(),
        },
    );
    prompt.hint = Some(crate::tui::text::sanitize(&format!(
        "{decision} for {entity} on screening {screening_id} of {query:?}, note {note:?}"
    )));
    state.prompt = Some(prompt);
}

fn show_stored(state: &mut State, stored: StoredScreening) {
    let s = &mut state.screen;
    s.name = Input::new(stored.query.clone());
    // The stored screening does not keep the form's date of birth and country: clear them,
    // so that the next Enter does not screen the reopened name with another's evidence.
    s.dob = Input::default();
    s.country = Input::default();
    s.kind = stored.kind;
    s.debounce += 1;
    s.shown = Some(Shown {
        id: stored.id,
        query: stored.query,
        total: stored.total_matches,
        results: stored.results,
        status: Some(stored.status),
        coverage: None,
        decisions: stored.decisions,
        evidence: Default::default(),
    });
    s.selected = 0;
    s.words = None;
    s.view = View::Results;
    s.focus = Focus::Name;
}

/// Applies a result for the Screen tab.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::Screened(Ok(response)) => {
            let s = &mut state.screen;
            let status = if response.result.results.is_empty() {
                ReviewStatus::NoMatch
            } else {
                ReviewStatus::PendingReview
            };
            s.shown = Some(Shown {
                id: response.id,
                query: response.result.query,
                total: response.result.total_matches as u64,
                results: response.result.results,
                status: Some(status),
                coverage: response.result.coverage,
                decisions: Vec::new(),
                evidence: s.asked.0.clone(),
            });
            s.selected = 0;
            s.words = None;
            s.error = None;
            // The focus stays where it is: the next keys type the next name (trap 1). The
            // results are reviewed after ↓ or Tab, in the REVIEW mode the screen shows.
            // A stored match may raise an alert.
            vec![call(state, Call::OpenAlerts)]
        }
        Outcome::Previewed(Ok(response)) => {
            let s = &mut state.screen;
            s.shown = Some(Shown {
                id: String::new(),
                query: response.result.query,
                total: response.result.total_matches as u64,
                results: response.result.results,
                status: None,
                coverage: response.result.coverage,
                decisions: Vec::new(),
                evidence: s.asked.1.clone(),
            });
            s.selected = 0;
            s.words = None;
            s.error = None;
            Vec::new()
        }
        Outcome::Previewed(Err(e)) => {
            // Shown in the results, not the status bar: half-typed input is normal.
            state.screen.error = Some(e.to_string());
            Vec::new()
        }
        Outcome::Screening(Ok(stored)) => {
            show_stored(state, stored);
            Vec::new()
        }
        Outcome::History(Ok(page)) => {
            let s = &mut state.screen;
            if std::mem::take(&mut s.history_appending) {
                s.history.extend(page.items);
            } else {
                s.history = page.items;
            }
            s.history.truncate(HISTORY_MAX);
            s.history_next = page.next_cursor;
            Vec::new()
        }
        Outcome::Entity(Ok(detail)) => {
            state.screen.detail = Some(*detail);
            Vec::new()
        }
        Outcome::Decided(Ok(response)) => {
            if let Some(shown) = state
                .screen
                .shown
                .as_mut()
                .filter(|x| x.id == response.decision.screening_id)
            {
                shown.status = Some(response.status);
                shown.decisions.push(response.decision.clone());
            }
            state.info(match response.decision.proposed {
                Some(p) => format!(
                    "proposed {p}: awaiting a second reviewer (screening now {})",
                    response.status
                ),
                None => format!(
                    "recorded: {} (screening now {})",
                    response.decision.to, response.status
                ),
            });
            Vec::new()
        }
        Outcome::Verdict(Ok(response)) => {
            let to = response.decisions.first().map(|d| d.to);
            if let Some(shown) = state.screen.shown.as_mut().filter(|x| {
                response
                    .decisions
                    .first()
                    .is_some_and(|d| d.screening_id == x.id)
            }) {
                shown.status = Some(response.status);
                shown.decisions.extend(response.decisions.iter().cloned());
            }
            state.info(format!(
                "verdict recorded: {} (screening now {})",
                to.map_or("-".to_owned(), |t| t.to_string()),
                response.status
            ));
            Vec::new()
        }
        Outcome::Screened(Err(e)) => {
            state.screen.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        Outcome::History(Err(e)) => {
            state.screen.history_appending = false;
            state.service_error(&e);
            Vec::new()
        }
        Outcome::Screening(Err(e))
        | Outcome::Entity(Err(e))
        | Outcome::Decided(Err(e))
        | Outcome::Verdict(Err(e)) => {
            state.service_error(&e);
            Vec::new()
        }
        _ => Vec::new(),
    }
}
