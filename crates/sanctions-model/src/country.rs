//! Country names, adjectives and codes as lists write them, resolved to ISO 3166-1 alpha-2.

use std::collections::HashMap;
use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;

#[path = "country_table.rs"]
mod table;

static BY_NAME: LazyLock<HashMap<&'static str, &'static str>> =
    LazyLock::new(|| table::NAMES.iter().copied().collect());

fn normalise(text: &str) -> String {
    let fold = |c: char| if c.is_ascii_alphanumeric() { c } else { ' ' };
    // ASCII is its own NFKD, without combining marks: most countries skip the decomposition.
    let folded: String = if text.is_ascii() {
        text.chars().map(|c| fold(c.to_ascii_lowercase())).collect()
    } else {
        text.nfkd()
            .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
            .flat_map(char::to_lowercase)
            .map(fold)
            .collect()
    };
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Resolves a country as a list writes it (`Russia`, `Russian Federation`, `Russia / Russie`,
/// `IRN`, `ir`, `Iranian`, `Korea, North`) to its uppercase alpha-2 code.
///
/// Tries the whole text, then its English half (`A / B`), then the part before a
/// parenthesis, then the last comma-separated part (the country of an address line).
pub fn to_iso2(text: &str) -> Option<&'static str> {
    let text = text.trim();
    let mut lower = [0u8; PLAIN_LEN];
    match plain_lower(text, &mut lower) {
        Some(plain) => BY_NAME.get(plain).copied(),
        None => to_iso2_read(text),
    }
}

/// The longest text [`plain_lower`] reads: longer than any one-word country name.
const PLAIN_LEN: usize = 32;

/// `text` in lower case, written into `buffer`, when it is one word of ASCII letters and
/// digits (`DE`, `irn`, `Germany`: a customer file's country, a code the wire form holds):
/// what [`normalise`] makes of it, read without its allocations. `None` for any other text.
fn plain_lower<'b>(text: &str, buffer: &'b mut [u8; PLAIN_LEN]) -> Option<&'b str> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > PLAIN_LEN || !bytes.iter().all(u8::is_ascii_alphanumeric) {
        return None;
    }
    let lower = &mut buffer[..bytes.len()];
    lower.copy_from_slice(bytes);
    lower.make_ascii_lowercase();
    std::str::from_utf8(lower).ok()
}

/// [`to_iso2`] of any `text` (trimmed): normalised whole, then its parts.
fn to_iso2_read(text: &str) -> Option<&'static str> {
    let lookup = |s: &str| BY_NAME.get(normalise(s).as_str()).copied();
    if text.is_empty() {
        return None;
    }
    lookup(text)
        .or_else(|| text.split_once(" / ").and_then(|(en, _)| lookup(en)))
        .or_else(|| text.split_once('(').and_then(|(head, _)| lookup(head)))
        .or_else(|| {
            text.rsplit_once(',')
                .and_then(|(_, tail)| lookup(tail))
                .filter(|_| text.matches(',').count() >= 1)
        })
}

/// Every name [`to_iso2`] reads whole, as its table holds it (`russia`, `russian
/// federation`, `irn`): a text that is one of these, lower case, is read without the
/// normalisation [`to_iso2`] gives any other text.
pub fn country_names() -> impl Iterator<Item = &'static str> {
    table::NAMES.iter().map(|(name, _)| *name)
}

/// The English short name of an alpha-2 code (`RU` -> `Russian Federation`).
pub fn country_name(iso2: &str) -> Option<&'static str> {
    let wanted = iso2.trim().to_ascii_uppercase();
    table::COUNTRIES
        .iter()
        .find(|(code, _)| *code == wanted)
        .map(|(_, name)| *name)
}

/// Every alpha-2 code that [`to_iso2`] reads as itself, in alphabetical order.
pub fn iso2_codes() -> impl Iterator<Item = &'static str> {
    table::COUNTRIES
        .iter()
        .map(|(code, _)| *code)
        .filter(|code| to_iso2(code) == Some(*code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_the_forms_lists_use() {
        for (text, code) in [
            ("Russia", "RU"),
            ("Russian Federation", "RU"),
            ("Russia / Russie", "RU"),
            ("IRN", "IR"),
            ("ir", "IR"),
            ("Iran (Islamic Republic of)", "IR"),
            ("Korea, North", "KP"),
            ("Democratic People's Republic of Korea", "KP"),
            ("Côte d'Ivoire", "CI"),
            ("Syrian", "SY"),
            ("Moscow, Russia", "RU"),
            ("Myanmar (Burma)", "MM"),
            ("United Kingdom", "GB"),
        ] {
            assert_eq!(to_iso2(text), Some(code), "{text}");
        }
        assert_eq!(to_iso2(""), None);
        assert_eq!(to_iso2("Atlantis"), None);
        assert_eq!(country_name("ru"), Some("Russian Federation"));
    }

    /// The one-word shortcut reads as the normalised look-up: every name and code of the
    /// table in three cases, with spaces around, and texts that are not one ASCII word.
    #[test]
    fn one_ascii_word_reads_as_the_normalised_look_up() {
        let texts = table::NAMES.iter().flat_map(|(name, code)| {
            [*name, *code].into_iter().flat_map(|t| {
                [
                    t.to_owned(),
                    t.to_uppercase(),
                    format!(" {t}\t"),
                    capitalised(t),
                ]
            })
        });
        let others = [
            "",
            " ",
            "DE.",
            "D E",
            "ü",
            "x".repeat(PLAIN_LEN + 1).as_str(),
            "123",
        ]
        .map(str::to_owned);
        for text in texts.chain(others) {
            assert_eq!(to_iso2(&text), to_iso2_read(text.trim()), "{text:?}");
        }
        let mut buffer = [0u8; PLAIN_LEN];
        assert_eq!(plain_lower("IrN", &mut buffer), Some("irn"));
        assert_eq!(plain_lower("Iran (x)", &mut buffer), None);
        assert_eq!(to_iso2(" de "), Some("DE"));
    }

    fn capitalised(text: &str) -> String {
        let mut chars = text.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
    }

    proptest::proptest! {
        #[test]
        fn any_text_reads_as_the_normalised_look_up(text in "[ A-Za-z0-9./()'-]{0,40}") {
            proptest::prop_assert_eq!(to_iso2(&text), to_iso2_read(text.trim()));
        }

        /// A name or code of the table, its letters' case drawn at random, with a character
        /// before or after it now and then.
        #[test]
        fn any_casing_of_a_country_reads_as_the_normalised_look_up(
            at in 0..table::NAMES.len() * 2,
            upper in proptest::collection::vec(proptest::bool::ANY, 64),
            (before, after) in ("[ (.]?", "[ ),.]?"),
        ) {
            let (name, code) = table::NAMES[at / 2];
            let chosen = if at % 2 == 0 { name } else { code };
            let cased: String = chosen
                .chars()
                .zip(upper.iter().cycle())
                .map(|(c, &up)| if up { c.to_ascii_uppercase() } else { c })
                .collect();
            let text = format!("{before}{cased}{after}");
            proptest::prop_assert_eq!(to_iso2(&text), to_iso2_read(text.trim()));
        }
    }
}
