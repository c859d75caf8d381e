//! Arguments of the review workflow commands (`screenings`, `audit export`, `watchlist`,
//! `alerts`) and what their runners share; the runners are in `review` and `watch`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use color_eyre::eyre::{Context as _, Result, eyre};
use jiff::Timestamp;

use super::{Context, KindArg};
use crate::service::LocalService;

/// `sanctions screenings ...`.
#[derive(Debug, Args)]
pub struct ScreeningsArgs {
    #[command(subcommand)]
    pub command: Option<ScreeningsCommand>,
    /// Only screenings since this date (`YYYY-MM-DD`) or instant (RFC 3339).
    #[arg(long)]
    pub since: Option<String>,
    /// Only screenings in this review status.
    #[arg(long, value_enum)]
    pub status: Option<StatusArg>,
    /// Most screenings shown (1-500).
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

/// Subcommands of `screenings`.
#[derive(Debug, Subcommand)]
pub enum ScreeningsCommand {
    /// One stored screening with its matches, list versions and decisions.
    Show { id: String },
    /// Record a review decision for one matched entry or the whole screening.
    Decide {
        id: String,
        /// The matched entry decided on; the whole screening when absent.
        #[arg(long)]
        entity: Option<String>,
        #[arg(long, value_enum)]
        decision: DecisionArg,
        /// Why (required; kept in the audit log).
        #[arg(long)]
        note: String,
    },
}

/// `--status` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum StatusArg {
    NoMatch,
    PendingReview,
    FalsePositive,
    TrueMatch,
    Escalated,
    /// Four-eyes review: a proposal awaits a second reviewer.
    Proposed,
}

/// `sanctions review ...`: four-eyes review, the second reviewer's side.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub command: ReviewCommand,
}

/// Subcommands of `review`.
#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// The screenings whose proposals await a second reviewer, newest first.
    Pending {
        /// Most screenings shown (1-500).
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Confirm the proposals waiting on a screening: the proposed decisions are recorded.
    Confirm(VerdictArgs),
    /// Reject them: the matches return to their status before the proposal.
    Reject(VerdictArgs),
}

/// The arguments of `review confirm` and `review reject`.
#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// The screening (`scr_...`).
    pub id: String,
    /// Only the proposal on this matched entry; every proposal of the screening when absent.
    #[arg(long)]
    pub entity: Option<String>,
    /// Why (required; kept in the audit log beside the proposal).
    #[arg(long)]
    pub note: String,
}

/// `--decision` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum DecisionArg {
    FalsePositive,
    TrueMatch,
    Escalated,
}

/// `sanctions audit ...`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(subcommand)]
    pub command: AuditCommand,
}

/// Subcommands of `audit`.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Every screening and decision of a period, with the list versions used.
    Export {
        #[arg(long)]
        since: Option<String>,
        #[arg(long)]
        until: Option<String>,
        #[arg(long, value_enum, default_value = "json")]
        format: FormatArg,
    },
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One row per screening, then one per decision about it (streamed).
    Csv,
    /// One document: screenings, decisions, alerts and alert changes of the period (built
    /// in memory; at most 1,000,000 screenings).
    Json,
    /// One stored screening with its decisions per line, oldest first (streamed).
    Ndjson,
}

/// `sanctions watchlist ...`.
#[derive(Debug, Args)]
pub struct WatchlistArgs {
    #[command(subcommand)]
    pub command: WatchlistCommand,
}

/// Subcommands of `watchlist`.
#[derive(Debug, Subcommand)]
pub enum WatchlistCommand {
    /// Add a name (screened at once).
    Add {
        name: String,
        #[arg(long = "type", value_enum)]
        kind: Option<KindArg>,
        #[arg(long)]
        note: Option<String>,
        /// Date of birth (`YYYY`, `YYYY-MM-DD`, as `screen --dob`): evidence for its screenings.
        #[arg(long)]
        dob: Option<String>,
        /// Country (code or name, as `screen --country`): evidence for its screenings.
        #[arg(long)]
        country: Option<String>,
    },
    /// The watchlist.
    List,
    /// Remove a favorite by id.
    Remove { id: String },
    /// Add every name of a file (the batch formats: CSV with a `name` column, lines, JSON).
    /// Rows that cannot be screened are refused one by one (each reported with its line and
    /// why) and the others imported; with --strict one bad row refuses the whole file.
    Import {
        file: PathBuf,
        /// Import nothing when any row is bad.
        #[arg(long)]
        strict: bool,
    },
    /// Re-screen the whole watchlist now (for cron).
    Rescreen,
}

/// `sanctions alerts ...`.
#[derive(Debug, Args)]
pub struct AlertsArgs {
    #[command(subcommand)]
    pub command: Option<AlertsCommand>,
    #[arg(long, value_enum)]
    pub status: Option<AlertStatusArg>,
    /// `screening.match`, `favorite.match` or `list.updated`.
    #[arg(long)]
    pub kind: Option<String>,
    #[arg(long)]
    pub since: Option<String>,
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

/// `alerts --status` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AlertStatusArg {
    Open,
    Acknowledged,
    Resolved,
}

/// Subcommands of `alerts`.
#[derive(Debug, Subcommand)]
pub enum AlertsCommand {
    /// Acknowledge an alert.
    Ack {
        id: String,
        #[arg(long)]
        note: String,
    },
    /// Resolve an alert.
    Resolve {
        id: String,
        #[arg(long)]
        note: String,
    },
}

/// The local service on the data directory's store, acting as the OS user.
pub fn local_service(ctx: &Context) -> Result<LocalService> {
    let location = ctx.location();
    LocalService::open_at(&location, &LocalService::os_user())
        .wrap_err_with(|| format!("cannot open the store {}", describe(&location)))
}

/// A store location for messages (a database URL without its password).
pub(super) fn describe(location: &crate::service::StoreLocation) -> String {
    match location {
        crate::service::StoreLocation::Sqlite(path) => path.display().to_string(),
        crate::service::StoreLocation::Postgres(url) => crate::service::shared_store::redacted(url),
    }
}

pub(super) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .wrap_err("cannot start the async runtime")
}

/// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 instant.
pub fn parse_since(text: &str) -> Result<Timestamp> {
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    let date: jiff::civil::Date = text
        .parse()
        .map_err(|_| eyre!("{text:?} is not a date (YYYY-MM-DD) or an RFC 3339 instant"))?;
    Ok(date.to_zoned(jiff::tz::TimeZone::UTC)?.timestamp())
}

pub(super) fn opt_since(text: Option<&str>) -> Result<Option<Timestamp>> {
    text.map(parse_since).transpose()
}

/// Text from lists and users with control characters (escape sequences, bidi controls)
/// replaced, so it cannot drive the terminal.
pub fn safe(text: &str) -> String {
    crate::sanitize::field(text).into_owned()
}

pub(super) fn ts(t: Timestamp) -> String {
    t.strftime("%Y-%m-%d %H:%M:%S").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_instants_are_accepted() {
        assert_eq!(
            parse_since("2026-01-02").unwrap().to_string(),
            "2026-01-02T00:00:00Z"
        );
        assert!(parse_since("2026-01-02T03:04:05Z").is_ok());
        assert!(parse_since("yesterday").is_err());
        assert!(!safe("a\u{1b}[31mb\u{202E}c").contains('\u{1b}'));
    }
}
