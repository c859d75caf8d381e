//! The terminal UI: seven tabs over the [`crate::service::Service`] trait, Elm-style.
//!
//! - [`state`]: the one `State`, holding each tab's own state ([`page_state`]); [`action`]:
//!   `Action`s in, `Effect`s out; [`queue`]: what a page asks of the rest of the UI (another
//!   tab, a screening opened), drained by `update`, so that no page imports another.
//! - [`update`]: `update(&mut State, Action) -> Vec<Effect>`, no I/O.
//! - [`keymap`]: the single table of keys (handling, help, hints, README table).
//! - [`runner`]: performs effects on tokio, results tagged with request ids.
//! - [`app`]: state + runner + result channel; [`run`]: the terminal and the event loop.
//! - [`view`], [`pages`], [`widgets`], [`theme`]: drawing, reading the state only.
//! - [`text`]: sanitising and width-aware truncation of list text; [`markdown`]: brief
//!   bodies as styled lines.

pub mod action;
pub mod app;
pub mod complete;
pub mod coverage;
pub mod filter;
pub mod keymap;
pub mod lists_job;
pub mod markdown;
pub mod mouse;
pub mod page_state;
pub mod pages;
pub mod queue;
pub mod remap;
pub mod run;
pub mod runner;
pub mod settings;
pub mod state;
pub mod tab;
pub mod tables;
pub mod text;
pub mod theme;
pub mod update;
pub mod view;
pub mod widgets;

use std::sync::Arc;

pub use app::App;
pub use run::restore;

use crate::service::{Background, Service};

/// Opens the UI on any `service` (local, or the remote client of `--remote`) and runs it
/// until the user quits, on a new tokio runtime. The status bar's mode comes from
/// [`Service::mode`]; `warmup` builds a local index in the background (`None` for remote);
/// `settings` come from the config's `[ui]`.
pub fn start(
    service: Arc<dyn Service>,
    warmup: Option<runner::Warmup>,
    settings: settings::Settings,
) -> std::io::Result<()> {
    start_with(service, warmup, settings, || None)
}

/// [`start`], with `background` started on the UI's runtime before the first frame and
/// aborted after the last.
fn start_with(
    service: Arc<dyn Service>,
    warmup: Option<runner::Warmup>,
    settings: settings::Settings,
    background: impl FnOnce() -> Option<Background>,
) -> std::io::Result<()> {
    let mode = mode_label(&service.mode());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let background = background();
        let mut app = App::start(service, &mode, warmup, jiff::Timestamp::now());
        let tool = settings.lists_tool.clone();
        settings.apply(&mut app.state);
        if let Some(tool) = tool {
            app.set_lists_tool(tool);
        }
        let result = run::run(app).await;
        // Quitting does not wait for the background work: dropping it aborts the tasks, and
        // a delivery or re-screen cut short is redone at the next start (pending webhook
        // events stay in the outbox; each store write is one transaction).
        drop(background);
        result
    });
    // Do not wait for background work the user chose to leave (an index build, a slow read):
    // a store write in flight is one SQLite transaction, whole or not at all.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}

/// `LOCAL`, or `REMOTE host[:port]` (never the path or credentials of the URL).
pub fn mode_label(mode: &crate::service::ServiceMode) -> String {
    match mode {
        crate::service::ServiceMode::Local => "LOCAL".to_owned(),
        crate::service::ServiceMode::Remote { url } => {
            let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
            let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            format!("REMOTE {}", text::sanitize(host))
        }
    }
}

/// Opens the UI on the local service (`LOCAL` mode); the screening index is built in the
/// background while the first frame is already on screen, and the watchlist monitoring,
/// webhook delivery and feeds of `config` run while the UI is open (a failure to start them
/// is logged, never fatal: the UI works without them).
pub fn start_local(
    service: crate::service::LocalService,
    config: &crate::config::Config,
    settings: settings::Settings,
) -> std::io::Result<()> {
    let warmup = local_warmup(&service);
    let worker = service.clone();
    let offline = settings.offline;
    let config = network_config(config, &settings);
    // The service reads the feeds of this config on `u` in Briefs too, also when the
    // background work cannot start.
    if let Err(e) = service.configure(&config) {
        tracing::warn!(error = %e, "config not applied to the service");
    }
    start_with(
        Arc::new(service),
        Some(warmup),
        settings,
        move || match spawn(&worker, &config, offline) {
            Ok(background) => Some(background),
            Err(e) => {
                tracing::warn!(error = %e, "background work not started");
                None
            }
        },
    )
}

/// The background work of the UI: without webhook deliveries under `[ui] offline = true`.
fn spawn(
    service: &crate::service::LocalService,
    config: &crate::config::Config,
    offline: bool,
) -> Result<Background, crate::service::ServiceError> {
    if offline {
        service.spawn_background_offline(config)
    } else {
        service.spawn_background(config)
    }
}

/// `config` with the briefs' feeds left out unless `[ui] feeds = true` (and never under
/// `[ui] offline = true`): the UI contacts no website unless the user configured it.
pub fn network_config(
    config: &crate::config::Config,
    settings: &settings::Settings,
) -> crate::config::Config {
    let mut config = config.clone();
    if !settings.feeds || settings.offline {
        config.briefs.feeds.clear();
    }
    config
}

/// The background index build of a local service.
pub fn local_warmup(service: &crate::service::LocalService) -> runner::Warmup {
    let warm = service.clone();
    Box::new(move || warm.warm_up().map_err(|e| e.to_string()))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_mouse;
#[cfg(test)]
mod tests_review;
#[cfg(test)]
mod tests_tabs;
