//! The `sanctions` binary: parses the command line and hands it to [`sanctions::cli`].

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use color_eyre::config::{HookBuilder, Theme};

fn main() -> color_eyre::Result<ExitCode> {
    let theme = if std::io::stderr().is_terminal() {
        Theme::dark()
    } else {
        Theme::new()
    };
    HookBuilder::default()
        .theme(theme)
        .display_env_section(false)
        .install()?;
    let cli = sanctions::cli::Cli::parse();
    sanctions::cli::run(cli)
}
