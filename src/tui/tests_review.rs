//! `update` tests of the review desk: alerts and history loaded a page at a time, `/` in
//! the history and the results, several alerts acknowledged with one note, list downloads
//! off until enabled. No runtime, no database, no terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, Call, Effect, Outcome};
use super::state::{State, Tab};
use super::update::{init, update};
use crate::api::alerts::{Alert, AlertKind, AlertStatus, Severity};
use crate::api::screenings::Page;

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

fn alert(n: usize) -> Alert {
    Alert {
        id: format!("alt_{n:04}"),
        kind: AlertKind::ScreeningMatch,
        severity: Severity::High,
        title: format!("screening {n} matched"),
        message: String::new(),
        created_at: jiff::Timestamp::UNIX_EPOCH,
        status: AlertStatus::Open,
        screening_id: Some(format!("scr_{n}")),
        favorite_id: None,
        list: None,
        entity_ids: Vec::new(),
    }
}

fn alerts_page(from: usize, to: usize, next: Option<&str>) -> Outcome {
    Outcome::Alerts(Ok(Page {
        items: (from..to).map(alert).collect(),
        next_cursor: next.map(str::to_owned),
    }))
}

/// The one service call among `effects`, with its id.
fn only_call(effects: &[Effect]) -> (u64, Call) {
    let calls: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Call(id, c) => Some((*id, c.clone())),
            _ => None,
        })
        .collect();
    let [one] = calls.as_slice() else {
        panic!("{effects:?}")
    };
    one.clone()
}

/// Opens the Alerts tab with a first page of `n` alerts and a next page behind `next`.
fn alerts_tab(n: usize, next: Option<&str>) -> State {
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    let effects = key(&mut s, KeyCode::Char('6'));
    let Some(Effect::Call(id, Call::Alerts(_))) = effects.first() else {
        panic!("{effects:?}")
    };
    update(&mut s, Action::Done(*id, Box::new(alerts_page(0, n, next))));
    s
}

#[test]
fn down_past_the_last_alert_loads_the_next_page_and_appends_it() {
    let mut s = alerts_tab(200, Some("c2"));
    key(&mut s, KeyCode::Char('G'));
    assert_eq!(s.alerts.selected, 199);
    let (id, call) = only_call(&key(&mut s, KeyCode::Down));
    let Call::Alerts(query) = call else {
        panic!("{call:?}")
    };
    assert_eq!(query.cursor.as_deref(), Some("c2"));
    assert_eq!(query.status, Some(AlertStatus::Open));
    // A second ↓ while it loads asks nothing more.
    assert!(key(&mut s, KeyCode::Down).is_empty());
    update(
        &mut s,
        Action::Done(id, Box::new(alerts_page(200, 250, None))),
    );
    assert_eq!(s.alerts.items.len(), 250);
    assert_eq!(s.alerts.items[249].id, "alt_0249");
    key(&mut s, KeyCode::Down);
    assert_eq!(s.alerts.selected, 200);
    // The last page: ↓ at the end asks nothing.
    key(&mut s, KeyCode::Char('G'));
    assert!(key(&mut s, KeyCode::Down).is_empty());
}

#[test]
fn a_reload_replaces_the_pages_loaded() {
    let mut s = alerts_tab(200, Some("c2"));
    let (id, _) = only_call(&key(&mut s, KeyCode::Char('r')));
    update(&mut s, Action::Done(id, Box::new(alerts_page(0, 3, None))));
    assert_eq!(s.alerts.items.len(), 3);
}

#[test]
fn several_alerts_are_acknowledged_with_one_note() {
    let mut s = alerts_tab(5, None);
    key(&mut s, KeyCode::Char(' ')); // alt_0000, the cursor moves on
    key(&mut s, KeyCode::Down); // skips alt_0002
    key(&mut s, KeyCode::Char(' ')); // alt_0002
    assert_eq!(s.alerts.marked_items().len(), 2);
    let screen = render(&s, 80, 24);
    assert!(screen.contains("2 SELECTED"), "{screen}");
    assert!(screen.contains('✓'), "{screen}");
    key(&mut s, KeyCode::Char('a'));
    let title = s
        .prompt
        .as_ref()
        .map(|p| p.title.clone())
        .unwrap_or_default();
    assert!(
        title.contains("2 selected alerts: one note for all"),
        "{title}"
    );
    typed(&mut s, "same customer, checked");
    let (id, call) = only_call(&key(&mut s, KeyCode::Enter));
    let Call::SetAlerts(ids, request) = call else {
        panic!("{call:?}")
    };
    assert_eq!(ids, ["alt_0000", "alt_0002"]);
    assert_eq!(request.status, AlertStatus::Acknowledged);
    assert_eq!(request.note, "same customer, checked");
    let done = ids
        .iter()
        .map(|id| Alert {
            id: id.clone(),
            status: AlertStatus::Acknowledged,
            ..alert(0)
        })
        .collect();
    let effects = update(
        &mut s,
        Action::Done(id, Box::new(Outcome::AlertsSet { done, failed: None })),
    );
    assert!(s.alerts.marked.is_empty());
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Call(_, Call::Alerts(_))))
    );
}

#[test]
fn without_a_selection_a_and_x_act_on_the_row_and_esc_unselects() {
    let mut s = alerts_tab(3, None);
    key(&mut s, KeyCode::Char(' '));
    key(&mut s, KeyCode::Esc);
    assert!(s.alerts.marked.is_empty());
    key(&mut s, KeyCode::Char('x'));
    typed(&mut s, "done");
    let (_, call) = only_call(&key(&mut s, KeyCode::Enter));
    let Call::SetAlerts(ids, request) = call else {
        panic!("{call:?}")
    };
    assert_eq!(ids, ["alt_0001"]);
    assert_eq!(request.status, AlertStatus::Resolved);
}

#[test]
fn the_alerts_title_gets_the_room_at_80_columns() {
    let mut s = alerts_tab(1, None);
    s.alerts.items[0].title =
        "watchlist name \"Islamic Revolutionary Guard Corps\" gained a match (IRGC)".into();
    let screen = render(&s, 80, 24);
    assert!(
        screen.contains("watchlist name \"Islamic Revolutionary Guard"),
        "{screen}"
    );
}

fn history(n: usize, next: Option<&str>, from: usize) -> Outcome {
    let items = (from..from + n)
        .map(|i| crate::api::screenings::ScreeningSummary {
            id: format!("scr_{i:04}"),
            query: if i % 2 == 0 {
                format!("Putin {i}")
            } else {
                format!("Kim {i}")
            },
            kind: None,
            created_at: jiff::Timestamp::UNIX_EPOCH,
            total_matches: 1,
            best_score: Some(90),
            created_by: "analyst".into(),
            origin: crate::model::ScreeningOrigin::Single,
            status: crate::model::ReviewStatus::PendingReview,
        })
        .collect();
    Outcome::History(Ok(Page {
        items,
        next_cursor: next.map(str::to_owned),
    }))
}

#[test]
fn the_history_pages_on_and_filters_by_words() {
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    let ctrl_r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL);
    let (id, _) = only_call(&update(&mut s, Action::Key(ctrl_r)));
    update(
        &mut s,
        Action::Done(id, Box::new(history(200, Some("h2"), 0))),
    );
    key(&mut s, KeyCode::Char('G'));
    let (id, call) = only_call(&key(&mut s, KeyCode::Down));
    assert_eq!(call, Call::History(Some("h2".into())));
    update(&mut s, Action::Done(id, Box::new(history(10, None, 200))));
    assert_eq!(s.screen.history.len(), 210);
    key(&mut s, KeyCode::Char('/'));
    assert!(s.prompt.is_some(), "/ filters the history");
    typed(&mut s, "kim");
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.screen.history_visible().len(), 105);
    let screen = render(&s, 80, 24);
    assert!(screen.contains("105 of 210 · /kim"), "{screen}");
    // Enter reopens the row shown, not the row of the same number in the whole history.
    let (_, call) = only_call(&key(&mut s, KeyCode::Enter));
    assert_eq!(call, Call::Screening("scr_0001".into()));
}

#[test]
fn slash_filters_the_results_being_reviewed() {
    use crate::api::screening::{Match, ScreenResult};
    let mut s = state();
    typed(&mut s, "Mohammed");
    let (id, _) = only_call(&key(&mut s, KeyCode::Enter));
    let m = |name: &str, list: crate::model::ListCode, n: usize| {
        let mut m: Match = serde_json::from_value(serde_json::json!({
            "entity_id": format!("{}:{n}", list.code()),
            "list_code": list.code(),
            "list": "x",
            "name": name,
            "matched_name": name,
            "type": "individual",
            "kind": "individual",
            "country": null,
            "score": 90,
            "explanation": [],
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        m.group = None;
        m
    };
    let results = vec![
        m("Mohammed Ali", crate::model::ListCode::Un, 1),
        m("Mohammed Omar", crate::model::ListCode::OfacSdn, 2),
        m("Mohammed Said", crate::model::ListCode::Un, 3),
    ];
    let response = crate::api::screenings::ScreeningResponse {
        id: "scr_1".into(),
        result: ScreenResult {
            query: "Mohammed".into(),
            total_matches: 3,
            results,
            coverage: None,
        },
    };
    update(
        &mut s,
        Action::Done(id, Box::new(Outcome::Screened(Ok(response)))),
    );
    key(&mut s, KeyCode::Down); // into the results: REVIEW
    key(&mut s, KeyCode::Char('/'));
    typed(&mut s, "omar");
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.screen.visible().len(), 1);
    assert_eq!(
        s.screen.current().map(|m| m.name.as_str()),
        Some("Mohammed Omar")
    );
}

#[test]
fn list_downloads_are_off_until_enabled_and_never_offline() {
    let mut s = state();
    s.lists.can_run = true;
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Char('4'));
    assert!(key(&mut s, KeyCode::Char('u')).is_empty());
    let Some(super::state::Message::Error(e)) = &s.status.message else {
        panic!("{:?}", s.status.message)
    };
    assert!(e.contains("downloads = true"), "{e}");
    s.net.downloads = true;
    let (_, call) = only_call(&key(&mut s, KeyCode::Char('u')));
    assert!(matches!(call, Call::RunLists(_)), "{call:?}");
    s.lists.job = None;
    s.net.offline = true;
    assert!(key(&mut s, KeyCode::Char('u')).is_empty());
    assert_eq!(s.tab, Tab::Lists);
}

#[test]
fn a_failed_imports_reason_is_readable_at_80_columns() {
    let mut s = state();
    let why = "eu/20220318-FULL-1_1(xsd).xml line 18342: unexpected end of file inside <nameAlias>; the list keeps its previous version";
    let failed = crate::api::lists::UpdateInfo {
        update_id: 2,
        list_code: crate::model::ListCode::Eu,
        list_name: "EU Consolidated".into(),
        at: "2026-11-25T10:00:00Z".into(),
        origin: "import /data/lists".into(),
        files: Vec::new(),
        published: None,
        added: 0,
        removed: 0,
        changed: 0,
        total: 0,
        notes: Vec::new(),
        failed: Some(why.into()),
    };
    s.tab = Tab::Lists;
    s.lists.updates = Some((crate::model::ListCode::Eu, vec![failed]));
    let screen = render(&s, 80, 24);
    let shown: String = screen
        .lines()
        .map(|l| l.trim_matches(|c| c == '"' || c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(shown.contains("Why it failed"), "{screen}");
    assert!(
        shown.contains("unexpected end of file inside <nameAlias>; the list"),
        "{screen}"
    );
    assert!(shown.contains("keeps its previous version"), "{screen}");
}

#[test]
fn y_copies_a_new_webhooks_secret_before_and_after_the_reload() {
    let hook = |id: &str, secret: Option<&str>| crate::api::webhooks::Webhook {
        id: id.into(),
        url: "https://example.org/hook".into(),
        events: vec!["screening.match".into()],
        description: None,
        active: true,
        disabled_reason: None,
        created_at: String::new(),
        updated_at: String::new(),
        pending: 0,
        secret: secret.map(str::to_owned),
    };
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    let (id, _) = only_call(&key(&mut s, KeyCode::Char('7')));
    let old = Outcome::Webhooks(Ok(vec![hook("wh_old", None)]));
    update(&mut s, Action::Done(id, Box::new(old)));
    key(&mut s, KeyCode::Char('a'));
    typed(&mut s, "https://example.org/hook");
    key(&mut s, KeyCode::Enter);
    let (id, _) = only_call(&key(&mut s, KeyCode::Enter));
    let saved = Outcome::WebhookSaved(Ok(hook("wh_new", Some("whsec_abc"))));
    let (reload, _) = only_call(&update(&mut s, Action::Done(id, Box::new(saved))));
    // The list is not reloaded yet: the cursor is on the old webhook, y copies the secret.
    key(&mut s, KeyCode::Char('y'));
    assert_eq!(s.clipboard.take().as_deref(), Some("whsec_abc"));
    let both = Outcome::Webhooks(Ok(vec![hook("wh_old", None), hook("wh_new", None)]));
    update(&mut s, Action::Done(reload, Box::new(both)));
    assert_eq!(s.webhooks.selected, 1, "the cursor on the new webhook");
    key(&mut s, KeyCode::Char('y'));
    assert_eq!(s.clipboard.take().as_deref(), Some("whsec_abc"));
}

fn render(s: &State, width: u16, height: u16) -> String {
    let backend = ratatui::backend::TestBackend::new(width, height);
    let mut terminal = ratatui::Terminal::new(backend).unwrap_or_else(|e| panic!("{e}"));
    terminal
        .draw(|frame| super::view::render(frame, s))
        .unwrap_or_else(|e| panic!("{e}"));
    terminal.backend().to_string()
}

/// A stored screening of "Vladimir Putin" with one match, on the Screen tab, the match
/// selected (REVIEW).
fn screened_putin() -> State {
    use crate::api::screening::{Match, ScreenResult};
    let mut s = state();
    typed(&mut s, "Vladimir Putin");
    let (id, _) = only_call(&key(&mut s, KeyCode::Enter));
    let m: Match = serde_json::from_value(serde_json::json!({
        "entity_id": "ofac_sdn:35096",
        "list_code": "ofac_sdn",
        "list": "OFAC SDN",
        "name": "PUTIN, Vladimir Vladimirovich",
        "matched_name": "Vladimir Putin",
        "type": "individual",
        "kind": "individual",
        "country": "RU",
        "score": 100,
        "explanation": [],
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let response = crate::api::screenings::ScreeningResponse {
        id: "scr_01KPUTIN".into(),
        result: ScreenResult {
            query: "Vladimir Putin".into(),
            total_matches: 1,
            results: vec![m],
            coverage: None,
        },
    };
    update(
        &mut s,
        Action::Done(id, Box::new(Outcome::Screened(Ok(response)))),
    );
    key(&mut s, KeyCode::Down);
    s
}

/// A log entry of the screening above.
fn entry(id: i64, actor: &str, to: &str, proposed: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "id": id, "screening_id": "scr_01KPUTIN", "entity_id": "ofac_sdn:35096",
        "from": if id == 1 { "pending_review" } else { "proposed" }, "to": to,
        "note": format!("{actor}: same date of birth"), "actor": actor,
        "at": "2026-11-26T01:30:00Z", "proposed": proposed,
        "proposal_id": if id == 1 { None } else { Some(1) },
    })
}

#[test]
fn four_eyes_the_detail_shows_the_proposal_and_c_confirms_it_after_the_question() {
    use crate::api::screenings::{DecisionResponse, Verdict, VerdictResponse};
    use crate::model::ReviewStatus;
    let mut s = screened_putin();
    // The first reviewer's true match, through the confirmation, answered as a proposal.
    key(&mut s, KeyCode::Char('t'));
    typed(&mut s, "same date of birth");
    key(&mut s, KeyCode::Enter);
    let (id, _) = only_call(&key(&mut s, KeyCode::Char('y')));
    let proposal = serde_json::from_value(entry(1, "alice", "proposed", Some("true_match")))
        .unwrap_or_else(|e| panic!("{e}"));
    let answer = Outcome::Decided(Ok(DecisionResponse {
        decision: proposal,
        status: ReviewStatus::Proposed,
    }));
    update(&mut s, Action::Done(id, Box::new(answer)));
    key(&mut s, KeyCode::Enter); // the match's detail
    let wide = render(&s, 120, 40);
    assert!(
        wide.contains("true_match proposed by alice, awaiting a second reviewer"),
        "{wide}"
    );
    insta::assert_snapshot!("four_eyes_detail_proposed_120x40", wide);
    insta::assert_snapshot!("four_eyes_detail_proposed_80x24", render(&s, 80, 24));
    // The second reviewer: c, a note, then the same y/n question naming what is confirmed.
    key(&mut s, KeyCode::Char('c'));
    typed(&mut s, "agreed");
    key(&mut s, KeyCode::Enter);
    let hint = s
        .prompt
        .as_ref()
        .and_then(|p| p.hint.clone())
        .unwrap_or_default();
    assert!(
        hint.contains("true_match by alice") && hint.contains("ofac_sdn:35096"),
        "{hint}"
    );
    let (id, call) = only_call(&key(&mut s, KeyCode::Char('y')));
    let Call::Verdict(screening, request) = call else {
        panic!("{call:?}")
    };
    assert_eq!(screening, "scr_01KPUTIN");
    assert_eq!(request.verdict, Verdict::Confirm);
    assert_eq!(request.entity_id.as_deref(), Some("ofac_sdn:35096"));
    let confirmed = serde_json::from_value(entry(2, "bob", "true_match", Some("true_match")))
        .unwrap_or_else(|e| panic!("{e}"));
    let answer = Outcome::Verdict(Ok(VerdictResponse {
        decisions: vec![confirmed],
        status: ReviewStatus::TrueMatch,
    }));
    update(&mut s, Action::Done(id, Box::new(answer)));
    let after = render(&s, 120, 40);
    assert!(!after.contains("awaiting a second reviewer"), "{after}");
    assert!(after.contains("bob"), "{after}");
    // Nothing waits any more: x says so and asks nothing.
    assert!(key(&mut s, KeyCode::Char('x')).is_empty());
    assert!(s.prompt.is_none());
}

#[test]
fn four_eyes_a_rejection_not_confirmed_records_nothing() {
    let mut s = screened_putin();
    key(&mut s, KeyCode::Char('x'));
    assert!(s.prompt.is_none(), "no proposal: no prompt");
    let mut shown = s.screen.shown.take().unwrap_or_else(|| panic!("shown"));
    shown.decisions = vec![
        serde_json::from_value(entry(1, "alice", "proposed", Some("false_positive")))
            .unwrap_or_else(|e| panic!("{e}")),
    ];
    s.screen.shown = Some(shown);
    key(&mut s, KeyCode::Char('x'));
    typed(&mut s, "different person");
    key(&mut s, KeyCode::Enter);
    assert!(s.prompt.as_ref().is_some_and(|p| p.yes_no()));
    assert!(key(&mut s, KeyCode::Char('n')).is_empty());
    assert!(s.prompt.is_none());
}

/// The watchlist add form asks the name, then the date of birth and the country (both
/// optional, Enter skips), then the note; the request carries what was typed.
#[test]
fn the_watchlist_add_form_asks_date_of_birth_and_country() {
    let mut s = state();
    s.tab = Tab::Watchlist;
    key(&mut s, KeyCode::Char('a'));
    typed(&mut s, "Vladimir Putin");
    key(&mut s, KeyCode::Enter);
    typed(&mut s, "1952-10-07");
    insta::assert_snapshot!("watchlist_add_dob_80x24", render(&s, 80, 24));
    key(&mut s, KeyCode::Enter);
    typed(&mut s, "RU");
    insta::assert_snapshot!("watchlist_add_country_80x24", render(&s, 80, 24));
    key(&mut s, KeyCode::Enter);
    let (_, call) = only_call(&key(&mut s, KeyCode::Enter));
    let Call::AddFavorite(request) = call else {
        panic!("{call:?}")
    };
    assert_eq!(request.name, "Vladimir Putin");
    assert_eq!(request.date_of_birth.as_deref(), Some("1952-10-07"));
    assert_eq!(request.country.as_deref(), Some("RU"));
    assert_eq!(request.note, None);

    // Both skipped: neither is sent.
    key(&mut s, KeyCode::Char('a'));
    typed(&mut s, "Ann Other");
    for _ in 0..3 {
        key(&mut s, KeyCode::Enter);
    }
    let (_, call) = only_call(&key(&mut s, KeyCode::Enter));
    let Call::AddFavorite(request) = call else {
        panic!("{call:?}")
    };
    assert_eq!((request.date_of_birth, request.country), (None, None));
}
