//! How near each favorite's last screening came to the threshold, kept so that the
//! incremental re-screen also finds the favorites whose score against an entry the update
//! left alone can cross it: the token weights are the whole index's, so every score moves a
//! little when entries come and go ([`engine::WeightDrift`] bounds how far).
//!
//! Every monitor run records, for the index it ran on (by its newest list update), the
//! cumulative drift in points: that of the index before plus how far the updates between can
//! move a score (`near_drift:<update>`, and the largest so far as `near_drift`). A favorite
//! screened on an index whose drift is known keeps its nearest miss minus that drift and its
//! lowest match plus it ([`Nearness`]); at a later index of drift `D` its scores are then
//! within `near + D` and `low - D`, however many runs passed without re-screening it. A
//! favorite screened on an index not yet monitored keeps the values it had (still true of
//! their own index); one without values (new, or from an earlier version) is re-screened.

use std::sync::Arc;

use super::{Loaded, LocalService};
use crate::ServiceError;
use crate::engine::{self, WeightDrift, WeightMoves};
use crate::model::{ChangeKind, Entity, EntityNames};
use crate::store::{MarkerMove, Nearness};

/// The largest cumulative drift recorded, in millionths of a point.
pub(super) const DRIFT_KEY: &str = "near_drift";
/// Millionths of a point per point.
const MICRO: f64 = 1e6;
/// The drift recorded when it is not known (no index, or the index before unknown): more
/// than any score's range, so every favorite with values is re-screened.
const UNKNOWN: i64 = 1_000 * 1_000_000;
/// The least nearest miss kept: a miss under it counts as this (a bound). It spares the
/// selection working out, for every favorite left alone, what it can score against the
/// changed names far under the threshold (raising a kept miss from there); the price is
/// that a favorite is re-screened once the drift since its screening reaches the gap from
/// here to the threshold (38 points: some four updates of the size of the OFAC one
/// measured, or the scheduled full re-screen, whichever comes first).
pub(super) const LEAST_NEAR: f64 = 40.0;
/// Stands for "no match": beyond any final score (0-100 plus the facts' points), yet within
/// reach of [`UNKNOWN`].
const NONE_HIT: f64 = 300.0;
/// Room for the f64 arithmetic of the shifted values.
const MARGIN: f64 = 0.001;

/// The drift marker of the index whose newest list update is `update`.
pub(super) fn drift_key(update: i64) -> String {
    format!("{DRIFT_KEY}:{update}")
}

/// A favorite's nearness as screened now, with the values the store keeps for it (`None`:
/// unknown, or not read), which need not be written again when they are the same.
pub(crate) type NearRow = (String, Near, Option<Nearness>);

/// The values to write of `near`, screened on an index of cumulative drift `drift`: those
/// that differ from the values kept.
fn to_write(near: Vec<NearRow>, drift: i64) -> Vec<(String, Option<Nearness>)> {
    near.into_iter()
        .filter_map(|(id, n, kept)| {
            let now = n.stamped(drift);
            (kept != Some(now)).then_some((id, Some(now)))
        })
        .collect()
}

/// How near one screening came to the threshold ([`engine::Screening::nearest_below`],
/// [`engine::Screening::lowest_hit`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Near {
    below: Option<f32>,
    lowest: Option<f32>,
}

impl Near {
    pub(crate) fn of(screening: &engine::Screening) -> Near {
        Near {
            below: screening.nearest_below,
            lowest: screening.lowest_hit,
        }
    }

    /// The values to keep, screened on an index of cumulative drift `drift` (millionths).
    pub(super) fn stamped(self, drift: i64) -> Nearness {
        let d = drift as f64 / MICRO;
        Nearness {
            near: self
                .below
                .map_or(LEAST_NEAR, |b| f64::from(b).max(LEAST_NEAR))
                - d,
            low: self.lowest.map_or(NONE_HIT, f64::from) + d,
        }
    }
}

/// Whether a favorite with these kept values (`None`: unknown) can have crossed `threshold`
/// either way on an index of cumulative drift `drift` (millionths of a point): its nearest
/// miss can reach it, or its lowest match fall below it (a score `v` rounds to the threshold
/// `t` or above when `v >= t - 0.5`).
pub(super) fn may_cross(kept: Option<&Nearness>, drift: i64, threshold: u8) -> bool {
    let Some(kept) = kept else {
        return true;
    };
    let d = drift as f64 / MICRO;
    let edge = f64::from(threshold) - 0.5;
    (kept.near + d).max(LEAST_NEAR) + MARGIN >= edge || kept.low - d - MARGIN < edge
}

/// The drift markers a monitor run moves (the run's index's own, and the largest), with
/// how the weights moved when that is known (`None`: every favorite with values crosses).
#[derive(Debug, Clone)]
pub(super) struct DriftStep {
    pub key: String,
    pub largest: i64,
    pub now: i64,
    pub weights: Option<WeightDrift>,
    /// The room around the band `weights` has ([`engine::ROOMS`]).
    pub room: f64,
    /// The cumulative drift of the index before, to which this update's points add.
    base: i64,
    /// How the weights moved, to work out `weights` for another room (`None`: unknown).
    moves: Option<Arc<WeightMoves>>,
}

impl DriftStep {
    /// This update's drift with `room` around the band: its weights and the cumulative
    /// drift worked out again (the same where how the weights moved is unknown).
    pub(super) fn with_room(&self, room: f64) -> DriftStep {
        let weights = self
            .moves
            .as_ref()
            .map(|moves| moves.with_room(room))
            .filter(|d| d.points() * MICRO < UNKNOWN as f64);
        let step = weights
            .as_ref()
            .map_or(UNKNOWN, |d| (d.points() * MICRO).ceil() as i64);
        DriftStep {
            key: self.key.clone(),
            largest: self.largest,
            now: self.base.saturating_add(step),
            weights,
            room,
            base: self.base,
            moves: self.moves.clone(),
        }
    }

    /// The cumulative drift after one more update that moves the weights as far as this one.
    pub(super) fn again(&self) -> i64 {
        self.now.saturating_add(self.now.saturating_sub(self.base))
    }

    /// Whether the room can be chosen: how the weights moved is known, and a room changes it.
    pub(super) fn has_rooms(&self) -> bool {
        self.moves.as_ref().is_some_and(|m| m.takes_room())
    }

    pub(super) fn markers(&self) -> [MarkerMove<'_>; 2] {
        [
            MarkerMove {
                key: &self.key,
                from: 0,
                to: self.now,
            },
            MarkerMove {
                key: DRIFT_KEY,
                from: self.largest,
                to: self.largest.max(self.now),
            },
        ]
    }
}

impl LocalService {
    /// The cumulative drift of `loaded`'s index, when a monitor run recorded it.
    pub(super) fn drift_of(&self, loaded: &Loaded) -> Result<Option<i64>, ServiceError> {
        Ok(self.repo().marker(&drift_key(loaded.latest_update))?)
    }

    /// Keeps the nearness of favorites screened on `loaded` when its index's drift is known;
    /// else the values kept stay (true of the index they came from), or unknown for a new
    /// favorite, which the next incremental run re-screens. Only the values that differ from
    /// those kept are written: a full re-screen on the index its favorites were last screened
    /// on writes none.
    pub(super) fn keep_nearness(
        &self,
        loaded: &Loaded,
        near: Vec<NearRow>,
    ) -> Result<(), ServiceError> {
        if let Some(drift) = self.drift_of(loaded)? {
            let rows = to_write(near, drift);
            if !rows.is_empty() {
                self.repo().set_nearness(&rows)?;
            }
        }
        Ok(())
    }

    /// The cumulative drift of `loaded`'s index, monitored after update `marker`: that of
    /// `marker`'s index plus how far the entries `changed` between can move a score.
    pub(super) fn drift_step(
        &self,
        loaded: &Loaded,
        marker: i64,
        changed: &[(String, ChangeKind)],
    ) -> Result<DriftStep, ServiceError> {
        let repo = self.repo();
        let largest = repo.marker(DRIFT_KEY)?.unwrap_or(0);
        let base = repo.marker(&drift_key(marker))?;
        let moves = match base {
            Some(_) if loaded.index.entity_count() > 0 => {
                let started = std::time::Instant::now();
                let (before, after) = self.versions_around(loaded, marker, changed)?;
                let moves = WeightMoves::between(&loaded.index, &before, &after);
                tracing::debug!(
                    millis = started.elapsed().as_millis() as u64,
                    "token weights of the update compared"
                );
                Some(Arc::new(moves))
            }
            _ => None,
        };
        let step = DriftStep {
            key: drift_key(loaded.latest_update),
            largest,
            now: 0,
            weights: None,
            room: engine::BAND_ROOM,
            base: base.map_or(largest, |b| b.max(0)),
            moves,
        };
        let step = step.with_room(engine::BAND_ROOM);
        if let Some(drift) = &step.weights {
            tracing::info!(
                points = drift.points(),
                moved_words = drift.moved_count(),
                room = step.room,
                "token weight drift of the update"
            );
        }
        Ok(step)
    }

    /// The names of the entries `changed` as they stood after update `marker` (before) and
    /// in `loaded`'s index (after); an entry absent at one of the two counts on one side only.
    fn versions_around(
        &self,
        loaded: &Loaded,
        marker: i64,
        changed: &[(String, ChangeKind)],
    ) -> Result<(Vec<EntityNames>, Vec<EntityNames>), ServiceError> {
        let repo = self.repo();
        let mut ids: Vec<&str> = changed.iter().map(|(id, _)| id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for id in ids {
            let names = |e: Option<Entity>| e.map(|e| EntityNames::of(&e));
            before.extend(names(repo.entity_at(id, marker)?));
            after.extend(names(repo.entity_at(id, loaded.latest_update)?));
        }
        Ok((before, after))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_values_cross_only_by_more_than_the_drift() {
        let near = |below: f32, lowest: Option<f32>| Near {
            below: Some(below),
            lowest,
        };
        // Screened at drift 2 points: 76.9 below the threshold, no match.
        let kept = near(76.9, None).stamped(2_000_000);
        assert!(!may_cross(Some(&kept), 2_000_000, 78));
        assert!(!may_cross(Some(&kept), 2_500_000, 78));
        assert!(may_cross(Some(&kept), 2_700_000, 78));
        // A lowest match of 78.2 falls below 77.5 only by more than 0.7 points.
        let kept = near(10.0, Some(78.2)).stamped(0);
        assert!(!may_cross(Some(&kept), 500_000, 78));
        assert!(may_cross(Some(&kept), 800_000, 78));
        // Unknown values, and an unknown drift, always.
        assert!(may_cross(None, 0, 78));
        assert!(may_cross(Some(&Near::default().stamped(0)), UNKNOWN, 78));
    }

    #[test]
    fn only_values_that_differ_from_those_kept_are_written() {
        let near = |below: f32| Near {
            below: Some(below),
            lowest: None,
        };
        let drift = 1_500_000;
        let rows = vec![
            // Screened on the index its values came from: the same values, not written.
            (
                "same".to_owned(),
                near(61.0),
                Some(near(61.0).stamped(drift)),
            ),
            // The same score on an index of another drift: other values.
            (
                "drifted".to_owned(),
                near(61.0),
                Some(near(61.0).stamped(0)),
            ),
            (
                "closer".to_owned(),
                near(70.0),
                Some(near(61.0).stamped(drift)),
            ),
            ("unknown".to_owned(), near(61.0), None),
        ];
        let written: Vec<(String, Option<Nearness>)> = to_write(rows, drift);
        assert_eq!(
            written,
            vec![
                ("drifted".to_owned(), Some(near(61.0).stamped(drift))),
                ("closer".to_owned(), Some(near(70.0).stamped(drift))),
                ("unknown".to_owned(), Some(near(61.0).stamped(drift))),
            ]
        );
    }
}
