//! The real binary on what could harm or confuse a terminal or a script: escape sequences in
//! lists and inputs, closed pipes, backtraces, JSON errors, and a read-only data folder.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::fixtures::{code, data_with, fixture, stderr, un_only};
use common::{as_reader, sanctions, sanctions_with_stdin, stdout};
use serde_json::Value;

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
