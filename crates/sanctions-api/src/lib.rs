//! Wire types of the HTTP interface (`/api/v1`), shared by the server, the remote client and
//! the CLI's `--json` output so that they cannot drift apart.

use sanctions_model as model;

pub mod alerts;
pub mod audit_csv;
pub mod batch;
pub mod briefs;
pub mod coverage;
pub mod entities;
pub mod envelope;
pub mod favorites;
pub mod integral;
pub mod lists;
pub mod routes;
pub mod schema;
pub mod screening;
pub mod screenings;
pub use sanctions_model::time;
pub mod webhooks;

pub use envelope::Envelope;
