//! OFAC's free-text Remarks field: birth dates and places, nationalities, identity
//! documents, gender and other labelled facts, written as `; `-separated segments.

use crate::model::{Alias, AliasQuality, DateSpec, Entity, IdDocument, clean, to_iso2};

/// Labels of identity documents and registration numbers, longest first where one is a
/// prefix of another.
const ID_TYPES: &[&str] = &[
    "Vessel Registration Identification",
    "Aircraft Manufacturer's Serial Number (MSN)",
    "Aircraft Construction Number (also called L/N or S/N or F/N)",
    "Aircraft Construction Number",
    "Aircraft Tail Number",
    "Unified Social Credit Code (USCC)",
    "Business Registration Number",
    "Commercial Registry Number",
    "Government Gazette Number",
    "Chamber of Commerce Number",
    "Economic Register Number",
    "Certificate of Incorporation Number",
    "Public Registration Number",
    "Birth Certificate Number",
    "Registration Number",
    "Registration ID",
    "Identification Number",
    "Legal Entity Number",
    "Diplomatic Passport",
    "Passport",
    "National ID No.",
    "Tax ID No.",
    "Cedula No.",
    "Folio Mercantil No.",
    "Matricula Mercantil No",
    "Trade License No.",
    "C.R. No.",
    "Kenyan ID No.",
    "Driver's License No.",
    "Residency Number",
    "Personal ID Card",
    "Company Number",
    "UK Company Number",
    "Enterprise Number",
    "Electoral Registry No.",
    "Immigration No.",
    "SSN",
    "D-U-N-S Number",
    "SWIFT/BIC",
    "NIT #",
    "RUC #",
    "RFC",
    "C.U.R.P.",
    "CURP #",
    "D.N.I.",
    "MMSI",
    "License",
];

/// Labelled facts kept in `attributes` under the label in snake case.
const ATTRIBUTE_LABELS: &[&str] = &[
    "Gender",
    "Linked To",
    "Secondary sanctions risk",
    "Transactions Prohibited For Persons Owned or Controlled By U.S. Financial Institutions",
    "Additional Sanctions Information -",
    "Organization Established Date",
    "Organization Type",
    "Target Type",
    "Website",
    "Email Address",
    "Phone Number",
    "Telephone",
    "Fax",
    "Vessel Flag",
    "Vessel Type",
    "Vessel Year of Build",
    "Vessel Call Sign",
    "Other Vessel Flag",
    "Other Vessel Call Sign",
    "Aircraft Model",
    "Aircraft Operator",
    "Aircraft Manufacture Date",
    "Previous Aircraft Tail Number",
    "Executive Order 13846 information",
    "Executive Order 13662 Directive Determination -",
    "Listing Date",
    "Effective Date",
    "Title",
];

/// Reads every fact the remarks state into `entity` (the text itself is kept by the caller).
pub fn apply(entity: &mut Entity, remarks: &str) {
    let text = remarks.trim().trim_end_matches('.');
    for segment in text.split(';') {
        let segment = clean(segment);
        if !segment.is_empty() {
            apply_segment(entity, &segment);
        }
    }
}

fn apply_segment(entity: &mut Entity, segment: &str) {
    let body = segment.strip_prefix("alt. ").unwrap_or(segment);
    if let Some(date) = body.strip_prefix("DOB ") {
        entity
            .birth_dates
            .extend(DateSpec::parse_loose(date.trim_end_matches('.')));
    } else if let Some(place) = body.strip_prefix("POB ") {
        push_birth_place(entity, place);
    } else if let Some(country) = body
        .strip_prefix("nationality ")
        .or_else(|| body.strip_prefix("citizen "))
    {
        push_nationality(entity, country);
    } else if let Some((kind, name)) = quoted_alias(body) {
        // OFAC's weak a.k.a.s are published only here: screened as weak aliases.
        entity.push_alias(Alias {
            kind: Some(kind.to_owned()),
            quality: AliasQuality::Weak,
            ..Alias::new(name)
        });
    } else if let Some(doc) = id_document(body) {
        if let Some(country) = &doc.country {
            entity.push_country(country);
        }
        if !entity.identifiers.contains(&doc) {
            entity.identifiers.push(doc);
        }
    } else if let Some((label, value)) = labelled(body) {
        if label == "Vessel Flag"
            && let Some(iso2) = to_iso2(value)
        {
            entity.push_country(iso2);
        }
        append_attribute(entity, &snake_case(label), value);
    }
}

fn push_birth_place(entity: &mut Entity, place: &str) {
    let place = place.trim_end_matches('.').trim();
    if place.is_empty() {
        return;
    }
    if let Some(iso2) = place.rsplit(',').next().and_then(|c| to_iso2(c.trim())) {
        entity.push_country(iso2);
    }
    if !entity.birth_places.iter().any(|p| p == place) {
        entity.birth_places.push(place.to_owned());
    }
}

fn push_nationality(entity: &mut Entity, country: &str) {
    let country = country.trim_end_matches('.').trim();
    match to_iso2(country) {
        Some(iso2) => entity.push_nationality(iso2),
        None => append_attribute(entity, "nationality_text", country),
    }
}

/// `a.k.a. 'NAME'` (also f.k.a./n.k.a.): the alias kind and the name between the quotes.
fn quoted_alias(segment: &str) -> Option<(&'static str, String)> {
    let (kind, rest) = [("a.k.a. ", "aka"), ("f.k.a. ", "fka"), ("n.k.a. ", "nka")]
        .iter()
        .find_map(|(p, kind)| Some((*kind, segment.strip_prefix(p)?)))?;
    let name = rest.trim().trim_matches(['\'', '"']).trim();
    (!name.is_empty()).then(|| (kind, name.to_owned()))
}

/// `<type> <number> (<country>) <note>` for a known document type.
fn id_document(segment: &str) -> Option<IdDocument> {
    let (doc_type, rest) = ID_TYPES.iter().find_map(|t| {
        let rest = segment.strip_prefix(t)?;
        (rest.starts_with(' ') || rest.starts_with(':')).then_some((*t, rest))
    })?;
    let rest = rest.trim_start_matches(':').trim();
    let (number, after) = match rest.find(" (") {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => split_number(rest),
    };
    let number = number.trim();
    if number.is_empty() || is_prose(number) {
        return None;
    }
    let (country, note) = issuing_country(after.trim());
    Some(IdDocument {
        doc_type: doc_type.to_owned(),
        number: number.to_owned(),
        country,
        note,
    })
}

/// True for text like `and National ID were`: a sentence, not a document number.
fn is_prose(number: &str) -> bool {
    number
        .split(' ')
        .next()
        .is_some_and(|w| w.bytes().all(|b| b.is_ascii_lowercase()))
}

/// Splits `A123 expires 2020` into the number and what follows it.
fn split_number(rest: &str) -> (&str, &str) {
    for word in [" issued", " expires", " valid"] {
        if let Some(at) = rest.find(word) {
            return (&rest[..at], &rest[at..]);
        }
    }
    (rest, "")
}

/// `(Iran) expires 2020` -> (Some("IR"), Some("expires 2020")); `(Jalisco) (Mexico)` ->
/// (Some("MX"), Some("(Jalisco)")). An unknown country stays in the note.
fn issuing_country(after: &str) -> (Option<String>, Option<String>) {
    let note = |t: &str| {
        let t = clean(t);
        (!t.is_empty()).then_some(t)
    };
    let mut from = 0;
    while let Some(open) = after[from..].find('(').map(|i| i + from) {
        let Some(close) = after[open..].find(')').map(|i| i + open) else {
            break;
        };
        if let Some(iso2) = to_iso2(&after[open + 1..close]) {
            let rest = format!("{} {}", &after[..open], &after[close + 1..]);
            return (Some(iso2.to_owned()), note(&rest));
        }
        from = close + 1;
    }
    (None, note(after))
}

fn labelled(segment: &str) -> Option<(&str, &str)> {
    ATTRIBUTE_LABELS.iter().find_map(|label| {
        let rest = segment.strip_prefix(label)?;
        let value = rest.trim_start_matches(':').trim();
        (rest.starts_with([' ', ':']) && !value.is_empty())
            .then(|| (label.trim_end_matches([' ', '-']), value))
    })
}

fn snake_case(label: &str) -> String {
    let mut out = String::new();
    for word in label.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !word.is_empty() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push_str(&word.to_ascii_lowercase());
        }
    }
    out
}

/// Sets `key`, appending with `; ` when the entry already has a value for it.
pub fn append_attribute(entity: &mut Entity, key: &str, value: &str) {
    let value = value.trim();
    if value.is_empty() {
        return;
    }
    entity
        .attributes
        .entry(key.to_owned())
        .and_modify(|v| {
            if !v.split("; ").any(|x| x == value) {
                v.push_str("; ");
                v.push_str(value);
            }
        })
        .or_insert_with(|| value.to_owned());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EntityKind, ListCode};

    fn parsed(remarks: &str) -> Entity {
        let mut e = Entity::new(ListCode::OfacSdn, "1", EntityKind::Individual, "X, Y");
        apply(&mut e, remarks);
        e
    }

    #[test]
    fn reads_dates_places_nationalities_and_gender() {
        let e = parsed(
            "DOB 01 Jan 1960; alt. DOB circa 1961; alt. DOB 1962 to 1964; POB Tehran, Iran; \
             nationality Iran; citizen Iraq; Gender Male.",
        );
        assert_eq!(e.birth_dates.len(), 3);
        assert_eq!(e.birth_dates[0].iso(), "1960-01-01");
        assert_eq!(e.birth_dates[1].iso(), "1961");
        assert_eq!(e.birth_dates[2].iso(), "1962/1964");
        assert_eq!(e.birth_places, ["Tehran, Iran"]);
        assert_eq!(e.nationalities, ["IR", "IQ"]);
        assert_eq!(e.attributes["gender"], "Male");
    }

    #[test]
    fn reads_identity_documents() {
        let e = parsed(
            "Passport A123 (Iran) expires 01 Jan 2020; National ID No. 55-1 (Iraq); \
             Vessel Registration Identification IMO 1234567; Tax ID No. 77 (Narnia); \
             Folio Mercantil No. 74711 (Jalisco) (Mexico); Passport and ID were lost; SWIFT/BIC BKCHCNBJ; \
             a.k.a. 'WEAK ONE'; Linked To: BANK X.",
        );
        let ids = &e.identifiers;
        assert_eq!(ids.len(), 6);
        assert_eq!(ids[5].number, "BKCHCNBJ");
        assert_eq!(ids[0].doc_type, "Passport");
        assert_eq!(ids[0].number, "A123");
        assert_eq!(ids[0].country.as_deref(), Some("IR"));
        assert_eq!(ids[0].note.as_deref(), Some("expires 01 Jan 2020"));
        assert_eq!(ids[1].country.as_deref(), Some("IQ"));
        assert_eq!(ids[2].number, "IMO 1234567");
        assert_eq!(ids[3].country, None);
        assert_eq!(ids[3].note.as_deref(), Some("(Narnia)"));
        assert_eq!(ids[4].country.as_deref(), Some("MX"));
        assert_eq!(ids[4].note.as_deref(), Some("(Jalisco)"));
        assert_eq!(e.aliases.len(), 1);
        assert_eq!(e.aliases[0].name, "WEAK ONE");
        assert_eq!(e.aliases[0].quality, AliasQuality::Weak);
        assert_eq!(e.aliases[0].kind.as_deref(), Some("aka"));
        assert_eq!(e.attributes["linked_to"], "BANK X");
    }
}
