//! The real binary on hand-made fixture lists: coverage, exit codes, help, errors and the JSON
//! shapes (snapshots).
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::Output;

use common::fixtures::{code, fixture, stderr, un_only};
use common::{sanctions, sanctions_with_stdin, stdout};
use serde_json::Value;

#[test]
fn partial_coverage_is_refused_unless_allowed() {
    let data = un_only();
    let refused = sanctions(data.path(), &["screen", "Mohammed Zidane"]);
    assert_eq!(code(&refused), 4, "{}", stderr(&refused));
    assert!(stdout(&refused).is_empty());
    assert!(
        stderr(&refused).contains("--allow-partial"),
        "{}",
        stderr(&refused)
    );
    assert!(
        stderr(&refused).contains("OFAC SDN (ofac_sdn)"),
        "{}",
        stderr(&refused)
    );
    // A named list without data is refused too, even alone.
    let empty_list = sanctions(
        data.path(),
        &["screen", "Mohammed Zidane", "--lists", "ofac_sdn"],
    );
    assert_eq!(code(&empty_list), 4);

    let allowed = sanctions(
        data.path(),
        &["screen", "Nobody Atall", "--allow-partial", "--json"],
    );
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    let result: Value = serde_json::from_slice(&allowed.stdout).unwrap();
    let coverage = &result["coverage"];
    assert_eq!(coverage["complete"], false);
    assert_eq!(coverage["missing"].as_array().unwrap().len(), 7);
    assert_eq!(coverage["entries_searched"], 3);
    let un = &coverage["lists"][3];
    assert_eq!(
        (un["list_code"].as_str(), un["status"].as_str()),
        (Some("un"), Some("ok"))
    );
    assert_eq!(un["update_id"], 1);
    assert_eq!(un["published"], "2026-02-27");
    assert!(un["imported_at"].is_string());

    // Text: the denominator counts what was searched, and the lists not checked are named.
    let text = stdout(&sanctions(
        data.path(),
        &["screen", "Nobody Atall", "--allow-partial"],
    ));
    assert!(text.contains("searched 3 entries of 1 list"), "{text}");
    assert!(text.contains("NOT CHECKED: no data"), "{text}");
    let only_un = stdout(&sanctions(
        data.path(),
        &[
            "screen",
            "Nobody Atall",
            "--lists",
            "un",
            "--type",
            "entity",
        ],
    ));
    assert!(
        only_un.contains("searched 1 entries of 1 list"),
        "{only_un}"
    );

    // Batch likewise.
    let batch = sanctions_with_stdin(data.path(), &["batch", "-"], "Nobody Atall\n");
    assert_eq!(code(&batch), 4);
    let batch = sanctions_with_stdin(
        data.path(),
        &["batch", "-", "--lists", "un"],
        "Nobody Atall\n",
    );
    assert_eq!(code(&batch), 0, "{}", stderr(&batch));
}

#[test]
fn names_with_nothing_to_screen_are_refused() {
    let data = un_only();
    for name in ["Mr", ".", "LLC", "al", " "] {
        let out = sanctions(data.path(), &["screen", name, "--lists", "un"]);
        assert_eq!(code(&out), 2, "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains("cannot screen"), "{}", stderr(&out));
    }
}

#[test]
fn exit_codes_are_the_documented_ones() {
    let data = un_only();
    let un = ["--lists", "un"];
    let found = sanctions(
        data.path(),
        &[&["screen", "AL-QAIDA", "--fail-on-match"][..], &un].concat(),
    );
    assert_eq!(code(&found), 1, "{}", stdout(&found));
    let none = sanctions(
        data.path(),
        &[&["screen", "Nobody Atall", "--fail-on-match"][..], &un].concat(),
    );
    assert_eq!(code(&none), 0);
    let found_plain = sanctions(data.path(), &[&["screen", "AL-QAIDA"][..], &un].concat());
    assert_eq!(code(&found_plain), 0);
    assert_eq!(
        code(&sanctions(
            data.path(),
            &["screen", "x", "--threshold", "101"]
        )),
        2
    );
    assert_eq!(
        code(&sanctions(data.path(), &["screen", "x", "--limit", "0"])),
        2
    );
    assert_eq!(code(&sanctions(data.path(), &["show", "un:nope"])), 3);
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        code(&sanctions(empty.path(), &["screen", "Vladimir Putin"])),
        3
    );
    let batch = sanctions_with_stdin(
        data.path(),
        &["batch", "-", "--lists", "un", "--fail-on-match"],
        "AL-QAIDA\n",
    );
    assert_eq!(code(&batch), 1);
}

#[test]
fn words_without_quotes_are_joined() {
    let data = un_only();
    let out = sanctions(
        data.path(),
        &[
            "screen",
            "Mohammed",
            "Salahaldin",
            "Zidane",
            "--lists",
            "un",
            "--json",
        ],
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["query"], "Mohammed Salahaldin Zidane");
    assert_eq!(result["results"][0]["entity_id"], "un:113219");
}

#[test]
fn help_is_complete_and_shown_without_arguments() {
    let data = un_only();
    let bare = sanctions(data.path(), &[]);
    assert_eq!(code(&bare), 0);
    assert!(
        stdout(&bare).contains("Usage: sanctions"),
        "{}",
        stdout(&bare)
    );
    assert!(stdout(&bare).contains("Exit codes"), "{}", stdout(&bare));
    let help = stdout(&sanctions(data.path(), &["screen", "--help"]));
    for expected in [
        "[default: 78]",
        "[default: 10]",
        "0-100",
        "1-500",
        "--allow-partial",
        "--fail-on-match",
        "[default: 7]",
    ] {
        assert!(help.contains(expected), "{expected} missing from\n{help}");
    }
    let batch_help = stdout(&sanctions(data.path(), &["batch", "--help"]));
    assert!(batch_help.contains("--column"), "{batch_help}");
}

#[test]
fn entity_ids_take_any_case_in_the_list_code() {
    let data = un_only();
    let out = sanctions(data.path(), &["show", "UN:113219", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["entity_id"], "un:113219");
}

#[test]
fn stale_lists_are_named_but_still_checked() {
    let data = un_only();
    let conn = rusqlite::Connection::open(data.path().join("sanctions.db")).unwrap();
    conn.execute(
        "UPDATE lists SET updated_at = '2020-01-01T00:00:00Z' WHERE code = 'un'",
        [],
    )
    .unwrap();
    drop(conn);
    let out = sanctions(
        data.path(),
        &["screen", "Nobody Atall", "--lists", "un", "--json"],
    );
    assert_eq!(code(&out), 0);
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["coverage"]["stale"], serde_json::json!(["un"]));
    assert_eq!(result["coverage"]["lists"][0]["status"], "stale");
    assert!(stderr(&out).contains("stale"), "{}", stderr(&out));
    let text = sanctions(
        data.path(),
        &[
            "screen",
            "Nobody Atall",
            "--lists",
            "un",
            "--max-age",
            "5000",
        ],
    );
    assert_eq!(code(&text), 2, "the age is bounded");
    let text = stdout(&sanctions(
        data.path(),
        &["screen", "Nobody Atall", "--lists", "un"],
    ));
    assert!(text.contains("STALE"), "{text}");
}

/// Volatile values (times, temporary folders) replaced so that snapshots hold only shapes and
/// stable data.
fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if matches!(
                    key.as_str(),
                    "updated_at" | "imported_at" | "at" | "origin" | "reason"
                ) && !v.is_null()
                {
                    *v = Value::String("[redacted]".into());
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

fn json_of(out: &Output) -> Value {
    assert!(out.status.success(), "{}", stderr(out));
    let mut value: Value = serde_json::from_slice(&out.stdout).unwrap();
    redact(&mut value);
    value
}

#[test]
fn json_shapes_are_stable() {
    let layout = tempfile::tempdir().unwrap();
    for code in ["un", "world_bank"] {
        std::os::unix::fs::symlink(fixture(code, "good"), layout.path().join(code)).unwrap();
    }
    let data = tempfile::tempdir().unwrap();
    // One list at a time: update ids in a known order.
    let dir = layout.path().to_str().unwrap();
    let import = sanctions(
        data.path(),
        &["lists", "import", dir, "--list", "un", "--json"],
    );
    insta::assert_json_snapshot!("lists_import", json_of(&import));
    let import = sanctions(
        data.path(),
        &["lists", "import", dir, "--list", "world_bank"],
    );
    assert!(import.status.success());
    insta::assert_json_snapshot!(
        "lists",
        json_of(&sanctions(data.path(), &["lists", "--json"]))
    );
    insta::assert_json_snapshot!(
        "lists_updates",
        json_of(&sanctions(
            data.path(),
            &["lists", "updates", "un", "--json"]
        ))
    );
    insta::assert_json_snapshot!(
        "show",
        json_of(&sanctions(data.path(), &["show", "un:113219", "--json"]))
    );
    let mut screen = json_of(&sanctions(
        data.path(),
        &[
            "screen",
            "Mohammed Salahaldin Zidane",
            "--allow-partial",
            "--json",
        ],
    ));
    // `screen` stores its screening and answers its id (new each run).
    assert!(
        screen["id"].as_str().unwrap().starts_with("scr_"),
        "{screen}"
    );
    screen["id"] = Value::String("[screening id]".into());
    insta::assert_json_snapshot!("screen", screen);
    let batch = sanctions_with_stdin(
        data.path(),
        &["batch", "-", "--lists", "un,world_bank", "--json"],
        "qid,name,type\nc1,AL-QAIDA,entity\nc2,Mr,\n",
    );
    assert_eq!(code(&batch), 3, "one row not screened");
    let lines: Vec<Value> = stdout(&batch)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            redact(&mut v);
            v
        })
        .collect();
    insta::assert_json_snapshot!("batch_lines", lines);
    let error: Value = serde_json::from_str(stderr(&batch).trim()).unwrap();
    insta::assert_json_snapshot!("batch_error", error);
}
