//! `sanctions lists update` end to end: the real binary downloading the real list files from a
//! real HTTP server on 127.0.0.1 that plays the publishers.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;
use std::process::Output;

use common::server::{self, Files};
use serde_json::Value;

/// (list code, name the downloader asks for, file under ../shared/data/lists/<code>/).
const SERVED: &[(&str, &str, &str)] = &[
    ("ofac_sdn", "sdn.csv", "sdn.csv"),
    ("ofac_sdn", "add.csv", "add.csv"),
    ("ofac_sdn", "alt.csv", "alt.csv"),
    ("ofac_sdn", "sdn_comments.csv", "sdn_comments.csv"),
    ("ofac_cons", "cons_prim.csv", "cons_prim.csv"),
    ("ofac_cons", "cons_add.csv", "cons_add.csv"),
    ("ofac_cons", "cons_alt.csv", "cons_alt.csv"),
    ("ofac_cons", "cons_comments.csv", "cons_comments.csv"),
    (
        "eu",
        "xmlFullSanctionsList_1_1.xml",
        "PARTIAL_REPAIRED_fsf_xml_1_1_2022-03-18.xml",
    ),
    ("un", "consolidated.xml", "consolidated.xml"),
    ("ca_sema", "sema-lmes.xml", "sema-lmes.xml"),
    (
        "au_dfat",
        "regulation8_consolidated.xlsx",
        "regulation8_consolidated.xlsx",
    ),
    ("world_bank", "SANCTIONED_FIRM.json", "SANCTIONED_FIRM.json"),
];

/// The FCDO UK Sanctions List in XML, which `lists update` fetches for the UK: only a
/// hand-made file in its format is at hand (`tests/fixtures`).
const FCDO: (&str, &str) = (
    "uk_hmt/UK-Sanctions-List.xml",
    "uk_hmt/fcdo_xml/UK-Sanctions-List.xml",
);

const LISTS: &str = "ofac_sdn,ofac_cons,eu,un,uk_hmt,ca_sema,au_dfat,world_bank";

async fn sanctions(data_dir: &Path, mirror: &str, args: &[&str]) -> Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_sanctions"));
    command
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env("SANCTIONS_MIRROR", mirror)
        .env_remove("RUST_BACKTRACE");
    command.output().await.unwrap()
}

fn lines(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn line_of<'a>(text: &'a str, code: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(code))
        .unwrap_or_else(|| panic!("no line for {code} in:\n{text}"))
}

async fn count(data_dir: &Path, mirror: &str, code: &str) -> u64 {
    let out = sanctions(data_dir, mirror, &["lists", "--json"]).await;
    let lists: Value = serde_json::from_slice(&out.stdout).unwrap();
    lists
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["code"] == code)
        .and_then(|l| l["count"].as_u64())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_imports_then_asks_only_for_changes() {
    let shared = common::shared_data();
    let files = Files::default();
    for (code, name, source) in SERVED {
        let bytes = std::fs::read(shared.join("lists").join(code).join(source)).unwrap();
        files.put(&format!("{code}/{name}"), bytes);
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    files.put(FCDO.0, std::fs::read(fixtures.join(FCDO.1)).unwrap());
    let addr = server::start(files.clone()).await;
    let mirror = format!("http://{addr}");
    let data = tempfile::tempdir().unwrap();

    let first = sanctions(data.path(), &mirror, &["lists", "update", "--list", LISTS]).await;
    let text = lines(&first);
    assert!(
        first.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&first.stderr)
    );
    for code in LISTS.split(',') {
        assert!(line_of(&text, code).contains("imported"), "{text}");
    }
    assert_eq!(count(data.path(), &mirror, "un").await, 1_003);
    assert_eq!(count(data.path(), &mirror, "au_dfat").await, 3_062);
    assert_eq!(count(data.path(), &mirror, "uk_hmt").await, 3);
    assert_eq!(files.statuses(FCDO.0), [200]);

    // Nothing changed at the publishers: conditional requests, no import.
    let second = sanctions(data.path(), &mirror, &["lists", "update", "--list", LISTS]).await;
    let text = lines(&second);
    assert!(second.status.success(), "{text}");
    for code in LISTS.split(',') {
        assert!(line_of(&text, code).contains("unchanged"), "{text}");
    }
    assert_eq!(files.statuses("un/consolidated.xml"), [200, 304]);

    // The EU publishes a broken file: the EU fails and keeps its data, the others go on.
    let broken =
        std::fs::read(shared.join("bad/eu/PARTIAL_TRUNCATED_fsf_xml_1_1_generated_2022-03-18.xml"))
            .unwrap();
    files.put("eu/xmlFullSanctionsList_1_1.xml", broken);
    let third = sanctions(data.path(), &mirror, &["lists", "update", "--list", LISTS]).await;
    let text = lines(&third);
    assert!(
        !third.status.success(),
        "a failed list makes the exit status non-zero"
    );
    assert!(line_of(&text, "eu").contains("FAILED"), "{text}");
    assert!(line_of(&text, "un").contains("unchanged"), "{text}");
    assert_eq!(count(data.path(), &mirror, "eu").await, 1_024);
    // The failure is in the EU's history: when, the file refused with its sha256, and why.
    let history = sanctions(data.path(), &mirror, &["lists", "updates", "eu", "--json"]).await;
    let history: Value = serde_json::from_slice(&history.stdout).unwrap();
    let failed = &history[0];
    assert!(
        failed["failed"].as_str().unwrap().contains("malformed XML"),
        "{failed}"
    );
    assert_eq!(failed["total"], 1_024);
    assert_eq!(failed["files"][0]["name"], "xmlFullSanctionsList_1_1.xml");
    assert_eq!(
        failed["files"][0]["sha256"],
        "f7ccc796598f1b9ebe5121aa3aff472721c5ea0145326cfcd9707f330ecfddd0"
    );
    assert!(history[1]["failed"].is_null());

    // The publisher is unreachable for one list: that list fails, with the address.
    let fourth = sanctions(
        data.path(),
        &mirror,
        &["lists", "update", "--list", "ofac_sdn,un"],
    )
    .await;
    assert!(fourth.status.success(), "{}", lines(&fourth));
    let dead = sanctions(
        data.path(),
        "http://127.0.0.1:9",
        &["lists", "update", "--list", "un"],
    )
    .await;
    assert!(!dead.status.success());
    assert!(
        line_of(&lines(&dead), "un").contains("127.0.0.1:9"),
        "{}",
        lines(&dead)
    );
    assert_eq!(count(data.path(), &mirror, "un").await, 1_003);
}
