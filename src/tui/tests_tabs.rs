//! `update` tests of results as you type, the Webhooks and Briefs tabs, `/` and `y`: no
//! runtime, no database, no terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, Call, Effect, Outcome};
use super::state::{PromptKind, State, Tab};
use super::update::{init, update};
use crate::api::screening::ScreenResult;
use crate::api::screenings::ScreeningResponse;

fn state() -> State {
    let mut s = State::new("LOCAL", jiff::Timestamp::UNIX_EPOCH);
    init(&mut s);
    s
}

fn key(s: &mut State, code: KeyCode) -> Vec<Effect> {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn typed(s: &mut State, text: &str) -> Vec<Effect> {
    text.chars()
        .flat_map(|c| key(s, KeyCode::Char(c)))
        .collect()
}

fn response(id: &str, query: &str) -> ScreeningResponse {
    ScreeningResponse {
        id: id.into(),
        result: ScreenResult {
            query: query.into(),
            total_matches: 0,
            results: Vec::new(),
            coverage: None,
        },
    }
}

#[test]
fn typing_previews_after_a_pause_and_only_the_latest_pause_counts() {
    let mut s = state();
    let effects = typed(&mut s, "Put");
    // One character is too short to preview; then one debounce per keystroke.
    assert_eq!(effects, vec![Effect::Debounce(2), Effect::Debounce(3)]);
    assert!(
        update(&mut s, Action::PreviewDue(2)).is_empty(),
        "superseded pause"
    );
    let effects = update(&mut s, Action::PreviewDue(3));
    let [Effect::Call(id, Call::Preview(request))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(request.name, "Put");
    let id = *id;
    update(
        &mut s,
        Action::Done(id, Box::new(Outcome::Previewed(Ok(response("", "Put"))))),
    );
    let shown = s.screen.shown.as_ref().expect("preview shown");
    assert!(shown.is_preview());
    // A decision needs a stored screening.
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Char('f'));
    assert!(s.prompt.is_none());
    assert!(super::update::has_error(&s));
}

#[test]
fn enter_stores_and_a_late_preview_does_not_replace_it() {
    let mut s = state();
    typed(&mut s, "Kim Jong");
    let n = s.screen.debounce;
    let effects = update(&mut s, Action::PreviewDue(n));
    let [Effect::Call(preview, _)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    let preview = *preview;
    let effects = key(&mut s, KeyCode::Enter);
    let [Effect::Call(stored, Call::Screen(_))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    let stored = *stored;
    update(
        &mut s,
        Action::Done(
            stored,
            Box::new(Outcome::Screened(Ok(response("scr_1", "Kim Jong")))),
        ),
    );
    update(
        &mut s,
        Action::Done(
            preview,
            Box::new(Outcome::Previewed(Ok(response("", "Kim")))),
        ),
    );
    assert_eq!(
        s.screen.shown.as_ref().map(|x| x.id.as_str()),
        Some("scr_1")
    );
    // A pause that ends after Enter does not preview either.
    assert!(update(&mut s, Action::PreviewDue(n)).is_empty());
}

#[test]
fn date_of_birth_and_country_go_with_the_screening() {
    let mut s = state();
    typed(&mut s, "Ivan Petrov");
    key(&mut s, KeyCode::Tab);
    typed(&mut s, "1961");
    key(&mut s, KeyCode::Tab);
    typed(&mut s, "RU");
    let effects = key(&mut s, KeyCode::Enter);
    let [Effect::Call(_, Call::Screen(request))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(request.name, "Ivan Petrov");
    assert_eq!(request.date_of_birth.as_deref(), Some("1961"));
    assert_eq!(request.country.as_deref(), Some("RU"));
    // `w` keeps the name on the watchlist with the evidence it was screened with, even
    // after the form's fields changed (they were dropped: its re-screens lacked them).
    let [Effect::Call(id, _)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    let done = Outcome::Screened(Ok(response("scr_1", "Ivan Petrov")));
    update(&mut s, Action::Done(*id, Box::new(done)));
    typed(&mut s, "5");
    key(&mut s, KeyCode::Tab);
    let effects = key(&mut s, KeyCode::Char('w'));
    let [Effect::Call(_, Call::AddFavorite(favorite))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(favorite.name, "Ivan Petrov");
    assert_eq!(
        (
            favorite.date_of_birth.as_deref(),
            favorite.country.as_deref()
        ),
        (Some("1961"), Some("RU"))
    );
}

#[test]
fn a_webhook_is_created_from_a_url_and_its_events() {
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    let effects = key(&mut s, KeyCode::Char('7'));
    assert_eq!(s.tab, Tab::Webhooks);
    assert!(matches!(
        effects.as_slice(),
        [Effect::Call(_, Call::Webhooks)]
    ));
    key(&mut s, KeyCode::Char('a'));
    typed(&mut s, "https://example.org/hook");
    key(&mut s, KeyCode::Enter);
    let prompt = s.prompt.as_ref().expect("events asked");
    assert!(matches!(prompt.kind, PromptKind::WebhookEvents { .. }));
    assert!(prompt.input.value().contains("alert.created"));
    let effects = key(&mut s, KeyCode::Enter);
    let [Effect::Call(_, Call::CreateWebhook(request))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(request.url, "https://example.org/hook");
    assert_eq!(request.events.len(), crate::webhooks::EVENT_KINDS.len());
}

#[test]
fn briefs_words_go_to_the_service_and_y_copies_nothing_without_a_row() {
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Char('3'));
    key(&mut s, KeyCode::Char('/'));
    typed(&mut s, "iran");
    let effects = key(&mut s, KeyCode::Enter);
    let [Effect::Call(_, Call::Briefs(query))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(query.q.as_deref(), Some("iran"));
    key(&mut s, KeyCode::Char('y'));
    assert!(s.clipboard.is_none());
    assert!(super::update::has_error(&s));
}

#[test]
fn the_help_scrolls_and_closes() {
    let mut s = state();
    key(&mut s, KeyCode::F(1));
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Down);
    assert!(s.help && s.help_scroll == 2);
    key(&mut s, KeyCode::Esc);
    assert!(!s.help);
}

#[test]
fn remote_mode_previews_nothing_so_no_request_is_counted() {
    let mut s = State::new("REMOTE example:8080", jiff::Timestamp::UNIX_EPOCH);
    init(&mut s);
    let effects = typed(&mut s, "Vladimir Putin");
    assert!(effects.is_empty(), "{effects:?}");
    let latest = s.screen.debounce;
    assert!(update(&mut s, Action::PreviewDue(latest)).is_empty());
    // Enter is one counted request, stored.
    let effects = key(&mut s, KeyCode::Enter);
    assert!(
        matches!(effects.as_slice(), [Effect::Call(_, Call::Screen(_))]),
        "{effects:?}"
    );
}

#[test]
fn an_unreachable_server_is_retried_and_the_tab_reloads_when_it_answers() {
    use crate::service::ServiceError;
    let mut s = State::new("REMOTE example:8080", jiff::Timestamp::UNIX_EPOCH);
    let effects = init(&mut s);
    let lists = effects
        .iter()
        .find_map(|e| match e {
            Effect::Call(id, Call::Lists) => Some(*id),
            _ => None,
        })
        .unwrap();
    s.requests.cancel(super::action::Slot::OpenAlerts); // the start's read answered
    let down = ServiceError::Unavailable("cannot reach http://example:8080".into());
    update(
        &mut s,
        Action::Done(lists, Box::new(Outcome::Lists(Err(down)))),
    );
    assert!(s.status.unreachable);
    assert!(super::update::has_error(&s));
    // The idle timer retries with one list read.
    let effects = update(&mut s, Action::Poll);
    let [Effect::Call(retry, Call::Lists)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    let effects = update(
        &mut s,
        Action::Done(*retry, Box::new(Outcome::Lists(Ok(Vec::new())))),
    );
    assert!(!s.status.unreachable);
    assert!(!super::update::has_error(&s), "the old error goes");
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Call(_, Call::OpenAlerts))),
        "{effects:?}"
    );
}

#[test]
fn the_open_alert_count_is_refreshed_while_idle() {
    let mut s = state();
    s.requests.cancel(super::action::Slot::OpenAlerts); // the start's read answered
    let mut calls = 0;
    for _ in 0..super::update::OPEN_ALERTS_EVERY * 2 {
        for e in update(&mut s, Action::Poll) {
            if let Effect::Call(id, Call::OpenAlerts) = e {
                calls += 1;
                s.requests.finish(super::action::Slot::OpenAlerts, id);
            }
        }
    }
    assert_eq!(calls, 2);
}

#[test]
fn enter_on_a_watchlist_row_opens_its_last_screening() {
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Char('5'));
    let favorite: crate::model::Favorite = serde_json::from_value(serde_json::json!({
        "id": "fav_1", "name": "Kim Jong Un", "type": null, "note": null,
        "created_at": "2026-01-01T00:00:00Z", "last_screened_at": null,
        "last_match_count": 2, "last_screening_id": "scr_9",
    }))
    .unwrap();
    s.watchlist.items = vec![favorite];
    let effects = key(&mut s, KeyCode::Enter);
    assert!(
        matches!(effects.as_slice(), [Effect::Call(_, Call::Screening(id))] if id == "scr_9"),
        "{effects:?}"
    );
    assert_eq!(s.tab, Tab::Screen);
}

#[test]
fn tabs_cut_off_at_60_columns_show_a_sign() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let s = state();
    let draw = |width| {
        let mut terminal = Terminal::new(TestBackend::new(width, 20)).unwrap();
        terminal
            .draw(|frame| super::view::render(frame, &s))
            .unwrap();
        let buffer = terminal.backend().buffer().clone();
        (0..width)
            .map(|x| buffer[(x, 0)].symbol().to_owned())
            .collect::<String>()
    };
    assert!(draw(60).contains("›more: ]"), "{}", draw(60));
    assert!(!draw(120).contains("›more"), "{}", draw(120));
}
