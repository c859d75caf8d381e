//! The service layer: one async interface ([`Service`]) over engine, store and sources, which
//! every face (CLI, terminal UI, HTTP server) uses; [`LocalService`] is its in-process
//! implementation. [`mapping`] turns engine results into wire types.

mod api;
mod error;
pub mod local;
pub mod mapping;
pub mod query;

pub use api::{RateLimit, Service, ServiceMode};
pub use error::ServiceError;
pub use local::{Background, LocalService};
