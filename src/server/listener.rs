//! The accept loop: bounded connections in front of the application.
//!
//! - **A global cap** ([`Limits::max_connections`]) and **a cap per client address**
//!   ([`Limits::per_address`]): a connection past either is closed at once, before a byte is
//!   read, so a flood of idle sockets costs the server one accept and one close each and never
//!   makes the others wait in the kernel's backlog.
//! - **A header-read timeout** ([`Limits::header_read`]): hyper's HTTP/1 timer runs from the
//!   moment a connection waits for a request head (a new connection, or a kept-alive one
//!   between requests) until the whole head has arrived; past it the connection is closed.
//!   It is therefore also the idle (keep-alive) timeout: a silent or idle connection lives at
//!   most this long.
//! - The client's address is put on every request ([`axum::extract::ConnectInfo`]) for the
//!   per-address throttling of failed authentications.
//!
//! Shutdown: the listener closes, requests in flight finish (hyper's graceful shutdown), for
//! at most the grace period.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::TcpListener;
use tower::Service as _;

use super::tls::Tls;

/// The bounds of the accept loop.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Most connections open at once from one client address.
    pub per_address: usize,
    /// Longest wait for a request head (and so the longest idle keep-alive).
    pub header_read: Duration,
    /// How long a shutdown waits for requests in flight.
    pub grace: Duration,
}

/// Open connections, in all and per client address (only addresses with one open: the
/// table never holds more entries than there are connections).
#[derive(Debug, Default)]
pub struct Open {
    counts: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One admitted connection; counted until dropped.
#[derive(Debug)]
pub struct Admitted {
    open: Arc<Open>,
    ip: IpAddr,
}

impl Open {
    /// Admits a connection from `ip` within `limits`, or `None` (close it at once).
    pub fn admit(self: &Arc<Self>, ip: IpAddr, limits: &Limits) -> Option<Admitted> {
        let mut guard = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let (total, by_ip) = &mut *guard;
        let mine = by_ip.get(&ip).copied().unwrap_or(0);
        if *total >= limits.max_connections.max(1) || mine >= limits.per_address.max(1) {
            return None;
        }
        *total += 1;
        by_ip.insert(ip, mine + 1);
        Some(Admitted {
            open: self.clone(),
            ip,
        })
    }

    /// Connections open now: in all, and from `ip`.
    #[cfg(test)]
    pub fn count(&self, ip: IpAddr) -> (usize, usize) {
        let guard = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        (guard.0, guard.1.get(&ip).copied().unwrap_or(0))
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut guard = self.open.counts.lock().unwrap_or_else(|p| p.into_inner());
        let (total, by_ip) = &mut *guard;
        *total = total.saturating_sub(1);
        if let Some(n) = by_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                by_ip.remove(&self.ip);
            }
        }
    }
}

/// Serves `app` on `listener` within `limits` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    tls: Option<Arc<Tls>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let secure = secure_builder(&limits);
    let open = Arc::new(Open::default());
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read)
        .keep_alive(true);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut refused: u64 = 0;
    loop {
        let (stream, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(admitted) = open.admit(addr.ip(), &limits) else {
            refused += 1;
            if refused.is_power_of_two() {
                tracing::warn!(client = %addr.ip(), refused, "connection refused: too many open");
            }
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        if let Some(tls) = &tls {
            let service = service(app.clone(), addr);
            let connection = secure_connection(stream, tls.acceptor(), secure.clone(), service);
            let watcher = graceful.watcher();
            let header_read = limits.header_read;
            tokio::spawn(async move {
                connection(watcher, header_read).await;
                drop(admitted);
            });
            continue;
        }
        let connection = http.serve_connection(TokioIo::new(stream), service(app.clone(), addr));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(admitted);
        });
    }
    drop(listener);
    tracing::info!("shutting down: finishing requests in flight");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.grace) => {
            tracing::warn!("requests still in flight after the grace period were cut off");
        }
    }
    Ok(())
}

/// HTTP/1.1 (with the header-read timeout) or HTTP/2, as the TLS handshake chose.
fn secure_builder(limits: &Limits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(64)
        .keep_alive_interval(Some(limits.header_read))
        .keep_alive_timeout(limits.header_read);
    builder
}

/// One TLS connection: the handshake (within the header-read timeout), then HTTP until
/// it closes or the server shuts down.
fn secure_connection<S>(
    stream: tokio::net::TcpStream,
    acceptor: tokio_rustls::TlsAcceptor,
    builder: auto::Builder<TokioExecutor>,
    service: S,
) -> impl FnOnce(Watcher, Duration) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>>
where
    S: hyper::service::Service<
            axum::http::Request<Incoming>,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    move |watcher, header_read| {
        Box::pin(async move {
            let handshake = tokio::time::timeout(header_read, acceptor.accept(stream)).await;
            let Ok(Ok(stream)) = handshake else {
                return;
            };
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let _ = watcher.watch(connection).await;
        })
    }
}

/// The application for one connection, every request carrying the client's address.
fn service(
    app: Router,
    addr: SocketAddr,
) -> impl hyper::service::Service<
    axum::http::Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send,
> + Clone {
    hyper::service::service_fn(move |mut request: axum::http::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(addr));
        let mut app = app.clone();
        async move { app.call(request).await }
    })
}

/// An accept error: a connection that went away before it was accepted is nothing; out of
/// file descriptors (or another error) waits a moment rather than spinning.
async fn accept_failed(error: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::warn!(%error, "accept failed; retrying in 100 ms");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Raises this process's soft limit of open files towards `wanted` (within the hard limit),
/// so that the connection cap, not the descriptor limit, is what refuses connections.
pub fn raise_open_files(wanted: u64) {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, getrlimit, setrlimit};
        let mut limit = getrlimit(Resource::Nofile);
        let current = limit.current.unwrap_or(u64::MAX);
        if current >= wanted {
            return;
        }
        limit.current = Some(limit.maximum.map_or(wanted, |max| wanted.min(max)));
        if let Err(error) = setrlimit(Resource::Nofile, limit) {
            tracing::warn!(%error, "could not raise the limit of open files");
        }
    }
    #[cfg(not(unix))]
    let _ = wanted;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_in_all_and_per_address_and_forgets_closed_ones() {
        let limits = Limits {
            max_connections: 3,
            per_address: 2,
            header_read: Duration::from_secs(1),
            grace: Duration::from_secs(1),
        };
        let open = Arc::new(Open::default());
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let a1 = open.admit(a, &limits).unwrap();
        let _a2 = open.admit(a, &limits).unwrap();
        assert!(open.admit(a, &limits).is_none(), "per-address cap");
        let _b1 = open.admit(b, &limits).unwrap();
        assert!(open.admit(b, &limits).is_none(), "global cap");
        drop(a1);
        assert_eq!(open.count(a), (2, 1));
        let _b2 = open.admit(b, &limits).unwrap();
        assert_eq!(open.count(b), (3, 2));
    }
}
