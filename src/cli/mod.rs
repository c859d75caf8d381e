//! The command-line face: argument definitions (clap) and one runner per command.
//!
//! Exit codes ([`Exit`]): 0 success; 1 a match was found (only with `--fail-on-match`);
//! 2 usage error (bad arguments, a name with nothing to screen); 3 data error (no data, an
//! unreadable input, rows not screened, a list that failed to import, an unknown entry);
//! 4 partial coverage (a requested list has no data; `--allow-partial` screens anyway).

mod accounts;
mod batch;
mod briefs;
mod connect;
mod context;
mod exit;
mod keys;
mod lists;
mod matches;
mod output;
mod review;
mod screen;
mod serve;
mod store;
mod ui;
mod watch;
mod webhooks;
mod workflow;

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::api::screening::KindFilter;
use crate::model::ListCode;

pub use context::Context;
pub use exit::{Exit, Failure};

/// `sanctions --version`: the package version, the commit it was built from and the build date.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("SANCTIONS_COMMIT"),
    ", built ",
    env!("SANCTIONS_BUILD_DATE"),
    ")"
);

/// Sanctions screening against the official lists (OFAC SDN and Consolidated, EU, UN, UK HMT,
/// Canada SEMA, Australia DFAT, World Bank), offline, from a local database.
#[derive(Debug, Parser)]
#[command(
    name = "sanctions",
    version = VERSION,
    propagate_version = true,
    after_help = "Exit codes: 0 success, 1 match found (with --fail-on-match), 2 usage error, \
                  3 data error (no data, unreadable input, rows not screened, failed import), \
                  4 partial coverage (a requested list has no data; see --allow-partial)."
)]
pub struct Cli {
    /// Folder holding the database (sanctions.db) and the log file (sanctions.log)
    /// [default: the platform data folder, e.g. ~/.local/share/sanctions].
    #[arg(long, global = true, env = "SANCTIONS_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Configuration file (TOML) [default: config.toml in the platform config folder].
    #[arg(long, global = true, env = "SANCTIONS_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// JSON output on standard output, and errors as {"error": ...} on standard error.
    #[arg(long, global = true)]
    pub json: bool,
    /// On an error, print the full report (causes, locations; a backtrace with
    /// RUST_BACKTRACE=1) instead of the one-line message.
    #[arg(long, global = true)]
    pub debug: bool,
    /// Work against a `sanctions serve` at this base URL instead of the local data folder
    /// (the key from SANCTIONS_API_KEY or the config's [remote] section).
    #[arg(long, global = true, env = "SANCTIONS_API_URL", value_name = "URL")]
    pub remote: Option<String>,
    /// The store on this PostgreSQL database (several `serve` instances share one) instead
    /// of sanctions.db in the data folder [default: the config's [store] url].
    #[arg(
        long,
        global = true,
        env = "SANCTIONS_DATABASE_URL",
        value_name = "URL"
    )]
    pub database_url: Option<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the eight lists with their counts, or import, update and inspect them.
    Lists(ListsArgs),
    /// Show one listed entry with every field.
    Show {
        /// `<list_code>:<id>`, e.g. `ofac_sdn:306` (the list code in any case).
        entity_id: String,
        /// Show it as it stood right after this list update (an id of `lists updates`), e.g.
        /// the version a stored screening ran against.
        #[arg(long, value_name = "UPDATE_ID")]
        at: Option<i64>,
    },
    /// Screen one name against the lists.
    Screen(ScreenArgs),
    /// Screen every name of a CSV/TSV, text or JSON file (`-` for standard input).
    Batch(BatchArgs),
    /// Stored screenings: list them, show one, record review decisions.
    Screenings(workflow::ScreeningsArgs),
    /// Four-eyes review: list the proposals awaiting a second reviewer, confirm or reject them.
    Review(workflow::ReviewArgs),
    /// Export every screening and decision of a period for an auditor.
    Audit(workflow::AuditArgs),
    /// The watchlist: names re-screened after every list change.
    Watchlist(workflow::WatchlistArgs),
    /// Alerts: list, acknowledge, resolve.
    Alerts(workflow::AlertsArgs),
    /// Webhooks: register endpoints, test them, see deliveries, run the delivery worker.
    Webhooks(webhooks::WebhooksArgs),
    /// Risk briefs from list updates and the publishers' feeds.
    Briefs(briefs::BriefsArgs),
    /// Serve the HTTP interface (`/api/v1`) with API keys, plans and limits.
    Serve(serve::ServeArgs),
    /// API keys of `serve`: create (printed once), list, revoke.
    Keys(keys::KeysArgs),
    /// Accounts of `serve` (customers or teams): list, show, change plan.
    Accounts(accounts::AccountsArgs),
    /// The database itself: `store check` runs the integrity checks.
    Store(store::StoreArgs),
}

/// `sanctions lists ...`.
#[derive(Debug, Args)]
pub struct ListsArgs {
    #[command(subcommand)]
    pub command: Option<ListsCommand>,
}

/// The list-management subcommands.
#[derive(Debug, Subcommand)]
pub enum ListsCommand {
    /// Import the official files from DIR, one folder per list code (e.g. DIR/ofac_sdn/sdn.csv).
    Import {
        /// Folder holding one sub-folder per list code with the publisher's files.
        dir: PathBuf,
        /// Only these lists (comma-separated codes) [default: every list found in DIR].
        #[arg(long, value_delimiter = ',', value_name = "CODES")]
        list: Vec<ListCode>,
        /// Accept files that remove more of a list than [import] max_shrink_percent allows.
        #[arg(long)]
        allow_shrink: bool,
    },
    /// Download the official files from the publishers and import the lists that changed.
    Update {
        /// Only these lists (comma-separated codes) [default: all eight].
        #[arg(long, value_delimiter = ',', value_name = "CODES")]
        list: Vec<ListCode>,
        /// Accept files that remove more of a list than [import] max_shrink_percent allows.
        #[arg(long)]
        allow_shrink: bool,
    },
    /// Show the update records of one list, newest first.
    Updates {
        /// A list code: ofac_sdn, ofac_cons, eu, un, uk_hmt, ca_sema, au_dfat, world_bank.
        code: ListCode,
        /// Most records shown, 1-1000.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
    },
}

/// `sanctions screen ...`.
#[derive(Debug, Args)]
pub struct ScreenArgs {
    /// The name to screen; several words without quotes are joined (`screen Vladimir Putin`).
    #[arg(required = true, num_args = 1.., value_name = "NAME")]
    pub name: Vec<String>,
    #[command(flatten)]
    pub options: ScreenOptions,
    /// Date of birth (YYYY, YYYY-MM or YYYY-MM-DD), weighed against the listed ones.
    #[arg(long)]
    pub dob: Option<String>,
    /// Country (ISO 3166-1 alpha-2 or name), weighed against nationalities and countries.
    #[arg(long)]
    pub country: Option<String>,
}

/// `sanctions batch ...`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// The names: a CSV/TSV table (comma, semicolon, tab or pipe) whose name column is found
    /// by its header (`name`, `full_name`, `customer_name`, `entity_name`, ...), one name per
    /// line, or JSON (`["name", ...]`, `{"names": [...]}`, objects with a `name` field);
    /// UTF-8, UTF-16 or Windows-1252. `-` reads standard input.
    pub file: PathBuf,
    /// The name column: a header (any case) or a number from 1 (for a table without header).
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<String>,
    /// Read each whole line as one name, even if it holds commas, tabs or semicolons.
    #[arg(long, conflicts_with = "column")]
    pub lines: bool,
    /// Store every row as a screening (sent 500 at a time through the service), each line
    /// then naming its screening id. Without it nothing is stored (locally); through a
    /// server every batch is stored.
    #[arg(long)]
    pub store: bool,
    #[command(flatten)]
    pub options: ScreenOptions,
}

/// Options shared by `screen` and `batch`.
#[derive(Debug, Clone, Args)]
pub struct ScreenOptions {
    /// Only individuals or only entities (organisations, vessels, aircraft). In a batch, a
    /// row's own `type` narrows this, never widens it [default: both].
    #[arg(long = "type", value_enum)]
    pub kind: Option<KindArg>,
    /// Lowest score reported, 0-100.
    #[arg(long, default_value_t = crate::service::DEFAULT_THRESHOLD,
          value_parser = clap::value_parser!(u8).range(0..=100))]
    pub threshold: u8,
    /// Most people or organisations reported per name, 1-500 (one person's entries on
    /// several lists count once).
    #[arg(long, default_value_t = crate::service::DEFAULT_LIMIT as u16,
          value_parser = clap::value_parser!(u16).range(1..=crate::service::MAX_LIMIT as i64))]
    pub limit: u16,
    /// Only these lists (comma-separated codes) [default: all eight].
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub lists: Vec<ListCode>,
    /// Screen even when a requested list has no data (the result names the lists not checked)
    /// instead of refusing with exit code 4.
    #[arg(long)]
    pub allow_partial: bool,
    /// Days since its last import or update after which a list is reported as stale, 1-3650.
    #[arg(long, value_name = "DAYS", env = "SANCTIONS_MAX_AGE_DAYS",
          default_value_t = crate::coverage::DEFAULT_MAX_AGE_DAYS,
          value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub max_age: u32,
    /// Exit with code 1 when any name matched (for scripts).
    #[arg(long)]
    pub fail_on_match: bool,
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
pub fn run(cli: Cli) -> color_eyre::Result<Exit> {
    let Some(command) = cli.command else {
        // No subcommand: the terminal UI on a terminal; the help otherwise.
        if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            return ui::run(
                cli.data_dir.as_deref(),
                cli.config.as_deref(),
                cli.remote.as_deref(),
            );
        }
        let help = Cli::command().render_long_help().to_string();
        output::write_text(&help)?;
        return Ok(Exit::Success);
    };
    let json_log = matches!(command, Command::Serve(_));
    let mut ctx = Context::with_log(cli.data_dir.as_deref(), cli.config.as_deref(), json_log)?;
    ctx.remote = connect::resolve(cli.remote.as_deref(), &ctx.config.remote);
    if let Some(url) = cli.database_url.filter(|u| !u.trim().is_empty()) {
        ctx.config.store.url = Some(url);
    }
    let json = cli.json;
    match command {
        Command::Lists(args) => lists::run(&ctx, args, json),
        Command::Show { entity_id, at } => lists::show(&ctx, &entity_id, at, json),
        Command::Screen(args) => screen::run(&ctx, args, json),
        Command::Batch(args) => batch::run(&ctx, args, json),
        Command::Screenings(args) => review::run_screenings(&ctx, args, json),
        Command::Review(args) => review::run_review(&ctx, args, json),
        Command::Audit(args) => review::run_audit(&ctx, args, json),
        Command::Watchlist(args) => watch::run_watchlist(&ctx, args, json),
        Command::Alerts(args) => watch::run_alerts(&ctx, args, json),
        Command::Webhooks(args) => webhooks::run(&ctx, args, json),
        Command::Briefs(args) => briefs::run(&ctx, args, json),
        Command::Serve(args) => serve::run(&ctx, args),
        Command::Keys(args) => keys::run(&ctx, args, json),
        Command::Accounts(args) => accounts::run(&ctx, args, json),
        Command::Store(args) => store::run(&ctx, args, json),
    }
}
