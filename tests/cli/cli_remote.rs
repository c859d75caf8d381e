//! The real binary with `--remote` against a real `sanctions serve` on 127.0.0.1: the same
//! answers as on the local data folder, the key from `SANCTIONS_API_KEY`, local-only
//! commands refused, and a server's refusals as the documented exit codes.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::serve::{Serve, new_key};
use serde_json::Value;

/// Runs the binary against `url` with `key` in `SANCTIONS_API_KEY`, from an empty data folder
/// (so nothing can come from a local store).
fn remote(url: &str, key: Option<&str>, args: &[&str], stdin: &str) -> Output {
    let empty = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_sanctions"));
    command
        .arg("--data-dir")
        .arg(empty.path())
        .arg("--remote")
        .arg(url)
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .env_remove("SANCTIONS_API_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match key {
        Some(key) => command.env("SANCTIONS_API_KEY", key),
        None => command.env_remove("SANCTIONS_API_KEY"),
    };
    let mut child = command.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The JSON of a screening without what differs between two runs (its id).
fn without_id(mut value: Value) -> Value {
    assert!(value["id"].as_str().unwrap().starts_with("scr_"), "{value}");
    value["id"] = Value::Null;
    value
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_works_the_same_against_a_server() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let out = common::sanctions(
        data.path(),
        &["lists", "import", shared.join("lists").to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let server = Serve::start(data.path(), None).await;
    let key = new_key(data.path(), "business", "analyst");
    let url = server.base.as_str();
    let k = Some(key.as_str());

    // The same answers as on the local folder, but for the origin of a list update: the
    // server never shows its own folders (`import: <files>` instead of `import <folder>`).
    for args in [
        &["lists", "--json"][..],
        &["lists", "updates", "un", "--json"],
        &["show", "ofac_sdn:306", "--json"],
    ] {
        let mut here = common::json(&common::sanctions(data.path(), args));
        let mut there = common::json(&remote(url, k, args, ""));
        if args[1] == "updates" {
            let origin = there[0]["origin"].as_str().unwrap().to_owned();
            assert_eq!(origin, "import: consolidated.xml");
            here[0]["origin"] = Value::Null;
            there[0]["origin"] = Value::Null;
        }
        assert_eq!(here, there, "{args:?}");
    }
    let screen = [
        "screen",
        "Vladimir",
        "Putin",
        "--type",
        "individual",
        "--json",
    ];
    let here = without_id(common::json(&common::sanctions(data.path(), &screen)));
    let there_out = remote(url, k, &screen, "");
    let there = common::json(&there_out);
    let id = there["id"].as_str().unwrap().to_owned();
    assert_eq!(here, without_id(there));

    // The stored screening is on the server, listed and shown with its id.
    let stored = common::json(&remote(url, k, &["screenings", "show", &id, "--json"], ""));
    assert_eq!(stored["id"], id.as_str());
    assert!(
        stored["created_by"]
            .as_str()
            .unwrap()
            .starts_with("api:analyst (key_"),
        "{stored}"
    );
    let text = remote(url, k, &["screen", "Kim Jong Un"], "");
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(
        common::stdout(&text).contains("screening scr_"),
        "{}",
        common::stdout(&text)
    );
    let listing = remote(url, k, &["lists"], "");
    assert!(common::stdout(&listing).contains(&format!("server: {url}")));

    // A batch goes through screen_batch: each line names its stored screening.
    let batch = remote(
        url,
        k,
        &["batch", "-", "--json"],
        "name\nKim Jong Un\nZzyzx Quortlebee\n",
    );
    assert!(batch.status.success(), "{}", stderr(&batch));
    let lines: Vec<Value> = common::stdout(&batch)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["total_matches"].as_u64().unwrap() >= 1);
    assert_eq!(lines[1]["total_matches"], 0);
    for line in &lines {
        assert!(line["screening_id"].as_str().unwrap().starts_with("scr_"));
    }

    // Local-only commands are refused (usage, exit 2), naming the server.
    let import = remote(url, k, &["lists", "import", "/nowhere"], "");
    assert_eq!(import.status.code(), Some(2), "{}", stderr(&import));
    assert!(stderr(&import).contains("local data folder only"));

    // Refusals of the server: no key (401), an unknown entry (404), exit 3 with its message.
    let denied = remote(url, None, &["lists"], "");
    assert_eq!(denied.status.code(), Some(3), "{}", stderr(&denied));
    let unknown = remote(url, k, &["show", "ofac_sdn:999999999"], "");
    assert_eq!(unknown.status.code(), Some(3));
    assert!(
        stderr(&unknown).contains("no entry"),
        "{}",
        stderr(&unknown)
    );
    // A server that is not there.
    let away = remote("http://127.0.0.1:9", k, &["lists"], "");
    assert_eq!(away.status.code(), Some(3));
    assert!(stderr(&away).contains("cannot reach http://127.0.0.1:9"));
    // The key never shows in what the program prints.
    for out in [&there_out, &text, &denied] {
        assert!(!stderr(out).contains(&key) && !common::stdout(out).contains(&key));
    }
    server.stop();
}
