//! Store tests on real SQLite files in temporary folders.

use super::*;
use std::str::FromStr;

use crate::model::ParsedList;
use crate::model::{
    AlertFilter, Alias, AliasQuality, ChangeKind, Entity, EntityKind, Favorite, ListCode, Plan,
    Scope, SourceFile,
};

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

#[test]
fn migration_6_moves_existing_data_and_keys_into_the_default_account() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        for sql in &super::schema::MIGRATIONS[..5] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 5).unwrap();
        conn.execute_batch(
            r#"
            INSERT INTO screenings (id, query, kind, threshold, created_at, total_matches,
                results, list_versions, engine_version, actor, origin, favorite_id, status)
            VALUES ('scr_old', 'Ana', NULL, 80, '2026-01-01T00:00:00.000000Z', 1, '[]', '{}',
                'test', 'api:ci', 'single', NULL, 'escalated');
            INSERT INTO screening_matches VALUES ('scr_old', 'un:QDi.1', 97);
            INSERT INTO decisions (screening_id, entity_id, from_status, to_status, note, actor, at)
            VALUES ('scr_old', NULL, 'pending_review', 'escalated', 'n', 'api:ci',
                '2026-01-01T00:00:01.000000Z');
            INSERT INTO favorites (id, name, norm, kind, note, created_at)
            VALUES ('fav_old', 'Ana', 'ana|', NULL, 'customer 4711', '2026-01-01T00:00:00.000000Z');
            INSERT INTO alerts (id, kind, severity, title, message, created_at, status,
                screening_id, favorite_id, list_code, entity_ids)
            VALUES ('alt_old', 'screening.match', 'high', 't', 'm', '2026-01-01T00:00:00.000000Z',
                'open', 'scr_old', NULL, NULL, '[]');
            INSERT INTO webhooks (id, url, events, description, secret, active, disabled_reason,
                created_at, updated_at, cursor)
            VALUES ('wh_old', 'https://example.com/h', '["screening.match"]', NULL, 'whsec_x', 1,
                NULL, '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z', 0);
            INSERT INTO api_keys (id, prefix, hash, label, plan, created_at)
            VALUES ('key_a', 'sk_live_a', 'ha', 'ci', 'pro', '2026-01-01T00:00:00.000000Z'),
                   ('key_b', 'sk_live_b', 'hb', 'ci', 'business', '2026-01-02T00:00:00.000000Z');
            INSERT INTO api_usage VALUES ('key_a', '2026-01', 3), ('key_b', '2026-01', 4);
            "#,
        )
        .unwrap();
    }
    let repo = SqliteRepository::open(&path).unwrap();
    let (mine, other) = (DEFAULT_ACCOUNT, "acct_other");
    assert!(repo.screening(mine, "scr_old").unwrap().is_some());
    assert!(repo.screening(other, "scr_old").unwrap().is_none());
    assert_eq!(repo.decisions(mine, "scr_old").unwrap().len(), 1);
    assert!(repo.decisions(other, "scr_old").unwrap().is_empty());
    let favorite = repo.favorite(mine, "fav_old").unwrap().unwrap();
    assert_eq!(favorite.note.as_deref(), Some("customer 4711"));
    assert!(repo.alert(mine, "alt_old").unwrap().is_some());
    assert!(repo.webhook(mine, "wh_old").unwrap().is_some());
    assert!(repo.webhook(other, "wh_old").unwrap().is_none());

    // The keys: in the default account, on the best plan one had, the second "ci" renamed,
    // the scopes their plan allowed; the usage summed into the account.
    let accounts = repo.accounts().unwrap();
    assert_eq!(accounts.len(), 1);
    assert_eq!(
        (accounts[0].id.as_str(), accounts[0].plan),
        (mine, Plan::Business)
    );
    let keys = repo.api_keys().unwrap();
    assert!(
        keys.iter()
            .all(|k| k.account_id == mine && k.plan == Plan::Business)
    );
    assert_eq!(keys[0].label.as_deref(), Some("ci"));
    assert_eq!(keys[1].label.as_deref(), Some("ci (key_b)"));
    assert!(!keys[0].has(Scope::Webhooks) && keys[0].has(Scope::Audit));
    assert!(keys[1].has(Scope::Webhooks) && !keys[1].has(Scope::Admin));
    assert_eq!(repo.credits_used(mine, "2026-01").unwrap(), 7);

    // The watchlist key is unique per account now: another account may watch "Ana".
    let acme = repo.ensure_account("acme", None).unwrap();
    let insert = |id: &str| FavoriteInsert {
        favorite: Favorite {
            id: id.to_owned(),
            ..favorite.clone()
        },
        norm: "ana|".to_owned(),
        matches: vec![],
    };
    let nothing = screenings::Changes::default();
    repo.add_favorite(&acme.id, &insert("fav_acme"), &nothing)
        .unwrap();
    assert!(
        repo.add_favorite(mine, &insert("fav_again"), &nothing)
            .is_err()
    );
}

#[test]
fn events_go_to_their_accounts_webhooks_and_list_alerts_to_every_account() {
    use crate::model::{Alert, AlertKind, AlertStatus, OutboxEvent, Severity};
    let dir = tempfile::tempdir().unwrap();
    let repo = SqliteRepository::open(&dir.path().join("f.db")).unwrap();
    let other = repo.ensure_account("other", None).unwrap();
    let now = jiff::Timestamp::now();
    let hook = |id: &str| active_webhook(id, &["screening.match", "alert.created"]);
    repo.insert_webhook(DEFAULT_ACCOUNT, &hook("wh_mine"))
        .unwrap();
    repo.insert_webhook(&other.id, &hook("wh_theirs")).unwrap();
    let alert = |id: &str, screening: Option<&str>, kind| Alert {
        id: id.into(),
        kind,
        severity: Severity::High,
        title: "t".into(),
        message: "m".into(),
        created_at: now,
        status: AlertStatus::Open,
        screening_id: screening.map(str::to_owned),
        favorite_id: None,
        list: None,
        entity_ids: vec![],
    };
    repo.record(&screenings::Changes {
        account: Some(DEFAULT_ACCOUNT.into()),
        screenings: vec![screening_record("scr_1", serde_json::json!([]))],
        alerts: vec![alert("alt_1", Some("scr_1"), AlertKind::ScreeningMatch)],
        events: vec![OutboxEvent {
            event_id: "evt_1".into(),
            kind: "screening.match".into(),
            created_at: now,
            payload: serde_json::json!({"screening_id": "scr_1"}),
        }],
    })
    .unwrap();
    repo.fan_out(now).unwrap();
    let due = |repo: &SqliteRepository, hook: &str| {
        let all = repo.due_deliveries(now, 100).unwrap();
        all.iter().filter(|d| d.webhook.id == hook).count()
    };
    assert_eq!((due(&repo, "wh_mine"), due(&repo, "wh_theirs")), (2, 0));
    assert!(repo.alert(&other.id, "alt_1").unwrap().is_none());

    // A list update's alert belongs to no account: every account gets its copy and event.
    repo.record(&screenings::Changes {
        alerts: vec![alert("alt_list", None, AlertKind::ListUpdated)],
        ..Default::default()
    })
    .unwrap();
    assert!(repo.alert(DEFAULT_ACCOUNT, "alt_list").unwrap().is_some());
    assert!(repo.alert(&other.id, "alt_list").unwrap().is_none());
    let theirs = repo.alerts(
        &other.id,
        &AlertFilter {
            limit: 10,
            ..Default::default()
        },
    );
    assert_eq!(theirs.unwrap().len(), 1);
    repo.fan_out(now).unwrap();
    assert_eq!((due(&repo, "wh_mine"), due(&repo, "wh_theirs")), (3, 1));

    // The monitor's changes name no account: each screening, alert and event goes to the
    // account of its favorite.
    let favorite = Favorite {
        id: "fav_theirs".into(),
        name: "Ana".into(),
        kind: None,
        note: None,
        dob: None,
        country: None,
        created_at: now,
        last_screened_at: None,
        last_match_count: 0,
        last_screening_id: None,
        matched_entity_ids: vec![],
    };
    let insert = FavoriteInsert {
        favorite,
        norm: "ana|".into(),
        matches: vec![],
    };
    repo.add_favorite(&other.id, &insert, &Default::default())
        .unwrap();
    let mut screening = screening_record("scr_fav", serde_json::json!([]));
    screening.favorite_id = Some("fav_theirs".into());
    let mut gained = alert("alt_fav", Some("scr_fav"), AlertKind::FavoriteMatch);
    gained.favorite_id = Some("fav_theirs".into());
    repo.record(&screenings::Changes {
        screenings: vec![screening],
        alerts: vec![gained],
        events: vec![OutboxEvent {
            event_id: "evt_fav".into(),
            kind: "screening.match".into(),
            created_at: now,
            payload: serde_json::json!({"favorite_id": "fav_theirs", "alert_id": "alt_fav"}),
        }],
        account: None,
    })
    .unwrap();
    assert!(repo.screening(&other.id, "scr_fav").unwrap().is_some());
    assert!(
        repo.screening(DEFAULT_ACCOUNT, "scr_fav")
            .unwrap()
            .is_none()
    );
    assert!(repo.alert(&other.id, "alt_fav").unwrap().is_some());
    repo.fan_out(now).unwrap();
    assert_eq!((due(&repo, "wh_mine"), due(&repo, "wh_theirs")), (3, 3));
}

/// An active webhook `id` that wants `events`.
fn active_webhook(id: &str, events: &[&str]) -> webhooks::WebhookRecord {
    let now = jiff::Timestamp::now();
    webhooks::WebhookRecord {
        id: id.into(),
        url: "https://example.com/hook".into(),
        events: events.iter().map(|e| (*e).to_owned()).collect(),
        description: None,
        secret: "whsec_x".into(),
        active: true,
        disabled_reason: None,
        created_at: now,
        updated_at: now,
    }
}

/// Every row of every table outside [`integrity::LIST_TABLES`] (SQLite's own aside), as
/// text, table by table.
fn rows_outside_the_list_tables(store: &Store) -> Vec<(String, Vec<String>)> {
    let conn = &store.conn;
    let mut tables = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap();
    let names: Vec<String> = tables
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .filter(|t: &String| !integrity::LIST_TABLES.contains(&t.as_str()))
        .collect();
    names
        .into_iter()
        .map(|table| {
            let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
            let columns = stmt.column_count();
            let mut rows: Vec<String> = stmt
                .query_map([], |r| {
                    (0..columns)
                        .map(|i| r.get::<_, rusqlite::types::Value>(i))
                        .collect::<Result<Vec<_>, _>>()
                })
                .unwrap()
                .map(|row| format!("{:?}", row.unwrap()))
                .collect();
            rows.sort();
            (table, rows)
        })
        .collect()
}

/// The check after an import fully checks the tables an import writes
/// (`Store::integrity_after_import`): an import, an update that adds, changes and removes,
/// and a failed import leave every other table as it was.
#[test]
fn a_list_import_writes_only_the_list_tables() {
    let (_dir, mut store) = temp_store();
    let favorite = FavoriteInsert {
        favorite: Favorite {
            id: "fav_1".into(),
            name: "Ana".into(),
            kind: None,
            note: None,
            dob: None,
            country: None,
            created_at: jiff::Timestamp::now(),
            last_screened_at: None,
            last_match_count: 0,
            last_screening_id: None,
            matched_entity_ids: vec![],
        },
        norm: "ana|".into(),
        matches: vec![],
    };
    store
        .add_favorite(DEFAULT_ACCOUNT, &favorite, &Default::default())
        .unwrap();
    // A webhook that wants the update's event, so that the outbox is written too.
    let hook = active_webhook("wh_lists", &["list.updated"]);
    store.insert_webhook(DEFAULT_ACCOUNT, &hook).unwrap();
    let before = rows_outside_the_list_tables(&store);
    assert!(
        before
            .iter()
            .any(|(t, rows)| t == "favorites" && rows.len() == 1)
    );
    store
        .replace_list(
            &parsed(vec![entity("1", "A"), entity("2", "B")]),
            "import test",
        )
        .unwrap();
    let update = store
        .replace_list(
            &parsed(vec![entity("2", "B2"), entity("3", "C")]),
            "import test",
        )
        .unwrap();
    assert_eq!((update.added, update.removed, update.changed), (1, 1, 1));
    store
        .record_failed_import(ListCode::Un, "import test", &[], "a damaged file")
        .unwrap();
    assert_eq!(rows_outside_the_list_tables(&store), before);
    let written = |table: &str| -> i64 {
        store
            .conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    // Each list table named was written (the set is not wider than the import's).
    for table in integrity::LIST_TABLES {
        assert!(written(table) > 0, "{table} was not written by the import");
    }
    for full_up_to in [i64::MAX, 0] {
        let report = store.check_after_import(full_up_to).unwrap();
        assert!(report.ok(), "{:?}", report.problems);
    }
}

/// Both ways of the check after an import (the whole file in full while it is small, else
/// the quick check and the list tables in full) report a damaged page of the names.
#[test]
fn the_check_after_an_import_reports_a_damaged_page_either_way() {
    use std::io::{Seek, SeekFrom, Write};
    let (dir, mut store) = temp_store();
    let entities = (0..20).map(|i| entity(&i.to_string(), &format!("Name {i}")));
    store
        .replace_list(&parsed(entities.collect()), "import test")
        .unwrap();
    let (root, page_size): (u64, u64) = store
        .conn
        .query_row(
            "SELECT rootpage, (SELECT page_size FROM pragma_page_size()) FROM sqlite_master WHERE name = 'names'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    drop(store);
    let path = dir.path().join("s.db");
    let bytes = std::fs::read(&path).unwrap();
    let at = ((root - 1) * page_size) as usize;
    // All the names fit on the root page, a leaf (the table is WITHOUT ROWID: a leaf of an
    // index b-tree, 0x0a): halve its cell count.
    assert_eq!(bytes[at], 0x0a, "the names' root page is not a leaf");
    let cells = u16::from_be_bytes([bytes[at + 3], bytes[at + 4]]);
    assert!(cells > 10, "{cells}");
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.seek(SeekFrom::Start(at as u64 + 3)).unwrap();
    file.write_all(&(cells / 2).to_be_bytes()).unwrap();
    drop(file);
    let store = Store::open(&path).unwrap();
    for full_up_to in [i64::MAX, 0] {
        let report = store.check_after_import(full_up_to).unwrap();
        assert!(!report.ok(), "{full_up_to}: {report:?}");
    }
}
