//! The mouse, when `[ui] mouse = true`: the wheel moves like the arrow keys, a click on the
//! tab bar switches tabs, and a click on a row of a tab's table (Screen results, Batch
//! results, Lists, Watchlist, Alerts, Briefs, Webhooks) selects it. Off (the default), mouse events are not even asked of the terminal, so
//! its own text selection keeps working.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::action::{Action, Effect, Slot};
use super::pages::screen::{Focus, View};
use super::pages::webhooks::extra_lines;
use super::state::{State, Tab};
use super::update::{switch, update};

/// The tab whose title is at column `x` of the tab bar of a terminal `width` wide (the bar
/// as [`super::view`] draws it).
pub fn tab_at(x: u16, width: u16) -> Option<Tab> {
    let mut left: u16 = if width >= 100 { 11 } else { 0 };
    for tab in Tab::ALL {
        let len = tab.title().chars().count() as u16 + 4;
        if (left..left + len).contains(&x) {
            return Some(tab);
        }
        left += len;
    }
    None
}

/// Where the current tab's table is drawn, when it is: its cursor (`None` while the table
/// shows no cursor), its row count, and the lines of the body above and below it.
struct Placed {
    selected: Option<usize>,
    len: usize,
    above: u16,
    below: u16,
}

/// The current tab's table as its page draws it (see each page's `draw`), if one is shown.
fn placed(state: &State) -> Option<Placed> {
    let at = |selected, len, above, below| {
        Some(Placed {
            selected: Some(selected),
            len,
            above,
            below,
        })
    };
    match state.tab {
        Tab::Screen => {
            let s = &state.screen;
            let busy = state.requests.pending(Slot::Screen) || s.error.is_some();
            s.shown
                .as_ref()
                .filter(|_| s.view == View::Results && !busy)?;
            // The name field (3 lines) is above; the cursor shows only with the focus there.
            Some(Placed {
                selected: (s.focus == Focus::Results).then_some(s.selected),
                len: s.visible().len(),
                above: 3,
                below: 0,
            })
        }
        // The progress gauge (3 lines) is above.
        Tab::Batch => at(state.batch.selected, state.batch.rows().len(), 3, 0),
        Tab::Lists if state.lists.updates.is_none() && state.lists.loaded => {
            let empty = state.lists.lists.iter().all(|x| x.count == 0);
            let below = super::pages::lists::help_height(&state.lists, empty);
            at(state.lists.selected, state.lists.lists.len(), 0, below)
        }
        Tab::Watchlist => at(state.watchlist.selected, state.watchlist.items.len(), 0, 0),
        Tab::Alerts => at(state.alerts.selected, state.alerts.items.len(), 0, 0),
        Tab::Briefs if !state.briefs.open => {
            at(state.briefs.selected, state.briefs.items.len(), 0, 0)
        }
        Tab::Webhooks if !state.webhooks.log => {
            // The test outcome, a new secret or why a hook is off, boxed under the table.
            let extra = extra_lines(&state.webhooks).len() as u16;
            let below = if extra == 0 { 0 } else { extra + 2 };
            at(
                state.webhooks.selected,
                state.webhooks.items.len(),
                0,
                below,
            )
        }
        _ => None,
    }
}

/// The row of the current tab's table drawn at line `y` of a terminal `height` lines high,
/// if `y` is one of its rows.
fn row_at(state: &State, y: u16, height: u16) -> Option<usize> {
    let Placed {
        selected,
        len,
        above,
        below,
    } = placed(state)?;
    // Tab bar (1), status bar (2); the table's border and header take 2 more lines above
    // its rows and 1 below them.
    let visible = height.checked_sub(1 + 2 + above + below + 3)? as usize;
    let line = usize::from(y.checked_sub(3 + above)?);
    if visible == 0 || line >= visible {
        return None;
    }
    // The table scrolls just enough to show the selected row (ratatui's offset from 0).
    let first = selected.map_or(0, |s| (s + 1).saturating_sub(visible));
    let row = first + line;
    (row < len).then_some(row)
}

fn select(state: &mut State, row: usize) {
    match state.tab {
        Tab::Screen => {
            state.screen.focus = Focus::Results;
            state.screen.selected = row;
        }
        Tab::Batch => state.batch.selected = row,
        Tab::Lists => state.lists.selected = row,
        Tab::Watchlist => state.watchlist.selected = row,
        Tab::Alerts => state.alerts.selected = row,
        Tab::Briefs => state.briefs.selected = row,
        Tab::Webhooks => state.webhooks.selected = row,
    }
}

/// Applies a mouse event on a terminal `width` x `height`.
pub fn on_mouse(state: &mut State, event: MouseEvent, width: u16, height: u16) -> Vec<Effect> {
    if !state.mouse {
        return Vec::new();
    }
    let key = |code| Action::Key(KeyEvent::new(code, KeyModifiers::NONE));
    match event.kind {
        MouseEventKind::ScrollDown => update(state, key(KeyCode::Down)),
        MouseEventKind::ScrollUp => update(state, key(KeyCode::Up)),
        MouseEventKind::Down(MouseButton::Left) if state.prompt.is_none() && !state.help => {
            if event.row == 0 {
                return match tab_at(event.column, width) {
                    Some(tab) => switch(state, tab.index()),
                    None => Vec::new(),
                };
            }
            if let Some(row) = row_at(state, event.row, height) {
                select(state, row);
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

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
}
