//! Damaged copies of the real list files and of a real database (issue 22): a bad byte, a
//! zip bomb, a sparse 2 GB file, a stray quote, a damaged page of the names table, and a
//! write-protected copy of a database in use. Every damaged copy is made here, in a temp
//! folder, from the real files in `../shared/data`; none is committed.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{as_reader, sanctions, stdout};
use serde_json::Value;

/// The real list files; a missing folder fails the test (the damage is made from them).
fn lists() -> PathBuf {
    common::shared_data().join("lists")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}

/// A layout folder: each (code, source folder) copied, with `change` applied to the copy.
fn layout(codes: &[&str], change: impl Fn(&str, &Path)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for code in codes {
        let to = dir.path().join(code);
        std::fs::create_dir(&to).unwrap();
        for entry in std::fs::read_dir(lists().join(code)).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
        change(code, &to);
    }
    dir
}

fn import(data: &Path, layout: &Path, json: bool) -> Output {
    let mut args = vec!["lists", "import", layout.to_str().unwrap()];
    if json {
        args.push("--json");
    }
    sanctions(data, &args)
}

fn list_count(data: &Path, list: &str) -> u64 {
    let out = sanctions(data, &["lists", "--json"]);
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    all.as_array()
        .unwrap()
        .iter()
        .find(|l| l["code"] == list)
        .unwrap()["count"]
        .as_u64()
        .unwrap()
}

fn outcome<'a>(report: &'a Value, list: &str) -> &'a Value {
    report
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["list_code"] == list)
        .unwrap()
}

#[test]
fn three_invalid_bytes_in_one_un_name_refuse_the_file_and_keep_the_list() {
    let data = tempfile::tempdir().unwrap();
    let good = layout(&["un"], |_, _| {});
    let first = import(data.path(), good.path(), true);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let report: Value = serde_json::from_slice(&first.stdout).unwrap();
    let notes = &outcome(&report, "un")["update"]["notes"];
    assert!(
        notes
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "consolidated.xml: read as UTF-8"),
        "the report states the encoding: {notes}"
    );

    let damaged = layout(&["un"], |_, dir| {
        let path = dir.join("consolidated.xml");
        let bytes = std::fs::read(&path).unwrap();
        let at = find(&bytes, b"<FIRST_NAME>FRANK KAKOLELE") + b"<FIRST_NAME>FRANK".len();
        let mut out = bytes[..at].to_vec();
        out.extend_from_slice(b"\xC3\x28\xFF");
        out.extend_from_slice(&bytes[at..]);
        std::fs::write(&path, out).unwrap();
    });
    let out = import(data.path(), damaged.path(), false);
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let un = text.lines().find(|l| l.starts_with("un ")).unwrap();
    assert!(un.contains("FAILED"), "{text}");
    assert!(
        un.contains("consolidated.xml, line 45 (byte offset ")
            && un.contains("invalid UTF-8 bytes (0xC3 0x28 0xFF"),
        "names the file, the line and the offset: {un}"
    );
    assert!(!text.contains("changed)"), "nothing was re-read: {text}");
    assert_eq!(list_count(data.path(), "un"), 1_003);
    // The UN list still screens, from its previous data.
    let screen = sanctions(
        data.path(),
        &["screen", "FRANK KAKOLELE", "--lists", "un", "--json"],
    );
    assert_eq!(code(&screen), 0, "{}", stderr(&screen));
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap()
}

/// The real DFAT workbook with its shared strings replaced by `strings`.
fn dfat_with_shared_strings(dir: &Path, strings: &[u8]) {
    let path = dir.join("regulation8_consolidated.xlsx");
    let real = std::fs::read(&path).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(real)).unwrap();
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9));
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().into_owned();
        out.start_file(name.as_str(), options).unwrap();
        if name == "xl/sharedStrings.xml" {
            out.write_all(strings).unwrap();
        } else {
            std::io::copy(&mut entry, &mut out).unwrap();
        }
    }
    std::fs::write(&path, out.finish().unwrap().into_inner()).unwrap();
}

#[test]
fn an_xlsx_bomb_is_refused_and_the_other_lists_are_imported() {
    // 64 MiB of shared strings that deflate to about 64 KB (the issue's bomb unpacked to
    // 4 GiB and aborted the run): refused from the zip directory, before calamine.
    let mut strings = br#"<?xml version="1.0" encoding="UTF-8"?><sst uniqueCount="1">"#.to_vec();
    strings.resize(64 << 20, b' ');
    strings.extend_from_slice(b"<si><t>x</t></si></sst>");
    let files = layout(&["au_dfat", "un"], |code, dir| {
        if code == "au_dfat" {
            dfat_with_shared_strings(dir, &strings);
        }
    });
    let data = tempfile::tempdir().unwrap();
    let out = import(data.path(), files.path(), false);
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let au = text.lines().find(|l| l.starts_with("au_dfat ")).unwrap();
    assert!(
        au.contains("FAILED")
            && au.contains("regulation8_consolidated.xlsx: entry xl/sharedStrings.xml unpacks")
            && au.contains("a ratio over 100"),
        "{au}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("un ") && l.contains("imported")),
        "{text}"
    );
    let err = stderr(&out);
    assert!(
        !err.contains("panicked") && !err.contains("backtrace") && !err.contains("memory"),
        "{err}"
    );
    assert_eq!(list_count(data.path(), "un"), 1_003);
    assert_eq!(list_count(data.path(), "au_dfat"), 0);
}

#[test]
fn a_lying_shared_string_count_is_refused_before_calamine_reserves_it() {
    let strings = br#"<sst uniqueCount="4000000000"><si><t>x</t></si></sst>"#;
    let files = layout(&["au_dfat"], |_, dir| {
        dfat_with_shared_strings(dir, strings)
    });
    let data = tempfile::tempdir().unwrap();
    let out = import(data.path(), files.path(), false);
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("declares 4000000000 strings"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_sparse_2_gb_sdn_csv_is_refused_before_it_is_hashed() {
    let files = layout(&["ofac_sdn"], |_, dir| {
        let sdn = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("sdn.csv"))
            .unwrap();
        sdn.set_len(2 << 30).unwrap(); // sparse: nothing is written
    });
    let data = tempfile::tempdir().unwrap();
    let out = import(data.path(), files.path(), false);
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("sdn.csv: the file is 2147483648 bytes, larger than the"),
        "{}",
        stdout(&out)
    );
    // The failed import records the file by name and size only: it was never read.
    let updates = sanctions(data.path(), &["lists", "updates", "ofac_sdn", "--json"]);
    let updates: Value = serde_json::from_slice(&updates.stdout).unwrap();
    let files = updates[0]["files"].as_array().unwrap();
    let sdn = files.iter().find(|f| f["name"] == "sdn.csv").unwrap();
    assert_eq!(sdn["bytes"], 2_147_483_648u64);
    assert_eq!(sdn["sha256"], "", "not hashed");
    let add = files.iter().find(|f| f["name"] == "add.csv").unwrap();
    assert_eq!(add["sha256"].as_str().unwrap().len(), 64);
}

#[test]
fn a_stray_quote_in_an_ofac_name_is_reported_with_its_line() {
    for (damage, wanted) in [
        (
            "4715,SHINING PATH\",",
            "a double quote inside a field that is not quoted",
        ),
        (
            "4715,\"SHINING PATH\"\",",
            "text after the closing quote of a quoted field",
        ),
    ] {
        let files = layout(&["ofac_sdn"], |_, dir| {
            let path = dir.join("sdn.csv");
            let text = std::fs::read(&path).unwrap();
            let at = find(&text, b"4715,\"SHINING PATH\",");
            let mut out = text[..at].to_vec();
            out.extend_from_slice(damage.as_bytes());
            out.extend_from_slice(&text[at + "4715,\"SHINING PATH\",".len()..]);
            std::fs::write(&path, out).unwrap();
        });
        let data = tempfile::tempdir().unwrap();
        let out = import(data.path(), files.path(), false);
        assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        assert!(
            text.contains("sdn.csv, line 101: ") && text.contains(wanted),
            "{damage}: {text}"
        );
    }
}

/// The first leaf page of the names table holding only `list`'s names, and its cell count.
fn names_page_of(db: &Path, list: &str) -> (u64, u64, u16) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let page_size: u64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    let mut stmt = conn
        .prepare("SELECT pageno FROM dbstat WHERE name = 'names' AND pagetype = 'leaf'")
        .unwrap();
    let pages: Vec<u64> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let bytes = std::fs::read(db).unwrap();
    let others = ["un:", "world_bank:", "ca_sema:"];
    for page in pages {
        let content = &bytes[((page - 1) * page_size) as usize..(page * page_size) as usize];
        let mine = others.iter().all(|o| {
            let has = content.windows(o.len()).any(|w| w == o.as_bytes());
            has == (*o == format!("{list}:"))
        });
        if mine {
            // A leaf page's header: type (1 byte), first freeblock (2), cell count (2).
            let cells = u16::from_be_bytes([content[3], content[4]]);
            return (page, page_size, cells);
        }
    }
    panic!("no leaf page of the names table holds only {list} names");
}

#[test]
fn a_damaged_page_of_the_names_table_makes_its_list_unavailable_not_silent() {
    let files = layout(&["un", "ca_sema", "world_bank"], |_, _| {});
    let data = tempfile::tempdir().unwrap();
    let out = import(data.path(), files.path(), false);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let check = sanctions(data.path(), &["store", "check", "--json"]);
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));

    // Halve the cell count of one leaf page of Canada's names: its other cells vanish from
    // every read, and SQLite reports no error on the reads.
    let db = data.path().join("sanctions.db");
    let (page, page_size, cells) = names_page_of(&db, "ca_sema");
    let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start((page - 1) * page_size + 3))
        .unwrap();
    file.write_all(&(cells / 2).to_be_bytes()).unwrap();
    drop(file);

    let check = sanctions(data.path(), &["store", "check", "--json"]);
    assert_eq!(code(&check), 3, "{}{}", stdout(&check), stderr(&check));
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["integrity"]["ok"], false, "{report}");
    let ca = report["lists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["list_code"] == "ca_sema")
        .unwrap();
    assert_eq!(ca["status"], "damaged", "{report}");
    assert!(ca["names_found"].as_u64() < ca["names_stored"].as_u64());
    assert!(
        ca["message"]
            .as_str()
            .unwrap()
            .contains("Re-import the list"),
        "{ca}"
    );
    let un = report["lists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["list_code"] == "un")
        .unwrap();
    assert_eq!(un["status"], "ok");

    // Coverage says so: Canada has no usable data, screening against it is refused.
    let refusal = canada_is_unavailable(data.path());
    assert!(refusal.contains("store check"), "{refusal}");
    // The other lists still screen.
    let un_only = sanctions(
        data.path(),
        &["screen", "AL-QAIDA", "--lists", "un,world_bank", "--json"],
    );
    assert_eq!(code(&un_only), 0, "{}", stderr(&un_only));
    let result: Value = serde_json::from_slice(&un_only.stdout).unwrap();
    assert_eq!(result["coverage"]["complete"], true, "{result}");
    assert!(!result["results"].as_array().unwrap().is_empty());
    // With --allow-partial, Canada is reported missing in the coverage.
    let partial = sanctions(
        data.path(),
        &["screen", "AL-QAIDA", "--allow-partial", "--json"],
    );
    assert_eq!(code(&partial), 0, "{}", stderr(&partial));
    let result: Value = serde_json::from_slice(&partial.stdout).unwrap();
    let missing = result["coverage"]["missing"].as_array().unwrap();
    assert!(missing.iter().any(|m| m == "ca_sema"), "{result}");
    assert_eq!(result["coverage"]["complete"], false);
    // The quick check at open saw the damaged page, and the log says what to do.
    let log = std::fs::read_to_string(data.path().join("sanctions.log")).unwrap();
    assert!(
        log.contains("the database failed its quick check (Fragmentation of"),
        "{log}"
    );
    assert!(log.contains("Canada SEMA is unavailable"), "{log}");

    // An import of another list checks the whole file afterwards and says it is damaged.
    let bank = layout(&["world_bank"], |_, _| {});
    let other = import(data.path(), bank.path(), false);
    assert_eq!(code(&other), 3, "{}{}", stdout(&other), stderr(&other));
    assert!(
        stderr(&other).contains("the database failed its integrity check after the import"),
        "{}",
        stderr(&other)
    );

    // The repair the message names: re-importing the list (unchanged files) rewrites the
    // names that do not read back, and the list is available again.
    let canada = layout(&["ca_sema"], |_, _| {});
    let again = import(data.path(), canada.path(), false);
    assert_eq!(code(&again), 0, "{}{}", stdout(&again), stderr(&again));
    let check = sanctions(data.path(), &["store", "check"]);
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));
    assert_eq!(list_count(data.path(), "ca_sema"), 4_759);
}

/// A name changed behind the program's back through SQLite itself (the database stays
/// sound, so its quick check passes and the screening index file still matches the list
/// versions): the names' digests find it, even after a start that remembered every name
/// matching on the files as they were.
#[test]
fn a_name_changed_through_sqlite_after_a_clean_start_makes_its_list_unavailable() {
    let files = layout(&["un", "ca_sema"], |_, _| {});
    let data = tempfile::tempdir().unwrap();
    let out = import(data.path(), files.path(), false);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let db = data.path().join("sanctions.db");
    until_settled(&db);
    assert_eq!(list_count(data.path(), "ca_sema"), 4_759);
    let marker = data.path().join("sanctions.db-names-checked");
    assert!(
        marker.exists(),
        "a clean start on settled files is remembered"
    );
    let screened = sanctions(
        data.path(),
        &["screen", "AL-QAIDA", "--lists", "ca_sema,un"],
    );
    assert_eq!(code(&screened), 0, "{}", stderr(&screened));

    let conn = rusqlite::Connection::open(&db).unwrap();
    let changed = conn
        .execute(
            "UPDATE names SET name = name || ' X' WHERE entity_id = \
             (SELECT entity_id FROM entities WHERE list_code = 'ca_sema' LIMIT 1)",
            [],
        )
        .unwrap();
    assert!(changed > 0);
    drop(conn);

    canada_is_unavailable(data.path());
}

/// Asserts that Canada SEMA is unavailable while the UN list is whole: `lists` shows it with
/// no entries, and a screening that asks for it is refused (exit 4) naming it. Returns the
/// refusal's message.
fn canada_is_unavailable(data: &Path) -> String {
    assert_eq!(list_count(data, "ca_sema"), 0, "Canada is unavailable");
    assert_eq!(list_count(data, "un"), 1_003);
    let refused = sanctions(data, &["screen", "AL-QAIDA", "--lists", "ca_sema,un"]);
    let message = stderr(&refused);
    assert_eq!(code(&refused), 4, "{}{message}", stdout(&refused));
    assert!(message.contains("Canada SEMA (ca_sema)"), "{message}");
    message
}

/// Waits until the database at `db` and its write-ahead log were last changed over a
/// second ago: the age at which a passed check of their state is remembered.
fn until_settled(db: &Path) {
    let changed = |path: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).map_or(0, |m| m.ctime().max(m.mtime()))
    };
    let wal = db.with_file_name("sanctions.db-wal");
    let now = || {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        since.unwrap().as_secs() as i64
    };
    while now() < changed(db).max(changed(&wal)) + 2 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Copies the database files of `from` (the main file and its journals) into `to`, made
/// read-only.
fn write_protected_copy(from: &Path, to: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir(to).unwrap();
    let mut copied = Vec::new();
    for entry in std::fs::read_dir(from).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("sanctions.db") {
            std::fs::copy(from.join(&name), to.join(&name)).unwrap();
            std::fs::set_permissions(to.join(&name), std::fs::Permissions::from_mode(0o444))
                .unwrap();
            copied.push(name);
        }
    }
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o555)).unwrap();
    copied.sort();
    copied
}

#[test]
fn a_write_protected_copy_of_a_database_in_use_serves_every_read() {
    use std::os::unix::fs::PermissionsExt;
    let live = tempfile::tempdir().unwrap();
    let db = live.path().join("sanctions.db");
    // A database in use: this process holds it open, and its last change is in the -wal.
    let mut store = sanctions_store::Store::open(&db).unwrap();
    let outcomes = sanctions_service::ingest::import_dir(
        &mut store,
        &lists(),
        &[sanctions_model::ListCode::Un],
    )
    .unwrap();
    assert!(outcomes.iter().all(|o| !o.failed()));
    store
        .record_failed_import(sanctions_model::ListCode::Un, "test", &[], "in the -wal")
        .unwrap();
    let outer = tempfile::tempdir().unwrap();
    std::fs::set_permissions(outer.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ro = outer.path().join("ro");
    let copied = write_protected_copy(live.path(), &ro);
    drop(store);
    assert_eq!(
        copied,
        ["sanctions.db", "sanctions.db-shm", "sanctions.db-wal"]
    );
    assert!(
        std::fs::metadata(ro.join("sanctions.db-wal"))
            .unwrap()
            .len()
            > 0
    );

    let lists = as_reader(&ro, &["lists"]);
    assert_eq!(code(&lists), 0, "{}", stderr(&lists));
    assert!(
        stdout(&lists).contains("read from a private copy with the -wal applied"),
        "says so: {}",
        stdout(&lists)
    );
    let updates = as_reader(&ro, &["lists", "updates", "un", "--json"]);
    let updates: Value = serde_json::from_slice(&updates.stdout).unwrap();
    assert_eq!(
        updates[0]["failed"], "in the -wal",
        "the change in the -wal is read: {updates}"
    );
    for args in [
        &["lists", "--json"][..],
        &["show", "un:113219"],
        &["screen", "AL-QAIDA", "--lists", "un"],
        &["store", "check"],
    ] {
        let out = as_reader(&ro, args);
        assert_eq!(code(&out), 0, "{args:?}: {}{}", stdout(&out), stderr(&out));
    }
}

#[test]
fn a_write_protected_folder_with_an_empty_wal_is_opened_immutable() {
    use std::os::unix::fs::PermissionsExt;
    let live = tempfile::tempdir().unwrap();
    let files = layout(&["un"], |_, _| {});
    assert_eq!(code(&import(live.path(), files.path(), false)), 0);
    // Journal files as SQLite leaves them after a checkpoint: an empty -wal, a -shm.
    std::fs::write(live.path().join("sanctions.db-wal"), b"").unwrap();
    std::fs::write(live.path().join("sanctions.db-shm"), vec![0u8; 32768]).unwrap();
    let outer = tempfile::tempdir().unwrap();
    std::fs::set_permissions(outer.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ro = outer.path().join("ro");
    write_protected_copy(live.path(), &ro);
    let out = as_reader(&ro, &["lists"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("opened read-only and immutable"),
        "{}",
        stdout(&out)
    );
    let screen = as_reader(&ro, &["screen", "AL-QAIDA", "--lists", "un"]);
    assert_eq!(code(&screen), 0, "{}{}", stdout(&screen), stderr(&screen));
}
