//! `sanctions serve [--bind ADDR]`: the HTTP interface, with the background work of a
//! long-running face (watchlist monitoring, webhook delivery, the risk-brief feeds).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Args;
use color_eyre::eyre::{Context as _, Result};

use super::Context;
use super::exit::Exit;
use super::workflow::{local_service, runtime};
use crate::server::{self, AppState, Plans, ServiceFactory};
use crate::service::KeyStore;
use crate::service::{LocalService, Service};

/// `sanctions serve ...`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on [default: [server] bind of the config, else 127.0.0.1:8080].
    /// Port 0 picks a free port; the address is printed on standard output.
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Serve HTTPS (and HTTP/2) with this PEM certificate chain; needs --tls-key. Both
    /// files are read again on SIGHUP.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Start even when another `sanctions serve` is serving this data folder. Its work is
    /// shared safely, but rate limits and the authentication throttle are then counted per
    /// process.
    #[arg(long)]
    pub share_data_dir: bool,
}

/// Runs the server until Ctrl-C or SIGTERM.
pub fn run(ctx: &Context, args: ServeArgs) -> Result<Exit> {
    // `sanctions-serve-HOST-PID` in PostgreSQL's `pg_stat_activity`.
    crate::service::shared_store::name_connections("serve");
    let svc = local_service(ctx)?;
    // Held until the process ends (a kill included: the kernel releases it).
    let _lock = match args.share_data_dir {
        false => Some(lock_data_dir(&ctx.data_dir)?),
        true => None,
    };
    // Before the background work starts: it reads the mode when it checks webhook URLs.
    svc.set_server_mode(true);
    // Several instances on one database: rebuild the index when any of them imports.
    let _list_changes = svc.watch_lists();
    // Checkpoints on a thread of their own, not inside the commits requests wait for.
    svc.start_checkpointer();
    let config = ctx.config.server.clone();
    let bind = args.bind.unwrap_or_else(|| config.bind.clone());
    server::raise_open_files(config.max_connections as u64 + 1024);
    server::report_open_folder(&ctx.data_dir);
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(server::tls::Tls::load(cert, key)?),
        _ => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let rt = runtime()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&bind)
            .await
            .wrap_err_with(|| format!("cannot listen on {bind}"))?;
        let addr = listener.local_addr()?;
        let keys: Arc<dyn KeyStore> = svc.key_store();
        let base = svc.clone();
        let services: ServiceFactory = Arc::new(move |key| {
            Arc::new(base.for_account(&key.account_id, &key.actor())) as Arc<dyn Service>
        });
        let state = Arc::new(
            AppState::new(services, keys, Plans::new(&config.plans))
                .with_auth_throttle(
                    config.auth_failures_per_window,
                    config.auth_failure_window_secs,
                )
                .with_ops(ops_source(&svc))
                .with_versions(versions_source(&svc)),
        );
        warm_up(svc.clone(), state.clone());
        // Watchlist monitoring, webhook delivery and the feeds, stopped below.
        let background = svc.spawn_background(&ctx.config)?;
        if let Some(tls) = &tls {
            server::tls::reload_on_hangup(tls.clone());
        }
        println!("listening on {scheme}://{addr}");
        tracing::info!(%addr, "serving");
        let app = server::router(state, &config);
        let served = server::run(
            listener,
            app,
            server::Limits::of(&config),
            tls,
            server::shutdown_signal(),
        )
        .await;
        // The worker finishes the delivery in hand; pending ones stay in the outbox.
        background.stop().await;
        served.wrap_err("the server stopped")?;
        Ok(Exit::Success)
    })
}

/// Builds the screening index in the background and marks the server ready, retrying every
/// few seconds while no list has been imported; then keeps it built from the store's current
/// list versions (an import by another process is indexed within seconds, not at the next
/// screening; `/readyz` answers 503 meanwhile). A check with nothing new is one store read.
fn warm_up(svc: LocalService, state: Arc<AppState>) {
    tokio::spawn(async move {
        loop {
            match svc.wait_ready().await {
                Ok(()) if !state.ready.swap(true, Ordering::AcqRel) => {
                    tracing::info!("ready: screening index built");
                }
                Ok(()) => {}
                Err(e) => tracing::warn!(error = %e, "not ready yet"),
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    });
}

/// The list versions of the index in use, then of the store, for `/readyz`.
fn versions_source(svc: &LocalService) -> server::VersionsSource {
    let svc = svc.clone();
    Arc::new(move || {
        let index = svc.index_versions();
        let store = svc.store_versions().map_err(|e| e.to_string())?;
        Ok((index, store))
    })
}

/// The store's and the index's figures for `/metrics`.
fn ops_source(svc: &LocalService) -> server::OpsSource {
    let svc = svc.clone();
    Arc::new(move || {
        let stats = svc.ops_stats().map_err(|e| e.to_string())?;
        Ok((stats, svc.index_versions()))
    })
}

/// The file a server locks in its data folder.
const LOCK_FILE: &str = "serve.lock";

/// Takes the data folder's server lock (an exclusive `flock` on `serve.lock`, private to its
/// owner, holding the server's process id), or says which process holds it.
fn lock_data_dir(dir: &std::path::Path) -> Result<std::fs::File> {
    use std::io::{Read as _, Seek as _, Write as _};
    use std::os::unix::fs::OpenOptionsExt as _;
    let path = dir.join(LOCK_FILE);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .wrap_err_with(|| format!("cannot open the server lock {}", path.display()))?;
    let op = rustix::fs::FlockOperation::NonBlockingLockExclusive;
    match rustix::fs::flock(&file, op) {
        Ok(()) => {}
        Err(rustix::io::Errno::WOULDBLOCK) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = match holder.parse::<u32>() {
                Ok(pid) => format!("another `sanctions serve` (process {pid})"),
                Err(_) => "another `sanctions serve`".to_owned(),
            };
            return Err(super::exit::data(format!(
                "{who} is already serving the data folder {}: stop it first, or pass \
                 --share-data-dir to run a second server on the same data (rate limits are \
                 then counted per process)",
                dir.display()
            )));
        }
        Err(e) => {
            return Err(std::io::Error::from(e))
                .wrap_err_with(|| format!("cannot lock {}", path.display()));
        }
    }
    file.set_len(0)?;
    file.rewind()?;
    write!(file, "{}", std::process::id())?;
    Ok(file)
}
