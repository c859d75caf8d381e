//! The one factory of the service every command uses: the local store (read-write, or
//! read-only for a write-protected data folder) or, with `--remote URL` /
//! `SANCTIONS_API_URL` / `[remote] url`, a `sanctions serve`. The commands then call the
//! same [`Service`] methods either way, so every face behaves the same.

use std::sync::Arc;
use std::time::Duration;

use color_eyre::eyre::{Context as _, Result};

use super::Context;
use super::exit;
use crate::config;
use crate::remote::{self, RemoteConfig, RemoteService};
use crate::service::{LocalService, Service, ServiceError};

/// A server to work against, resolved from the options, the environment and the config.
#[derive(Clone)]
pub struct RemoteTarget {
    pub url: String,
    api_key: Option<String>,
    timeout: Option<u64>,
}

impl std::fmt::Debug for RemoteTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTarget")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// The server named by `--remote` (or `SANCTIONS_API_URL`, through clap), else by
/// `[remote] url`; its key from `SANCTIONS_API_KEY`, else the env var named by
/// `[remote] api_key_env`, else `[remote] api_key`. `None`: work locally.
pub fn resolve(flag: Option<&str>, settings: &config::RemoteSettings) -> Option<RemoteTarget> {
    let url = flag
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(str::to_owned)
        .or_else(|| settings.url.clone().filter(|u| !u.trim().is_empty()))?;
    let from_env = |name: &str| std::env::var(name).ok().filter(|k| !k.trim().is_empty());
    let api_key = from_env(remote::KEY_ENV)
        .or_else(|| settings.api_key_env.as_deref().and_then(from_env))
        .or_else(|| settings.api_key.clone().filter(|k| !k.trim().is_empty()));
    Some(RemoteTarget {
        url,
        api_key,
        timeout: settings.timeout_secs,
    })
}

/// What a command works on.
pub struct Connected {
    pub service: Arc<dyn Service>,
    /// The local store could only be opened for reading: nothing can be stored.
    pub read_only: bool,
}

/// Starts reading the local data folder's index file and verifying its names, each on a
/// thread of its own, for a command about to screen: both then overlap opening and checking
/// the store ([`crate::service::local::read_ahead`]; the service uses them only when they are
/// the store's own and current). Nothing for a server or a shared store.
pub fn read_ahead(ctx: &Context) {
    if ctx.remote.is_some() || ctx.shared_store() {
        return;
    }
    let path = config::database_path(&ctx.data_dir);
    if path.exists() {
        crate::service::local::read_ahead(&path);
    }
}

/// The service for a command that writes (stores screenings, decisions, favorites...).
/// Locally a write-protected data folder falls back to a read-only store (`read_only`).
pub fn service(ctx: &Context) -> Result<Connected> {
    if let Some(target) = &ctx.remote {
        return remote_service(target);
    }
    if ctx.shared_store() {
        return Ok(Connected {
            service: Arc::new(configured(super::workflow::local_service(ctx)?, ctx)?),
            read_only: false,
        });
    }
    let path = config::database_path(&ctx.data_dir);
    match LocalService::open(&path, &LocalService::os_user()) {
        Ok(local) => Ok(Connected {
            service: Arc::new(configured(local, ctx)?),
            read_only: false,
        }),
        // Only a write-protected folder is opened read-only; any other failure (a full disk,
        // a lock held elsewhere) is reported as what it is, not as a folder that is read-only.
        Err(error) if path.exists() && LocalService::write_protected(&path) => {
            match LocalService::open_read_only(&path, &LocalService::os_user()) {
                Ok(local) => Ok(Connected {
                    service: Arc::new(configured(local, ctx)?),
                    read_only: true,
                }),
                Err(_) => Err(error)
                    .wrap_err_with(|| format!("cannot open the database {}", path.display())),
            }
        }
        Err(error) => {
            Err(error).wrap_err_with(|| format!("cannot open the database {}", path.display()))
        }
    }
}

/// The service for a command that only reads (`lists`, `show`): a local store is opened
/// read-only when it is up to date, so a write-protected data folder serves them.
pub fn read_service(ctx: &Context) -> Result<Arc<dyn Service>> {
    if ctx.remote.is_none() && !ctx.shared_store() {
        let path = config::database_path(&ctx.data_dir);
        if path.exists()
            && let Ok(local) = LocalService::open_read_only(&path, &LocalService::os_user())
        {
            return Ok(Arc::new(configured(local, ctx)?));
        }
    }
    Ok(service(ctx)?.service)
}

/// Refuses a command that works on the local store only when `--remote` is in force.
pub fn local_only(ctx: &Context, command: &str) -> Result<()> {
    match &ctx.remote {
        None => Ok(()),
        Some(target) => Err(exit::usage(format!(
            "`sanctions {command}` works on the local data folder only, not against a server \
             ({}); run it on the server's machine, or without --remote / SANCTIONS_API_URL",
            target.url
        ))),
    }
}

fn configured(local: LocalService, ctx: &Context) -> Result<LocalService> {
    local
        .configure(&ctx.config)
        .wrap_err("cannot apply the configuration")?;
    local.set_weak_aliases(ctx.config.screening.weak_aliases);
    Ok(local)
}

fn remote_service(target: &RemoteTarget) -> Result<Connected> {
    let mut config = RemoteConfig::new(target.url.clone(), target.api_key.clone());
    if let Some(secs) = target.timeout {
        config.timeout = Duration::from_secs(secs.clamp(1, 3600));
    }
    let remote = RemoteService::new(config).map_err(|e| match e {
        ServiceError::Validation { message, .. } => exit::usage(format!("--remote: {message}")),
        other => color_eyre::Report::new(other),
    })?;
    Ok(Connected {
        service: Arc::new(remote),
        read_only: false,
    })
}
