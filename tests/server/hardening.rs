//! A server that can face the internet (issue 20): strict input, names with nothing to screen,
//! control sequences in queries, bounded connections, throttled authentication failures,
//! safe request ids and private files, each against the real binary on 127.0.0.x.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::serve::{Serve, call, config, data, json_body, new_key};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Waits until `done` holds, polling every 50 ms, for at most `limit`.
async fn wait_for(limit: Duration, what: &str, mut done: impl AsyncFnMut() -> bool) {
    let started = Instant::now();
    while !done().await {
        assert!(started.elapsed() < limit, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A `sanctions serve` over a folder that may have no list (answers `/healthz`, not
/// `/readyz`), started under `umask 022`, its standard error kept in `stderr.txt`.
struct Bare {
    child: Child,
    base: String,
    addr: SocketAddr,
    stderr: PathBuf,
}

impl Bare {
    async fn start(data_dir: &Path, config: &Path, scratch: &Path) -> Bare {
        let stderr = scratch.join("stderr.txt");
        let script = "umask 022; exec \"$0\" --data-dir \"$1\" --config \"$2\" serve --bind 127.0.0.1:0 2>\"$3\"";
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_sanctions"))
            .arg(data_dir)
            .arg(config)
            .arg(&stderr)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
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
        let addr = base.trim_start_matches("http://").parse().unwrap();
        let bare = Bare {
            child,
            base,
            addr,
            stderr,
        };
        let url = format!("{}/healthz", bare.base);
        wait_for(Duration::from_secs(60), "healthz", async || {
            reqwest::get(&url).await.is_ok_and(|r| r.status() == 200)
        })
        .await;
        bare
    }

    fn url(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.base)
    }
}

impl Drop for Bare {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP connection to `server` from the loopback address `from`.
async fn connect_from(from: [u8; 4], server: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket.connect(server).await
}

/// True while the server keeps `stream` open (nothing to read yet, no end of file).
fn still_open(stream: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(stream.try_read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

/// Waits (at most `limit`) until the server closes `stream`: end of file or a reset.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

fn screen_body(name: &str) -> Option<(&'static str, Vec<u8>)> {
    json_body(json!({ "name": name }))
}

/// A favorite created with a date of birth and a country reads back with both; one not in
/// the interface's documented form (as for `/screen`: `07.10.1952`, `Russia`, an empty
/// string) is refused naming its field, and an unknown field still refused.
async fn favorite_evidence_over_http(server: &Serve, k: Option<&str>) {
    let body = json!({ "name": "Vladimir Putin", "date_of_birth": "1952-10-07", "country": "RU" });
    let created = call("POST", &server.url("/favorites"), k, json_body(body)).await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let fav = created.data()["id"].as_str().unwrap().to_owned();
    let listed = call("GET", &server.url("/favorites?limit=500"), k, None).await;
    let items = listed.data()["items"].as_array().unwrap().clone();
    let item = items.iter().find(|f| f["id"] == fav.as_str()).unwrap();
    assert_eq!(item["date_of_birth"], "1952-10-07", "{item}");
    assert_eq!(item["country"], "RU", "{item}");
    for (body, named) in [
        (
            json!({ "name": "Ann Other", "date_of_birth": "soon" }),
            "date_of_birth",
        ),
        (
            json!({ "name": "Ann Other", "country": "Atlantis" }),
            "country",
        ),
        (json!({ "name": "Ann Other", "dob": "1960" }), "dob"),
        (
            json!({ "name": "Ann Other", "date_of_birth": "07.10.1952" }),
            "date_of_birth",
        ),
        (
            json!({ "name": "Ann Other", "country": "Russia" }),
            "country",
        ),
        (
            json!({ "name": "Ann Other", "date_of_birth": "" }),
            "date_of_birth",
        ),
    ] {
        let refused = call("POST", &server.url("/favorites"), k, json_body(body)).await;
        assert!(refused.status >= 400, "{:?}", refused.body);
        assert!(refused.message().contains(named), "{:?}", refused.body);
    }
    let import =
        json!({ "names": [{ "name": "Ann Other" }, { "name": "Bo Other", "date_of_birth": "" }] });
    let refused = call(
        "POST",
        &server.url("/favorites/import"),
        k,
        json_body(import),
    )
    .await;
    assert_eq!(refused.status, 422, "{:?}", refused.body);
    assert!(
        refused.message().contains("names[1].date_of_birth"),
        "{:?}",
        refused.body
    );
    // A batch name's own date of birth and country: the documented forms, named when not.
    for (name, named) in [
        (
            json!({ "name": "Bo Other", "date_of_birth": "07.10.1952" }),
            "names[1].date_of_birth",
        ),
        (
            json!({ "name": "Bo Other", "country": "Atlantis" }),
            "names[1].country",
        ),
    ] {
        let batch = json!({ "names": ["Ann Other", name] });
        let refused = call("POST", &server.url("/screen/batch"), k, json_body(batch)).await;
        assert_eq!(refused.status, 422, "{:?}", refused.body);
        assert!(refused.message().contains(named), "{:?}", refused.body);
    }
    let weighed = json!({ "names": [{ "name": "Bo Other", "date_of_birth": "1952-10-07", "country": "RU" }] });
    let answer = call("POST", &server.url("/screen/batch"), k, json_body(weighed)).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let removed = call("DELETE", &server.url(&format!("/favorites/{fav}")), k, None).await;
    assert!(removed.status < 300, "{:?}", removed.body);
}

const PUTIN_COLOURED: &str = "Vladimir Putin\u{1b}[0m";

/// The names of a result's matches, upper-cased.
fn matched_names(result: &Value) -> Vec<String> {
    result["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap_or("").to_uppercase())
        .collect()
}

/// Unknown fields are 400 naming the field on every body, nothing changes; names with nothing
/// to screen are 422 (one name) or refuse the batch naming the row, and are never stored; a
/// colour-coded name is found and stored as sent.
#[tokio::test(flavor = "multi_thread")]
async fn strict_input_over_http() {
    let data = data();
    let server = Serve::start(data, None).await;
    let key = new_key(data, "business", "strict");
    let k = Some(key.as_str());

    // List updates show no path of the server's (issue 26, item 4).
    let updates = call("GET", &server.url("/lists/un/updates"), k, None).await;
    let origin = updates.data()[0]["origin"].as_str().unwrap().to_owned();
    assert!(origin.starts_with("import: "), "{origin}");
    assert!(
        !updates.body.to_string().contains("/shared/data"),
        "{:?}",
        updates.body
    );

    // Parameter errors: the envelope, the parameter named (issue 26, item 3).
    for (path, status, named) in [
        ("/briefs?cursor=garbage", 422, "cursor"),
        ("/alerts?cursor=garbage", 422, "cursor"),
        ("/alerts?status=bogus", 422, "`status`"),
        ("/alerts?since=yesterday", 400, "`since`"),
        ("/screenings?limit=abc", 400, "`limit`"),
    ] {
        let answer = call("GET", &server.url(path), k, None).await;
        assert_eq!(answer.status, status, "{path}: {:?}", answer.body);
        assert!(
            answer.message().contains(named),
            "{path}: {:?}",
            answer.body
        );
    }

    // One timestamp form: six fractional digits, the same on creation and when read back
    // (issue 26, item 2).
    let created = call(
        "POST",
        &server.url("/favorites"),
        k,
        screen_body("Ivan Timestampov"),
    )
    .await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let at = created.data()["created_at"].as_str().unwrap().to_owned();
    let fav = created.data()["id"].as_str().unwrap().to_owned();
    let listed = call("GET", &server.url("/favorites?limit=500"), k, None).await;
    let item = listed.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == fav.as_str())
        .unwrap()
        .clone();
    assert_eq!(item["created_at"], at.as_str());
    assert!(
        at.len() == 27 && at.ends_with('Z') && at.as_bytes()[19] == b'.',
        "{at}"
    );
    let removed = call("DELETE", &server.url(&format!("/favorites/{fav}")), k, None).await;
    assert!(removed.status < 300, "{:?}", removed.body);
    favorite_evidence_over_http(&server, k).await;

    // A colour-coded name finds Putin at the default threshold; the stored query is as sent.
    let found = call(
        "POST",
        &server.url("/screen"),
        k,
        screen_body(PUTIN_COLOURED),
    )
    .await;
    assert_eq!(found.status, 200, "{:?}", found.body);
    let names = matched_names(found.data());
    assert!(
        names.iter().any(|n| n.contains("PUTIN")),
        "no Putin among {names:?}"
    );
    let id = found.data()["id"].as_str().unwrap().to_owned();
    let stored = call("GET", &server.url(&format!("/screen/{id}")), k, None).await;
    assert_eq!(stored.data()["query"], PUTIN_COLOURED);
    let status_before = stored.data()["status"].clone();

    let count = async || {
        let page = call("GET", &server.url("/screenings?limit=500"), k, None).await;
        page.data()["items"].as_array().unwrap().len()
    };
    let stored_before = count().await;

    // Unknown fields: 400 naming the field, and nothing recorded.
    let decision = json!({"entity": "uk_hmt:14196", "decision": "false_positive", "note": "n"});
    let refused = [
        (
            "POST",
            format!("/screenings/{id}/decisions"),
            decision,
            "entity",
        ),
        (
            "POST",
            "/screen".into(),
            json!({"name": "Putin", "threshhold": 10}),
            "threshhold",
        ),
        (
            "POST",
            "/screen".into(),
            json!({"name": "Putin", "note": "x"}),
            "note",
        ),
        (
            "POST",
            "/screen/preview".into(),
            json!({"name": "Putin", "x": 1}),
            "x",
        ),
        (
            "POST",
            "/screen/batch".into(),
            json!({"names": [{"name": "Putin", "kind": "entity"}]}),
            "kind",
        ),
        (
            "POST",
            "/screen/batch".into(),
            json!({"names": ["Putin"], "note": "x"}),
            "note",
        ),
        (
            "POST",
            "/favorites".into(),
            json!({"name": "Putin", "notes": "x"}),
            "notes",
        ),
        (
            "POST",
            "/favorites/import".into(),
            json!({"names": [{"name": "Putin", "typ": "x"}]}),
            "typ",
        ),
        (
            "POST",
            "/alerts/alt_none/status".into(),
            json!({"status": "resolved", "note": "n", "by": "me"}),
            "by",
        ),
        (
            "POST",
            "/webhooks".into(),
            json!({"url": "https://example.com/h", "events": ["screening.match"], "secret": "s"}),
            "secret",
        ),
    ];
    for (method, path, body, field) in refused {
        let answer = call(method, &server.url(&path), k, json_body(body)).await;
        assert_eq!(answer.status, 400, "{method} {path}: {:?}", answer.body);
        let message = answer.message();
        assert!(message.contains(&format!("`{field}`")), "{path}: {message}");
    }
    let after = call("GET", &server.url(&format!("/screen/{id}")), k, None).await;
    assert_eq!(after.data()["status"], status_before);
    assert!(after.data()["decisions"].as_array().unwrap().is_empty());

    // Nothing to screen: 422 on /screen and /screen/preview, the batch refused naming the row.
    for name in [
        ".",
        "Mr",
        "\u{0}",
        "\u{200b}",
        "\u{7}",
        "\u{ad}",
        "\u{1b}[0m",
        "LLC",
    ] {
        for path in ["/screen", "/screen/preview"] {
            let answer = call("POST", &server.url(path), k, screen_body(name)).await;
            assert_eq!(answer.status, 422, "{path} {name:?}: {:?}", answer.body);
            assert!(answer.message().contains("nothing to screen"), "{name:?}");
        }
        let batch = json_body(json!({"names": ["Vladimir Putin", name]}));
        let answer = call("POST", &server.url("/screen/batch"), k, batch).await;
        assert_eq!(answer.status, 422, "batch {name:?}: {:?}", answer.body);
        let message = answer.message();
        assert!(
            message.contains("row 2") && message.contains("nothing to screen"),
            "{message}"
        );
    }
    assert_eq!(count().await, stored_before, "a refused name was stored");

    // A batch row wrapped in colour codes is found too.
    let batch = json_body(json!({"names": ["\u{1b}[31mVladimir Putin\u{1b}[0m"]}));
    let answer = call("POST", &server.url("/screen/batch"), k, batch).await;
    let row = &answer.data()["results"][0];
    assert!(row["matches"].as_u64().unwrap() > 0, "{row:?}");
    assert_eq!(row["name"], "\u{1b}[31mVladimir Putin\u{1b}[0m");
}

/// The CLI refuses the same names and finds the colour-coded one, alone and in a batch.
#[test]
fn strict_input_in_the_cli() {
    let data = data();
    let out = common::sanctions(data, &["screen", PUTIN_COLOURED, "--json"]);
    let names = matched_names(&common::json(&out));
    assert!(names.iter().any(|n| n.contains("PUTIN")), "{names:?}");
    for name in [".", "Mr", "\u{7}", "\u{200b}"] {
        let out = common::sanctions(data, &["screen", name]);
        assert_eq!(out.status.code(), Some(2), "{name:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("names.txt");
    std::fs::write(&file, "\u{1b}[31mVladimir Putin\u{1b}[0m\nMr\n").unwrap();
    let out = common::sanctions(data, &["batch", file.to_str().unwrap(), "--json"]);
    let lines: Vec<Value> = common::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines[0]["total_matches"].as_u64().unwrap() > 0,
        "{:?}",
        lines[0]
    );
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .contains("nothing to screen"),
        "{:?}",
        lines[1]
    );
}

/// 10,000 idle connections held open (250 from each of 40 loopback addresses, within the
/// per-address cap): `/healthz` and a stored screening still answer within 1 s. Then the
/// per-address cap: past it, connections from one address are closed at once, while the
/// server answers everyone else.
#[tokio::test(flavor = "multi_thread")]
async fn ten_thousand_idle_connections_and_the_server_answers() {
    let data = data();
    sanctions::server::raise_open_files(12_000);
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[server]\nmax_connections = 12000\nmax_connections_per_address = 250\nheader_read_timeout_secs = 120\nrequest_timeout_secs = 300\n",
    );
    let server = Serve::start(data, Some(&cfg)).await;
    let key = new_key(data, "business", "idle");
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();

    let mut idle = Vec::with_capacity(10_000);
    for host in 2..42u8 {
        let opened =
            futures::future::join_all((0..250).map(|_| connect_from([127, 0, 0, host], addr)))
                .await;
        idle.extend(opened.into_iter().map(Result::unwrap));
    }
    assert_eq!(idle.len(), 10_000);
    tokio::time::sleep(Duration::from_millis(200)).await; // let the server accept the last
    let open = idle.iter().filter(|s| still_open(s)).count();
    assert_eq!(
        open, 10_000,
        "the server closed idle connections within the caps"
    );

    let started = Instant::now();
    let health = call("GET", &format!("{}/healthz", server.base), None, None).await;
    assert_eq!(health.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "healthz took {:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let screened = call(
        "POST",
        &server.url("/screen"),
        Some(&key),
        screen_body("Vladimir Putin"),
    )
    .await;
    assert_eq!(screened.status, 200);
    assert!(screened.data()["id"].as_str().unwrap().starts_with("scr_"));
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "a screening took {:?}",
        started.elapsed()
    );

    // One address at its cap: its next connection is closed at once; the others still answer.
    let mut extra = connect_from([127, 0, 0, 2], addr).await.unwrap();
    assert!(
        closed_within(&mut extra, Duration::from_secs(1)).await,
        "past the cap, kept open"
    );
    let health = call("GET", &format!("{}/healthz", server.base), None, None).await;
    assert_eq!(health.status, 200);
    assert!(
        idle.iter().take(250).all(still_open),
        "the first 250 were closed"
    );
    drop(idle);
}

/// A silent connection and an idle kept-alive one are closed after the header-read timeout.
#[tokio::test(flavor = "multi_thread")]
async fn silent_and_idle_connections_are_closed() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "[server]\nheader_read_timeout_secs = 1\n");
    let server = Bare::start(&dir.path().join("data"), &cfg, dir.path()).await;

    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    let started = Instant::now();
    assert!(
        closed_within(&mut silent, Duration::from_secs(5)).await,
        "silent connection kept"
    );
    assert!(started.elapsed() >= Duration::from_millis(900));

    let mut kept = TcpStream::connect(server.addr).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 12];
    kept.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"HTTP/1.1 200");
    assert!(
        closed_within(&mut kept, Duration::from_secs(5)).await,
        "idle connection kept"
    );

    // Half a request head, then silence: closed too.
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost")
        .await
        .unwrap();
    assert!(
        closed_within(&mut slow, Duration::from_secs(5)).await,
        "slow head kept"
    );
}

/// After N failed authentications from one address, 429 with Retry-After, even for a valid
/// key, and never longer than the window; other addresses are not affected.
#[tokio::test(flavor = "multi_thread")]
async fn failed_authentications_are_throttled_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cfg = config(
        dir.path(),
        "[server]\nauth_failures_per_window = 5\nauth_failure_window_secs = 3\n",
    );
    let server = Bare::start(&data, &cfg, dir.path()).await;
    let key = new_key(&data, "business", "throttled");
    let lists = server.url("/lists");
    for i in 0..5 {
        let wrong = format!("sk_live_{i:0>40}");
        let answer = call("GET", &lists, Some(&wrong), None).await;
        assert_eq!(answer.status, 401, "attempt {i}");
    }
    let refused = call("GET", &lists, Some("sk_live_nope"), None).await;
    assert_eq!(refused.status, 429, "{:?}", refused.body);
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=3).contains(&wait), "Retry-After {wait}");
    let locked = call("GET", &lists, Some(&key), None).await;
    assert_eq!(
        locked.status, 429,
        "a valid key from the same address during the window"
    );

    // Another address is not affected.
    let other = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 9]))
        .build()
        .unwrap();
    let answer = other.get(&lists).bearer_auth(&key).send().await.unwrap();
    assert_eq!(answer.status(), 200);

    // The valid key is let in again once the window ends, not later.
    let started = Instant::now();
    wait_for(
        Duration::from_secs(5),
        "the valid key let in again",
        async || call("GET", &lists, Some(&key), None).await.status == 200,
    )
    .await;
    assert!(started.elapsed() <= Duration::from_secs(wait + 1));
}

/// A client's `x-request-id` is echoed only in the safe charset and length; otherwise it is
/// replaced, and the log never holds the crafted text (so no forged field or line).
#[tokio::test(flavor = "multi_thread")]
async fn request_ids_cannot_forge_log_fields() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cfg = config(dir.path(), "");
    let server = Bare::start(&data, &cfg, dir.path()).await;
    let client = reqwest::Client::new();
    let health = format!("{}/healthz", server.base);
    let echoed = client
        .get(&health)
        .header("x-request-id", "client.id_1-A")
        .send()
        .await
        .unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "client.id_1-A");
    for crafted in [
        "abc status=500 forged=yes",
        "abc\" forged=\"yes",
        &"a".repeat(65),
        "",
    ] {
        let answer = client
            .get(&health)
            .header("x-request-id", crafted)
            .send()
            .await
            .unwrap();
        let id = answer.headers()["x-request-id"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            id.starts_with("req-"),
            "{crafted:?} answered with id {id:?}"
        );
    }
    // A newline cannot be sent in a header through a client: send it raw.
    let mut raw = TcpStream::connect(server.addr).await.unwrap();
    raw.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\nforged=line\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), raw.read_to_end(&mut answer)).await;
    // The last request, logged after the others: the log has caught up once it shows.
    let last = client
        .get(&health)
        .header("x-request-id", "last-one")
        .send()
        .await
        .unwrap();
    assert_eq!(last.status(), 200);
    let log = data.join("sanctions.log");
    wait_for(Duration::from_secs(5), "the log", async || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.contains("last-one"))
    })
    .await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("client.id_1-A"), "{text}");
    assert!(
        !text.contains("forged"),
        "a crafted id reached the log:\n{text}"
    );
}

/// Under umask 022: the data folder 0700; the database, its WAL and shared-memory files and
/// the log 0600; a folder readable by others is reported at start (not refused).
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn files_are_private_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("new/data");
    let cfg = config(dir.path(), "");
    let server = Bare::start(&data, &cfg, dir.path()).await;
    let key = new_key(&data, "free", "modes");
    // A request that writes: the WAL and shared-memory files exist while the server runs.
    let answer = call("GET", &server.url("/lists"), Some(&key), None).await;
    assert_eq!(answer.status, 200);
    assert_eq!(mode(&data), 0o700, "data folder");
    for file in [
        "sanctions.db",
        "sanctions.db-wal",
        "sanctions.db-shm",
        "sanctions.log",
    ] {
        let path = data.join(file);
        assert!(path.exists(), "{file} missing");
        assert_eq!(mode(&path), 0o600, "{file}");
    }
    let stderr = std::fs::read_to_string(&server.stderr).unwrap();
    assert!(!stderr.contains("read by other users"), "{stderr}");
    drop(server);

    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Bare::start(&data, &cfg, dir.path()).await;
    let stderr = std::fs::read_to_string(&server.stderr).unwrap();
    assert!(stderr.contains("can be read by other users"), "{stderr:?}");
}

/// Issue 26, item 5: `ETag` and `Cache-Control` on lists, list updates and the OpenAPI
/// document (a matching `If-None-Match` is a 304); gzip above the size threshold for a client
/// that accepts it; CORS off by default (`OPTIONS` 405, no `Access-Control-*`) and, once
/// configured, answering preflights for the configured origins only.
#[tokio::test(flavor = "multi_thread")]
async fn caching_compression_and_cors() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Bare::start(&data, &config(dir.path(), ""), dir.path()).await;
    let key = new_key(&data, "business", "cache");
    let client = reqwest::Client::builder()
        .no_gzip()
        .no_brotli()
        .build()
        .unwrap();
    for (path, cache) in [
        ("/openapi.json", "public, max-age=3600"),
        ("/lists", "private, no-cache"),
        ("/lists/un/updates", "private, no-cache"),
    ] {
        let first = client
            .get(server.url(path))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(first.status(), 200, "{path}");
        assert_eq!(first.headers()["cache-control"], cache, "{path}");
        let tag = first.headers()["etag"].to_str().unwrap().to_owned();
        let again = client
            .get(server.url(path))
            .bearer_auth(&key)
            .header("if-none-match", &tag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
        assert!(again.bytes().await.unwrap().is_empty());
        let other = client
            .get(server.url(path))
            .bearer_auth(&key)
            .header("if-none-match", "W/\"other\"")
            .send()
            .await
            .unwrap();
        assert_eq!(other.status(), 200, "{path}");
    }

    let plain = client
        .get(server.url("/openapi.json"))
        .send()
        .await
        .unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    let plain_len = plain.bytes().await.unwrap().len();
    let gzipped = client
        .get(server.url("/openapi.json"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gzipped.headers()["content-encoding"], "gzip");
    let gzipped_len = gzipped.bytes().await.unwrap().len();
    assert!(
        gzipped_len * 4 < plain_len,
        "{gzipped_len} of {plain_len} bytes"
    );
    // Brotli when the client prefers it, decoding to the same document.
    let brotli = client
        .get(server.url("/openapi.json"))
        .header("accept-encoding", "br;q=1.0, gzip;q=0.5")
        .send()
        .await
        .unwrap();
    assert_eq!(brotli.headers()["content-encoding"], "br");
    let brotli_len = brotli.bytes().await.unwrap().len();
    assert!(
        brotli_len < gzipped_len,
        "brotli {brotli_len} bytes, gzip {gzipped_len}"
    );
    let decoding = reqwest::Client::builder().brotli(true).build().unwrap();
    let decoded = decoding
        .get(server.url("/openapi.json"))
        .header("accept-encoding", "br")
        .send()
        .await
        .unwrap();
    assert_eq!(decoded.bytes().await.unwrap().len(), plain_len);
    // A small answer is not compressed.
    let small = client
        .get(format!("{}/healthz", server.base))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert!(small.headers().get("content-encoding").is_none());

    let preflight = async |base: &str, origin: &str| {
        client
            .request(reqwest::Method::OPTIONS, format!("{base}/api/v1/lists"))
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .header("access-control-request-headers", "authorization")
            .send()
            .await
            .unwrap()
    };
    let off = preflight(&server.base, "https://app.example.com").await;
    assert_eq!(off.status(), 405);
    assert!(off.headers().get("access-control-allow-origin").is_none());
    drop(server);

    let cfg = config(
        dir.path(),
        "[server]\ncors_origins = [\"https://app.example.com\"]\n",
    );
    let server = Bare::start(&data, &cfg, dir.path()).await;
    let on = preflight(&server.base, "https://app.example.com").await;
    assert!(on.status().is_success(), "{}", on.status());
    assert_eq!(
        on.headers()["access-control-allow-origin"],
        "https://app.example.com"
    );
    let other = preflight(&server.base, "https://evil.example").await;
    assert!(other.headers().get("access-control-allow-origin").is_none());
    let answer = client
        .get(server.url("/lists"))
        .bearer_auth(&key)
        .header("origin", "https://app.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(
        answer.headers()["access-control-allow-origin"],
        "https://app.example.com"
    );
}
