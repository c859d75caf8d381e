//! `sanctions screen` and `sanctions batch`.

use std::process::ExitCode;

use color_eyre::eyre::{Result, bail};

use super::{BatchArgs, Context, ScreenArgs};

/// Screens one name and prints the matches.
pub fn run_screen(_ctx: &Context, _args: ScreenArgs) -> Result<ExitCode> {
    bail!("screening is not available yet")
}

/// Screens every name of a file.
pub fn run_batch(_ctx: &Context, _args: BatchArgs) -> Result<ExitCode> {
    bail!("batch screening is not available yet")
}
