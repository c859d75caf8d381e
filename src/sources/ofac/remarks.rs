//! OFAC's Remarks field: `;`-separated facts such as `DOB 01 Jan 1960`, `POB Baghdad, Iraq`,
//! `nationality Iran`, `Passport A123 (Iran)`, `a.k.a. 'X'`, `Gender Male`, `Linked To: Y`.
//! Each fact the model has a place for goes there; others are kept as attributes, and the
//! whole text stays in `remarks`.

use crate::model::{Alias, AliasQuality, DateSpec, Entity, IdDocument, clean, to_iso2};

/// Identity-document labels, longest first, as they open a remark.
const DOCUMENTS: &[&str] = &[
    "Diplomatic Passport",
    "Passport",
    "National ID No.",
    "Cedula No.",
    "C.U.R.P.",
    "R.F.C.",
    "Tax ID No.",
    "Registration Number",
    "Registration ID",
    "Identification Number",
    "Driver's License No.",
    "SSN",
    "NIT #",
    "Residency Number",
    "Personal ID Card",
    "Birth Certificate Number",
    "Citizen's Card Number",
    "Legal Entity Number",
    "Business Registration Number",
    "Company Number",
    "Public Security and Immigration No.",
    "Kenyan ID No.",
    "Vessel Registration Identification",
    "MMSI",
    "Aircraft Manufacturer's Serial Number (MSN)",
    "Aircraft Tail Number",
    "Stateless Person Passport",
    "UAE Identification",
    "Trade License No.",
    "Commercial Registry Number",
    "Unified Social Credit Code (USCC)",
    "Government Gazette Number",
    "V.A.T. Number",
    "Matricula Mercantil No",
    "Folio Mercantil No.",
    "Economic Register Number (CBLS)",
    "Certificate of Incorporation Number",
    "Chinese Commercial Code",
    "Dubai Chamber of Commerce Membership No.",
    "Refugee ID Card",
    "Afghan Money Service Provider License Number",
];

/// Applies every fact of `remarks` to `entity` and keeps the text in `entity.remarks`.
pub fn apply(entity: &mut Entity, remarks: &str) {
    let remarks = clean(remarks);
    if remarks.is_empty() {
        return;
    }
    for part in split(&remarks) {
        apply_part(entity, part);
    }
    entity.remarks = Some(remarks);
}

/// Splits on `;` outside single quotes (aliases may contain semicolons).
fn split(remarks: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in remarks.char_indices() {
        match c {
            '\'' => {
                // An apostrophe inside a word (O'Neil) does not open a quote.
                let prev = remarks[..i].chars().next_back();
                let next = remarks[i + 1..].chars().next();
                let inside_word = prev.is_some_and(char::is_alphanumeric)
                    && next.is_some_and(char::is_alphanumeric);
                if !inside_word {
                    quoted = !quoted;
                }
            }
            ';' if !quoted => {
                parts.push(remarks[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(remarks[start..].trim().trim_end_matches('.').trim());
    parts.retain(|p| !p.is_empty());
    parts
}

fn apply_part(entity: &mut Entity, part: &str) {
    let part_lower = part.to_ascii_lowercase();
    if let Some(rest) = strip_label(part, &["DOB", "alt. DOB"]) {
        if let Some(date) = DateSpec::parse_loose(rest) {
            entity.birth_dates.push(date);
        }
    } else if let Some(rest) = strip_label(part, &["POB", "alt. POB"]) {
        entity.birth_places.push(rest.to_owned());
        if let Some(iso) = last_country(rest) {
            entity.push_country(iso);
        }
    } else if let Some(rest) = strip_label(
        part,
        &[
            "nationality",
            "alt. nationality",
            "citizen",
            "alt. citizen",
            "Nationality of Registration",
        ],
    ) {
        if let Some(iso) = to_iso2(rest) {
            entity.push_nationality(iso);
        }
    } else if part_lower.starts_with("a.k.a.")
        || part_lower.starts_with("f.k.a.")
        || part_lower.starts_with("n.k.a.")
    {
        for name in quoted(part) {
            let mut alias = Alias::new(name);
            alias.kind = Some(part[..6].to_ascii_lowercase());
            alias.quality = AliasQuality::Weak;
            entity.push_alias(alias);
        }
    } else if let Some(rest) = strip_label(part, &["Gender"]) {
        entity
            .attributes
            .insert("gender".to_owned(), rest.to_owned());
    } else if let Some(rest) = strip_label(part, &["Linked To:"]) {
        push_attribute(entity, "linked_to", rest);
    } else if let Some((doc_type, rest)) = document(part) {
        entity.identifiers.push(id_document(doc_type, rest));
    } else {
        push_attribute(entity, "other", part);
    }
}

/// `rest` after one of `labels` followed by a space, case-insensitively.
fn strip_label<'a>(part: &'a str, labels: &[&str]) -> Option<&'a str> {
    labels.iter().find_map(|label| {
        let head = part.get(..label.len())?;
        let rest = part.get(label.len()..)?;
        (head.eq_ignore_ascii_case(label) && (rest.starts_with(' ') || rest.is_empty()))
            .then(|| rest.trim())
    })
}

fn document(part: &str) -> Option<(&'static str, &str)> {
    DOCUMENTS.iter().find_map(|label| {
        let rest = part.strip_prefix(label)?;
        rest.starts_with(' ').then(|| (*label, rest.trim()))
    })
}

/// `A123 (Iran) expires 2020` -> number A123, issuing country IR, note "expires 2020".
fn id_document(doc_type: &str, rest: &str) -> IdDocument {
    let (number, after) = match rest.find(" (") {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (rest, ""),
    };
    let (country, note) = match after.find(')') {
        Some(i) => (
            to_iso2(&after[..i]).map(str::to_owned),
            after[i + 1..].trim(),
        ),
        None => (None, after.trim()),
    };
    let number = number.trim();
    // A label with no number ("Passport ... issued") keeps the text.
    let (number, note) = if number.is_empty() {
        (rest.to_owned(), "")
    } else {
        (number.to_owned(), note)
    };
    IdDocument {
        doc_type: doc_type.trim_end_matches(['.', ':']).to_owned(),
        number,
        country,
        note: (!note.is_empty()).then(|| note.to_owned()),
    }
}

/// The names between single quotes: `a.k.a. 'X'; a.k.a. 'Y'` -> X.
fn quoted(part: &str) -> Vec<String> {
    let Some(start) = part.find('\'') else {
        return Vec::new();
    };
    let inner = &part[start + 1..];
    let inner = inner.strip_suffix('\'').unwrap_or(inner);
    let name = clean(inner);
    if name.len() >= 2 {
        vec![name]
    } else {
        Vec::new()
    }
}

/// The country at the end of a place (`Nahia, Giza, Egypt` -> EG).
fn last_country(place: &str) -> Option<&'static str> {
    let last = place.rsplit(',').next()?.trim();
    to_iso2(last).or_else(|| to_iso2(place))
}

fn push_attribute(entity: &mut Entity, key: &str, value: &str) {
    entity
        .attributes
        .entry(key.to_owned())
        .and_modify(|v| {
            v.push_str("; ");
            v.push_str(value);
        })
        .or_insert_with(|| value.to_owned());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EntityKind, ListCode};

    #[test]
    fn reads_the_facts_of_a_remark() {
        let mut e = Entity::new(ListCode::OfacSdn, "1", EntityKind::Individual, "X, Y");
        apply(
            &mut e,
            "DOB 01 Jan 1960; alt. DOB 1961; POB Nahia, Giza, Egypt; nationality Iran; \
             Passport A123 (Iran) expires 2020; National ID No. 99; a.k.a. 'AL-HAJJ; SAMI'; \
             Gender Male; Linked To: BANK Y.",
        );
        assert_eq!(e.birth_dates.len(), 2);
        assert_eq!(e.birth_places, ["Nahia, Giza, Egypt"]);
        assert_eq!(e.nationalities, ["IR"]);
        assert!(e.countries.contains(&"EG".to_owned()));
        assert_eq!(e.identifiers[0].doc_type, "Passport");
        assert_eq!(e.identifiers[0].number, "A123");
        assert_eq!(e.identifiers[0].country.as_deref(), Some("IR"));
        assert_eq!(e.identifiers[0].note.as_deref(), Some("expires 2020"));
        assert_eq!(e.identifiers[1].number, "99");
        assert_eq!(e.aliases[0].name, "AL-HAJJ; SAMI");
        assert_eq!(e.aliases[0].quality, AliasQuality::Weak);
        assert_eq!(e.attributes["gender"], "Male");
        assert_eq!(e.attributes["linked_to"], "BANK Y");
        assert!(e.remarks.is_some());
    }
}
