//! The real binary's review workflow commands on a real SQLite file with the real lists.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{json, sanctions, stdout};

/// A data dir holding a database with the eight real lists imported (through the library,
/// which is what `lists import` runs).
fn imported() -> tempfile::TempDir {
    let shared = common::shared_data();
    let dir = tempfile::tempdir().unwrap();
    let mut store = sanctions_store::Store::open(&dir.path().join("sanctions.db")).unwrap();
    let outcomes =
        sanctions_service::ingest::import_dir(&mut store, &shared.join("lists"), &[]).unwrap();
    assert!(outcomes.iter().all(|o| !o.failed()));
    dir
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn spawn(data: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("USER", "tester")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn watchlist_alerts_and_review_from_the_command_line() {
    let data = imported();
    let d = data.path();

    // Two processes add to the watchlist at the same moment: both land.
    let a = spawn(
        d,
        &[
            "watchlist",
            "add",
            "Vladimir Putin",
            "--type",
            "individual",
            "--json",
        ],
    );
    let b = spawn(
        d,
        &[
            "watchlist",
            "add",
            "Banco Nacional de Cuba",
            "--note",
            "client 42",
            "--json",
        ],
    );
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let putin = json(&a);
    let cuba = json(&b);
    assert!(putin["id"].as_str().unwrap().starts_with("fav_"));
    assert!(putin["last_match_count"].as_u64().unwrap() >= 1);
    assert_eq!(cuba["note"], "client 42");

    // A duplicate (same name normalised, same type) is refused, naming the existing one.
    let dup = sanctions(
        d,
        &[
            "watchlist",
            "add",
            "PUTIN,  vladimir",
            "--type",
            "individual",
        ],
    );
    assert!(!dup.status.success());
    assert!(
        stderr(&dup).contains(putin["id"].as_str().unwrap()),
        "{}",
        stderr(&dup)
    );

    // Import from a CSV with a BOM, CRLF and quotes; duplicates counted.
    let file = d.join("names.csv");
    std::fs::write(&file, "\u{feff}name,type\r\n\"Kim, Jong Un\",individual\r\nVladimir Putin,individual\r\nZyxwv Unlisted,\r\n").unwrap();
    let imported = json(&sanctions(
        d,
        &["watchlist", "import", file.to_str().unwrap(), "--json"],
    ));
    assert_eq!(
        (
            imported["total"].as_u64(),
            imported["added"].as_u64(),
            imported["duplicates"].as_u64()
        ),
        (Some(3), Some(2), Some(1))
    );
    let list = json(&sanctions(d, &["watchlist", "list", "--json"]));
    assert_eq!(list.as_array().unwrap().len(), 4);
    let text = stdout(&sanctions(d, &["watchlist", "list"]));
    assert!(text.contains("4 names on the watchlist"), "{text}");

    // Re-screening unchanged data creates nothing.
    let rescreen = json(&sanctions(d, &["watchlist", "rescreen", "--json"]));
    assert_eq!(rescreen["changed"], 0);
    assert_eq!(rescreen["alert_ids"].as_array().unwrap().len(), 0);

    // Alerts: one favorite.match per matching favorite; acknowledge then resolve.
    let alerts = json(&sanctions(
        d,
        &["alerts", "--kind", "favorite.match", "--json"],
    ));
    let items = alerts["items"].as_array().unwrap();
    assert!(items.len() >= 3, "{alerts}");
    let id = items[0]["id"].as_str().unwrap();
    let no_note = sanctions(d, &["alerts", "ack", id, "--note", " "]);
    assert!(
        !no_note.status.success() && stderr(&no_note).contains("note"),
        "{}",
        stderr(&no_note)
    );
    assert!(
        sanctions(d, &["alerts", "ack", id, "--note", "looking"])
            .status
            .success()
    );
    assert!(
        sanctions(d, &["alerts", "resolve", id, "--note", "client cleared"])
            .status
            .success()
    );
    let again = sanctions(d, &["alerts", "ack", id, "--note", "x"]);
    assert!(stderr(&again).contains("resolved"), "{}", stderr(&again));

    // The favorite's screening is stored; decide on it.
    let scr = putin["last_screening_id"].as_str().unwrap();
    let shown = json(&sanctions(d, &["screenings", "show", scr, "--json"]));
    assert_eq!(shown["created_by"], "tester");
    assert_eq!(shown["list_versions"].as_object().unwrap().len(), 8);
    let entity = shown["results"][0]["entity_id"].as_str().unwrap();
    let bad = sanctions(
        d,
        &[
            "screenings",
            "decide",
            scr,
            "--decision",
            "true_match",
            "--note",
            "x",
            "--entity",
            "un:0",
        ],
    );
    assert!(
        !bad.status.success() && stderr(&bad).contains("not among the matches"),
        "{}",
        stderr(&bad)
    );
    let ok = sanctions(
        d,
        &[
            "screenings",
            "decide",
            scr,
            "--entity",
            entity,
            "--decision",
            "escalated",
            "--note",
            "same DOB",
        ],
    );
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(stdout(&ok).contains("escalated"));
    let listed = stdout(&sanctions(d, &["screenings", "--status", "escalated"]));
    assert!(listed.contains(scr), "{listed}");
    let unknown = sanctions(d, &["screenings", "show", "scr_01ARZ3NDEKTSV4RRFFQ69G5FAV"]);
    assert!(
        stderr(&unknown).contains("not found"),
        "{}",
        stderr(&unknown)
    );

    // The audit export, in CSV: screenings with their list versions, then decisions.
    let csv = stdout(&sanctions(
        d,
        &[
            "audit",
            "export",
            "--format",
            "csv",
            "--since",
            "2020-01-01",
        ],
    ));
    assert!(csv.starts_with("record,id,at,by,query"), "{csv}");
    assert!(
        csv.lines()
            .any(|l| l.starts_with("decision,") && l.contains("same DOB")),
        "{csv}"
    );
    assert!(csv.contains("ofac_sdn@"), "{csv}");
    let bad_date = sanctions(d, &["audit", "export", "--since", "last week"]);
    assert!(
        stderr(&bad_date).contains("not a date"),
        "{}",
        stderr(&bad_date)
    );

    // An entry as it stood at a list update.
    let updates = json(&sanctions(d, &["lists", "updates", "ofac_sdn", "--json"]));
    let update = updates[0]["update_id"].as_i64().unwrap().to_string();
    let at = json(&sanctions(
        d,
        &["show", "ofac_sdn:306", "--at", &update, "--json"],
    ));
    assert_eq!(at["entity_id"], "ofac_sdn:306");
    let none = sanctions(d, &["show", "ofac_sdn:306", "--at", "99999"]);
    assert!(
        stderr(&none).contains("no list update 99999"),
        "{}",
        stderr(&none)
    );

    // Remove.
    let fav = cuba["id"].as_str().unwrap();
    assert!(sanctions(d, &["watchlist", "remove", fav]).status.success());
    let gone = sanctions(d, &["watchlist", "remove", fav]);
    assert!(stderr(&gone).contains("not found"), "{}", stderr(&gone));
}

/// The README's quick start, as a newcomer runs it: the first command's import (with the
/// arguments the README gives, paths from the crate's folder) into a fresh data folder, then
/// the names of the README's tour, each found at the default threshold.
#[test]
fn the_readme_quick_start_works() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README starts with a sh block of commands");
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(lines.len(), 2, "two commands: {block}");
    assert_eq!(lines[1], "cargo test");
    let (import, ui) = lines[0]
        .split_once(" && ")
        .expect("import, then open the UI");
    assert_eq!(ui, "cargo run --release");
    let args: Vec<&str> = import
        .strip_prefix("cargo run --release -- ")
        .expect("the binary run through cargo")
        .split_whitespace()
        .collect();
    assert_eq!(args[..2], ["lists", "import"]);
    let folder = root.join(args[2]);
    assert!(
        folder.is_dir(),
        "{} (the README's list folder) is missing: the real list files are needed",
        folder.display()
    );

    let data = tempfile::tempdir().unwrap();
    let out = sanctions(data.path(), &["lists", "import", folder.to_str().unwrap()]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    for code in [
        "ofac_sdn",
        "ofac_cons",
        "eu",
        "un",
        "uk_hmt",
        "ca_sema",
        "au_dfat",
        "world_bank",
    ] {
        assert!(stdout(&out).contains(code), "{code} in {}", stdout(&out));
    }
    for name in [
        "Vladimir Putin",
        "Banco Nacional de Cuba",
        "Usama bin Ladin",
        "أسامة بن لادن",
    ] {
        assert!(readme.contains(&format!("`{name}`")), "{name} in the tour");
        let result = json(&sanctions(data.path(), &["screen", name, "--json"]));
        let matches = result["results"].as_array().unwrap();
        assert!(!matches.is_empty(), "{name}: {result}");
    }
    // Without a terminal, the second command's `sanctions` prints its help.
    let help = sanctions(data.path(), &[]);
    assert!(help.status.success());
    assert!(stdout(&help).contains("Usage"), "{}", stdout(&help));
}

/// `watchlist import` imports every good row and names each refused one with its line and
/// why (exit 3, as a batch with rows not screened); `--strict` imports nothing when a row is
/// bad (issue 27: one bad row of a million-name file made the whole import fail).
#[test]
fn a_watchlist_import_keeps_the_good_rows_and_names_each_refused_one() {
    let data = imported();
    let d = data.path();
    let file = d.join("customers.csv");
    std::fs::write(
        &file,
        "name\nVladimir Putin\n.\nZyxwv Unlisted\nMr\nPat D. King\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();

    let strict = sanctions(d, &["watchlist", "import", path, "--strict"]);
    assert_eq!(strict.status.code(), Some(3), "{}", stderr(&strict));
    let why = stderr(&strict);
    assert!(
        why.contains("2 bad row(s), nothing imported (--strict)"),
        "{why}"
    );
    assert!(
        why.contains("line 3: ") && why.contains("line 5: "),
        "{why}"
    );
    let list = json(&sanctions(d, &["watchlist", "list", "--json"]));
    assert_eq!(list.as_array().unwrap().len(), 0, "{list}");

    let out = sanctions(d, &["watchlist", "import", path, "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (summary["total"].as_u64(), summary["added"].as_u64()),
        (Some(3), Some(3))
    );
    let warnings = stderr(&out);
    for line in ["line 3: ", "line 5: "] {
        assert!(warnings.contains(line), "{line}: {warnings}");
    }
    assert!(
        warnings.contains("2 row(s) refused (line 3, line 5); the others were imported"),
        "{warnings}"
    );
    let list = json(&sanctions(d, &["watchlist", "list", "--json"]));
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.contains(&"Pat D. King"), "{names:?}");
}

/// A customer file's `dob` and `country` columns are kept with each name and weighed in its
/// screenings, as `watchlist add --dob --country` and `batch` weigh them (they were dropped:
/// every re-screen then lacked the evidence); a row whose date of birth or country cannot be
/// read is refused with its line and why, the others imported.
#[test]
fn a_watchlist_import_keeps_each_rows_date_of_birth_and_country() {
    let data = imported();
    let d = data.path();
    let file = d.join("customers.csv");
    std::fs::write(
        &file,
        "customer_id,name,dob,country\n\
         C1,Vladimir Putin,07.10.1952,Russia\n\
         C2,Zyxwv Unlisted,31/31/1990,FR\n\
         C3,Qwerty Unlisted,,Atlantis\n\
         C4,Sergey Lavrov,1970,\n",
    )
    .unwrap();
    let out = sanctions(
        d,
        &["watchlist", "import", file.to_str().unwrap(), "--json"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let warnings = stderr(&out);
    assert!(
        warnings.contains("line 3: date of birth must be YYYY, YYYY-MM or YYYY-MM-DD"),
        "{warnings}"
    );
    assert!(
        warnings.contains("line 4: unknown country") && warnings.contains("Atlantis"),
        "{warnings}"
    );
    let list = json(&sanctions(d, &["watchlist", "list", "--json"]));
    let kept: Vec<(&str, &str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let text = |key: &str| f[key].as_str().unwrap_or("-");
            (text("name"), text("date_of_birth"), text("country"))
        })
        .collect();
    assert_eq!(kept.len(), 2, "{list}");
    assert!(
        kept.contains(&("Vladimir Putin", "1952-10-07", "RU")),
        "{kept:?}"
    );
    assert!(kept.contains(&("Sergey Lavrov", "1970", "-")), "{kept:?}");
    // Weighed as `screen` weighs them: the score of the name with its evidence, not without.
    let score = |args: &[&str]| {
        let mut all = vec!["screen", "Sergey Lavrov", "--json"];
        all.extend(args);
        json(&sanctions(d, &all))["results"][0]["score"].clone()
    };
    let (screened, bare) = (score(&["--dob", "1970"]), score(&[]));
    assert_ne!(screened, bare, "a date of birth 20 years off weighs");
    let alerts = json(&sanctions(
        d,
        &["alerts", "--kind", "favorite.match", "--json"],
    ));
    let lavrov = alerts["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap_or("").contains("Lavrov"))
        .unwrap_or_else(|| panic!("an alert for Lavrov: {alerts}"));
    let screening = json(&sanctions(
        d,
        &[
            "screenings",
            "show",
            lavrov["screening_id"].as_str().unwrap(),
            "--json",
        ],
    ));
    assert_eq!(screening["results"][0]["score"], screened, "{screening}");
}

/// The real binary run as the OS user `user` (the reviewer a local decision is recorded as),
/// with the configuration file `config`.
fn as_user(data: &Path, user: &str, config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .arg("--config")
        .arg(config)
        .args(args)
        .env("USER", user)
        .output()
        .unwrap()
}

#[test]
fn four_eyes_review_needs_a_second_os_user() {
    let dir = imported();
    let d = dir.path();
    let config = d.join("four-eyes.toml");
    std::fs::write(
        &config,
        "[review]\nfour_eyes = true\n[briefs]\nfeeds = []\n",
    )
    .unwrap();
    let screened = json(&as_user(
        d,
        "alice",
        &config,
        &["screen", "Vladimir Putin", "--json"],
    ));
    let id = screened["id"].as_str().unwrap();
    let entity = screened["results"][0]["entity_id"].as_str().unwrap();
    let args = [
        "screenings",
        "decide",
        id,
        "--entity",
        entity,
        "--decision",
        "true_match",
        "--note",
        "same DOB",
    ];
    let proposed = as_user(d, "alice", &config, &args);
    assert!(proposed.status.success(), "{}", stderr(&proposed));
    assert!(
        stdout(&proposed).contains("Proposed true_match"),
        "{}",
        stdout(&proposed)
    );
    let pending = as_user(d, "bob", &config, &["review", "pending"]);
    assert!(stdout(&pending).contains(id), "{}", stdout(&pending));
    // The proposer cannot confirm: refused, saying why.
    let own = as_user(
        d,
        "alice",
        &config,
        &["review", "confirm", id, "--note", "me"],
    );
    assert!(!own.status.success());
    assert!(
        stderr(&own).contains("alice proposed true_match")
            && stderr(&own).contains("a second, different reviewer"),
        "{}",
        stderr(&own)
    );
    let confirmed = as_user(
        d,
        "bob",
        &config,
        &["review", "confirm", id, "--note", "agreed"],
    );
    assert!(confirmed.status.success(), "{}", stderr(&confirmed));
    assert!(
        stdout(&confirmed).contains("is now true_match"),
        "{}",
        stdout(&confirmed)
    );
    let shown = stdout(&as_user(d, "carol", &config, &["screenings", "show", id]));
    let alice = shown.find("alice").unwrap_or_else(|| panic!("{shown}"));
    let bob = shown.find("bob").unwrap_or_else(|| panic!("{shown}"));
    assert!(alice < bob, "{shown}");
    assert!(shown.contains("[proposes true_match]"), "{shown}");
    assert!(shown.contains("[confirms #"), "{shown}");
    let empty = stdout(&as_user(d, "bob", &config, &["review", "pending"]));
    assert!(!empty.contains(id), "{empty}");
}

/// The top score of the stored screening of a favorite added with `evidence`, then removed
/// (two customers of one name cannot both be on one watchlist at once), with its `list` line.
fn favorite_top_score(d: &Path, evidence: &[&str]) -> (u64, String) {
    let mut args = vec!["watchlist", "add", "Vladimir Putin", "--type", "individual"];
    args.extend_from_slice(evidence);
    args.push("--json");
    let fav = json(&sanctions(d, &args));
    let listed = stdout(&sanctions(d, &["watchlist", "list"]));
    let scr = fav["last_screening_id"].as_str().unwrap();
    let shown = json(&sanctions(d, &["screenings", "show", scr, "--json"]));
    let id = fav["id"].as_str().unwrap();
    assert!(sanctions(d, &["watchlist", "remove", id]).status.success());
    (shown["results"][0]["score"].as_u64().unwrap(), listed)
}

fn screen_top_score(d: &Path, evidence: &[&str]) -> u64 {
    let mut args = vec!["screen", "Vladimir Putin", "--type", "individual"];
    args.extend_from_slice(evidence);
    args.push("--json");
    json(&sanctions(d, &args))["results"][0]["score"]
        .as_u64()
        .unwrap()
}

/// A favorite's date of birth and country weigh as in `screen`: a customer whose date of
/// birth contradicts the listed one scores lower than one whose agrees.
#[test]
fn a_favorites_date_of_birth_and_country_weigh_as_in_screen() {
    let data = imported();
    let d = data.path();
    let agrees = ["--dob", "1952-10-07", "--country", "RU"];
    let contradicts = ["--dob", "1990-01-01", "--country", "RU"];
    let (fav_agrees, listed) = favorite_top_score(d, &agrees);
    assert!(listed.contains("[dob 1952-10-07, country RU]"), "{listed}");
    let (fav_contradicts, _) = favorite_top_score(d, &contradicts);
    assert_eq!(fav_agrees, screen_top_score(d, &agrees));
    assert_eq!(fav_contradicts, screen_top_score(d, &contradicts));
    assert!(
        fav_contradicts < fav_agrees,
        "{fav_contradicts} vs {fav_agrees}"
    );

    // The country's name is taken as `screen --country` takes it, stored as its code.
    let named = json(&sanctions(
        d,
        &[
            "watchlist",
            "add",
            "Kim Jong Un",
            "--country",
            "Korea, Democratic People's Republic of",
            "--json",
        ],
    ));
    assert_eq!(named["date_of_birth"], serde_json::Value::Null);
    // A re-screen keeps the evidence: the favorite's matches do not change.
    let rescreen = json(&sanctions(d, &["watchlist", "rescreen", "--json"]));
    assert_eq!(rescreen["changed"], 0, "{rescreen}");

    for (flag, value) in [("--dob", "soon"), ("--country", "Atlantis")] {
        let bad = sanctions(d, &["watchlist", "add", "Someone Else", flag, value]);
        assert!(!bad.status.success());
        let field = if flag == "--dob" {
            "date_of_birth"
        } else {
            "country"
        };
        assert!(stderr(&bad).contains(field), "{}", stderr(&bad));
    }
}
