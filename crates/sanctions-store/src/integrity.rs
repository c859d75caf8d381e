//! The store checking itself: SQLite's structural checks, and per list a digest (count and
//! checksum) of the names as stored at import, compared with the names read back when the
//! screening index is built.
//!
//! A damaged page of the names table does not make SQLite fail: the rows on it just vanish
//! from the reads, and a screening would answer "no match" with every list complete. The
//! digest turns that silent loss into a list reported unavailable, with how to repair it.

use std::collections::BTreeMap;

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::{Store, StoreError};
use crate::model::ParsedList;
use crate::model::{EntityNames, ListCode};

/// The names of one list: how many, and a SHA-256 over the entry ids and names in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameDigest {
    pub names: u64,
    pub checksum: String,
}

/// A list whose names read back differ from those stored at import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameDamage {
    pub list: ListCode,
    /// The names recorded at import.
    pub expected: u64,
    /// The names read back.
    pub found: u64,
}

impl NameDamage {
    /// What is wrong and how to repair it, for operators.
    pub fn message(&self) -> String {
        format!(
            "{list} is unavailable: {found} names read back where {expected} were stored at import \
             (or their checksum differs): the database is damaged. Re-import the list \
             (`sanctions lists import DIR --lists {code}` or `sanctions lists update {code}`), \
             or restore the database from a backup; `sanctions store check` shows the damage",
            list = self.list.display_name(),
            found = self.found,
            expected = self.expected,
            code = self.list.code(),
        )
    }
}

/// The result of SQLite's check of the whole file: `ok`, or the problems it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegrityReport {
    /// `quick_check` or `integrity_check`.
    pub check: &'static str,
    /// The problems found (empty: the file is sound), at most [`MAX_PROBLEMS`].
    pub problems: Vec<String>,
    pub elapsed_ms: u64,
}

impl IntegrityReport {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// The most problems a check reports (SQLite stops there).
pub const MAX_PROBLEMS: usize = 100;

/// Up to this size of the database file the check after an import is the whole file's full
/// `integrity_check` ([`Store::integrity_after_import`]): with the eight lists alone (51 MB)
/// it takes 0.13-0.17 s, where the quick check and the list tables' full check take
/// 0.21-0.24 s, since the list tables are then most of the file.
pub const FULL_CHECK_UP_TO: i64 = 128 * 1024 * 1024;

/// The tables a list import or update writes: the lists, their updates, entries, names and
/// the entries' history, the names' digests, and the update's event for the webhooks
/// (`tests.rs`: `a_list_import_writes_only_the_list_tables`).
pub const LIST_TABLES: [&str; 8] = [
    "lists",
    "list_updates",
    "entities",
    "names",
    "entity_versions",
    "entity_changes",
    "name_digests",
    "outbox",
];

/// Accumulates [`NameDigest`]s per list from names read in (entry id, position) order.
#[derive(Default)]
pub(crate) struct Digests {
    lists: BTreeMap<ListCode, (u64, Sha256)>,
}

impl Digests {
    pub(crate) fn add(&mut self, list: ListCode, entity_id: &str, name: &str) {
        let (count, hasher) = self.lists.entry(list).or_default();
        *count += 1;
        hasher.update(entity_id.as_bytes());
        hasher.update([0x1F]);
        hasher.update(name.as_bytes());
        hasher.update([0x1E]);
    }

    pub(crate) fn finish(self) -> BTreeMap<ListCode, NameDigest> {
        self.lists
            .into_iter()
            .map(|(list, (names, hasher))| {
                let checksum = hex::encode(hasher.finalize());
                (list, NameDigest { names, checksum })
            })
            .collect()
    }
}

/// The digests of names as the screening index receives them (see [`Store::entity_names`]).
pub fn digests_of(entries: &[EntityNames]) -> BTreeMap<ListCode, NameDigest> {
    let mut digests = Digests::default();
    for entry in entries {
        for (name, _) in &entry.names {
            digests.add(entry.list, &entry.entity_id, name);
        }
    }
    digests.finish()
}

/// The lists whose `found` digest differs from the one `stored` at import. A list with no
/// stored digest (imported before digests were kept) is not judged.
pub fn compare(
    stored: &BTreeMap<ListCode, NameDigest>,
    found: &BTreeMap<ListCode, NameDigest>,
) -> Vec<NameDamage> {
    stored
        .iter()
        .filter(|(list, digest)| found.get(list) != Some(digest))
        .map(|(list, digest)| NameDamage {
            list: *list,
            expected: digest.names,
            found: found.get(list).map_or(0, |d| d.names),
        })
        .collect()
}

/// The SQL reading every name the way the index does (entries joined with their names, by
/// entry id and position), optionally for one list.
const NAMES_SQL: &str = "SELECT e.list_code, n.entity_id, n.name
     FROM entities e JOIN names n ON n.entity_id = e.entity_id
     WHERE ?1 IS NULL OR e.list_code = ?1
     ORDER BY e.entity_id, n.position";

/// The digests of the names read back from `conn`, per list (`list`: one list only).
pub(crate) fn read_digests(
    conn: &Connection,
    list: Option<ListCode>,
) -> Result<BTreeMap<ListCode, NameDigest>, StoreError> {
    let mut digests = Digests::default();
    read_names(conn, list, |code, entity_id, name| {
        digests.add(code, entity_id, name)
    })?;
    Ok(digests.finish())
}

/// Calls `each` with every name read back from `conn` (its list, entry id and text), in
/// (entry id, position) order (`list`: one list only).
pub(crate) fn read_names(
    conn: &Connection,
    list: Option<ListCode>,
    mut each: impl FnMut(ListCode, &str, &str),
) -> Result<(), StoreError> {
    if list.is_none() {
        return read_all_names(conn, each);
    }
    let mut stmt = conn.prepare(NAMES_SQL)?;
    let mut rows = stmt.query([list.map(|l| l.code())])?;
    while let Some(row) = rows.next()? {
        let Ok(code) = row.get_ref(0)?.as_str().unwrap_or_default().parse() else {
            continue; // an unknown list code: not a list this program screens
        };
        each(code, text(row.get_ref(1)?)?, text(row.get_ref(2)?)?);
    }
    Ok(())
}

/// The entries by id (with their lists, from the index `entities_by_id_list` alone), and
/// every name by entry id and position: both in the order of their table's key, read side
/// by side by [`read_all_names`].
const ENTRIES_BY_ID_SQL: &str = "SELECT entity_id, list_code FROM entities ORDER BY entity_id";
const NAMES_BY_ID_SQL: &str = "SELECT entity_id, name FROM names ORDER BY entity_id, position";

/// [`read_names`] of every list: the rows of [`NAMES_SQL`]'s join, in its order, from the
/// entries and the names each read in key order and joined here (SQLite, joining them, sorts
/// each entry's names again in a temporary B-tree).
fn read_all_names(
    conn: &Connection,
    mut each: impl FnMut(ListCode, &str, &str),
) -> Result<(), StoreError> {
    let mut entries_stmt = conn.prepare(ENTRIES_BY_ID_SQL)?;
    let mut names_stmt = conn.prepare(NAMES_BY_ID_SQL)?;
    let mut entries = entries_stmt.query([])?;
    let mut names = names_stmt.query([])?;
    // The entry read last (its id and list; `None`: a list code not screened), and whether
    // any is left.
    let mut entry: Option<(String, Option<ListCode>)> = None;
    let mut more = true;
    while let Some(row) = names.next()? {
        let id = text(row.get_ref(0)?)?;
        while more && entry.as_ref().is_none_or(|(at, _)| at.as_str() < id) {
            match entries.next()? {
                Some(e) => {
                    let list = text(e.get_ref(1)?).ok().and_then(|c| c.parse().ok());
                    entry = Some((text(e.get_ref(0)?)?.to_owned(), list));
                }
                None => more = false,
            }
        }
        if let Some((at, Some(list))) = &entry
            && at == id
        {
            each(*list, id, text(row.get_ref(1)?)?);
        }
    }
    Ok(())
}

fn text(value: rusqlite::types::ValueRef<'_>) -> Result<&str, StoreError> {
    Ok(value.as_str().map_err(rusqlite::Error::from)?)
}

/// The digest of the names an import of `parsed` stores: each entry once (the first of a
/// repeated id, as the import keeps), in entry-id order, primary name then aliases.
fn expected_digest(parsed: &ParsedList) -> NameDigest {
    let mut seen = std::collections::HashSet::new();
    let mut entries: Vec<(String, &crate::model::Entity)> = parsed
        .entities
        .iter()
        .map(|e| (e.entity_id(), e))
        .filter(|(id, _)| seen.insert(id.clone()))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut digests = Digests::default();
    for (id, entity) in &entries {
        digests.add(parsed.list, id, &entity.primary_name);
        for alias in &entity.aliases {
            digests.add(parsed.list, id, &alias.name);
        }
    }
    digests.finish().remove(&parsed.list).unwrap_or(NameDigest {
        names: 0,
        checksum: hex::encode(Sha256::digest(b"")),
    })
}

/// The digest of `list`'s names as read back now (an empty digest when none is read).
fn read_back(tx: &rusqlite::Transaction<'_>, list: ListCode) -> Result<NameDigest, StoreError> {
    Ok(read_digests(tx, Some(list))?
        .remove(&list)
        .unwrap_or(NameDigest {
            names: 0,
            checksum: hex::encode(Sha256::digest(b"")),
        }))
}

/// Records, in the import's transaction, the digest of the names the import of `parsed`
/// (update `update_id`) stores. The names read back must match it: an import leaves the
/// names of unchanged entries alone, so names lost to a damaged page are rewritten here
/// (re-importing a list repairs it), and an import whose names still do not read back is
/// refused.
pub(super) fn record_digest(
    tx: &rusqlite::Transaction<'_>,
    parsed: &ParsedList,
    update_id: i64,
) -> Result<(), StoreError> {
    let list = parsed.list;
    let digest = expected_digest(parsed);
    if read_back(tx, list)? != digest {
        tracing::warn!(%list, "names read back differ from the import: rewriting them");
        rewrite_names(tx, parsed)?;
        let found = read_back(tx, list)?;
        if found != digest {
            return Err(StoreError::Refused(format!(
                "the names of {list} do not read back as written ({} of {}): the database is damaged; restore it from a backup, or move it away and import the lists again",
                found.names, digest.names
            )));
        }
    }
    tx.execute(
        "INSERT OR REPLACE INTO name_digests (list_code, update_id, names, checksum)
         VALUES (?1, ?2, ?3, ?4)",
        rusqlite::params![list.code(), update_id, digest.names as i64, digest.checksum],
    )?;
    Ok(())
}

/// Deletes and writes again every name of `parsed`'s entries.
fn rewrite_names(tx: &rusqlite::Transaction<'_>, parsed: &ParsedList) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM names WHERE entity_id IN (SELECT entity_id FROM entities WHERE list_code = ?1)",
        [parsed.list.code()],
    )?;
    let mut seen = std::collections::HashSet::new();
    for entity in &parsed.entities {
        let id = entity.entity_id();
        if seen.insert(id.clone()) {
            super::names::insert_names(tx, entity, &id)?;
        }
    }
    Ok(())
}

impl Store {
    /// The digests recorded at import, per list.
    pub fn name_digests(&self) -> Result<BTreeMap<ListCode, NameDigest>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT list_code, names, checksum FROM name_digests")?;
        let rows = stmt.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
            ))
        })?;
        let mut out = BTreeMap::new();
        for row in rows {
            let (code, names, checksum) = row?;
            if let Ok(list) = code.parse() {
                let names = u64::try_from(names).unwrap_or(0);
                out.insert(list, NameDigest { names, checksum });
            }
        }
        Ok(out)
    }

    /// The lists whose names, read back now, differ from those stored at import.
    pub fn verify_names(&self) -> Result<Vec<NameDamage>, StoreError> {
        Ok(compare(
            &self.name_digests()?,
            &read_digests(&self.conn, None)?,
        ))
    }

    /// The check run at every open: SQLite's `quick_check` of the names table only (the
    /// table whose silent damage drops names from screening; about 50 ms on a 51 MB
    /// database of the eight lists with the machine loaded, see docs/operations.md). Logs
    /// and returns what is wrong, if anything; the per-list name digests then decide which
    /// lists stay available.
    pub fn check_at_open(&self) -> Option<String> {
        let started = std::time::Instant::now();
        let problems = match self.pragma_lines("PRAGMA quick_check(names)") {
            Ok(problems) => problems,
            Err(e) => vec![e.to_string()],
        };
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            "quick check of the names table"
        );
        if problems.is_empty() {
            return None;
        }
        let message = format!(
            "the database failed its quick check ({}); run `sanctions store check`. Lists whose names do not verify are unavailable until re-imported or the database is restored",
            problems.join("; ")
        );
        tracing::error!("{message}");
        Some(message)
    }

    /// The lines a checking pragma returns other than `ok`.
    fn pragma_lines(&self, sql: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare(sql)?;
        let lines = stmt.query_map([], |row| row.get::<_, String>(0))?;
        let mut problems = Vec::new();
        for line in lines {
            // SQLite heads the list with "*** in database main ***" on a line of its own.
            let line = line?;
            problems.extend(
                line.lines()
                    .filter(|l| *l != "ok" && !l.starts_with("*** in database"))
                    .map(str::to_owned),
            );
        }
        Ok(problems)
    }

    /// The check that follows a list import or update: the whole file's full
    /// `integrity_check` while the file is small ([`FULL_CHECK_UP_TO`]: the lists alone, or a
    /// small watchlist beside them); past that, `quick_check` of the whole file (every page,
    /// b-tree and free list, linear in its size) and the full `integrity_check` of each table
    /// the import writes ([`LIST_TABLES`]: their indexes compared with their rows too). The
    /// whole file's full check grows faster than the file and, with a watchlist of millions,
    /// was the longest fixed step of an update (5.4 s against 0.7-1.0 s for the two checks
    /// at 960,737 favorites; 33 s at 8 million) for tables the import does not write; it
    /// stays `store check`'s ([`Store::integrity`]).
    pub fn integrity_after_import(&self) -> Result<IntegrityReport, StoreError> {
        self.check_after_import(FULL_CHECK_UP_TO)
    }

    /// [`Store::integrity_after_import`], the whole file checked in full up to `full_up_to`
    /// bytes.
    pub(crate) fn check_after_import(
        &self,
        full_up_to: i64,
    ) -> Result<IntegrityReport, StoreError> {
        let bytes: i64 = self.conn.query_row(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
            [],
            |r| r.get(0),
        )?;
        if bytes <= full_up_to {
            return self.integrity(true);
        }
        let started = std::time::Instant::now();
        let mut problems = self.pragma_lines(&format!("PRAGMA quick_check({MAX_PROBLEMS})"))?;
        for table in LIST_TABLES {
            if problems.len() >= MAX_PROBLEMS {
                break;
            }
            problems.extend(self.pragma_lines(&format!("PRAGMA integrity_check({table})"))?);
        }
        problems.truncate(MAX_PROBLEMS);
        Ok(IntegrityReport {
            check: "quick_check, integrity_check of the list tables",
            problems,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// SQLite's structural check of the file: `quick_check` (b-tree pages, cells, free
    /// list; linear in the file size, no index cross-check) or the full `integrity_check`.
    pub fn integrity(&self, full: bool) -> Result<IntegrityReport, StoreError> {
        let check = if full {
            "integrity_check"
        } else {
            "quick_check"
        };
        let started = std::time::Instant::now();
        let problems = self.pragma_lines(&format!("PRAGMA {check}({MAX_PROBLEMS})"))?;
        Ok(IntegrityReport {
            check,
            problems,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::AliasQuality;

    /// An entry of `list` with `names`, the first its primary name.
    pub(crate) fn entry(list: ListCode, id: &str, names: &[&str]) -> EntityNames {
        EntityNames {
            entity_id: id.to_owned(),
            list,
            kind: crate::model::EntityKind::Entity,
            primary_name: names[0].to_owned(),
            country: None,
            names: names
                .iter()
                .map(|n| ((*n).to_owned(), AliasQuality::Strong))
                .collect(),
            listing_ends: None,
            facts: Default::default(),
        }
    }

    /// Every name with its list, as the join of [`NAMES_SQL`] reads them.
    fn joined(conn: &Connection) -> Vec<(ListCode, String, String)> {
        let mut stmt = conn.prepare(NAMES_SQL).unwrap();
        let mut rows = stmt.query([Option::<&str>::None]).unwrap();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            if let Ok(list) = row.get::<_, String>(0).unwrap().parse() {
                out.push((list, row.get(1).unwrap(), row.get(2).unwrap()));
            }
        }
        out
    }

    #[test]
    fn every_name_read_side_by_side_is_what_the_join_reads() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let conn = &store.conn;
        conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        let entities = [
            ("un:2", "un"),
            ("un:10", "un"),
            ("eu:\u{e9}t\u{e9}", "eu"),
            ("xx:1", "xx"),
            ("eu:3", "eu"),
            ("un:1", "un"),
        ];
        for (id, list) in entities {
            conn.execute(
                "INSERT INTO entities (entity_id, list_code, source_id, kind, primary_name,
                 content_hash, data) VALUES (?1, ?2, ?1, 'entity', ?1, x'00', '{}')",
                [id, list],
            )
            .unwrap();
        }
        // Names of entries, one of no entry, one of an unknown list, and none of `un:1`.
        let names = [
            ("un:2", 1, "B"),
            ("un:2", 0, "A"),
            ("un:10", 0, "C"),
            ("eu:\u{e9}t\u{e9}", 0, "D \u{e9}"),
            ("eu:0", 0, "lost"),
            ("xx:1", 0, "other"),
            ("eu:3", 2, "F"),
            ("eu:3", 0, "E"),
            ("zz:9", 0, "last"),
        ];
        for (id, position, name) in names {
            conn.execute(
                "INSERT INTO names (entity_id, position, name, quality) VALUES (?1, ?2, ?3, 'strong')",
                rusqlite::params![id, position, name],
            )
            .unwrap();
        }
        let mut read = Vec::new();
        read_all_names(conn, |list, id, name| {
            read.push((list, id.to_owned(), name.to_owned()))
        })
        .unwrap();
        let expected = joined(conn);
        assert_eq!(expected.len(), 6, "{expected:?}");
        assert_eq!(read, expected);
        let back = store.read_back_names().unwrap();
        assert!(back.damage.is_empty());
    }

    /// The verification every process runs before its first screening reads each entry's
    /// list from an index alone (no look-up of the entry's row, which holds its whole record)
    /// and every name in the table's own order (no sort).
    #[test]
    fn every_name_is_read_back_without_a_look_up_or_a_sort() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let entries = store.query_plan(ENTRIES_BY_ID_SQL, []);
        assert!(
            entries
                .iter()
                .all(|step| step.contains("COVERING INDEX entities_by_id_list")),
            "{entries:?}"
        );
        let names = store.query_plan(NAMES_BY_ID_SQL, []);
        assert!(
            names.iter().all(|step| !step.contains("TEMP B-TREE")),
            "{names:?}"
        );
    }

    #[test]
    fn a_lost_or_changed_name_is_a_damaged_list() {
        let all = [
            entry(ListCode::Un, "un:1", &["A", "B"]),
            entry(ListCode::Eu, "eu:1", &["C"]),
        ];
        let stored = digests_of(&all);
        assert_eq!(stored[&ListCode::Un].names, 2);
        assert!(compare(&stored, &stored).is_empty());
        let lost = digests_of(&[entry(ListCode::Un, "un:1", &["A"]), all[1].clone()]);
        let damage = compare(&stored, &lost);
        assert_eq!(
            damage,
            [NameDamage {
                list: ListCode::Un,
                expected: 2,
                found: 1
            }]
        );
        assert!(damage[0].message().contains("Re-import the list"));
        let changed = digests_of(&[entry(ListCode::Un, "un:1", &["A", "X"]), all[1].clone()]);
        assert_eq!(compare(&stored, &changed)[0].found, 2);
        let gone = digests_of(&all[1..]);
        assert_eq!(compare(&stored, &gone)[0].found, 0);
    }
}
