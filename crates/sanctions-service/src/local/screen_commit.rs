//! Group commit of stored screenings: one writer thread takes the screenings (with their
//! alerts and webhook events) that callers hand it and stores all those waiting in ONE
//! durable transaction, so concurrent requests share an fsync instead of queueing for one
//! each.
//!
//! Durability is unchanged: a caller is answered only once the transaction holding its
//! screening has committed (`synchronous=FULL`), so a stored screening's id, and a server's
//! 200, still mean "on disk". No delay is added to collect a group: while one transaction
//! commits, the next requests queue, and the next transaction takes them all (at most
//! [`MAX_GROUP`]). When a group's transaction fails, each of its members is retried alone,
//! so one bad record never fails the others.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::LocalService;
use crate::ServiceError;
use crate::store::{Changes, Repository, SqliteRepository, StoreError};

/// The most operations stored in one transaction.
pub(crate) const MAX_GROUP: usize = 256;

/// One operation's changes and where to send the outcome of its commit.
pub(crate) struct Job {
    changes: Changes,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// Starts the writer thread over `repo`; it ends when every sender is dropped.
pub(crate) fn start(repo: Arc<SqliteRepository>) -> Option<mpsc::Sender<Job>> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("sanctions-commit".into())
        .spawn(move || run(repo.as_ref(), &rx))
        .map_err(|e| tracing::warn!("cannot start the group-commit writer: {e}"))
        .ok()?;
    Some(tx)
}

fn run(repo: &dyn Repository, rx: &mpsc::Receiver<Job>) {
    let mut stats = Stats::default();
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let n = jobs.len();
        let started = Instant::now();
        commit(repo, jobs);
        stats.add(n, started.elapsed());
    }
}

/// How the groups went, logged at debug level every [`Stats::EVERY`] (a server's latency
/// tail is mostly the time a request waits for its group's commit).
#[derive(Default)]
struct Stats {
    since: Option<Instant>,
    groups: u64,
    operations: u64,
    largest: usize,
    total: Duration,
    longest: Duration,
    over_10ms: u64,
}

impl Stats {
    const EVERY: Duration = Duration::from_secs(10);

    fn add(&mut self, n: usize, took: Duration) {
        let since = *self.since.get_or_insert_with(Instant::now);
        self.groups += 1;
        self.operations += n as u64;
        self.largest = self.largest.max(n);
        self.total += took;
        self.longest = self.longest.max(took);
        self.over_10ms += u64::from(took > Duration::from_millis(10));
        if since.elapsed() >= Self::EVERY {
            tracing::debug!(
                groups = self.groups,
                operations = self.operations,
                largest = self.largest,
                mean_ms = self.total.as_secs_f64() * 1e3 / self.groups as f64,
                longest_ms = self.longest.as_secs_f64() * 1e3,
                over_10ms = self.over_10ms,
                "group commits"
            );
            *self = Stats::default();
        }
    }
}

/// Stores `jobs` in one transaction and answers each; on failure, each alone.
fn commit(repo: &dyn Repository, jobs: Vec<Job>) {
    let (changes, replies): (Vec<Changes>, Vec<_>) =
        jobs.into_iter().map(|j| (j.changes, j.reply)).unzip();
    match repo.record_all(&changes) {
        Ok(()) => {
            for reply in replies {
                let _ = reply.send(Ok(()));
            }
        }
        Err(error) if changes.len() == 1 => {
            if let Some(reply) = replies.into_iter().next() {
                let _ = reply.send(Err(error));
            }
        }
        Err(error) => {
            tracing::warn!(
                n = changes.len(),
                "a group commit failed ({error}); storing its members one by one"
            );
            for (changes, reply) in changes.iter().zip(replies) {
                let _ = reply.send(repo.record(changes));
            }
        }
    }
}

impl LocalService {
    /// Stores `changes` through the group-commit writer and returns once they are committed.
    pub(crate) async fn commit(&self, changes: Changes) -> Result<(), ServiceError> {
        let sender = self
            .inner
            .committer
            .get_or_init(|| start(self.inner.repo.clone()));
        let (reply, answer) = oneshot::channel();
        let job = Job { changes, reply };
        let job = match sender {
            Some(sender) => match sender.send(job) {
                Ok(()) => {
                    return answer
                        .await
                        .map_err(|_| {
                            ServiceError::Internal(
                                "the store's writer stopped before answering".into(),
                            )
                        })?
                        .map_err(ServiceError::from);
                }
                Err(mpsc::SendError(job)) => job,
            },
            None => job,
        };
        // No writer thread (it could not start, or stopped): store on the blocking pool.
        self.blocking(move |this| this.repo().record(&job.changes).map_err(ServiceError::from))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ReviewStatus, ScreeningFilter, ScreeningOrigin, ScreeningRecord};

    fn screening(id: &str) -> Changes {
        Changes {
            screenings: vec![ScreeningRecord {
                id: id.to_owned(),
                query: "Ana".into(),
                kind: None,
                threshold: 80,
                created_at: jiff::Timestamp::now(),
                total_matches: 0,
                status: ReviewStatus::NoMatch,
                matched: Vec::new(),
                results: serde_json::json!([]),
                list_versions: Default::default(),
                engine_version: "test".into(),
                actor: "t".into(),
                origin: ScreeningOrigin::Single,
                favorite_id: None,
            }],
            ..Changes::default()
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_commits_are_all_stored_and_a_bad_one_fails_alone() {
        let dir = tempfile::tempdir().unwrap();
        let service = LocalService::open(&dir.path().join("s.db"), "t").unwrap();
        let mut tasks = Vec::new();
        for i in 0..200 {
            let s = service.clone();
            tasks.push(tokio::spawn(async move {
                s.commit(screening(&format!("scr_{i:04}"))).await
            }));
        }
        // The same id twice: the second is refused by the primary key, alone.
        let (a, b) = tokio::join!(
            service.commit(screening("scr_dup")),
            service.commit(screening("scr_dup"))
        );
        assert!(a.is_ok() != b.is_ok(), "{a:?} {b:?}");
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        let stored = service
            .repository()
            .screenings(
                crate::store::DEFAULT_ACCOUNT,
                &ScreeningFilter {
                    limit: 1000,
                    ..ScreeningFilter::default()
                },
            )
            .unwrap();
        assert_eq!(stored.len(), 201);
    }
}
