//! The World Bank's debarred firms and individuals, as its API serves them (JSON,
//! `response.ZPROCSUPP`): one entity per `SUPP_ID`.

mod names;

use std::path::Path;

use serde::Deserialize;

use super::{Input, OfficialFile, ParsedList, SourceError, read_single_file};
use crate::model::{
    Address, DateSpec, Entity, EntityKind, IdDocument, ListCode, clean, clean_opt, to_iso2,
};
use names::{NameText, Piece};

/// The files `lists update` downloads.
pub const FILES: &[OfficialFile] = &[OfficialFile {
    file_name: "SANCTIONED_FIRM.json",
    url: "https://apigwext.worldbank.org/dvsvc/v1.0/json/APPLICATION/ADOBE_EXPRNCE_MGR/FIRM/SANCTIONED_FIRM",
    optional: false,
}];

/// `DEBAR_TO_DATE` of an open-ended debarment.
const OPEN_ENDED: &str = "2999-12-31";

#[derive(Debug, Deserialize)]
struct Payload {
    response: Option<Response>,
}

#[derive(Debug, Deserialize)]
struct Response {
    #[serde(rename = "ZPROCSUPP")]
    rows: Option<Vec<Row>>,
}

/// One `ZPROCSUPP` record; every field may be null or absent.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct Row {
    supp_id: Option<serde_json::Value>,
    supp_name: Option<String>,
    supp_type_code: Option<String>,
    supp_pre_acrn: Option<String>,
    supp_post_acrn: Option<String>,
    land1: Option<String>,
    country_name: Option<String>,
    supp_state_code: Option<String>,
    supp_city: Option<String>,
    supp_addr: Option<String>,
    supp_zip_code: Option<String>,
    supp_post_code: Option<String>,
    supp_prov_name: Option<String>,
    inelig_flg: Option<String>,
    debar_type: Option<String>,
    debar_from_date: Option<String>,
    debar_to_date: Option<String>,
    debar_reason: Option<String>,
    add_supp_info: Option<String>,
    supp_elig_stat: Option<String>,
    ineligibly_status: Option<String>,
    last_refresh_date: Option<String>,
}

/// Parses the list from its folder.
pub fn parse_dir(dir: &Path) -> Result<ParsedList, SourceError> {
    parse_input(&read_single_file(ListCode::WorldBank, dir)?)
}

/// Parses the API payload held in `input`.
pub fn parse_input(input: &Input) -> Result<ParsedList, SourceError> {
    let text = input.text()?;
    let payload: Payload = serde_json::from_str(&text).map_err(|e| {
        SourceError::parse(
            &input.name,
            format!("line {} column {}", e.line(), e.column()),
            format!("not the World Bank API JSON: {e}"),
        )
    })?;
    let rows = payload
        .response
        .and_then(|r| r.rows)
        .filter(|rows| !rows.is_empty())
        .ok_or_else(|| {
            SourceError::parse(
                &input.name,
                "",
                "no records: expected a non-empty array at response.ZPROCSUPP",
            )
        })?;
    let mut parsed = ParsedList::new(ListCode::WorldBank);
    parsed.files.push(input.source_file());
    let mut duplicates = 0;
    for (index, row) in rows.iter().enumerate() {
        let entity = entity_of(row).map_err(|message| {
            SourceError::parse(&input.name, format!("response.ZPROCSUPP[{index}]"), message)
        })?;
        if parsed
            .entities
            .iter()
            .any(|e| e.source_id == entity.source_id)
        {
            duplicates += 1;
            continue;
        }
        parsed.entities.push(entity);
    }
    if duplicates > 0 {
        parsed.notes.push(format!(
            "{}: {duplicates} records repeating a SUPP_ID skipped",
            input.name
        ));
    }
    parsed.published = rows
        .iter()
        .filter_map(|r| r.last_refresh_date.as_deref()?.get(..10))
        .max()
        .map(str::to_owned);
    Ok(parsed)
}

/// `SUPP_ID` as a decimal string (a number, or a string of digits).
fn supp_id(row: &Row) -> Result<String, String> {
    match &row.supp_id {
        Some(serde_json::Value::Number(n)) if n.is_u64() => Ok(n.to_string()),
        Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Ok(clean(s)),
        other => Err(format!("SUPP_ID is missing or not an id: {other:?}")),
    }
}

fn entity_of(row: &Row) -> Result<Entity, String> {
    let source_id = supp_id(row)?;
    let raw_name = row
        .supp_name
        .as_deref()
        .and_then(clean_opt)
        .ok_or_else(|| format!("SUPP_ID {source_id}: SUPP_NAME is empty"))?;
    let kind = match row.supp_type_code.as_deref().map(str::trim) {
        Some("I") => EntityKind::Individual,
        _ => EntityKind::Entity,
    };
    let mut name = names::split(&raw_name);
    if name.rest.is_empty() {
        name.rest = take_first_alias(&mut name.pieces).unwrap_or_else(|| raw_name.clone());
    }
    let (primary, title) = names::strip_title(&name.rest);
    let mut entity = Entity::new(ListCode::WorldBank, source_id, kind, primary);
    entity.name_parts.title = title;
    entity.source_url = Some(FILES[0].url.to_owned());
    let info = row
        .add_supp_info
        .as_deref()
        .map(names::split)
        .unwrap_or_default();
    add_pieces(&mut entity, &name);
    add_pieces(&mut entity, &info);
    let footnotes: Vec<String> = name
        .footnotes
        .iter()
        .chain(&info.footnotes)
        .cloned()
        .collect();
    set(&mut entity, "footnotes", Some(footnotes.join(", ")));
    set(&mut entity, "additional_info", row.add_supp_info.clone());
    if !info.rest.is_empty() {
        entity.remarks = Some(info.rest.clone());
    }
    add_place(&mut entity, row);
    add_debarment(&mut entity, row);
    Ok(entity)
}

/// The first alias of a name that is only an alias (`A.K.A. JOKO SESWANTO`), removed.
fn take_first_alias(pieces: &mut [Piece]) -> Option<String> {
    pieces.iter_mut().find_map(|piece| match piece {
        Piece::Aliases(aliases) if !aliases.is_empty() => Some(aliases.remove(0).name),
        _ => None,
    })
}

fn add_pieces(entity: &mut Entity, text: &NameText) {
    for piece in &text.pieces {
        match piece {
            Piece::Aliases(aliases) => {
                for alias in aliases {
                    entity.push_alias(alias.clone());
                }
            }
            Piece::Registration(text) => entity.identifiers.push(registration(text)),
            Piece::Other(_) => {}
        }
    }
}

/// `Reg. No.: 0305350288` -> type `Reg. No.`, number `0305350288`.
fn registration(text: &str) -> IdDocument {
    let split = text
        .rfind([':', ' '])
        .filter(|_| text.contains(' ') || text.contains(':'));
    let (doc_type, number) = match split {
        Some(i) if !text[..i].chars().any(|c| c.is_ascii_digit()) => (
            clean(text[..i].trim_end_matches(':')),
            clean(&text[i + 1..]),
        ),
        _ => ("Registration".to_owned(), clean(text)),
    };
    IdDocument {
        doc_type: if doc_type.is_empty() {
            "Registration".to_owned()
        } else {
            doc_type
        },
        number,
        country: None,
        note: None,
    }
}

fn add_place(entity: &mut Entity, row: &Row) {
    let country = row
        .land1
        .as_deref()
        .map(str::trim)
        .filter(|c| c.len() == 2)
        .map(str::to_ascii_uppercase)
        .or_else(|| {
            row.country_name
                .as_deref()
                .and_then(to_iso2)
                .map(str::to_owned)
        });
    if let Some(code) = &country {
        entity.push_country(code);
    }
    let opt = |v: &Option<String>| v.as_deref().and_then(clean_opt);
    let address = Address {
        street: opt(&row.supp_addr),
        city: opt(&row.supp_city),
        region: opt(&row.supp_state_code).or_else(|| opt(&row.supp_prov_name)),
        postal_code: opt(&row.supp_zip_code).or_else(|| opt(&row.supp_post_code)),
        country,
        full: None,
    };
    if address != Address::default() {
        entity.addresses.push(address);
    }
    set(entity, "country_name", row.country_name.clone());
    set(entity, "name_prefix", row.supp_pre_acrn.clone());
    set(entity, "name_suffix", row.supp_post_acrn.clone());
}

fn add_debarment(entity: &mut Entity, row: &Row) {
    let from = row.debar_from_date.as_deref().and_then(clean_opt);
    entity.listed_on = from.clone();
    set(entity, "debarred_from", from);
    let to = row.debar_to_date.as_deref().and_then(clean_opt);
    let open = to.as_deref() == Some(OPEN_ENDED);
    if !open {
        // A debarment with an end date: once past, the listing has ended.
        entity.listing_ends = to
            .as_deref()
            .and_then(DateSpec::parse_loose)
            .filter(|d| matches!(d, DateSpec::Day { .. }))
            .map(|d| d.iso());
    }
    set(
        entity,
        "debarred_to",
        if open {
            Some("open-ended".to_owned())
        } else {
            to
        },
    );
    if let Some(reason) = row.debar_reason.as_deref().and_then(clean_opt) {
        entity.push_program(reason.trim_end_matches('.'));
        entity.attributes.insert("grounds".to_owned(), reason);
    }
    let cross = row.inelig_flg.as_deref() == Some("X");
    entity.push_program(if cross {
        "World Bank cross-debarment"
    } else {
        "World Bank debarment"
    });
    set(entity, "eligibility_status", row.supp_elig_stat.clone());
    set(
        entity,
        "ineligibility_status",
        row.ineligibly_status.clone(),
    );
    set(entity, "debarment_type", row.debar_type.clone());
    set(entity, "supplier_type", row.supp_type_code.clone());
}

/// Sets attribute `key` when `value` has text.
fn set(entity: &mut Entity, key: &str, value: Option<String>) {
    if let Some(value) = value.as_deref().and_then(clean_opt) {
        entity.attributes.insert(key.to_owned(), value);
    }
}

#[cfg(test)]
mod tests;
