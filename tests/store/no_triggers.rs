//! Business rules are the store's code, not its triggers (issue 24): with every trigger that
//! guards the audit dropped, the review and alert logs stay append-only and a stored
//! screening unchanged, a list update writes its `list.updated` event in its own
//! transaction, and the entity history (earlier versions of changed and removed entries) is
//! written by the import's code (there is no trigger for either any more).
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;

use common::{json, sanctions};
use rusqlite::Connection;

/// The triggers that guard the audit: the only ones left, a second guard.
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
    import_edited(data, |sdn| sdn)
}

/// The hand-made OFAC fixture imported with its `sdn.csv` edited by `edit`.
fn import_edited(data: &Path, edit: impl Fn(Vec<u8>) -> Vec<u8>) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("ofac_sdn");
    std::fs::create_dir_all(&target).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ofac_sdn/good");
    for f in std::fs::read_dir(fixtures).unwrap() {
        let f = f.unwrap();
        let mut bytes = std::fs::read(f.path()).unwrap();
        if f.file_name() == "sdn.csv" {
            bytes = edit(bytes);
        }
        std::fs::write(target.join(f.file_name()), bytes).unwrap();
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
    assert!(left.is_empty(), "no trigger left: {left:?}");

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

/// `sdn.csv` with OCEAN STAR's flag changed and the aircraft EP-ABC removed.
fn changed_and_removed(sdn: Vec<u8>) -> Vec<u8> {
    let text: Vec<&[u8]> = sdn
        .split(|b| *b == b'\n')
        .filter(|line| !line.starts_with(b"8003,"))
        .collect();
    let joined = text.join(&b'\n');
    let at = joined
        .windows(8)
        .position(|w| w == b"\"Panama\"")
        .expect("OCEAN STAR's flag in the fixture");
    [&joined[..at], b"\"Liberia\"", &joined[at + 8..]].concat()
}

/// `sanctions show ID [--at UPDATE] --json`: the record, or `None` when not found.
fn show(data: &Path, entity_id: &str, at: Option<i64>) -> Option<serde_json::Value> {
    let at = at.map(|a| a.to_string());
    let mut args = vec!["show", entity_id, "--json"];
    if let Some(at) = &at {
        args.extend(["--at", at]);
    }
    let out = sanctions(data, &args);
    out.status.success().then(|| json(&out))
}

#[test]
fn the_entity_history_is_written_by_the_import_not_by_triggers() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    import_fixture(d);
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    let triggers: Vec<String> = db
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'
             AND tbl_name IN ('entities', 'list_updates', 'entity_versions')",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(triggers.is_empty(), "{triggers:?}");
    let first: i64 = db
        .query_row("SELECT max(id) FROM list_updates", [], |r| r.get(0))
        .unwrap();
    let vessel = "ofac_sdn:8002";
    let aircraft = "ofac_sdn:8003";
    let before = show(d, vessel, None).expect("the vessel is listed");

    import_edited(d, changed_and_removed);
    let second: i64 = db
        .query_row("SELECT max(id) FROM list_updates", [], |r| r.get(0))
        .unwrap();
    let (changed, removed): (i64, i64) = db
        .query_row(
            "SELECT changed, removed FROM list_updates WHERE id = ?1",
            [second],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((changed, removed), (1, 1));
    // The earlier versions, kept by the import and claimed by its update.
    let kept: Vec<(String, i64)> = db
        .prepare("SELECT entity_id, replaced_by FROM entity_versions ORDER BY entity_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        kept,
        [(vessel.to_owned(), second), (aircraft.to_owned(), second)]
    );
    // Read back through the program: as it stood after the first update, and now.
    let then = show(d, vessel, Some(first)).expect("the vessel at the first update");
    let now = show(d, vessel, None).expect("the vessel now");
    assert_eq!(before["countries"], serde_json::json!(["PA"]), "{before}");
    assert_eq!(then["countries"], before["countries"], "{then}");
    assert_eq!(then["identifiers"], before["identifiers"], "{then}");
    assert_eq!(now["countries"], serde_json::json!(["LR"]), "{now}");
    let gone = show(d, aircraft, Some(first)).expect("the aircraft at the first update");
    assert!(gone.to_string().contains("EP-ABC"), "{gone}");
    assert!(show(d, aircraft, None).is_none(), "removed now");
    assert!(
        show(d, aircraft, Some(second)).is_none(),
        "not listed after it"
    );
}
