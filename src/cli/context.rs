//! What every command needs: the data directory, the configuration, logging, and the import
//! lock for the commands that write.

use std::path::{Path, PathBuf};

use color_eyre::eyre::{Context as _, Result};

use crate::config::{self, Config};
use crate::service::maintenance::{DataLock, lock_data_dir};

/// What a command that writes says when another holds the data folder's lock.
pub const LOCK_WAIT: &str =
    "another import or update is running in this data folder; waiting for it to finish...";

/// Resolved global options.
#[derive(Debug)]
pub struct Context {
    pub data_dir: PathBuf,
    pub config: Config,
    /// The server the commands work against (`--remote`), or `None` for the local store.
    pub remote: Option<super::connect::RemoteTarget>,
}

impl Context {
    /// Resolves the data directory and configuration, creates the directory if it is missing
    /// and starts logging to `<data dir>/sanctions.log` (never to the terminal; skipped when
    /// the folder is read-only).
    pub fn new(data_dir: Option<&Path>, config_file: Option<&Path>) -> Result<Context> {
        Context::with_log(data_dir, config_file, false)
    }

    /// [`Context::new`], logging one JSON object a line when `json_log` (`serve`: its
    /// access logs, each with the request id of its span, for a log collector).
    pub fn with_log(
        data_dir: Option<&Path>,
        config_file: Option<&Path>,
        json_log: bool,
    ) -> Result<Context> {
        let data_dir = match data_dir {
            Some(dir) => dir.to_path_buf(),
            None => config::default_data_dir()?,
        };
        if !data_dir.is_dir() {
            crate::files::create_private_dir(&data_dir)
                .wrap_err_with(|| format!("cannot create data directory {}", data_dir.display()))?;
        }
        init_logging(&data_dir, json_log);
        if let Some(mode) = crate::files::readable_by_others(&data_dir) {
            tracing::warn!(folder = ?data_dir, mode = format!("{mode:o}"), "data folder readable by other users");
        }
        let mut config = Config::load(config_file)?;
        if let Ok(mirror) = std::env::var("SANCTIONS_MIRROR")
            && !mirror.trim().is_empty()
        {
            config.fetch.mirror = Some(mirror);
        }
        Ok(Context {
            data_dir,
            config,
            remote: None,
        })
    }

    /// Where the store is: the configured PostgreSQL database, else sanctions.db here.
    pub fn location(&self) -> crate::service::StoreLocation {
        crate::service::StoreLocation::choose(
            self.config.store.url.as_deref(),
            config::database_path(&self.data_dir),
        )
    }

    /// Whether the store is a shared database rather than the data folder's file.
    pub fn shared_store(&self) -> bool {
        matches!(self.location(), crate::service::StoreLocation::Postgres(_))
    }

    /// Takes the data folder's write lock (`sanctions.lock`), waiting with a message while
    /// another import or update holds it. Released when the returned file is dropped.
    pub fn write_lock(&self, json: bool) -> Result<DataLock> {
        lock_data_dir(&self.data_dir, || super::output::warn(LOCK_WAIT, json))
            .map_err(color_eyre::eyre::Report::new)
    }
}

fn init_logging(data_dir: &Path, json: bool) {
    let path = data_dir.join("sanctions.log");
    let Ok(file) = crate::files::append_private(&path) else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file));
    let _ = if json {
        builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .try_init()
    } else {
        builder.try_init()
    };
}
