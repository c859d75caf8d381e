//! A real `sanctions serve` on 127.0.0.1 (ephemeral port) over a data folder, and a small
//! HTTP client for its JSON envelopes.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running server; killed when dropped.
pub struct Serve {
    child: Child,
    pub base: String,
}

impl Serve {
    /// Starts `sanctions serve --bind 127.0.0.1:0` and returns once it listens (it may not be
    /// ready: `/readyz` answers 503 until the index is built).
    pub fn spawn(data_dir: &Path, config: Option<&Path>) -> Serve {
        let mut command = Command::new(env!("CARGO_BIN_EXE_sanctions"));
        command.arg("--data-dir").arg(data_dir);
        match config {
            Some(config) => {
                command.arg("--config").arg(config);
            }
            // No feed is read from the internet: tests talk to loopback only.
            None => {
                command.arg("--config").arg(offline_config(data_dir));
            }
        }
        // The tests of one binary share one data folder (`data()`) and run at once: each
        // server says that it shares it (a second one is refused otherwise).
        let mut child = command
            .args(["serve", "--bind", "127.0.0.1:0", "--share-data-dir"])
            .stdin(Stdio::null())
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
        Serve { child, base }
    }

    /// Starts `sanctions serve --bind 127.0.0.1:0` and waits until `/readyz` answers 200.
    pub async fn start(data_dir: &Path, config: Option<&Path>) -> Serve {
        let serve = Serve::spawn(data_dir, config);
        let started = Instant::now();
        loop {
            let status = reqwest::get(format!("{}/readyz", serve.base))
                .await
                .map(|r| r.status().as_u16())
                .ok();
            if status == Some(200) {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(300), "never ready");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        serve
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `{base}/api/v1{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.base)
    }

    /// Stops it with SIGTERM and waits for a clean exit.
    pub fn stop(mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = self.child.wait().unwrap();
        assert!(exit.success(), "serve exited with {exit}");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer: status, headers and the JSON body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    }

    /// `message` of a failure envelope (asserting its shape).
    pub fn message(&self) -> String {
        assert_eq!(self.body["success"], false, "{:?}", self.body);
        self.body["message"].as_str().unwrap().to_owned()
    }

    /// `data` of a success envelope (asserting its shape).
    pub fn data(&self) -> &Value {
        assert_eq!(
            self.body["success"], true,
            "{} {:?}",
            self.status, self.body
        );
        &self.body["data"]
    }
}

/// Sends one request; `body` is `(content type, bytes)`.
pub async fn call(
    method: &str,
    url: &str,
    key: Option<&str>,
    body: Option<(&str, Vec<u8>)>,
) -> Answer {
    let client = reqwest::Client::new();
    let mut request = client.request(method.parse().unwrap(), url);
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    if let Some((kind, bytes)) = body {
        request = request.header("content-type", kind).body(bytes);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON ({status}): {}", String::from_utf8_lossy(&bytes)));
    Answer {
        status,
        headers,
        body,
    }
}

/// A JSON body.
pub fn json_body(value: Value) -> Option<(&'static str, Vec<u8>)> {
    Some(("application/json", serde_json::to_vec(&value).unwrap()))
}

/// A new key of `plan` made with `sanctions keys create`.
pub fn new_key(data_dir: &Path, plan: &str, label: &str) -> String {
    let out = super::sanctions(
        data_dir,
        &["keys", "create", "--plan", plan, "--label", label, "--json"],
    );
    super::json(&out)["key"].as_str().unwrap().to_owned()
}

/// One data folder with the eight real lists imported, shared by the tests of one binary
/// (every module of `tests/server`, say): each test makes its own keys and accounts in it.
pub fn data() -> &'static Path {
    static DATA: OnceLock<tempfile::TempDir> = OnceLock::new();
    DATA.get_or_init(|| {
        let shared = super::shared_data();
        let data = tempfile::tempdir().unwrap();
        let out = super::sanctions(
            data.path(),
            &["lists", "import", shared.join("lists").to_str().unwrap()],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        data
    })
    .path()
}

/// The first `GET /briefs` after importing all eight lists briefs every entry they added, which
/// a debug build on a loaded 2-core machine can take longer than the 30 s request timeout to
/// do; the tests are about answers, not about that time.
const SLOW_MACHINE: &str = "[server]\nrequest_timeout_secs = 300\n";

/// A config file in `dir` that reads no risk-brief feed (the defaults are on the internet).
/// The tests of a binary run at once on one `data()` folder: the file is written beside and
/// renamed over, so a server starting meanwhile never reads it half written.
pub fn offline_config(dir: &Path) -> PathBuf {
    let path = dir.join("offline.toml");
    let mut file = tempfile::NamedTempFile::new_in(dir).unwrap();
    file.write_all(format!("[briefs]\nfeeds = []\n{SLOW_MACHINE}").as_bytes())
        .unwrap();
    file.persist(&path).unwrap();
    path
}

/// A config file in `dir` with `text`, reading no feed unless `text` has a `[briefs]` section.
pub fn config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("config.toml");
    let offline = if text.contains("[briefs]") {
        ""
    } else {
        "\n[briefs]\nfeeds = []\n"
    };
    let slow = if text.contains("[server]") {
        ""
    } else {
        SLOW_MACHINE
    };
    std::fs::write(&path, format!("{text}{offline}{slow}")).unwrap();
    path
}

/// Asserts the three `X-RateLimit-*` headers are there, as integers.
pub fn rate_headers(answer: &Answer) {
    for name in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ] {
        let value = answer.header(name);
        assert!(
            value.as_deref().is_some_and(|v| v.parse::<i64>().is_ok()),
            "{name} missing on {} {:?}",
            answer.status,
            answer.body
        );
    }
}
