//! Several `sanctions serve` processes on one PostgreSQL database (a fresh schema of the test
//! server): screenings spread across three instances, one killed with SIGKILL mid-run, a
//! list update imported through the command line meanwhile. At the end every screening
//! answered 200 is readable from every surviving instance, the update is visible on each of
//! them within 2 s, a Free key gets 10 requests per minute across the instances together,
//! and a key revoked once is refused by all of them at once.
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::conformance;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::serve::{Serve, call, json_body};

/// A data folder for one instance, its config naming the shared database.
struct Instance {
    dir: tempfile::TempDir,
    config: PathBuf,
}

fn instance(url: &str) -> Instance {
    let dir = tempfile::tempdir().unwrap();
    let config = common::serve::config(dir.path(), &format!("[store]\nurl = \"{url}\"\n"));
    Instance { dir, config }
}

/// Runs the command line against `at`'s config; its standard output, or a failure.
fn cli(at: &Instance, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(at.dir.path())
        .arg("--config")
        .arg(&at.config)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A folder `<code>/` linking to `source` for each list given.
fn layout(lists: &[(&str, &Path)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (code, source) in lists {
        std::os::unix::fs::symlink(source, dir.path().join(code)).unwrap();
    }
    dir
}

/// The OFAC SDN update id an instance answers from (`GET /lists`).
async fn sdn_update(serve: &Serve, key: &str) -> Option<i64> {
    let answer = call("GET", &serve.url("/lists"), Some(key), None).await;
    let lists = answer.data().as_array().cloned().unwrap_or_default();
    lists
        .iter()
        .find(|l| l["code"] == "ofac_sdn")
        .and_then(|l| l["update_id"].as_i64())
}

#[test]
fn three_instances_share_one_postgres_database() {
    // The schema is made and dropped outside the runtime (its client blocks).
    let schema = conformance::Schema::create();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(three_instances(schema.url()));
}

async fn three_instances(url: String) {
    let shared = common::shared_data();
    let nodes: Vec<Instance> = (0..3).map(|_| instance(&url)).collect();

    // The older OFAC SDN edition and the UN list, then three instances.
    let older = shared.join("editions/ofac_sdn/consistent_2023-12-28");
    let first = layout(&[("ofac_sdn", &older), ("un", &shared.join("lists/un"))]);
    cli(
        &nodes[0],
        &["lists", "import", first.path().to_str().unwrap()],
    );
    let created = cli(
        &nodes[0],
        &[
            "keys",
            "create",
            "--account",
            "acme",
            "--plan",
            "business",
            "--label",
            "ci",
            "--json",
        ],
    );
    let key: serde_json::Value = serde_json::from_str(&created).unwrap();
    let key = key["key"].as_str().unwrap().to_owned();
    let mut serves = Vec::new();
    for node in &nodes {
        serves.push(Serve::start(node.dir.path(), Some(&node.config)).await);
    }
    let before = sdn_update(&serves[1], &key).await;
    assert!(before.is_some(), "OFAC SDN imported before the run");

    // Screenings spread across the three; the third is killed half-way.
    let names = [
        "Vladimir Putin",
        "Banco Nacional de Cuba",
        "Usama bin Ladin",
        "Kim Jong Un",
    ];
    let mut stored = Vec::new();
    for i in 0..24 {
        if i == 12 {
            Command::new("kill")
                .args(["-9", &serves[2].pid().to_string()])
                .status()
                .unwrap();
        }
        if i % 3 == 2 && i >= 12 {
            continue; // the killed instance answers nothing
        }
        let serve = &serves[i % 3];
        let body = json_body(serde_json::json!({
            "name": names[i % names.len()],
            "lists": ["ofac_sdn", "un"],
        }));
        let answer = call("POST", &serve.url("/screen"), Some(&key), body).await;
        if answer.status == 200 {
            stored.push(answer.data()["id"].as_str().unwrap().to_owned());
        }
    }
    assert!(stored.len() >= 16, "{} screenings stored", stored.len());

    // A list update through the command line: every surviving instance answers from it
    // within 2 s.
    let current = layout(&[("ofac_sdn", &shared.join("lists/ofac_sdn"))]);
    cli(
        &nodes[1],
        &[
            "lists",
            "import",
            current.path().to_str().unwrap(),
            "--allow-shrink",
        ],
    );
    let imported = Instant::now();
    for serve in &serves[..2] {
        loop {
            let now = sdn_update(serve, &key).await;
            if now != before {
                break;
            }
            assert!(
                imported.elapsed() < Duration::from_secs(2),
                "{} still answers from update {before:?} 2 s after the import",
                serve.base
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    // Every screening answered 200 is readable from every surviving instance.
    for id in &stored {
        for serve in &serves[..2] {
            let answer = call(
                "GET",
                &serve.url(&format!("/screen/{id}")),
                Some(&key),
                None,
            )
            .await;
            assert_eq!(
                answer.status, 200,
                "{id} on {}: {:?}",
                serve.base, answer.body
            );
        }
    }

    // A Free key gets its 10 requests per minute across the instances together. Started
    // early in a minute, so the burst cannot straddle two windows.
    let created = cli(
        &nodes[0],
        &[
            "keys",
            "create",
            "--account",
            "small",
            "--plan",
            "free",
            "--label",
            "f",
            "--json",
        ],
    );
    let free: serde_json::Value = serde_json::from_str(&created).unwrap();
    let free = free["key"].as_str().unwrap().to_owned();
    while jiff::Timestamp::now().as_second().rem_euclid(60) > 40 {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut served = 0;
    for i in 0..16 {
        let answer = call("GET", &serves[i % 2].url("/lists"), Some(&free), None).await;
        match answer.status {
            200 => served += 1,
            429 => {}
            other => panic!("{other}: {:?}", answer.body),
        }
    }
    assert_eq!(served, 10, "a Free key across two instances");

    // A key revoked once is refused by every instance at once.
    let listed = cli(&nodes[0], &["keys", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let id = listed
        .as_array()
        .and_then(|keys| keys.iter().find(|k| k["label"] == "ci"))
        .and_then(|k| k["id"].as_str())
        .unwrap()
        .to_owned();
    cli(&nodes[0], &["keys", "revoke", &id]);
    for serve in &serves[..2] {
        let answer = call("GET", &serve.url("/lists"), Some(&key), None).await;
        assert_eq!(answer.status, 401, "{}", serve.base);
    }
}
