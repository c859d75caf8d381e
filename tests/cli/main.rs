//! The real binary on the command line: screening, batches, the review workflow, the
//! persisted index, the terminal and the remote client.
//! One test binary per theme, so the program is linked once for all of them: each former
//! `tests/NAME.rs` is a module here, its tests named `NAME::test`.

mod batch;
mod cli;
mod cli_remote;
#[path = "../common/mod.rs"]
mod common;
mod full_disk;
mod index_file;
mod screen;
mod terminal;
mod workflow_cli;
