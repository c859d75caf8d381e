//! Turning UK name rows (one per name variant) into entities, for both the OFSI ConList and
//! the FCDO UK Sanctions List: the two share the row model and differ only in column names.

use std::collections::HashMap;

use super::table::Table;
use crate::SourceError;
use crate::model::{
    Address, Alias, AliasQuality, DateSpec, Entity, EntityKind, IdDocument, ListCode, clean,
    clean_opt, to_iso2,
};

/// The column names of one format.
pub struct Layout {
    pub id: &'static str,
    pub kind: &'static str,
    pub name_type: &'static str,
    pub quality: &'static str,
    pub regime: &'static str,
    pub listed_on: &'static str,
    pub dob: &'static str,
    pub nationality: &'static str,
    pub town_of_birth: &'static str,
    pub country_of_birth: &'static str,
    pub passport: &'static str,
    pub passport_details: &'static str,
    pub national_id: &'static str,
    pub national_id_details: &'static str,
    pub position: &'static str,
    pub addresses: &'static [&'static str],
    pub postcode: &'static str,
    pub country: &'static str,
    pub remarks: &'static [&'static str],
    /// Extra columns kept as attributes: (column, attribute key).
    pub attributes: &'static [(&'static str, &'static str)],
    pub url: &'static str,
}

/// Groups the rows by id (first-appearance order) and builds one entity per group.
pub fn entities(table: &Table, layout: &Layout) -> Result<Vec<Entity>, SourceError> {
    let mut order: Vec<(String, Vec<usize>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, (pos, row)) in table.rows.iter().enumerate() {
        let id = clean(table.get(row, layout.id));
        let id = id.strip_suffix(".0").map_or(id.clone(), str::to_owned);
        if id.is_empty() {
            return Err(SourceError::parse(
                &table.file,
                pos,
                format!("empty {}", layout.id),
            ));
        }
        let slot = *index.entry(id.clone()).or_insert_with(|| {
            order.push((id, Vec::new()));
            order.len() - 1
        });
        order[slot].1.push(i);
    }
    order
        .into_iter()
        .map(|(id, rows)| entity(table, layout, id, &rows))
        .collect()
}

fn entity(
    table: &Table,
    layout: &Layout,
    id: String,
    rows: &[usize],
) -> Result<Entity, SourceError> {
    let row = |i: usize| &table.rows[i].1;
    let primary_at = rows
        .iter()
        .copied()
        .find(|i| clean(table.get(row(*i), layout.name_type)).eq_ignore_ascii_case("primary name"))
        .unwrap_or(rows[0]);
    let first = row(primary_at);
    let kind_text = clean(table.get(first, layout.kind)).to_ascii_lowercase();
    let kind = match kind_text.as_str() {
        "individual" => EntityKind::Individual,
        "entity" => EntityKind::Entity,
        "ship" | "vessel" => EntityKind::Vessel,
        _ => {
            let pos = &table.rows[primary_at].0;
            return Err(SourceError::parse(
                &table.file,
                pos,
                format!("unknown {} {kind_text:?} for id {id}", layout.kind),
            ));
        }
    };
    let mut e = Entity::new(ListCode::UkHmt, id, kind, full_name(table, first));
    e.name_parts = super::name_parts(table, first, kind);
    e.source_url = Some(layout.url.to_owned());
    for &i in std::iter::once(&primary_at).chain(rows.iter().filter(|i| **i != primary_at)) {
        add_row(&mut e, table, layout, row(i), i == primary_at);
    }
    Ok(e)
}

/// Name 1..Name 5 then Name 6, joined by spaces.
pub fn full_name(table: &Table, row: &[String]) -> String {
    let parts: Vec<String> = ["Name 1", "Name 2", "Name 3", "Name 4", "Name 5", "Name 6"]
        .iter()
        .map(|c| clean(table.get(row, c)))
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        // The FCDO summary export: the whole name in one column.
        return clean(table.get(row, "Name"));
    }
    parts.join(" ")
}

fn add_row(e: &mut Entity, t: &Table, l: &Layout, row: &[String], primary: bool) {
    if !primary {
        let name_type = clean(t.get(row, l.name_type));
        let quality = clean(t.get(row, l.quality)).to_ascii_lowercase();
        e.push_alias(Alias {
            name: full_name(t, row),
            kind: alias_kind(&name_type),
            quality: if quality.contains("low") || quality.contains("weak") {
                AliasQuality::Weak
            } else if ["good", "high", "strong"]
                .iter()
                .any(|q| quality.contains(q))
            {
                AliasQuality::Strong
            } else {
                AliasQuality::Unspecified
            },
            ..Alias::default()
        });
    }
    for name in split_numbered(t.get(row, "Name Non-Latin Script")) {
        e.push_alias(Alias {
            name,
            kind: Some("original_script".into()),
            script: clean_opt(t.get(row, "Non-Latin Script Type")),
            lang: clean_opt(t.get(row, "Non-Latin Script Language")),
            ..Alias::default()
        });
    }
    add_facts(e, t, l, row);
}

/// "AKA" -> `aka`, "Primary name variation" -> `primary_name_variation`.
fn alias_kind(name_type: &str) -> Option<String> {
    let kind = name_type.to_ascii_lowercase().replace(' ', "_");
    (!kind.is_empty()).then_some(kind)
}

/// The per-entity facts a row carries (repeated on every name row in the files).
fn add_facts(e: &mut Entity, t: &Table, l: &Layout, row: &[String]) {
    for dob in split_numbered(t.get(row, l.dob)) {
        // The FCDO writes unknown parts as letters: "dd/mm/1944".
        let dob = dob.replace("dd", "00").replace("mm", "00");
        if let Some(d) = DateSpec::parse_loose(&dob)
            && !e.birth_dates.contains(&d)
        {
            e.birth_dates.push(d);
        }
    }
    for n in t
        .get(row, l.nationality)
        .split('|')
        .flat_map(split_numbered)
    {
        if let Some(iso) = to_iso2(&n) {
            e.push_nationality(iso);
        }
    }
    let town = clean(t.get(row, l.town_of_birth));
    let country_birth = clean(t.get(row, l.country_of_birth));
    let place = [town, country_birth.clone()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    if !place.is_empty() && !e.birth_places.contains(&place) {
        e.birth_places.push(place);
    }
    if let Some(iso) = to_iso2(&country_birth) {
        e.push_country(iso);
    }
    add_document(
        e,
        "Passport",
        t.get(row, l.passport),
        t.get(row, l.passport_details),
    );
    add_document(
        e,
        "National ID",
        t.get(row, l.national_id),
        t.get(row, l.national_id_details),
    );
    add_address(e, t, l, row);
    for regime in t.get(row, l.regime).split('|') {
        e.push_program(regime);
    }
    if e.listed_on.is_none() {
        e.listed_on = iso_day(t.get(row, l.listed_on));
    }
    if e.remarks.is_none() {
        let parts: Vec<String> = l
            .remarks
            .iter()
            .filter_map(|c| clean_opt(t.get(row, c)))
            .collect();
        e.remarks = (!parts.is_empty()).then(|| parts.join(" "));
    }
    let position = (l.position, "position");
    for (col, key) in l.attributes.iter().chain(std::iter::once(&position)) {
        if let Some(v) = clean_opt(t.get(row, col)) {
            let v = if key.starts_with("date_") {
                iso_day(&v).unwrap_or(v)
            } else {
                v
            };
            e.attributes.entry((*key).to_owned()).or_insert(v);
        }
    }
}

/// Adds a document (`doc_type`, `number`) unless it is empty or already there.
pub(super) fn add_document(e: &mut Entity, doc_type: &str, number: &str, details: &str) {
    let Some(number) = clean_opt(number) else {
        return;
    };
    if e.identifiers
        .iter()
        .any(|d| d.doc_type == doc_type && d.number == number)
    {
        return;
    }
    e.identifiers.push(IdDocument {
        doc_type: doc_type.to_owned(),
        number,
        country: None,
        note: clean_opt(details),
    });
}

fn add_address(e: &mut Entity, t: &Table, l: &Layout, row: &[String]) {
    let lines: Vec<String> = l
        .addresses
        .iter()
        .filter_map(|c| clean_opt(t.get(row, c)))
        .collect();
    let postal_code = clean_opt(t.get(row, l.postcode));
    let country_text = clean(t.get(row, l.country));
    let country = to_iso2(&country_text).map(str::to_owned);
    if lines.is_empty() && postal_code.is_none() && country_text.is_empty() {
        return;
    }
    if let Some(iso) = &country {
        e.push_country(iso);
    }
    let full = lines
        .iter()
        .chain(postal_code.iter())
        .chain(std::iter::once(&country_text).filter(|c| !c.is_empty()))
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let address = Address {
        street: lines.first().cloned(),
        city: None,
        region: None,
        postal_code,
        country,
        full: Some(full),
    };
    if !e.addresses.contains(&address) {
        e.addresses.push(address);
    }
}

/// A date as `YYYY-MM-DD` when it is a full day.
pub fn iso_day(text: &str) -> Option<String> {
    match DateSpec::parse_loose(text)? {
        d @ DateSpec::Day { .. } => Some(d.iso()),
        _ => None,
    }
}

/// Splits "(1) Russia (2) Ukraine" into its items; text without numbering is one item.
pub fn split_numbered(text: &str) -> Vec<String> {
    let text = clean(text);
    let mut items = Vec::new();
    let mut rest = text.as_str();
    let mut current = String::new();
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            current.push_str(&rest[..open]);
            items.push(std::mem::take(&mut current));
            rest = &after[digits + 1..];
        } else {
            current.push_str(&rest[..=open]);
            rest = after;
        }
    }
    current.push_str(rest);
    items.push(current);
    items
        .into_iter()
        .map(|s| clean(&s))
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_items_are_split() {
        assert_eq!(
            split_numbered("(1) Russia (2) Ukraine"),
            ["Russia", "Ukraine"]
        );
        assert_eq!(split_numbered("Korea (North)"), ["Korea (North)"]);
        assert_eq!(split_numbered(""), Vec::<String>::new());
    }
}
