//! The audit export read by cursor pages over HTTP ([`RemoteService::audit_page_remote`]):
//! pages are read from one open NDJSON stream (`GET /audit?format=ndjson`), a line at a
//! time, so that an export of any size is one request (one of the account's few exports an
//! hour) held in constant memory. A page asked after another cursor than the one the open
//! stream stands at, or after the stream ended or broke, opens a new stream from that cursor.

use std::time::Duration;

use reqwest::Method;
use reqwest::header::ACCEPT;

use super::{RemoteService, errors, read_bounded, retry_after};
use crate::api::routes;
use crate::api::screenings::{AuditQuery, StoredScreening};
use crate::service::ServiceError;

/// Longest line (one stored screening with its decisions) read from an export stream.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Time allowed for a whole export stream (the client's usual timeout is for one request).
const STREAM_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// An export stream being read.
pub(crate) struct OpenExport {
    query: AuditQuery,
    /// The id of the last screening read: the cursor the stream stands at.
    at: Option<String>,
    response: reqwest::Response,
    /// Bytes received past the last whole line.
    pending: Vec<u8>,
}

impl RemoteService {
    /// Up to `limit` screenings of the period with an id above `after`, oldest first.
    pub(crate) async fn audit_page_remote(
        &self,
        query: AuditQuery,
        after: Option<String>,
        limit: usize,
    ) -> Result<Vec<StoredScreening>, ServiceError> {
        let mut slot = self.export.lock().await;
        let open = match slot.take() {
            Some(open) if open.query == query && open.at == after => open,
            _ => self.open_export(query, after).await?,
        };
        let mut open = open;
        let mut page = Vec::new();
        while page.len() < limit {
            let Some(line) = open.next_line(&self.url).await? else {
                return Ok(page);
            };
            page.push(parse_line(&line, &self.url)?);
        }
        open.at = page.last().map(|s| s.id.clone());
        *slot = Some(open);
        Ok(page)
    }

    async fn open_export(
        &self,
        query: AuditQuery,
        after: Option<String>,
    ) -> Result<OpenExport, ServiceError> {
        let mut request = self
            .client
            .request(Method::GET, format!("{}{}", self.base, routes::AUDIT))
            .timeout(STREAM_TIMEOUT)
            .header(ACCEPT, "application/x-ndjson")
            .query(&query)
            .query(&[("format", "ndjson")]);
        if let Some(after) = &after {
            request = request.query(&[("cursor", after)]);
        }
        let response = request
            .send()
            .await
            .map_err(|e| errors::transport(&self.url, &e))?;
        self.keep_rate(response.headers());
        let status = response.status();
        if !status.is_success() {
            let retry = retry_after(response.headers());
            let bytes = read_bounded(response, &self.url).await?;
            return Err(errors::from_status(status, &bytes, retry, routes::AUDIT));
        }
        Ok(OpenExport {
            query,
            at: after,
            response,
            pending: Vec::new(),
        })
    }
}

impl OpenExport {
    /// The next line of the stream, without its end; `None` at the end.
    async fn next_line(&mut self, url: &str) -> Result<Option<Vec<u8>>, ServiceError> {
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.pending.drain(..=end).collect();
                line.pop();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Ok(Some(line));
            }
            if self.pending.len() > MAX_LINE_BYTES {
                return Err(ServiceError::Internal(format!(
                    "{url} sent an export line over {} MiB",
                    MAX_LINE_BYTES / (1024 * 1024)
                )));
            }
            let chunk = self
                .response
                .chunk()
                .await
                .map_err(|e| errors::transport(url, &e))?;
            match chunk {
                Some(bytes) => self.pending.extend_from_slice(&bytes),
                None if self.pending.iter().all(u8::is_ascii_whitespace) => return Ok(None),
                None => return Ok(Some(std::mem::take(&mut self.pending))),
            }
        }
    }
}

fn parse_line(line: &[u8], url: &str) -> Result<StoredScreening, ServiceError> {
    serde_json::from_slice(line).map_err(|e| {
        ServiceError::Internal(format!(
            "{url} sent an export line this client does not understand ({e})"
        ))
    })
}
