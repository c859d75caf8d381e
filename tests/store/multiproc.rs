//! Several real processes on one data folder (issue 24): a second `serve` refused, and the
//! whole of the background work at once — a server under load, two watchlist re-screens, two
//! delivery workers (one of them killed midway), a list import — leaving every alert unique,
//! every event delivered to each endpoint under one `webhook-id`, every screening stored and
//! the database whole.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::json;
use common::receiver::start_receiver;
use common::serve::{call, json_body};
use rusqlite::Connection;

fn command(data: &Path, config: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sanctions"));
    command
        .arg("--data-dir")
        .arg(data)
        .arg("--config")
        .arg(config)
        .args(args)
        .env("USER", "tester")
        .env_remove("SANCTIONS_MIRROR")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null());
    command
}

fn spawn(data: &Path, config: &Path, args: &[&str]) -> Child {
    command(data, config, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `sanctions serve --bind 127.0.0.1:0 [extra]`; its base URL once it listens.
fn serve(data: &Path, config: &Path, extra: &[&str]) -> (Child, String) {
    let mut args = vec!["serve", "--bind", "127.0.0.1:0"];
    args.extend(extra);
    let mut child = command(data, config, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (child, base)
}

/// A process killed when the test ends, passed or failed.
struct Guard(Option<Child>);

impl Guard {
    fn get(&mut self) -> &mut Child {
        self.0.as_mut().unwrap()
    }

    fn take(&mut self) -> Child {
        self.0.take().unwrap()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn config(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        "[webhooks]\nallow_private_targets = true\nretry_schedule = [\"1s\", \"1s\", \"1s\"]\n\
         poll_interval_ms = 50\ntimeout_secs = 2\n\
         [watchlist]\npoll_secs = 1\n\
         [server.plans.business]\nrequests_per_minute = 1000000\n\
         screenings_per_month = \"unlimited\"\n\
         [briefs]\nfeeds = []\n",
    )
    .unwrap();
    path
}

#[test]
fn a_second_server_on_one_data_folder_is_refused_unless_told() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let cfg = config(d);
    let (first, _) = serve(d, &cfg, &[]);
    let mut first = Guard(Some(first));
    let second = command(d, &cfg, &["serve", "--bind", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(3), "refused, exit 3 (data)");
    let message = String::from_utf8_lossy(&second.stderr);
    assert!(
        message.contains(&format!(
            "another `sanctions serve` (process {}) is already serving the data folder",
            first.get().id()
        )) && message.contains("--share-data-dir"),
        "{message}"
    );
    // Told to share: it starts.
    drop(Guard(Some(serve(d, &cfg, &["--share-data-dir"]).0)));
    // The lock dies with its process, even killed: a new server starts.
    drop(first);
    drop(Guard(Some(serve(d, &cfg, &[]).0)));
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(d.join("serve.lock"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o077, 0, "the lock file is private: {mode:o}");
}

/// Waits (polling) until `done` holds, at most `limit`.
async fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    done()
}

/// A data folder with OFAC SDN imported, `names` of its listed people on the watchlist and
/// their recorded matches forgotten (as after a setting change), so that a re-screen alerts.
fn prepared(cfg_dir: &Path, names: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let cfg = config(cfg_dir);
    let out = command(
        d,
        &cfg,
        &[
            "lists",
            "import",
            shared.join("lists").to_str().unwrap(),
            "--list",
            "ofac_sdn",
        ],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    let listed: Vec<String> = db
        .prepare(
            "SELECT primary_name FROM entities WHERE kind = 'individual'
             AND length(primary_name) > 12 ORDER BY entity_id LIMIT ?1",
        )
        .unwrap()
        .query_map([names as i64], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut csv = "name,type\n".to_owned();
    for name in listed {
        csv.push_str(&format!("\"{}\",individual\n", name.replace('"', "\"\"")));
    }
    let file = d.join("names.csv");
    std::fs::write(&file, csv).unwrap();
    json(
        &command(
            d,
            &cfg,
            &["watchlist", "import", file.to_str().unwrap(), "--json"],
        )
        .output()
        .unwrap(),
    );
    db.execute("DELETE FROM favorite_matches", []).unwrap();
    (data, cfg)
}

/// The names the load screens: listed people, so that each screening matches.
fn load_names(db: &Connection, n: usize) -> Vec<String> {
    db.prepare(
        "SELECT primary_name FROM entities WHERE kind = 'individual'
         ORDER BY entity_id DESC LIMIT ?1",
    )
    .unwrap()
    .query_map([n as i64], |r| r.get(0))
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// `clients` clients screening `names` through the server at once; the screening ids.
async fn load(base: &str, key: &str, names: Vec<String>, clients: usize) -> Vec<String> {
    let names = Arc::new(names);
    let mut tasks = Vec::new();
    for c in 0..clients {
        let (base, key, names) = (base.to_owned(), key.to_owned(), names.clone());
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for name in names.iter().skip(c).step_by(clients) {
                let body = serde_json::json!({ "name": name, "lists": ["ofac_sdn"] });
                let answer = call(
                    "POST",
                    &format!("{base}/api/v1/screen"),
                    Some(&key),
                    json_body(body),
                )
                .await;
                let id = answer.data()["id"].as_str().unwrap().to_owned();
                ids.push(id);
            }
            ids
        }));
    }
    let mut ids = Vec::new();
    for t in tasks {
        ids.extend(t.await.unwrap());
    }
    ids
}

/// Per webhook, the event ids of its deliveries, and how many are not delivered yet.
fn deliveries(db: &Connection) -> (BTreeMap<String, BTreeSet<String>>, i64) {
    let mut per: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let rows: Vec<(String, String)> = db
        .prepare(
            "SELECT d.webhook_id, o.event_id FROM webhook_deliveries d
             JOIN outbox o ON o.seq = d.event_seq",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (w, e) in rows {
        per.entry(w).or_default().insert(e);
    }
    let open: i64 = db
        .query_row(
            "SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (per, open)
}

/// Outbox events not yet handed to some webhook.
fn not_fanned_out(db: &Connection) -> i64 {
    db.query_row(
        "SELECT count(*) FROM webhooks w JOIN outbox o ON o.seq > w.cursor",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_process_at_once_on_one_data_folder() {
    let cfg_dir = tempfile::tempdir().unwrap();
    let (data, cfg) = tokio::task::spawn_blocking({
        let dir = cfg_dir.path().to_path_buf();
        move || prepared(&dir, 150)
    })
    .await
    .unwrap();
    let d = data.path().to_path_buf();
    let db = Connection::open(d.join("sanctions.db")).unwrap();
    db.busy_timeout(Duration::from_secs(30)).unwrap();
    // The watchlist's import alerted on its first matches: only what follows counts.
    let setup_alerts: i64 = db
        .query_row("SELECT coalesce(max(rowid), 0) FROM alerts", [], |r| {
            r.get(0)
        })
        .unwrap();
    let (url_a, a) = start_receiver().await;
    let (url_b, b) = start_receiver().await;
    for url in [&url_a, &url_b] {
        json(
            &command(
                &d,
                &cfg,
                &[
                    "webhooks",
                    "create",
                    url,
                    "--events",
                    "screening.match,favorite.match,alert.created,list.updated",
                    "--json",
                ],
            )
            .output()
            .unwrap(),
        );
    }
    // The load's screenings belong to the local user's account, whose the webhooks are.
    let plan = command(&d, &cfg, &["accounts", "set-plan", "default", "business"])
        .output()
        .unwrap();
    assert!(plan.status.success(), "{plan:?}");
    let key = json(
        &command(
            &d,
            &cfg,
            &[
                "keys",
                "create",
                "--account",
                "default",
                "--label",
                "load",
                "--json",
            ],
        )
        .output()
        .unwrap(),
    )["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let names = load_names(&db, 240);
    let (server, base) = serve(&d, &cfg, &[]);
    let mut server = Guard(Some(server));
    let ready = async {
        loop {
            let status = reqwest::get(format!("{base}/readyz"))
                .await
                .map(|r| r.status().as_u16())
                .ok();
            if status == Some(200) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    assert!(
        tokio::time::timeout(Duration::from_secs(300), ready)
            .await
            .is_ok(),
        "the server was never ready"
    );

    // Everything at once: the load, two re-screens, two workers (the UI's is the same
    // worker code as `webhooks deliver`), and an import of a second list in the middle.
    let loading = tokio::spawn({
        let (base, key) = (base.clone(), key.clone());
        async move { load(&base, &key, names, 4).await }
    });
    let mut rescreens: Vec<Guard> = (0..2)
        .map(|_| Guard(Some(spawn(&d, &cfg, &["watchlist", "rescreen", "--json"]))))
        .collect();
    let mut doomed = Guard(Some(spawn(&d, &cfg, &["webhooks", "deliver"])));
    let mut survivor = Guard(Some(spawn(&d, &cfg, &["webhooks", "deliver"])));
    // Killed once deliveries are flowing.
    let flowing = wait_until(Duration::from_secs(120), || a.counts().len() >= 20).await;
    assert!(flowing, "no deliveries: {:?}", a.counts().len());
    doomed.get().kill().unwrap(); // SIGKILL
    doomed.get().wait().unwrap();
    let shared = common::shared_data();
    let import = command(
        &d,
        &cfg,
        &[
            "lists",
            "import",
            shared.join("lists").to_str().unwrap(),
            "--list",
            "un",
            "--json",
        ],
    )
    .output()
    .unwrap();
    assert!(
        import.status.success(),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
    let screenings = loading.await.unwrap();
    for r in &mut rescreens {
        json(&r.take().wait_with_output().unwrap());
    }

    // Drained: the killed worker's claims come free when its lease ends (timeout + 30 s).
    let drained = wait_until(Duration::from_secs(180), || {
        let (_, open) = deliveries(&db);
        open == 0 && not_fanned_out(&db) == 0
    })
    .await;
    // The serve's monitoring may still re-screen after the import: stop it, then let the
    // worker deliver what that left.
    signal(server.get(), "-TERM");
    assert!(server.take().wait().unwrap().success());
    let settled = wait_until(Duration::from_secs(180), || {
        let (_, open) = deliveries(&db);
        open == 0 && not_fanned_out(&db) == 0
    })
    .await;
    signal(survivor.get(), "-INT");
    let out = survivor.take().wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        drained && settled,
        "deliveries left: {:?}",
        deliveries(&db).1
    );

    // Every alert unique per (favorite, entity).
    let pairs: Vec<(String, String)> = db
        .prepare(
            "SELECT a.favorite_id, e.value FROM alerts a, json_each(a.entity_ids) e
             WHERE a.kind = 'favorite.match' AND a.rowid > ?1 ORDER BY 1, 2",
        )
        .unwrap()
        .query_map([setup_alerts], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        pairs.len() >= 100,
        "the re-screens alerted too little: {}",
        pairs.len()
    );
    let doubled: Vec<_> = pairs.windows(2).filter(|w| w[0] == w[1]).collect();
    if let Some(w) = doubled.first() {
        let history = rows(
            &db,
            &format!(
                "SELECT c.change, c.at, c.run_id, r.reason, r.mode, r.actor, r.list_versions
                 FROM favorite_changes c LEFT JOIN rescreen_runs r ON r.id = c.run_id
                 WHERE c.favorite_id = '{}' AND c.entity_id = '{}' ORDER BY c.id",
                w[0].0, w[0].1
            ),
        );
        panic!(
            "{} alerted twice, e.g. {:?}: {history:#?}",
            doubled.len(),
            w[0]
        );
    }

    // Every event handed to both webhooks, and received by each under its own id: once,
    // or twice where the killed worker had sent it without recording it (the receiver
    // deduplicates those by `webhook-id`).
    let (per, _) = deliveries(&db);
    let events: i64 = db
        .query_row("SELECT count(*) FROM outbox", [], |r| r.get(0))
        .unwrap();
    assert_eq!(per.len(), 2);
    for (receiver, expected) in [a, b].iter().zip(per.values()) {
        assert_eq!(expected.len() as i64, events, "a delivery per event");
        let counts = receiver.counts();
        let got: BTreeSet<String> = counts.keys().cloned().collect();
        assert_eq!(&got, expected, "received by webhook-id");
        let again = counts.values().filter(|n| **n > 1).count();
        assert!(
            counts.values().all(|n| *n <= 2) && again <= 512,
            "{again} sent more than once"
        );
    }
    let kinds: BTreeSet<String> = db
        .prepare("SELECT DISTINCT kind FROM outbox")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for kind in ["screening.match", "favorite.match", "list.updated"] {
        assert!(kinds.contains(kind), "no {kind} event: {kinds:?}");
    }

    // No stored screening missing.
    let stored: BTreeSet<String> = db
        .prepare("SELECT id FROM screenings")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(screenings.len(), 240);
    let missing: Vec<_> = screenings.iter().filter(|s| !stored.contains(*s)).collect();
    assert!(missing.is_empty(), "screenings not stored: {missing:?}");

    // The database passes its integrity check.
    let check = command(&d, &cfg, &["store", "check"]).output().unwrap();
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
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
