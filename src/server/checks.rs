//! The interface's own checks of request values whose documented form is stricter than what
//! the service reads: a screening's, a batch name's or a favorite's `date_of_birth` and
//! `country`, and a brief listing's
//! `since`. Locally the service also reads `07.10.1952` or `Russia`; on the wire each field
//! has one documented form (the patterns and enums of `api::schema`, which say the
//! same as these functions), and the remote client sends that form. Refusals are 422s
//! naming the field.

use super::reply::ApiError;
use crate::api::batch::BatchName;
use crate::api::favorites::FavoriteRequest;
use crate::api::screening::ScreenRequest;
use crate::model::to_iso2;

/// Earliest and latest year of a date of birth: the engine's own range.
const DOB_YEARS: std::ops::RangeInclusive<i32> = crate::model::DATE_OF_BIRTH_YEARS;

/// `date_of_birth` and `country` of a screening request (or a batch's options).
pub(super) fn screen_request(request: &ScreenRequest) -> Result<(), ApiError> {
    evidence(
        request.date_of_birth.as_deref(),
        request.country.as_deref(),
        "",
    )
}

/// `date_of_birth` and `country` of a favorite, or of each name of an import (`names[3].`).
pub(super) fn favorites<'a>(
    requests: impl IntoIterator<Item = &'a FavoriteRequest>,
    many: bool,
) -> Result<(), ApiError> {
    requests
        .into_iter()
        .enumerate()
        .try_for_each(|(i, request)| {
            let at = if many {
                format!("names[{i}].")
            } else {
                String::new()
            };
            evidence(
                request.date_of_birth.as_deref(),
                request.country.as_deref(),
                &at,
            )
        })
}

/// `date_of_birth` and `country` of each name of a batch that has its own (`names[3].`).
pub(super) fn batch_names(names: &[BatchName]) -> Result<(), ApiError> {
    names.iter().enumerate().try_for_each(|(i, name)| {
        let (dob, country) = name.evidence();
        evidence(dob, country, &format!("names[{i}]."))
    })
}

/// A date of birth and a country in their documented forms; `at` prefixes the field's name.
fn evidence(dob: Option<&str>, country: Option<&str>, at: &str) -> Result<(), ApiError> {
    if let Some(dob) = dob
        && !is_date_of_birth(dob)
    {
        return Err(ApiError::invalid(
            &format!("{at}date_of_birth"),
            format!(
                "{dob:?} is not YYYY, YYYY-MM or YYYY-MM-DD with a year from {} to {}",
                DOB_YEARS.start(),
                DOB_YEARS.end()
            ),
        ));
    }
    if let Some(country) = country
        && !is_country(country)
    {
        return Err(ApiError::invalid(
            &format!("{at}country"),
            format!("{country:?} is not an ISO 3166-1 alpha-2 code in capitals (e.g. RU)"),
        ));
    }
    Ok(())
}

/// `GET /briefs?since=`: `YYYY-MM-DD`, or an RFC 3339 instant (`YYYY-MM-DDTHH:MM:SS`, an
/// optional fraction, and `Z` or an offset).
pub(super) fn brief_since(since: Option<&str>) -> Result<(), ApiError> {
    match since {
        Some(text) if !is_since(text) => Err(ApiError::invalid(
            "since",
            format!("{text:?} is not YYYY-MM-DD or an RFC 3339 instant"),
        )),
        _ => Ok(()),
    }
}

/// Digits of `text[range]` as a number, when they are all ASCII digits.
fn number(text: &str, from: usize, len: usize) -> Option<u32> {
    let part = text.get(from..from + len)?;
    part.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| part.parse().ok())
        .flatten()
}

/// `YYYY-MM-DD` at the start of `text`: a day that exists.
fn is_day(text: &str) -> bool {
    let (Some(y), Some(m), Some(d)) = (number(text, 0, 4), number(text, 5, 2), number(text, 8, 2))
    else {
        return false;
    };
    text.as_bytes()[4] == b'-'
        && text.as_bytes()[7] == b'-'
        && jiff::civil::Date::new(y as i16, m as i8, d as i8).is_ok()
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, year in [`DOB_YEARS`], a month 01-12 and a day the
/// month has.
pub(super) fn is_date_of_birth(text: &str) -> bool {
    let year_ok = number(text, 0, 4).is_some_and(|y| DOB_YEARS.contains(&(y as i32)));
    match text.len() {
        4 => year_ok,
        7 => {
            year_ok
                && text.as_bytes()[4] == b'-'
                && number(text, 5, 2).is_some_and(|m| (1..=12).contains(&m))
        }
        10 => year_ok && is_day(text),
        _ => false,
    }
}

/// Two capitals that the service reads as that ISO 3166-1 alpha-2 code (the document's enum,
/// `model::iso2_codes`).
pub(super) fn is_country(text: &str) -> bool {
    text.len() == 2 && text.bytes().all(|b| b.is_ascii_uppercase()) && to_iso2(text) == Some(text)
}

/// `YYYY-MM-DD` (a day that exists), optionally followed by `THH:MM:SS`, a fraction of 1-9
/// digits, and `Z` or `±HH:MM`.
pub(super) fn is_since(text: &str) -> bool {
    if text.len() < 10 || !is_day(text) {
        return false;
    }
    let Some(time) = text.get(10..) else {
        return false;
    };
    if time.is_empty() {
        return true;
    }
    let clock = time.len() >= 9
        && time.starts_with('T')
        && number(time, 1, 2).is_some_and(|h| h <= 23)
        && time.as_bytes()[3] == b':'
        && number(time, 4, 2).is_some_and(|m| m <= 59)
        && time.as_bytes()[6] == b':'
        && number(time, 7, 2).is_some_and(|s| s <= 59);
    if !clock {
        return false;
    }
    let mut rest = &time[9..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=9).contains(&digits) {
            return false;
        }
        rest = &fraction[digits..];
    }
    rest == "Z"
        || rest.len() == 6
            && matches!(rest.as_bytes()[0], b'+' | b'-')
            && number(rest, 1, 2).is_some_and(|h| h <= 23)
            && rest.as_bytes()[3] == b':'
            && number(rest, 4, 2).is_some_and(|m| m <= 59)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_birth_have_one_form() {
        for ok in [
            "1952",
            "1952-10",
            "1952-10-07",
            "1850",
            "2100-12-31",
            "2000-02-29",
        ] {
            assert!(is_date_of_birth(ok), "{ok}");
        }
        for bad in [
            "",
            "07.10.1952",
            "1849",
            "2101",
            "7509",
            "1952-13",
            "1952-00",
            "1952-10-32",
            "1952-02-30",
            "1900-02-29",
            "2100-02-29",
            "1952-1-07",
            "1952/10/07",
            "1952-10-07T00:00:00Z",
            "١٩٥٢",
        ] {
            assert!(!is_date_of_birth(bad), "{bad}");
        }
    }

    #[test]
    fn countries_are_capital_alpha_2_codes() {
        assert!(is_country("RU") && is_country("IR"));
        for bad in ["", "ru", "Russia", "RUS", "ZZ", "R"] {
            assert!(!is_country(bad), "{bad}");
        }
        // The document's enum is exactly the codes taken.
        let codes: Vec<&str> = crate::model::iso2_codes().collect();
        assert!(codes.len() > 200, "{}", codes.len());
        assert!(codes.iter().all(|c| is_country(c)));
    }

    #[test]
    fn since_is_a_date_or_an_rfc_3339_instant() {
        for ok in [
            "2026-01-31",
            "2026-01-31T10:00:00Z",
            "2026-01-31T10:00:00.5+01:00",
            "0001-01-01T00:00:00-12:00",
        ] {
            assert!(is_since(ok), "{ok}");
        }
        for bad in [
            "",
            "0000-00-00",
            "8320-02-31",
            "2025-02-29",
            "2026-1-31",
            "2026-01-31T10:00:00",
            "2026-01-31T25:00:00Z",
            "2026-01-31 10:00:00Z",
            "2026-01-31T10:00:00.Z",
            "2026-01-31x",
        ] {
            assert!(!is_since(bad), "{bad}");
        }
    }
}
