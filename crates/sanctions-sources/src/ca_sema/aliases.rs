//! The free text of SEMA's `<Aliases>`, split into names exactly as ID_SCHEME.md says: on
//! newline, `;`, ` / `, a `/` directly before a quote or capital letter, ` or `, ` and `
//! before a capital letter, then on `,` (a legal-form-only comma part stays with the part
//! before it); language labels (`Russian:`) removed; parts under 2 characters dropped.

use crate::model::clean;
use crate::text::merge_legal_forms;

/// Words that make a comma part only a legal form (`Интеррос Инвест, АО`), lowercase.
const LEGAL_FORMS: &[&str] = &[
    "ооо", "ао", "оао", "зао", "пао", "фгуп", "jsc", "llc", "ltd", "ojsc", "cjsc", "pjsc", "inc",
    "llp", "gmbh", "sa", "co", "plc", "тов", "тоо", "limited", "ано", "уп", "одо", "мп", "гуп",
    "муп", "нао", "ип", "pte", "pvt", "corp", "s.a", "ltda", "srl", "s.r.l", "company", "ag", "bv",
    "b.v", "ooo", "oao", "zao", "pao", "ao", "сао",
];

/// Language labels removed from alias text (matched case-insensitively before a `:`).
const LABELS: &[&str] = &[
    "russian",
    "belarusian",
    "belarussian",
    "arabic",
    "ukrainian",
    "farsi",
    "persian",
    "chinese",
    "korean",
    "burmese",
    "hebrew",
    "uzbek",
    "kazakh",
    "spanish",
    "french",
    "english",
    "romanian",
    "moldovan",
    "georgian",
    "armenian",
    "kyrgyz",
    "tajik",
];

const QUOTES: &[char] = &['"', '\'', '«', '“', '„', '‘'];

/// The names in an `<Aliases>` text, in order (not de-duplicated).
pub fn split(text: &str) -> Vec<String> {
    first_level(text)
        .iter()
        .flat_map(|part| merge_legal_forms(part.split(','), is_legal_form))
        .map(|part| clean(&remove_labels(&part)))
        .filter(|part| part.chars().count() >= 2)
        .collect()
}

/// Splits on newline, `;`, ` / `, `/` before a quote or capital, ` or `, ` and ` + capital.
fn first_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut rest = text;
    while let Some(ch) = rest.chars().next() {
        let skip = separator_len(rest);
        if skip > 0 {
            parts.push(std::mem::take(&mut current));
            rest = &rest[skip..];
            continue;
        }
        current.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
    parts.push(current);
    parts
}

/// The byte length of the separator `text` starts with, or 0.
fn separator_len(text: &str) -> usize {
    let next_after = |n: usize| text[n..].chars().next();
    let upper_after = |n: usize| next_after(n).is_some_and(char::is_uppercase);
    if text.starts_with(['\n', ';']) {
        1
    } else if text.starts_with(" / ") {
        3
    } else if text.starts_with('/')
        && next_after(1).is_some_and(|c| QUOTES.contains(&c) || c.is_uppercase())
    {
        1
    } else if text.starts_with(" or ") {
        4
    } else if text.starts_with(" and ") && upper_after(5) {
        5
    } else {
        0
    }
}

fn is_legal_form(part: &str) -> bool {
    let mut words = part.split_whitespace().peekable();
    words.peek().is_some()
        && words.all(|w| LEGAL_FORMS.contains(&w.trim_matches('.').to_lowercase().as_str()))
}

/// Removes every `Label:` (`Russian:`, `Belarusian :`) that starts a word.
fn remove_labels(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    'outer: while let Some(ch) = rest.chars().next() {
        if !prev.is_some_and(char::is_alphanumeric) {
            for label in LABELS {
                if let Some(head) = rest.get(..label.len())
                    && head.eq_ignore_ascii_case(label)
                {
                    let after = rest[label.len()..].trim_start();
                    if let Some(after) = after.strip_prefix(':') {
                        rest = after;
                        prev = Some(':');
                        continue 'outer;
                    }
                }
            }
        }
        out.push(ch);
        prev = Some(ch);
        rest = &rest[ch.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_the_id_scheme() {
        assert_eq!(
            split("Пётр Михайлович Фрадков; Pyotr Mikhailovich Fradkov"),
            ["Пётр Михайлович Фрадков", "Pyotr Mikhailovich Fradkov"]
        );
        assert_eq!(
            split(
                "Mikalay Lukashenka, Kolya Lukashenko, Belarusian: Мікалай Лукашэнка; Russian: Николай Лукашенко"
            ),
            [
                "Mikalay Lukashenka",
                "Kolya Lukashenko",
                "Мікалай Лукашэнка",
                "Николай Лукашенко"
            ]
        );
        assert_eq!(
            split("РЕСО-Гарантия, САО or Страховое Акционерное Общество \"РЕСО-Гарантия\""),
            [
                "РЕСО-Гарантия, САО",
                "Страховое Акционерное Общество \"РЕСО-Гарантия\""
            ]
        );
        assert_eq!(split("GORT/ORTAS"), ["GORT", "ORTAS"]);
        assert_eq!(split("Aleksander/ Aleksandr"), ["Aleksander/ Aleksandr"]);
        assert_eq!(
            split("Ольга КРАВЦОВА / Ольга КРАВЦОВА"),
            ["Ольга КРАВЦОВА", "Ольга КРАВЦОВА"]
        );
        assert_eq!(
            split("Guardians and Pasdaran and also"),
            ["Guardians", "Pasdaran and also"]
        );
        assert_eq!(split("ОАО, БЭТО\nX"), ["ОАО", "БЭТО"]);
        assert_eq!(
            split("King Royal Ltd.,\nKing Ltd, LLC"),
            ["King Royal Ltd.", "King Ltd, LLC"]
        );
        assert_eq!(split("Dagalo Mousa Arabic: دقلو"), ["Dagalo Mousa دقلو"]);
    }
}
