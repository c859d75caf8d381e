//! Claimed work with real processes on one data folder: re-screens that race record each
//! alert once, and webhook deliveries that two workers share send each event once.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::json;
use rusqlite::Connection;

/// A data folder with OFAC SDN imported (through the library, as `lists import` does).
fn imported() -> Option<tempfile::TempDir> {
    let shared = common::shared_data()?;
    let dir = tempfile::tempdir().unwrap();
    let mut store = sanctions::store::Store::open(&dir.path().join("sanctions.db")).unwrap();
    let lists = [sanctions::model::ListCode::OfacSdn];
    let outcomes =
        sanctions::ingest::import_dir(&mut store, &shared.join("lists"), &lists).unwrap();
    assert!(outcomes.iter().all(|o| !o.failed()));
    Some(dir)
}

fn spawn(data: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("USER", "tester")
        .env_remove("SANCTIONS_MIRROR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// (favorite, entity) of every `favorite.match` alert stored after alert row `after`, one
/// row per entity named, and the newest alert row.
fn alert_pairs(db: &Connection, after: i64) -> (Vec<(String, String)>, i64) {
    let mut stmt = db
        .prepare(
            "SELECT a.favorite_id, e.value FROM alerts a, json_each(a.entity_ids) e
             WHERE a.kind = 'favorite.match' AND a.rowid > ?1 ORDER BY 1, 2",
        )
        .unwrap();
    let pairs = stmt
        .query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let last = db
        .query_row("SELECT coalesce(max(rowid), 0) FROM alerts", [], |r| {
            r.get(0)
        })
        .unwrap();
    (pairs, last)
}

/// The watchlist's matches forgotten, as after a setting change: the next re-screen finds
/// every one of them again. Returns the (favorite, entity) pairs a run must alert.
fn forget_matches(db: &Connection) -> Vec<(String, String)> {
    let mut stmt = db
        .prepare("SELECT favorite_id, entity_id FROM favorite_matches ORDER BY 1, 2")
        .unwrap();
    let pairs = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    db.execute("DELETE FROM favorite_matches", []).unwrap();
    pairs
}

#[test]
fn two_rescreens_at_once_alert_each_new_match_once() {
    let Some(data) = imported() else {
        return;
    };
    let d = data.path();
    let names = "name,type\nVladimir Putin,individual\nBanco Nacional de Cuba,\n\
                 Kim Jong Un,individual\nRosneft,\n";
    let file = d.join("names.csv");
    std::fs::write(&file, names).unwrap();
    json(&common::sanctions(
        d,
        &["watchlist", "import", file.to_str().unwrap(), "--json"],
    ));
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    db.busy_timeout(std::time::Duration::from_secs(30)).unwrap();
    let (_, mut last) = alert_pairs(&db, 0);
    for round in 0..4 {
        let expected = forget_matches(&db);
        let favorites: std::collections::BTreeSet<_> = expected.iter().map(|p| &p.0).collect();
        assert!(
            favorites.len() >= 3,
            "the watchlist matches too little: {expected:?}"
        );
        let a = spawn(d, &["watchlist", "rescreen", "--json"]);
        let b = spawn(d, &["watchlist", "rescreen", "--json"]);
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let (a, b) = (json(&a), json(&b));
        let reported =
            a["alert_ids"].as_array().unwrap().len() + b["alert_ids"].as_array().unwrap().len();
        let (pairs, newest) = alert_pairs(&db, last);
        last = newest;
        // Sorted: equal to the pairs forgotten means each one alerted exactly once, the
        // total of a single run.
        assert_eq!(pairs, expected, "round {round}: {a} {b}");
        assert_eq!(reported, favorites.len(), "round {round}: {a} {b}");
    }
}
