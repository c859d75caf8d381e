//! Upgrades from every older schema version, with data (issue 24). A database at version N
//! is built from the migration SQL of the store (applied up to N, as that release did) and
//! filled with rows of every table that version had: lists and entries, screenings,
//! decisions, the watchlist and its matches, alerts and their log, the outbox, webhooks,
//! deliveries and attempts, API keys and their usage, accounts. The rows come from a database
//! written by today's program (its columns that existed at N), so that today's code can
//! read them. Opened with today's code, every row is still there with the same values, the
//! database passes its integrity check and the stored objects read back through the CLI.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{json, sanctions};
use rusqlite::Connection;

/// Tables that must have rows in the old database, from the version that made them.
const FILLED: [(&str, usize); 16] = [
    ("lists", 1),
    ("entities", 1),
    ("names", 1),
    ("list_updates", 1),
    ("entity_changes", 1),
    ("screenings", 3),
    ("screening_matches", 3),
    ("decisions", 3),
    ("favorites", 3),
    ("favorite_matches", 3),
    ("alerts", 3),
    ("alert_changes", 3),
    ("outbox", 3),
    ("webhook_deliveries", 4),
    ("webhook_attempts", 4),
    ("api_keys", 5),
];

/// The migrations' SQL, read from the store's source: index `i` moves version `i` to `i + 1`.
fn migrations() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        root.join("src/store/schema.rs"),
        root.join("crates/sanctions-store/src/schema.rs"),
    ];
    let path = candidates
        .iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("the store's schema.rs is in none of {candidates:?}"));
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("r#\"") {
        let body = &rest[start + 3..];
        let end = body.find("\"#").unwrap();
        out.push(body[..end].to_owned());
        rest = &body[end + 2..];
    }
    assert!(
        out.len() >= 9,
        "{} migrations read from {}",
        out.len(),
        path.display()
    );
    out
}

/// The hand-made OFAC fixture imported into `data`.
fn import_fixture(data: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("ofac_sdn");
    std::fs::create_dir_all(&target).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ofac_sdn/good");
    for f in std::fs::read_dir(fixtures).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), target.join(f.file_name())).unwrap();
    }
    json(&sanctions(
        data,
        &[
            "lists",
            "import",
            &dir.path().display().to_string(),
            "--json",
        ],
    ));
}

fn ok(data: &Path, args: &[&str]) -> std::process::Output {
    let out = sanctions(data, args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    out
}

/// A database written by today's program with a row in (nearly) every table; the id of its
/// screening.
fn donor() -> (tempfile::TempDir, String) {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    json(&sanctions(
        d,
        &[
            "webhooks",
            "create",
            "http://127.0.0.1:9/hook",
            "--events",
            "screening.match,list.updated,favorite.match,alert.created",
            "--json",
        ],
    ));
    import_fixture(d);
    let screened = json(&sanctions(
        d,
        &[
            "screen",
            "Banco Nacional de Cuba",
            "--allow-partial",
            "--json",
        ],
    ));
    let screening = screened["id"].as_str().unwrap().to_owned();
    ok(
        d,
        &[
            "screenings",
            "decide",
            &screening,
            "--decision",
            "escalated",
            "--note",
            "look",
        ],
    );
    ok(d, &["watchlist", "add", "Ocean Star", "--json"]);
    ok(d, &["watchlist", "add", "Jose Andres Muller", "--json"]);
    ok(
        d,
        &["keys", "create", "--account", "default", "--label", "k"],
    );
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    let alert: String = db
        .query_row("SELECT id FROM alerts ORDER BY rowid LIMIT 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    ok(d, &["alerts", "ack", &alert, "--note", "seen"]);
    // A delivery and an attempt (the worker would need a live endpoint).
    db.execute_batch(
        "INSERT INTO webhook_deliveries (webhook_id, event_seq, status, attempts, next_attempt_at)
         SELECT w.id, o.seq, 'pending', 1, '2026-01-01T00:00:00Z' FROM webhooks w, outbox o;
         INSERT INTO webhook_attempts (webhook_id, event_id, kind, attempt, at, status_code,
             latency_ms, error, response)
         SELECT w.id, o.event_id, o.kind, 1, '2026-01-01T00:00:00Z', 500, 3, 'HTTP 500', 'no'
         FROM webhooks w, outbox o;",
    )
    .unwrap();
    (data, screening)
}

/// The user tables of `db` and their columns.
fn tables(db: &Connection) -> BTreeMap<String, Vec<String>> {
    let names: Vec<String> = db
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table'
             AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    names
        .into_iter()
        .map(|t| {
            let cols = db
                .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            (t, cols)
        })
        .collect()
}

/// Every row of `table` as text (its `columns`, quoted), sorted.
fn rows(db: &Connection, schema: &str, table: &str, columns: &[String]) -> Vec<String> {
    let list = columns
        .iter()
        .map(|c| format!("quote(\"{c}\")"))
        .collect::<Vec<_>>()
        .join(" || '|' || ");
    let mut out: Vec<String> = db
        .prepare(&format!("SELECT {list} FROM {schema}.\"{table}\""))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    out.sort();
    out
}

/// A database at schema `version`, filled from the donor's rows; its path.
fn at_version(dir: &Path, version: usize, sql: &[String], donor: &Path) -> PathBuf {
    let path = dir.join(format!("v{version}.db"));
    let db = Connection::open(&path).unwrap();
    // Tables are filled in name order, not in the order of their references.
    db.pragma_update(None, "foreign_keys", false).unwrap();
    for step in &sql[..version] {
        db.execute_batch(step).unwrap();
    }
    db.pragma_update(None, "user_version", version as i64)
        .unwrap();
    if version >= 3 {
        for v in 1..=version {
            db.execute(
                "INSERT OR IGNORE INTO schema_migrations (version, applied_at)
                 VALUES (?1, '2026-01-01T00:00:00.000000Z')",
                [v as i64],
            )
            .unwrap();
        }
    }
    db.execute("ATTACH DATABASE ?1 AS donor", [donor.to_str().unwrap()])
        .unwrap();
    let donor_tables = tables_of(&db, "donor");
    // The outbox first: the `list.updated` trigger of versions 3-8 appends to it.
    let mut order: Vec<(String, Vec<String>)> = tables(&db).into_iter().collect();
    order.sort_by_key(|(t, _)| t != "outbox");
    for (table, columns) in order {
        if table == "schema_migrations" {
            continue;
        }
        let Some(theirs) = donor_tables.get(&table) else {
            continue;
        };
        let shared: Vec<&String> = columns.iter().filter(|c| theirs.contains(c)).collect();
        let list = shared
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(", ");
        db.execute(
            &format!(
                "INSERT OR IGNORE INTO main.\"{table}\" ({list}) SELECT {list} FROM donor.\"{table}\""
            ),
            [],
        )
        .unwrap();
    }
    if version == 5 {
        // Version 5 counted credits per key (moved to accounts by 6).
        db.execute(
            "INSERT INTO api_usage (key_id, month, used) SELECT id, '2026-01', 7 FROM api_keys",
            [],
        )
        .unwrap();
    }
    db.execute("DETACH DATABASE donor", []).unwrap();
    path
}

fn tables_of(db: &Connection, schema: &str) -> BTreeMap<String, Vec<String>> {
    let names: Vec<String> = db
        .prepare(&format!(
            "SELECT name FROM {schema}.sqlite_master WHERE type = 'table'
             AND name NOT LIKE 'sqlite_%'"
        ))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    names
        .into_iter()
        .map(|t| {
            let cols = db
                .prepare(&format!(
                    "SELECT name FROM pragma_table_info('{t}', '{schema}')"
                ))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            (t, cols)
        })
        .collect()
}

#[test]
fn every_older_schema_with_data_upgrades_without_loss() {
    let sql = migrations();
    let (donor_dir, screening) = donor();
    let donor = donor_dir.path().join("sanctions.db");
    let work = tempfile::tempdir().unwrap();
    for version in 1..sql.len() {
        let path = at_version(work.path(), version, &sql, &donor);
        let old = Connection::open(&path).unwrap();
        let before: BTreeMap<String, (Vec<String>, Vec<String>)> = tables(&old)
            .into_iter()
            .map(|(t, cols)| {
                let r = rows(&old, "main", &t, &cols);
                (t, (cols, r))
            })
            .collect();
        for (table, since) in FILLED {
            if version >= since {
                assert!(!before[table].1.is_empty(), "v{version}: no row in {table}");
            }
        }
        drop(old);
        // Today's code opens it: the pending migrations run.
        let data = work.path().join(format!("data{version}"));
        std::fs::create_dir_all(&data).unwrap();
        std::fs::rename(&path, data.join("sanctions.db")).unwrap();
        sanctions_store::Store::open(&data.join("sanctions.db")).unwrap();
        let new = Connection::open(data.join("sanctions.db")).unwrap();
        let version_now: i64 = new
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version_now, sql.len() as i64);
        for (table, (cols, was)) in &before {
            if table == "api_usage" {
                continue; // checked below
            }
            let is = rows(&new, "main", table, cols);
            let lost = missing(was, &is);
            assert!(
                lost.is_empty(),
                "v{version}: rows of {table} lost or changed: {lost:?}"
            );
        }
        if version == 5 {
            let used: i64 = new
                .query_row("SELECT sum(used) FROM account_usage", [], |r| r.get(0))
                .unwrap();
            assert_eq!(used, 7, "v5: the credits used moved to the account");
        }
        read_back(&data, version, &screening);
    }
}

/// The rows of `was` not in `is` (both sorted; a migration may add rows, as the log of
/// migrations does, but never lose one).
fn missing(was: &[String], is: &[String]) -> Vec<String> {
    let mut left: Vec<String> = is.to_vec();
    let mut lost = Vec::new();
    for row in was {
        match left.binary_search(row) {
            Ok(i) => {
                left.remove(i);
            }
            Err(_) => lost.push(row.clone()),
        }
    }
    lost
}

/// The integrity check passes and the stored objects read back through the program.
fn read_back(data: &Path, version: usize, screening: &str) {
    let check = sanctions(data, &["store", "check"]);
    assert!(check.status.success(), "v{version}: {check:?}");
    json(&sanctions(data, &["lists", "--json"]));
    if version < 3 {
        return;
    }
    let shown = json(&sanctions(
        data,
        &["screenings", "show", screening, "--json"],
    ));
    assert!(!shown.to_string().is_empty());
    let listed = json(&sanctions(data, &["watchlist", "list", "--json"]));
    let watchlist = listed.to_string();
    assert!(watchlist.contains("Ocean Star"), "v{version}: {watchlist}");
    // Favorites from before migration 12 come back with no date of birth or country.
    for favorite in listed.as_array().unwrap() {
        assert!(
            favorite["date_of_birth"].is_null(),
            "v{version}: {favorite}"
        );
        assert!(favorite["country"].is_null(), "v{version}: {favorite}");
    }
    json(&sanctions(data, &["alerts", "--json"]));
    if version >= 4 {
        let hooks = json(&sanctions(data, &["webhooks", "list", "--json"])).to_string();
        assert!(hooks.contains("127.0.0.1:9/hook"), "v{version}: {hooks}");
    }
    if version >= 5 {
        let keys = json(&sanctions(data, &["keys", "list", "--json"]));
        assert!(keys.to_string().contains("\"k\""), "v{version}: {keys}");
    }
}
