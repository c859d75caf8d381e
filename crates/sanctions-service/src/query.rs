//! What a query screens, decided in one place for every face (CLI, batch, terminal UI, HTTP):
//!
//! - [`cleaned`]: the text the engine reads. Terminal control sequences (CSI, OSC and other
//!   ESC sequences, parsed by `strip-ansi-escapes`), C0 and C1 controls, bidi controls and
//!   zero-width or invisible characters are removed; a tab or line break becomes a space. The
//!   stored screening keeps the query as sent, for the audit.
//! - [`screenable`]: refuses a name that is empty, too long, or leaves nothing to screen once
//!   cleaned and once titles, legal forms, particles and punctuation are set aside (`"."`,
//!   `"Mr"`, `"LLC"`, `"\u{200b}"`).

use std::borrow::Cow;

use crate::api::screening::KindFilter;
use crate::engine;

/// Characters removed from a query after the escape sequences: bidi controls, zero-width and
/// invisible formatting characters (soft hyphen, joiners, word joiner, BOM, ...).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'
            | '\u{200D}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
    )
}

/// Whitespace controls that separate words: kept as a space. The zero-width non-joiner too:
/// Persian writes it between the parts of a name (`محمد‌علی`), which the engine reads as two
/// words, as it did before queries were cleaned.
fn is_breaking_control(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{85}' | '\u{200C}' | '\u{2028}' | '\u{2029}'
    )
}

/// The text of `query` the engine screens: see the module documentation. Borrowed when there
/// is nothing to remove.
pub fn cleaned(query: &str) -> Cow<'_, str> {
    if !query
        .chars()
        .any(|c| c.is_control() || is_invisible(c) || is_breaking_control(c))
    {
        return Cow::Borrowed(query);
    }
    let spaced: String = query
        .chars()
        .map(|c| if is_breaking_control(c) { ' ' } else { c })
        .collect();
    let stripped = strip_ansi_escapes::strip_str(&spaced);
    Cow::Owned(
        stripped
            .chars()
            .filter(|c| !c.is_control() && !is_invisible(*c))
            .collect(),
    )
}

/// Refuses a name (of `kind`, when known) that cannot be screened, saying why: empty, longer
/// than the engine accepts, or leaving nothing to screen (only titles, legal forms,
/// particles, punctuation, controls or invisible characters: "Mr", ".", "LLC", "al"). A name
/// of particles or titles that looks like a person's (`Pat D. King`, `DAS, V.`) is screened
/// ([`engine::has_something_to_screen`]).
pub fn screenable(name: &str, kind: Option<KindFilter>) -> Result<(), String> {
    let clean = cleaned(name);
    let text = clean.trim();
    if text.is_empty() && name.trim().is_empty() {
        return Err("the name is empty".to_owned());
    }
    let chars = name.trim().chars().count();
    if chars > engine::MAX_NAME_CHARS {
        return Err(format!(
            "the name has {chars} characters; at most {} are accepted",
            engine::MAX_NAME_CHARS
        ));
    }
    if !engine::has_something_to_screen(text, kind != Some(KindFilter::Individual)) {
        return Err(format!(
            "{name:?} leaves nothing to screen once titles, legal forms, particles and punctuation are set aside"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_controls_are_removed() {
        let cases = [
            ("Vladimir Putin\u{1b}[0m", "Vladimir Putin"),
            ("\u{1b}[1;31mVladimir\u{1b}[0m Putin", "Vladimir Putin"),
            ("\u{1b}]0;title\u{7}Vladimir Putin", "Vladimir Putin"),
            ("\u{1b}]8;;http://x\u{1b}\\Putin\u{1b}]8;;\u{1b}\\", "Putin"),
            ("Vladimir\tPutin\r\n", "Vladimir Putin  "),
            ("Vla\u{200b}dimir Pu\u{00ad}tin", "Vladimir Putin"),
            ("\u{202e}Vladimir Putin\u{202c}", "Vladimir Putin"),
            ("Vladimir\u{0} Putin\u{7f}\u{9b}", "Vladimir Putin"),
            ("\u{1b}(BVladimir Putin", "Vladimir Putin"),
            ("Müller, Jürgen", "Müller, Jürgen"),
            ("محمد", "محمد"),
            ("محمد\u{200c}علی", "محمد علی"),
        ];
        for (query, expected) in cases {
            assert_eq!(cleaned(query), expected, "{query:?}");
        }
        assert!(matches!(cleaned("Vladimir Putin"), Cow::Borrowed(_)));
    }

    #[test]
    fn names_with_nothing_to_screen_are_refused() {
        for name in [
            ".",
            "Mr",
            "\u{0}",
            "\u{200b}",
            "\u{7}",
            "\u{ad}",
            "\u{1b}[0m",
            "Mr.",
            " - ",
            "LLC",
        ] {
            let refused = screenable(name, None);
            assert!(refused.is_err(), "{name:?} was accepted");
        }
        assert_eq!(screenable("  ", None), Err("the name is empty".to_owned()));
        for name in [
            "Vladimir Putin",
            "Al Qaida",
            "Putin\u{1b}[0m",
            "Pat D. King",
            "DAS, V.",
        ] {
            assert_eq!(screenable(name, None), Ok(()), "{name:?}");
        }
        let long = "a".repeat(engine::MAX_NAME_CHARS + 1);
        assert!(screenable(&long, None).is_err());
    }
}
