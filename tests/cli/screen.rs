//! `sanctions screen` and `sanctions batch`: the real binary on the real lists.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{json, sanctions, sanctions_with_stdin, stdout};
use serde_json::Value;

/// One data directory with all eight real lists imported, shared by the tests of this file.
fn imported() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    DIR.get_or_init(|| {
        let shared = common::shared_data();
        let dir = tempfile::tempdir().unwrap();
        let out = sanctions(
            dir.path(),
            &["lists", "import", shared.join("lists").to_str().unwrap()],
        );
        assert!(out.status.success(), "{}", stdout(&out));
        let path = dir.path().to_path_buf();
        (dir, path)
    })
    .1
    .as_path()
}

fn screen(data: &Path, name: &str, extra: &[&str]) -> Value {
    let mut args = vec!["screen", name, "--json"];
    args.extend_from_slice(extra);
    json(&sanctions(data, &args))
}

fn first_name(result: &Value) -> String {
    result["results"][0]["name"]
        .as_str()
        .unwrap_or_default()
        .to_uppercase()
}

#[test]
fn well_known_names_rank_the_listed_entry_first() {
    let data = imported();
    for (query, expect) in [
        ("Vladimir Putin", &["PUTIN"][..]),
        ("Владимир Путин", &["PUTIN"]),
        ("V. Putin", &["PUTIN"]),
        ("Osama bin Laden", &["LADIN", "LADEN"]),
        ("Usama bin Ladin", &["LADIN", "LADEN"]),
        ("banco nacional de cuba", &["BANCO NACIONAL DE CUBA"]),
        (
            "Islamic Revolutionary Guard Corps",
            &["ISLAMIC REVOLUTIONARY GUARD CORPS"],
        ),
    ] {
        let result = screen(data, query, &[]);
        let top = first_name(&result);
        assert!(
            expect.iter().any(|e| top.contains(e)),
            "{query}: first result {top:?}\n{result:#}"
        );
        let first = &result["results"][0];
        assert!(first["score"].as_u64().unwrap() >= 78, "{query}: {first}");
        assert!(!first["explanation"].as_array().unwrap().is_empty());
    }
}

#[test]
fn a_common_name_raises_nothing_at_the_default_threshold() {
    let data = imported();
    let result = screen(data, "John Smith", &[]);
    assert_eq!(result["total_matches"], 0, "{result:#}");
    let human = stdout(&sanctions(data, &["screen", "John Smith"]));
    assert!(human.contains("No match"), "{human}");
}

#[test]
fn filters_by_type_list_and_threshold() {
    let data = imported();
    let only_un = screen(
        data,
        "Usama bin Ladin",
        &["--lists", "un", "--threshold", "50"],
    );
    for m in only_un["results"].as_array().unwrap() {
        assert_eq!(m["list_code"], "un");
    }
    let entities = screen(data, "Vladimir Putin", &["--type", "entity"]);
    for m in entities["results"].as_array().unwrap() {
        assert_eq!(m["type"], "entity");
    }
    let bad = sanctions(data, &["screen", "x", "--threshold", "101"]);
    assert!(!bad.status.success());
}

#[test]
fn human_output_explains_the_match() {
    let data = imported();
    let out = stdout(&sanctions(data, &["screen", "Vladimir Putin"]));
    assert!(out.contains("why:"), "{out}");
    assert!(out.contains("putin = putin"), "{out}");
}

#[test]
fn batch_writes_one_json_line_per_name_in_input_order() {
    let data = imported();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("names.csv");
    std::fs::write(
        &csv,
        "qid,name,type\nc1,Vladimir Putin,individual\nc2,John Smith,\nc3,Banco Nacional de Cuba,entity\n",
    )
    .unwrap();
    let out = sanctions(data, &["batch", csv.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let qids: Vec<&str> = lines.iter().map(|l| l["qid"].as_str().unwrap()).collect();
    assert_eq!(qids, ["c1", "c2", "c3"]);
    assert!(lines[0]["total_matches"].as_u64().unwrap() > 0);
    assert_eq!(
        lines[0]["results"][0]["group"], 1,
        "entries grouped as in screen"
    );
    assert_eq!(lines[1]["total_matches"], 0);
    assert_eq!(lines[2]["results"][0]["type"], "entity");

    // One name per line on standard input; row numbers as qids.
    let out = sanctions_with_stdin(
        data,
        &["batch", "-", "--json"],
        "Osama bin Laden\n\nV. Putin\n",
    );
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[1]["qid"], "3",
        "the file line, blank lines counted, as a string"
    );
    assert_eq!(lines[1]["line"], 3);
    assert_eq!(lines[1]["query"], "V. Putin");

    // A JSON array, human output.
    let out = sanctions_with_stdin(data, &["batch", "-"], r#"["Vladimir Putin", "John Smith"]"#);
    assert!(
        stdout(&out).contains("2 rows: 1 matched, 1 no match, 0 not screened."),
        "{}",
        stdout(&out)
    );
}

#[test]
fn batch_shapes_that_were_misread_are_read() {
    let data = imported();
    for input in [
        "full_name,country\nVladimir Putin,RU\nJohn Smith,GB\n",
        "full_name\tcountry\nVladimir Putin\tRU\nJohn Smith\tGB\n",
        "id;name\n1;Vladimir Putin\n2;John Smith\n",
    ] {
        let out = sanctions_with_stdin(data, &["batch", "-", "--json"], input);
        assert!(out.status.success(), "{input}");
        let lines: Vec<Value> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{input}: the header is not a name");
        assert_eq!(lines[0]["query"], "Vladimir Putin", "{input}");
        assert!(lines[0]["total_matches"].as_u64().unwrap() > 0, "{input}");
        assert_eq!(lines[1]["total_matches"], 0);
    }
}

#[test]
fn one_person_on_several_lists_is_one_line_in_text_and_one_group_in_json() {
    let data = imported();
    let result = screen(data, "Vladimir Putin", &[]);
    let first = &result["results"][0];
    assert_eq!(first["group"], 1);
    let group_one: Vec<&str> = result["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["group"] == 1)
        .map(|m| m["list_code"].as_str().unwrap())
        .collect();
    assert!(group_one.len() >= 3, "{group_one:?}");
    assert!(
        group_one.contains(&"ofac_sdn") && group_one.contains(&"uk_hmt"),
        "{group_one:?}"
    );
    let text = stdout(&sanctions(data, &["screen", "Vladimir", "Putin"]));
    let heads = text
        .lines()
        .filter(|l| l.starts_with(" 1. ") || l.starts_with(" 2. "))
        .count();
    assert!(heads >= 1, "{text}");
    assert_eq!(text.matches(" 1. ").count(), 1, "{text}");
    assert!(text.contains("born 1952-10-07"), "{text}");
    assert!(text.contains("nationality RU"), "{text}");
    assert!(text.contains("programmes:"), "{text}");
    assert!(text.contains("Checked against:"), "{text}");
}

#[test]
fn a_second_import_waits_for_the_first() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let lists = shared.join("lists");
    let spawn = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_sanctions"))
            .arg("--data-dir")
            .arg(data.path())
            .args(["lists", "import", lists.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = spawn();
    // The second starts once the first holds the lock (for the whole import, seconds).
    let lock = data.path().join("sanctions.lock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !held_by_another(&lock) {
        assert!(
            std::time::Instant::now() < deadline,
            "the first import never took the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let second = spawn();
    let first = first.wait_with_output().unwrap();
    let second = second.wait_with_output().unwrap();
    for out in [&first, &second] {
        assert!(
            out.status.success(),
            "{}{}",
            stdout(out),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!stdout(out).contains("locked"), "{}", stdout(out));
    }
    let waited = String::from_utf8_lossy(&second.stderr);
    assert!(waited.contains("waiting for it to finish"), "{waited}");
}

/// Whether another process holds the lock file at `path` (it exists and cannot be locked).
fn held_by_another(path: &std::path::Path) -> bool {
    std::fs::File::open(path)
        .is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
}

#[test]
fn an_empty_store_explains_how_to_get_data() {
    let empty = tempfile::tempdir().unwrap();
    let out = sanctions(empty.path(), &["screen", "Vladimir Putin"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lists import"), "{err}");
    assert!(err.contains("lists update"), "{err}");
}

#[test]
fn date_of_birth_and_country_are_weighed_and_shown() {
    let data = imported();
    let result = screen(
        data,
        "Vladimir Putin",
        &["--dob", "1952-10-07", "--country", "RU"],
    );
    let first = &result["results"][0];
    assert!(first_name(&result).contains("PUTIN"), "{result}");
    assert!(
        !first["dates_of_birth"].as_array().unwrap().is_empty(),
        "{first}"
    );
    let hows: Vec<&str> = first["explanation"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["how"].as_str())
        .collect();
    assert!(
        hows.iter().any(|h| h.starts_with("date_of_birth agrees")),
        "{hows:?}"
    );
    let bad = sanctions(data, &["screen", "Vladimir Putin", "--dob", "soon"]);
    assert!(!bad.status.success());
}
