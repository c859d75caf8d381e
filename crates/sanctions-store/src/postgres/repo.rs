//! [`Repository`] on PostgreSQL: each method one pooled connection, each write one
//! transaction.

use std::collections::HashMap;

use jiff::Timestamp;

use super::connect::PostgresRepository;
use super::{jobs, lists, records, rescreen_chunks, watchlist, webhooks};
use crate::model::ParsedList;
use crate::model::{
    Alert, AlertChange, AlertFilter, ChangeKind, DecisionRecord, Entity, EntityNames,
    EntityVersion, Favorite, ListCode, ListVersions, RescreenRun, ReviewStatus, ScreeningFilter,
    ScreeningRecord, UpdateRecord,
};
use crate::{
    AttemptRecord, BriefFilter, BriefRecord, Changes, ChunkClaim, ChunkCommit, ChunkDone,
    ChunkFavorite, ChunkLease, ChunkRunStart, ChunkRunState, DeliveryClaim, DeliveryRecord,
    DueDelivery, EntityChange, FavoriteInsert, FavoriteUpdate, JobClaim, ListSummary, MarkerMove,
    NameDamage, NameDigest, NewDecision, Repository, RescreenChunk, StoreError, WebhookRecord,
};

impl Repository for PostgresRepository {
    fn lists(&self) -> Result<Vec<ListSummary>, StoreError> {
        self.read(lists::lists)
    }
    fn updates(&self, list: ListCode, limit: usize) -> Result<Vec<UpdateRecord>, StoreError> {
        self.read(|c| lists::updates(c, list, limit))
    }
    fn update(&self, update_id: i64) -> Result<Option<UpdateRecord>, StoreError> {
        self.read(|c| lists::update(c, update_id))
    }
    fn changes(&self, update_id: i64) -> Result<Vec<EntityChange>, StoreError> {
        self.read(|c| lists::changes(c, update_id))
    }
    fn list_versions(&self) -> Result<ListVersions, StoreError> {
        self.read(lists::list_versions)
    }
    fn latest_update_id(&self) -> Result<i64, StoreError> {
        self.read(lists::latest_update_id)
    }
    fn entity_names(&self) -> Result<Vec<EntityNames>, StoreError> {
        self.snapshot(|tx| lists::entity_names(tx))
    }
    fn name_digests(&self) -> Result<std::collections::BTreeMap<ListCode, NameDigest>, StoreError> {
        self.read(lists::name_digests)
    }
    fn verify_names(&self) -> Result<Vec<NameDamage>, StoreError> {
        self.snapshot(|tx| lists::verify_names(tx))
    }
    fn read_back_names(&self) -> Result<crate::NamesReadBack, StoreError> {
        self.snapshot(|tx| lists::read_back_names(tx))
    }
    fn entity(&self, entity_id: &str) -> Result<Option<Entity>, StoreError> {
        self.read(|c| lists::entity(c, entity_id))
    }
    fn entity_at(&self, entity_id: &str, update_id: i64) -> Result<Option<Entity>, StoreError> {
        self.read(|c| lists::entity_at(c, entity_id, update_id))
    }
    fn changed_entities(&self, update_id: i64) -> Result<Vec<(ChangeKind, Entity)>, StoreError> {
        self.read(|c| lists::changed_entities(c, update_id))
    }
    fn entity_history(&self, entity_id: &str) -> Result<Vec<EntityVersion>, StoreError> {
        self.read(|c| lists::entity_history(c, entity_id))
    }
    fn update_exists(&self, update_id: i64) -> Result<bool, StoreError> {
        self.read(|c| lists::update_exists(c, update_id))
    }
    fn replace_list(&self, parsed: &ParsedList, origin: &str) -> Result<UpdateRecord, StoreError> {
        self.write(|tx| lists::replace_list(tx, parsed, origin, &|_| None))
    }
    fn record(&self, changes: &Changes) -> Result<(), StoreError> {
        self.write(|tx| records::write_changes(tx, changes))
    }
    fn record_all(&self, all: &[Changes]) -> Result<(), StoreError> {
        self.write(|tx| {
            all.iter()
                .try_for_each(|changes| records::write_changes(tx, changes))
        })
    }
    fn screening(&self, account: &str, id: &str) -> Result<Option<ScreeningRecord>, StoreError> {
        self.read(|c| records::screening(c, account, id))
    }
    fn screenings(
        &self,
        account: &str,
        filter: &ScreeningFilter,
    ) -> Result<Vec<ScreeningRecord>, StoreError> {
        self.read(|c| records::screenings(c, account, filter))
    }
    fn decisions(
        &self,
        account: &str,
        screening_id: &str,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        self.read(|c| records::decisions(c, account, screening_id))
    }
    fn decisions_between(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        self.read(|c| records::decisions_between(c, account, since, until))
    }
    fn decide(
        &self,
        account: &str,
        decision: &NewDecision,
    ) -> Result<(Vec<DecisionRecord>, ReviewStatus), StoreError> {
        self.write(|tx| records::decide(tx, account, decision))
    }
    fn alerts(&self, account: &str, filter: &AlertFilter) -> Result<Vec<Alert>, StoreError> {
        self.read(|c| records::alerts(c, account, filter))
    }
    fn alert(&self, account: &str, id: &str) -> Result<Option<Alert>, StoreError> {
        self.read(|c| records::alert(c, account, id))
    }
    fn change_alert(&self, account: &str, change: &AlertChange) -> Result<Alert, StoreError> {
        self.write(|tx| records::change_alert(tx, account, change))
    }
    fn change_alerts(
        &self,
        account: &str,
        changes: &[AlertChange],
    ) -> Result<Vec<Alert>, StoreError> {
        self.write(|tx| {
            changes
                .iter()
                .map(|change| records::change_alert(tx, account, change))
                .collect()
        })
    }
    fn alert_changes(
        &self,
        account: &str,
        since: Option<jiff::Timestamp>,
        until: Option<jiff::Timestamp>,
    ) -> Result<Vec<AlertChange>, StoreError> {
        self.read(|c| records::alert_changes(c, account, since, until))
    }
    fn add_favorite(
        &self,
        account: &str,
        new: &FavoriteInsert,
        changes: &Changes,
    ) -> Result<(), StoreError> {
        self.write(|tx| watchlist::add_favorite(tx, account, new, changes))
    }
    fn import_favorites(
        &self,
        account: &str,
        new: &[(FavoriteInsert, Changes)],
    ) -> Result<Vec<String>, StoreError> {
        self.write(|tx| watchlist::import_favorites(tx, account, new))
    }
    fn favorites(
        &self,
        account: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Favorite>, StoreError> {
        self.read(|c| watchlist::favorites(c, account, after, limit))
    }
    fn favorite(&self, account: &str, id: &str) -> Result<Option<Favorite>, StoreError> {
        self.read(|c| watchlist::favorite(c, account, id))
    }
    fn remove_favorite(&self, account: &str, id: &str) -> Result<Favorite, StoreError> {
        self.write(|tx| watchlist::remove_favorite(tx, account, id))
    }
    fn favorite_count(&self, account: Option<&str>) -> Result<u64, StoreError> {
        self.read(|c| watchlist::favorite_count(c, account))
    }
    fn favorite_names_each(
        &self,
        account: Option<&str>,
        chunk: usize,
        each: &mut dyn FnMut(Vec<crate::WatchedName>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.read(|c| watchlist::favorite_names_each(c, account, chunk, each))
    }
    fn set_nearness(&self, rows: &[(String, Option<crate::Nearness>)]) -> Result<(), StoreError> {
        self.write(|tx| watchlist::set_nearness(tx, rows))
    }
    fn favorite_matches(&self) -> Result<HashMap<String, Vec<(String, u8)>>, StoreError> {
        self.read(watchlist::favorite_matches)
    }
    fn favorite_changes(&self, id: &str) -> Result<Vec<(String, String, String)>, StoreError> {
        self.read(|c| watchlist::favorite_changes(c, id))
    }
    fn record_rescreen(
        &self,
        run: &RescreenRun,
        updates: &[FavoriteUpdate],
        changes: &Changes,
        markers: &[MarkerMove<'_>],
    ) -> Result<Option<i64>, StoreError> {
        self.write(|tx| watchlist::record_rescreen(tx, run, updates, changes, markers))
    }
    fn rescreen_runs(&self, limit: usize) -> Result<Vec<RescreenRun>, StoreError> {
        self.read(|c| watchlist::rescreen_runs(c, limit))
    }
    fn marker(&self, key: &str) -> Result<Option<i64>, StoreError> {
        self.read(|c| watchlist::marker(c, key))
    }
    fn insert_webhook(&self, account: &str, webhook: &WebhookRecord) -> Result<(), StoreError> {
        self.write(|tx| webhooks::insert_webhook(tx, account, webhook))
    }
    fn webhooks(&self, account: &str) -> Result<Vec<WebhookRecord>, StoreError> {
        self.read(|c| webhooks::webhooks(c, account))
    }
    fn webhook(&self, account: &str, id: &str) -> Result<Option<WebhookRecord>, StoreError> {
        self.read(|c| webhooks::webhook(c, account, id))
    }
    fn update_webhook(&self, account: &str, webhook: &WebhookRecord) -> Result<(), StoreError> {
        self.write(|tx| webhooks::update_webhook(tx, account, webhook))
    }
    fn delete_webhook(&self, account: &str, id: &str) -> Result<(), StoreError> {
        self.write(|tx| webhooks::delete_webhook(tx, account, id))
    }
    fn pending_deliveries(&self, webhook_id: &str) -> Result<u64, StoreError> {
        self.read(|c| webhooks::pending_deliveries(c, webhook_id))
    }
    fn pending_total(&self) -> Result<u64, StoreError> {
        self.read(webhooks::pending_total)
    }
    fn fan_out(&self, now: Timestamp) -> Result<usize, StoreError> {
        self.write(|tx| webhooks::fan_out(tx, now))
    }
    fn due_deliveries(&self, now: Timestamp, limit: usize) -> Result<Vec<DueDelivery>, StoreError> {
        self.read(|c| webhooks::due_deliveries(c, now, limit))
    }
    fn claim_deliveries(
        &self,
        claim: &DeliveryClaim<'_>,
        limit: usize,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        self.write(|tx| webhooks::claim_deliveries(tx, claim, limit))
    }
    fn renew_claims(&self, owner: &str, until: Timestamp) -> Result<usize, StoreError> {
        self.write(|tx| webhooks::renew_claims(tx, owner, until))
    }
    fn record_deliveries(
        &self,
        owner: &str,
        records: &[DeliveryRecord],
    ) -> Result<usize, StoreError> {
        self.write(|tx| webhooks::record_deliveries(tx, owner, records))
    }
    fn webhook_attempts(
        &self,
        account: &str,
        webhook_id: &str,
        limit: usize,
    ) -> Result<Vec<AttemptRecord>, StoreError> {
        self.read(|c| webhooks::webhook_attempts(c, account, webhook_id, limit))
    }
    fn webhook_last_success(&self, webhook_id: &str) -> Result<Option<Timestamp>, StoreError> {
        self.read(|c| webhooks::webhook_last_success(c, webhook_id))
    }
    fn insert_briefs(&self, briefs: &[BriefRecord]) -> Result<usize, StoreError> {
        self.write(|tx| webhooks::insert_briefs(tx, briefs))
    }
    fn briefs(&self, filter: &BriefFilter) -> Result<Vec<BriefRecord>, StoreError> {
        self.read(|c| webhooks::briefs(c, filter))
    }
    fn brief(&self, id: &str) -> Result<Option<BriefRecord>, StoreError> {
        self.read(|c| webhooks::brief(c, id))
    }
    fn updates_without_brief(&self, limit: usize) -> Result<Vec<(i64, String)>, StoreError> {
        self.read(|c| webhooks::updates_without_brief(c, limit))
    }
    fn brief_stored(&self, source: &str, guid: &str) -> Result<bool, StoreError> {
        self.read(|c| jobs::brief_stored(c, source, guid))
    }
    fn claim_job(&self, claim: &JobClaim<'_>) -> Result<bool, StoreError> {
        self.write(|tx| jobs::claim(tx, claim))
    }
    fn release_job(&self, job: &str, owner: &str) -> Result<bool, StoreError> {
        self.write(|tx| jobs::release(tx, job, owner))
    }
    fn open_rescreen_chunks(&self, start: &ChunkRunStart<'_>) -> Result<ChunkRunState, StoreError> {
        self.write(|tx| rescreen_chunks::open(tx, start))
    }
    fn claim_rescreen_chunk(&self, lease: &ChunkLease<'_>) -> Result<ChunkClaim, StoreError> {
        self.write(|tx| rescreen_chunks::claim(tx, lease))
    }
    fn renew_rescreen_chunk(
        &self,
        chunk: &RescreenChunk,
        owner: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError> {
        self.write(|tx| rescreen_chunks::renew(tx, chunk, owner, until))
    }
    fn rescreen_chunk_favorites(
        &self,
        chunk: &RescreenChunk,
    ) -> Result<Vec<ChunkFavorite>, StoreError> {
        self.snapshot(|tx| rescreen_chunks::favorites(tx, chunk))
    }
    fn commit_rescreen_chunk(&self, done: &ChunkDone<'_>) -> Result<ChunkCommit, StoreError> {
        self.write(|tx| rescreen_chunks::commit(tx, done))
    }
    fn finish_rescreen_chunks(
        &self,
        run_id: i64,
        run: &RescreenRun,
        now: Timestamp,
    ) -> Result<Option<i64>, StoreError> {
        self.write(|tx| rescreen_chunks::finish(tx, run_id, run, now))
    }
    fn rescreen_chunk_run(
        &self,
        run_id: i64,
        now: Timestamp,
    ) -> Result<Option<ChunkRunState>, StoreError> {
        self.read(|c| rescreen_chunks::run(c, run_id, now))
    }
    fn open_rescreen_chunk_runs(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<ChunkRunState>, StoreError> {
        self.read(|c| rescreen_chunks::open_runs(c, now, limit))
    }
}

impl PostgresRepository {
    /// [`Repository::replace_list`], refused with `StoreError::WouldShrink` (nothing
    /// written) when it would remove more than `max_removed(entries before)` entries.
    pub fn replace_list_guarded(
        &self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
    ) -> Result<UpdateRecord, StoreError> {
        self.write(|tx| lists::replace_list(tx, parsed, origin, max_removed))
    }

    /// [`PostgresRepository::replace_list_guarded`], unless the list's last update is newer
    /// than update `since` (read before the files were downloaded) and came from the same
    /// files: then `None`, nothing written. Checked under the list's import lock, so two
    /// processes updating at once import the publication once.
    pub fn replace_list_once(
        &self,
        parsed: &ParsedList,
        origin: &str,
        max_removed: &dyn Fn(u64) -> Option<u64>,
        since: i64,
    ) -> Result<Option<UpdateRecord>, StoreError> {
        self.write(|tx| {
            lists::lock_list(tx, parsed.list)?;
            if lists::imported_since(tx, parsed.list, since, &parsed.files)? {
                return Ok(None);
            }
            lists::replace_list(tx, parsed, origin, max_removed).map(Some)
        })
    }

    /// Records a failed import of `list` in its history (the list untouched).
    pub fn record_failed_import(
        &self,
        list: ListCode,
        origin: &str,
        files: &[crate::model::SourceFile],
        reason: &str,
    ) -> Result<UpdateRecord, StoreError> {
        self.write(|tx| lists::record_failed_import(tx, list, origin, files, reason))
    }

    /// One page of an audit export (see `Store::screenings_after`).
    pub fn screenings_after(
        &self,
        account: &str,
        period: (Option<Timestamp>, Option<Timestamp>),
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ScreeningRecord>, StoreError> {
        self.read(|c| records::screenings_after(c, account, period, after, limit))
    }
}
