//! OFAC's SDN and Consolidated (non-SDN) lists in their CSV publication: `sdn.csv`, `add.csv`,
//! `alt.csv`, `sdn_comments.csv` and the `cons_*` counterparts. No header; CRLF; a trailing
//! 0x1A byte; `-0- ` for null; programmes packed as `A] [B`; Remarks cut at 1,000 characters
//! and continued (mid-word) in the comments file.

mod remarks;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

use super::{Input, OfficialFile, ParsedList, SourceError, find_file};
use crate::model::{Address, Alias, Entity, EntityKind, ListCode, NameParts, clean, to_iso2};

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

/// Which of the two lists, with its file names.
struct Files {
    list: ListCode,
    official: &'static [OfficialFile],
}

const SDN: Files = Files {
    list: ListCode::OfacSdn,
    official: SDN_FILES,
};
const CONS: Files = Files {
    list: ListCode::OfacCons,
    official: CONS_FILES,
};

/// Parses the SDN list from its folder.
pub fn parse_sdn_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_dir(&SDN, dir)
}

/// Parses the Consolidated list from its folder.
pub fn parse_cons_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_dir(&CONS, dir)
}

fn parse_dir(files: &Files, dir: &Path) -> Result<ParsedList, SourceError> {
    let [main, add, alt, comments] = files.official else {
        return Err(SourceError::parse(
            dir.display().to_string(),
            "",
            "unexpected file set",
        ));
    };
    let required = |file: &OfficialFile| {
        read(dir, file)?.ok_or_else(|| SourceError::Missing {
            list: files.list,
            dir: dir.display().to_string(),
            expected: file.file_name.to_owned(),
        })
    };
    let (main, add, alt) = (required(main)?, required(add)?, required(alt)?);
    let comments = read(dir, comments)?;
    parse(files, &main, &add, &alt, comments.as_ref())
}

fn read(dir: &Path, file: &OfficialFile) -> Result<Option<Input>, SourceError> {
    find_file(dir, &[file.file_name])
        .map(|path| Input::read(&path))
        .transpose()
}

/// Parses the trio (and the comments file, when there is one).
fn parse(
    files: &Files,
    main: &Input,
    add: &Input,
    alt: &Input,
    comments: Option<&Input>,
) -> Result<ParsedList, SourceError> {
    let mut parsed = ParsedList::new(files.list);
    let url = files.official[0].url;
    let mut entities: Vec<Entity> = Vec::new();
    let mut remarks: Vec<String> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (line, row) in rows(main, 12)? {
        let (mut entity, remark) = main_row(files.list, main, line, &row)?;
        if by_id
            .insert(entity.source_id.clone(), entities.len())
            .is_some()
        {
            return Err(SourceError::parse(
                &main.name,
                format!("line {line}"),
                format!("ent_num {} repeated", entity.source_id),
            ));
        }
        entity.source_url = Some(url.to_owned());
        entities.push(entity);
        remarks.push(remark);
    }
    if entities.is_empty() {
        return Err(SourceError::parse(
            &main.name,
            "",
            "no entries: not an OFAC CSV file",
        ));
    }

    if let Some(comments) = comments {
        let mut orphans = 0;
        for (line, row) in rows(comments, 2)? {
            let id = ent_num(comments, line, &row[0])?;
            match by_id.get(&id) {
                // The continuation starts mid-word: joined as is, untrimmed.
                Some(&i) => remarks[i].push_str(&row[1]),
                None => orphans += 1,
            }
        }
        note_orphans(&mut parsed, comments, orphans, &main.name);
    }
    let mut orphans = 0;
    for (line, row) in rows(alt, 5)? {
        let id = ent_num(alt, line, &row[0])?;
        let Some(&i) = by_id.get(&id) else {
            orphans += 1;
            continue;
        };
        let mut alias = Alias::new(clean(null(&row[3]).unwrap_or_default()));
        alias.kind = null(&row[2]).map(|k| k.to_ascii_lowercase());
        if let Some(note) = null(&row[4]) {
            alias.quality = if note.to_ascii_lowercase().contains("weak") {
                crate::model::AliasQuality::Weak
            } else {
                crate::model::AliasQuality::Strong
            };
        }
        entities[i].push_alias(alias);
    }
    note_orphans(&mut parsed, alt, orphans, &main.name);
    // After alt.csv, so that a name in both is the strong alias, not the remark's weak one.
    for (entity, remark) in entities.iter_mut().zip(&remarks) {
        remarks::apply(entity, remark);
    }

    let mut orphans = 0;
    for (line, row) in rows(add, 6)? {
        let id = ent_num(add, line, &row[0])?;
        let Some(&i) = by_id.get(&id) else {
            orphans += 1;
            continue;
        };
        if let Some(address) = address(&row) {
            if let Some(iso) = address.country.as_deref() {
                entities[i].push_country(iso);
            }
            entities[i].addresses.push(address);
        }
    }
    note_orphans(&mut parsed, add, orphans, &main.name);

    parsed.files = [Some(main), Some(add), Some(alt), comments]
        .into_iter()
        .flatten()
        .map(Input::source_file)
        .collect();
    parsed.entities = entities;
    Ok(parsed)
}

fn note_orphans(parsed: &mut ParsedList, file: &Input, orphans: usize, main: &str) {
    if orphans > 0 {
        parsed.notes.push(format!(
            "{}: {orphans} rows for entries not in {main} skipped",
            file.name
        ));
    }
}

/// The rows of a headerless OFAC CSV, each with `columns` fields as written, with their line
/// numbers. Read fields through [`null`].
fn rows(input: &Input, columns: usize) -> Result<Vec<(u64, Vec<String>)>, SourceError> {
    let text = input.text();
    if text.trim_start().starts_with('<') {
        return Err(SourceError::parse(
            &input.name,
            "line 1",
            "this is markup (HTML or XML), not OFAC's CSV",
        ));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let more = reader.read_record(&mut record).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            SourceError::parse(&input.name, format!("line {line}"), e.to_string())
        })?;
        if !more {
            break;
        }
        // Where the reader stopped: the end of this record, on its line (no field holds a
        // line break in these files).
        let line = reader.position().line();
        if record.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        if record.len() != columns {
            return Err(SourceError::parse(
                &input.name,
                format!("line {line}"),
                format!("{} fields, expected {columns}", record.len()),
            ));
        }
        out.push((line, record.iter().map(str::to_owned).collect()));
    }
    Ok(out)
}

/// `None` for OFAC's null marker `-0-` (with or without its trailing space) or blank.
fn null(field: &str) -> Option<&str> {
    let field = field.trim();
    (!field.is_empty() && field != "-0-").then_some(field)
}

fn ent_num(input: &Input, line: u64, field: &str) -> Result<String, SourceError> {
    let id = field.trim();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SourceError::parse(
            &input.name,
            format!("line {line}"),
            format!("ent_num {id:?} is not a number"),
        ));
    }
    Ok(id.to_owned())
}

/// One row of sdn.csv / cons_prim.csv: the entity, and its (possibly cut) Remarks.
fn main_row(
    list: ListCode,
    input: &Input,
    line: u64,
    row: &[String],
) -> Result<(Entity, String), SourceError> {
    let field = |i: usize| null(&row[i]).unwrap_or_default();
    let id = ent_num(input, line, &row[0])?;
    let name = clean(field(1));
    if name.is_empty() {
        return Err(SourceError::parse(
            &input.name,
            format!("line {line}"),
            "SDN_Name is empty",
        ));
    }
    let kind = match field(2).to_ascii_lowercase().as_str() {
        "" => EntityKind::Entity,
        "individual" => EntityKind::Individual,
        "vessel" => EntityKind::Vessel,
        "aircraft" => EntityKind::Aircraft,
        other => {
            return Err(SourceError::parse(
                &input.name,
                format!("line {line}"),
                format!("unknown SDN_Type {other:?}"),
            ));
        }
    };
    let mut entity = Entity::new(list, id, kind, name);
    if kind == EntityKind::Individual {
        entity.name_parts = name_parts(&entity.primary_name, field(4));
    }
    for program in field(3).split("] [") {
        entity.push_program(program.trim_matches(['[', ']', ' ']));
    }
    for (column, key) in [
        (4, "title"),
        (5, "call_sign"),
        (6, "vessel_type"),
        (7, "tonnage"),
        (8, "gross_registered_tonnage"),
        (9, "vessel_flag"),
        (10, "vessel_owner"),
    ] {
        if !field(column).is_empty() {
            entity
                .attributes
                .insert(key.to_owned(), clean(field(column)));
        }
    }
    if let Some(iso) = to_iso2(field(9)) {
        entity.push_country(iso);
    }
    Ok((entity, field(11).to_owned()))
}

/// `LAST, First Middle` -> family LAST, given First, middle Middle.
fn name_parts(name: &str, title: &str) -> NameParts {
    let mut parts = NameParts {
        title: (!title.is_empty()).then(|| clean(title)),
        ..NameParts::default()
    };
    if let Some((family, given)) = name.split_once(',') {
        parts.family = Some(family.trim().to_owned()).filter(|s| !s.is_empty());
        let mut given = given.split_whitespace();
        parts.given = given.next().map(str::to_owned);
        let middle: Vec<&str> = given.collect();
        parts.middle = (!middle.is_empty()).then(|| middle.join(" "));
    }
    parts
}

/// One row of add.csv: `ent_num, add_num, address, city/state/postal, country, add_remarks`.
fn address(row: &[String]) -> Option<Address> {
    let street = null(&row[2]).map(clean);
    let city = null(&row[3]).map(clean);
    let country_name = null(&row[4]).map(clean).unwrap_or_default();
    if street.is_none() && city.is_none() && country_name.is_empty() {
        return None;
    }
    let full = [
        street.as_deref(),
        city.as_deref(),
        Some(country_name.as_str()),
    ]
    .into_iter()
    .flatten()
    .filter(|s| !s.is_empty())
    .collect::<Vec<&str>>()
    .join(", ");
    Some(Address {
        street,
        city,
        region: None,
        postal_code: None,
        country: to_iso2(&country_name).map(str::to_owned),
        full: Some(full),
    })
}
