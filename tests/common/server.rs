//! A real HTTP server on 127.0.0.1 (ephemeral port) serving files the way publishers do:
//! with an ETag, honouring If-None-Match, and optionally failing the first requests.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

/// One served file.
#[derive(Clone)]
pub struct Served {
    pub bytes: Arc<Vec<u8>>,
    pub etag: String,
    /// How many requests answer 503 before the file is served.
    pub fail_first: usize,
}

/// The server's files by path (`un/consolidated.xml`) and what it was asked.
#[derive(Clone, Default)]
pub struct Files {
    pub files: Arc<Mutex<HashMap<String, Served>>>,
    /// (path, status) of every request, in order.
    pub log: Arc<Mutex<Vec<(String, u16)>>>,
}

impl Files {
    /// Serves `bytes` at `path` with an ETag made from their digest.
    pub fn put(&self, path: &str, bytes: Vec<u8>) {
        let etag = format!(
            "\"{:x}-{}\"",
            bytes.len(),
            bytes.iter().map(|b| *b as u64).sum::<u64>()
        );
        self.files.lock().unwrap().insert(
            path.to_owned(),
            Served {
                bytes: Arc::new(bytes),
                etag,
                fail_first: 0,
            },
        );
    }

    /// Makes the next `n` requests of `path` answer 503.
    pub fn fail_first(&self, path: &str, n: usize) {
        if let Some(f) = self.files.lock().unwrap().get_mut(path) {
            f.fail_first = n;
        }
    }

    /// The statuses answered for `path`.
    pub fn statuses(&self, path: &str) -> Vec<u16> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, s)| *s)
            .collect()
    }
}

async fn serve(
    State(files): State<Files>,
    Path(path): Path<String>,
    headers: HeaderMap,
) -> Response {
    let answer = {
        let mut map = files.files.lock().unwrap();
        match map.get_mut(&path) {
            None => (StatusCode::NOT_FOUND, None),
            Some(f) if f.fail_first > 0 => {
                f.fail_first -= 1;
                (StatusCode::SERVICE_UNAVAILABLE, None)
            }
            Some(f) => {
                let not_modified = headers
                    .get(header::IF_NONE_MATCH)
                    .is_some_and(|v| v.as_bytes() == f.etag.as_bytes());
                if not_modified {
                    (StatusCode::NOT_MODIFIED, Some((f.etag.clone(), None)))
                } else {
                    (
                        StatusCode::OK,
                        Some((f.etag.clone(), Some(f.bytes.clone()))),
                    )
                }
            }
        }
    };
    files.log.lock().unwrap().push((path, answer.0.as_u16()));
    let mut response = Response::builder().status(answer.0);
    let body = match answer.1 {
        Some((etag, bytes)) => {
            response = response.header(header::ETAG, etag);
            bytes
                .map(|b| Body::from(b.as_ref().clone()))
                .unwrap_or_default()
        }
        None => Body::empty(),
    };
    response.body(body).unwrap()
}

/// Starts the server on 127.0.0.1 with an ephemeral port; it runs until the runtime ends.
pub async fn start(files: Files) -> SocketAddr {
    let app = Router::new()
        .route("/{*path}", axum::routing::get(serve))
        .with_state(files);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    addr
}
