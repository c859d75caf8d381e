//! Claimed work with real processes on one data folder: re-screens that race record each
//! alert once, and webhook deliveries that two workers share send each event once.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::json;
use common::receiver::start_receiver;
use rusqlite::Connection;

/// A data folder with OFAC SDN imported (through the library, as `lists import` does).
fn imported() -> tempfile::TempDir {
    let shared = common::shared_data();
    let dir = tempfile::tempdir().unwrap();
    let mut store = sanctions_store::Store::open(&dir.path().join("sanctions.db")).unwrap();
    let lists = [sanctions_model::ListCode::OfacSdn];
    let outcomes =
        sanctions_service::ingest::import_dir(&mut store, &shared.join("lists"), &lists).unwrap();
    assert!(outcomes.iter().all(|o| !o.failed()));
    dir
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
    let data = imported();
    let d = data.path();
    // Enough names that a re-screen takes a while: the two runs overlap.
    let mut names = "name,type\nVladimir Putin,individual\nBanco Nacional de Cuba,\n".to_owned();
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    let listed: Vec<String> = db
        .prepare("SELECT primary_name FROM entities WHERE kind = 'individual' AND length(primary_name) > 12 ORDER BY entity_id LIMIT 400")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for name in listed {
        names.push_str(&format!("\"{}\",\n", name.replace('"', "\"\"")));
    }
    let file = d.join("names.csv");
    std::fs::write(&file, names).unwrap();
    json(&common::sanctions(
        d,
        &["watchlist", "import", file.to_str().unwrap(), "--json"],
    ));
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
        let doubled = pairs.windows(2).filter(|w| w[0] == w[1]).count();
        assert!(
            doubled == 0,
            "round {round}: {doubled} (favorite, entity) alerted twice"
        );
        assert!(
            pairs == expected,
            "round {round}: {} alerted, {} expected",
            pairs.len(),
            expected.len()
        );
        assert_eq!(reported, favorites.len(), "round {round}: alerts reported");
    }
}

/// An endpoint that accepts connections and never answers.
async fn start_tarpit() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{addr}/hook")
}

fn config(dir: &Path, timeout_secs: u64) -> String {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[webhooks]\nretry_schedule = [\"1h\"]\npoll_interval_ms = 50\ntimeout_secs = {timeout_secs}\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

fn create_webhook(data: &Path, config: &str, url: &str) {
    json(&common::sanctions(
        data,
        &[
            "--config",
            config,
            "webhooks",
            "create",
            url,
            "--events",
            "screening.match",
            "--json",
        ],
    ));
}

/// `n` `screening.match` events in the outbox of the default account; their ids.
fn add_events(data: &Path, n: usize) -> Vec<String> {
    let db = Connection::open(data.join("sanctions.db")).unwrap();
    (0..n)
        .map(|i| {
            let id = format!("evt_claims{i:06}");
            db.execute(
                "INSERT INTO outbox (event_id, kind, created_at, payload, account_id)
                 VALUES (?1, 'screening.match', '2026-01-01T00:00:00Z', '{\"n\":1}', 'acct_default')",
                [&id],
            )
            .unwrap();
            id
        })
        .collect()
}

/// Waits (polling, up to `limit`) until `done` holds.
async fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test(flavor = "multi_thread")]
async fn two_delivery_workers_send_each_event_once_per_endpoint() {
    let (url_a, a) = start_receiver().await;
    let (url_b, b) = start_receiver().await;
    let data = tempfile::tempdir().unwrap();
    let d = data.path().to_path_buf();
    let cfg = config(&d, 5);
    let events = tokio::task::spawn_blocking(move || {
        create_webhook(&d, &cfg, &url_a);
        create_webhook(&d, &cfg, &url_b);
        let events = add_events(&d, 300);
        let workers: Vec<_> = (0..2)
            .map(|_| spawn(&d, &["--config", &cfg, "webhooks", "deliver", "--once"]))
            .collect();
        for w in workers {
            let out = w.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        events
    })
    .await
    .unwrap();
    for r in [a, b] {
        let counts = r.counts();
        let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
        let some: Vec<_> = twice.iter().take(5).collect();
        assert!(
            twice.is_empty(),
            "{} sent more than once: {some:?}",
            twice.len()
        );
        let mut got: Vec<_> = counts.into_keys().collect();
        got.sort();
        assert_eq!(got, events);
    }
}

#[test]
fn a_dead_workers_lease_expires_and_another_takes_the_delivery() {
    use sanctions_store::{DeliveryClaim, Store};
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let cfg = config(d, 5);
    create_webhook(d, &cfg, "http://127.0.0.1:9/hook");
    add_events(d, 3);
    let mut store = Store::open(&d.join("sanctions.db")).unwrap();
    store.fan_out(jiff::Timestamp::now()).unwrap();
    let now = jiff::Timestamp::now();
    let until = now + jiff::SignedDuration::from_secs(60);
    let first = DeliveryClaim {
        owner: "dead",
        now,
        until,
        skip: &[],
    };
    assert_eq!(store.claim_deliveries(&first, 10).unwrap().len(), 3);
    let live = DeliveryClaim {
        owner: "live",
        now,
        until,
        skip: &[],
    };
    assert!(
        store.claim_deliveries(&live, 10).unwrap().is_empty(),
        "held by a live lease"
    );
    // A live worker renews its leases: still held after the first lease's end.
    let renewed = until + jiff::SignedDuration::from_secs(60);
    assert_eq!(store.renew_claims("dead", renewed).unwrap(), 3);
    let at_first_end = until + jiff::SignedDuration::from_secs(1);
    let early = DeliveryClaim {
        owner: "live",
        now: at_first_end,
        until: renewed,
        skip: &[],
    };
    assert!(
        store.claim_deliveries(&early, 10).unwrap().is_empty(),
        "renewed"
    );
    // It dies: no more renewals, and the lease runs out.
    let later = renewed + jiff::SignedDuration::from_secs(1);
    let after = DeliveryClaim {
        owner: "live",
        now: later,
        until: later + jiff::SignedDuration::from_secs(60),
        skip: &[],
    };
    let taken = store.claim_deliveries(&after, 10).unwrap();
    assert_eq!(taken.len(), 3, "the expired lease is taken over");
    // The same event, so the same `webhook-id`, on the retry.
    assert!(
        taken
            .iter()
            .all(|t| t.event.event_id.starts_with("evt_claims"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tarpit_endpoint_does_not_delay_a_healthy_one() {
    let tarpit = start_tarpit().await;
    let (url, healthy) = start_receiver().await;
    let data = tempfile::tempdir().unwrap();
    let d = data.path().to_path_buf();
    // 8 events at 10 s each would hold a one-at-a-time worker for 80 s.
    let cfg = config(&d, 10);
    let (mut worker, events) = tokio::task::spawn_blocking(move || {
        create_webhook(&d, &cfg, &tarpit);
        create_webhook(&d, &cfg, &url);
        let events = add_events(&d, 8);
        (
            spawn(&d, &["--config", &cfg, "webhooks", "deliver"]),
            events,
        )
    })
    .await
    .unwrap();
    let prompt = wait_until(Duration::from_secs(3), || {
        healthy.counts().len() == events.len()
    })
    .await;
    worker.kill().unwrap();
    worker.wait().unwrap();
    assert!(
        prompt,
        "the healthy endpoint got {:?} of {}",
        healthy.counts(),
        events.len()
    );
    assert!(healthy.counts().values().all(|n| *n == 1));
}

#[test]
fn a_worker_whose_lease_was_taken_over_cannot_record_over_the_new_claim() {
    use sanctions_store::{
        AttemptRecord, DeliveryClaim, DeliveryOutcome, DeliveryRecord, DueDelivery, Store,
    };
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let cfg = config(d, 5);
    create_webhook(d, &cfg, "http://127.0.0.1:9/hook");
    add_events(d, 2);
    let mut store = Store::open(&d.join("sanctions.db")).unwrap();
    store.fan_out(jiff::Timestamp::now()).unwrap();
    let now = jiff::Timestamp::now();
    let minute = jiff::SignedDuration::from_secs(60);
    let claim = |owner, now| DeliveryClaim {
        owner,
        now,
        until: now + minute,
        skip: &[],
    };
    let slow = store.claim_deliveries(&claim("slow", now), 10).unwrap();
    assert_eq!(slow.len(), 2);
    // The slow worker's lease runs out; another takes both deliveries over.
    let later = now + minute + jiff::SignedDuration::from_secs(1);
    let next = store.claim_deliveries(&claim("next", later), 10).unwrap();
    assert_eq!(next.len(), 2, "the expired lease is taken over");
    let attempted = |d: &DueDelivery, outcome: DeliveryOutcome| DeliveryRecord::Attempted {
        attempt: AttemptRecord {
            webhook_id: d.webhook.id.clone(),
            event_id: d.event.event_id.clone(),
            kind: d.event.kind.clone(),
            attempt: d.attempts + 1,
            at: later,
            status_code: Some(500),
            latency_ms: 1,
            error: Some("HTTP 500".to_owned()),
            response: None,
        },
        seq: Some(d.seq),
        outcome,
        alert: None,
    };
    // The slow worker comes back: its failure (a retry in an hour) and its release must not
    // touch the deliveries the next worker holds.
    let records = [
        attempted(&slow[0], DeliveryOutcome::Retry(later + minute * 60)),
        DeliveryRecord::Released {
            webhook_id: slow[1].webhook.id.clone(),
            seq: slow[1].seq,
            due: later + minute * 60,
        },
    ];
    assert_eq!(
        store.record_deliveries("slow", &records).unwrap(),
        2,
        "both lost"
    );
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    let rows = |db: &Connection| -> Vec<(String, i64, Option<String>)> {
        db.prepare("SELECT status, attempts, claimed_by FROM webhook_deliveries ORDER BY event_seq")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let held = ("pending".to_owned(), 0, Some("next".to_owned()));
    assert_eq!(rows(&db), vec![held.clone(), held]);
    // Its attempt happened, so it is in the log.
    let logged: i64 = db
        .query_row("SELECT count(*) FROM webhook_attempts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(logged, 1);
    // The holder records: delivered, and the claims freed.
    let records: Vec<_> = next
        .iter()
        .map(|d| attempted(d, DeliveryOutcome::Delivered))
        .collect();
    assert_eq!(store.record_deliveries("next", &records).unwrap(), 0);
    let done = ("delivered".to_owned(), 1, None);
    assert_eq!(rows(&db), vec![done.clone(), done]);
    // A record of a delivery already delivered changes nothing, whoever sends it.
    assert_eq!(
        store
            .record_deliveries("next", &[attempted(&next[0], DeliveryOutcome::Failed)])
            .unwrap(),
        1
    );
    assert_eq!(rows(&db)[0].0, "delivered");
}

/// A data folder whose UN list went through `n` updates (one entry added by each), none of
/// them briefed yet.
fn updated_n_times(n: usize) -> tempfile::TempDir {
    use sanctions_model::{Entity, EntityKind, ListCode, ParsedList};
    let dir = tempfile::tempdir().unwrap();
    let mut store = sanctions_store::Store::open(&dir.path().join("sanctions.db")).unwrap();
    let mut parsed = ParsedList::new(ListCode::Un);
    for i in 0..n {
        let name = format!("Person Number {i}");
        let id = format!("QDi.{i:03}");
        parsed.entities.push(Entity::new(
            ListCode::Un,
            &id,
            EntityKind::Individual,
            &name,
        ));
        store.replace_list(&parsed, "test").unwrap();
    }
    std::fs::write(dir.path().join("no-feeds.toml"), "[briefs]\nfeeds = []\n").unwrap();
    dir
}

/// `sanctions briefs refresh --json` without feeds, started (the configuration is written
/// by [`updated_n_times`], before any process starts).
fn spawn_refresh(data: &Path) -> std::process::Child {
    let config = data.join("no-feeds.toml").display().to_string();
    spawn(data, &["--config", &config, "briefs", "refresh", "--json"])
}

/// `sanctions briefs refresh --json` run to its end: how many list updates it briefed.
fn refresh_briefs(child: std::process::Child) -> u64 {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    json(&out)["list_updates"].as_u64().unwrap()
}

/// The list updates briefed, each with its number of briefs.
fn briefed(db: &Connection) -> Vec<(String, i64)> {
    db.prepare(
        "SELECT guid, count(*) FROM briefs WHERE source = 'list_update' GROUP BY guid ORDER BY 1",
    )
    .unwrap()
    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn processes_briefing_at_once_make_each_brief_once() {
    let n = 60;
    let data = updated_n_times(n);
    let d = data.path();
    let workers: Vec<_> = (0..3).map(|_| spawn_refresh(d)).collect();
    let reported: u64 = workers.into_iter().map(refresh_briefs).sum();
    assert_eq!(reported, n as u64, "each update briefed by one process");
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    let briefs = briefed(&db);
    assert_eq!(briefs.len(), n);
    assert!(briefs.iter().all(|(_, count)| *count == 1), "{briefs:?}");
    // Made once, not made twice and stored once: the log has one line per update.
    let log = std::fs::read_to_string(d.join("sanctions.log")).unwrap();
    let mut made: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("brief made"))
        .filter_map(|l| l.split("update_id=").nth(1)?.split_whitespace().next())
        .collect();
    assert_eq!(made.len(), n, "{made:?}");
    made.sort();
    made.dedup();
    assert_eq!(made.len(), n, "an update briefed twice");
    let left: i64 = db
        .query_row("SELECT count(*) FROM job_claims", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0, "every claim released");
}

#[test]
fn a_dead_briefers_lease_runs_out_and_another_process_briefs_the_update() {
    let data = updated_n_times(3);
    let d = data.path();
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    let ids: Vec<i64> = db
        .prepare("SELECT id FROM list_updates ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // What a process killed while briefing leaves: its claim. One whose lease has run
    // out, one whose holder still has time (it may be alive and slow).
    let claim = |id: i64, owner: &str, until: &str| {
        db.execute(
            "INSERT OR REPLACE INTO job_claims (job, owner, lease_until) VALUES (?1, ?2, ?3)",
            [&format!("brief:update:{id}"), owner, until],
        )
        .unwrap();
    };
    claim(ids[0], "dead-1", "2000-01-01T00:00:00.000000Z");
    claim(ids[1], "slow-1", "9999-01-01T00:00:00.000000Z");
    let first = refresh_briefs(spawn_refresh(d));
    assert_eq!(first, 2, "the expired claim taken over, the live one left");
    let guids: Vec<String> = briefed(&db).into_iter().map(|(g, _)| g).collect();
    assert_eq!(
        guids,
        [format!("update:{}", ids[0]), format!("update:{}", ids[2])]
    );
    // The slow one dies too: once its lease has run out, the next process finishes.
    claim(ids[1], "slow-1", "2000-01-01T00:00:00.000000Z");
    let second = refresh_briefs(spawn_refresh(d));
    assert_eq!(second, 1);
    let briefs = briefed(&db);
    assert_eq!(briefs.len(), 3);
    assert!(briefs.iter().all(|(_, count)| *count == 1), "{briefs:?}");
}
