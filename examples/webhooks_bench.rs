//! The webhook delivery benchmark: a backlog of N `screening.match` events (default 5,000)
//! for one healthy endpoint on loopback, drained by one delivery worker; prints the drain
//! time and the deliveries per second.
//!
//! `scripts/webhooks_bench.sh [N]` (a release build), or
//! `cargo run --example webhooks_bench [-- N]`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use color_eyre::eyre::{Result, WrapErr, eyre};
use sanctions_api::webhooks::WebhookCreate;
use sanctions_service::{LocalService, Service};

#[tokio::main]
async fn main() -> Result<()> {
    color_eyre::install()?;
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse().wrap_err("N must be a count of events")?,
        None => 5_000,
    };
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("sanctions.db");
    let received = Arc::new(AtomicUsize::new(0));
    let url = receiver(received.clone()).await?;
    let svc = LocalService::open(&db, "bench")?;
    svc.create_webhook(WebhookCreate {
        url,
        events: vec!["screening.match".to_owned()],
        description: None,
    })
    .await?;
    backlog(&db, n)?;
    let started = Instant::now();
    svc.run_webhook_worker(true, std::future::pending()).await?;
    let secs = started.elapsed().as_secs_f64();
    let got = received.load(Ordering::Relaxed);
    if got != n {
        return Err(eyre!("the endpoint received {got} of {n} events"));
    }
    println!(
        "{n} events drained to one loopback endpoint in {secs:.2} s: {:.0} deliveries/s",
        n as f64 / secs
    );
    Ok(())
}

/// A loopback endpoint answering 200 to every delivery, counting them.
async fn receiver(count: Arc<AtomicUsize>) -> Result<String> {
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let count = count.clone();
            async move {
                count.fetch_add(1, Ordering::Relaxed);
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://{addr}/hook"))
}

/// `n` events in the outbox of the default account, as stored screenings would leave them.
fn backlog(db: &std::path::Path, n: usize) -> Result<()> {
    let mut conn = rusqlite::Connection::open(db)?;
    let tx = conn.transaction()?;
    {
        let mut insert = tx.prepare(
            "INSERT INTO outbox (event_id, kind, created_at, payload, account_id)
             VALUES (?1, 'screening.match', '2026-01-01T00:00:00Z', '{\"bench\":true}',
                     'acct_default')",
        )?;
        for i in 0..n {
            insert.execute([format!("evt_bench{i:08}")])?;
        }
    }
    tx.commit()?;
    Ok(())
}
