//! The local service on a real SQLite file with the real lists imported.
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;
pub use common::shared_data as shared;

mod background;
mod monitoring;
mod screenings;
mod store;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sanctions_model::ListCode;
use sanctions_service::LocalService;
use sanctions_service::ingest::{self, ImportOptions};
use sanctions_store::Store;

/// A database with all eight real lists imported, made once and copied for each test.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("template.db");
        let lists = shared().join("lists");
        let mut store = Store::open(&path).unwrap();
        let outcomes = ingest::import_dir(&mut store, &lists, &[]).unwrap();
        assert!(outcomes.iter().all(|o| !o.failed()), "{outcomes:?}");
        drop(store); // checkpoints the WAL into the file
        (dir, path)
    });
    path
}

/// A fresh copy of the imported database in its own temp dir, and the service on it.
pub async fn service() -> (tempfile::TempDir, LocalService) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sanctions.db");
    std::fs::copy(template(), &db).unwrap();
    let service = tokio::task::spawn_blocking(move || LocalService::open(&db, "analyst1"))
        .await
        .unwrap()
        .unwrap();
    (dir, service)
}

/// An empty service (no list imported) in a temp dir.
pub async fn empty_service() -> (tempfile::TempDir, LocalService) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sanctions.db");
    let service = tokio::task::spawn_blocking(move || LocalService::open(&db, "analyst1"))
        .await
        .unwrap()
        .unwrap();
    (dir, service)
}

/// A folder laid out for `lists import` with `code -> target` symlinks.
pub fn layout(links: &[(ListCode, PathBuf)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (code, target) in links {
        std::os::unix::fs::symlink(target, dir.path().join(code.code())).unwrap();
    }
    dir
}

/// The older OFAC SDN edition (2023-12-28) of `../shared/data/editions`.
pub fn older_ofac_dir() -> PathBuf {
    shared().join("editions/ofac_sdn/consistent_2023-12-28")
}

/// Imports the older OFAC SDN edition into `svc` (over the current one, or as the first),
/// each outcome as the service gives it.
pub async fn import_older_ofac(svc: &LocalService) -> Vec<sanctions_service::ingest::ListOutcome> {
    let older = layout(&[(ListCode::OfacSdn, older_ofac_dir())]);
    let (outcomes, _) = svc
        .import_lists(
            older.path().to_path_buf(),
            vec![ListCode::OfacSdn],
            permissive(),
        )
        .await
        .unwrap();
    outcomes
}

/// Import options that accept the older OFAC edition replacing the newer (a shrink).
pub fn permissive() -> ImportOptions {
    ImportOptions {
        allow_shrink: true,
        ..ImportOptions::default()
    }
}
