//! Screening through the service: one name or a batch, every screening stored with its list
//! versions, engine version and actor, with its alert and webhook event in the same
//! transaction.

use std::sync::Arc;

use jiff::Timestamp;
use rayon::prelude::*;

use super::convert::{check_name, check_options, check_request, entity_kind};
use super::{ENGINE_VERSION, Loaded, LocalService, enrich, new_id};
use crate::api::batch::{BatchRequest, BatchResponse, BatchResult, MAX_BATCH};
use crate::api::coverage::Coverage;
use crate::api::screening::{KindFilter, Match, ScreenRequest, ScreenResult};
use crate::api::screenings::ScreeningResponse;
use crate::engine;
use crate::model::{
    Alert, AlertKind, AlertStatus, ListCode, MatchedEntity, OutboxEvent, ReviewStatus,
    ScreeningOrigin, ScreeningRecord, Severity,
};
use crate::store::{Changes, StoredNames};
use crate::{ServiceError, mapping};

/// Screens `request` on `loaded` and builds the record to store (nothing is written).
pub(crate) fn run(
    loaded: &Loaded,
    request: &ScreenRequest,
    origin: ScreeningOrigin,
    actor: &str,
    favorite_id: Option<&str>,
) -> Result<(ScreeningRecord, ScreenResult), ServiceError> {
    run_near(loaded, request, origin, actor, favorite_id)
        .map(|(record, result, _)| (record, result))
}

/// [`run`], with how near the screening came to the threshold (a favorite keeps it).
pub(crate) fn run_near(
    loaded: &Loaded,
    request: &ScreenRequest,
    origin: ScreeningOrigin,
    actor: &str,
    favorite_id: Option<&str>,
) -> Result<(ScreeningRecord, ScreenResult, super::nearness::Near), ServiceError> {
    let (screening, near) = screen_near(loaded, request)?;
    let result = mapping::result(&request.name, screening);
    let record = record_of(loaded, request, &result, origin, actor, favorite_id)?;
    Ok((record, result, near))
}

/// The engine's screening of `request` on `loaded`, with how near it came to the threshold:
/// what a favorite's re-screen compares before it builds any answer.
pub(crate) fn screen_near(
    loaded: &Loaded,
    request: &ScreenRequest,
) -> Result<(engine::Screening, super::nearness::Near), ServiceError> {
    let screening =
        engine::screen(&loaded.index, &mapping::request(request)).map_err(enrich::engine_error)?;
    let near = super::nearness::Near::of(&screening);
    Ok((screening, near))
}

/// The record to store of `result`, the answer to `request` on `loaded`.
pub(crate) fn record_of(
    loaded: &Loaded,
    request: &ScreenRequest,
    result: &ScreenResult,
    origin: ScreeningOrigin,
    actor: &str,
    favorite_id: Option<&str>,
) -> Result<ScreeningRecord, ServiceError> {
    let matched = matched_of(result);
    Ok(ScreeningRecord {
        id: new_id("scr_"),
        query: request.name.clone(),
        kind: entity_kind(request.kind),
        threshold: request.threshold.unwrap_or(engine::DEFAULT_THRESHOLD),
        created_at: Timestamp::now(),
        total_matches: result.total_matches as u64,
        status: if matched.is_empty() {
            ReviewStatus::NoMatch
        } else {
            ReviewStatus::PendingReview
        },
        matched,
        results: serde_json::to_value(&result.results)
            .map_err(|e| ServiceError::Internal(format!("cannot encode a result: {e}")))?,
        list_versions: loaded.versions.clone(),
        engine_version: ENGINE_VERSION.to_owned(),
        actor: actor.to_owned(),
        origin,
        favorite_id: favorite_id.map(str::to_owned),
    })
}

/// One name screened through the service on `loaded`: the answer (grouped, with its
/// coverage) and what storing it writes (the record, its alert and event).
fn screen_one(
    this: &LocalService,
    loaded: &Loaded,
    request: &ScreenRequest,
) -> Result<(Changes, ScreeningResponse), ServiceError> {
    let coverage = enrich::coverage(loaded, request);
    let names = this.names(loaded.answers.read_back());
    let result = enrich::answer(&names, loaded, request, coverage)?;
    let record = record_of(
        loaded,
        request,
        &result,
        ScreeningOrigin::Single,
        this.actor(),
        None,
    )?;
    let mut changes = this.changes();
    match_alert(&record, &result, &mut changes);
    let id = record.id.clone();
    changes.screenings.push(record);
    Ok((changes, ScreeningResponse { id, result }))
}

/// The matched entries of a result, as a stored screening records them.
fn matched_of(result: &ScreenResult) -> Vec<MatchedEntity> {
    result
        .results
        .iter()
        .map(|m| MatchedEntity {
            entity_id: m.entity_id.clone(),
            score: m.score,
        })
        .collect()
}

/// An alert's message naming the best match: `best: NAME (LIST, ID, score N)`.
pub(crate) fn best_match_message(best: &Match) -> String {
    format!(
        "best: {} ({}, {}, score {})",
        best.name, best.list_name, best.entity_id, best.score
    )
}

/// The `screening.match` alert and event of a screening that matched something.
pub(crate) fn match_alert(record: &ScreeningRecord, result: &ScreenResult, changes: &mut Changes) {
    let Some(best) = result.results.first() else {
        return;
    };
    let alert = Alert {
        id: new_id("alt_"),
        kind: AlertKind::ScreeningMatch,
        severity: Severity::of_score(best.score),
        title: format!(
            "{:?} matched {} listed entr{}",
            record.query,
            record.total_matches,
            if record.total_matches == 1 {
                "y"
            } else {
                "ies"
            }
        ),
        message: best_match_message(best),
        created_at: record.created_at,
        status: AlertStatus::Open,
        screening_id: Some(record.id.clone()),
        favorite_id: None,
        list: None,
        entity_ids: record.matched.iter().map(|m| m.entity_id.clone()).collect(),
    };
    changes.events.push(OutboxEvent {
        event_id: new_id("evt_"),
        kind: AlertKind::ScreeningMatch.as_str().to_owned(),
        created_at: record.created_at,
        payload: serde_json::json!({
            "screening_id": record.id,
            "query": record.query,
            "total_matches": record.total_matches,
            "best_score": best.score,
            "entity_ids": alert.entity_ids,
            "alert_id": alert.id,
        }),
    });
    changes.alerts.push(alert);
}

impl LocalService {
    /// Where the grouping finds names: `read_back` (the names kept with the index, if
    /// any), else the store.
    fn names<'a>(&'a self, read_back: Option<&'a StoredNames>) -> enrich::Names<'a> {
        enrich::Names {
            repo: self.repository(),
            read_back,
        }
    }

    pub(crate) async fn screen_local(
        &self,
        request: ScreenRequest,
    ) -> Result<ScreeningResponse, ServiceError> {
        check_request(&request)?;
        // A screening takes a fraction of a millisecond: on a fresh index it runs right here
        // on the async worker (no hand-over to the blocking pool and back); an index to
        // (re)build first is built on the blocking pool.
        let (changes, response) = match self.fresh()? {
            Some(loaded) => screen_one(self, &loaded, &request)?,
            None => {
                self.blocking(move |this| {
                    let loaded = this.ready()?;
                    screen_one(&this, &loaded, &request)
                })
                .await?
            }
        };
        // Answered only once stored: the group commit shares one transaction among the
        // screenings arriving meanwhile.
        self.commit(changes).await?;
        Ok(response)
    }

    /// A screening that is not stored: no id, no alert, no event.
    pub(crate) async fn preview_local(
        &self,
        request: ScreenRequest,
    ) -> Result<ScreeningResponse, ServiceError> {
        check_request(&request)?;
        // As a screening: on a fresh index right here on the async worker, else on the
        // blocking pool once the index is (re)built.
        if let Some(loaded) = self.fresh()? {
            return preview_alone(self, &loaded, &request);
        }
        self.blocking(move |this| {
            let loaded = this.ready()?;
            preview_alone(&this, &loaded, &request)
        })
        .await
    }

    /// Previews of several names, answered in their order: the index made ready once, the
    /// names screened on every core, the coverage worked out once per kind of row. `names`:
    /// whether the names are still to be checked ([`Names`]).
    pub(crate) async fn preview_many_local(
        &self,
        requests: Vec<ScreenRequest>,
        names: Names,
    ) -> Vec<Result<ScreeningResponse, ServiceError>> {
        let requests = Arc::new(requests);
        let all = Arc::clone(&requests);
        let answers = self
            .blocking(move |this| {
                let loaded = this.ready()?;
                let coverages = Coverages::of(&loaded, &all);
                let stored = this.names(loaded.answers.read_back());
                // Each row checked beside its screening, on every core.
                Ok(all
                    .par_iter()
                    .map(|request| {
                        names.check(request)?;
                        let coverage = coverages.of_request(&loaded, request);
                        preview_on(&stored, &loaded, request, coverage)
                    })
                    .collect::<Vec<_>>())
            })
            .await;
        // No index to screen on: each row fails with why, unless it is refused anyway.
        answers.unwrap_or_else(|e| {
            requests
                .iter()
                .map(|row| check_request(row).and(Err(e.clone())))
                .collect()
        })
    }

    pub(crate) async fn batch_local(
        &self,
        request: BatchRequest,
    ) -> Result<BatchResponse, ServiceError> {
        check_batch(&request)?;
        let (changes, response) = self
            .blocking(move |this| {
                let loaded = this.ready()?;
                let template = request
                    .options
                    .clone()
                    .unwrap_or_else(|| ScreenRequest::new(""));
                let actor = this.actor().to_owned();
                let screened: Vec<(ScreeningRecord, ScreenResult)> = request
                    .names
                    .par_iter()
                    .map(|item| {
                        let (dob, country) = item.evidence();
                        let own = |value: Option<&str>, options: &Option<String>| {
                            value.map(str::to_owned).or_else(|| options.clone())
                        };
                        let one = ScreenRequest {
                            name: item.name().to_owned(),
                            kind: item.kind().or(template.kind),
                            date_of_birth: own(dob, &template.date_of_birth),
                            country: own(country, &template.country),
                            ..template.clone()
                        };
                        run(&loaded, &one, ScreeningOrigin::Batch, &actor, None)
                    })
                    .collect::<Result<_, _>>()?;
                let mut changes = this.changes();
                let mut results = Vec::with_capacity(screened.len());
                for (record, result) in screened {
                    match_alert(&record, &result, &mut changes);
                    results.push(BatchResult {
                        name: record.query.clone(),
                        matches: result.total_matches,
                        screening_id: record.id.clone(),
                        best_score: result.results.first().map(|m| m.score),
                    });
                    changes.screenings.push(record);
                }
                Ok((
                    changes,
                    BatchResponse {
                        total: results.len(),
                        results,
                    },
                ))
            })
            .await?;
        self.commit(changes).await?;
        Ok(response)
    }
}

/// Whether the names of the requests of [`LocalService::preview_many_local`] are still to
/// be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Names {
    /// Checked as any request is ([`check_request`]).
    Unchecked,
    /// Already checked by the caller ([`crate::query::screenable`], with the request's
    /// type): only the options are.
    Checked,
}

impl Names {
    fn check(self, request: &ScreenRequest) -> Result<(), ServiceError> {
        match self {
            Names::Unchecked => check_request(request),
            Names::Checked => check_options(request),
        }
    }
}

/// Refuses a batch that is empty, too long, or has any bad row (all of them named).
fn check_batch(request: &BatchRequest) -> Result<(), ServiceError> {
    if request.names.is_empty() {
        return Err(ServiceError::validation("names", "the batch holds no name"));
    }
    if request.names.len() > MAX_BATCH {
        return Err(ServiceError::validation(
            "names",
            format!(
                "{} names sent; a batch holds at most {MAX_BATCH} (split it, or use `sanctions batch` locally)",
                request.names.len()
            ),
        ));
    }
    if let Some(options) = &request.options {
        check_options(options)?;
    }
    let template_kind = request.options.as_ref().and_then(|o| o.kind);
    let bad: Vec<String> = request
        .names
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let (dob, country) = item.evidence();
            check_name("name", item.name(), item.kind().or(template_kind))
                .and_then(|()| {
                    crate::engine::check_facts(dob, country).map_err(super::enrich::engine_error)
                })
                .err()
                .map(|e| match e {
                    ServiceError::Validation { message, .. } => format!("row {}: {message}", i + 1),
                    other => format!("row {}: {other}", i + 1),
                })
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = bad.iter().take(10).map(String::as_str).collect();
    Err(ServiceError::validation(
        "names",
        format!(
            "{} bad row{} (nothing was screened): {}{}",
            bad.len(),
            if bad.len() == 1 { "" } else { "s" },
            shown.join("; "),
            if bad.len() > shown.len() { "; ..." } else { "" }
        ),
    ))
}

/// One name screened on `loaded` and not stored, its coverage `coverage`.
fn preview_on(
    names: &enrich::Names,
    loaded: &Loaded,
    request: &ScreenRequest,
    coverage: Coverage,
) -> Result<ScreeningResponse, ServiceError> {
    Ok(ScreeningResponse {
        id: String::new(),
        result: enrich::answer(names, loaded, request, coverage)?,
    })
}

/// Previews `request` on `loaded` alone (its coverage worked out for it).
fn preview_alone(
    this: &LocalService,
    loaded: &Loaded,
    request: &ScreenRequest,
) -> Result<ScreeningResponse, ServiceError> {
    let coverage = enrich::coverage(loaded, request);
    preview_on(
        &this.names(loaded.answers.read_back()),
        loaded,
        request,
        coverage,
    )
}

/// The coverage of each kind of request in a batch (its lists, ended listings or not, its
/// type filter): worked out once, not per row.
struct Coverages<'a>(Vec<(CoverageKey<'a>, Coverage)>);

type CoverageKey<'a> = (&'a Option<Vec<ListCode>>, bool, Option<KindFilter>);

fn coverage_key(request: &ScreenRequest) -> CoverageKey<'_> {
    (&request.lists, request.include_ended, request.kind)
}

impl<'a> Coverages<'a> {
    fn of(loaded: &Loaded, requests: &'a [ScreenRequest]) -> Coverages<'a> {
        let mut all: Vec<(CoverageKey<'a>, Coverage)> = Vec::new();
        for request in requests {
            let key = coverage_key(request);
            if !all.iter().any(|(k, _)| *k == key) {
                all.push((key, enrich::coverage(loaded, request)));
            }
        }
        Coverages(all)
    }

    fn of_request(&self, loaded: &Loaded, request: &ScreenRequest) -> Coverage {
        let key = coverage_key(request);
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map_or_else(|| enrich::coverage(loaded, request), |(_, c)| c.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::model::ListCode;

    /// The real lists (`../shared/data/lists`); a test without them fails, naming the folder.
    fn real_lists() -> PathBuf {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/lists");
        assert!(
            dir.is_dir(),
            "the real lists are missing: {}",
            dir.display()
        );
        dir
    }

    /// A store in a temporary folder with the eight real lists imported, and its file.
    fn store_of_the_real_lists() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let mut store = crate::store::Store::open(&db).unwrap();
        crate::ingest::import_dir(&mut store, &real_lists(), &ListCode::ALL).unwrap();
        (dir, db)
    }

    /// A batch's previews answer, row for row, what each row previewed alone answers: the
    /// same matches, groups and coverage, and the same refusals.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn previews_of_a_batch_answer_as_each_row_alone() {
        let (_dir, db) = store_of_the_real_lists();
        let service = LocalService::open(&db, "t").unwrap();
        let names = [
            "Vladimir Putin",
            "PUTIN, Vladimir",
            "Banco Nacional de Cuba",
            "Kim Jong Un",
            "Mohammed Hakim",
            "",
            "Hassan Nasrallah",
        ];
        let mut requests: Vec<ScreenRequest> = names.into_iter().map(ScreenRequest::new).collect();
        requests[1].kind = Some(KindFilter::Individual);
        requests[2].kind = Some(KindFilter::Entity);
        requests[3].lists = Some(vec![ListCode::Un, ListCode::OfacSdn]);
        requests[4].threshold = Some(101);
        let together = service
            .preview_many_local(requests.clone(), Names::Unchecked)
            .await;
        assert_eq!(together.len(), requests.len());
        // Rows whose names the caller checked answer the same, their options still checked.
        let screenable: Vec<ScreenRequest> = requests
            .iter()
            .filter(|r| crate::query::screenable(&r.name, r.kind).is_ok())
            .cloned()
            .collect();
        let checked = service
            .preview_many_local(screenable.clone(), Names::Checked)
            .await;
        let unchecked = service
            .preview_many_local(screenable, Names::Unchecked)
            .await;
        assert_eq!(format!("{checked:?}"), format!("{unchecked:?}"));
        assert!(checked.iter().any(Result::is_err), "the threshold of 101");
        for (request, answer) in requests.into_iter().zip(together) {
            let alone = service.preview_local(request.clone()).await;
            assert_eq!(
                format!("{answer:?}"),
                format!("{alone:?}"),
                "{}",
                request.name
            );
        }
        let putin = service
            .preview_many_local(vec![ScreenRequest::new("Vladimir Putin")], Names::Unchecked)
            .await;
        let best = putin[0].as_ref().unwrap().result.results.first().unwrap();
        assert!(best.name.to_lowercase().contains("putin"), "{best:?}");
        assert!(putin[0].as_ref().unwrap().result.coverage.is_some());
    }

    /// The development set's first queries (`../shared/eval/dev.csv`) and a few names listed
    /// on several lists.
    fn queries() -> Vec<ScreenRequest> {
        let dev = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval/dev.csv");
        let text = std::fs::read_to_string(&dev).unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let column = reader
            .headers()
            .unwrap()
            .iter()
            .position(|h| h == "query")
            .unwrap();
        let dev = reader
            .records()
            .take(400)
            .map(|r| r.unwrap()[column].to_owned());
        [
            "Vladimir Putin",
            "Kim Jong Un",
            "Banco Nacional de Cuba",
            "Alfa Bank",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain(dev)
        .map(ScreenRequest::new)
        .collect()
    }

    /// The grouping facts worked out from the index's entry and its names as stored give
    /// the answers that the entries' records give: a service that built its index (names
    /// from the build), one that read it from its file (names kept in the file), and answers
    /// worked out from the records alone answer alike.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn grouping_from_the_names_kept_answers_as_the_records() {
        let (_dir, db) = store_of_the_real_lists();
        let requests = queries();
        let built = LocalService::open(&db, "t").unwrap();
        let from_build = built
            .preview_many_local(requests.clone(), Names::Unchecked)
            .await;
        let from_file = LocalService::open(&db, "t").unwrap();
        let kept = from_file
            .preview_many_local(requests.clone(), Names::Unchecked)
            .await;
        assert!(from_file.current().unwrap().answers.read_back().is_some());
        // Another service's index from the file, its facts worked out from records only.
        let records = LocalService::open(&db, "t").unwrap();
        let loaded = records.current().unwrap();
        let by_record = enrich::Names {
            repo: records.repository(),
            read_back: None,
        };
        let from_records: Vec<_> = requests
            .iter()
            .map(|r| enrich::answer(&by_record, &loaded, r, enrich::coverage(&loaded, r)))
            .collect();
        let grouped = from_build
            .iter()
            .flatten()
            .flat_map(|a| &a.result.results)
            .filter(|m| m.group.is_some_and(|g| g > 1))
            .count();
        assert!(grouped > 100, "{grouped} matches past the first group");
        for (i, request) in requests.iter().enumerate() {
            let build = format!("{:?}", from_build[i]);
            assert_eq!(build, format!("{:?}", kept[i]), "{}", request.name);
            let result = from_build[i].as_ref().map(|a| &a.result).ok();
            let record = from_records[i].as_ref().ok();
            assert_eq!(
                format!("{result:?}"),
                format!("{record:?}"),
                "{}",
                request.name
            );
        }
    }

    /// For every entry of the eight lists, its grouping facts from what the index copies of
    /// it (list, type, primary name, facts) and its names as kept are those of its record.
    #[test]
    fn every_entry_has_the_same_grouping_facts_from_its_names_as_from_its_record() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = crate::store::Store::open(&dir.path().join("s.db")).unwrap();
        crate::ingest::import_dir(&mut store, &real_lists(), &ListCode::ALL).unwrap();
        let read = store.read_back_names().unwrap();
        assert!(read.damage.is_empty());
        let records: std::collections::HashMap<String, crate::model::Entity> = store
            .entities()
            .unwrap()
            .into_iter()
            .map(|e| (e.entity_id(), e))
            .collect();
        let entries = store.entity_names().unwrap();
        assert_eq!(entries.len(), records.len());
        // The names as the index keeps them, and as its file gives them back.
        let kept = super::super::verify::stored_names(&entries).to_bytes();
        let names = crate::store::StoredNames::from_bytes(&kept).unwrap();
        assert_eq!(names.entity_count(), records.len());
        for entry in &entries {
            let from_names = crate::grouping::Facts::new(
                entry.list,
                entry.kind,
                &entry.primary_name,
                names.names_of(&entry.entity_id).unwrap(),
                &entry.facts.birth_dates,
                entry
                    .facts
                    .nationalities
                    .iter()
                    .chain(&entry.facts.countries),
            );
            let record = &records[&entry.entity_id];
            assert_eq!(
                from_names,
                crate::grouping::Facts::of(record),
                "{}",
                entry.entity_id
            );
        }
    }
}
