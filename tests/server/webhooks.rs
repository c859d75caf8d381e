//! Webhooks end to end: the real binary, a real SQLite file, receivers on 127.0.0.1 that
//! verify Standard Webhooks signatures with an implementation independent of the program's.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use common::{json, sanctions, shared_data, stdout};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One received request: headers and body.
type Received = (HeaderMap, Vec<u8>);

/// What a receiver got, and the statuses it answers (200 once the queue is empty).
#[derive(Clone, Default)]
struct Receiver {
    got: Arc<Mutex<Vec<Received>>>,
    answers: Arc<Mutex<VecDeque<u16>>>,
}

async fn receive(State(r): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    r.got.lock().unwrap().push((headers, body.to_vec()));
    let status = r.answers.lock().unwrap().pop_front().unwrap_or(200);
    StatusCode::from_u16(status).unwrap()
}

async fn start_receiver(answers: &[u16]) -> (SocketAddr, Receiver) {
    let r = Receiver::default();
    r.answers.lock().unwrap().extend(answers.iter().copied());
    let app = Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(r.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, r)
}

/// HMAC-SHA256 written out from RFC 2104, independent of the `hmac` crate the program uses.
fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let ipad: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
    let opad: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
    let inner = Sha256::new()
        .chain_update(&ipad)
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(&opad)
        .chain_update(inner)
        .finalize()
        .to_vec()
}

/// Verifies one delivery as a Standard Webhooks receiver does; returns the parsed body.
fn verify(secret: &str, headers: &HeaderMap, body: &[u8]) -> Value {
    let id = headers["webhook-id"].to_str().unwrap();
    let ts = headers["webhook-timestamp"].to_str().unwrap();
    let ts_num: i64 = ts.parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(
        (now - ts_num).abs() < 300,
        "timestamp outside the 5 min tolerance"
    );
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut message = format!("{id}.{ts}.").into_bytes();
    message.extend_from_slice(body);
    let expected = format!("v1,{}", STANDARD.encode(hmac_sha256(&key, &message)));
    let header = headers["webhook-signature"].to_str().unwrap();
    assert!(
        header.split(' ').any(|s| s == expected),
        "signature {header} is not {expected}"
    );
    let value: Value = serde_json::from_slice(body).unwrap();
    assert!(value["type"].is_string() && value["timestamp"].is_string());
    assert!(value["data"].is_object());
    value
}

#[test]
fn independent_hmac_matches_the_specification_example() {
    let key = STANDARD.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
    let mac = hmac_sha256(
        &key,
        br#"msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}"#,
    );
    assert_eq!(
        STANDARD.encode(mac),
        "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    );
}

fn write_config(dir: &Path, extra: &str) -> String {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[webhooks]\nretry_schedule = [\"300ms\", \"300ms\", \"300ms\"]\npoll_interval_ms = 50\ntimeout_secs = 5\n{extra}"
        ),
    )
    .unwrap();
    path.display().to_string()
}

fn create(data: &Path, config: &str, url: &str, events: &str) -> (String, String) {
    let out = json(&sanctions(
        data,
        &[
            "--config", config, "webhooks", "create", url, "--events", events, "--json",
        ],
    ));
    (
        out["id"].as_str().unwrap().to_owned(),
        out["secret"].as_str().unwrap().to_owned(),
    )
}

/// Imports the hand-made OFAC fixture: one `list.updated` event.
fn import_fixture(data: &Path, config: &str) {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("ofac_sdn");
    std::fs::create_dir_all(&target).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ofac_sdn/good");
    for f in std::fs::read_dir(fixtures).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), target.join(f.file_name())).unwrap();
    }
    let out = sanctions(
        data,
        &[
            "--config",
            config,
            "lists",
            "import",
            &dir.path().display().to_string(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn deliver_once(data: &Path, config: &str) {
    let out = sanctions(data, &["--config", config, "webhooks", "deliver", "--once"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn attempts(data: &Path, config: &str, id: &str) -> Vec<Value> {
    json(&sanctions(
        data,
        &["--config", config, "webhooks", "deliveries", id, "--json"],
    ))
    .as_array()
    .unwrap()
    .clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn screening_and_list_update_events_arrive_signed() {
    let shared = shared_data();
    let (addr, receiver) = start_receiver(&[]).await;
    let data = tempfile::tempdir().unwrap();
    let config = write_config(data.path(), "");
    let editions = tempfile::tempdir().unwrap();
    let layout = |name: &str, from: &Path| {
        let dir = editions.path().join(name).join("ofac_sdn");
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["sdn.csv", "add.csv", "alt.csv"] {
            std::fs::copy(from.join(f), dir.join(f)).unwrap();
        }
        editions.path().join(name).display().to_string()
    };
    let older = layout(
        "older",
        &shared.join("editions/ofac_sdn/consistent_2023-12-28"),
    );
    let current = layout("current", &shared.join("lists/ofac_sdn"));
    let d = data.path().to_path_buf();
    let cfg = config.clone();
    let url = format!("http://{addr}/hook");
    let (id, secret) = tokio::task::spawn_blocking(move || {
        let out = sanctions(&d, &["--config", &cfg, "lists", "import", &older]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let created = create(&d, &cfg, &url, "screening.match,list.updated");
        let out = sanctions(
            &d,
            &[
                "--config",
                &cfg,
                "lists",
                "import",
                &current,
                "--allow-shrink",
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A stored screening (through the service: `sanctions screen` does not store one).
        let svc = sanctions_service::LocalService::open(&d.join("sanctions.db"), "t").unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        use sanctions_service::Service as _;
        let request = sanctions_api::screening::ScreenRequest::new("Vladimir Putin");
        rt.block_on(svc.screen(request)).unwrap();
        drop(svc);
        deliver_once(&d, &cfg);
        created
    })
    .await
    .unwrap();
    let got = receiver.got.lock().unwrap().clone();
    let mut bodies: Vec<Value> = got.iter().map(|(h, b)| verify(&secret, h, b)).collect();
    // Deliveries to one endpoint run concurrently: their order of arrival is not fixed.
    bodies.sort_by_key(|b| b["type"].as_str().unwrap().to_owned());
    let kinds: Vec<&str> = bodies.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["list.updated", "screening.match"], "{bodies:#?}");
    let update = &bodies[0]["data"];
    assert_eq!(update["list"], "ofac_sdn");
    assert!(update["added"].as_u64().unwrap() > 0, "{update}");
    let screening = &bodies[1]["data"];
    assert_eq!(screening["query"], "Vladimir Putin");
    assert!(screening["total_matches"].as_u64().unwrap() >= 1);
    // Nothing more is sent by a second pass: each event once per webhook.
    let d = data.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        deliver_once(&d, &config);
        assert_eq!(attempts(&d, &config, &id).len(), 2);
    })
    .await
    .unwrap();
    assert_eq!(receiver.got.lock().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn failing_receiver_gets_the_event_after_retries_with_four_attempts_logged() {
    let (addr, receiver) = start_receiver(&[500, 503, 500]).await;
    let data = tempfile::tempdir().unwrap();
    let config = write_config(data.path(), "");
    let d = data.path().to_path_buf();
    let started = Instant::now();
    let (id, secret, log) = tokio::task::spawn_blocking(move || {
        let (id, secret) = create(&d, &config, &format!("http://{addr}/hook"), "list.updated");
        import_fixture(&d, &config);
        deliver_once(&d, &config);
        let log = attempts(&d, &config, &id);
        (id, secret, log)
    })
    .await
    .unwrap();
    // Three waits of 300 ms (±10 %) separate the four attempts.
    assert!(started.elapsed() >= Duration::from_millis(800));
    let statuses: Vec<u64> = log
        .iter()
        .map(|a| a["status_code"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, [200, 500, 503, 500], "{log:#?}"); // newest first
    let numbers: Vec<u64> = log.iter().map(|a| a["attempt"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [4, 3, 2, 1]);
    assert!(log[1]["error"].as_str().unwrap().contains("500"));
    let got = receiver.got.lock().unwrap().clone();
    assert_eq!(got.len(), 4);
    // One event: the same webhook-id on every attempt, each validly signed.
    let ids: Vec<&str> = got
        .iter()
        .map(|(h, _)| h["webhook-id"].to_str().unwrap())
        .collect();
    assert!(ids.iter().all(|i| *i == ids[0]), "{ids:?}");
    for (h, b) in &got {
        verify(&secret, h, b);
    }
    assert!(id.starts_with("wh_"));
}

#[tokio::test(flavor = "multi_thread")]
async fn gone_disables_the_endpoint() {
    let (addr, receiver) = start_receiver(&[410]).await;
    let data = tempfile::tempdir().unwrap();
    let config = write_config(data.path(), "");
    let d = data.path().to_path_buf();
    let shown = tokio::task::spawn_blocking(move || {
        let (id, _) = create(&d, &config, &format!("http://{addr}/hook"), "list.updated");
        import_fixture(&d, &config);
        deliver_once(&d, &config);
        json(&sanctions(
            &d,
            &["--config", &config, "webhooks", "show", &id, "--json"],
        ))
    })
    .await
    .unwrap();
    assert_eq!(shown["active"], false, "{shown}");
    assert!(shown["disabled_reason"].as_str().unwrap().contains("410"));
    assert_eq!(receiver.got.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn events_pending_when_the_worker_is_killed_are_delivered_after_a_restart() {
    // The receiver fails the first attempt; the worker is killed while it waits to retry.
    let (addr, receiver) = start_receiver(&[500]).await;
    let data = tempfile::tempdir().unwrap();
    let config = write_config(data.path(), "");
    std::fs::write(
        &config,
        "[webhooks]\nretry_schedule = [\"2s\"]\npoll_interval_ms = 50\n",
    )
    .unwrap();
    let d = data.path().to_path_buf();
    let cfg = config.clone();
    let (id, secret) = tokio::task::spawn_blocking(move || {
        let created = create(&d, &cfg, &format!("http://{addr}/hook"), "list.updated");
        import_fixture(&d, &cfg);
        created
    })
    .await
    .unwrap();
    let mut worker = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .args(["--data-dir", &data.path().display().to_string()])
        .args(["--config", &config, "webhooks", "deliver"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while receiver.got.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the worker never called");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    worker.kill().unwrap(); // SIGKILL: no clean shutdown
    worker.wait().unwrap();
    assert_eq!(receiver.got.lock().unwrap().len(), 1);
    let d = data.path().to_path_buf();
    let (shown, log) = tokio::task::spawn_blocking(move || {
        let shown = json(&sanctions(
            &d,
            &["--config", &config, "webhooks", "show", &id, "--json"],
        ));
        assert_eq!(shown["pending"], 1, "{shown}");
        deliver_once(&d, &config); // the restarted worker
        let shown = json(&sanctions(
            &d,
            &["--config", &config, "webhooks", "show", &id, "--json"],
        ));
        (shown, attempts(&d, &config, &id))
    })
    .await
    .unwrap();
    assert_eq!(shown["pending"], 0);
    assert_eq!(log.len(), 2, "{log:#?}");
    let got = receiver.got.lock().unwrap().clone();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0["webhook-id"], got[1].0["webhook-id"]);
    verify(&secret, &got[1].0, &got[1].1);
}

#[tokio::test(flavor = "multi_thread")]
async fn test_command_sends_a_signed_test_event() {
    let (addr, receiver) = start_receiver(&[]).await;
    let data = tempfile::tempdir().unwrap();
    let config = write_config(data.path(), "");
    let d = data.path().to_path_buf();
    let (secret, out) = tokio::task::spawn_blocking(move || {
        let (id, secret) = create(
            &d,
            &config,
            &format!("http://{addr}/hook"),
            "screening.match",
        );
        let out = json(&sanctions(
            &d,
            &["--config", &config, "webhooks", "test", &id, "--json"],
        ));
        (secret, out)
    })
    .await
    .unwrap();
    assert_eq!(out["delivered"], true, "{out}");
    assert_eq!(out["status_code"], 200);
    let got = receiver.got.lock().unwrap().clone();
    let body = verify(&secret, &got[0].0, &got[0].1);
    assert_eq!(body["type"], "webhook.test");
}

#[test]
fn bad_registrations_are_refused_with_clear_messages() {
    let data = tempfile::tempdir().unwrap();
    let config = write_config(data.path(), "");
    let out = sanctions(
        data.path(),
        &[
            "--config",
            &config,
            "webhooks",
            "create",
            "ftp://x",
            "--events",
            "list.updated",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("url"));
    let out = sanctions(
        data.path(),
        &[
            "--config",
            &config,
            "webhooks",
            "create",
            "http://127.0.0.1:9/h",
            "--events",
            "nope",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown event kind"));
    let out = sanctions(data.path(), &["--config", &config, "webhooks", "list"]);
    assert!(stdout(&out).contains("No webhooks"));
}

#[tokio::test(flavor = "multi_thread")]
async fn server_mode_refuses_private_targets_unless_allowed() {
    use sanctions_api::webhooks::WebhookCreate;
    use sanctions_service::config::Config;
    use sanctions_service::{LocalService, Service, ServiceError};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sanctions.db");
    let svc = tokio::task::spawn_blocking(move || LocalService::open(&db, "t"))
        .await
        .unwrap()
        .unwrap();
    let request = |url: &str| WebhookCreate {
        url: url.to_owned(),
        events: vec!["list.updated".to_owned()],
        description: None,
    };
    // Standalone: a local receiver is fine.
    let standalone = svc
        .create_webhook(request("http://127.0.0.1:9/h"))
        .await
        .unwrap();
    svc.set_server_mode(true);
    for url in [
        "http://127.0.0.1:9/h",
        "http://localhost:9/h",
        "http://10.0.0.1/h",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:9/h",
    ] {
        let err = svc.create_webhook(request(url)).await.unwrap_err();
        assert!(
            matches!(&err, ServiceError::Validation { field, .. } if field == "url"),
            "{url}: {err:?}"
        );
    }
    // Checked at delivery time too: the endpoint registered standalone is refused now.
    let test = svc.test_webhook(&standalone.id).await.unwrap();
    assert!(!test.delivered);
    assert!(test.error.unwrap().contains("refused"));
    // The server's configuration may allow private targets.
    let config = Config::parse("[webhooks]\nallow_private_targets = true").unwrap();
    svc.configure(&config).unwrap();
    svc.create_webhook(request("http://127.0.0.1:9/h"))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn redirects_are_not_followed() {
    let (addr, receiver) = start_receiver(&[302]).await;
    let data = tempfile::tempdir().unwrap();
    let config = write_config(data.path(), "");
    let d = data.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        let (id, _) = create(
            &d,
            &config,
            &format!("http://{addr}/hook"),
            "screening.match",
        );
        let out = sanctions(
            &d,
            &["--config", &config, "webhooks", "test", &id, "--json"],
        );
        assert!(
            !out.status.success(),
            "an undelivered test fails the command"
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out["delivered"], false, "{out}");
    assert_eq!(out["status_code"], 302);
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("redirects are not followed")
    );
    assert_eq!(receiver.got.lock().unwrap().len(), 1);
}
