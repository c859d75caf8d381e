//! `sanctions`: screening of people and companies against the official sanctions lists.
//!
//! This crate holds the faces; the layers below them are the workspace's crates
//! (`docs/architecture.md`): `sanctions-model` (domain types), `sanctions-engine` (the
//! screening index), `sanctions-sources` (the parsers), `sanctions-store` (the store),
//! `sanctions-api` (wire types) and `sanctions-service` (the one interface every face uses).
//!
//! - [`remote`]: the `Service` over HTTP, a client of `sanctions serve`.
//! - [`server`]: `sanctions serve`, the HTTP interface (axum) over the service, with keys and plans.
//! - [`cli`]: the command-line face: argument definitions and command runners.
//! - [`tui`]: the terminal UI (seven tabs), opened by `sanctions` with no subcommand.

// The lower crates under the names their modules had in the single crate.
use sanctions_api as api;
use sanctions_model as model;
use sanctions_model::sanitize;
use sanctions_service as service;
use sanctions_service::{batch, config, coverage, fetch, files, ingest, webhooks};

pub mod cli;
pub mod remote;
pub mod server;
pub mod tui;
