//! What every command needs: the data directory, the configuration, logging and the store.

use std::path::{Path, PathBuf};

use color_eyre::eyre::{Context as _, Result};

use crate::config::{self, Config};
use crate::store::Store;

/// Resolved global options.
#[derive(Debug)]
pub struct Context {
    pub data_dir: PathBuf,
    pub config: Config,
}

impl Context {
    /// Resolves the data directory and configuration, creates the directory and starts
    /// logging to `<data dir>/sanctions.log` (never to the terminal).
    pub fn new(data_dir: Option<&Path>, config_file: Option<&Path>) -> Result<Context> {
        let data_dir = match data_dir {
            Some(dir) => dir.to_path_buf(),
            None => config::default_data_dir()?,
        };
        std::fs::create_dir_all(&data_dir)
            .wrap_err_with(|| format!("cannot create data directory {}", data_dir.display()))?;
        init_logging(&data_dir);
        let mut config = Config::load(config_file)?;
        if let Ok(mirror) = std::env::var("SANCTIONS_MIRROR")
            && !mirror.trim().is_empty()
        {
            config.fetch.mirror = Some(mirror);
        }
        Ok(Context { data_dir, config })
    }

    /// Opens (creating and migrating as needed) the store in the data directory.
    pub fn open_store(&self) -> Result<Store> {
        let path = config::database_path(&self.data_dir);
        Store::open(&path).wrap_err_with(|| format!("cannot open the database {}", path.display()))
    }
}

fn init_logging(data_dir: &Path) {
    let path = data_dir.join("sanctions.log");
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
}
