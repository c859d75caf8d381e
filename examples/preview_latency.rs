//! Single-name latency through the service, as the server's and the UI's previews run it: the
//! development set's queries previewed one at a time on a data folder's store (its index read
//! from the persisted file), `passes` times each; prints the median, p99 and max. Made to be
//! run under a profiler too (`valgrind --tool=callgrind`) on the product's own path.
//!
//! `cargo run --release --example preview_latency -- DATA_DIR [PASSES]`

use std::path::PathBuf;

use sanctions_api::screening::ScreenRequest;
use sanctions_service::LocalService;

#[path = "../benches/support/latency.rs"]
mod latency;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or("usage: preview_latency DATA_DIR [PASSES]")?,
    );
    let passes: usize = args.next().map(|p| p.parse()).transpose()?.unwrap_or(3);
    let dev = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/eval/dev.csv");
    let text = std::fs::read_to_string(&dev).map_err(|e| format!("{}: {e}", dev.display()))?;
    let requests: Vec<ScreenRequest> = sanctions_eval::read_queries(&text)?
        .into_iter()
        .map(|q| ScreenRequest::new(q.query.as_str()))
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let svc = LocalService::open(&dir.join("sanctions.db"), "latency")?;
    rt.block_on(svc.prepare_index())?;
    let figures = latency::previews(&rt, &svc, &requests, passes)?;
    println!("{figures}");
    Ok(())
}
