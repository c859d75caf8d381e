//! OFAC's SDN and Consolidated (non-SDN) lists in their CSV publication: `sdn.csv`, `add.csv`, `alt.csv`, `sdn_comments.csv` and the `cons_*` counterparts.
//!
//! The files have no header row, CRLF line ends, a trailing 0x1A byte and `-0- ` for an empty
//! field. `sdn.csv`/`cons_prim.csv` hold one row per entry; the address, alias and comment
//! files refer to it by `ent_num`. Rows naming an entry absent from the main file are skipped
//! and counted in the notes (the shared SDN folder mixes editions).

mod remarks;

use std::collections::HashMap;
use std::path::Path;

use super::{Input, OfficialFile, ParsedList, SourceError};
use crate::model::{
    Address, Alias, AliasQuality, Entity, EntityKind, ListCode, NameParts, clean, clean_opt,
    to_iso2,
};

/// The SDN list files.
pub const SDN_FILES: &[OfficialFile] = &[
    OfficialFile {
        file_name: "sdn.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "add.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADD.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "alt.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ALT.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "sdn_comments.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN_COMMENTS.CSV",
        optional: true,
    },
];

/// The Consolidated (non-SDN) list files.
pub const CONS_FILES: &[OfficialFile] = &[
    OfficialFile {
        file_name: "cons_prim.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_PRIM.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "cons_add.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ADD.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "cons_alt.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ALT.CSV",
        optional: false,
    },
    OfficialFile {
        file_name: "cons_comments.csv",
        url: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_COMMENTS.CSV",
        optional: true,
    },
];

/// Parses the SDN list from its folder.
pub fn parse_sdn_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_dir(ListCode::OfacSdn, dir, SDN_FILES)
}

/// Parses the Consolidated list from its folder.
pub fn parse_cons_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_dir(ListCode::OfacCons, dir, CONS_FILES)
}

/// The four files in [`SDN_FILES`]/[`CONS_FILES`] order: main, addresses, aliases, comments.
fn parse_dir(
    list: ListCode,
    dir: &Path,
    files: &[OfficialFile],
) -> Result<ParsedList, SourceError> {
    let [main, add, alt, comments] = files else {
        return Err(SourceError::parse(
            dir.display().to_string(),
            "",
            "OFAC needs four files",
        ));
    };
    let mut out = ParsedList::new(list);
    let mut book = EntryBook::default();
    for row in read_rows(&mut out, dir, main)?.iter() {
        book.add_main(list, main, row)?;
    }
    if book.entities.is_empty() {
        return Err(SourceError::parse(
            main.file_name,
            "",
            "the file holds no entries",
        ));
    }
    let mut remarks_extra: HashMap<usize, String> = HashMap::new();
    if let Some(rows) = read_optional(&mut out, dir, comments)? {
        let skipped = book.join(&rows, |i, row| {
            remarks_extra.entry(i).or_default().push_str(&row.fields[1]);
        });
        note_skipped(&mut out, comments, main, skipped);
    }
    let rows = read_rows(&mut out, dir, add)?;
    let skipped = book.join(&rows, |_, _| {});
    for row in &rows {
        if let Some(entity) = book.get_mut(row) {
            push_address(entity, &row.fields);
        }
    }
    note_skipped(&mut out, add, main, skipped);
    let rows = read_rows(&mut out, dir, alt)?;
    let skipped = book.join(&rows, |_, _| {});
    for row in &rows {
        if let Some(entity) = book.get_mut(row) {
            push_alias(entity, &row.fields);
        }
    }
    note_skipped(&mut out, alt, main, skipped);
    // After alt.csv, so that an a.k.a. listed there as strong is not taken for a weak one.
    for (i, entity) in book.entities.iter_mut().enumerate() {
        finish_remarks(entity, remarks_extra.remove(&i));
        entity.source_url = Some(main.url.to_owned());
    }
    out.entities = book.entities;
    Ok(out)
}

/// One CSV record with its ent_num and line.
struct Row {
    ent_num: u64,
    line: u64,
    fields: Vec<String>,
}

/// The entries of the main file, by ent_num.
#[derive(Default)]
struct EntryBook {
    entities: Vec<Entity>,
    index: HashMap<u64, usize>,
}

impl EntryBook {
    fn add_main(
        &mut self,
        list: ListCode,
        file: &OfficialFile,
        row: &Row,
    ) -> Result<(), SourceError> {
        let entity = main_entity(list, row);
        if self
            .index
            .insert(row.ent_num, self.entities.len())
            .is_some()
        {
            return Err(SourceError::parse(
                file.file_name,
                format!("line {}", row.line),
                format!("ent_num {} appears twice", row.ent_num),
            ));
        }
        self.entities.push(entity);
        Ok(())
    }

    /// Calls `f` with the entry index of every row whose entry exists; returns how many
    /// rows name a missing entry.
    fn join(&self, rows: &[Row], mut f: impl FnMut(usize, &Row)) -> usize {
        let mut skipped = 0;
        for row in rows {
            match self.index.get(&row.ent_num) {
                Some(&i) => f(i, row),
                None => skipped += 1,
            }
        }
        skipped
    }

    fn get_mut(&mut self, row: &Row) -> Option<&mut Entity> {
        let i = *self.index.get(&row.ent_num)?;
        self.entities.get_mut(i)
    }
}

fn note_skipped(out: &mut ParsedList, file: &OfficialFile, main: &OfficialFile, skipped: usize) {
    if skipped > 0 {
        out.notes.push(format!(
            "{}: {skipped} rows for entries not in {} skipped",
            file.file_name, main.file_name
        ));
    }
}

/// The number of columns of each file, by its name.
fn columns_of(file: &OfficialFile) -> usize {
    let name = file.file_name;
    if name.ends_with("comments.csv") {
        2
    } else if name.ends_with("add.csv") {
        6
    } else if name.ends_with("alt.csv") {
        5
    } else {
        12
    }
}

fn read_optional(
    out: &mut ParsedList,
    dir: &Path,
    file: &OfficialFile,
) -> Result<Option<Vec<Row>>, SourceError> {
    if super::find_file(dir, &[file.file_name]).is_none() {
        out.notes
            .push(format!("{}: absent (optional), not read", file.file_name));
        return Ok(None);
    }
    read_rows(out, dir, file).map(Some)
}

/// Reads a file's rows, checking the column count and the numeric ent_num of each.
fn read_rows(
    out: &mut ParsedList,
    dir: &Path,
    file: &OfficialFile,
) -> Result<Vec<Row>, SourceError> {
    let path = super::find_file(dir, &[file.file_name]).ok_or_else(|| SourceError::Missing {
        list: out.list,
        dir: dir.display().to_string(),
        expected: file.file_name.to_owned(),
    })?;
    let input = Input::read(&path)?;
    out.files.push(input.source_file());
    let text = input.text()?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let width = columns_of(file);
    let mut rows = Vec::new();
    let mut lines = LineCounter::new(text.as_bytes());
    let mut record = csv::StringRecord::new();
    loop {
        let start = reader.position().byte();
        let read = reader.read_record(&mut record).map_err(|e| {
            let line = lines.line_of(e.position().map_or(start, |p| p.byte()));
            SourceError::parse(&input.name, format!("line {line}"), e.to_string())
        })?;
        if !read {
            break;
        }
        let line = lines.line_of(start);
        let bad =
            |message: String| SourceError::parse(&input.name, format!("line {line}"), message);
        if let Some(field) = record.iter().find(|f| f.contains(['\n', '\r'])) {
            let end = line + field.matches('\n').count() as u64;
            return Err(bad(format!(
                "a quoted field runs on over lines {line}-{end} (an unclosed quote?); \
                 OFAC fields never hold a line break"
            )));
        }
        let raw = text
            .as_bytes()
            .get(start as usize..reader.position().byte() as usize);
        if let Some((at, what)) = raw.and_then(super::text::stray_quote) {
            return Err(bad(format!(
                "{what} (column {} of the line); a quote in a field must be doubled, in a quoted field: the file is damaged",
                at + 1
            )));
        }
        if record.len() != width {
            return Err(bad(format!(
                "{} columns where {width} are expected (not an OFAC CSV file?)",
                record.len()
            )));
        }
        let first = record.get(0).unwrap_or_default().trim();
        let ent_num = first
            .parse()
            .map_err(|_| bad(format!("ent_num {first:?} is not a number")))?;
        rows.push(Row {
            ent_num,
            line,
            fields: record.iter().map(null_to_empty).collect(),
        });
    }
    if input.bytes.last() != Some(&0x1A) {
        return Err(SourceError::parse(
            &input.name,
            format!("line {}", lines.line_of(input.bytes.len() as u64)),
            "the file does not end with OFAC's end-of-file byte (0x1A): it is truncated",
        ));
    }
    Ok(rows)
}

/// Turns increasing byte offsets into 1-based line numbers in one pass over the text.
struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        LineCounter {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// The line of the first byte at or after `offset` that is not a line end (the CSV
    /// reader stops between a record's `\r` and its `\n`).
    fn line_of(&mut self, offset: u64) -> u64 {
        let mut end = (offset as usize).min(self.bytes.len());
        while self
            .bytes
            .get(end)
            .is_some_and(|b| matches!(b, b'\r' | b'\n'))
        {
            end += 1;
        }
        if end > self.offset {
            self.line += self.bytes[self.offset..end]
                .iter()
                .filter(|b| **b == b'\n')
                .count() as u64;
            self.offset = end;
        }
        self.line
    }
}

/// A field with OFAC's `-0-` null marker made empty.
fn null_to_empty(field: &str) -> String {
    if field.trim() == "-0-" {
        String::new()
    } else {
        field.to_owned()
    }
}

/// Builds an entry from a main-file row (its remarks are read later, with the comments).
fn main_entity(list: ListCode, row: &Row) -> Entity {
    let f = &row.fields;
    let kind = match f[2].trim().to_ascii_lowercase().as_str() {
        "individual" => EntityKind::Individual,
        "vessel" => EntityKind::Vessel,
        "aircraft" => EntityKind::Aircraft,
        _ => EntityKind::Entity,
    };
    let mut entity = Entity::new(list, row.ent_num.to_string(), kind, clean(&f[1]));
    if kind == EntityKind::Individual {
        entity.name_parts = name_parts(&entity.primary_name);
    }
    for program in f[3].split("] [") {
        entity.push_program(program.trim_matches(['[', ']', ' ']));
    }
    let attributes = [
        (4, "title"),
        (5, "call_sign"),
        (6, "vessel_type"),
        (7, "tonnage"),
        (8, "gross_registered_tonnage"),
        (9, "vessel_flag"),
        (10, "vessel_owner"),
    ];
    for (column, key) in attributes {
        if let Some(value) = clean_opt(&f[column]) {
            entity.attributes.insert(key.to_owned(), value);
        }
    }
    if let Some(iso2) = to_iso2(f[9].trim()) {
        entity.push_country(iso2);
    }
    entity.remarks = clean_opt(&f[11]);
    entity
}

/// "LAST, First Middle" -> family "LAST", given "First Middle".
fn name_parts(name: &str) -> NameParts {
    match name.split_once(',') {
        Some((family, given)) => NameParts {
            family: clean_opt(family),
            given: clean_opt(given),
            ..NameParts::default()
        },
        None => NameParts {
            family: clean_opt(name),
            ..NameParts::default()
        },
    }
}

/// Appends the comments continuation (it starts mid-word) and reads the remarks' facts.
fn finish_remarks(entity: &mut Entity, extra: Option<String>) {
    let mut text = entity.remarks.take().unwrap_or_default();
    if let Some(extra) = extra {
        text.push_str(&extra);
    }
    remarks::apply(entity, &text);
    entity.remarks = clean_opt(&text);
}

fn push_address(entity: &mut Entity, f: &[String]) {
    let country = to_iso2(f[4].trim());
    let full: Vec<String> = f[2..5].iter().filter_map(|p| clean_opt(p)).collect();
    if full.is_empty() {
        return;
    }
    let address = Address {
        street: clean_opt(&f[2]),
        city: clean_opt(&f[3]),
        country: country.map(str::to_owned),
        full: Some(full.join(", ")),
        ..Address::default()
    };
    if let Some(iso2) = country {
        entity.push_country(iso2);
    }
    if let Some(note) = clean_opt(&f[5]) {
        remarks::append_attribute(entity, "address_remarks", &note);
    }
    if !entity.addresses.contains(&address) {
        entity.addresses.push(address);
    }
}

fn push_alias(entity: &mut Entity, f: &[String]) {
    let note = f[4].to_ascii_lowercase();
    let quality = if note.contains("weak") || note.contains("low quality") {
        AliasQuality::Weak
    } else {
        AliasQuality::Strong
    };
    entity.push_alias(Alias {
        name: f[3].clone(),
        kind: clean_opt(&f[2].to_ascii_lowercase()),
        quality,
        ..Alias::default()
    });
}

#[cfg(test)]
mod tests;
