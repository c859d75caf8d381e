//! `sanctions lists ...` and `sanctions show`.

use std::process::ExitCode;

use color_eyre::eyre::Result;

use super::{Context, ListsArgs};

/// Prints the lists with their counts.
pub fn overview(ctx: &Context, _json: bool) -> Result<ExitCode> {
    let _store = ctx.open_store()?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `lists` and its subcommands.
pub fn run(ctx: &Context, args: ListsArgs) -> Result<ExitCode> {
    overview(ctx, args.json)
}

/// Prints one entry.
pub fn show(_ctx: &Context, _entity_id: &str, _json: bool) -> Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}
