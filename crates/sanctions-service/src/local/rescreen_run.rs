//! The full re-screen of the watchlist in claimed chunks (issue 25): every process on the
//! store (each `serve` instance's monitoring, each `watchlist rescreen`) joins the open run
//! of a scope (one account's watchlist, or every account's), claims the next chunk nobody
//! holds (or whose holder's lease ran out), screens it on all cores and commits it together
//! with marking it done, renewing its lease meanwhile. A process killed mid-chunk stops
//! renewing; another takes its chunk over when the lease ends, and the killed one's work is
//! never committed. The process that sees every chunk done finishes the run, once.
//!
//! Settings (environment, read at each run): `SANCTIONS_RESCREEN_CHUNK` favorites per chunk
//! (default 20,000), `SANCTIONS_RESCREEN_LEASE_SECS` the lease of a chunk (default 120;
//! renewed every third of it, so a dead holder's chunk waits at most that long).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::ScopedJoinHandle;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use rayon::prelude::*;

use super::monitor::{gather, rescreen_request, screen_favorite};
use super::nearness::{Near, NearRow};

/// A chunk screened: the updates of the favorites whose matched set changed, their
/// screenings, alerts and events, and how near each favorite came (with the values kept).
type ScreenedChunk = (Vec<crate::store::FavoriteUpdate>, Changes, Vec<NearRow>);
use super::{ENGINE_VERSION, Loaded, LocalService};
use crate::ServiceError;
use crate::api::favorites::RescreenSummary;
use crate::model::RescreenRun;
use crate::store::{
    Changes, ChunkClaim, ChunkCommit, ChunkDone, ChunkFavorite, ChunkLease, ChunkRunStart,
    ChunkRunState, EVERY_ACCOUNT, RescreenChunk,
};

/// Favorites per chunk unless `SANCTIONS_RESCREEN_CHUNK` says otherwise.
const DEFAULT_CHUNK: usize = 20_000;
/// The lease of a chunk unless `SANCTIONS_RESCREEN_LEASE_SECS` says otherwise.
const DEFAULT_LEASE: Duration = Duration::from_secs(120);
/// Times a chunk is read and screened again when favorites changed under it.
const STALE_ATTEMPTS: usize = 3;
/// Open runs a monitoring tick joins.
const JOIN_LIMIT: usize = 8;

/// The chunk size and lease in force.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChunkSettings {
    pub chunk: usize,
    pub lease: Duration,
}

impl ChunkSettings {
    /// The settings from the environment (bad or missing values: the defaults).
    pub(crate) fn from_env() -> ChunkSettings {
        let number = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|n| *n > 0)
        };
        ChunkSettings {
            chunk: number("SANCTIONS_RESCREEN_CHUNK").map_or(DEFAULT_CHUNK, |n| {
                n.min(crate::store::rescreen_chunks::MAX_CHUNK as u64) as usize
            }),
            lease: number("SANCTIONS_RESCREEN_LEASE_SECS")
                .map_or(DEFAULT_LEASE, |s| Duration::from_secs(s.min(24 * 3600))),
        }
    }

    /// How long a process waiting for others' chunks sleeps between looks.
    fn poll(&self) -> Duration {
        (self.lease / 8).clamp(Duration::from_millis(100), Duration::from_secs(1))
    }
}

/// What this process did in a run.
#[derive(Debug, Default)]
struct Worked {
    alert_ids: Vec<String>,
    chunks: usize,
}

/// A chunk worked on a thread of its own: the ids of the alerts it recorded.
type ChunkWorked = Result<Vec<String>, ServiceError>;

impl Worked {
    /// Adds a chunk's outcome, joined from its thread.
    fn add(&mut self, joined: std::thread::Result<ChunkWorked>) -> Result<(), ServiceError> {
        let ids = joined.map_err(|_| {
            ServiceError::Internal("a re-screen chunk's thread stopped unexpectedly".to_owned())
        })??;
        self.alert_ids.extend(ids);
        self.chunks += 1;
        Ok(())
    }
}

impl LocalService {
    /// A full re-screen of `scope` (an account, or every account's watchlist) in claimed
    /// chunks: joins the open run of the scope or opens one, works chunks until none is left
    /// to claim, then waits for the chunks other processes hold (taking over any whose lease
    /// runs out) and answers the finished run's summary (the alerts: those this process
    /// recorded).
    pub(crate) fn rescreen_chunked(
        &self,
        loaded: &Loaded,
        scope: Option<&str>,
        reason: &str,
    ) -> Result<RescreenSummary, ServiceError> {
        let settings = ChunkSettings::from_env();
        let repo = self.repo();
        let start = ChunkRunStart {
            scope: scope.unwrap_or(EVERY_ACCOUNT),
            reason,
            now: Timestamp::now(),
            chunk_size: settings.chunk,
        };
        let run = repo.open_rescreen_chunks(&start)?;
        tracing::info!(
            run = run.id,
            chunks = run.chunks,
            done = run.done,
            "re-screen run joined"
        );
        let mut worked = Worked::default();
        loop {
            if self.work_run(loaded, &run, settings, &mut worked)? {
                break;
            }
            std::thread::sleep(settings.poll());
        }
        self.summary(&run, scope, worked)
    }

    /// Works the open runs of every scope without waiting for chunks others hold (each
    /// `serve` instance's monitoring, every tick); returns the chunks it committed.
    pub(crate) fn join_rescreens(&self) -> Result<usize, ServiceError> {
        let open = self
            .repo()
            .open_rescreen_chunk_runs(Timestamp::now(), JOIN_LIMIT)?;
        if open.is_empty() {
            return Ok(0);
        }
        let loaded = self.ready()?;
        let settings = ChunkSettings::from_env();
        let mut worked = Worked::default();
        for run in &open {
            self.work_run(&loaded, run, settings, &mut worked)?;
        }
        Ok(worked.chunks)
    }

    /// Claims and works chunks of `run` until none is left to claim; finishes the run when
    /// every chunk is done. True when the run is finished (by this process or another).
    ///
    /// Two chunks are in hand at a time, each on a thread of its own: the next is claimed,
    /// read and screened while the one before is committed (its writes are the database's
    /// work, not this process's), so that the cores screen all the time.
    fn work_run(
        &self,
        loaded: &Loaded,
        run: &ChunkRunState,
        settings: ChunkSettings,
        worked: &mut Worked,
    ) -> Result<bool, ServiceError> {
        let repo = self.repo();
        std::thread::scope(|s| {
            let mut in_hand: Option<ScopedJoinHandle<'_, ChunkWorked>> = None;
            loop {
                let now = Timestamp::now();
                let lease = ChunkLease {
                    run_id: run.id,
                    owner: self.job_owner(),
                    now,
                    until: later(now, settings.lease),
                };
                let claim = repo.claim_rescreen_chunk(&lease)?;
                if let ChunkClaim::Claimed(chunk) = claim {
                    let next = s.spawn(move || self.work_chunk(loaded, &chunk, settings));
                    if let Some(before) = in_hand.replace(next) {
                        worked.add(before.join())?;
                    }
                    continue;
                }
                // Nothing to claim: the chunk in hand first, then look again (it may have
                // been the last).
                if let Some(before) = in_hand.take() {
                    worked.add(before.join())?;
                    continue;
                }
                if let ChunkClaim::AllDone = claim {
                    let record = self.run_record(loaded, run);
                    if let Some(id) =
                        repo.finish_rescreen_chunks(run.id, &record, Timestamp::now())?
                    {
                        tracing::info!(run = run.id, record = id, "re-screen run finished");
                    }
                    return Ok(true);
                }
                return Ok(false);
            }
        })
    }

    /// Screens one claimed chunk and commits it, renewing its lease on another thread
    /// meanwhile. Returns the ids of the alerts recorded (none when the claim was lost).
    fn work_chunk(
        &self,
        loaded: &Loaded,
        chunk: &RescreenChunk,
        settings: ChunkSettings,
    ) -> Result<Vec<String>, ServiceError> {
        let lost = AtomicBool::new(false);
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::scope(|s| {
            let lost = &lost;
            s.spawn(move || self.renew_until(chunk, settings.lease, &stopped, lost));
            let result = self.screen_and_commit(loaded, chunk, lost);
            drop(stop);
            if result.is_err() {
                // Given up at once, so another process may take the chunk.
                let _ = self
                    .repo()
                    .renew_rescreen_chunk(chunk, self.job_owner(), Timestamp::now());
            }
            result
        })
    }

    /// Renews `chunk`'s lease every third of it until `stopped` closes; sets `lost` when
    /// this process no longer holds it.
    fn renew_until(
        &self,
        chunk: &RescreenChunk,
        lease: Duration,
        stopped: &mpsc::Receiver<()>,
        lost: &AtomicBool,
    ) {
        let every = lease / 3;
        while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
            let until = later(Timestamp::now(), lease);
            match self
                .repo()
                .renew_rescreen_chunk(chunk, self.job_owner(), until)
            {
                Ok(true) => {}
                Ok(false) => {
                    lost.store(true, Ordering::Relaxed);
                    return;
                }
                Err(e) => tracing::warn!(error = %e, "renewing a re-screen chunk's lease failed"),
            }
        }
    }

    fn screen_and_commit(
        &self,
        loaded: &Loaded,
        chunk: &RescreenChunk,
        lost: &AtomicBool,
    ) -> Result<Vec<String>, ServiceError> {
        let repo = self.repo();
        for _ in 0..STALE_ATTEMPTS {
            let started = Instant::now();
            let favorites = repo.rescreen_chunk_favorites(chunk)?;
            let read = started.elapsed();
            let (updates, changes, near) = self.screen_chunk(loaded, &favorites)?;
            let screened = started.elapsed();
            if lost.load(Ordering::Relaxed) {
                tracing::warn!(
                    run = chunk.run_id,
                    chunk = chunk.seq,
                    "chunk taken over; nothing committed"
                );
                return Ok(Vec::new());
            }
            let done = ChunkDone {
                chunk,
                owner: self.job_owner(),
                at: Timestamp::now(),
                screened: favorites.len() as u64,
                updates: &updates,
                changes: &changes,
            };
            match repo.commit_rescreen_chunk(&done)? {
                ChunkCommit::Done(recorded) => {
                    self.keep_nearness(loaded, near)?;
                    tracing::info!(
                        run = chunk.run_id,
                        chunk = chunk.seq,
                        screened = favorites.len(),
                        changed = updates.len(),
                        read_millis = read.as_millis() as u64,
                        screen_millis = (screened - read).as_millis() as u64,
                        millis = started.elapsed().as_millis() as u64,
                        "re-screen chunk committed"
                    );
                    return Ok(recorded);
                }
                ChunkCommit::Lost => {
                    tracing::warn!(
                        run = chunk.run_id,
                        chunk = chunk.seq,
                        "chunk taken over; nothing committed"
                    );
                    return Ok(Vec::new());
                }
                ChunkCommit::Stale => {
                    tracing::info!(
                        run = chunk.run_id,
                        chunk = chunk.seq,
                        "favorites changed meanwhile; screening the chunk again"
                    );
                }
            }
        }
        Err(ServiceError::Unavailable(format!(
            "the watchlist changed under {STALE_ATTEMPTS} screenings of one re-screen chunk in a \
             row; try again"
        )))
    }

    /// Screens a chunk's favorites on all cores: the updates of those whose matched set
    /// changed, with their screenings, alerts and events, and how near each came.
    fn screen_chunk(
        &self,
        loaded: &Loaded,
        favorites: &[ChunkFavorite],
    ) -> Result<ScreenedChunk, ServiceError> {
        let actor = self.actor().to_owned();
        let outcomes: Vec<(Option<_>, Option<Near>)> = favorites
            .par_iter()
            .map(|f| {
                let request = rescreen_request(&f.favorite);
                let previous = (!f.matches.is_empty()).then_some(&f.matches);
                screen_favorite(loaded, &f.favorite.id, request, previous, &actor)
            })
            .collect::<Result<_, _>>()?;
        let near = favorites
            .iter()
            .zip(&outcomes)
            .filter_map(|(f, (_, near))| {
                near.map(|n| (f.favorite.id.clone(), n, f.favorite.nearness))
            })
            .collect();
        let outcomes = outcomes.into_iter().map(|(screened, _)| screened).collect();
        let mut changes = Changes::default();
        let (updates, _alert_ids) = gather(outcomes, &mut changes);
        Ok((updates, changes, near))
    }

    /// The compact record a finished run leaves (its counts summed from its chunks).
    fn run_record(&self, loaded: &Loaded, run: &ChunkRunState) -> RescreenRun {
        RescreenRun {
            id: 0,
            at: run.started_at,
            reason: run.reason.clone(),
            mode: "full".to_owned(),
            list_versions: loaded.versions.clone(),
            engine_version: ENGINE_VERSION.to_owned(),
            actor: self.actor().to_owned(),
            screened: 0,
            changed: 0,
            alerts: 0,
        }
    }

    /// The summary of a finished run, with the alerts this process recorded.
    fn summary(
        &self,
        run: &ChunkRunState,
        scope: Option<&str>,
        worked: Worked,
    ) -> Result<RescreenSummary, ServiceError> {
        let repo = self.repo();
        let now = Timestamp::now();
        let state = repo
            .rescreen_chunk_run(run.id, now)?
            .unwrap_or_else(|| run.clone());
        let end = state.finished_at.unwrap_or(now);
        let millis = end.duration_since(state.started_at).as_millis().max(0) as u64;
        Ok(RescreenSummary {
            run_id: state.rescreen_run_id,
            mode: "full".to_owned(),
            favorites: repo.favorite_count(scope)?,
            screened: state.screened,
            changed: state.changed,
            alert_ids: worked.alert_ids,
            millis,
        })
    }
}

/// `now` plus `lease`.
fn later(now: Timestamp, lease: Duration) -> Timestamp {
    now.checked_add(SignedDuration::try_from(lease).unwrap_or(SignedDuration::MAX))
        .unwrap_or(now)
}
