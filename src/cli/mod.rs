//! The command-line face: argument definitions (clap) and one runner per command.

mod context;
mod lists;
mod output;
mod review;
mod screen;
mod watch;
mod workflow;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::api::screening::KindFilter;
use crate::model::ListCode;

pub use context::Context;

/// Sanctions screening against the official lists (OFAC, EU, UN, UK, Canada, Australia,
/// World Bank).
#[derive(Debug, Parser)]
#[command(name = "sanctions", version, about, propagate_version = true)]
pub struct Cli {
    /// Folder holding the database and the log file.
    #[arg(long, global = true, env = "SANCTIONS_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Configuration file (TOML); default: config.toml in the platform config folder.
    #[arg(long, global = true, env = "SANCTIONS_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the lists and their counts, or import, update and inspect them.
    Lists(ListsArgs),
    /// Show one listed entry with every field.
    Show {
        /// `<list_code>:<source_id>`, e.g. `ofac_sdn:306`.
        entity_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Screen one name against the lists.
    Screen(ScreenArgs),
    /// Screen many names from a CSV, text or JSON file (`-` for standard input).
    Batch(BatchArgs),
    /// Stored screenings: list them, show one, record review decisions.
    Screenings(workflow::ScreeningsArgs),
    /// Export every screening and decision of a period for an auditor.
    Audit(workflow::AuditArgs),
    /// The watchlist: names re-screened after every list change.
    Watchlist(workflow::WatchlistArgs),
    /// Alerts: list, acknowledge, resolve.
    Alerts(workflow::AlertsArgs),
}

/// `sanctions lists ...`.
#[derive(Debug, Args)]
pub struct ListsArgs {
    #[command(subcommand)]
    pub command: Option<ListsCommand>,
    /// JSON output.
    #[arg(long)]
    pub json: bool,
}

/// The list-management subcommands.
#[derive(Debug, Subcommand)]
pub enum ListsCommand {
    /// Import the official files from DIR, one folder per list code (e.g. DIR/ofac_sdn/sdn.csv).
    Import {
        dir: PathBuf,
        /// Only these lists (comma-separated codes).
        #[arg(long, value_delimiter = ',')]
        list: Vec<ListCode>,
        /// Accept files that remove more of a list than [import] max_shrink_percent allows.
        #[arg(long)]
        allow_shrink: bool,
    },
    /// Download the official files from the publishers and import them.
    Update {
        /// Only these lists (comma-separated codes).
        #[arg(long, value_delimiter = ',')]
        list: Vec<ListCode>,
        /// Accept files that remove more of a list than [import] max_shrink_percent allows.
        #[arg(long)]
        allow_shrink: bool,
    },
    /// Show the update records of one list, newest first.
    Updates {
        code: ListCode,
        #[arg(long)]
        json: bool,
    },
}

/// `sanctions screen ...`.
#[derive(Debug, Args)]
pub struct ScreenArgs {
    /// The name to screen.
    pub name: String,
    #[command(flatten)]
    pub options: ScreenOptions,
    /// Only these lists (comma-separated codes).
    #[arg(long, value_delimiter = ',')]
    pub lists: Vec<ListCode>,
    /// JSON output (the `data` of the HTTP interface's answer).
    #[arg(long)]
    pub json: bool,
}

/// `sanctions batch ...`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// CSV with a `name` column, one name per line, a JSON array or `{"names": [...]}`; `-` reads
    /// standard input.
    pub file: PathBuf,
    #[command(flatten)]
    pub options: ScreenOptions,
    /// JSON Lines output, one line per input name.
    #[arg(long)]
    pub json: bool,
}

/// Options shared by `screen` and `batch`.
#[derive(Debug, Clone, Args)]
pub struct ScreenOptions {
    /// Only individuals or only entities.
    #[arg(long = "type", value_enum)]
    pub kind: Option<KindArg>,
    /// Lowest score reported, 0-100.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub threshold: Option<u8>,
    /// Most results per name.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Report entries whose listing has ended too (e.g. a past World Bank debarment).
    #[arg(long)]
    pub include_ended: bool,
}

/// `--type` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    Individual,
    Entity,
}

impl From<KindArg> for KindFilter {
    fn from(kind: KindArg) -> Self {
        match kind {
            KindArg::Individual => KindFilter::Individual,
            KindArg::Entity => KindFilter::Entity,
        }
    }
}

/// Runs a parsed command line; the exit code says whether everything asked for succeeded.
pub fn run(cli: Cli) -> color_eyre::Result<ExitCode> {
    let ctx = Context::new(cli.data_dir.as_deref(), cli.config.as_deref())?;
    match cli.command {
        // No subcommand: the terminal UI, or the lists overview when not on a terminal.
        None if std::io::IsTerminal::is_terminal(&std::io::stdout()) => {
            crate::tui::start_local(workflow::local_service(&ctx)?)?;
            Ok(ExitCode::SUCCESS)
        }
        None => lists::overview(&ctx, false),
        Some(Command::Lists(args)) => lists::run(&ctx, args),
        Some(Command::Show { entity_id, json }) => lists::show(&ctx, &entity_id, json),
        Some(Command::Screen(args)) => screen::run_screen(&ctx, args),
        Some(Command::Batch(args)) => screen::run_batch(&ctx, args),
        Some(Command::Screenings(args)) => review::run_screenings(&ctx, args),
        Some(Command::Audit(args)) => review::run_audit(&ctx, args),
        Some(Command::Watchlist(args)) => watch::run_watchlist(&ctx, args),
        Some(Command::Alerts(args)) => watch::run_alerts(&ctx, args),
    }
}
