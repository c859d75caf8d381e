//! Monitoring: after every list import (and on demand or on a schedule) every favorite is
//! re-screened. A favorite whose set of matched entries gains an entry gets one
//! `favorite.match` alert (and webhook event) naming the new entries; lost entries are
//! recorded on it. A run that finds nothing new writes only its compact run record.
//!
//! Two ways to the same answer. A full run screens every favorite. An incremental run, used
//! after list updates when the watchlist is large, screens only the favorites that can have
//! changed: those matching an entry the updates changed or removed, those whose score
//! against an added or changed entry can reach the threshold by a bound worked out from the
//! favorite's tokens (`engine::ChangedEntries`; no index of the watchlist is built), and
//! those whose score against an entry the updates left alone can cross the threshold because
//! the token weights moved: their nearest miss or lowest match, kept from their last
//! screening, within the weights' drift of it (`super::nearness`, `engine::WeightDrift`), or
//! unknown. Tests compare the two on real OFAC editions and on a synthetic update, and run a
//! full re-screen after the incremental one, which must change nothing.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use jiff::Timestamp;
use rayon::prelude::*;

use super::jobs::RUN_LEASE;
use super::nearness::{DriftStep, LEAST_NEAR, Near, may_cross};
use super::screen::{record_of, screen_near};
use super::{ENGINE_VERSION, Loaded, LocalService, new_id};
use crate::ServiceError;
use crate::api::favorites::RescreenSummary;
use crate::api::screening::ScreenRequest;
use crate::engine::{self, Index};
use crate::local::convert::kind_filter;
use crate::mapping;
use crate::model::{
    Alert, AlertKind, AlertStatus, ChangeKind, EntityKind, ListCode, OutboxEvent, RescreenRun,
    ScreeningOrigin, Severity,
};
use crate::store::{
    Changes, FavoriteUpdate, MarkerMove, Nearness, StoreError, WATCHLIST_MARKER, WatchedName,
};

/// The progress marker: the newest list update already monitored.
const MARKER: &str = "monitored_update";
/// The job of the scheduled full re-screen, claimed by one process per period.
const SCHEDULED_RESCREEN: &str = "rescreen:scheduled";
/// Most entity ids named on a `list.updated` alert (the message gives the counts).
const MAX_ALERT_IDS: usize = 200;
/// Below this many favorites a full run is cheap enough to be the only way.
const INCREMENTAL_FROM: u64 = 5_000;
/// The threshold a favorite is re-screened at.
const DEFAULT_THRESHOLD: u8 = engine::DEFAULT_THRESHOLD;
/// Runs a re-screen makes when other processes keep recording runs first.
const ATTEMPTS: usize = 5;

/// How a re-screen chooses the favorites it screens again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RescreenMode {
    /// Every favorite.
    Full,
    /// Only favorites the changed entries can affect (after list updates).
    Incremental,
    /// Incremental for a large watchlist after list updates, else full.
    Auto,
}

impl LocalService {
    /// Monitors list updates not yet monitored: a `list.updated` alert for each that
    /// changed something, then a re-screen of the watchlist (incremental when large).
    /// Running it again with no new update does nothing.
    pub async fn monitor(&self) -> Result<RescreenSummary, ServiceError> {
        self.monitor_with(RescreenMode::Auto).await
    }

    /// [`LocalService::monitor`] with a chosen mode (tests compare them).
    pub async fn monitor_with(&self, mode: RescreenMode) -> Result<RescreenSummary, ServiceError> {
        let _one_at_a_time = self.inner.monitor.lock().await;
        self.blocking(move |this| this.claimed(|| this.monitor_blocking(mode)))
            .await
    }

    /// Runs `attempt` until it records its run: an attempt that another process beat to the
    /// progress markers recorded nothing and is made again from the new state.
    fn claimed(
        &self,
        mut attempt: impl FnMut() -> Result<Option<RescreenSummary>, ServiceError>,
    ) -> Result<RescreenSummary, ServiceError> {
        for _ in 0..ATTEMPTS {
            if let Some(summary) = attempt()? {
                return Ok(summary);
            }
            tracing::info!("another process recorded a re-screen first; re-screening again");
        }
        Err(ServiceError::Unavailable(format!(
            "the watchlist changed under {ATTEMPTS} re-screens in a row (other processes \
             re-screening or editing it); try again"
        )))
    }

    /// Starts the watchlist monitoring alone (see [`LocalService::spawn_background`] for all
    /// background work): every `config.poll_secs` it monitors list updates made by any
    /// process, and every `config.rescreen_every_hours` it re-screens the whole watchlist.
    /// Errors are logged and retried at the next tick; abort the handle to stop.
    pub fn spawn_monitoring(
        &self,
        config: &crate::config::WatchlistConfig,
    ) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        let config = config.clone();
        tokio::spawn(async move { this.run_monitoring(&config, std::future::pending()).await })
    }

    /// The monitoring schedule of [`LocalService::spawn_monitoring`], until `stop` resolves
    /// (a run under way when it does finishes in the background and is committed whole).
    pub(crate) async fn run_monitoring(
        &self,
        config: &crate::config::WatchlistConfig,
        stop: impl std::future::Future<Output = ()>,
    ) {
        tokio::pin!(stop);
        let poll = std::time::Duration::from_secs(config.poll_secs.max(1));
        let every = std::time::Duration::from_secs(config.rescreen_every_hours.max(1) * 3600);
        let mut next_full = Instant::now() + every;
        loop {
            tokio::select! {
                () = &mut stop => return,
                () = tokio::time::sleep(poll) => {}
            }
            let work = async {
                if let Err(e) = self.monitor().await {
                    tracing::warn!(error = %e, "watchlist monitoring failed; retrying later");
                }
                self.join_rescreens_now().await;
                if Instant::now() >= next_full {
                    next_full = Instant::now() + self.scheduled_rescreen(every).await;
                }
            };
            tokio::select! {
                () = &mut stop => return,
                () = work => {}
            }
        }
    }

    /// The scheduled full re-screen, claimed in the store so that one process of all those
    /// on the store runs it per period; returns the wait before this process asks again.
    async fn scheduled_rescreen(&self, every: std::time::Duration) -> std::time::Duration {
        let run = self.rescreen_run(false);
        match self.scheduled(SCHEDULED_RESCREEN, every, run).await {
            Ok(Some(summary)) => tracing::info!(?summary, "scheduled watchlist re-screen"),
            // Running or done by another process: ask again later (it may die).
            Ok(None) => return RUN_LEASE.min(every),
            Err(e) => tracing::warn!(error = %e, "scheduled re-screen failed"),
        }
        every
    }

    /// `POST /favorites/rescreen`: this service's account's watchlist.
    pub(crate) async fn rescreen_local(&self) -> Result<RescreenSummary, ServiceError> {
        self.rescreen_run(true).await
    }

    /// A full re-screen of this service's account's watchlist (`own`), or of every
    /// account's (the scheduled one): the run of that scope in claimed chunks, joined by
    /// every process on the store (see [`super::rescreen_run`]).
    async fn rescreen_run(&self, own: bool) -> Result<RescreenSummary, ServiceError> {
        let _one_at_a_time = self.inner.monitor.lock().await;
        self.blocking(move |this| {
            let loaded = this.ready()?;
            let scope = own.then(|| this.account_id());
            let reason = if own { "manual" } else { "scheduled" };
            this.rescreen_chunked(&loaded, scope.as_deref(), reason)
        })
        .await
    }

    /// Works the chunks of any open full re-screen (started by another process), without
    /// waiting for those others hold.
    async fn join_rescreens_now(&self) {
        let _one_at_a_time = self.inner.monitor.lock().await;
        match self.blocking(|this| this.join_rescreens()).await {
            Ok(0) => {}
            Ok(chunks) => tracing::info!(chunks, "re-screen chunks of an open run committed"),
            Err(e) => tracing::warn!(error = %e, "joining a re-screen run failed; retrying later"),
        }
    }

    fn monitor_blocking(
        &self,
        mode: RescreenMode,
    ) -> Result<Option<RescreenSummary>, ServiceError> {
        let repo = self.repo();
        let marker = repo.marker(MARKER)?.unwrap_or(0);
        let favorites = repo.favorite_count(None)?;
        // The index is built only when there is a watchlist to re-screen.
        let loaded = if favorites > 0 {
            self.current()?
        } else {
            Arc::new(Loaded {
                index: Index::default(),
                latest_update: repo.latest_update_id()?,
                versions: repo.list_versions()?,
                answers: Default::default(),
            })
        };
        if loaded.latest_update <= marker {
            return Ok(Some(nothing(favorites)));
        }
        let mut changes = Changes::default();
        let mut changed: Vec<(String, ChangeKind)> = Vec::new();
        for list in ListCode::ALL {
            for update in repo.updates(list, 10_000)? {
                if update.id <= marker
                    || update.id > loaded.latest_update
                    || update.failed.is_some()
                {
                    continue;
                }
                if update.added + update.removed + update.changed == 0 {
                    continue;
                }
                let entity_changes = repo.changes(update.id)?;
                changes.alerts.push(list_alert(&update, &entity_changes));
                changed.extend(entity_changes.into_iter().map(|c| (c.entity_id, c.change)));
            }
        }
        let mode = match mode {
            // A first import changes everything: nothing to gain from an incremental run.
            RescreenMode::Auto if marker > 0 && repo.favorite_count(None)? >= INCREMENTAL_FROM => {
                RescreenMode::Incremental
            }
            RescreenMode::Auto => RescreenMode::Full,
            RescreenMode::Incremental if marker == 0 => RescreenMode::Full,
            other => other,
        };
        let drift = self.drift_step(&loaded, marker, &changed)?;
        self.rescreen_blocking(
            &loaded,
            "list update",
            (mode, &drift),
            &changed,
            changes,
            (marker, loaded.latest_update),
        )
    }

    /// Re-screens the watchlist (all of it, or the candidates of `changed`) and records the
    /// run with `changes` (alerts already decided on) and the markers, in one transaction.
    /// `marker` moves the monitored-update marker from the value read to the one covered;
    /// `drift` is the new index's weight drift, recorded with it (see [`super::nearness`]).
    /// `None` when another process recorded a run first (nothing of this one is kept).
    fn rescreen_blocking(
        &self,
        loaded: &Loaded,
        reason: &str,
        (mode, drift): (RescreenMode, &DriftStep),
        changed: &[(String, ChangeKind)],
        mut changes: Changes,
        marker: (i64, i64),
    ) -> Result<Option<RescreenSummary>, ServiceError> {
        let started = Instant::now();
        let repo = self.repo();
        // Read before the matches: a run recorded in between moves it, and this one loses.
        let version = repo.marker(WATCHLIST_MARKER)?.unwrap_or(0);
        let previous = repo.favorite_matches()?;
        let incremental = mode == RescreenMode::Incremental && loaded.index.entity_count() > 0;
        let mut selection =
            incremental.then(|| Selection::new(loaded, (&previous, drift), changed));
        let (total, selected) = read_selecting(repo.as_ref(), selection.as_mut())?;
        let (mut raised_near, drift) = match selection.map(Selection::finish) {
            Some((raised, chosen)) => (raised, chosen),
            None => (Vec::new(), drift.clone()),
        };
        let now = Timestamp::now();
        let actor = self.actor().to_owned();
        let screening = Instant::now();
        let outcomes: Vec<(Option<Screened>, Option<Near>)> = selected
            .par_iter()
            .map(|f| {
                let request = rescreen_request(f);
                screen_favorite(loaded, &f.id, request, previous.get(&f.id), &actor)
            })
            .collect::<Result<_, _>>()?;
        let mut near = stamped(&selected, &outcomes, drift.now);
        near.append(&mut raised_near);
        let outcomes = outcomes.into_iter().map(|(screened, _)| screened).collect();
        tracing::info!(
            screened = selected.len(),
            millis = screening.elapsed().as_millis() as u64,
            // From the start of the watchlist's read (which the selection overlaps).
            since_read_millis = started.elapsed().as_millis() as u64,
            "favorites re-screened"
        );
        let (updates, alert_ids) = gather(outcomes, &mut changes);
        let run_record = RescreenRun {
            id: 0,
            at: now,
            reason: reason.to_owned(),
            mode: mode_word(mode).to_owned(),
            list_versions: loaded.versions.clone(),
            engine_version: ENGINE_VERSION.to_owned(),
            actor,
            screened: selected.len() as u64,
            changed: updates.len() as u64,
            alerts: changes.alerts.len() as u64,
        };
        let mut markers = vec![
            MarkerMove {
                key: WATCHLIST_MARKER,
                from: version,
                to: version + 1,
            },
            MarkerMove {
                key: MARKER,
                from: marker.0,
                to: marker.1,
            },
        ];
        markers.extend(drift.markers());
        let Some(run_id) = repo.record_rescreen(&run_record, &updates, &changes, &markers)? else {
            return Ok(None);
        };
        // After the run: values written alone are true of their index whenever they land.
        repo.set_nearness(&near)?;
        Ok(Some(RescreenSummary {
            run_id: Some(run_id),
            mode: run_record.mode,
            favorites: total,
            screened: run_record.screened,
            changed: run_record.changed,
            alert_ids,
            millis: started.elapsed().as_millis() as u64,
        }))
    }
}

/// Favorites per chunk of the watchlist's read for a re-screen: the selection works on one
/// while the next is read, and keeps only the favorites it selects. A debug build (the
/// tests') reads 64 at a time, so that every re-screen a test runs crosses chunks.
const READ_CHUNK: usize = if cfg!(debug_assertions) { 64 } else { 65_536 };

/// Favorites per part of a chunk's selection ([`Selection::select`]): the threads take parts
/// as they free up (a thread that shares its core with the read takes fewer).
const SELECTION_PART: usize = if cfg!(debug_assertions) { 8 } else { 2_048 };

/// Every favorite, read on a thread of its own in chunks; with a `selection`, each chunk's
/// selected favorites kept while the next chunk is read (the read's one core beside the
/// selection's), else all of them: the favorites to re-screen, with how many were read.
fn read_selecting(
    repo: &dyn crate::store::Repository,
    mut selection: Option<&mut Selection<'_>>,
) -> Result<(u64, Vec<WatchedName>), ServiceError> {
    let (send, chunks) = std::sync::mpsc::sync_channel::<Vec<WatchedName>>(2);
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || {
            let started = Instant::now();
            let mut read = 0usize;
            let done = repo.favorite_names_each(None, READ_CHUNK, &mut |chunk| {
                read += chunk.len();
                send.send(chunk).map_err(|_| StoreError::Unavailable {
                    message: "the re-screen stopped taking the watchlist".into(),
                    source: None,
                })
            });
            tracing::info!(
                favorites = read,
                millis = started.elapsed().as_millis() as u64,
                "watchlist read for the re-screen"
            );
            done
        });
        let (mut total, mut selected) = (0u64, Vec::new());
        for chunk in chunks {
            total += chunk.len() as u64;
            match selection.as_deref_mut() {
                Some(selection) => selected.extend(selection.select(chunk)),
                None => selected.extend(chunk),
            }
        }
        match reading.join() {
            Ok(done) => done?,
            Err(panic) => std::panic::resume_unwind(panic),
        }
        Ok((total, selected))
    })
}

/// What a [`Selection`] reads besides each favorite ([`WatchedName`]: its name, type,
/// evidence and kept nearness): the favorites' matches, and the new index's drift.
type SelectionInputs<'a> = (&'a HashMap<String, Vec<(String, u8)>>, &'a DriftStep);

/// Favorites of the watchlist's first chunk on which each room's selection is counted
/// ([`Selection::choose`]): a few thousand favorites selected by 1 in 30 give some hundreds.
const ROOM_SAMPLE: usize = if cfg!(debug_assertions) { 64 } else { 8_192 };

/// The favorites an update can have changed: those matching a changed or removed entry now,
/// those whose re-screen can reach the threshold against an added or changed entry
/// ([`engine::ChangedEntries`]: a bound on the score, worked out from the favorite's tokens,
/// never under the engine's), and, for the entries the update left alone, whose scores move
/// with the token weights ([`super::nearness`]): the entries holding a word whose weight
/// moved apart from the rest count as changed, a favorite reading such a word is selected,
/// and so is one whose nearest miss or lowest match the rest's drift can carry across the
/// threshold, or whose nearness is unknown. The room around the drift's band is chosen on
/// the first chunk ([`Selection::choose`]). Given the watchlist chunk by chunk
/// ([`Selection::select`]); [`Selection::finish`] logs what it selected and why.
struct Selection<'a> {
    index: &'a Index,
    previous: &'a HashMap<String, Vec<(String, u8)>>,
    changed: &'a [(String, ChangeKind)],
    /// The drift with the default room, until the room is chosen.
    drift: &'a DriftStep,
    basis: Option<Basis>,
    /// Favorites left alone whose kept nearest miss is raised.
    raise: Vec<(String, Option<Nearness>)>,
    why: [usize; 3],
    read: usize,
    selected: usize,
    started: Instant,
}

/// What the selection works from, for one room around the drift's band: the drift, the
/// changed (or moved) names, and the favorites matching a changed (or moved) entry now.
struct Basis {
    drift: DriftStep,
    entries: engine::ChangedEntries,
    matching: HashSet<String>,
    moved_entries: usize,
    /// One cache per thread of the pool (by its index), kept from chunk to chunk (a cache
    /// per rayon job, `map_init`, would start cold per job), the token bounds shared: each
    /// distinct token's bound is worked out by one thread only. Each in a lock that only its
    /// own thread takes (any other thread, outside the pool, takes the first).
    caches: Vec<Mutex<engine::BoundCache>>,
}

impl Basis {
    fn new(
        index: &Index,
        previous: &HashMap<String, Vec<(String, u8)>>,
        drift: DriftStep,
        changed: &[(String, ChangeKind)],
    ) -> Basis {
        let moved = drift
            .weights
            .as_ref()
            .map(|w| w.moved_entities(index))
            .unwrap_or_default();
        let touched: HashSet<&str> = changed
            .iter()
            .map(|(id, _)| id.as_str())
            .chain(moved.iter().copied())
            .collect();
        let matching = previous
            .iter()
            .filter(|(_, matches)| matches.iter().any(|(e, _)| touched.contains(e.as_str())))
            .map(|(f, _)| f.clone())
            .collect();
        // The changed entries' names and the names holding a moved word: a moved entry's
        // other names are bounded by the drift.
        let entries = engine::ChangedEntries::moving(
            index,
            changed
                .iter()
                .filter(|(_, change)| *change != ChangeKind::Removed)
                .map(|(id, _)| id.as_str()),
            drift.weights.as_ref(),
        )
        .reading_drift(drift.weights.clone());
        let shared = Arc::new(engine::SharedBounds::default());
        let caches = (0..rayon::current_num_threads().max(1))
            .map(|_| Mutex::new(engine::BoundCache::sharing(shared.clone())))
            .collect();
        Basis {
            drift,
            entries,
            matching,
            moved_entries: moved.len(),
            caches,
        }
    }

    /// What the selection decides for each favorite of `chunk`, on the pool's threads.
    fn outcomes(&self, index: &Index, chunk: &[WatchedName]) -> Vec<Selected> {
        let (drift, entries, caches) = (&self.drift, &self.entries, &self.caches);
        // Parts smaller than a thread's share, so that a thread sharing its core with the
        // read takes fewer of them, each with its thread's cache.
        chunk
            .par_chunks(SELECTION_PART)
            .flat_map_iter(|part| {
                let at = rayon::current_thread_index().unwrap_or(0);
                let mut cache = caches[at.min(caches.len() - 1)]
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                part.iter()
                    .map(|f| {
                        let request = mapping::request(&rescreen_request(f));
                        let kept = f.nearness.as_ref();
                        selects(entries, index, drift, kept, &request, &mut cache)
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// How many favorites of `sample` this basis re-screens now, and how many of the others
    /// the next update would if it added as many points of drift (their kept values, raised
    /// where this run raises them, within the drift of the threshold then).
    fn count(&self, index: &Index, sample: &[WatchedName]) -> (usize, usize) {
        let outcomes = self.outcomes(index, sample);
        let (mut now, mut next) = (0, 0);
        let again = self.drift.again();
        for (favorite, outcome) in sample.iter().zip(outcomes) {
            if self.matching.contains(&favorite.id) || matches!(outcome, Selected::Yes(_)) {
                now += 1;
                continue;
            }
            let kept = match outcome {
                Selected::Raise(near) => Some(near),
                _ => favorite.nearness,
            };
            next += usize::from(may_cross(kept.as_ref(), again, DEFAULT_THRESHOLD));
        }
        (now, next)
    }
}

impl<'a> Selection<'a> {
    fn new(
        loaded: &'a Loaded,
        (previous, drift): SelectionInputs<'a>,
        changed: &'a [(String, ChangeKind)],
    ) -> Selection<'a> {
        Selection {
            index: &loaded.index,
            previous,
            changed,
            drift,
            basis: None,
            raise: Vec::new(),
            why: [0; 3],
            read: 0,
            selected: 0,
            started: Instant::now(),
        }
    }

    /// The basis of the room that re-screens the fewest favorites of `sample` over this
    /// update and one more like it. A wider room moves fewer words apart (fewer favorites
    /// reading one, fewer changed names) but adds points of drift, which stay with every
    /// favorite left alone until it is screened again: more favorites near the threshold
    /// now, and more at every later update. The rooms are tried from the default outwards,
    /// narrower ones first (a narrow room costs the most to try on an update that moves many
    /// words, and is then the worst), each way only while the count falls.
    fn choose(&self, sample: &[WatchedName]) -> Basis {
        let rooms = engine::ROOMS;
        let default = rooms.iter().position(|r| *r == self.drift.room);
        let (Some(default), true) = (default, self.drift.has_rooms()) else {
            return self.basis(self.drift.room);
        };
        let basis = fewest(&rooms, default, |room| self.tried(room, sample));
        let weights = basis.drift.weights.as_ref();
        tracing::info!(
            room = basis.drift.room,
            points = weights.map(engine::WeightDrift::points),
            moved_words = weights.map(engine::WeightDrift::moved_count),
            sample = sample.len(),
            "room of the drift chosen on a sample of the watchlist"
        );
        basis
    }

    /// The basis of `room`.
    fn basis(&self, room: f64) -> Basis {
        let drift = self.drift.with_room(room);
        Basis::new(self.index, self.previous, drift, self.changed)
    }

    /// The basis of `room` with how many favorites of `sample` it re-screens over this update
    /// and one more like it ([`Basis::count`]).
    fn tried(&self, room: f64, sample: &[WatchedName]) -> (usize, Basis) {
        let basis = self.basis(room);
        let (now, next) = basis.count(self.index, sample);
        tracing::debug!(
            room,
            now,
            next,
            points = basis
                .drift
                .weights
                .as_ref()
                .map(engine::WeightDrift::points),
            "a room's selection on a sample of the watchlist"
        );
        (now + next, basis)
    }

    /// The favorites of `chunk` to re-screen; those left alone whose kept nearest miss
    /// rises are kept for [`Selection::finish`].
    fn select(&mut self, chunk: Vec<WatchedName>) -> Vec<WatchedName> {
        let basis = match self.basis.take() {
            Some(basis) => basis,
            None => self.choose(&chunk[..chunk.len().min(ROOM_SAMPLE)]),
        };
        let outcomes = basis.outcomes(self.index, &chunk);
        self.read += chunk.len();
        let mut kept = Vec::new();
        for (favorite, outcome) in chunk.into_iter().zip(outcomes) {
            let matching = basis.matching.contains(&favorite.id);
            match outcome {
                // One re-screened anyway keeps what its screening gives.
                Selected::Raise(near) if !matching => {
                    self.raise.push((favorite.id.clone(), Some(near)));
                }
                Selected::Raise(_) | Selected::No => {}
                Selected::Yes(reason) => self.why[reason as usize] += 1,
            }
            if matching || matches!(outcome, Selected::Yes(_)) {
                kept.push(favorite);
            }
        }
        self.selected += kept.len();
        self.basis = Some(basis);
        kept
    }

    /// Logs what was selected and why: the favorites left alone whose kept nearest miss
    /// rises, with the values to keep, and the drift the selection worked with (the room
    /// chosen).
    fn finish(self) -> (Vec<(String, Option<Nearness>)>, DriftStep) {
        let why = self.why;
        let basis = self.basis.unwrap_or_else(|| {
            Basis::new(self.index, self.previous, self.drift.clone(), self.changed)
        });
        tracing::info!(
            favorites = self.read,
            changed_names = basis.entries.name_count(),
            moved_entries = basis.moved_entries,
            matching_changed = basis.matching.len(),
            near_threshold = why[Why::NearThreshold as usize],
            moved_word = why[Why::MovedWord as usize],
            can_reach = why[Why::CanReach as usize],
            selected = self.selected,
            nearest_raised = self.raise.len(),
            room = basis.drift.room,
            millis = self.started.elapsed().as_millis() as u64,
            "favorites selected for the incremental re-screen"
        );
        (self.raise, basis.drift)
    }
}

/// What the selection decides for a favorite with these kept values (`None`: unknown).
fn selects(
    entries: &engine::ChangedEntries,
    index: &Index,
    drift: &DriftStep,
    kept: Option<&Nearness>,
    request: &engine::Request,
    cache: &mut engine::BoundCache,
) -> Selected {
    match kept {
        Some(kept) if !may_cross(Some(kept), drift.now, DEFAULT_THRESHOLD) => {
            raised(entries, index, request, *kept, drift, cache)
        }
        _ => Selected::Yes(Why::NearThreshold),
    }
}

/// What the selection decides for one favorite: re-screen it, leave it, or leave it with its
/// kept nearest miss raised to what it can now score against a changed entry.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Selected {
    Yes(Why),
    No,
    Raise(Nearness),
}

/// Why a favorite is re-screened (counted in the selection's log line, a favorite matching
/// a changed entry apart): its kept nearness is unknown or the drift can carry it across the
/// threshold, it reads a word whose weight moved, or it can reach the threshold against a
/// changed name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Why {
    NearThreshold,
    MovedWord,
    CanReach,
}

/// For a favorite the drift cannot carry across the threshold: re-screened when it reads a
/// word whose weight moved, or can reach the threshold against a changed (or moved) entry;
/// else, when what it can score there exceeds its kept nearest miss, that miss raised to it
/// (a score rounding to `most` is under `most + 0.5`), so that later runs count from there.
fn raised(
    entries: &engine::ChangedEntries,
    index: &engine::Index,
    request: &engine::Request,
    kept: Nearness,
    drift: &DriftStep,
    cache: &mut engine::BoundCache,
) -> Selected {
    let threshold = DEFAULT_THRESHOLD;
    let d = drift.now as f64 / 1e6;
    let now = (kept.near + d).max(LEAST_NEAR);
    // A changed name matters only where it can score above the kept miss.
    let floor = (now - 0.5).ceil().clamp(0.0, f64::from(threshold));
    let read = engine::ReadName::of(request);
    let most = match entries.reach_from(index, request, &read, floor as u8, cache) {
        engine::Reach::MovedWord => return Selected::Yes(Why::MovedWord),
        engine::Reach::Most(most) => most,
    };
    if most >= threshold {
        Selected::Yes(Why::CanReach)
    } else if f64::from(most) + 0.5 > now && f64::from(most) >= floor {
        Selected::Raise(Nearness {
            near: f64::from(most) + 0.5 - d,
            low: kept.low,
        })
    } else {
        Selected::No
    }
}

/// A favorite's re-screen that changed its set of matches.
pub(super) struct Screened {
    pub update: FavoriteUpdate,
    pub screening: Option<crate::model::ScreeningRecord>,
    pub alert: Option<Alert>,
}

/// The request a favorite is screened with: the default threshold, every match reported.
/// [`favorite_request`] with the favorite's date of birth and country as evidence, in the
/// one form `screen` gives the engine.
pub(crate) fn favorite_evidence_request(
    name: &str,
    kind: Option<EntityKind>,
    dob: Option<&str>,
    country: Option<&str>,
) -> ScreenRequest {
    ScreenRequest {
        date_of_birth: dob.map(str::to_owned),
        country: country.map(str::to_owned),
        ..favorite_request(name, kind)
    }
    .in_wire_form()
}

pub(crate) fn favorite_request(name: &str, kind: Option<EntityKind>) -> ScreenRequest {
    ScreenRequest {
        kind: kind_filter(kind).filter(|_| kind.is_some()),
        limit: Some(engine::MAX_LIMIT),
        ..ScreenRequest::new(name)
    }
}

/// The request re-screening a favorite: its name and type, with its date of birth and
/// country as evidence when it has either.
pub(crate) fn rescreen_request(favorite: &WatchedName) -> ScreenRequest {
    let f = favorite;
    if f.dob.is_none() && f.country.is_none() {
        favorite_request(&f.name, f.kind)
    } else {
        favorite_evidence_request(&f.name, f.kind, f.dob.as_deref(), f.country.as_deref())
    }
}

/// The favorites' re-screens that changed something, gathered: their updates (returned),
/// their screenings, alerts and events (into `changes`), and the new alerts' ids.
pub(crate) fn gather(
    outcomes: Vec<Option<Screened>>,
    changes: &mut Changes,
) -> (Vec<FavoriteUpdate>, Vec<String>) {
    let mut updates = Vec::new();
    let mut alert_ids = Vec::new();
    for outcome in outcomes.into_iter().flatten() {
        if let Some(alert) = outcome.alert {
            alert_ids.push(alert.id.clone());
            changes.events.push(favorite_event(&alert, &outcome.update));
            changes.alerts.push(alert);
        }
        if let Some(screening) = outcome.screening {
            changes.screenings.push(screening);
        }
        updates.push(outcome.update);
    }
    (updates, alert_ids)
}

/// A favorite re-screened: what changed (`None`: nothing) and how near it came to the
/// threshold (`None`: the engine refused it).
pub(super) fn screen_favorite(
    loaded: &Loaded,
    id: &str,
    request: ScreenRequest,
    previous: Option<&Vec<(String, u8)>>,
    actor: &str,
) -> Result<(Option<Screened>, Option<Near>), ServiceError> {
    let (screening, near) = match screen_near(loaded, &request) {
        Ok(done) => done,
        // A stored favorite the engine refuses (a rule tightened since) is skipped, not fatal.
        Err(ServiceError::Validation { .. }) => return Ok((None, None)),
        Err(e) => return Err(e),
    };
    // Most re-screens match what they matched: nothing to build, store or alert.
    let now: BTreeSet<&str> = screening
        .hits
        .iter()
        .map(|h| h.entity_id.as_str())
        .collect();
    if entries_of(previous) == now {
        return Ok((None, Some(near)));
    }
    let result = mapping::result(&request.name, screening);
    let origin = ScreeningOrigin::Watchlist;
    let record = record_of(loaded, &request, &result, origin, actor, Some(id))?;
    Ok((changed(id, &request, record, &result, previous), Some(near)))
}

/// The entries of a favorite's `previous` matches.
fn entries_of(previous: Option<&Vec<(String, u8)>>) -> BTreeSet<&str> {
    previous
        .map(|p| p.iter().map(|(e, _)| e.as_str()).collect())
        .unwrap_or_default()
}

/// What a favorite's screening changed against its `previous` matches, if anything.
fn changed(
    id: &str,
    request: &ScreenRequest,
    record: crate::model::ScreeningRecord,
    result: &crate::api::screening::ScreenResult,
    previous: Option<&Vec<(String, u8)>>,
) -> Option<Screened> {
    let before = entries_of(previous);
    let after: BTreeSet<&str> = record
        .matched
        .iter()
        .map(|m| m.entity_id.as_str())
        .collect();
    if before == after {
        return None;
    }
    let gained: Vec<String> = after.difference(&before).map(|s| (*s).to_owned()).collect();
    let lost: Vec<String> = before.difference(&after).map(|s| (*s).to_owned()).collect();
    let alert = (!gained.is_empty()).then(|| {
        let best = result
            .results
            .iter()
            .filter(|m| gained.contains(&m.entity_id))
            .map(|m| m.score)
            .max()
            .unwrap_or(0);
        let named: Vec<String> = result
            .results
            .iter()
            .filter(|m| gained.contains(&m.entity_id))
            .map(|m| {
                format!(
                    "{} ({}, {}, score {})",
                    m.name, m.list_name, m.entity_id, m.score
                )
            })
            .collect();
        Alert {
            id: new_id("alt_"),
            kind: AlertKind::FavoriteMatch,
            severity: Severity::of_score(best),
            title: format!(
                "watchlist name {:?} newly matches {} entr{}",
                request.name,
                gained.len(),
                if gained.len() == 1 { "y" } else { "ies" }
            ),
            message: format!("new: {}", named.join("; ")),
            created_at: record.created_at,
            status: AlertStatus::Open,
            screening_id: Some(record.id.clone()),
            favorite_id: Some(id.to_owned()),
            list: None,
            entity_ids: gained.clone(),
        }
    });
    let update = FavoriteUpdate {
        favorite_id: id.to_owned(),
        matches: record
            .matched
            .iter()
            .map(|m| (m.entity_id.clone(), m.score))
            .collect(),
        gained,
        lost,
        screening_id: Some(record.id.clone()),
    };
    Some(Screened {
        update,
        screening: Some(record),
        alert,
    })
}

/// The kept nearness of each favorite `selected` that the engine screened, stamped with the
/// index's cumulative drift.
fn stamped(
    selected: &[WatchedName],
    outcomes: &[(Option<Screened>, Option<Near>)],
    drift: i64,
) -> Vec<(String, Option<Nearness>)> {
    selected
        .iter()
        .zip(outcomes)
        .filter_map(|(f, (_, near))| near.map(|n| (f.id.clone(), Some(n.stamped(drift)))))
        .collect()
}

pub(super) fn favorite_event(alert: &Alert, update: &FavoriteUpdate) -> OutboxEvent {
    OutboxEvent {
        event_id: new_id("evt_"),
        kind: AlertKind::FavoriteMatch.as_str().to_owned(),
        created_at: alert.created_at,
        payload: serde_json::json!({
            "favorite_id": update.favorite_id,
            "screening_id": update.screening_id,
            "gained": update.gained,
            "lost": update.lost,
            "alert_id": alert.id,
        }),
    }
}

/// The `list.updated` alert of one update.
fn list_alert(
    update: &crate::model::UpdateRecord,
    changes: &[crate::store::EntityChange],
) -> Alert {
    let count =
        |what: u64, word: &str| format!("{what} {word}{}", if what == 1 { "" } else { "s" });
    Alert {
        id: new_id("alt_"),
        kind: AlertKind::ListUpdated,
        severity: Severity::Info,
        title: format!(
            "{}: {}, {}, {}",
            update.list.display_name(),
            count(update.added, "addition"),
            count(update.removed, "removal"),
            count(update.changed, "change")
        ),
        message: format!(
            "list update {} ({}); {} entries now",
            update.id, update.origin, update.total
        ),
        created_at: Timestamp::now(),
        status: AlertStatus::Open,
        screening_id: None,
        favorite_id: None,
        list: Some(update.list),
        entity_ids: changes
            .iter()
            .take(MAX_ALERT_IDS)
            .map(|c| c.entity_id.clone())
            .collect(),
    }
}

fn mode_word(mode: RescreenMode) -> &'static str {
    match mode {
        RescreenMode::Incremental => "incremental",
        RescreenMode::Full | RescreenMode::Auto => "full",
    }
}

fn nothing(favorites: u64) -> RescreenSummary {
    RescreenSummary {
        run_id: None,
        mode: "none".to_owned(),
        favorites,
        screened: 0,
        changed: 0,
        alert_ids: Vec::new(),
        millis: 0,
    }
}

/// What `tried` gives for the room of `rooms` (ascending) that costs the least, searched from
/// `rooms[default]`: first the narrower rooms, nearest first, while each costs no more than
/// the best so far; then, when no narrower one was taken, the wider ones while each costs
/// less. `tried` gives a room's cost and what comes with it.
fn fewest<T>(rooms: &[f64], default: usize, mut tried: impl FnMut(f64) -> (usize, T)) -> T {
    let mut best = tried(rooms[default]);
    let mut narrower = false;
    for room in rooms[..default].iter().rev() {
        let candidate = tried(*room);
        if candidate.0 > best.0 {
            break;
        }
        best = candidate;
        narrower = true;
    }
    if !narrower {
        for room in &rooms[default + 1..] {
            let candidate = tried(*room);
            if candidate.0 >= best.0 {
                break;
            }
            best = candidate;
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::fewest;

    const ROOMS: [f64; 7] = [0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08];

    /// The room `fewest` picks from 3 % with these costs, and the rooms it tried in order.
    fn picked(costs: [usize; 7]) -> (f64, Vec<f64>) {
        let mut tried = Vec::new();
        let room = fewest(&ROOMS, 4, |room| {
            tried.push(room);
            let at = ROOMS.iter().position(|r| *r == room).unwrap();
            (costs[at], room)
        });
        (room, tried)
    }

    #[test]
    fn a_small_update_narrows_the_room_while_it_re_screens_fewer() {
        // An update that moves few words: the narrower the room, the less drift.
        let (room, tried) = picked([40, 10, 12, 30, 60, 90, 200]);
        assert_eq!(room, 0.005);
        assert_eq!(tried, [0.03, 0.02, 0.01, 0.005, 0.0025]);
    }

    #[test]
    fn a_large_update_keeps_the_default_when_the_next_update_outweighs_the_saving() {
        // The counts of the real OFAC update on 8,192 favorites (docs/scale-out.md): re-screened
        // now 1,898 / 1,542 / 1,091 / 541 / 341 / 232 / 187, near the threshold at the next
        // update 9 / 10 / 9 / 28 / 48 / 193 / 8,005. On "now" alone 8 % would win; with the
        // next update counted, 3 % does, and no narrower room is tried past the first worse.
        let now = [1898, 1542, 1091, 541, 341, 232, 187];
        let next = [9, 10, 9, 28, 48, 193, 8005];
        let costs = std::array::from_fn(|i| now[i] + next[i]);
        let (room, tried) = picked(costs);
        assert_eq!(room, 0.03);
        assert_eq!(tried, [0.03, 0.02, 0.05]);
        assert_eq!(picked(now).0, 0.08, "on the update alone, the widest");
    }

    #[test]
    fn a_tie_takes_the_narrower_room_and_widening_needs_a_strict_gain() {
        assert_eq!(picked([9, 9, 9, 5, 5, 5, 5]).0, 0.02);
        assert_eq!(picked([9, 9, 9, 9, 5, 5, 4]).0, 0.03);
        assert_eq!(picked([9, 9, 9, 9, 5, 4, 4]).0, 0.05);
    }
}
