//! Updating or importing the lists from the Lists tab (local mode): the program itself runs
//! `sanctions lists update` or `sanctions lists import DIR` on the same data folder and
//! config as a child process, exactly as on the command line (the data folder's lock, the
//! guards against a silent loss, the watchlist re-screen after an import). Its output lines
//! come back as progress while the UI stays usable; the local service picks up the new
//! data by itself (it reloads when a newer list update is stored).

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};

/// How to run the program on the UI's data folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListsTool {
    /// The program (`std::env::current_exe`).
    pub exe: PathBuf,
    pub data_dir: PathBuf,
    /// The `--config` file, if one was given.
    pub config: Option<PathBuf>,
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

/// Most output lines kept from the child.
const MAX_LINES: usize = 200;

/// Runs `work`, sending each output line to `progress`; the outcome is a one-line summary,
/// or why it failed (some lists may still have been imported: the Lists tab shows them).
pub async fn run(
    tool: &ListsTool,
    work: &ListsWork,
    progress: impl Fn(String),
) -> Result<String, String> {
    let mut command = tokio::process::Command::new(&tool.exe);
    command.arg("--data-dir").arg(&tool.data_dir);
    if let Some(config) = &tool.config {
        command.arg("--config").arg(config);
    }
    command.arg("lists");
    match work {
        ListsWork::Update => command.arg("update"),
        ListsWork::Import(dir) => command.arg("import").arg(dir),
    };
    command
        .env_remove("SANCTIONS_API_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let name = work.name();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {name}: {e}"))?;
    let stderr = child.stderr.take();
    let errors = tokio::spawn(async move {
        let mut kept = Vec::new();
        if let Some(stderr) = stderr {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if kept.len() < MAX_LINES && !line.trim().is_empty() {
                    kept.push(line);
                }
            }
        }
        kept
    });
    let mut output = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            progress(line.clone());
            if output.len() < MAX_LINES {
                output.push(line);
            }
        }
    }
    let status = child.wait().await.map_err(|e| format!("{name}: {e}"))?;
    let errors = errors.await.unwrap_or_default();
    let failed = output
        .iter()
        .filter(|l| l.contains("FAILED") || l.contains("failed"))
        .count();
    if status.success() {
        let last = output.last().map_or("", String::as_str);
        let imported = output
            .iter()
            .filter(|l| l.split_whitespace().nth(1) == Some("imported"))
            .count();
        Ok(format!(
            "{name} finished: {imported} list(s) imported · {last}"
        ))
    } else {
        let why = errors
            .last()
            .or_else(|| output.iter().rev().find(|l| l.contains("fail")))
            .map_or_else(|| format!("exit status {status}"), Clone::clone);
        let lists = if failed > 0 {
            format!(" ({failed} line(s) name a failed list: see the Lists tab and its history)")
        } else {
            String::new()
        };
        Err(format!("{name} failed: {why}{lists}"))
    }
}
