//! The real binary on hand-made fixture lists: coverage, exit codes, safe output, closed
//! pipes, errors, the read-only folder and the JSON shapes (snapshots).
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{sanctions, sanctions_with_stdin, stdout};
use serde_json::Value;

fn fixture(list: &str, variant: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{list}/{variant}"))
}

/// A data folder with `lists` (code, fixture variant) imported.
fn data_with(lists: &[(&str, &str)]) -> tempfile::TempDir {
    let layout = tempfile::tempdir().unwrap();
    for (code, variant) in lists {
        std::os::unix::fs::symlink(fixture(code, variant), layout.path().join(code)).unwrap();
    }
    let data = tempfile::tempdir().unwrap();
    let out = sanctions(
        data.path(),
        &["lists", "import", layout.path().to_str().unwrap()],
    );
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    data
}

fn un_only() -> tempfile::TempDir {
    data_with(&[("un", "good")])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}

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
fn stale_lists_are_named() {
    let data = un_only();
    // Everything is stale if the allowed age is... no list can be older than 0 days, so use
    // the store's own time: an import "now" is fresh at the default age.
    let fresh: Value = serde_json::from_slice(
        &sanctions(
            data.path(),
            &["screen", "Nobody Atall", "--lists", "un", "--json"],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(fresh["coverage"]["stale"], serde_json::json!([]));
    assert_eq!(fresh["coverage"]["max_age_days"], 7);
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
fn user_errors_never_print_a_backtrace() {
    let data = un_only();
    let out = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .args([
            "--data-dir",
            data.path().to_str().unwrap(),
            "show",
            "un:nope",
        ])
        .env("RUST_BACKTRACE", "full")
        .env("RUST_LIB_BACKTRACE", "1")
        .output()
        .unwrap();
    assert_eq!(code(&out), 3);
    let err = stderr(&out);
    assert!(err.starts_with("error: no entry un:nope"), "{err}");
    assert!(
        !err.contains("BACKTRACE") && !err.contains("Location"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // --debug keeps the full report for real bugs.
    let debug = sanctions(data.path(), &["show", "un:nope", "--debug"]);
    assert!(stderr(&debug).lines().count() > 1, "{}", stderr(&debug));
}

#[test]
fn errors_are_json_on_stderr_with_json() {
    let data = un_only();
    for (args, exit) in [
        (&["show", "un:nope", "--json"][..], 3),
        (&["screen", "x", "--threshold", "500", "--json"][..], 2),
        (&["screen", "Mr", "--json"][..], 2),
        (&["screen", "Someone Else", "--json"][..], 4),
    ] {
        let out = sanctions(data.path(), args);
        assert_eq!(code(&out), exit, "{args:?}");
        assert!(out.stdout.is_empty());
        let error: Value = serde_json::from_str(stderr(&out).trim()).unwrap();
        assert!(error["error"].is_string(), "{error}");
        assert_eq!(error["exit_code"], exit);
    }
}

/// Runs `sanctions ARGS | CONSUMER` in bash with pipefail: the pipeline's status is the
/// program's when the consumer succeeds.
fn piped(data: &Path, args: &str, consumer: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; \"$0\" --data-dir \"$1\" {args} | {consumer}"
        ))
        .arg(env!("CARGO_BIN_EXE_sanctions"))
        .arg(data)
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let data = data_with(&[("un", "good"), ("eu", "good"), ("world_bank", "good")]);
    for (args, consumer) in [
        ("lists", "true"),
        ("show un:113219", "head -1"),
        ("lists updates un", "true"),
        ("screen AL-QAIDA --lists un --threshold 10", "head -1"),
        ("show un:113219 --json", "true"),
    ] {
        for _ in 0..3 {
            let out = piped(data.path(), args, consumer);
            assert_eq!(code(&out), 0, "{args} | {consumer}: {}", stderr(&out));
            assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
        }
    }
}

fn has_raw_controls(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(text);
    text.chars()
        .any(|c| (c.is_control() && c != '\n') || ('\u{202A}'..='\u{202E}').contains(&c))
}

#[test]
fn escape_sequences_never_reach_the_terminal() {
    let data = data_with(&[("world_bank", "hostile")]);
    let wb = ["--lists", "world_bank"];
    let runs: Vec<Output> = vec![
        sanctions(data.path(), &["show", "world_bank:900001"]),
        sanctions(data.path(), &["show", "world_bank:900001", "--json"]),
        sanctions(
            data.path(),
            &[
                &["screen", "EVIL TRADING LIMITED", "--threshold", "30"][..],
                &wb,
            ]
            .concat(),
        ),
        sanctions(
            data.path(),
            &[
                &[
                    "screen",
                    "EVIL TRADING LIMITED",
                    "--threshold",
                    "30",
                    "--json",
                ][..],
                &wb,
            ]
            .concat(),
        ),
        sanctions(
            data.path(),
            &[
                &[
                    "screen",
                    "Evil\x1b]0;title\x07 Trading",
                    "--threshold",
                    "30",
                ][..],
                &wb,
            ]
            .concat(),
        ),
        sanctions_with_stdin(
            data.path(),
            &[&["batch", "-", "--threshold", "30"][..], &wb].concat(),
            "name\n\x1b[2JEVIL TRADING\nAcme\x1b]0;pwned\x07 Corp\n",
        ),
        sanctions_with_stdin(
            data.path(),
            &[&["batch", "-", "--json"][..], &wb].concat(),
            "name\n\x1b[2JEVIL TRADING\n",
        ),
        sanctions(data.path(), &["show", "world_bank:\x1b[2J"]),
        sanctions(data.path(), &["screen", "x", "--threshold", "\x1b[2J"]),
        sanctions(data.path(), &["screen", "x", "--type", "\x1b]0;t\x07"]),
        sanctions(data.path(), &["show", "world_bank:\x1b[2J", "--json"]),
    ];
    for out in &runs {
        assert!(!has_raw_controls(&out.stdout), "stdout: {}", stdout(out));
        assert!(!has_raw_controls(&out.stderr), "stderr: {}", stderr(out));
    }
    assert!(
        stdout(&runs[0]).contains("␛]0;pwned␇EVIL␛[2J TRADING LIMITED"),
        "{}",
        stdout(&runs[0])
    );
    // JSON keeps the data exact.
    let record: Value = serde_json::from_slice(&runs[1].stdout).unwrap();
    assert!(record["primary_name"].as_str().unwrap().contains('\x1b'));
    assert!(
        record["primary_name"]
            .as_str()
            .unwrap()
            .contains('\u{202E}')
    );

    // List metadata from files and folders: an import folder with an escape in its name.
    let layout = tempfile::tempdir().unwrap();
    let hostile = layout.path().join("lists\x1b[2J");
    std::fs::create_dir(&hostile).unwrap();
    std::os::unix::fs::symlink(fixture("un", "good"), hostile.join("un")).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let import = sanctions(
        fresh.path(),
        &["lists", "import", hostile.to_str().unwrap()],
    );
    assert!(!has_raw_controls(&import.stdout) && !has_raw_controls(&import.stderr));
    let updates = sanctions(fresh.path(), &["lists", "updates", "un"]);
    assert!(
        stdout(&updates).contains("lists␛[2J"),
        "{}",
        stdout(&updates)
    );
    assert!(!has_raw_controls(&updates.stdout));
    assert!(!has_raw_controls(
        &sanctions(fresh.path(), &["lists"]).stdout
    ));
}

/// Runs the binary as an unprivileged user when the tests run as root (root ignores file
/// permissions), so that a read-only folder is really read-only.
fn as_reader(data: &Path, args: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_sanctions");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| stdout(&o).trim() == "0")
        .unwrap_or(false);
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
        c
    } else {
        Command::new(bin)
    };
    cmd.arg("--data-dir")
        .arg(data)
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
}

#[test]
fn a_read_only_folder_serves_the_read_commands() {
    let data = un_only();
    let ro = tempfile::tempdir().unwrap();
    let folder = ro.path().join("ro");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        data.path().join("sanctions.db"),
        folder.join("sanctions.db"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        folder.join("sanctions.db"),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(ro.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // The binary must be reachable by the unprivileged user.
    for args in [
        &["lists"][..],
        &["lists", "--json"],
        &["lists", "updates", "un"],
        &["show", "un:113219"],
        &["screen", "AL-QAIDA", "--lists", "un"],
    ] {
        let out = as_reader(&folder, args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    }
    let lists: Value =
        serde_json::from_slice(&as_reader(&folder, &["lists", "--json"]).stdout).unwrap();
    assert_eq!(lists[3]["count"], 3, "the data was read: {lists}");
    let import = as_reader(
        &folder,
        &[
            "lists",
            "import",
            fixture("un", "good").parent().unwrap().to_str().unwrap(),
        ],
    );
    assert_eq!(code(&import), 3, "{}", stderr(&import));
    let names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["sanctions.db"], "nothing written");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
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
    insta::assert_json_snapshot!(
        "screen",
        json_of(&sanctions(
            data.path(),
            &[
                "screen",
                "Mohammed Salahaldin Zidane",
                "--allow-partial",
                "--json"
            ]
        ))
    );
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
