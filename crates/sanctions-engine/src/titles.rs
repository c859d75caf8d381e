//! Titles and offices typed before or after a name (`President Vladimir Putin`, `Foreign
//! Minister Sergey Lavrov`, `Minister of Foreign Affairs Sergey Lavrov`, `Sergey Lavrov,
//! Deputy Prime Minister`): a run of words at either end of a name made only of office words
//! ([`HEADS`], [`MODIFIERS`]) and holding at least one head is not part of the name.
//!
//! Some of these words are also words of organisations' names (`General Dynamics`, `Prince
//! Group`) or surnames (`King`), so a run is set aside only while at least two other words
//! remain (a name of one word and a title is likelier an organisation's name), and only a
//! run with a head: modifiers alone (`State`, `National`, `Foreign`) are never dropped.

use crate::table::FastSet;
use crate::token::is_normal_word;

/// Titles, positions and generational suffixes: the head of an office (`minister`), in the
/// languages of the lists as the normaliser spells them (lower case, diacritics removed,
/// other scripts transliterated: `министр` is `ministr`).
pub(crate) const HEADS: &[&str] = &[
    "president",
    "presidente",
    "prezident",
    "minister",
    "ministre",
    "ministro",
    "ministr",
    "premier",
    "chancellor",
    "secretary",
    "sekretar",
    "chairman",
    "chairwoman",
    "chairperson",
    "predsedatel",
    "director",
    "directeur",
    "direktor",
    "ceo",
    "governor",
    "gubernator",
    "general",
    "generalnyy",
    "colonel",
    "captain",
    "major",
    "lieutenant",
    "admiral",
    "marshal",
    "commander",
    "komandir",
    "brigadier",
    "ambassador",
    "envoy",
    "consul",
    "senator",
    "deputat",
    "spokesman",
    "spokesperson",
    "prosecutor",
    "king",
    "queen",
    "prince",
    "princess",
    "emir",
    "imam",
    "mufti",
    "jr",
    "sr",
    "junior",
    "senior",
    "ii",
    "iii",
];

/// Words of an office's name around its head (`Foreign`, `of`, `Affairs`, `Deputy`, `First`),
/// never dropped on their own.
const MODIFIERS: &[&str] = &[
    "foreign",
    "affairs",
    "defence",
    "defense",
    "interior",
    "internal",
    "home",
    "finance",
    "economy",
    "economic",
    "trade",
    "industry",
    "energy",
    "justice",
    "security",
    "intelligence",
    "state",
    "national",
    "federal",
    "first",
    "deputy",
    "vice",
    "prime",
    "former",
    "acting",
    "chief",
    "head",
    "supreme",
    "executive",
    "managing",
    "military",
    "armed",
    "forces",
    "army",
    "council",
    "of",
    "for",
    "the",
    "and",
    "zamestitel",
    "pervyy",
    "inostrannykh",
    "del",
    "oborony",
    "vneshnikh",
    "vnutrennikh",
    "affaires",
    "etrangeres",
    "relaciones",
    "exteriores",
    "asuntos",
];

/// Whether `word` is the head of an office or a title.
pub(crate) fn is_head(word: &str) -> bool {
    HEADS.contains(&word)
}

/// A word of an office's name: a head, a modifier, a nationality or a country (`Minister of
/// Foreign Affairs of Russia`). A normalised word (lower-case letters and digits: every word
/// [`name_span`] is given) is looked up in [`OFFICE_WORDS`]; any other text is read as
/// [`is_office_word_read`] reads it.
fn is_office_word(word: &str) -> bool {
    if is_normal_word(word) {
        // What `to_iso2` reads as it is.
        return OFFICE_WORDS.contains(word);
    }
    is_office_word_read(word)
}

/// [`is_office_word`] worked out: a head, a modifier, a demonym, a country's name.
fn is_office_word_read(word: &str) -> bool {
    is_head(word)
        || MODIFIERS.contains(&word)
        || is_demonym(word)
        || (word.len() >= 4 && crate::model::to_iso2(word).is_some())
}

/// Every normalised word [`is_office_word_read`] accepts, worked out once: the heads, the
/// modifiers, the demonyms not formed from a country's name, and every country's name of
/// four letters or more with and without a demonym's ending ([`DEMONYM_ENDINGS`]). A
/// normalised word is a country's name for [`crate::model::to_iso2`] exactly when it is one
/// of [`crate::model::country_names`]. Two look-ups a name instead of up to five
/// normalisations and look-ups a word (a quarter of a name's normalisation).
static OFFICE_WORDS: std::sync::LazyLock<FastSet<String>> = std::sync::LazyLock::new(|| {
    let countries: Vec<&str> = crate::model::country_names()
        .filter(|c| c.len() >= 4 && is_normal_word(c))
        .collect();
    let demonyms: Vec<String> = countries
        .iter()
        .flat_map(|country| DEMONYM_ENDINGS.map(|end| format!("{country}{end}")))
        .collect();
    HEADS
        .iter()
        .chain(MODIFIERS)
        .chain(OTHER_DEMONYMS)
        .chain(&countries)
        .map(|w| (*w).to_owned())
        .chain(demonyms)
        .collect()
});

/// The endings a nationality adjective adds to its country's name (`russian`, `iranian`,
/// `iraqi`).
const DEMONYM_ENDINGS: [&str; 4] = ["n", "an", "ian", "i"];

/// Nationality adjectives not formed from a country's name with one of [`DEMONYM_ENDINGS`].
const OTHER_DEMONYMS: &[&str] = &[
    "chinese",
    "lebanese",
    "sudanese",
    "japanese",
    "vietnamese",
    "burmese",
    "ukrainian",
    "afghan",
    "saudi",
    "emirati",
    "somali",
    "british",
    "french",
    "turkish",
    "belarusian",
];

/// A nationality adjective (`russian`, `iranian`, `iraqi`, `chinese`): a country's name with
/// a demonym's ending, or one of the few formed otherwise.
fn is_demonym(word: &str) -> bool {
    OTHER_DEMONYMS.contains(&word)
        || (word.len() >= 5
            && DEMONYM_ENDINGS.iter().any(|end| {
                word.strip_suffix(end)
                    .is_some_and(|stem| stem.len() >= 4 && crate::model::to_iso2(stem).is_some())
            }))
}

/// The range of `words` left once office runs are set aside at either end (see the module's
/// doc). `words` are compared forms; an empty one (a word written in an abjad, whose
/// skeleton may spell a title by chance) is never an office word.
pub(crate) fn name_span(words: &[&str]) -> std::ops::Range<usize> {
    let start = leading_office(words.iter().copied(), words.len());
    let rest = words.len() - start;
    let end = words.len() - leading_office(words[start..].iter().rev().copied(), rest);
    start..end
}

/// How many of the first words of `words` (of `n`) are an office: the whole run of office
/// words there when it holds a head and two words remain after it; else the heads it begins
/// with that leave two words (`President Putin Vladimir`); else none.
fn leading_office<'a>(words: impl Iterator<Item = &'a str>, n: usize) -> usize {
    let mut run = 0;
    // The leading heads alone (`President`, `General Colonel`) that leave two words.
    let mut heads = 0;
    let mut any_head = false;
    for (i, w) in words.enumerate() {
        if !is_office_word(w) {
            break;
        }
        run = i + 1;
        any_head |= is_head(w);
        if is_head(w) && heads == i && n - run >= 2 {
            heads = run;
        }
    }
    if any_head && n - run >= 2 { run } else { heads }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words near the office words: each with a letter more, a letter less, another ending.
    fn near_office_words() -> Vec<String> {
        let mut words: Vec<String> = OFFICE_WORDS.iter().cloned().collect();
        words.extend(crate::model::country_names().map(str::to_owned));
        let mut near = Vec::new();
        for word in &words {
            near.push(format!("{word}s"));
            near.push(format!("{word}i"));
            near.push(format!("x{word}"));
            near.push(word[1..].to_owned());
            near.push(word[..word.len() - 1].to_owned());
            near.push(word.to_uppercase());
            near.push(format!("{word} "));
        }
        words.extend(near);
        words.extend(
            [
                "", "a", "ii", "usa", "iraq", "iraqi", "russia", "russian", "iranian",
            ]
            .map(str::to_owned),
        );
        words
    }

    #[test]
    fn office_words_looked_up_are_the_office_words_read() {
        let words = near_office_words();
        assert!(words.len() > 5_000, "{} words", words.len());
        let mut office = 0;
        for word in &words {
            assert_eq!(is_office_word(word), is_office_word_read(word), "{word:?}");
            office += usize::from(is_office_word(word));
        }
        assert!(office > 1_000, "{office} office words");
    }

    proptest::proptest! {
        #[test]
        fn any_word_looked_up_is_the_office_word_read(word in "[a-z0-9]{0,12}|\\PC{0,8}") {
            proptest::prop_assert_eq!(is_office_word(&word), is_office_word_read(&word));
        }
    }

    fn left(name: &str) -> String {
        let words: Vec<&str> = name.split(' ').collect();
        words[name_span(&words)].join(" ")
    }

    #[test]
    fn offices_of_any_length_at_either_end_are_set_aside() {
        for name in [
            "president vladimir putin",
            "foreign minister sergey lavrov",
            "minister of foreign affairs sergey lavrov",
            "russian foreign minister sergey lavrov",
            "sergey lavrov foreign minister",
            "sergey lavrov minister of foreign affairs",
            "first deputy prime minister sergey lavrov jr",
            "ministr inostrannykh del sergey lavrov",
        ] {
            let expected = if name.starts_with("russian") {
                "sergey lavrov"
            } else if name.starts_with("president") {
                "vladimir putin"
            } else {
                "sergey lavrov"
            };
            assert_eq!(left(name), expected, "{name}");
        }
    }

    #[test]
    fn two_words_always_remain_and_modifiers_alone_stay() {
        assert_eq!(left("president putin"), "president putin");
        assert_eq!(left("general dynamics corp"), "dynamics corp");
        // A head at the end goes while two words remain, as it always did.
        assert_eq!(left("first deputy prime minister"), "first deputy prime");
        assert_eq!(left("state security council"), "state security council");
        assert_eq!(
            left("minister of foreign affairs lavrov"),
            "of foreign affairs lavrov"
        );
        assert_eq!(left("king abdullah ii"), "abdullah ii");
        assert_eq!(left("dean smith"), "dean smith");
    }
}
