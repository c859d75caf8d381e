//! The mouse, when `[ui] mouse = true`: the wheel moves like the arrow keys, a click on the
//! tab bar switches tabs, and a click on a row of a tab's table (Screen results, Batch
//! results, Lists, Watchlist, Alerts, Briefs, Webhooks) selects it. Off (the default), mouse events are not even asked of the terminal, so
//! its own text selection keeps working.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::action::{Effect, Slot};
use super::pages::screen::{Focus, View};
use super::pages::webhooks::extra_lines;
use super::queue::InternalEvent;
use super::state::{State, Tab};

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
    let key = |code| InternalEvent::Key(KeyEvent::new(code, KeyModifiers::NONE));
    match event.kind {
        MouseEventKind::ScrollDown => state.queue.push(key(KeyCode::Down)),
        MouseEventKind::ScrollUp => state.queue.push(key(KeyCode::Up)),
        MouseEventKind::Down(MouseButton::Left) if state.prompt.is_none() && !state.help => {
            if event.row == 0 {
                if let Some(tab) = tab_at(event.column, width) {
                    state.queue.push(InternalEvent::SwitchTab(tab));
                }
            } else if let Some(row) = row_at(state, event.row, height) {
                select(state, row);
            }
        }
        _ => {}
    }
    Vec::new()
}
