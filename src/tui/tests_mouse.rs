//! Mouse tests: each event goes through `update` as the terminal loop sends it. No runtime,
//! no database, no terminal.

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::action::Action;
use super::mouse::tab_at;
use super::pages::screen::Focus;
use super::state::{State, Tab};
use super::update::update;

/// A mouse event on a terminal `width` x `height`, applied as the terminal loop does.
fn on_mouse(state: &mut State, event: MouseEvent, width: u16, height: u16) {
    update(
        state,
        Action::Mouse {
            event,
            width,
            height,
        },
    );
}

fn click(column: u16, row: u16) -> MouseEvent {
    MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }
}

/// A new state with the mouse on, on `tab`.
fn mouse_on(tab: Tab) -> State {
    let mut state = State::new("LOCAL", jiff::Timestamp::UNIX_EPOCH);
    state.mouse = true;
    state.tab = tab;
    state
}

#[test]
fn tab_bar_positions_follow_the_titles() {
    // " 1:Screen " is columns 0-9, " 2:Batch " 10-18, ...
    assert_eq!(tab_at(0, 80), Some(Tab::Screen));
    assert_eq!(tab_at(9, 80), Some(Tab::Screen));
    assert_eq!(tab_at(10, 80), Some(Tab::Batch));
    assert_eq!(tab_at(19, 80), Some(Tab::Briefs));
    assert_eq!(tab_at(5, 120), None); // the " sanctions " badge
    assert_eq!(tab_at(11, 120), Some(Tab::Screen));
    assert_eq!(tab_at(79, 80), None);
}

#[test]
fn clicks_and_wheel_do_nothing_unless_the_mouse_is_on() {
    let mut state = State::new("LOCAL", jiff::Timestamp::UNIX_EPOCH);
    on_mouse(&mut state, click(12, 0), 80, 24);
    assert_eq!(state.tab, Tab::Screen);
    state.mouse = true;
    on_mouse(&mut state, click(12, 0), 80, 24);
    assert_eq!(state.tab, Tab::Batch);
}

#[test]
fn a_click_selects_a_row_and_the_wheel_moves() {
    let mut state = mouse_on(Tab::Lists);
    let lists: Vec<crate::api::lists::ListInfo> = (0..8)
        .map(|i| crate::api::lists::ListInfo {
            list_code: crate::model::ListCode::ALL[i],
            list_name: "x".into(),
            count: 10,
            updated_at: None,
            published: None,
            update_id: None,
        })
        .collect();
    state.lists.set(lists);
    on_mouse(&mut state, click(5, 3 + 4), 80, 24);
    assert_eq!(state.lists.selected, 4);
    on_mouse(&mut state, click(5, 2), 80, 24); // the header
    assert_eq!(state.lists.selected, 4);
    on_mouse(&mut state, click(5, 3 + 9), 80, 24); // below the last row
    assert_eq!(state.lists.selected, 4);
    let wheel = |kind| MouseEvent {
        kind,
        column: 0,
        row: 5,
        modifiers: KeyModifiers::NONE,
    };
    on_mouse(&mut state, wheel(MouseEventKind::ScrollDown), 80, 24);
    assert_eq!(state.lists.selected, 5);
    on_mouse(&mut state, wheel(MouseEventKind::ScrollUp), 80, 24);
    on_mouse(&mut state, wheel(MouseEventKind::ScrollUp), 80, 24);
    assert_eq!(state.lists.selected, 3);
}

fn result(i: usize) -> crate::api::screening::Match {
    serde_json::from_value(serde_json::json!({
        "entity_id": format!("ofac_sdn:{i}"),
        "name": format!("NAME {i}"),
        "matched_name": format!("NAME {i}"),
        "list_code": "ofac_sdn",
        "list": "OFAC SDN",
        "score": 90,
        "type": "individual",
        "kind": "individual",
        "country": null,
        "explanation": [],
    }))
    .expect("a match")
}

#[test]
fn a_click_selects_a_screen_result_and_focuses_the_results() {
    let mut state = mouse_on(Tab::Screen);
    state.screen.shown = Some(crate::tui::pages::screen::Shown {
        id: String::new(),
        query: "name".into(),
        total: 5,
        results: (0..5).map(result).collect(),
        status: None,
        coverage: None,
        decisions: Vec::new(),
        evidence: Default::default(),
    });
    // Tab bar, the name field (3), the table's border and header: rows from line 6.
    on_mouse(&mut state, click(5, 5), 80, 24); // the header
    assert_eq!(state.screen.focus, Focus::Name);
    on_mouse(&mut state, click(5, 6 + 2), 80, 24);
    assert_eq!(state.screen.focus, Focus::Results);
    assert_eq!(state.screen.selected, 2);
    on_mouse(&mut state, click(5, 6 + 5), 80, 24); // below the last row
    assert_eq!(state.screen.selected, 2);
    // While an error is shown instead of the table, a click selects nothing.
    state.screen.error = Some("down".into());
    on_mouse(&mut state, click(5, 6), 80, 24);
    assert_eq!(state.screen.selected, 2);
}

#[test]
fn a_click_selects_a_batch_row_of_those_shown() {
    let mut state = mouse_on(Tab::Batch);
    state.batch.results = (0..4)
        .map(|i| crate::api::batch::BatchResult {
            name: format!("name {i}"),
            matches: i % 2,
            screening_id: format!("scr_{i}"),
            best_score: None,
        })
        .collect();
    // Tab bar, the progress gauge (3), border and header: rows from line 6.
    on_mouse(&mut state, click(5, 6 + 3), 80, 24);
    assert_eq!(state.batch.selected, 3);
    state.batch.hits_only = true; // two rows shown
    state.batch.selected = 0;
    on_mouse(&mut state, click(5, 6 + 3), 80, 24);
    assert_eq!(state.batch.selected, 0);
    on_mouse(&mut state, click(5, 6 + 1), 80, 24);
    assert_eq!(state.batch.selected, 1);
}

#[test]
fn a_click_selects_a_webhook_above_the_lines_under_the_table() {
    let mut state = mouse_on(Tab::Webhooks);
    state.webhooks.loaded = true;
    state.webhooks.items = (0..5)
        .map(|i| crate::api::webhooks::Webhook {
            id: format!("wh_{i}"),
            url: "https://example.com/hook".into(),
            events: vec!["alert.created".into()],
            description: None,
            active: true,
            disabled_reason: None,
            created_at: String::new(),
            updated_at: String::new(),
            pending: 0,
            secret: None,
        })
        .collect();
    // 10 lines: the table shows 4 rows from line 3.
    on_mouse(&mut state, click(5, 3 + 3), 80, 10);
    assert_eq!(state.webhooks.selected, 3);
    on_mouse(&mut state, click(5, 3 + 4), 80, 10); // the border, not a row
    assert_eq!(state.webhooks.selected, 3);
    // A new secret is boxed under the table (3 lines): one row is left, the
    // selected one (the table scrolls to it).
    state.webhooks.secret = Some(("wh_0".into(), "whsec_x".into()));
    on_mouse(&mut state, click(5, 3 + 1), 80, 10);
    assert_eq!(state.webhooks.selected, 3);
    on_mouse(&mut state, click(5, 3), 80, 10);
    assert_eq!(state.webhooks.selected, 3);
    state.webhooks.log = true; // the delivery log has no cursor
    state.webhooks.secret = None;
    on_mouse(&mut state, click(5, 3), 80, 10);
    assert_eq!(state.webhooks.selected, 3);
}
