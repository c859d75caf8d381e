//! Downloads of the official list files: conditional requests (ETag / Last-Modified), a size
//! cap, timeouts and retries with back-off.
//!
//! Files land in a per-list folder (`<data dir>/downloads/<code>/`) under the names the
//! parsers expect, so that an update is a download followed by an ordinary import of that
//! folder. The validators of a download are saved only once its import succeeded, so a failed
//! import is retried in full next time instead of being skipped as "not modified".

mod validators;

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{
    ETAG, HeaderMap, HeaderName, HeaderValue, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED,
};
use tokio::io::AsyncWriteExt;

use crate::config::FetchConfig;
use crate::model::ListCode;
use crate::sources;

pub use validators::Validators;

/// Why a download failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: {message}")]
    Http { url: String, message: String },
    #[error("{url}: the file is larger than the {limit}-byte limit (fetch.max_bytes)")]
    TooLarge { url: String, limit: u64 },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
}

/// One file to download for a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSource {
    /// The name the parser expects in the list folder.
    pub file_name: String,
    pub url: String,
    /// A missing (404) optional file is not an error.
    pub optional: bool,
}

/// The result of downloading one list.
#[derive(Debug)]
pub enum Fetched {
    /// Every file answered "not modified": the stored version is current.
    NotModified,
    /// New files are in the folder; save `validators` once they are imported.
    Downloaded { validators: Validators },
}

/// Where each file of `list` is downloaded from: the publisher's address, unless the
/// configuration names a mirror (`<mirror>/<code>/<file name>`) or a per-file URL.
pub fn file_sources(list: ListCode, config: &FetchConfig) -> Vec<FileSource> {
    let overrides = config.urls.get(&list);
    sources::official_files(list)
        .iter()
        .map(|file| {
            let url = overrides
                .and_then(|o| o.get(file.file_name).cloned())
                .or_else(|| {
                    config.mirror.as_ref().map(|m| {
                        format!(
                            "{}/{}/{}",
                            m.trim_end_matches('/'),
                            list.code(),
                            file.file_name
                        )
                    })
                })
                .unwrap_or_else(|| file.url.to_owned());
            FileSource {
                file_name: file.file_name.to_owned(),
                url,
                optional: file.optional,
            }
        })
        .collect()
}

/// A configured HTTP client.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    config: FetchConfig,
}

impl Fetcher {
    /// A client with the configuration's timeouts.
    pub fn new(config: &FetchConfig) -> Result<Fetcher, FetchError> {
        let client = reqwest::Client::builder()
            .user_agent(concat!("sanctions/", env!("CARGO_PKG_VERSION")))
            .timeout(Duration::from_secs(config.timeout_secs))
            .connect_timeout(Duration::from_secs(config.timeout_secs.min(30)))
            .build()
            .map_err(|e| FetchError::Client(e.to_string()))?;
        Ok(Fetcher {
            client,
            config: config.clone(),
        })
    }

    /// Downloads every file of `list` into `dir`. With `conditional`, files already there are
    /// asked for only if changed since their saved validators.
    pub async fn fetch_list(
        &self,
        list: ListCode,
        dir: &Path,
        conditional: bool,
    ) -> Result<Fetched, FetchError> {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|source| FetchError::Io {
                path: dir.display().to_string(),
                source,
            })?;
        let old = if conditional {
            Validators::load(dir)
        } else {
            Validators::default()
        };
        let mut new = Validators::default();
        let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
        let mut all_not_modified = true;
        let headers = self.extra_headers(list);
        for source in file_sources(list, &self.config) {
            let target = dir.join(&source.file_name);
            let known = old.get(&source.url).filter(|_| target.is_file());
            let part = dir.join(format!(".{}.part", source.file_name));
            match self.download(&source, known, &headers, &part).await? {
                FileResult::NotModified => {
                    if let Some(v) = known {
                        new.insert(&source.url, v.clone());
                    }
                }
                FileResult::Saved(validator) => {
                    all_not_modified = false;
                    new.insert(&source.url, validator);
                    staged.push((part, target));
                }
                FileResult::Absent => {
                    all_not_modified = false;
                    let _ = tokio::fs::remove_file(&target).await;
                }
            }
        }
        if all_not_modified {
            return Ok(Fetched::NotModified);
        }
        for (part, target) in staged {
            tokio::fs::rename(&part, &target)
                .await
                .map_err(|source| FetchError::Io {
                    path: target.display().to_string(),
                    source,
                })?;
        }
        Ok(Fetched::Downloaded { validators: new })
    }

    fn extra_headers(&self, list: ListCode) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in self.config.headers.get(&list).into_iter().flatten() {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                map.insert(name, value);
            }
        }
        map
    }

    async fn download(
        &self,
        source: &FileSource,
        known: Option<&validators::Validator>,
        extra: &HeaderMap,
        part: &Path,
    ) -> Result<FileResult, FetchError> {
        let mut attempt = 0;
        loop {
            match self.try_download(source, known, extra, part).await {
                Err(Attempt::Retry(message)) if attempt < self.config.retries => {
                    attempt += 1;
                    tracing::warn!(url = %source.url, attempt, %message, "download failed, retrying");
                    tokio::time::sleep(backoff(attempt)).await;
                }
                Err(Attempt::Retry(message)) => {
                    return Err(FetchError::Http {
                        url: source.url.clone(),
                        message: format!("{message} (after {} attempts)", attempt + 1),
                    });
                }
                Err(Attempt::Fatal(e)) => return Err(e),
                Ok(result) => return Ok(result),
            }
        }
    }

    async fn try_download(
        &self,
        source: &FileSource,
        known: Option<&validators::Validator>,
        extra: &HeaderMap,
        part: &Path,
    ) -> Result<FileResult, Attempt> {
        let mut request = self.client.get(&source.url).headers(extra.clone());
        if let Some(v) = known {
            if let Some(etag) = &v.etag {
                request = request.header(IF_NONE_MATCH, etag);
            }
            if let Some(modified) = &v.last_modified {
                request = request.header(IF_MODIFIED_SINCE, modified);
            }
        }
        let mut response = request
            .send()
            .await
            .map_err(|e| Attempt::Retry(error_chain(&e)))?;
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED && known.is_some() {
            return Ok(FileResult::NotModified);
        }
        if status == StatusCode::NOT_FOUND && source.optional {
            return Ok(FileResult::Absent);
        }
        if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
            return Err(Attempt::Retry(format!("HTTP {status}")));
        }
        if !status.is_success() {
            return Err(Attempt::Fatal(FetchError::Http {
                url: source.url.clone(),
                message: format!("HTTP {status}"),
            }));
        }
        let limit = self.config.max_bytes;
        let too_large = || {
            Attempt::Fatal(FetchError::TooLarge {
                url: source.url.clone(),
                limit,
            })
        };
        if response.content_length().is_some_and(|len| len > limit) {
            return Err(too_large());
        }
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_owned)
        };
        let validator = validators::Validator {
            etag: header(ETAG),
            last_modified: header(LAST_MODIFIED),
        };
        let io = |source| {
            Attempt::Fatal(FetchError::Io {
                path: part.display().to_string(),
                source,
            })
        };
        let mut file = tokio::fs::File::create(part).await.map_err(io)?;
        let mut written = 0u64;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| Attempt::Retry(error_chain(&e)))?
        {
            written += chunk.len() as u64;
            if written > limit {
                drop(file);
                let _ = tokio::fs::remove_file(part).await;
                return Err(too_large());
            }
            file.write_all(&chunk).await.map_err(io)?;
        }
        file.flush().await.map_err(io)?;
        Ok(FileResult::Saved(validator))
    }
}

enum FileResult {
    NotModified,
    Saved(validators::Validator),
    Absent,
}

enum Attempt {
    Retry(String),
    Fatal(FetchError),
}

/// The pause before retry `attempt` (1-based): 0.5 s doubling each time, at most
/// [`MAX_BACKOFF`]; any `retries` setting is safe (a shift past 63 bits used to panic).
pub fn backoff(attempt: u32) -> Duration {
    let factor = 1u64
        .checked_shl(attempt.saturating_sub(1))
        .unwrap_or(u64::MAX);
    Duration::from_millis(500u64.saturating_mul(factor)).min(MAX_BACKOFF)
}

/// The longest pause between two attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// An error with its causes, e.g. "error sending request: connection refused".
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `retries` of 56 and more overflowed `500 * 2^(attempt - 1)` and panicked.
    #[test]
    fn backoff_never_overflows() {
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(2), Duration::from_secs(1));
        for attempt in [56, 57, 64, 65, 100, u32::MAX] {
            assert_eq!(backoff(attempt), MAX_BACKOFF, "attempt {attempt}");
        }
        assert_eq!(backoff(0), Duration::from_millis(500));
    }
}
