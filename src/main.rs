//! The `sanctions` binary: parses the command line and hands it to [`sanctions::cli`].

use std::process::ExitCode;

use clap::Parser;

fn main() -> color_eyre::Result<ExitCode> {
    color_eyre::install()?;
    let cli = sanctions::cli::Cli::parse();
    sanctions::cli::run(cli)
}
