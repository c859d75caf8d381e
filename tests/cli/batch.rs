//! `sanctions batch` on the real binary with a fixture list: every input shape read or
//! refused, encodings, row errors with their lines, qids, types and lists.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use common::{sanctions, stdout};
use serde_json::Value;

/// One data folder with the UN and World Bank fixtures imported, shared by these tests.
fn data() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let layout = tempfile::tempdir().unwrap();
        for code in ["un", "world_bank"] {
            let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join(format!("tests/fixtures/{code}/good"));
            std::os::unix::fs::symlink(fixture, layout.path().join(code)).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let out = sanctions(
            dir.path(),
            &["lists", "import", layout.path().to_str().unwrap()],
        );
        assert!(out.status.success(), "{}", stdout(&out));
        let path = dir.path().to_path_buf();
        (dir, path)
    })
    .1
}

const LISTS: &str = "un,world_bank";

/// Runs `batch FILE --json --lists un,world_bank EXTRA` on `bytes` written to a file.
fn batch(bytes: &[u8], extra: &[&str]) -> (Output, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("input");
    std::fs::write(&file, bytes).unwrap();
    let mut args = vec!["batch", file.to_str().unwrap(), "--json", "--lists", LISTS];
    args.extend_from_slice(extra);
    let out = sanctions(data(), &args);
    let lines = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, lines)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn queries(lines: &[Value]) -> Vec<&str> {
    lines.iter().map(|l| l["query"].as_str().unwrap()).collect()
}

#[test]
fn the_three_misread_shapes_are_read() {
    for input in [
        "full_name,country\nAL-QAIDA,AF\nJohn Smith,GB\n",
        "country\tname\nAF\tAL-QAIDA\nGB\tJohn Smith\n",
        "id;name\nq1;AL-QAIDA\nq2;John Smith\n",
        "ref|Customer Name\n1|AL-QAIDA\n2|John Smith\n",
    ] {
        let (out, lines) = batch(input.as_bytes(), &[]);
        assert!(out.status.success(), "{input}: {}", stderr(&out));
        assert_eq!(queries(&lines), ["AL-QAIDA", "John Smith"], "{input}");
        assert!(lines[0]["total_matches"].as_u64().unwrap() > 0, "{input}");
        assert_eq!(lines[0]["line"], 2);
    }
    let (_, lines) = batch(b"id;name\nq1;AL-QAIDA\n", &[]);
    assert_eq!(lines[0]["qid"], "q1");
}

#[test]
fn files_it_cannot_read_safely_are_refused() {
    let (out, _) = batch(b"customer_id,country\n1,RU\n", &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("customer_id, country"),
        "{}",
        stderr(&out)
    );
    let (out, _) = batch(b"AL-QAIDA,AF\nJohn Smith,GB\n", &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("--column"), "{}", stderr(&out));
    // ... and read when told how.
    let (out, lines) = batch(b"AL-QAIDA,AF\nJohn Smith,GB\n", &["--column", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(queries(&lines), ["AL-QAIDA", "John Smith"]);
    let (out, lines) = batch(b"who,cc\nAL-QAIDA,AF\n", &["--column", "WHO"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(queries(&lines), ["AL-QAIDA"]);
    let (_, lines) = batch(b"SMITH, John\nAL-QAIDA, the base\n", &["--lines"]);
    assert_eq!(queries(&lines), ["SMITH, John", "AL-QAIDA, the base"]);
    // One name per line with a comma in some lines only: still one name per line.
    let (out, lines) = batch(b"SMITH, John\nAL-QAIDA\n", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(queries(&lines), ["SMITH, John", "AL-QAIDA"]);
}

#[test]
fn windows_1252_and_utf16_are_decoded() {
    let (out, lines) = batch(b"name\nJos\xe9 M\xfcller\nAL-QAIDA\n", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(queries(&lines), ["José Müller", "AL-QAIDA"]);
    for bom in [true, false] {
        let mut bytes = if bom { vec![0xFF, 0xFE] } else { vec![] };
        for unit in "name\r\nДмитрий Ёлкин\r\n".encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        let (out, lines) = batch(&bytes, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(queries(&lines), ["Дмитрий Ёлкин"]);
        assert!(lines[0]["total_matches"].as_u64().unwrap() > 0);
    }
    let mut be = vec![0xFE, 0xFF];
    for unit in "AL-QAIDA\n".encode_utf16() {
        be.extend_from_slice(&unit.to_be_bytes());
    }
    assert_eq!(queries(&batch(&be, &[]).1), ["AL-QAIDA"]);
}

#[test]
fn row_errors_name_their_line_and_the_rest_still_runs() {
    let input = b"name,type\nAL-QAIDA,entity\n\nMr,\nJos\xc3\xa9 \xe9 Bad,\nAcme,alien\nJohn Smith,individual\n";
    let (out, lines) = batch(input, &[]);
    assert_eq!(out.status.code(), Some(3), "rows not screened");
    let by_line: Vec<(u64, bool)> = lines
        .iter()
        .map(|l| (l["line"].as_u64().unwrap(), l["error"].is_null()))
        .collect();
    assert_eq!(
        by_line,
        [(2, true), (4, false), (5, false), (6, false), (7, true)]
    );
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .contains("nothing to screen")
    );
    assert!(
        lines[2]["error"].as_str().unwrap().contains("0xE9"),
        "{}",
        lines[2]
    );
    assert!(lines[3]["error"].as_str().unwrap().contains("alien"));
    let err = stderr(&out);
    assert!(
        err.contains("3 row(s) not screened (line 4, line 5, line 6)"),
        "{err}"
    );

    // The text summary counts them too.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.csv");
    std::fs::write(&file, input).unwrap();
    let text = stdout(&sanctions(
        data(),
        &["batch", file.to_str().unwrap(), "--lists", LISTS],
    ));
    assert!(
        text.contains("5 rows: 1 matched, 1 no match, 3 not screened."),
        "{text}"
    );
    assert!(text.contains("NOT SCREENED"), "{text}");
}

#[test]
fn json_input_errors_name_the_position_and_the_shape() {
    let (out, _) = batch(b"[\"AL-QAIDA\",\n  oops]", &[]);
    assert_eq!(out.status.code(), Some(3));
    let err: Value = serde_json::from_str(stderr(&out).trim()).unwrap();
    let err = err["error"].as_str().unwrap();
    assert!(err.contains("line 2"), "{err}");
    assert!(err.contains(r#"{"names": [...]}"#), "{err}");
    let (out, lines) = batch(
        br#"{"names": ["AL-QAIDA", {"name": "John Smith", "qid": 7, "type": "individual"}]}"#,
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines[0]["qid"], "1");
    assert_eq!(lines[0]["position"], 1);
    assert_eq!(lines[1]["qid"], "7");
    assert_eq!(lines[1]["type"], "individual");
}

#[test]
fn qids_are_strings_and_duplicates_are_reported() {
    let (out, lines) = batch(b"AL-QAIDA\n\nJohn Smith\n", &[]);
    assert!(out.status.success());
    assert_eq!(lines[1]["qid"], "3", "the file line, as a string");
    let (out, lines) = batch(b"qid,name\n7,AL-QAIDA\n7,John Smith\n", &[]);
    assert!(out.status.success());
    assert_eq!(lines[0]["qid"], "7");
    let warning: Value = serde_json::from_str(stderr(&out).lines().next().unwrap()).unwrap();
    assert!(
        warning["warning"]
            .as_str()
            .unwrap()
            .contains("line 2, line 3"),
        "{warning}"
    );
}

#[test]
fn row_types_narrow_and_lists_filter() {
    let input = b"name,type\nAL-QAIDA,entity\nAL-QAIDA,individual\nAL-QAIDA,\n";
    let (out, lines) = batch(input, &["--type", "entity"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "the individual row contradicts --type"
    );
    assert_eq!(lines[0]["type"], "entity");
    assert!(lines[1]["error"].as_str().unwrap().contains("narrows"));
    assert_eq!(lines[2]["type"], "entity");
    let (_, lines) = batch(input, &[]);
    assert_eq!(lines[1]["type"], "individual");
    assert_eq!(lines[1]["total_matches"], 0, "AL-QAIDA is an entity");
    // --lists: only World Bank.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    std::fs::write(&file, "AL-QAIDA\n").unwrap();
    let out = sanctions(
        data(),
        &[
            "batch",
            file.to_str().unwrap(),
            "--json",
            "--lists",
            "world_bank",
        ],
    );
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["total_matches"], 0);
    assert_eq!(line["coverage"]["lists"].as_array().unwrap().len(), 1);
}
