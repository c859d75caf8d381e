//! List changes told to every instance: an import sends `NOTIFY` on [`LIST_CHANNEL`] in its
//! transaction (PostgreSQL delivers it at the commit, never for a rollback), and
//! [`PostgresRepository::watch_lists`] keeps a connection of its own listening, so an
//! instance hears of a new list version within milliseconds and rebuilds its index before
//! its next screening asks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use super::connect::{Connector, PostgresRepository};

/// The channel of list changes; the payload is the new update's id.
pub(super) const LIST_CHANNEL: &str = "sanctions_lists";

/// How often the listener looks up from waiting (to stop, or to notice a lost connection).
const POLL: Duration = Duration::from_millis(250);

/// How long after a failed connection the listener tries again.
const RECONNECT: Duration = Duration::from_secs(1);

/// A running listener; dropping it stops the thread within [`POLL`].
#[derive(Debug)]
pub struct ListChanges {
    stop: Arc<AtomicBool>,
}

impl Drop for ListChanges {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl PostgresRepository {
    /// Calls `on_change` whenever an import commits in any process on this database, and
    /// once after every (re)connection (a change may have been missed while disconnected).
    pub fn watch_lists(&self, on_change: impl Fn() + Send + 'static) -> ListChanges {
        let stop = Arc::new(AtomicBool::new(false));
        let (connect, flag) = (self.connector(), Arc::clone(&stop));
        let spawned = std::thread::Builder::new()
            .name("pg-list-listener".into())
            .spawn(move || listen(&connect, &flag, &on_change));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the list-change listener");
        }
        ListChanges { stop }
    }
}

fn listen(connect: &Connector, stop: &AtomicBool, on_change: &dyn Fn()) {
    while !stop.load(Ordering::SeqCst) {
        let mut client = match connect() {
            Ok(client) => client,
            Err(e) => {
                tracing::warn!(error = %e, "list-change listener: no connection; retrying");
                std::thread::sleep(RECONNECT);
                continue;
            }
        };
        if let Err(e) = client.batch_execute(&format!("LISTEN {LIST_CHANNEL}")) {
            tracing::warn!(error = %e, "list-change listener: LISTEN failed; retrying");
            std::thread::sleep(RECONNECT);
            continue;
        }
        on_change();
        wait_for_changes(&mut client, stop, on_change);
    }
}

/// Calls `on_change` once per burst of notifications, until stopped or disconnected.
fn wait_for_changes(client: &mut postgres::Client, stop: &AtomicBool, on_change: &dyn Fn()) {
    while !stop.load(Ordering::SeqCst) {
        let heard = client.notifications().timeout_iter(POLL).next();
        match heard {
            Ok(Some(_)) => {
                // Several imports at once: one rebuild covers them all.
                let mut pending = client.notifications();
                while let Ok(Some(_)) = pending.iter().next() {}
                on_change();
            }
            Ok(None) if client.is_closed() => return,
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, "list-change listener: connection lost; reconnecting");
                return;
            }
        }
    }
}
