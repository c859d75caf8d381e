//! The mouse, when `[ui] mouse = true`: the wheel moves like the arrow keys, a click on the
//! tab bar switches tabs, and a click on a row of the Lists, Watchlist, Alerts or Briefs
//! table selects it. Off (the default), mouse events are not even asked of the terminal, so
//! its own text selection keeps working.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::action::{Action, Effect};
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

/// The row of the current tab's table drawn at line `y` of a terminal `height` lines high,
/// if that tab's table starts at the top of the body (border, header, then rows) and `y`
/// is one of its rows.
fn row_at(state: &State, y: u16, height: u16) -> Option<usize> {
    // Tab bar (1), status bar (2); the table's border and header take 2 more lines above
    // its rows and 1 below them.
    let (selected, len, below) = match state.tab {
        Tab::Lists if state.lists.updates.is_none() && state.lists.loaded => {
            let empty = state.lists.lists.iter().all(|x| x.count == 0);
            (
                state.lists.selected,
                state.lists.lists.len(),
                if empty { 7 } else { 4 },
            )
        }
        Tab::Watchlist => (state.watchlist.selected, state.watchlist.items.len(), 0),
        Tab::Alerts => (state.alerts.selected, state.alerts.items.len(), 0),
        Tab::Briefs if !state.briefs.open => (state.briefs.selected, state.briefs.items.len(), 0),
        _ => return None,
    };
    let visible = height.checked_sub(1 + 2 + below + 3)? as usize;
    let line = usize::from(y.checked_sub(3)?);
    if visible == 0 || line >= visible {
        return None;
    }
    // The table scrolls just enough to show the selected row (ratatui's offset from 0).
    let first = (selected + 1).saturating_sub(visible);
    let row = first + line;
    (row < len).then_some(row)
}

fn select(state: &mut State, row: usize) {
    match state.tab {
        Tab::Lists => state.lists.selected = row,
        Tab::Watchlist => state.watchlist.selected = row,
        Tab::Alerts => state.alerts.selected = row,
        Tab::Briefs => state.briefs.selected = row,
        _ => {}
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
        let mut state = State::new("LOCAL", jiff::Timestamp::UNIX_EPOCH);
        state.mouse = true;
        state.tab = Tab::Lists;
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
}
