//! Internal events, as gitui's `queue.rs`: a page (or the mouse) that wants something outside
//! itself (another tab, a stored screening opened on the Screen tab, a key handled as if
//! pressed) pushes an [`InternalEvent`] onto the state's [`Queue`]; [`super::update`] drains
//! the queue after each action and does it. So no page imports another page, the update
//! loop or the mouse: a leaf, below the state and the pages.

use std::collections::VecDeque;

use crossterm::event::KeyEvent;

use super::tab::Tab;

/// What a page asks of the rest of the UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InternalEvent {
    /// Show this tab and load what it shows, as its number key does.
    SwitchTab(Tab),
    /// Show this stored screening on the Screen tab (Enter on a batch row, an alert, a
    /// watched name).
    OpenScreening(String),
    /// Handle this key as if it were pressed (the mouse wheel moves as the arrow keys).
    Key(KeyEvent),
}

/// The events pushed and not yet handled, oldest first.
#[derive(Debug, Default)]
pub struct Queue(VecDeque<InternalEvent>);

impl Queue {
    /// Asks for `event` once the current action is applied.
    pub fn push(&mut self, event: InternalEvent) {
        self.0.push_back(event);
    }

    /// The oldest event not yet handled.
    pub fn pop(&mut self) -> Option<InternalEvent> {
        self.0.pop_front()
    }
}
