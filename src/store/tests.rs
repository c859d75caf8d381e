//! Store tests on real SQLite files in temporary folders.

use super::*;
use std::str::FromStr;

use crate::model::{Alias, AliasQuality, ChangeKind, Entity, EntityKind, ListCode, SourceFile};
use crate::sources::ParsedList;

fn entity(id: &str, name: &str) -> Entity {
    let mut e = Entity::new(ListCode::Un, id, EntityKind::Individual, name);
    e.push_alias(Alias {
        quality: AliasQuality::Weak,
        ..Alias::new(format!("{name} alias"))
    });
    e.push_nationality("IQ");
    e
}

fn parsed(entities: Vec<Entity>) -> ParsedList {
    let mut p = ParsedList::new(ListCode::Un);
    p.entities = entities;
    p.files = vec![SourceFile {
        name: "consolidated.xml".into(),
        sha256: "00".repeat(32),
        bytes: 10,
    }];
    p.published = Some("2026-02-27".into());
    p
}

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).unwrap();
    (dir, store)
}

#[test]
fn import_records_added_changed_removed_and_no_op_updates() {
    let (_dir, mut store) = temp_store();
    let first = store
        .replace_list(
            &parsed(vec![entity("1", "A"), entity("2", "B")]),
            "import test",
        )
        .unwrap();
    assert_eq!(
        (first.added, first.removed, first.changed, first.total),
        (2, 0, 0, 2)
    );

    let again = store
        .replace_list(
            &parsed(vec![entity("1", "A"), entity("2", "B")]),
            "import test",
        )
        .unwrap();
    assert_eq!(
        (again.added, again.removed, again.changed, again.total),
        (0, 0, 0, 2)
    );

    let third = store
        .replace_list(
            &parsed(vec![entity("2", "B2"), entity("3", "C")]),
            "import test",
        )
        .unwrap();
    assert_eq!(
        (third.added, third.removed, third.changed, third.total),
        (1, 1, 1, 2)
    );
    let mut changes: Vec<_> = store
        .changes(third.id)
        .unwrap()
        .into_iter()
        .map(|c| (c.entity_id, c.change))
        .collect();
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        changes,
        [
            ("un:1".to_owned(), ChangeKind::Removed),
            ("un:2".to_owned(), ChangeKind::Changed),
            ("un:3".to_owned(), ChangeKind::Added),
        ]
    );

    let updates = store.updates(ListCode::Un, 10).unwrap();
    assert_eq!(
        updates.iter().map(|u| u.id).collect::<Vec<_>>(),
        [third.id, again.id, first.id]
    );
    assert_eq!(updates[0].files[0].name, "consolidated.xml");
    assert_eq!(updates[0].published.as_deref(), Some("2026-02-27"));

    assert_eq!(store.entity("un:1").unwrap(), None);
    assert_eq!(store.entity("un:2").unwrap().unwrap().primary_name, "B2");
    let names: i64 = store
        .conn
        .query_row("SELECT count(*) FROM names", [], |r| r.get(0))
        .unwrap();
    assert_eq!(names, 4, "two entities, each a primary name and one alias");
}

#[test]
fn entities_round_trip_byte_exact() {
    let (_dir, mut store) = temp_store();
    let mut e = entity("7", "Владимир Путин");
    e.push_alias(Alias::new("ПУТИН Владимир Владимирович"));
    e.push_alias(Alias::new("José Müller-Lüdenscheidt"));
    store
        .replace_list(&parsed(vec![e.clone()]), "import test")
        .unwrap();
    assert_eq!(store.entity("un:7").unwrap(), Some(e.clone()));
    assert_eq!(store.entities().unwrap(), vec![e.clone()]);
    assert_eq!(store.entities_of(ListCode::Un).unwrap(), vec![e]);
    assert!(store.entities_of(ListCode::Eu).unwrap().is_empty());
}

#[test]
fn lists_report_all_eight_with_counts() {
    let (_dir, mut store) = temp_store();
    let lists = store.lists().unwrap();
    assert_eq!(lists.len(), 8);
    assert!(lists.iter().all(|l| l.count == 0 && l.updated_at.is_none()));
    store
        .replace_list(&parsed(vec![entity("1", "A")]), "import test")
        .unwrap();
    let un = store
        .lists()
        .unwrap()
        .into_iter()
        .find(|l| l.list == ListCode::Un)
        .unwrap();
    assert_eq!(un.count, 1);
    let at = un.updated_at.unwrap();
    assert!(
        at.ends_with('Z') && jiff::Timestamp::from_str(&at).is_ok(),
        "{at}"
    );
    assert_eq!(store.entity_count().unwrap(), 1);
}

#[test]
fn a_failure_in_the_middle_of_an_import_keeps_the_previous_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let mut store = Store::open(&path).unwrap();
    store
        .replace_list(
            &parsed(vec![entity("1", "A"), entity("2", "B")]),
            "import test",
        )
        .unwrap();

    // Inject a failure after some rows of the new version have been written: a trigger
    // that aborts when the third new entity is inserted.
    let other = rusqlite::Connection::open(&path).unwrap();
    other
        .execute_batch(
            "CREATE TRIGGER boom BEFORE INSERT ON entities WHEN NEW.entity_id = 'un:5'
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
        )
        .unwrap();
    let next = parsed(vec![
        entity("2", "B changed"),
        entity("3", "C"),
        entity("4", "D"),
        entity("5", "E"),
    ]);
    let err = store.replace_list(&next, "import test").unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");

    let reopened = Store::open(&path).unwrap();
    let names: Vec<_> = reopened
        .entities()
        .unwrap()
        .into_iter()
        .map(|e| e.primary_name)
        .collect();
    assert_eq!(names, ["A", "B"]);
    assert_eq!(reopened.updates(ListCode::Un, 10).unwrap().len(), 1);
    assert_eq!(reopened.lists().unwrap()[3].count, 2);
}

#[test]
fn refuses_a_database_from_a_newer_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let err = Store::open(&path).unwrap_err();
    assert!(
        matches!(err, StoreError::TooNew { found: 999, .. }),
        "{err}"
    );
    let store = Store::open_in_memory().unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        schema::MIGRATIONS.len() as i64
    );
}

#[test]
fn changed_entities_are_each_update_as_it_stood_like_entity_at() {
    let (_dir, mut store) = temp_store();
    let first = store
        .replace_list(&parsed(vec![entity("1", "A"), entity("2", "B")]), "t")
        .unwrap();
    let second = store
        .replace_list(&parsed(vec![entity("2", "B2"), entity("3", "C")]), "t")
        .unwrap();
    // A later change: the first two updates must still be briefed with their own versions.
    let third = store
        .replace_list(&parsed(vec![entity("2", "B3"), entity("3", "C3")]), "t")
        .unwrap();
    let names = |update: i64| -> Vec<(ChangeKind, String, String)> {
        store
            .changed_entities(update)
            .unwrap()
            .into_iter()
            .map(|(kind, e)| (kind, e.entity_id(), e.primary_name))
            .collect()
    };
    let kinds = |update: i64| -> Vec<(ChangeKind, String, String)> {
        // The same through entity_at, one entry at a time (a removal: just before it).
        let mut out = Vec::new();
        for c in store.changes(update).unwrap() {
            let at = match c.change {
                ChangeKind::Removed => update - 1,
                _ => update,
            };
            let e = store.entity_at(&c.entity_id, at).unwrap().unwrap();
            out.push((c.change, e.entity_id(), e.primary_name));
        }
        out
    };
    let row = |k: ChangeKind, id: &str, name: &str| (k, id.to_owned(), name.to_owned());
    assert_eq!(
        names(first.id),
        [
            row(ChangeKind::Added, "un:1", "A"),
            row(ChangeKind::Added, "un:2", "B")
        ]
    );
    assert_eq!(
        names(second.id),
        [
            row(ChangeKind::Removed, "un:1", "A"),
            row(ChangeKind::Changed, "un:2", "B2"),
            row(ChangeKind::Added, "un:3", "C"),
        ]
    );
    assert_eq!(
        names(third.id),
        [
            row(ChangeKind::Changed, "un:2", "B3"),
            row(ChangeKind::Changed, "un:3", "C3")
        ]
    );
    for update in [first.id, second.id, third.id] {
        assert_eq!(names(update), kinds(update), "update {update}");
    }
}

#[test]
fn an_update_is_read_by_its_id_whatever_its_list() {
    let (_dir, mut store) = temp_store();
    let un = store
        .replace_list(&parsed(vec![entity("1", "A")]), "import test")
        .unwrap();
    let mut eu = parsed(vec![entity("9", "Z")]);
    eu.list = ListCode::Eu;
    for e in &mut eu.entities {
        e.list = ListCode::Eu;
    }
    let eu = store.replace_list(&eu, "import test").unwrap();
    assert_ne!(un.id, eu.id);
    for record in [&un, &eu] {
        let read = store.update(record.id).unwrap().unwrap();
        assert_eq!(
            &read,
            store.updates(record.list, 1).unwrap().first().unwrap()
        );
        assert_eq!(read.list, record.list);
        assert_eq!((read.added, read.total), (1, 1));
    }
    assert_eq!(store.update(eu.id + 1).unwrap(), None);
}

fn screening_record(id: &str, results: serde_json::Value) -> crate::model::ScreeningRecord {
    use crate::model::{ReviewStatus, ScreeningOrigin, ScreeningRecord};
    ScreeningRecord {
        id: id.to_owned(),
        query: "Ana".into(),
        kind: None,
        threshold: 80,
        created_at: jiff::Timestamp::now(),
        total_matches: 1,
        status: ReviewStatus::PendingReview,
        matched: Vec::new(),
        results,
        list_versions: Default::default(),
        engine_version: "test".into(),
        actor: "t".into(),
        origin: ScreeningOrigin::Single,
        favorite_id: None,
    }
}

#[test]
fn screening_results_are_stored_compressed_and_older_text_rows_still_read() {
    let (_dir, mut store) = temp_store();
    let results = serde_json::json!([{"entity_id": "un:QDi.1", "score": 97, "name": "X"}]);
    store
        .record(&screenings::Changes {
            screenings: vec![screening_record("scr_new", results.clone())],
            ..Default::default()
        })
        .unwrap();
    let kind: String = store
        .conn
        .query_row(
            "SELECT typeof(results) FROM screenings WHERE id = 'scr_new'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kind, "blob");
    assert_eq!(
        store
            .screening(DEFAULT_ACCOUNT, "scr_new")
            .unwrap()
            .unwrap()
            .results,
        results
    );

    // A row as stored before results were packed: JSON text.
    store
        .conn
        .execute(
            "INSERT INTO screenings (id, query, kind, threshold, created_at, total_matches,
                 results, list_versions, engine_version, actor, origin, favorite_id, status)
             VALUES ('scr_old', 'Ana', NULL, 80, '2026-01-01T00:00:00.000000Z', 1, ?1, '{}',
                 'test', 't', 'single', NULL, 'pending_review')",
            [results.to_string()],
        )
        .unwrap();
    assert_eq!(
        store
            .screening(DEFAULT_ACCOUNT, "scr_old")
            .unwrap()
            .unwrap()
            .results,
        results
    );
}

#[test]
fn events_are_written_only_for_the_kinds_a_webhook_wants() {
    use crate::model::{Alert, AlertKind, AlertStatus, OutboxEvent, Severity};
    let (_dir, mut store) = temp_store();
    let matched = |n: u32| {
        let now = jiff::Timestamp::now();
        let id = format!("scr_{n}");
        screenings::Changes {
            screenings: vec![screening_record(&id, serde_json::json!([]))],
            alerts: vec![Alert {
                id: format!("alt_{n}"),
                kind: AlertKind::ScreeningMatch,
                severity: Severity::High,
                title: "t".into(),
                message: "m".into(),
                created_at: now,
                status: AlertStatus::Open,
                screening_id: Some(id.clone()),
                favorite_id: None,
                list: None,
                entity_ids: vec!["un:QDi.1".into()],
            }],
            events: vec![OutboxEvent {
                event_id: format!("evt_{n}"),
                kind: "screening.match".into(),
                created_at: now,
                payload: serde_json::json!({"screening_id": id}),
            }],
            account: None,
        }
    };
    let kinds = |store: &Store| -> Vec<String> {
        let mut stmt = store
            .conn
            .prepare("SELECT kind FROM outbox ORDER BY seq")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let before = kinds(&store);

    // No webhook: the screening and its alert are stored, no event (none could be delivered).
    store.record(&matched(1)).unwrap();
    assert_eq!(kinds(&store), before);
    assert_eq!(
        store
            .screening(DEFAULT_ACCOUNT, "scr_1")
            .unwrap()
            .unwrap()
            .query,
        "Ana"
    );
    let alerts: i64 = store
        .conn
        .query_row("SELECT count(*) FROM alerts WHERE id = 'alt_1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(alerts, 1);

    // A disabled webhook that wants screening.match: that kind is written (it catches up
    // when enabled), alert.created still not.
    let now = jiff::Timestamp::now();
    store
        .insert_webhook(
            DEFAULT_ACCOUNT,
            &webhooks::WebhookRecord {
                id: "wh_1".into(),
                url: "https://example.com/hook".into(),
                events: vec!["screening.match".into()],
                description: None,
                secret: "whsec_x".into(),
                active: false,
                disabled_reason: Some("test".into()),
                created_at: now,
                updated_at: now,
            },
        )
        .unwrap();
    store.record_all(&[matched(2)]).unwrap();
    let mut want = before.clone();
    want.push("screening.match".into());
    assert_eq!(kinds(&store), want);
}
