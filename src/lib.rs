//! `sanctions`: screening of people and companies against the official sanctions lists.
//!
//! Layers, from the core outwards (arrows point at what a layer may use):
//!
//! - [`model`]: domain types (lists, entities, names, dates, countries); depends on nothing.
//! - [`sources`]: parsers of the eight official publication formats; files in, records out.
//! - [`store`]: the SQLite store: lists, entities, names, update records; all SQL lives here.
//! - [`engine`]: the in-memory screening index and scorer, built from records, never the store.
//! - [`batch`]: batch inputs (CSV, lines, JSON) screened on all cores, in input order.
//! - [`fetch`]: downloads of the official files (conditional, bounded, retried).
//! - [`ingest`]: imports: parse each list's files, replace it in the store, report per list.
//! - [`quality`]: match quality measured on a labelled query set (recall, false positives).
//! - [`service`]: the one async interface every face uses, and its local implementation.
//! - [`grouping`]: one person's or organisation's entries on several lists grouped under one.
//! - [`coverage`]: what a screening was checked against, from the store's list summaries.
//! - [`sanitize`]: terminal-safe text from lists and inputs.
//! - [`api`]: wire types of the HTTP interface, shared by every face that speaks JSON.
//! - [`config`]: the TOML configuration file and the data directory.
//! - [`webhooks`]: Standard Webhooks signing, URL safety, retry schedule, the delivery worker.
//! - [`briefs`]: risk briefs from list updates and from the publishers' RSS/Atom feeds.
//! - [`remote`]: the `Service` over HTTP, a client of `sanctions serve`.
//! - [`server`]: `sanctions serve`, the HTTP interface (axum) over the service, with keys and plans.
//! - [`cli`]: the command-line face: argument definitions and command runners.
//! - [`tui`]: the terminal UI (seven tabs), opened by `sanctions` with no subcommand.

pub mod api;
pub mod batch;
pub mod briefs;
pub mod cli;
pub mod config;
pub mod coverage;
pub mod engine;
pub mod fetch;
pub mod files;
pub mod grouping;
pub mod ingest;
pub mod model;
pub mod quality;
pub mod remote;
pub mod sanitize;
pub mod server;
pub mod service;
pub mod sources;
pub mod store;
#[cfg(test)]
mod testutil;
pub mod tui;
pub mod webhooks;
