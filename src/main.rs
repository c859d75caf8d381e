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
    if cli.command.is_none() && std::io::stdout().is_terminal() {
        // The terminal UI runs: a panic puts the terminal back before the report is printed.
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            sanctions::tui::restore();
            report(info);
        }));
    }
    match sanctions::cli::run(cli) {
        // The reader went away (`sanctions screen X | head`): not an error.
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        other => other,
    }
}

fn is_broken_pipe(e: &color_eyre::Report) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
