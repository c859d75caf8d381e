//! No silent loss, every listed name screened: the real binary importing damaged copies of the
//! real list files (made here, in temp folders) and screening the names that used to be lost.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{json, sanctions, stdout};
use serde_json::Value;

fn output(out: &Output) -> String {
    format!("{}{}", stdout(out), String::from_utf8_lossy(&out.stderr))
}

/// The line `lists import` printed for `code`.
fn line_of(out: &Output, code: &str) -> String {
    let text = stdout(out);
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(code))
        .unwrap_or_else(|| panic!("no line for {code} in:\n{}", output(out)))
        .to_owned()
}

/// A list folder `<tmp>/<code>/` holding copies of the real files of `code`.
fn copy_of(shared: &Path, code: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join(code);
    std::fs::create_dir(&target).unwrap();
    for entry in std::fs::read_dir(shared.join("lists").join(code)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, target.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn import(data: &Path, dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["lists", "import", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    sanctions(data, &args)
}

fn count(data: &Path, code: &str) -> u64 {
    json(&sanctions(data, &["lists", "--json"]))
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["code"] == code)
        .and_then(|l| l["count"].as_u64())
        .unwrap()
}

fn screen(data: &Path, args: &[&str]) -> Value {
    // Only some lists are imported here: screen against those (partial coverage allowed).
    let mut all = vec!["screen", "--allow-partial"];
    all.extend_from_slice(args);
    all.push("--json");
    json(&sanctions(data, &all))
}

fn hit<'a>(result: &'a Value, entity_id: &str) -> Option<&'a Value> {
    result["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["entity_id"] == entity_id)
}

fn file_of(dir: &tempfile::TempDir, code: &str, name: &str) -> PathBuf {
    dir.path().join(code).join(name)
}

#[test]
fn truncated_copies_of_the_real_files_are_refused_and_the_list_kept() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let whole = common::shared_data().join("lists");
    let first = sanctions(data.path(), &["lists", "import", whole.to_str().unwrap()]);
    assert!(first.status.success(), "{}", output(&first));

    // sdn.csv cut to about 100 KB at a record boundary: no OFAC end-of-file byte.
    let sdn = copy_of(&shared, "ofac_sdn");
    let path = file_of(&sdn, "ofac_sdn", "sdn.csv");
    let bytes = std::fs::read(&path).unwrap();
    let cut = bytes[..100_000].iter().rposition(|b| *b == b'\n').unwrap() + 1;
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let out = import(data.path(), sdn.path(), &[]);
    assert!(!out.status.success());
    let line = line_of(&out, "ofac_sdn");
    assert!(
        line.contains("FAILED") && line.contains("sdn.csv") && line.contains("0x1A"),
        "{line}"
    );
    assert_eq!(count(data.path(), "ofac_sdn"), 14_965);

    // The same cut with the end-of-file byte put back: the shrink guard stops it.
    let mut marked = bytes[..cut].to_vec();
    marked.push(0x1A);
    std::fs::write(&path, &marked).unwrap();
    let out = import(data.path(), sdn.path(), &[]);
    let line = line_of(&out, "ofac_sdn");
    assert!(
        line.contains("FAILED") && line.contains("would remove") && line.contains("--allow-shrink"),
        "{line}"
    );
    assert_eq!(count(data.path(), "ofac_sdn"), 14_965);

    // sema-lmes.xml cut after a </record>: the root element never closes.
    let ca = copy_of(&shared, "ca_sema");
    let path = file_of(&ca, "ca_sema", "sema-lmes.xml");
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = text[..text.len() / 6].rfind("</record>").unwrap() + "</record>".len();
    std::fs::write(&path, &text[..cut]).unwrap();
    let out = import(data.path(), ca.path(), &[]);
    let line = line_of(&out, "ca_sema");
    assert!(
        line.contains("FAILED") && line.contains("truncated"),
        "{line}"
    );
    assert_eq!(count(data.path(), "ca_sema"), 4_759);

    // Every failure is in the list's history: when, the files with their sha256, why.
    let history = json(&sanctions(
        data.path(),
        &["lists", "updates", "ofac_sdn", "--json"],
    ));
    let shrink = &history[0];
    assert!(
        shrink["failed"].as_str().unwrap().contains("would remove"),
        "{shrink}"
    );
    let sha = |name: &str| {
        shrink["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .map(|f| f["sha256"].as_str().unwrap().to_owned())
    };
    assert_eq!(
        sha("add.csv").as_deref(),
        Some("de04953bc8f4bd2d1fae45cf7ffbb148de2f948d04d4d38942d0d123b359d43d")
    );
    assert_eq!(shrink["total"], 14_965);
    let truncated = &history[1];
    assert!(
        truncated["failed"].as_str().unwrap().contains("0x1A"),
        "{truncated}"
    );
    assert_eq!(
        truncated["files"].as_array().unwrap().len(),
        4,
        "{truncated}"
    );
    assert!(history[2]["failed"].is_null());
    let human = stdout(&sanctions(data.path(), &["lists", "updates", "ca_sema"]));
    assert!(human.contains("FAILED: sema-lmes.xml"), "{human}");
    assert!(human.contains("sha256"), "{human}");
}

#[test]
fn a_shrink_is_refused_then_allowed_with_allow_shrink() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let wb = copy_of(&shared, "world_bank");
    assert!(import(data.path(), wb.path(), &[]).status.success());
    assert_eq!(count(data.path(), "world_bank"), 1_370);

    // SANCTIONED_FIRM.json reduced to 10 records: complete JSON, but most of the list gone.
    let path = file_of(&wb, "world_bank", "SANCTIONED_FIRM.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    doc["response"]["ZPROCSUPP"]
        .as_array_mut()
        .unwrap()
        .truncate(10);
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let refused = import(data.path(), wb.path(), &[]);
    assert!(!refused.status.success());
    let line = line_of(&refused, "world_bank");
    assert!(
        line.contains("would remove 1360 of the 1370 entries") && line.contains("--allow-shrink"),
        "{line}"
    );
    assert_eq!(count(data.path(), "world_bank"), 1_370);

    let allowed = import(data.path(), wb.path(), &["--allow-shrink"]);
    assert!(allowed.status.success(), "{}", output(&allowed));
    assert!(line_of(&allowed, "world_bank").contains("-1,360 removed"));
    assert_eq!(count(data.path(), "world_bank"), 10);

    // A configured share: 100% lets any removal through without the flag.
    let config = data.path().join("config.toml");
    std::fs::write(&config, "[import]\nmax_shrink_percent = 100\n").unwrap();
    let wb_full = copy_of(&shared, "world_bank");
    assert!(import(data.path(), wb_full.path(), &[]).status.success());
    assert!(
        import(
            data.path(),
            wb.path(),
            &["--config", config.to_str().unwrap()]
        )
        .status
        .success()
    );
}

#[test]
fn an_unclosed_quote_fails_the_list_with_its_line_instead_of_swallowing_the_next_entry() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let sdn = copy_of(&shared, "ofac_sdn");
    let path = file_of(&sdn, "ofac_sdn", "sdn.csv");
    let text = std::fs::read(&path).unwrap();
    let text = String::from_utf8(text).unwrap();
    let mut lines: Vec<String> = text.split("\r\n").map(str::to_owned).collect();
    let khors = lines
        .iter()
        .position(|l| l.contains("\"KHORS AIRCOMPANY\""))
        .unwrap();
    // The line before KHORS AIRCOMPANY with its last field's closing quote lost.
    let before = &mut lines[khors - 1];
    assert!(before.ends_with('"'), "{before}");
    before.pop();
    std::fs::write(&path, lines.join("\r\n")).unwrap();
    let out = import(data.path(), sdn.path(), &[]);
    assert!(!out.status.success());
    let line = line_of(&out, "ofac_sdn");
    let expected = format!("sdn.csv, line {khors}");
    assert!(
        line.contains("FAILED") && line.contains(&expected) && line.contains("unclosed quote"),
        "{line}"
    );
}

#[test]
fn local_files_have_the_download_size_cap() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let config = data.path().join("config.toml");
    std::fs::write(&config, "[fetch]\nmax_bytes = 1000000\n").unwrap();
    let dir = copy_of(&shared, "ofac_sdn");
    let out = import(
        data.path(),
        dir.path(),
        &["--config", config.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let line = line_of(&out, "ofac_sdn");
    assert!(
        line.contains("larger than the 1000000-byte limit (fetch.max_bytes)"),
        "{line}"
    );
}

#[test]
fn every_listed_name_is_screened() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let out = sanctions(
        data.path(),
        &[
            "lists",
            "import",
            shared.join("lists").to_str().unwrap(),
            "--list",
            "ofac_sdn,ca_sema,world_bank,eu",
        ],
    );
    assert!(out.status.success(), "{}", output(&out));
    // The notes of an import are printed, not only stored.
    assert!(
        stdout(&out).contains("note:      alt.csv:"),
        "{}",
        stdout(&out)
    );

    // OFAC's weak a.k.a. written only in Remarks: "BNC" finds Banco Nacional de Cuba.
    let bnc = screen(data.path(), &["BNC"]);
    let m = hit(&bnc, "ofac_sdn:306").unwrap_or_else(|| panic!("{bnc}"));
    assert_eq!(m["matched_name"], "BNC");
    assert!(
        m["score"].as_u64().unwrap() < 100,
        "weak aliases score lower: {m}"
    );
    let human = stdout(&sanctions(data.path(), &["show", "ofac_sdn:306"]));
    assert!(human.contains("BNC  [aka, weak]"), "{human}");
    // ... unless the user follows OFAC's guidance not to screen weak aliases.
    let config = data.path().join("config.toml");
    std::fs::write(&config, "[screening]\nweak_aliases = false\n").unwrap();
    let off = screen(data.path(), &["BNC", "--config", config.to_str().unwrap()]);
    assert!(hit(&off, "ofac_sdn:306").is_none(), "{off}");

    // Canada's bilingual names are two names: the exact English one scores 100.
    let irgc = screen(data.path(), &["Islamic Revolutionary Guard Corps"]);
    let best = &irgc["results"][0];
    assert_eq!(best["list_code"], "ca_sema", "{irgc}");
    assert_eq!(best["score"], 100, "{irgc}");
    assert_eq!(best["name"], "Islamic Revolutionary Guard Corps");

    // A World Bank debarment that has ended is not a hit by default, and is shown as ended
    // with --include-ended.
    let firms: Value = serde_json::from_slice(
        &std::fs::read(shared.join("lists/world_bank/SANCTIONED_FIRM.json")).unwrap(),
    )
    .unwrap();
    let today = jiff::Timestamp::now().to_string()[..10].to_owned();
    let ended = firms["response"]["ZPROCSUPP"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["DEBAR_TO_DATE"]
                .as_str()
                .is_some_and(|d| d < today.as_str() && d > "2000")
        })
        .expect("an ended debarment");
    let id = format!("world_bank:{}", ended["SUPP_ID"]);
    let name = ended["SUPP_NAME"].as_str().unwrap();
    let default = screen(data.path(), &[name]);
    assert!(hit(&default, &id).is_none(), "{id} {name}: {default}");
    let with_ended = screen(data.path(), &[name, "--include-ended"]);
    let m = hit(&with_ended, &id).unwrap_or_else(|| panic!("{with_ended}"));
    assert_eq!(m["ended_on"], ended["DEBAR_TO_DATE"]);
    let human = stdout(&sanctions(
        data.path(),
        &["screen", name, "--include-ended", "--allow-partial"],
    ));
    assert!(human.contains("listing ENDED on"), "{human}");
    let shown = stdout(&sanctions(data.path(), &["show", &id]));
    assert!(shown.contains("(ENDED on"), "{shown}");

    // EU entries are shown under a Latin name (Al-Qaida was "Мрежа Осама бин Ладен").
    let qaida = screen(data.path(), &["Мрежа Осама бин Ладен", "--lists", "eu"]);
    let name = qaida["results"][0]["name"].as_str().unwrap();
    assert!(
        name.chars()
            .all(|c| (c as u32) < 0x250 || !c.is_alphabetic()),
        "{name}"
    );
}
