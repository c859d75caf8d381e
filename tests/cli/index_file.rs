//! The persisted screening index (issue 27): written at `lists import` beside the database
//! (private, `sanctions.index`), read by the next process instead of a rebuild, and never
//! used when it is stale (other list versions), truncated or corrupted: then it is rebuilt
//! from the store and written again. Results from it are the same, byte for byte, as from an
//! index built afresh. Real list files from `../shared/data` (a missing folder fails).
#![allow(clippy::unwrap_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::fixtures::{code, stderr};
use common::{sanctions, sanctions_with_stdin, stdout};
use sanctions_engine::{self as engine, Index, Request};
use sanctions_eval as quality;

/// Names that meet entries of the UN and Canada lists, and some that meet nothing.
const NAMES: &str = "AL-QAIDA\nUsama bin Ladin\nKIM Jong Un\nBanco Nacional de Cuba\n\
    Viktor Yanukovych\nJohn Smith\nأسامة بن لادن\nIslamic State\nTaliban\nMohammed Omar\n";

/// A layout folder linking the real files of `codes`.
fn layout(codes: &[&str]) -> tempfile::TempDir {
    let lists = common::shared_data().join("lists");
    let dir = tempfile::tempdir().unwrap();
    for code in codes {
        std::os::unix::fs::symlink(lists.join(code), dir.path().join(code)).unwrap();
    }
    dir
}

fn import(data: &Path, codes: &[&str]) {
    let files = layout(codes);
    let out = sanctions(data, &["lists", "import", files.path().to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

fn index_file(data: &Path) -> PathBuf {
    data.join("sanctions.index")
}

/// Every row of [`NAMES`] screened (not stored), as JSON lines.
fn batch(data: &Path) -> String {
    let out = sanctions_with_stdin(
        data,
        &["batch", "-", "--lines", "--json", "--allow-partial"],
        NAMES,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stdout(&out)
}

/// How many times the log says the index was read from its file, and built.
fn log_counts(data: &Path) -> (usize, usize) {
    let log = std::fs::read_to_string(data.join("sanctions.log")).unwrap_or_default();
    (
        log.matches("screening index read from its file").count(),
        log.matches("screening index built").count(),
    )
}

/// A batch whose names come through a pipe reads its index while they arrive: the index is
/// read ahead before the input ends, not after it.
#[test]
fn a_piped_batch_reads_its_index_while_the_names_arrive() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let data = tempfile::tempdir().unwrap();
    import(data.path(), &["un"]);
    let log = data.path().join("sanctions.log");
    let read_ahead = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("index file read ahead read=true")
    };
    assert!(!read_ahead(), "no read ahead at import");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["batch", "-", "--lines", "--json", "--allow-partial"])
        .env("RUST_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"AL-QAIDA\n").unwrap();
    stdin.flush().unwrap();
    // The input is still open: the index must be read all the same.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !read_ahead() {
        assert!(
            std::time::Instant::now() < deadline,
            "the index was not read ahead while the input was open"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    stdin.write_all(b"Usama bin Ladin\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{}", stdout(&out));
    assert_eq!(rows[0]["query"], "AL-QAIDA");
    assert!(rows[0]["total_matches"].as_u64() > Some(0), "{}", rows[0]);
}

#[test]
fn an_import_writes_a_private_index_that_the_next_process_reads() {
    let data = tempfile::tempdir().unwrap();
    import(data.path(), &["un", "ca_sema"]);
    let file = index_file(data.path());
    let meta = std::fs::metadata(&file).expect("the import writes the index file");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let (read_before, built_before) = log_counts(data.path());
    let from_file = batch(data.path());
    let (read, built) = log_counts(data.path());
    assert_eq!(
        (read, built),
        (read_before + 1, built_before),
        "read, not rebuilt"
    );
    assert!(from_file.contains("un:"), "{from_file}");

    // The same rows on an index built afresh: byte for byte the same answers.
    std::fs::remove_file(&file).unwrap();
    let rebuilt = batch(data.path());
    assert_eq!(log_counts(data.path()).1, built + 1, "rebuilt");
    assert_eq!(from_file, rebuilt);
    assert!(file.exists(), "the rebuilt index is written again");
}

#[test]
fn a_stale_index_is_rebuilt_not_used() {
    let data = tempfile::tempdir().unwrap();
    import(data.path(), &["un"]);
    let un_only = std::fs::read(index_file(data.path())).unwrap();
    import(data.path(), &["ca_sema"]);
    let both = batch(data.path());
    // The index of the UN list alone put back: its key names other list versions.
    std::fs::write(index_file(data.path()), &un_only).unwrap();
    let built = log_counts(data.path()).1;
    assert_eq!(batch(data.path()), both);
    assert_eq!(log_counts(data.path()).1, built + 1, "rebuilt");
    let log = std::fs::read_to_string(data.path().join("sanctions.log")).unwrap();
    assert!(log.contains("the index file is stale"), "{log}");
    let rewritten = std::fs::read(index_file(data.path())).unwrap();
    assert!(rewritten != un_only, "the stale file is replaced");
}

#[test]
fn a_corrupted_or_truncated_index_is_rebuilt_not_used() {
    let data = tempfile::tempdir().unwrap();
    import(data.path(), &["un", "ca_sema"]);
    let good = std::fs::read(index_file(data.path())).unwrap();
    let expected = batch(data.path());
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x01;
    let damaged: [(&str, Vec<u8>); 3] = [
        ("one bit changed", flipped),
        ("truncated", good[..good.len() / 3].to_vec()),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in damaged {
        std::fs::write(index_file(data.path()), &bytes).unwrap();
        let built = log_counts(data.path()).1;
        assert_eq!(batch(data.path()), expected, "{what}");
        assert_eq!(log_counts(data.path()).1, built + 1, "{what}: rebuilt");
        let rewritten = std::fs::read(index_file(data.path())).unwrap();
        assert_eq!(rewritten.len(), good.len(), "{what}: written again");
    }
    let log = std::fs::read_to_string(data.path().join("sanctions.log")).unwrap();
    assert!(log.contains("fails its checksum"), "{log}");
}

/// The engine's answers on the index read back from its bytes are those of the index built
/// from the eight lists, for every query of the development set (each one's full result,
/// every hit, score, explanation and fact, compared as text).
#[test]
fn every_development_query_screens_the_same_on_the_index_read_back() {
    let shared = common::shared_data();
    let (entries, problems) = quality::names_from_dir(&shared.join("lists"));
    assert!(problems.is_empty(), "{problems:?}");
    let built = Index::build(&entries);
    let read = Index::from_bytes(&built.to_bytes().unwrap()).unwrap();
    assert_eq!(read.entity_count(), built.entity_count());
    assert_eq!(read.name_count(), built.name_count());
    let csv = shared.join("../eval/dev.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let queries = quality::read_queries(&text).unwrap();
    assert!(queries.len() >= 3000, "{} queries", queries.len());
    for query in &queries {
        let request = Request {
            limit: Some(50),
            threshold: Some(50),
            ..Request::new(query.query.as_str())
        };
        let a = format!("{:?}", engine::screen(&built, &request));
        let b = format!("{:?}", engine::screen(&read, &request));
        assert_eq!(a, b, "{}", query.query);
    }
}
