//! The store: its conformance suite on SQLite and PostgreSQL, migrations, several processes
//! and instances on one store, claimed work and rules without triggers.
//! One test binary per theme, so the program is linked once for all of them: each former
//! `tests/NAME.rs` is a module here, its tests named `NAME::test`.

mod claims;
#[path = "../common/mod.rs"]
mod common;
mod conformance;
mod migrations;
mod multiproc;
mod nearness;
mod no_triggers;
mod rescreen_chunks;
mod scale_out;
mod store_conformance;
mod watchlist_stream;
