//! DFAT's free-text cells: `a) … b) …` lists, dates of birth (text, years or Excel serial
//! dates), citizenships and listing dates.

use calamine::Data;
use jiff::civil::Date;

use crate::model::{DateSpec, clean, to_iso2};

/// A cell as text: numbers as integers without `.0`, Excel dates as `YYYY-MM-DD`.
pub fn cell_text(cell: &Data) -> String {
    match cell {
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => clean(s),
        Data::Int(i) => i.to_string(),
        Data::Float(f) => number_text(*f),
        Data::DateTime(d) => excel_date(d.as_f64()).unwrap_or_else(|| number_text(d.as_f64())),
        Data::Bool(b) => b.to_string(),
        Data::Error(_) | Data::Empty => String::new(),
    }
}

fn number_text(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        f.to_string()
    }
}

/// An Excel serial date (days since 1899-12-30) as `YYYY-MM-DD`.
pub fn excel_date(serial: f64) -> Option<String> {
    if !(1.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let epoch = Date::new(1899, 12, 30).ok()?;
    let date = epoch
        .checked_add(jiff::Span::new().days(serial.trunc() as i64))
        .ok()?;
    Some(date.to_string())
}

/// A date cell (an Excel date or serial number) as `YYYY-MM-DD`, else its text.
pub fn date_cell(cell: &Data) -> Option<String> {
    match cell {
        Data::Int(i) => excel_date(*i as f64),
        Data::Float(f) => excel_date(*f),
        Data::DateTime(d) => excel_date(d.as_f64()),
        other => Some(cell_text(other)).filter(|t| !t.is_empty()),
    }
}

/// Dates of birth of a cell: a year or an Excel date when numeric, else the text's list.
pub fn birth_dates(cell: &Data) -> Vec<DateSpec> {
    let number = match cell {
        Data::Int(i) => Some(*i as f64),
        Data::Float(f) => Some(*f),
        Data::DateTime(d) => Some(d.as_f64()),
        _ => None,
    };
    if let Some(n) = number {
        let text = if n < 3000.0 {
            number_text(n)
        } else {
            excel_date(n).unwrap_or_default()
        };
        return DateSpec::parse_loose(&text).into_iter().collect();
    }
    let text = cell_text(cell);
    if is_none(&text) {
        return Vec::new();
    }
    lettered(&text)
        .iter()
        .flat_map(|part| part.split([';']).flat_map(|p| p.split(", or ")))
        .flat_map(|p| p.split(" or "))
        .filter_map(|p| DateSpec::parse_loose(&normalise_date(p)))
        .collect()
}

/// `Approximately 1955- 1958` -> `1955-1958`, `Between 1957 and 1962` -> `1957 and 1962`.
fn normalise_date(text: &str) -> String {
    let mut text = clean(text);
    if text.starts_with('(') && text.ends_with(')') {
        text = text[1..text.len() - 1].to_owned();
    } else if let Some(open) = text.find(" (") {
        text.truncate(open);
    }
    for prefix in [
        "alt dob:",
        "alt dob",
        "approximately ",
        "approx. ",
        "approx ",
        "circa ",
        "c. ",
        "about ",
        "between ",
        "born ",
    ] {
        if text.to_ascii_lowercase().starts_with(prefix) {
            text = text[prefix.len()..].trim_start().to_owned();
        }
    }
    text.replace("- ", "-")
        .replace(" -", "-")
        .trim_end_matches(['.', ','])
        .to_owned()
}

/// True for the placeholders the list writes for "nothing" (`NA`, `N/A`, `-`).
pub fn is_none(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "" | "na" | "n/a" | "-" | "none" | "unknown"
    )
}

/// Splits `a) X b) Y c) Z` into its items (the whole text when it is no such list).
pub fn lettered(text: &str) -> Vec<String> {
    let mut cuts = Vec::new();
    let mut expected = b'a';
    let bytes = text.as_bytes();
    for i in 0..bytes.len().saturating_sub(1) {
        let starts_word = i == 0 || bytes[i - 1].is_ascii_whitespace() || bytes[i - 1] == b'(';
        if starts_word && bytes[i] == expected && bytes[i + 1] == b')' {
            cuts.push(i);
            expected += 1;
        }
    }
    if cuts.is_empty() {
        return vec![clean(text)]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect();
    }
    let mut items = Vec::new();
    let head = clean(&text[..cuts[0]]);
    if !head.is_empty() && head != "(" {
        items.push(head);
    }
    for (n, start) in cuts.iter().enumerate() {
        let end = cuts.get(n + 1).copied().unwrap_or(text.len());
        let item = clean(text[start + 2..end].trim_end_matches([',', ';', ' ']));
        if !item.is_empty() {
            items.push(item);
        }
    }
    items
}

/// Splits a citizenship cell (`Russian and Ukrainian`, `a) Afghan b) Pakistani`) into items;
/// ` and ` splits only when both sides are countries (`Trinidad and Tobago` stays whole).
pub fn citizenships(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in lettered(text)
        .iter()
        .flat_map(|p| p.split([',', ';']).map(clean).collect::<Vec<_>>())
    {
        match part.split_once(" and ") {
            Some((a, b)) if country_code(a).is_some() && country_code(b).is_some() => {
                out.extend([clean(a), clean(b)]);
            }
            _ if !is_none(&part) => out.push(part),
            _ => {}
        }
    }
    out
}

/// A citizenship as ISO alpha-2, also for `Saudi Arabian` and `Possibly Ethiopian`.
pub fn country_code(text: &str) -> Option<&'static str> {
    let text = text.trim();
    let text = text.strip_prefix("Possibly ").unwrap_or(text);
    to_iso2(text).or_else(|| text.strip_suffix('n').and_then(to_iso2))
}

/// The first full date in a listing text (`Listed on 12 Apr. 2000 (amended …)`,
/// `Last listed on: 16/09/2022`), as `YYYY-MM-DD`.
pub fn first_date(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || "():;,".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, word) in words.iter().enumerate() {
        let candidates = [
            word.to_string(),
            words.get(i..i + 3).map(|w| w.join(" ")).unwrap_or_default(),
        ];
        for candidate in candidates {
            if let Some(day @ DateSpec::Day { .. }) = DateSpec::parse_loose(&candidate) {
                return Some(day.iso());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lettered_lists() {
        assert_eq!(
            lettered("a) Approximately 1955- 1958 b) Approximately 1945-1950"),
            ["Approximately 1955- 1958", "Approximately 1945-1950"]
        );
        assert_eq!(lettered("Kabul, Afghanistan"), ["Kabul, Afghanistan"]);
        assert_eq!(
            citizenships("Russian and Ukrainian"),
            ["Russian", "Ukrainian"]
        );
        assert_eq!(citizenships("Trinidad and Tobago"), ["Trinidad and Tobago"]);
        assert_eq!(country_code("Saudi Arabian"), Some("SA"));
    }

    #[test]
    fn reads_birth_dates_and_listing_dates() {
        let dates = |text: &str| -> Vec<String> {
            birth_dates(&Data::String(text.into()))
                .iter()
                .map(DateSpec::iso)
                .collect()
        };
        assert_eq!(
            dates("a) Approximately 1955- 1958 b) Approximately 1945-1950"),
            ["1955/1958", "1945/1950"]
        );
        assert_eq!(
            dates("19 December 1980, or 19 January 1980"),
            ["1980-12-19", "1980-01-19"]
        );
        assert_eq!(dates("Between 1957 and 1962"), ["1957/1962"]);
        assert_eq!(dates("12 May. 1971"), ["1971-05-12"]);
        assert_eq!(dates("NA"), Vec::<String>::new());
        assert_eq!(dates("alt DOB: 19/11/1956"), ["1956-11-19"]);
        assert_eq!(dates("(Aug. 1961)"), ["1961-08"]);
        assert_eq!(dates("c. 1962"), ["1962"]);
        assert_eq!(dates("3 March 1979 (from false passport)"), ["1979-03-03"]);
        assert_eq!(birth_dates(&Data::Float(1969.0))[0].iso(), "1969");
        assert_eq!(birth_dates(&Data::Float(25204.0))[0].iso(), "1969-01-01");
        assert_eq!(excel_date(45607.0).as_deref(), Some("2024-11-11"));
        assert_eq!(cell_text(&Data::Float(12.0)), "12");
        assert_eq!(
            first_date(
                "Listed by UN 1267 Committee on 25 January 2001 (amended on 20 December 2005)"
            )
            .as_deref(),
            Some("2001-01-25")
        );
        assert_eq!(
            first_date("Last listed on: 16/09/2022").as_deref(),
            Some("2022-09-16")
        );
        assert_eq!(first_date("Amendment (No. 11) Instrument 2022"), None);
    }
}
