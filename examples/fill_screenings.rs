//! Stores COUNT synthetic screenings (no match, a 40-character query) in ACCOUNT of the data
//! folder, 10,000 per transaction, one second apart from 2025-01-01: the fill of
//! `scripts/export_bench.sh`.
//!
//!   cargo run --release --example fill_screenings -- DATA_DIR ACCOUNT COUNT

use sanctions_model::{ReviewStatus, ScreeningOrigin, ScreeningRecord};
use sanctions_store::{Changes, Repository, SqliteRepository, StoreError};

const BATCH: u64 = 10_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: fill_screenings DATA_DIR ACCOUNT COUNT";
    let dir = args.next().ok_or(usage)?;
    let account = args.next().ok_or(usage)?;
    let count: u64 = args.next().ok_or(usage)?.parse()?;
    let repo = SqliteRepository::open(&sanctions_service::config::database_path(dir.as_ref()))?;
    let mut done = 0;
    while done < count {
        let n = BATCH.min(count - done);
        store(&repo, &account, done, n)?;
        done += n;
        eprint!("\r{done} / {count}");
    }
    eprintln!();
    Ok(())
}

fn store(repo: &SqliteRepository, account: &str, first: u64, n: u64) -> Result<(), StoreError> {
    let start_ms: u64 = 1_735_689_600_000;
    let screenings = (first..first + n)
        .map(|i| {
            let ms = start_ms + i * 1000;
            ScreeningRecord {
                id: format!("scr_{}", ulid::Ulid::from_parts(ms, u128::from(i))),
                query: format!("bench name {i:010} with a few words more"),
                kind: None,
                threshold: 80,
                created_at: jiff::Timestamp::from_millisecond(ms as i64).unwrap_or_default(),
                total_matches: 0,
                matched: Vec::new(),
                results: serde_json::json!([]),
                list_versions: Default::default(),
                engine_version: "bench".into(),
                actor: "bench".into(),
                origin: ScreeningOrigin::Single,
                favorite_id: None,
                status: ReviewStatus::NoMatch,
            }
        })
        .collect();
    repo.record(&Changes {
        account: Some(account.into()),
        screenings,
        ..Changes::default()
    })
}
