//! The terminal UI: drawn on a TestBackend (snapshots) and end to end in tmux.
//! One test binary per theme, so the program is linked once for all of them: each former
//! `tests/NAME.rs` is a module here, its tests named `NAME::test`.

#[path = "../common/mod.rs"]
mod common;
mod tmux;
mod tui;
mod tui_lists;
mod tui_remote;
mod tui_tmux;
mod tui_traps;
