//! The store under the service: append-only logs, entity history, concurrent writers.

use sanctions_api::screening::ScreenRequest;
use sanctions_api::screenings::{Decision, DecisionRequest};
use sanctions_model::ListCode;
use sanctions_service::{LocalService, Service};

use crate::{import_older_ofac, service};

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_log_refuses_update_and_delete() {
    let (dir, svc) = service().await;
    let s = svc
        .screen(ScreenRequest::new("Vladimir Putin"))
        .await
        .unwrap();
    svc.decide(
        &s.id,
        DecisionRequest {
            entity_id: None,
            decision: Decision::Escalated,
            note: "check".into(),
        },
    )
    .await
    .unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("sanctions.db")).unwrap();
    for sql in [
        "UPDATE decisions SET note = 'forged'",
        "DELETE FROM decisions",
        "DELETE FROM screenings",
        "UPDATE screenings SET results = '[]'",
        "UPDATE screenings SET actor = 'someone else'",
        "DELETE FROM alerts",
    ] {
        let err = conn.execute(sql, []).unwrap_err();
        assert!(
            err.to_string().contains("cannot") || err.to_string().contains("append-only"),
            "{sql}: {err}"
        );
    }
    let stored = svc.screening(&s.id).await.unwrap();
    assert_eq!(stored.decisions.len(), 1);
    assert_eq!(stored.decisions[0].note, "check");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_entry_changed_by_an_import_keeps_its_earlier_version() {
    let (_dir, svc) = service().await;
    let current_update = svc.list_updates(ListCode::OfacSdn, 1).await.unwrap()[0].update_id;
    let outcomes = import_older_ofac(&svc).await;
    let sanctions_service::ingest::Outcome::Imported(record) = &outcomes[0].outcome else {
        panic!("{outcomes:?}");
    };
    assert!(record.changed > 0 && record.removed > 0, "{record:?}");
    let changes = svc.repository().changes(record.id).unwrap();
    let changed = changes
        .iter()
        .find(|c| c.change == sanctions_model::ChangeKind::Changed)
        .unwrap();
    let removed = changes
        .iter()
        .find(|c| c.change == sanctions_model::ChangeKind::Removed)
        .unwrap();

    let now = svc.entity(&changed.entity_id, None).await.unwrap();
    let then = svc
        .entity(&changed.entity_id, Some(current_update))
        .await
        .unwrap();
    assert_ne!(
        now.record, then.record,
        "the version before the import is kept"
    );
    assert_eq!(then.at_update, Some(current_update));
    assert!(now.history.len() >= 2, "{:?}", now.history);

    // A removed entry is gone now, but shown as it was.
    assert_eq!(
        svc.entity(&removed.entity_id, None)
            .await
            .unwrap_err()
            .status(),
        404
    );
    let was = svc
        .entity(&removed.entity_id, Some(current_update))
        .await
        .unwrap();
    assert_eq!(was.record.entity_id, removed.entity_id);
    // Before it was listed, and at an unknown update: 404 with a clear message.
    let err = svc
        .entity(&removed.entity_id, Some(record.id))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not listed then"), "{err}");
    assert_eq!(
        svc.entity("ofac_sdn:306", Some(999_999))
            .await
            .unwrap_err()
            .status(),
        404
    );
    assert_eq!(
        svc.entity("nolist:1", None).await.unwrap_err().status(),
        404
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn two_services_on_one_file_write_at_once_without_loss() {
    let (dir, first) = service().await;
    let db = dir.path().join("sanctions.db");
    let second = tokio::task::spawn_blocking(move || LocalService::open(&db, "cron"))
        .await
        .unwrap()
        .unwrap();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let svc = if i % 2 == 0 {
            first.clone()
        } else {
            second.clone()
        };
        tasks.push(tokio::spawn(async move {
            svc.screen(ScreenRequest::new(format!("Kim Jong Un {i}")))
                .await
                .map(|r| r.id)
        }));
    }
    let mut ids = Vec::new();
    for task in tasks {
        ids.push(task.await.unwrap().unwrap());
    }
    for id in &ids {
        first.screening(id).await.unwrap();
    }
    let audit = second.audit(Default::default()).await.unwrap();
    assert_eq!(audit.screenings.len(), 20);
    let actors: std::collections::BTreeSet<_> = audit
        .screenings
        .iter()
        .map(|s| s.created_by.as_str())
        .collect();
    assert_eq!(actors.into_iter().collect::<Vec<_>>(), ["analyst1", "cron"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_busy_store_waits_then_fails_with_a_clear_message() {
    use std::time::{Duration, Instant};
    let (dir, _svc) = crate::empty_service().await;
    tokio::task::spawn_blocking(move || {
        let data = dir.path();
        // Another process's long write transaction holds the write lock.
        let holder = rusqlite::Connection::open(data.join("sanctions.db")).unwrap();
        holder
            .execute_batch(
                "BEGIN IMMEDIATE; INSERT INTO service_state (key, value) VALUES ('held', 1);",
            )
            .unwrap();
        let create = || {
            crate::common::sanctions(
                data,
                &[
                    "webhooks",
                    "create",
                    "http://127.0.0.1:9/h",
                    "--events",
                    "list.updated",
                ],
            )
        };
        let started = Instant::now();
        let out = create();
        let waited = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            stderr.contains("the database is busy: another sanctions process kept it locked"),
            "{stderr}"
        );
        assert!(waited >= Duration::from_secs(9), "gave up after {waited:?}");
        // Reading goes on meanwhile.
        let out = crate::common::sanctions(data, &["webhooks", "list", "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A lock released within the wait: the writer waits for it, then succeeds.
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            holder.execute_batch("ROLLBACK").unwrap();
        });
        let started = Instant::now();
        let out = create();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(started.elapsed() >= Duration::from_millis(900));
        release.join().unwrap();
        let out = crate::common::sanctions(data, &["webhooks", "list", "--json"]);
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            list.as_array().unwrap().len(),
            1,
            "nothing stored by the refused one"
        );
    })
    .await
    .unwrap();
}

#[test]
fn the_actor_is_the_account_even_without_user_or_logname() {
    // The real binary as a cron job or a container's root runs it: no USER, no LOGNAME.
    let run = |data: &std::path::Path, args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sanctions"))
            .arg("--data-dir")
            .arg(data)
            .args(args)
            .env_remove("USER")
            .env_remove("LOGNAME")
            .env_remove("USERNAME")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let dir = tempfile::tempdir().unwrap();
    let lists = dir.path().join("in/ofac_sdn");
    std::fs::create_dir_all(&lists).unwrap();
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ofac_sdn/good");
    for f in std::fs::read_dir(fixture).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), lists.join(f.file_name())).unwrap();
    }
    let data = dir.path().join("data");
    let input = dir.path().join("in").display().to_string();
    run(&data, &["lists", "import", &input]);
    let alerts: serde_json::Value =
        serde_json::from_slice(&run(&data, &["alerts", "--json"])).unwrap();
    let id = alerts["items"][0]["id"].as_str().unwrap().to_owned();
    run(&data, &["alerts", "ack", &id, "--note", "seen"]);
    let audit: serde_json::Value =
        serde_json::from_slice(&run(&data, &["audit", "export", "--format", "json"])).unwrap();
    let id_un = std::process::Command::new("id")
        .arg("-un")
        .output()
        .unwrap();
    let account = String::from_utf8_lossy(&id_un.stdout).trim().to_owned();
    assert!(!account.is_empty());
    assert_eq!(
        audit["alert_changes"][0]["actor"],
        account.as_str(),
        "{audit:#}"
    );
}
