//! Criterion benchmarks of the screening engine on the real lists (`../shared/data/lists`):
//! import of all lists from files, index build from the store, single-name screening by the
//! engine, the cold start (the service opened and its index read from the persisted file),
//! and what `sanctions batch` runs: the development set's queries previewed through the
//! service by the one batch orchestration (`sanctions_service::batch::screen_items`), with the per-name latency distribution through the same
//! path. (Side by side with the previous release, on the real binary, and peak memory:
//! `scripts/bench_release.sh`.)
//!
//! `cargo bench --bench engine`. Skips (with a message) when `../shared` is absent.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support/latency.rs"]
mod latency;

use criterion::{Criterion, criterion_group, criterion_main};
use sanctions_api::coverage::Coverage;
use sanctions_api::screening::ScreenRequest;
use sanctions_engine::{self as engine, Index, Request};
use sanctions_eval as quality;
use sanctions_model::ListCode;
use sanctions_service::batch::{self, BatchItem};
use sanctions_service::{LocalService, Service};
use sanctions_store::Store;

/// The allocator the `sanctions` binary uses (`src/main.rs`), so that the figures are the
/// program's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn shared() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.join("data/lists").is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: {} is absent", dir.display());
        None
    }
}

fn queries(shared: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(shared.join("eval/dev.csv")).unwrap_or_default();
    quality::read_queries(&text)
        .unwrap_or_default()
        .into_iter()
        .map(|q| q.query)
        .collect()
}

fn benches(c: &mut Criterion) {
    let Some(shared) = shared() else { return };
    let lists = shared.join("data/lists");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(&dir.path().join("bench.db")).expect("store");
    // Imported once before any benchmark, so that each can run alone (`cargo bench --bench
    // engine -- "build the index"`): the index benchmarks read the store, which would
    // otherwise be empty unless the import benchmark had run first.
    sanctions_service::ingest::import_dir(&mut store, &lists, &ListCode::ALL).expect("import");

    c.bench_function("import all eight lists from files", |b| {
        b.iter(|| {
            let outcomes =
                sanctions_service::ingest::import_dir(&mut store, &lists, &ListCode::ALL);
            black_box(outcomes.expect("import"))
        })
    });

    c.bench_function("build the index from the store", |b| {
        b.iter(|| Index::build(&store.entity_names().expect("names")))
    });
    let index = Index::build(&store.entity_names().expect("names"));
    let names = queries(&shared);

    let mut next = 0;
    c.bench_function(
        "screen one name (engine only, development set, round robin)",
        |b| {
            b.iter(|| {
                next = (next + 1) % names.len();
                engine::screen(&index, &Request::new(names[next].as_str())).expect("screen")
            })
        },
    );

    // What `sanctions batch` runs (`cli::batch`, without `--store`): the service over the
    // store (its index read from the persisted file, or built and written), each row a
    // `preview` (engine, grouping, coverage, mapping to the wire types), through
    // `Service::preview_many` a chunk of rows at a time.
    let db = dir.path().join("bench.db");
    drop(store);
    let svc = LocalService::open(&db, "bench").expect("service");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(svc.prepare_index()).expect("index");
    c.bench_function(
        "cold start: the index from its file (service open + read)",
        |b| {
            b.iter(|| {
                let fresh = LocalService::open(&db, "bench").expect("service");
                rt.block_on(fresh.prepare_index()).expect("index")
            })
        },
    );
    let requests: Vec<ScreenRequest> = names
        .iter()
        .map(|n| ScreenRequest::new(n.as_str()))
        .collect();
    let items = batch_items(&names);
    let shared_svc: Arc<dyn Service> = Arc::new(svc.clone());
    let template = ScreenRequest::new("");
    let checked = no_coverage();
    let plan = batch::Plan {
        template: &template,
        checked: &checked,
        mode: batch::Mode::Preview,
    };
    let run = || batch::screen_items(&shared_svc, &items, &plan, &|_| {});
    c.bench_function(
        "batch of the development set through the service (as `sanctions batch`)",
        |b| b.iter(|| rt.block_on(run())),
    );
    let started = Instant::now();
    let screened = rt.block_on(run()).expect("batch");
    let secs = started.elapsed().as_secs_f64();
    println!(
        "batch through the service: {} names in {secs:.3} s, {:.0} names/s ({} not screened)",
        screened.lines.len(),
        screened.lines.len() as f64 / secs,
        screened.not_screened()
    );
    // Each development query previewed alone, three times.
    match latency::previews(&rt, &svc, &requests, 3) {
        Ok(figures) => println!("single-name latency through the service over {figures}"),
        Err(e) => eprintln!("no single-name latency: {e}"),
    }
}

/// The development set's queries as a batch of one name per line.
fn batch_items(names: &[String]) -> Vec<BatchItem> {
    let one_per_line = batch::InputOptions {
        lines: true,
        ..Default::default()
    };
    batch::parse_input(names.join("\n").as_bytes(), &one_per_line)
        .expect("batch")
        .items
}

/// No list checked beforehand (the benchmark reports no coverage).
fn no_coverage() -> Coverage {
    Coverage {
        lists: Vec::new(),
        missing: Vec::new(),
        stale: Vec::new(),
        max_age_days: 0,
        entries_searched: 0,
        complete: true,
    }
}

criterion_group! {
    name = engine_benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(5));
    targets = benches
}
criterion_main!(engine_benches);
