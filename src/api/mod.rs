//! Wire types of the HTTP interface (`/api/v1`), shared by the server, the remote client and
//! the CLI's `--json` output so that they cannot drift apart.

pub mod coverage;
pub mod envelope;
pub mod lists;
pub mod screening;

pub use envelope::Envelope;
