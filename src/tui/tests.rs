//! `update` tests: no runtime, no database, no terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, Call, Effect, Outcome};
use super::state::{PromptKind, State, Tab};
use super::update::{init, update};
use crate::api::screening::{ScreenRequest, ScreenResult};
use crate::api::screenings::{Page, ScreeningResponse};
use crate::model::Decision;

fn state() -> State {
    let mut s = State::new("LOCAL", jiff::Timestamp::UNIX_EPOCH);
    init(&mut s);
    s
}

fn key(s: &mut State, code: KeyCode) -> Vec<Effect> {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn typed(s: &mut State, text: &str) {
    for c in text.chars() {
        key(s, KeyCode::Char(c));
    }
}

/// Types `name`, presses Enter and answers the screening it sent with `outcome`.
fn screen(s: &mut State, name: &str, outcome: Outcome) {
    typed(s, name);
    let Effect::Call(id, _) = key(s, KeyCode::Enter).remove(0) else {
        panic!("Enter did not screen {name:?}")
    };
    update(s, Action::Done(id, Box::new(outcome)));
}

/// The decision the open prompt asks a note for, if it is one.
fn asked_decision(s: &State) -> Option<Decision> {
    match s.prompt.as_ref().map(|p| &p.kind) {
        Some(PromptKind::Decide { decision, .. }) => Some(*decision),
        _ => None,
    }
}

fn screened(id: &str, query: &str) -> Outcome {
    Outcome::Screened(Ok(ScreeningResponse {
        id: id.into(),
        result: ScreenResult {
            query: query.into(),
            total_matches: 0,
            results: Vec::new(),
            coverage: None,
        },
    }))
}

#[test]
fn enter_in_the_name_field_screens_what_was_typed_and_q_is_typed_not_quit() {
    let mut s = state();
    typed(&mut s, "Qasim 1");
    assert!(!s.quit);
    let effects = key(&mut s, KeyCode::Enter);
    let [Effect::Call(_, Call::Screen(request))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(request, &ScreenRequest::new("Qasim 1"));
}

#[test]
fn an_empty_name_is_not_sent() {
    let mut s = state();
    assert!(key(&mut s, KeyCode::Enter).is_empty());
    assert!(s.screen.error.is_some());
}

#[test]
fn a_stale_result_is_dropped() {
    let mut s = state();
    typed(&mut s, "a");
    let Effect::Call(first, _) = key(&mut s, KeyCode::Enter).remove(0) else {
        panic!()
    };
    let Effect::Call(second, _) = key(&mut s, KeyCode::Enter).remove(0) else {
        panic!()
    };
    update(
        &mut s,
        Action::Done(first, Box::new(screened("scr_old", "old"))),
    );
    assert!(s.screen.shown.is_none(), "the older result must be dropped");
    update(
        &mut s,
        Action::Done(second, Box::new(screened("scr_new", "a"))),
    );
    assert_eq!(
        s.screen.shown.as_ref().map(|x| x.id.as_str()),
        Some("scr_new")
    );
}

#[test]
fn a_decision_needs_a_note() {
    let mut s = state();
    screen(&mut s, "a", screened("scr_1", "a"));
    key(&mut s, KeyCode::Esc); // leave the name field
    assert!(!s.in_text());
    key(&mut s, KeyCode::Char('f'));
    assert!(matches!(
        s.prompt.as_ref().map(|p| &p.kind),
        Some(PromptKind::Decide {
            decision: Decision::FalsePositive,
            ..
        })
    ));
    assert!(key(&mut s, KeyCode::Enter).is_empty());
    assert!(s.prompt.as_ref().is_some_and(|p| p.error.is_some()));
    typed(&mut s, "different birth date");
    // A final decision asks first, naming the screening.
    assert!(key(&mut s, KeyCode::Enter).is_empty());
    let prompt = s.prompt.as_ref().unwrap();
    assert!(matches!(prompt.kind, PromptKind::ConfirmDecide { .. }));
    assert!(
        prompt.hint.as_deref().unwrap().contains("scr_1"),
        "{prompt:?}"
    );
    assert_eq!(s.mode_label(), "CONFIRM");
    let effects = key(&mut s, KeyCode::Char('y'));
    let [Effect::Call(_, Call::Decide(screening, request))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(screening, "scr_1");
    assert_eq!(request.note, "different birth date");
    assert!(s.prompt.is_none());
}

#[test]
fn after_enter_the_next_name_is_typed_not_run_as_commands() {
    let mut s = state();
    screen(
        &mut s,
        "Banco Nacional de Cuba",
        screened_with_match("scr_1", "Banco Nacional de Cuba"),
    );
    assert!(s.in_text(), "the name field keeps the keyboard");
    assert_eq!(s.mode_label(), "TYPING");
    for c in "Tariq Aziz al qaida w".chars() {
        let mods = if c.is_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        let effects = update(&mut s, Action::Key(KeyEvent::new(KeyCode::Char(c), mods)));
        assert!(
            effects.iter().all(|e| matches!(e, Effect::Debounce(_))),
            "{c}: {effects:?}"
        );
    }
    assert!(s.prompt.is_none() && !s.quit);
    assert_eq!(s.screen.name.value(), "Tariq Aziz al qaida w");
    // ↓ enters the results: REVIEW, where letters decide.
    key(&mut s, KeyCode::Down);
    assert_eq!(s.mode_label(), "REVIEW");
}

#[test]
fn esc_read_together_with_the_next_key_is_esc_then_that_key() {
    let mut s = state();
    screen(&mut s, "Banco Nacional de Cuba", screened("scr_1", "Banco"));
    assert_eq!(s.mode_label(), "TYPING");
    let alt = |c| Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT));
    // Esc f: out of the name field, then `f` asks for a false positive's note (nothing
    // recorded without it and a confirmation).
    update(&mut s, alt('f'));
    assert_eq!(
        s.screen.name.value(),
        "Banco Nacional de Cuba",
        "nothing typed"
    );
    assert_eq!(
        asked_decision(&s),
        Some(Decision::FalsePositive),
        "{:?}",
        s.prompt
    );
    // Esc T (Shift held): out of the note, then `T` asks for the whole screening's true
    // match note.
    let alt_shift = KeyModifiers::ALT | KeyModifiers::SHIFT;
    update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Char('T'), alt_shift)),
    );
    assert_eq!(
        asked_decision(&s),
        Some(Decision::TrueMatch),
        "{:?}",
        s.prompt
    );
    // Esc q in the note: the note is dropped, then `q` quits from the results (asking
    // first here: the start's loads are still running).
    update(&mut s, alt('q'));
    let kind = s.prompt.as_ref().map(|p| &p.kind);
    assert!(
        s.quit || matches!(kind, Some(PromptKind::ConfirmQuit)),
        "{:?}",
        s.prompt
    );
}

#[test]
fn a_decision_not_confirmed_records_nothing() {
    let mut s = state();
    screen(&mut s, "a", screened_with_match("scr_1", "a"));
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Char('t'));
    typed(&mut s, "same person");
    key(&mut s, KeyCode::Enter);
    let hint = s.prompt.as_ref().and_then(|p| p.hint.clone()).unwrap();
    assert!(
        hint.contains("BANCO NACIONAL (ent_1)") && hint.contains("scr_1"),
        "{hint}"
    );
    assert!(key(&mut s, KeyCode::Char('n')).is_empty());
    assert!(s.prompt.is_none());
    // Escalation is not final: recorded after its note, without a question.
    key(&mut s, KeyCode::Char('e'));
    typed(&mut s, "ask compliance");
    let effects = key(&mut s, KeyCode::Enter);
    assert!(matches!(
        effects.as_slice(),
        [Effect::Call(_, Call::Decide(..))]
    ));
}

#[test]
fn cr_separated_paste_on_batch_is_one_name_per_line() {
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Char('2'));
    let effects = update(
        &mut s,
        Action::Paste("Vladimir Putin\rJohn Smith\r\nHezbollah\n".into()),
    );
    let [Effect::Call(_, Call::Batch(request))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    let names: Vec<String> = request
        .names
        .iter()
        .map(|n| match n {
            crate::api::batch::BatchName::Typed { name, .. } => name.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["Vladimir Putin", "John Smith", "Hezbollah"]);
}

fn screened_with_match(id: &str, query: &str) -> Outcome {
    let m: crate::api::screening::Match = serde_json::from_value(serde_json::json!({
        "name": "BANCO NACIONAL",
        "matched_name": "BANCO NACIONAL",
        "list_code": "ofac_sdn",
        "list": "OFAC SDN",
        "score": 90,
        "type": "entity",
        "kind": "entity",
        "country": null,
        "explanation": [],
        "entity_id": "ent_1",
    }))
    .unwrap();
    Outcome::Screened(Ok(ScreeningResponse {
        id: id.into(),
        result: ScreenResult {
            query: query.into(),
            total_matches: 1,
            results: vec![m],
            coverage: None,
        },
    }))
}

#[test]
fn esc_never_quits_and_tabs_switch_by_number_and_brackets() {
    let mut s = state();
    for _ in 0..5 {
        key(&mut s, KeyCode::Esc);
    }
    assert!(!s.quit);
    key(&mut s, KeyCode::Char('4'));
    assert_eq!(s.tab, Tab::Lists);
    key(&mut s, KeyCode::Char(']'));
    assert_eq!(s.tab, Tab::Watchlist);
    key(&mut s, KeyCode::Char('['));
    key(&mut s, KeyCode::Char('['));
    assert_eq!(s.tab, Tab::Briefs);
    key(&mut s, KeyCode::Char('7'));
    key(&mut s, KeyCode::Char(']'));
    assert_eq!(s.tab, Tab::Screen);
}

#[test]
fn quitting_while_work_runs_asks_first() {
    let mut s = state(); // lists and alerts are loading
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Char('4'));
    key(&mut s, KeyCode::Char('q'));
    assert!(!s.quit);
    assert!(matches!(
        s.prompt.as_ref().map(|p| &p.kind),
        Some(PromptKind::ConfirmQuit)
    ));
    key(&mut s, KeyCode::Char('y'));
    assert!(s.quit);
}

#[test]
fn paste_arrives_whole_and_sanitised_in_the_focused_field() {
    let mut s = state();
    update(
        &mut s,
        Action::Paste("Vladimir\u{1b}[2J \u{202E}Putin\n".into()),
    );
    assert_eq!(s.screen.name.value(), "Vladimir[2J Putin");
}

#[test]
fn help_opens_and_closes_without_leaving_the_tab() {
    let mut s = state();
    update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::F(1), KeyModifiers::NONE)),
    );
    assert!(s.help);
    key(&mut s, KeyCode::Esc);
    assert!(!s.help);
    assert_eq!(s.tab, Tab::Screen);
}

#[test]
fn history_results_of_a_superseded_request_do_not_land() {
    let mut s = state();
    key(&mut s, KeyCode::Esc);
    let ctrl_r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL);
    let Effect::Call(first, Call::History(None)) = update(&mut s, Action::Key(ctrl_r)).remove(0)
    else {
        panic!()
    };
    let Effect::Call(second, Call::History(None)) = update(&mut s, Action::Key(ctrl_r)).remove(0)
    else {
        panic!()
    };
    let page = |q: &str| {
        Outcome::History(Ok(Page {
            items: vec![summary(q)],
            next_cursor: None,
        }))
    };
    update(&mut s, Action::Done(second, Box::new(page("new"))));
    update(&mut s, Action::Done(first, Box::new(page("old"))));
    assert_eq!(s.screen.history[0].query, "new");
}

fn summary(query: &str) -> crate::api::screenings::ScreeningSummary {
    crate::api::screenings::ScreeningSummary {
        id: format!("scr_{query}"),
        query: query.into(),
        kind: None,
        created_at: jiff::Timestamp::UNIX_EPOCH,
        total_matches: 0,
        best_score: None,
        created_by: "a".into(),
        origin: crate::model::ScreeningOrigin::Single,
        status: crate::model::ReviewStatus::NoMatch,
    }
}

#[test]
fn shift_f_decides_for_the_whole_screening() {
    let mut s = state();
    screen(&mut s, "a", screened("scr_1", "a"));
    key(&mut s, KeyCode::Esc);
    update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Char('F'), KeyModifiers::SHIFT)),
    );
    assert!(matches!(
        s.prompt.as_ref().map(|p| &p.kind),
        Some(PromptKind::Decide {
            entity_id: None,
            decision: Decision::FalsePositive,
            ..
        })
    ));
}
