//! [`App`]: the state, the effect runner and the channel of results, wired together. The
//! terminal loop and the tests drive the UI through it the same way.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::action::Action;
use super::runner::{Runner, Warmup};
use super::state::State;
use super::update::{init, update};
use crate::service::Service;

/// The running UI without its terminal.
pub struct App {
    pub state: State,
    runner: Runner,
    rx: UnboundedReceiver<Action>,
}

impl App {
    /// A UI on `service` in `mode` (`LOCAL` or `REMOTE host`); its start effects (index
    /// warm-up, lists, open alerts) are sent at once. Call inside a tokio runtime.
    pub fn start(
        service: Arc<dyn Service>,
        mode: &str,
        warmup: Option<Warmup>,
        now: jiff::Timestamp,
    ) -> App {
        let (tx, rx) = unbounded_channel();
        let mut app = App {
            state: State::new(mode, now),
            runner: Runner::new(service, tx, warmup),
            rx,
        };
        let effects = init(&mut app.state);
        for effect in effects {
            app.runner.run(effect);
        }
        app
    }

    /// Lets the Lists tab update and import the lists with `tool` (local mode).
    pub fn set_lists_tool(&mut self, tool: super::lists_job::ListsTool) {
        self.runner.set_lists_tool(tool);
        self.state.lists.can_run = true;
    }

    /// Applies `action` and starts the effects it asks for.
    pub fn handle(&mut self, action: Action) {
        for effect in update(&mut self.state, action) {
            self.runner.run(effect);
        }
    }

    /// The next result of the runner.
    pub async fn next(&mut self) -> Option<Action> {
        self.rx.recv().await
    }

    /// Applies results until no work runs (or `limit` passes): for tests and scripts.
    pub async fn settle(&mut self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self.state.busy() {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(action)) => self.handle(action),
                _ => break,
            }
        }
    }
}
