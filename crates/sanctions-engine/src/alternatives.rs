//! A name written in two scripts at once: `Ibrahim Hassan Tali Asiri (إبراهيم حسن طالع عسيري)`,
//! a Latin name with its Arabic-script form in parentheses (or the other way round, or the
//! two one after the other), as the lists and analysts write them. Screened as one long name it pairs half its words at best
//! (47 for that name against its own Latin form); it is two alternative names of one person,
//! each screened alone, the better result of each entry kept. The same for a name holding
//! a word written in Arabic script that the Latin names write as two (`محمدتقی`): its
//! reading with the word split ([`super::split`]) is screened too ([`readings`]).

use super::script::{Script, script_of};

/// The script of a letter as this module compares them: Latin letters (diacritics
/// included) against each other script.
fn letter_script(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        None
    } else if c.is_ascii() || (c as u32) < 0x0250 {
        Some(Script::Latin)
    } else {
        Some(script_of(c))
    }
}

/// The one script all the letters of `text` are written in, if it holds letters and they
/// are all of one.
fn one_script(text: &str) -> Option<Script> {
    let mut found = None;
    for s in text.chars().filter_map(letter_script) {
        match found {
            None => found = Some(s),
            Some(f) if f != s => return None,
            Some(_) => {}
        }
    }
    found
}

/// The two names of a name that holds a part in parentheses written in another script than
/// the rest (the rest first), or `None` when it is one name (a single script, a country or
/// an alias in parentheses in the same script, `(Russia)`, or parentheses that do not close).
pub(crate) fn script_alternatives(name: &str) -> Option<[String; 2]> {
    let Some(open) = name.find('(') else {
        return script_runs(name);
    };
    let close = open + name[open..].find(')')?;
    let inside = &name[open + 1..close];
    let outside = format!("{} {}", &name[..open], &name[close + 1..]);
    let outside = outside.split_whitespace().collect::<Vec<_>>().join(" ");
    let (a, b) = (one_script(&outside)?, one_script(inside)?);
    (a != b).then(|| [outside, inside.trim().to_owned()])
}

/// The readings of a name to screen, each alone ([`super::screen`]): the name itself, or its
/// two names in two scripts ([`script_alternatives`]); and after each, where it holds a word
/// written in Arabic script that the Latin names write as two, that name with the word split
/// ([`super::split::compound_reading`]). One reading means the name is screened as it is.
pub(crate) fn readings(name: &str) -> Vec<String> {
    // Letters all Latin (below U+0250, as [`letter_script`] tells them): one script, no
    // Arabic word to split, one reading, as [`readings_of`] finds.
    if name.chars().all(|c| (c as u32) < 0x0250) {
        return vec![name.to_owned()];
    }
    readings_of(name)
}

/// [`readings`], the name's scripts looked at.
fn readings_of(name: &str) -> Vec<String> {
    let names: Vec<String> = match script_alternatives(name) {
        Some(two) => two.into(),
        None => vec![name.to_owned()],
    };
    let mut out = Vec::with_capacity(names.len() * 2);
    for n in names {
        // The split reading is a little longer (a space per word split): past the longest
        // name screened it would fail the whole screening, so it is left out.
        let split = super::split::compound_reading(&n)
            .filter(|r| r.chars().count() <= super::MAX_NAME_CHARS);
        out.push(n);
        out.extend(split);
    }
    out
}

/// The least words each of two names written one after the other must have
/// ([`script_runs`]): a single word in another script is likelier part of the name
/// (`Kim 김정은`) than a name of its own. Set by that reasoning, not tuned.
const MIN_RUN_WORDS: usize = 2;

/// The two names of a name written as two runs of words in two scripts, without
/// parentheses (`Abdelrahim Hamdan Dagalo Mousa عبدالرحيم دقلو`), each of at least
/// [`MIN_RUN_WORDS`] words.
fn script_runs(name: &str) -> Option<[String; 2]> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let mut scripts = Vec::with_capacity(words.len());
    for w in &words {
        // A word of no letters (`-`, `1952`) goes with the run before it.
        let s = if w.chars().any(char::is_alphabetic) {
            one_script(w)?
        } else {
            *scripts.last()?
        };
        scripts.push(s);
    }
    let change = scripts.windows(2).position(|p| p[0] != p[1])? + 1;
    let one_change = scripts[change..].iter().all(|s| *s == scripts[change]);
    (one_change && change >= MIN_RUN_WORDS && words.len() - change >= MIN_RUN_WORDS)
        .then(|| [words[..change].join(" "), words[change..].join(" ")])
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A name of Latin letters alone has the one reading its scripts give it.
        #[test]
        fn a_latin_name_has_the_one_reading_its_scripts_give(
            name in "[\\u{0}-\\u{024F}]{0,40}",
        ) {
            proptest::prop_assert_eq!(readings(&name), readings_of(&name));
            proptest::prop_assert_eq!(readings(&name), vec![name]);
        }
    }

    #[test]
    fn two_scripts_are_two_names() {
        assert_eq!(
            script_alternatives("Ibrahim Hassan Tali Asiri (إبراهيم حسن طالع عسيري)"),
            Some([
                "Ibrahim Hassan Tali Asiri".to_owned(),
                "إبراهيم حسن طالع عسيري".to_owned()
            ])
        );
        assert_eq!(
            script_alternatives("Владимир Путин (Vladimir Putin) 1952"),
            Some([
                "Владимир Путин 1952".to_owned(),
                "Vladimir Putin".to_owned()
            ])
        );
        assert_eq!(
            script_alternatives("Abdelrahim Hamdan Dagalo Mousa عبدالرحيم دقلو"),
            Some([
                "Abdelrahim Hamdan Dagalo Mousa".to_owned(),
                "عبدالرحيم دقلو".to_owned()
            ])
        );
    }

    #[test]
    fn a_joined_word_gives_a_second_reading_within_the_longest_name() {
        assert_eq!(
            readings("محمدتقی اسانلو"),
            ["محمدتقی اسانلو".to_owned(), "محمد تقی اسانلو".to_owned()]
        );
        assert_eq!(readings("Vladimir Putin"), ["Vladimir Putin".to_owned()]);
        let long = format!(
            "{}محمدتقی",
            "ا".repeat(super::super::MAX_NAME_CHARS - 8) + " "
        );
        assert_eq!(long.chars().count(), super::super::MAX_NAME_CHARS);
        assert_eq!(readings(&long).len(), 1);
    }

    #[test]
    fn one_script_is_one_name() {
        assert_eq!(script_alternatives("Vladimir Putin (Russia)"), None);
        assert_eq!(script_alternatives("Gazprom (Газпром"), None);
        assert_eq!(script_alternatives("Vladimir Putin"), None);
        assert_eq!(script_alternatives("Kim 김정은"), None);
        assert_eq!(script_alternatives("Ali محمد علي Omar"), None);
        assert_eq!(script_alternatives("(محمد) Ali محمد"), None);
    }
}
