//! `GET /audit` streamed: NDJSON (one stored screening, with its decision log, per line) or
//! CSV ([`crate::api::audit_csv`]), read from the store a page at a time and written to the
//! response as each page arrives, so that memory stays constant whatever the period holds.
//! Without `format` (or an `Accept` naming NDJSON or CSV) the answer is the JSON document.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::TryStreamExt;
use serde::Deserialize;

use super::reply::ApiError;
use crate::api::screenings::{AuditQuery, StoredScreening};
use crate::service::{Service, ServiceError};

/// Screenings read from the store per page of a streamed export.
pub const PAGE: usize = 500;

/// The query parameters of `GET /audit`.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AuditParams {
    /// RFC 3339 UTC lower bound.
    #[param(value_type = Option<String>, format = DateTime)]
    #[serde(default)]
    pub since: Option<jiff::Timestamp>,
    /// RFC 3339 UTC upper bound, excluded; not before `since`.
    #[param(value_type = Option<String>, format = DateTime)]
    #[serde(default)]
    pub until: Option<jiff::Timestamp>,
    /// `json` (the default: one document), or streamed a page at a time: `ndjson`
    /// (`application/x-ndjson`, one stored screening with its decisions per line, oldest
    /// first) or `csv` (`text/csv`). `Accept: application/x-ndjson` or `text/csv` choose the
    /// same without `format`.
    #[param(inline)]
    #[serde(default)]
    pub format: Option<Format>,
    /// Streamed forms only: start after this screening id (the last one received).
    #[param(pattern = "^scr_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The form of an audit export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Ndjson,
    Csv,
}

impl Format {
    /// `format` if given, else the first of NDJSON or CSV named by `Accept`, else JSON.
    pub fn negotiate(format: Option<Format>, headers: &HeaderMap) -> Format {
        if let Some(format) = format {
            return format;
        }
        let accept = headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(",");
        for kind in accept.split(',') {
            match kind.split(';').next().unwrap_or("").trim() {
                "application/x-ndjson" | "application/ndjson" => return Format::Ndjson,
                "text/csv" => return Format::Csv,
                _ => {}
            }
        }
        Format::Json
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Ndjson => "application/x-ndjson",
            Format::Csv => "text/csv; charset=utf-8",
        }
    }
}

/// Where a streamed export stands between two pages.
struct Cursor {
    service: Arc<dyn Service>,
    query: AuditQuery,
    format: Format,
    after: Option<String>,
    /// The first page, read before answering so that its errors get their status.
    first: Option<Vec<StoredScreening>>,
    header: bool,
    done: bool,
}

/// Answers with the export streamed in `format` (NDJSON or CSV), reading the first page
/// before the status line so that a refused cursor or period is a 4xx, not a cut stream.
pub async fn stream(
    service: Arc<dyn Service>,
    query: AuditQuery,
    after: Option<String>,
    format: Format,
) -> Result<Response, ApiError> {
    let first = service
        .audit_page(query.clone(), after.clone(), PAGE)
        .await?;
    let cursor = Cursor {
        service,
        query,
        format,
        after,
        first: Some(first),
        header: format == Format::Csv,
        done: false,
    };
    // hyper queues up to 16 chunks before it stops polling the body: small chunks keep
    // that to a fraction of a page.
    let pages = futures::stream::try_unfold(cursor, next_chunk);
    let chunks = pages
        .map_ok(|page| futures::stream::iter(split(page).map(Ok::<_, ServiceError>)))
        .try_flatten();
    let body = Body::from_stream(chunks);
    let mut response = (StatusCode::OK, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    Ok(response)
}

/// Most bytes of one chunk of the body.
const CHUNK: usize = 32 * 1024;

/// `bytes` in slices of at most [`CHUNK`] (sharing its buffer).
fn split(bytes: Bytes) -> impl Iterator<Item = Bytes> {
    let len = bytes.len();
    (0..len)
        .step_by(CHUNK)
        .map(move |at| bytes.slice(at..(at + CHUNK).min(len)))
}

/// The next chunk of the body: one page, encoded; `None` after the last page.
async fn next_chunk(mut cursor: Cursor) -> Result<Option<(Bytes, Cursor)>, ServiceError> {
    if cursor.done {
        return Ok(None);
    }
    let page = match cursor.first.take() {
        Some(page) => page,
        None => {
            cursor
                .service
                .audit_page(cursor.query.clone(), cursor.after.clone(), PAGE)
                .await?
        }
    };
    cursor.done = page.len() < PAGE;
    if let Some(last) = page.last() {
        cursor.after = Some(last.id.clone());
    }
    let chunk = encode(&page, cursor.format, std::mem::take(&mut cursor.header))?;
    if chunk.is_empty() && cursor.done {
        return Ok(None);
    }
    Ok(Some((Bytes::from(chunk), cursor)))
}

/// One page as NDJSON lines or CSV rows (after the header row when `header`).
fn encode(page: &[StoredScreening], format: Format, header: bool) -> Result<Vec<u8>, ServiceError> {
    let failed = |e: &dyn std::fmt::Display| ServiceError::Internal(format!("audit export: {e}"));
    let mut out = Vec::with_capacity(page.len() * 512);
    if format == Format::Ndjson {
        for screening in page {
            serde_json::to_writer(&mut out, screening).map_err(|e| failed(&e))?;
            out.push(b'\n');
        }
        return Ok(out);
    }
    let mut writer = csv::Writer::from_writer(&mut out);
    if header {
        writer
            .write_record(crate::api::audit_csv::HEADER)
            .map_err(|e| failed(&e))?;
    }
    for screening in page {
        for row in crate::api::audit_csv::rows(screening) {
            writer.write_record(&row).map_err(|e| failed(&e))?;
        }
    }
    writer.flush().map_err(|e| failed(&e))?;
    drop(writer);
    Ok(out)
}
