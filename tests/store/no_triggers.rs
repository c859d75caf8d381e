//! Business rules are the store's code, not its triggers (issue 24): with every trigger that
//! guards the audit dropped, the review and alert logs stay append-only and a stored
//! screening unchanged, and a list update writes its `list.updated` event in its own
//! transaction (there is no trigger for it any more).
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;

use common::{json, sanctions};
use rusqlite::Connection;

/// The triggers that guard the audit (the entity history's stay: they keep earlier versions
/// of listed entries, not an audit rule).
const GUARDS: [&str; 7] = [
    "screenings_no_delete",
    "screenings_frozen",
    "decisions_no_update",
    "decisions_no_delete",
    "alerts_no_delete",
    "alert_changes_no_update",
    "alert_changes_no_delete",
];

fn run(data: &Path, args: &[&str]) -> serde_json::Value {
    json(&sanctions(data, args))
}

/// A command that succeeds (whatever it prints).
fn ok(data: &Path, args: &[&str]) {
    let out = sanctions(data, args);
    assert!(out.status.success(), "{args:?}: {out:?}");
}

/// The hand-made OFAC fixture imported.
fn import_fixture(data: &Path) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("ofac_sdn");
    std::fs::create_dir_all(&target).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ofac_sdn/good");
    for f in std::fs::read_dir(fixtures).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), target.join(f.file_name())).unwrap();
    }
    run(
        data,
        &[
            "lists",
            "import",
            &dir.path().display().to_string(),
            "--json",
        ],
    )
}

/// Every row `sql` reads, each as the debug text of its columns.
fn rows(db: &Connection, sql: &str) -> Vec<String> {
    let mut stmt = db.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        Ok((0..n)
            .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
            .collect::<Vec<_>>()
            .join(" | "))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// What the audit holds: decisions, alert changes, and the parts of screenings and alerts
/// that never change.
fn audit(db: &Connection) -> Vec<Vec<String>> {
    vec![
        rows(db, "SELECT * FROM decisions ORDER BY id"),
        rows(db, "SELECT * FROM alert_changes ORDER BY id"),
        rows(
            db,
            "SELECT id, query, kind, threshold, created_at, total_matches, results,
                    list_versions, engine_version, actor, origin, favorite_id, account_id
             FROM screenings ORDER BY id",
        ),
        rows(
            db,
            "SELECT id, kind, severity, title, message, created_at, screening_id, favorite_id,
                    list_code, entity_ids, account_id FROM alerts ORDER BY id",
        ),
    ]
}

fn list_updated_events(db: &Connection) -> Vec<serde_json::Value> {
    db.prepare("SELECT payload FROM outbox WHERE kind = 'list.updated' ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|p| serde_json::from_str(&p.unwrap()).unwrap())
        .collect()
}

#[test]
fn the_audit_and_the_outbox_hold_without_triggers() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    run(
        d,
        &[
            "webhooks",
            "create",
            "http://127.0.0.1:9/hook",
            "--events",
            "list.updated,screening.match",
            "--json",
        ],
    );
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    for guard in GUARDS {
        db.execute(&format!("DROP TRIGGER {guard}"), []).unwrap();
    }
    let left: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY 1")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        left,
        ["entities_keep_version", "list_updates_claim_versions"],
        "no trigger writes an event"
    );

    // An update that changes the list: one event, written with it.
    import_fixture(d);
    let events = list_updated_events(&db);
    let (update, added): (i64, i64) = db
        .query_row(
            "SELECT id, added FROM list_updates WHERE list_code = 'ofac_sdn'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(added > 0);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["list"], "ofac_sdn");
    assert_eq!(events[0]["update_id"], update);
    assert_eq!(events[0]["added"], added);
    // The same files again change nothing: no event.
    import_fixture(d);
    assert_eq!(list_updated_events(&db).len(), 1);

    // Review and alerts, then more of them: what was written stays as it was.
    let screened = run(
        d,
        &[
            "screen",
            "Banco Nacional de Cuba",
            "--allow-partial",
            "--json",
        ],
    );
    let screening = screened["id"].as_str().unwrap().to_owned();
    run(
        d,
        &[
            "screenings",
            "decide",
            &screening,
            "--decision",
            "escalated",
            "--note",
            "first look",
            "--json",
        ],
    );
    let alert: String = db
        .query_row("SELECT id FROM alerts ORDER BY rowid LIMIT 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    ok(d, &["alerts", "ack", &alert, "--note", "seen"]);
    let before = audit(&db);
    run(
        d,
        &[
            "screenings",
            "decide",
            &screening,
            "--decision",
            "false_positive",
            "--note",
            "second look",
            "--json",
        ],
    );
    ok(d, &["alerts", "resolve", &alert, "--note", "done"]);
    run(d, &["screen", "Ocean Star", "--allow-partial", "--json"]);
    let after = audit(&db);
    for (table, (was, is)) in before.iter().zip(&after).enumerate() {
        assert_eq!(&is[..was.len()], &was[..], "table {table} changed");
    }
    assert_eq!(after[0].len(), before[0].len() + 1, "one decision appended");
    assert_eq!(
        after[1].len(),
        before[1].len() + 1,
        "one alert change appended"
    );
    let status: String = db
        .query_row(
            "SELECT status FROM screenings WHERE id = ?1",
            [&screening],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(status, "false_positive", "only the review status moves");
}
