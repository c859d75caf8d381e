//! The service layer: one async interface ([`Service`]) over engine, store and sources, which
//! every face (CLI, terminal UI, HTTP server) uses; [`LocalService`] is its in-process
//! implementation. [`mapping`] turns engine results into wire types.
//!
//! Beside it, the work the service orchestrates:
//!
//! - [`batch`]: batch inputs (CSV, lines, JSON) screened on all cores, in input order.
//! - [`fetch`]: downloads of the official files (conditional, bounded, retried).
//! - [`ingest`]: imports: parse each list's files, replace it in the store, report per list.
//! - [`grouping`]: one person's or organisation's entries on several lists grouped under one.
//! - [`coverage`]: what a screening was checked against, from the store's list summaries.
//! - [`config`]: the TOML configuration file and the data directory.
//! - [`webhooks`]: Standard Webhooks signing, URL safety, retry schedule, the delivery worker.
//! - [`briefs`]: risk briefs from list updates and from the publishers' RSS/Atom feeds.

// The lower crates under the names their modules had in the single crate.
use sanctions_api as api;
use sanctions_engine as engine;
use sanctions_model as model;
use sanctions_sources as sources;
use sanctions_store as store;

pub use sanctions_store::files;

// What the faces need of the layers below, named here so that they depend on the service
// alone: the screening defaults and bounds of the engine, the store's interface of keys and
// accounts with its error, and the store's summaries that the faces show.
pub use sanctions_engine::{DEFAULT_LIMIT, DEFAULT_THRESHOLD, MAX_LIMIT};
/// The store on a PostgreSQL database shared by several servers: moving a data folder there
/// (`store copy`) and upgrading its schema (`store migrate`).
pub mod shared_store {
    pub use sanctions_store::postgres::{
        CopyReport, PostgresRepository, copy_from_sqlite, copy_to_sqlite, name_connections,
        redacted,
    };
}
pub use sanctions_store::StoreLocation;
pub use sanctions_store::{DEFAULT_ACCOUNT, KeyStore, ListSummary, OpsStats, StoreError, new_id};

pub mod batch;
pub mod briefs;
pub mod config;
pub mod coverage;
mod error;
pub mod fetch;
pub mod grouping;
pub mod ingest;
mod interface;
pub mod keys;
pub mod local;
pub mod maintenance;
pub mod mapping;
pub mod query;
pub mod webhooks;

pub use error::ServiceError;
pub use interface::{RateLimit, Service, ServiceMode};
pub use local::{Background, LocalService};
