//! `watchlist import` of a large customer file streams it (issue 25): the process's peak
//! memory does not grow with the file, every good row is imported, and each refused row is
//! reported with its line and reason; `--strict` imports nothing when one row is bad. Run on
//! SQLite and on the real PostgreSQL server (a fresh schema).
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::conformance;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::fixtures::{code, stderr, un_only};
use common::stdout;

/// A customer file of `good` synthetic names (all distinct) with refused rows at `bad`
/// (1-based file lines, the header being line 1).
fn customer_file(path: &Path, good: usize, bad: &[u64]) {
    const GIVEN: [&str; 8] = [
        "Ana", "Joao", "Wei", "Olga", "Omar", "Priya", "Kofi", "Hans",
    ];
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "customer_id,name,type,country").unwrap();
    let (mut line, mut written) = (1u64, 0usize);
    while written < good {
        line += 1;
        if bad.contains(&line) {
            let row: &[u8] = match line % 3 {
                0 => b"B,---,individual,XX\n",
                1 => b"B,Ana Lima,robot,BR\n",
                _ => b"B,Jos\xE9 \xFF\n",
            };
            out.write_all(row).unwrap();
            continue;
        }
        // A surname made of letters from the row number: every name is distinct.
        let mut n = written;
        let mut surname = String::from("K");
        while n > 0 || surname.len() < 4 {
            surname.push(char::from(b'a' + (n % 26) as u8));
            n /= 26;
        }
        let given = GIVEN[written % GIVEN.len()];
        writeln!(out, "C{written},{given} {surname}ova,individual,PT").unwrap();
        written += 1;
    }
}

/// Runs the binary and samples its peak resident memory (`VmHWM`) until it exits.
fn run_measured(data: &Path, env: &[(&str, &str)], args: &[&str]) -> (Output, u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let sampler = std::thread::spawn(move || {
        let mut peak = 0u64;
        loop {
            if let Some(kb) = std::fs::read_to_string(&status).ok().and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            }) {
                peak = peak.max(kb);
            }
            if done_rx
                .recv_timeout(std::time::Duration::from_millis(5))
                .is_ok()
            {
                return peak;
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    done_tx.send(()).unwrap();
    (out, sampler.join().unwrap())
}

/// Runs the binary with `env` set and waits for it.
fn sanctions_with_env(data: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn refused_lines(out: &Output) -> BTreeSet<u64> {
    stderr(out)
        .lines()
        .filter_map(|l| l.split("row refused, line ").nth(1))
        .map(|rest| rest.split(':').next().unwrap().parse().unwrap())
        .collect()
}

/// Imports a small and a twelve times larger file into `data` (with `env`), checks what was
/// imported and refused, and that the peak memory grew far less than the larger file holds.
fn streams(data: &Path, env: &[(&str, &str)], dir: &Path) {
    let bad = [9, 1_000, 15_002, 150_002];
    let small = dir.join("small.csv");
    let large = dir.join("large.csv");
    customer_file(&small, 20_000, &bad);
    customer_file(&large, 240_000, &bad);
    let (out, small_kb) =
        run_measured(data, env, &["watchlist", "import", small.to_str().unwrap()]);
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(refused_lines(&out), BTreeSet::from([9, 1_000, 15_002]));
    assert!(
        stderr(&out).contains("line 15002: invalid UTF-8 byte"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("line 1000: type must be individual or entity"));
    assert!(stderr(&out).contains("line 9: \"---\" leaves nothing to screen"));
    assert!(
        stdout(&out)
            .contains("Read 20003 names: 20000 added, 0 already on the watchlist, 3 refused"),
        "{}",
        stdout(&out)
    );

    let (out, large_kb) =
        run_measured(data, env, &["watchlist", "import", large.to_str().unwrap()]);
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(refused_lines(&out), BTreeSet::from(bad));
    assert!(
        stdout(&out)
            .contains("Read 240004 names: 220000 added, 20000 already on the watchlist, 4 refused"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("4 row(s) refused (line 9, line 1000, line 15002, line 150002)"),
        "{}",
        stderr(&out)
    );
    let file_kb = std::fs::metadata(&large).unwrap().len() / 1024;
    // Held whole, the larger file's rows alone (each name, its cells, its request) take
    // several times the file's size; streamed, the peak does not grow with the file. The
    // same import's peak varies by up to 20 MB from run to run (the allocator's arenas on
    // every core), more than this file's 8 MB, so the bound allows three times the file.
    assert!(
        large_kb < small_kb + 3 * file_kb,
        "peak RSS {small_kb} kB for 20,000 rows, {large_kb} kB for 240,000 ({file_kb} kB file)"
    );
    eprintln!(
        "peak RSS {small_kb} kB for 20,000 rows, {large_kb} kB for 240,000 ({file_kb} kB file)"
    );

    assert_eq!(favorites(data, env), 240_000);
}

/// The favorites in the store (`watchlist list` pages through them, too slowly for this).
fn favorites(data: &Path, env: &[(&str, &str)]) -> u64 {
    use sanctions_store::Repository;
    match env.iter().find(|(k, _)| *k == "SANCTIONS_DATABASE_URL") {
        Some((_, url)) => sanctions_store::postgres::PostgresRepository::open(url)
            .unwrap()
            .favorite_count(None)
            .unwrap(),
        None => sanctions_store::SqliteRepository::open(&data.join("sanctions.db"))
            .unwrap()
            .favorite_count(None)
            .unwrap(),
    }
}

#[test]
fn a_large_customer_file_streams_into_sqlite() {
    let data = un_only();
    let dir = tempfile::tempdir().unwrap();
    streams(data.path(), &[], dir.path());
}

#[test]
fn a_large_customer_file_streams_into_postgres() {
    let schema = conformance::Schema::create();
    let url = schema.url();
    let env = [("SANCTIONS_DATABASE_URL", url.as_str())];
    let data = tempfile::tempdir().unwrap();
    let layout = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        common::fixtures::fixture("un", "good"),
        layout.path().join("un"),
    )
    .unwrap();
    let out = sanctions_with_env(
        data.path(),
        &env,
        &["lists", "import", layout.path().to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = tempfile::tempdir().unwrap();
    streams(data.path(), &env, dir.path());
}

#[test]
fn strict_imports_nothing_when_one_row_is_bad() {
    let data = un_only();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.csv");
    customer_file(&file, 30_000, &[25_000]);
    let out = common::sanctions(
        data.path(),
        &["watchlist", "import", "--strict", file.to_str().unwrap()],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 bad row(s), nothing imported (--strict): line 25000:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(favorites(data.path(), &[]), 0);
}
