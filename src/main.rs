//! The `sanctions` binary: parses the command line, hands it to [`sanctions::cli`], and turns
//! the outcome into an exit code. User errors print a message (or `{"error": ...}` on standard
//! error with `--json`), never a backtrace; `--debug` prints the full report. A closed pipe
//! (`sanctions lists | head`) ends the program quietly.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use color_eyre::config::{HookBuilder, Theme};
use sanctions::cli::{Cli, Exit, Failure};

/// mimalloc rather than glibc's allocator: under `sanctions serve` load, glibc's malloc and
/// free (with their bin consolidation) took about a fifth of the server's time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = args.iter().any(|a| a == "--json");
    let debug = args.iter().any(|a| a == "--debug");
    let theme = if std::io::stderr().is_terminal() {
        Theme::dark()
    } else {
        Theme::new()
    };
    // The hook formats `--debug` reports and panics (real bugs keep their backtraces).
    let _ = HookBuilder::default()
        .theme(theme)
        .display_env_section(false)
        .install();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return clap_error(&e, json),
    };
    if cli.command.is_none() && std::io::stdout().is_terminal() {
        // The terminal UI runs: a panic puts the terminal back before the report is printed.
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            sanctions::tui::restore();
            report(info);
        }));
    }
    match sanctions::cli::run(cli) {
        Ok(exit) => exit.into(),
        Err(report) if is_broken_pipe(&report) => ExitCode::SUCCESS,
        Err(report) => {
            let exit = report
                .chain()
                .find_map(|c| c.downcast_ref::<Failure>())
                .map(|f| f.exit)
                .unwrap_or(Exit::Data);
            let message = report
                .chain()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(": ");
            print_error(&message, exit, json, debug.then_some(&report));
            exit.into()
        }
    }
}

fn clap_error(e: &clap::Error, json: bool) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        _ if json => {
            let message = e.render().to_string();
            print_error(message.trim(), Exit::Usage, true, None);
            Exit::Usage.into()
        }
        _ => {
            // The message quotes what was typed: made terminal-safe like any input.
            let message = e.render().to_string();
            let _ = write!(
                std::io::stderr(),
                "{}",
                sanctions_model::sanitize::multiline(&message)
            );
            Exit::Usage.into()
        }
    }
}

fn print_error(message: &str, exit: Exit, json: bool, debug: Option<&color_eyre::Report>) {
    let mut err = std::io::stderr().lock();
    let _ = match (debug, json) {
        // The report quotes messages from inputs and servers: sanitised as the message is.
        (Some(report), _) => writeln!(
            err,
            "{}",
            sanctions_model::sanitize::multiline(&format!("{report:?}"))
        ),
        (None, true) => writeln!(
            err,
            "{}",
            sanctions_model::sanitize::json(
                serde_json::json!({
                    "error": message,
                    "kind": exit.kind(),
                    "exit_code": exit as u8,
                })
                .to_string()
            )
        ),
        (None, false) => writeln!(
            err,
            "error: {}",
            sanctions_model::sanitize::multiline(message)
        ),
    };
}

fn is_broken_pipe(e: &color_eyre::Report) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
