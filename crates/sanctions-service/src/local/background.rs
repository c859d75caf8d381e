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
use super::jobs::{Claim, RUN_LEASE};
use crate::ServiceError;
use crate::config::{Config, FeedConfig};

/// How long [`Background::stop`] waits for a task to finish before aborting it.
const GRACE: Duration = Duration::from_secs(5);
/// Wait after the webhook worker failed (e.g. the store was busy) before it starts again.
const WORKER_RESTART: Duration = Duration::from_secs(5);

/// What a scheduled read of a feed came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FeedRead {
    Read,
    Failed,
    /// Another process holds the feed's job.
    Held,
}

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
    /// Each read is a job claimed in the store (`feed:NAME`): of the processes on one store,
    /// one reads a feed per period; a feed another process holds is asked for again later.
    async fn run_feed_refresh(&self, stop: impl Future<Output = ()>) {
        tokio::pin!(stop);
        let config = self.extensions().briefs;
        let refresh = Duration::from_secs(config.refresh_secs.max(1));
        let retry = Duration::from_secs(config.retry_secs.max(1)).min(refresh);
        // Per feed: when it is next due, and the wait after its next failure.
        let mut due: Vec<(Instant, Duration)> = vec![(Instant::now(), retry); config.feeds.len()];
        loop {
            let now = Instant::now();
            for (i, feed) in config.feeds.iter().enumerate() {
                if due[i].0 > now {
                    continue;
                }
                let read = tokio::select! {
                    () = &mut stop => return,
                    read = self.read_feed_claimed(feed, refresh) => read,
                };
                let now = Instant::now();
                due[i] = match read {
                    FeedRead::Read => (now + refresh, retry),
                    FeedRead::Failed => (now + due[i].1, (due[i].1 * 2).min(refresh)),
                    FeedRead::Held => (now + retry, due[i].1),
                };
            }
            let next = due.iter().map(|d| d.0).min().unwrap_or(now + refresh);
            tokio::select! {
                () = &mut stop => return,
                () = tokio::time::sleep_until(next) => {}
            }
        }
    }

    /// Reads `feed` when this process wins its job; a read that worked keeps the job for
    /// `refresh`, one that failed gives it up (any process may try again).
    async fn read_feed_claimed(&self, feed: &FeedConfig, refresh: Duration) -> FeedRead {
        let job = format!("feed:{}", feed.name);
        let key = job.clone();
        match self
            .blocking(move |this| this.claim_job(&key, RUN_LEASE))
            .await
        {
            Ok(Claim::Won) => {}
            Ok(Claim::Held) => return FeedRead::Held,
            Err(e) => {
                tracing::warn!(error = %e, feed = %feed.name, "feed not claimed; retrying later");
                return FeedRead::Failed;
            }
        }
        let read = match self.read_feeds(std::slice::from_ref(feed)).await {
            Ok(reports) if reports.iter().all(|r| r.error.is_none()) => FeedRead::Read,
            Ok(_) => FeedRead::Failed,
            Err(e) => {
                tracing::warn!(error = %e, "feed refresh failed; retrying later");
                FeedRead::Failed
            }
        };
        let done = self.blocking(move |this| match read {
            FeedRead::Read => this.claim_job(&job, refresh).map(|_| ()),
            _ => this.release_job(&job),
        });
        if let Err(e) = done.await {
            tracing::warn!(error = %e, feed = %feed.name, "feed job not updated");
        }
        read
    }
}
