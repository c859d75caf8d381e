//! The background work of a long-running face (`serve`, the terminal UI), started by one
//! call, [`LocalService::spawn_background`], and stopped by one, [`Background::stop`]:
//!
//! - the watchlist monitoring schedule (list updates made by any process, and the periodic
//!   full re-screen; `[watchlist]`),
//! - the webhook delivery worker (`[webhooks]`),
//! - the reading of the risk-brief feeds every `[briefs] refresh_secs`, a failed feed again
//!   after `retry_secs` (doubling up to `refresh_secs`).
//!
//! Every error is logged and retried later; none ends the work. Stopping at any moment loses
//! nothing: pending webhook deliveries and unread feeds are picked up by the next start.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::LocalService;
use crate::ServiceError;
use crate::api::briefs::FeedReport;
use crate::config::Config;

/// How long [`Background::stop`] waits for a task to finish before aborting it.
const GRACE: Duration = Duration::from_secs(5);
/// Wait after the webhook worker failed (e.g. the store was busy) before it starts again.
const WORKER_RESTART: Duration = Duration::from_secs(5);

/// The running background tasks of one face. Dropping it stops them abruptly (abort);
/// [`Background::stop`] lets them finish the step they are in.
#[derive(Debug)]
pub struct Background {
    stop: watch::Sender<bool>,
    tasks: Vec<(&'static str, JoinHandle<()>)>,
}

impl Background {
    /// The names of the tasks running (`monitoring`, `webhooks`, `feeds`).
    pub fn tasks(&self) -> Vec<&'static str> {
        self.tasks.iter().map(|(name, _)| *name).collect()
    }

    /// Asks every task to stop and waits for each (at most a few seconds, then aborts it).
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        for (name, mut task) in std::mem::take(&mut self.tasks) {
            if tokio::time::timeout(GRACE, &mut task).await.is_err() {
                tracing::warn!(task = name, "background task did not stop in time; aborted");
                task.abort();
            }
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        for (_, task) in &self.tasks {
            task.abort();
        }
    }
}

/// Resolves once `stop` says so (or its sender is gone).
async fn stopped(mut stop: watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

impl LocalService {
    /// Applies `config` ([`LocalService::configure`]) and starts all background work of a
    /// long-running face: watchlist monitoring, webhook delivery and feed refresh (the
    /// latter only when `[briefs] feeds` names some). Call it inside a Tokio runtime; set
    /// [`LocalService::set_server_mode`] first for a server.
    pub fn spawn_background(&self, config: &Config) -> Result<Background, ServiceError> {
        self.spawn_tasks(config, true)
    }

    /// [`LocalService::spawn_background`] without the webhook delivery worker: for the UI
    /// under `[ui] offline = true`, where nothing leaves the machine (events wait in the
    /// outbox for a process that delivers them).
    pub fn spawn_background_offline(&self, config: &Config) -> Result<Background, ServiceError> {
        self.spawn_tasks(config, false)
    }

    fn spawn_tasks(&self, config: &Config, deliver: bool) -> Result<Background, ServiceError> {
        self.configure(config)?;
        let (stop, _) = watch::channel(false);
        let mut tasks = Vec::new();

        let this = self.clone();
        let watchlist = config.watchlist.clone();
        let until = stopped(stop.subscribe());
        tasks.push((
            "monitoring",
            tokio::spawn(async move { this.run_monitoring(&watchlist, until).await }),
        ));

        if deliver {
            tasks.push(("webhooks", self.spawn_webhook_worker(stop.subscribe())));
        }

        if !config.briefs.feeds.is_empty() {
            let this = self.clone();
            let until = stopped(stop.subscribe());
            tasks.push((
                "feeds",
                tokio::spawn(async move { this.run_feed_refresh(until).await }),
            ));
        }
        Ok(Background { stop, tasks })
    }

    /// The webhook delivery worker, restarted after a failure until `rx` says stop.
    fn spawn_webhook_worker(&self, rx: watch::Receiver<bool>) -> JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                match this.run_webhook_worker(false, stopped(rx.clone())).await {
                    Ok(()) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, "webhook worker failed; restarting");
                        tokio::select! {
                            () = stopped(rx.clone()) => return,
                            () = tokio::time::sleep(WORKER_RESTART) => {}
                        }
                    }
                }
            }
        })
    }

    /// Reads the configured feeds until `stop` resolves: each at once, then every
    /// `refresh_secs`; one that failed again after `retry_secs`, doubling to `refresh_secs`.
    async fn run_feed_refresh(&self, stop: impl Future<Output = ()>) {
        tokio::pin!(stop);
        let config = self.extensions().briefs;
        let refresh = Duration::from_secs(config.refresh_secs.max(1));
        let retry = Duration::from_secs(config.retry_secs.max(1)).min(refresh);
        // Per feed: when it is next due, and the wait after its next failure.
        let mut due: Vec<(Instant, Duration)> = vec![(Instant::now(), retry); config.feeds.len()];
        loop {
            let now = Instant::now();
            let todo: Vec<usize> = (0..due.len()).filter(|&i| due[i].0 <= now).collect();
            if !todo.is_empty() {
                let feeds: Vec<_> = todo.iter().map(|&i| config.feeds[i].clone()).collect();
                let reports = tokio::select! {
                    () = &mut stop => return,
                    reports = self.read_feeds(&feeds) => reports,
                };
                let reports = reports.unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "feed refresh failed; retrying later");
                    feeds
                        .iter()
                        .map(|f| FeedReport {
                            name: f.name.clone(),
                            items: 0,
                            new: 0,
                            error: Some(e.to_string()),
                        })
                        .collect()
                });
                let now = Instant::now();
                for (i, report) in todo.into_iter().zip(reports) {
                    due[i] = if report.error.is_some() {
                        (now + due[i].1, (due[i].1 * 2).min(refresh))
                    } else {
                        (now + refresh, retry)
                    };
                }
            }
            let next = due.iter().map(|d| d.0).min().unwrap_or(now + refresh);
            tokio::select! {
                () = &mut stop => return,
                () = tokio::time::sleep_until(next) => {}
            }
        }
    }
}
