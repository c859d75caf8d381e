//! The terminal UI: seven tabs over the [`crate::service::Service`] trait, Elm-style.
//!
//! - [`state`]: the one `State`; [`action`]: `Action`s in, `Effect`s out.
//! - [`update`]: `update(&mut State, Action) -> Vec<Effect>`, no I/O.
//! - [`keymap`]: the single table of keys (handling, help, hints, README table).
//! - [`runner`]: performs effects on tokio, results tagged with request ids.
//! - [`app`]: state + runner + result channel; [`run`]: the terminal and the event loop.
//! - [`view`], [`pages`], [`widgets`], [`theme`]: drawing, reading the state only.
//! - [`text`]: sanitising and width-aware truncation of list text.

pub mod action;
pub mod app;
pub mod keymap;
pub mod pages;
pub mod run;
pub mod runner;
pub mod state;
pub mod text;
pub mod theme;
pub mod update;
pub mod view;
pub mod widgets;

use std::sync::Arc;

pub use app::App;
pub use run::restore;

use crate::service::Service;

/// Opens the UI on `service` and runs it until the user quits, on a new tokio runtime.
pub fn start(
    service: Arc<dyn Service>,
    mode: &str,
    warmup: Option<runner::Warmup>,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let app = App::start(service, mode, warmup, jiff::Timestamp::now());
        run::run(app).await
    })
}

/// Opens the UI on the local service (`LOCAL` mode); the screening index is built in the
/// background while the first frame is already on screen.
pub fn start_local(service: crate::service::LocalService) -> std::io::Result<()> {
    let warmup = local_warmup(&service);
    start(Arc::new(service), "LOCAL", Some(warmup))
}

/// The background index build of a local service.
pub fn local_warmup(service: &crate::service::LocalService) -> runner::Warmup {
    let warm = service.clone();
    Box::new(move || warm.current().map(|_| ()).map_err(|e| e.to_string()))
}

#[cfg(test)]
mod tests;
