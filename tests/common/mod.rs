//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used)]

pub mod fixtures;
pub mod receiver;
pub mod serve;
pub mod server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `../shared/data` beside the crate, where the real list files are; a missing folder fails
/// the test with a message saying so.
pub fn shared_data() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    assert!(
        dir.is_dir(),
        "{} is missing: the tests of the real list files need the eight official lists there \
         (see ../shared/data/SOURCES.md); they fail rather than pass without testing anything",
        dir.display()
    );
    dir
}

/// Runs the binary as an unprivileged user when the tests run as root (root ignores file
/// permissions), so that a read-only folder is really read-only.
pub fn as_reader(data: &Path, args: &[&str]) -> Output {
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

/// Runs the real binary with `--data-dir data_dir` and `args`.
pub fn sanctions(data_dir: &Path, args: &[&str]) -> Output {
    sanctions_with_stdin(data_dir, args, "")
}

/// Runs the real binary with `stdin` as its standard input.
pub fn sanctions_with_stdin(data_dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .env_remove("SANCTIONS_MIRROR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The JSON a successful run printed.
pub fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}{}",
        stdout(out),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every favorite's kept nearness by id, as a re-screen reads it with the names (those whose
/// values are unknown are absent).
pub fn kept_nearness(
    repo: &dyn sanctions_store::Repository,
) -> std::collections::HashMap<String, sanctions_store::Nearness> {
    repo.favorite_names(None)
        .unwrap()
        .into_iter()
        .filter_map(|f| Some((f.id, f.nearness?)))
        .collect()
}
