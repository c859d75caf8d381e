//! Criterion benchmarks of the screening engine on the real lists (`../shared/data/lists`):
//! index build from the store, single-name screening (and its per-query latency
//! distribution over the whole development set), a batch of 500 names on all cores, import
//! of all lists from files. (Peak memory is measured on the real binary: see the README.)
//!
//! `cargo bench --bench engine`. Skips (with a message) when `../shared` is absent.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use sanctions_api::screening::ScreenRequest;
use sanctions_engine::{self as engine, Index, Request};
use sanctions_eval as quality;
use sanctions_model::ListCode;
use sanctions_service::batch::{self, BatchItem};
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
    c.bench_function("screen one name (development set, round robin)", |b| {
        b.iter(|| {
            next = (next + 1) % names.len();
            engine::screen(&index, &Request::new(names[next].as_str())).expect("screen")
        })
    });

    latency_distribution(&index, &names);

    let one_per_line = batch::InputOptions {
        lines: true,
        ..Default::default()
    };
    let items: Vec<BatchItem> =
        batch::parse_input(names[..500].join("\n").as_bytes(), &one_per_line)
            .expect("batch")
            .items;
    c.bench_function("batch of 500 names (all cores)", |b| {
        b.iter(|| batch::screen_all(&index, &items, &ScreenRequest::new(""), || {}))
    });
}

/// Median and 99th percentile of single-name screening over every development query
/// (each screened three times), on one thread.
fn latency_distribution(index: &Index, names: &[String]) {
    let mut times: Vec<Duration> = Vec::with_capacity(names.len() * 3);
    for _ in 0..3 {
        for name in names {
            let started = Instant::now();
            black_box(engine::screen(index, &Request::new(name.as_str())).expect("screen"));
            times.push(started.elapsed());
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "single-name latency over {} screenings: median {:.0?}, p99 {:.0?}, max {:.0?}",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

criterion_group! {
    name = engine_benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(5));
    targets = benches
}
criterion_main!(engine_benches);
