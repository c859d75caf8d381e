//! The one batch orchestration the faces call: checked rows screened through a [`Service`],
//! results in input order, each row keeping its input columns and evidence, refused rows
//! reported with their place and reason. Faces only format what comes back.
//!
//! Previews (nothing stored) go [`PREVIEW_CHUNK`] rows at a time through
//! [`Service::preview_many`]; a local service screens them together on every core. Stored batches go [`MAX_BATCH`] rows at a time through
//! [`Service::screen_batch`], which stores each row as a screening.

use std::sync::Arc;

use super::{BatchItem, unscreened_line};
use crate::api::batch::{BatchName, BatchRequest, BatchResponse, BatchResult, MAX_BATCH};
use crate::api::coverage::Coverage;
use crate::api::screening::{BatchLine, KindFilter, ScreenRequest};
use crate::api::screenings::ScreeningResponse;
use crate::{Service, ServiceError};

/// Rows previewed per call of [`Service::preview_many`] (progress is reported after each).
const PREVIEW_CHUNK: usize = 256;

/// Whether each row is stored as a screening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Preview,
    Store,
}

/// What a batch needs besides its rows.
pub struct Plan<'a> {
    /// Options of every row (its name, type and evidence are replaced by the row's).
    pub template: &'a ScreenRequest,
    /// The requested lists as checked before screening.
    pub checked: &'a Coverage,
    pub mode: Mode,
}

/// Every row of a batch, screened or refused, in input order.
#[derive(Debug)]
pub struct Screened {
    pub lines: Vec<BatchLine>,
    /// Each row's best score (a stored batch answers no match details).
    pub best: Vec<Option<u8>>,
    /// Each row's answer from [`Service::screen_batch`] (a stored batch; `None` for a
    /// preview or a refused row).
    pub stored: Vec<Option<BatchResult>>,
}

impl Screened {
    /// Rows refused or failed.
    pub fn not_screened(&self) -> usize {
        self.lines.iter().filter(|l| l.error.is_some()).count()
    }

    /// Rows with at least one match.
    pub fn matched(&self) -> usize {
        self.lines.iter().filter(|l| l.total_matches > 0).count()
    }

    /// A stored batch as `POST /screen/batch` answers it: each stored row's answer, in
    /// input order.
    pub fn response(self) -> BatchResponse {
        let results: Vec<BatchResult> = self.stored.into_iter().flatten().collect();
        BatchResponse {
            total: results.len(),
            results,
        }
    }
}

/// The rows of a batch sent as names (the interface's [`BatchRequest`], a paste): each
/// name with its own type, date of birth and country, at its 1-based position.
pub fn request_items(request: &BatchRequest) -> Vec<BatchItem> {
    request
        .names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let (dob, country) = name.evidence();
            BatchItem {
                qid: (i + 1).to_string(),
                line: None,
                position: Some(i as u64 + 1),
                name: name.name().to_owned(),
                kind: name.kind(),
                date_of_birth: dob.map(str::to_owned),
                country: country.map(str::to_owned),
                error: None,
                name_checked: false,
                cells: Vec::new(),
            }
        })
        .collect()
}

/// The options of every row of `request` (the service's defaults when it gives none).
pub fn request_template(request: &BatchRequest) -> ScreenRequest {
    request
        .options
        .clone()
        .unwrap_or_else(|| ScreenRequest::new(""))
}

/// No list checked beforehand: for the faces that report no coverage per row (the
/// server's and the UI's stored batches).
pub fn unchecked() -> Coverage {
    Coverage {
        lists: Vec::new(),
        missing: Vec::new(),
        stale: Vec::new(),
        max_age_days: 0,
        entries_searched: 0,
        complete: true,
    }
}

/// The coverage to report: the lists as checked, with what the service really searched.
pub fn merged(checked: &Coverage, from_service: Option<&Coverage>) -> Coverage {
    Coverage {
        entries_searched: from_service.map_or(0, |c| c.entries_searched),
        ..checked.clone()
    }
}

/// Screens `items` (see the module doc), calling `progress` with each step's row count.
/// A stored batch that the service refuses fails whole; a failed preview stays on its row.
pub async fn screen_items(
    svc: &Arc<dyn Service>,
    items: &[BatchItem],
    plan: &Plan<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Screened, ServiceError> {
    let mut screened = Screened {
        lines: items.iter().map(unscreened_line).collect(),
        best: vec![None; items.len()],
        stored: vec![None; items.len()],
    };
    let todo: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].error.is_none())
        .collect();
    progress((items.len() - todo.len()) as u64);
    match plan.mode {
        Mode::Store => store_rows(svc, items, &todo, plan, &mut screened, progress).await?,
        Mode::Preview => preview_rows(svc, items, &todo, plan, &mut screened, progress).await,
    }
    fill_coverage(&mut screened.lines, plan.checked);
    Ok(screened)
}

async fn store_rows(
    svc: &Arc<dyn Service>,
    items: &[BatchItem],
    todo: &[usize],
    plan: &Plan<'_>,
    out: &mut Screened,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), ServiceError> {
    for chunk in todo.chunks(MAX_BATCH) {
        let request = BatchRequest {
            names: chunk.iter().map(|&i| typed(&items[i])).collect(),
            options: Some(plan.template.clone()),
        };
        let response = svc.screen_batch(request).await?;
        for (&i, result) in chunk.iter().zip(response.results) {
            let line = &mut out.lines[i];
            line.total_matches = result.matches;
            line.screening_id = Some(result.screening_id.clone());
            line.coverage = Some(merged(plan.checked, None));
            out.best[i] = result.best_score;
            out.stored[i] = Some(result);
        }
        progress(chunk.len() as u64);
    }
    Ok(())
}

/// A row as the service's batch takes it: its name, type, date of birth and country.
fn typed(item: &BatchItem) -> BatchName {
    BatchName::Typed {
        name: item.name.clone(),
        kind: item.kind,
        date_of_birth: item.date_of_birth.clone(),
        country: item.country.clone(),
    }
}

async fn preview_rows(
    svc: &Arc<dyn Service>,
    items: &[BatchItem],
    todo: &[usize],
    plan: &Plan<'_>,
    out: &mut Screened,
    progress: &(dyn Fn(u64) + Sync),
) {
    // The next chunk is screened while this one's rows are filled in, so that the cores are
    // not left waiting for the filling between chunks.
    let mut chunks = todo.chunks(PREVIEW_CHUNK);
    let mut next = chunks
        .next()
        .map(|c| (c, previews(svc, items, c, plan.template)));
    while let Some((chunk, answers)) = next.take() {
        next = chunks
            .next()
            .map(|c| (c, previews(svc, items, c, plan.template)));
        let answers = answers.await.unwrap_or_else(|e| {
            let failed = ServiceError::Internal(format!("a batch's screening stopped: {e}"));
            vec![Err(failed); chunk.len()]
        });
        for (&i, answer) in chunk.iter().zip(answers) {
            fill_line(out, i, answer, plan.checked);
        }
        progress(chunk.len() as u64);
    }
}

/// The previews of the rows `chunk` of `items`, screened on a task of their own.
fn previews(
    svc: &Arc<dyn Service>,
    items: &[BatchItem],
    chunk: &[usize],
    template: &ScreenRequest,
) -> tokio::task::JoinHandle<Vec<Result<ScreeningResponse, ServiceError>>> {
    let requests: Vec<ScreenRequest> = chunk
        .iter()
        .map(|&i| row_request(&items[i], template))
        .collect();
    // Rows whose names passed the one check when the file was read are not checked again
    // by the service.
    let checked = chunk.iter().all(|&i| items[i].name_checked);
    let svc = Arc::clone(svc);
    tokio::spawn(async move {
        if checked {
            svc.preview_many_checked(requests).await
        } else {
            svc.preview_many(requests).await
        }
    })
}

/// Row `i` of `out` from its preview.
fn fill_line(
    out: &mut Screened,
    i: usize,
    answer: Result<ScreeningResponse, ServiceError>,
    checked: &Coverage,
) {
    let line = &mut out.lines[i];
    match answer {
        Ok(response) => {
            let result = response.result;
            line.total_matches = result.total_matches;
            line.coverage = Some(merged(checked, result.coverage.as_ref()));
            out.best[i] = result.results.first().map(|m| m.score);
            line.results = result.results;
        }
        Err(e) => line.error = Some(e.to_string()),
    }
}

/// The request of one row: the template with the row's name, type and evidence.
pub fn row_request(item: &BatchItem, template: &ScreenRequest) -> ScreenRequest {
    ScreenRequest {
        name: item.name.clone(),
        kind: item.kind,
        date_of_birth: item.date_of_birth.clone(),
        country: item.country.clone(),
        ..template.clone()
    }
}

/// A row not screened still says what the batch was checked against (for its type): the
/// coverage of the first screened row of its type, else the lists as checked.
fn fill_coverage(lines: &mut [BatchLine], checked: &Coverage) {
    let mut by_kind: Vec<(Option<KindFilter>, Coverage)> = Vec::new();
    for line in lines.iter() {
        if let Some(c) = &line.coverage
            && !by_kind.iter().any(|(k, _)| *k == line.kind)
        {
            by_kind.push((line.kind, c.clone()));
        }
    }
    for line in lines.iter_mut().filter(|l| l.coverage.is_none()) {
        let same = by_kind.iter().find(|(k, _)| *k == line.kind);
        line.coverage = Some(same.map_or_else(|| merged(checked, None), |(_, c)| c.clone()));
    }
}
