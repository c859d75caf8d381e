//! Updating or importing the lists from the Lists tab (local mode), through the service as
//! `sanctions lists update` / `lists import DIR` run it ([`LocalService::refresh_lists`]):
//! the data folder's lock, the guards against a silent loss, the integrity check and the
//! watchlist re-screen after the import. Each step comes back as progress while the UI stays
//! usable; the local service picks up the new data by itself (it reloads when a newer list
//! update is stored).

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{Config, FetchConfig};
use crate::ingest::{ImportOptions, ListOutcome, Outcome};
use crate::service::LocalService;
use crate::service::maintenance::{ListsJob, Progress, Refreshed, Work};

/// What the Lists tab updates and imports with: the local service on the UI's data folder.
#[derive(Clone)]
pub struct ListsTool {
    pub service: LocalService,
    pub data_dir: PathBuf,
    /// The import guards of the config (`[import]`, `[fetch] max_bytes`).
    pub options: ImportOptions,
    /// How the lists are downloaded (`[fetch]`).
    pub fetch: FetchConfig,
}

impl ListsTool {
    /// The tool of `service` on `data_dir`, with the import and download settings of `config`.
    pub fn new(service: LocalService, data_dir: PathBuf, config: &Config) -> ListsTool {
        ListsTool {
            service,
            data_dir,
            options: ImportOptions::from_config(config, false),
            fetch: config.fetch.clone(),
        }
    }
}

impl std::fmt::Debug for ListsTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListsTool")
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListsWork {
    /// Download from the publishers and import what changed.
    Update,
    /// Import the official files under this folder (one folder per list code).
    Import(PathBuf),
}

impl ListsWork {
    /// `lists update` or `lists import`.
    pub fn name(&self) -> &'static str {
        match self {
            ListsWork::Update => "lists update",
            ListsWork::Import(_) => "lists import",
        }
    }
}

/// What the status bar says of a step.
pub fn describe(step: Progress) -> &'static str {
    match step {
        Progress::Waiting => "another import or update runs in this data folder: waiting for it",
        Progress::Importing => "reading and storing the lists…",
        Progress::Downloading => "downloading the lists from the publishers…",
        Progress::Checking => "checking the database…",
        Progress::Monitoring => "indexing the new lists and re-screening the watchlist…",
    }
}

/// Runs `work`, sending each step to `progress`; the outcome is a one-line summary, or why
/// it failed (some lists may still have been imported: the Lists tab shows them).
pub async fn run(
    tool: &ListsTool,
    work: &ListsWork,
    progress: impl Fn(Progress) + Send + Sync + 'static,
) -> Result<String, String> {
    let name = work.name();
    let work = match work {
        ListsWork::Import(dir) => Work::Import(dir.clone()),
        ListsWork::Update => Work::Update(
            crate::fetch::Fetcher::new(&tool.fetch)
                .map_err(|e| format!("{name} failed: cannot download: {e}"))?,
        ),
    };
    let job = ListsJob {
        data_dir: tool.data_dir.clone(),
        work,
        selected: Vec::new(),
        options: tool.options.clone(),
    };
    let refreshed = tool
        .service
        .refresh_lists(job, Arc::new(progress))
        .await
        .map_err(|e| format!("{name} failed: {}", chain(&e)))?;
    summary(name, &refreshed)
}

/// An error with its causes, `: `-separated.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// The one line of a finished run: what each list did and what the re-screen found, or
/// why it counts as failed (a list failed, the database is damaged, the re-screen failed).
fn summary(name: &str, refreshed: &Refreshed) -> Result<String, String> {
    let outcomes = &refreshed.imported.outcomes;
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(&o.outcome)).count();
    let failed: Vec<String> = outcomes.iter().filter_map(failure).collect();
    if !failed.is_empty() {
        return Err(format!(
            "{name} failed: {} list(s) failed, keeping their previous data ({}): see the Lists tab and its history",
            failed.len(),
            failed.join("; ")
        ));
    }
    if let Some(problems) = &refreshed.imported.damage {
        return Err(format!(
            "{name}: the database failed its integrity check after the import ({problems}): restore it from a backup, or move it away and import the lists again"
        ));
    }
    let watchlist = match &refreshed.watchlist {
        Ok(s) if s.run_id.is_some() && s.favorites > 0 => format!(
            " · watchlist: {} re-screened, {} changed, {} new alert(s)",
            s.favorites,
            s.changed,
            s.alert_ids.len()
        ),
        Ok(_) => String::new(),
        Err(e) => return Err(format!("{name}: the watchlist re-screen failed: {e}")),
    };
    Ok(format!(
        "{name} finished: {} list(s) imported · {} unchanged · {} skipped{watchlist}",
        count(|o| matches!(o, Outcome::Imported(_))),
        count(|o| matches!(o, Outcome::Unchanged)),
        count(|o| matches!(o, Outcome::Skipped(_))),
    ))
}

/// `code: why` of a failed list.
fn failure(outcome: &ListOutcome) -> Option<String> {
    match &outcome.outcome {
        Outcome::Failed(why) => Some(format!("{}: {why}", outcome.list.code())),
        _ => None,
    }
}
