//! Parsers of the eight official publication formats: files in, [`Entity`](crate::model::Entity) records out.
//!
//! Each submodule owns one publisher's format and knows which file names it reads from a
//! list's folder. Parsers never touch the store; they return a [`ParsedList`] or a
//! [`SourceError`] naming the file and the line, row or element that is wrong.

use sanctions_model as model;
use sanctions_model::sanitize;
#[cfg(test)]
mod testutil;

pub mod archive;
pub mod au_dfat;
pub mod ca_sema;
pub mod decoding;
pub mod eu;
pub mod input;
pub mod ofac;
pub mod text;
pub mod uk;
pub mod un;
pub mod world_bank;

use std::path::Path;

use crate::model::ListCode;
pub use crate::model::{ParsedList, SourceFile};

pub use input::Input;

/// Why a list could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{dir}: no {list} file found (expected one of: {expected})")]
    Missing {
        list: ListCode,
        dir: String,
        expected: String,
    },
    /// `position` is e.g. `line 12`, `row 5`, `line 3 (<sanctionEntity logicalId="13">)`.
    #[error("{file}{}: {message}", if position.is_empty() { String::new() } else { format!(", {position}") })]
    Parse {
        file: String,
        position: String,
        message: String,
    },
}

impl SourceError {
    /// A format error in `file` at `position` (may be empty).
    pub fn parse(
        file: impl Into<String>,
        position: impl Into<String>,
        message: impl Into<String>,
    ) -> SourceError {
        SourceError::Parse {
            file: file.into(),
            position: position.into(),
            message: message.into(),
        }
    }
}

/// One file a list's publisher serves, under the name the importer expects in the list folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfficialFile {
    pub file_name: &'static str,
    pub url: &'static str,
    /// Whether the list can be imported without this file (e.g. OFAC's comments file).
    pub optional: bool,
}

/// The files `lists update` downloads for each list, from the publishers' official addresses.
pub fn official_files(list: ListCode) -> &'static [OfficialFile] {
    match list {
        ListCode::OfacSdn => ofac::SDN_FILES,
        ListCode::OfacCons => ofac::CONS_FILES,
        ListCode::Eu => eu::FILES,
        ListCode::Un => un::FILES,
        ListCode::UkHmt => uk::FILES,
        ListCode::CaSema => ca_sema::FILES,
        ListCode::AuDfat => au_dfat::FILES,
        ListCode::WorldBank => world_bank::FILES,
    }
}

/// Parses list `list` from its folder `dir` (e.g. `../shared/data/lists/un`).
pub fn parse_dir(list: ListCode, dir: &Path) -> Result<ParsedList, SourceError> {
    if !dir.is_dir() {
        return Err(SourceError::Missing {
            list,
            dir: dir.display().to_string(),
            expected: official_files(list)
                .iter()
                .map(|f| f.file_name)
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let parsed = match list {
        ListCode::OfacSdn => ofac::parse_sdn_dir(dir),
        ListCode::OfacCons => ofac::parse_cons_dir(dir),
        ListCode::Eu => eu::parse_dir(dir),
        ListCode::Un => un::parse_dir(dir),
        ListCode::UkHmt => uk::parse_dir(dir),
        ListCode::CaSema => ca_sema::parse_dir(dir),
        ListCode::AuDfat => au_dfat::parse_dir(dir),
        ListCode::WorldBank => world_bank::parse_dir(dir),
    }?;
    debug_assert_eq!(parsed.list, list);
    let mut parsed = parsed;
    note_encodings(&mut parsed, dir);
    Ok(parsed)
}

/// Adds to the notes the encoding each file was read in (`consolidated.xml: read as UTF-8`),
/// for the import report.
fn note_encodings(parsed: &mut ParsedList, dir: &Path) {
    for file in &parsed.files {
        if let Ok(bytes) = std::fs::read(dir.join(&file.name)) {
            let encoding = decoding::encoding_of(&bytes);
            parsed
                .notes
                .push(format!("{}: read as {encoding}", file.name));
        }
    }
}

/// Reads the one official file of a single-file list (UN, Canada, Australia, World Bank) from
/// its folder, or says which file is missing.
pub fn read_single_file(list: ListCode, dir: &Path) -> Result<Input, SourceError> {
    let name = official_files(list).first().map_or("", |f| f.file_name);
    let path = find_file(dir, &[name]).ok_or_else(|| SourceError::Missing {
        list,
        dir: dir.display().to_string(),
        expected: name.to_owned(),
    })?;
    Input::read(&path)
}

/// The first of `names` that exists in `dir` (case-insensitively), for parsers that accept
/// several file names or formats.
pub fn find_file(dir: &Path, names: &[&str]) -> Option<std::path::PathBuf> {
    let entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    names.iter().find_map(|wanted| {
        entries
            .iter()
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(wanted))
            })
            .cloned()
    })
}

/// The first file in `dir` whose name ends with one of `extensions` (case-insensitive), in
/// name order: for publishers whose file names carry a date.
pub fn find_by_extension(dir: &Path, extensions: &[&str]) -> Option<std::path::PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    entries.into_iter().find(|p| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        extensions.iter().any(|ext| name.ends_with(ext))
    })
}
