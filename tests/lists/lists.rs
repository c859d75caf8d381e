//! The real binary importing the real lists into a real SQLite file.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{json, sanctions, stdout};

use std::path::{Path, PathBuf};

fn counts(data_dir: &Path) -> Vec<(String, u64)> {
    json(&sanctions(data_dir, &["lists", "--json"]))
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["code"].as_str().unwrap().to_owned(),
                l["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A folder holding `links` as `<code> -> target` symlinks, the layout `lists import` reads.
fn layout(links: &[(&str, PathBuf)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (code, target) in links {
        std::os::unix::fs::symlink(target, dir.path().join(code)).unwrap();
    }
    dir
}

#[test]
fn imports_all_eight_real_lists_with_the_published_counts() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let out = sanctions(
        data.path(),
        &["lists", "import", shared.join("lists").to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = [
        ("ofac_sdn", 14_965),
        ("ofac_cons", 442),
        ("eu", 1_024),
        ("un", 1_003),
        ("uk_hmt", 4_688),
        ("ca_sema", 4_759),
        ("au_dfat", 3_062),
        ("world_bank", 1_370),
    ];
    let expected: Vec<(String, u64)> = expected.iter().map(|(c, n)| (c.to_string(), *n)).collect();
    assert_eq!(counts(data.path()), expected);
    assert_eq!(expected.iter().map(|(_, n)| n).sum::<u64>(), 31_313);

    let cuba = json(&sanctions(data.path(), &["show", "ofac_sdn:306", "--json"]));
    assert_eq!(cuba["primary_name"], "BANCO NACIONAL DE CUBA");
    assert_eq!(cuba["list_name"], "OFAC SDN");
    assert_eq!(cuba["kind"], "entity");
    let human = stdout(&sanctions(data.path(), &["show", "ofac_sdn:306"]));
    assert!(
        human.contains("BANCO NACIONAL DE CUBA") && human.contains("CUBA"),
        "{human}"
    );

    // The same files again: every list records an update with zero changes.
    let again = sanctions(
        data.path(),
        &["lists", "import", shared.join("lists").to_str().unwrap()],
    );
    assert!(again.status.success());
    assert_eq!(counts(data.path()), expected);
    let updates = json(&sanctions(
        data.path(),
        &["lists", "updates", "un", "--json"],
    ));
    let updates = updates.as_array().unwrap();
    assert_eq!(updates.len(), 2);
    assert!(
        updates[0]["update_id"].as_i64() > updates[1]["update_id"].as_i64(),
        "newest first"
    );
    assert_eq!(
        [
            &updates[0]["added"],
            &updates[0]["removed"],
            &updates[0]["changed"],
            &updates[0]["total"]
        ],
        [0, 0, 0, 1003]
    );
    assert_eq!(updates[1]["added"], 1003);
    let file = &updates[0]["files"][0];
    assert_eq!(file["name"], "consolidated.xml");
    assert_eq!(
        file["sha256"],
        "66b392a4090868d2d39161e8d748efd39138377b0e6e60b7921aa67a4f99c8bf"
    );
}

#[test]
fn a_truncated_eu_file_fails_with_its_position_and_keeps_the_previous_eu_data() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let good = layout(&[
        ("eu", shared.join("lists/eu")),
        ("un", shared.join("lists/un")),
    ]);
    let out = sanctions(
        data.path(),
        &["lists", "import", good.path().to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stdout(&out));

    let bad = layout(&[
        ("eu", shared.join("bad/eu")),
        ("un", shared.join("lists/un")),
    ]);
    let out = sanctions(
        data.path(),
        &["lists", "import", bad.path().to_str().unwrap()],
    );
    assert!(!out.status.success());
    let text = stdout(&out);
    let eu_line = text.lines().find(|l| l.starts_with("eu ")).unwrap();
    assert!(eu_line.contains("FAILED"), "{text}");
    assert!(
        eu_line.contains("PARTIAL_TRUNCATED_fsf_xml_1_1_generated_2022-03-18.xml"),
        "{eu_line}"
    );
    assert!(
        eu_line.contains("line "),
        "the error names the position: {eu_line}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("un ") && l.contains("imported")),
        "{text}"
    );
    let counts = counts(data.path());
    assert!(counts.contains(&("eu".to_owned(), 1_024)), "{counts:?}");
    assert!(counts.contains(&("un".to_owned(), 1_003)), "{counts:?}");
}

#[test]
fn an_older_ofac_edition_then_the_current_one_is_a_real_update() {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let old = layout(&[(
        "ofac_sdn",
        shared.join("editions/ofac_sdn/consistent_2023-12-28"),
    )]);
    assert!(
        sanctions(
            data.path(),
            &["lists", "import", old.path().to_str().unwrap()]
        )
        .status
        .success()
    );
    let new = layout(&[("ofac_sdn", shared.join("lists/ofac_sdn"))]);
    assert!(
        sanctions(
            data.path(),
            &["lists", "import", new.path().to_str().unwrap()]
        )
        .status
        .success()
    );
    let updates = json(&sanctions(
        data.path(),
        &["lists", "updates", "ofac_sdn", "--json"],
    ));
    let latest = &updates[0];
    assert_eq!(latest["total"], 14_965);
    let (added, removed, changed) = (
        latest["added"].as_u64().unwrap(),
        latest["removed"].as_u64().unwrap(),
        latest["changed"].as_u64().unwrap(),
    );
    assert!(added > 0 && removed > 0 && changed > 0, "{latest}");
    assert_eq!(
        updates[1]["total"].as_u64().unwrap() + added - removed,
        14_965
    );
}

#[test]
fn a_missing_folder_is_skipped_and_an_empty_store_explains_how_to_get_data() {
    let data = tempfile::tempdir().unwrap();
    let text = stdout(&sanctions(data.path(), &["lists"]));
    assert!(
        text.contains("lists import DIR") && text.contains("lists update"),
        "{text}"
    );

    let empty = tempfile::tempdir().unwrap();
    let out = sanctions(
        data.path(),
        &["lists", "import", empty.path().to_str().unwrap()],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no list folder"));

    let shared = common::shared_data();
    let only_un = layout(&[("un", shared.join("lists/un"))]);
    let out = sanctions(
        data.path(),
        &["lists", "import", only_un.path().to_str().unwrap()],
    );
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("eu ") && l.contains("skipped")),
        "{text}"
    );
}
