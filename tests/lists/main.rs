//! The official lists: importing, updating and downloading them, damaged copies, risk briefs
//! and the fuzzing of every parser.
//! One test binary per theme, so the program is linked once for all of them: each former
//! `tests/NAME.rs` is a module here, its tests named `NAME::test`.

mod briefs;
#[path = "../common/mod.rs"]
mod common;
mod damaged;
mod fetch;
mod fuzz;
mod lists;
mod trust;
mod update;
