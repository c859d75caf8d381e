//! Name normalisation: any string in any script to the tokens the index and the scorer compare.
//!
//! Steps: Unicode NFKC; every non-ASCII letter transliterated to Latin (`any_ascii`, one
//! syllable per token for Chinese, Japanese and Korean); case folded; apostrophes dropped
//! (`Qa'ida` = `Qaida`), other punctuation splits tokens; honorifics removed; legal forms
//! folded to one canonical token ([`super::legal`]); name particles (`al`, `bin`, `abu`, `de`,
//! `van`, ...) marked as such.

pub use super::joins::{JoinUnit, abjad_joins, joins_of};
pub(crate) use super::token::is_normal_word;
pub use super::token::{Token, TokenKind};
use std::sync::LazyLock;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

use super::legal::LegalForms;
use super::script::{self, Script};
use super::titles;

/// Titles and honorifics that say nothing about who someone is.
const HONORIFICS: &[&str] = &[
    "mr",
    "mrs",
    "ms",
    "miss",
    "dr",
    "prof",
    "sir",
    "dame",
    "lord",
    "sheikh",
    "shaykh",
    "shaikh",
    "sheik",
    "haji",
    "hajji",
    "hadji",
    "mullah",
    "mulla",
    "maulana",
    "maulvi",
    "mawlawi",
    "engr",
    "eng",
    "gen",
    "col",
    "capt",
    "lt",
    "maj",
    "mme",
    "mlle",
    "herr",
    "frau",
    "hojatoleslam",
    "ayatollah",
];

/// Name particles: Arabic, Persian, Romance, Germanic, Celtic. They weigh little, and a
/// particle written apart meets the same particle written together (`Al Qaida` / `Alqaida`)
/// through the scorer's joined pairs.
const PARTICLES: &[&str] = &[
    "al", "el", "ul", "as", "ad", "ar", "at", "az", "ash", "an", "bin", "ibn", "bint", "bent",
    "ben", "abu", "abou", "abd", "abdel", "abdul", "abdal", "abdol", "ould", "uld", "de", "da",
    "di", "del", "della", "dos", "das", "du", "van", "von", "der", "den", "ter", "ten", "la", "le",
    "mac", "mc", "st", "zu",
];

static LEGAL_FORMS: LazyLock<LegalForms> = LazyLock::new(LegalForms::new);

/// Normalises a name into tokens. `organisation` enables legal-form recognition (off for
/// names known to be people's, so that a surname such as "Ao" stays a name).
pub fn tokens(name: &str, organisation: bool) -> Vec<Token> {
    NameWords::of(name).tokens(name, organisation)
}

/// A name's words as [`words`] reads them, kept to be turned into its [`tokens`]: read once
/// where both are needed (a name that may be read literally, `literal::read`).
pub(crate) struct NameWords(Vec<Word>);

impl NameWords {
    pub(crate) fn of(name: &str) -> NameWords {
        NameWords(scripted_words(name))
    }

    /// The words, lower-case ASCII ([`words`]).
    pub(crate) fn texts(&self) -> impl Iterator<Item = &str> + Clone {
        self.0.iter().map(|w| w.text.as_str())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// [`tokens`] of `name`, these its words.
    pub(crate) fn tokens(self, name: &str, organisation: bool) -> Vec<Token> {
        tokens_of(name, self.0, organisation)
    }
}

/// [`tokens`] of `name`, whose words are `words`.
fn tokens_of(name: &str, words: Vec<Word>, organisation: bool) -> Vec<Token> {
    let mut scripts = Vec::new();
    let mut written = Vec::new();
    // `KING, Pat`: the word before the comma is a surname, never a title.
    let surname_first = name
        .split_once(',')
        .is_some_and(|(before, _)| before.split_whitespace().count() == 1);
    let mut words: Vec<String> =
        drop_titles(drop_honorifics(drop_abjad_titles(words)), surname_first)
            .into_iter()
            .map(|w| {
                scripts.push(w.script);
                written.push(w.written);
                w.text
            })
            .collect();
    let mut out: Vec<Token> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        if organisation && let Some((canonical, len)) = LEGAL_FORMS.match_at(&words[i..]) {
            out.push(Token {
                text: canonical.to_string(),
                raw: words[i..i + len].join(""),
                kind: TokenKind::Legal,
                abjad: false,
                written: String::new(),
            });
            i += len;
            continue;
        }
        let abjad = scripts[i] == Script::Abjad;
        // Read from the word as written: a name's skeleton may spell a particle's by chance
        // (`عابد`, Abid, is `bd` like `عبد`; `علاء`, Alaa, is `l` like the article).
        let abjad_particle = if abjad && words.len() > 1 {
            script::abjad_particle(&written[i])
        } else {
            None
        };
        let particle =
            abjad_particle.is_some() || words.len() > 1 && PARTICLES.contains(&words[i].as_str());
        let text = match abjad_particle {
            Some(p) => p.to_owned(),
            None if particle => canonical_particle(&words[i]).to_owned(),
            // Moved out: the legal forms look only at this word and those after it.
            None => std::mem::take(&mut words[i]),
        };
        let mut token = word_token(text, particle);
        token.abjad = abjad && !particle;
        // A word of an abjad whose skeleton is one letter (`علاء`, Alaa: `l`) is a name,
        // never an initial.
        if token.abjad && token.kind == TokenKind::Initial {
            token.kind = TokenKind::Word;
        }
        token.written = std::mem::take(&mut written[i]);
        out.push(token);
        i += 1;
    }
    out
}

/// One spelling for particles that romanisations spell several ways (`ben`/`ibn` = `bin`,
/// `el`/`ul` = `al`, `abou` = `abu`).
pub(crate) fn canonical_particle(word: &str) -> &str {
    match word {
        "ben" | "ibn" => "bin",
        "bent" => "bint",
        "el" | "ul" => "al",
        "abou" => "abu",
        "abdel" | "abdal" | "abdol" => "abdul",
        other => other,
    }
}

fn word_token(text: String, particle: bool) -> Token {
    let kind = if particle {
        TokenKind::Particle
    } else if text.bytes().all(|b| b.is_ascii_digit()) {
        TokenKind::Number
    } else if text.len() == 1 {
        TokenKind::Initial
    } else {
        TokenKind::Word
    };
    Token {
        raw: String::new(),
        text,
        kind,
        abjad: false,
        written: String::new(),
    }
}

/// One word of a name: its compared form, its script and (not in Latin letters) how it was
/// written.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    script: Script,
    written: String,
}

/// Removes honorifics, unless that would leave nothing. A word written in an abjad is never
/// one: its transliteration, consonants and long vowels, may spell one by chance (`عمار`,
/// Ammar, gives `mar`).
fn drop_honorifics(words: Vec<Word>) -> Vec<Word> {
    if words.len() < 2 {
        return words;
    }
    let kept: Vec<Word> = words
        .iter()
        .filter(|w| w.script == Script::Abjad || !HONORIFICS.contains(&w.text.as_str()))
        .cloned()
        .collect();
    if kept.is_empty() { words } else { kept }
}

/// Removes the honorifics written in an abjad ([`script::abjad_honorifics`]), while at least
/// two other words remain: the Latin names drop the same honorifics ([`HONORIFICS`]).
fn drop_abjad_titles(words: Vec<Word>) -> Vec<Word> {
    let written: Vec<Option<&str>> = words
        .iter()
        .map(|w| (w.script == Script::Abjad).then_some(w.written.as_str()))
        .collect();
    let dropped = script::abjad_honorifics(&written);
    if words.len() - dropped.iter().filter(|d| **d).count() < 2 {
        return words;
    }
    words
        .into_iter()
        .zip(dropped)
        .filter_map(|(w, d)| (!d).then_some(w))
        .collect()
}

/// True for a word ([`words`]) that is only a title or a name particle (`mr`, `al`, `bin`):
/// a name made of these alone has nothing to screen.
pub fn is_title_or_particle(word: &str) -> bool {
    HONORIFICS.contains(&word) || titles::is_head(word) || PARTICLES.contains(&word)
}

/// Whether a normal word ([`is_normal_word`]) alone is a legal form (`llc`, `pat`, `limited`):
/// what [`tokens`] of the word for an organisation gives, one legal-form token, without the
/// rest of the normalisation (a normal word is its only word, and one word is never dropped
/// as a title or an honorific).
pub(crate) fn is_legal_form_alone(word: &str) -> bool {
    LEGAL_FORMS.match_at(&[word]).is_some()
}

/// True for a courtesy title or honorific (`mr`, `dr`, `sheikh`): never a surname.
pub(crate) fn is_honorific(word: &str) -> bool {
    HONORIFICS.contains(&word)
}

/// Removes titles and offices ([`titles`]) at either end while at least two other words
/// remain (`Foreign Minister Sergey Lavrov`); with `surname_first` (`KING, Pat`), never the
/// first word.
fn drop_titles(words: Vec<Word>, surname_first: bool) -> Vec<Word> {
    let texts: Vec<&str> = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if w.script == Script::Abjad || (i == 0 && surname_first) {
                ""
            } else {
                w.text.as_str()
            }
        })
        .collect();
    let span = titles::name_span(&texts);
    if span.len() == words.len() {
        return words;
    }
    words
        .into_iter()
        .skip(span.start)
        .take(span.len())
        .collect()
}

/// Lower-case ASCII words of `name`, transliterated, split on anything that is not a letter or
/// a digit (apostrophes excepted: they vanish).
pub fn words(name: &str) -> Vec<String> {
    scripted_words(name).into_iter().map(|w| w.text).collect()
}

/// [`words`], each with the script it was written in (the script of its last non-Latin
/// letter) and folded towards the lists' spellings ([`script::fold`]). An Arabic word that
/// begins with the article (`الرحمن`) gives the article as a word of its own.
fn scripted_words(name: &str) -> Vec<Word> {
    if name.is_ascii() {
        return ascii_words(name);
    }
    unicode_words(name)
}

/// [`scripted_words`] of an ASCII name (most names, every name a list writes in Latin
/// letters): runs of letters and digits, lower-cased, apostrophes dropped; every other byte
/// ends a word. What [`unicode_words`] gives such a name, without its decoding into
/// characters, its checks for other scripts and a written form per word.
fn ascii_words(name: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut text = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() {
            text.push(char::from(b.to_ascii_lowercase()));
        } else if !is_apostrophe(char::from(b)) && !text.is_empty() {
            words.push(latin_word(std::mem::take(&mut text)));
        }
    }
    if !text.is_empty() {
        words.push(latin_word(text));
    }
    words
}

fn latin_word(text: String) -> Word {
    Word {
        text,
        script: Script::Latin,
        written: String::new(),
    }
}

/// [`scripted_words`] of any text.
fn unicode_words(name: &str) -> Vec<Word> {
    let chars = super::abd::abd_apart(nfkc_chars(name));
    let mut words = Vec::new();
    let mut current = Current::default();
    let mut script = Script::Latin;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            current.text.push(c.to_ascii_lowercase());
            current.written.push(c);
        } else if is_apostrophe(c) {
            continue;
        } else if c.is_ascii() || !c.is_alphanumeric() {
            if is_combining(c) {
                continue;
            }
            push_word(&mut words, &mut current, &mut script);
        } else {
            let syllabic = is_syllabic(c);
            if syllabic {
                push_word(&mut words, &mut current, &mut script);
            }
            script = script::script_of(c);
            // The Arabic article written onto a word of three letters or more.
            let article = current.text.is_empty()
                && c == '\u{0627}'
                && chars.get(i + 1) == Some(&'\u{0644}')
                && chars[i + 2..]
                    .iter()
                    .take_while(|c| c.is_alphabetic())
                    .count()
                    >= 3;
            if article {
                words.push(Word {
                    text: "al".to_owned(),
                    script: Script::Abjad,
                    written: "\u{0627}\u{0644}".to_owned(),
                });
                continue;
            }
            if script == Script::Abjad
                && c == '\u{0644}'
                && current.text.is_empty()
                && words.last().is_some_and(|w| w.text == "al")
                && i > 0
                && chars[i - 1] == '\u{0627}'
            {
                continue; // the lam of the article just split off
            }
            current.written.push(c);
            let latin = script::abjad_letter(c)
                .map(str::to_owned)
                .unwrap_or_else(|| any_ascii::any_ascii_char(c).to_owned());
            if script == Script::Abjad {
                let next = chars.get(i + 1).copied();
                if let Some(vowel) = script::abjad_separator(&current.text, c, &latin, next) {
                    current.text.push(vowel);
                }
            }
            for l in latin.chars() {
                if l.is_ascii_alphanumeric() {
                    current.text.push(l.to_ascii_lowercase());
                } else if l == ' ' {
                    push_word(&mut words, &mut current, &mut script);
                }
            }
            if syllabic {
                push_word(&mut words, &mut current, &mut script);
            }
        }
    }
    push_word(&mut words, &mut current, &mut script);
    words
}

/// The characters of `name` in NFKC: as they are where the quick check proves the text
/// already normalised (all ASCII, and most names), which skips the decomposition and
/// recomposition that cost more than the rest of the normalisation.
fn nfkc_chars(name: &str) -> Vec<char> {
    if name.is_ascii() || is_nfkc_quick(name.chars()) == IsNormalized::Yes {
        name.chars().collect()
    } else {
        name.nfkc().collect()
    }
}

/// The word being read: its transliterated letters and the characters they came from.
#[derive(Default)]
struct Current {
    text: String,
    written: String,
}

fn push_word(words: &mut Vec<Word>, current: &mut Current, script: &mut Script) {
    let written = std::mem::take(&mut current.written);
    if !current.text.is_empty() {
        let text = std::mem::take(&mut current.text);
        words.push(Word {
            text: script::fold(text, *script),
            script: *script,
            // Only a word not in Latin letters needs its written form shown.
            written: if *script == Script::Latin {
                String::new()
            } else {
                written
            },
        });
    }
    *script = Script::Latin;
}

fn is_apostrophe(c: char) -> bool {
    matches!(
        c,
        '\'' | '`'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201B}'
            | '\u{00B4}'
            | '\u{02BC}'
            | '\u{02BB}'
            | '\u{02BE}'
            | '\u{02BF}'
            | '\u{2032}'
            | '\u{05F3}'
    )
}

fn is_combining(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670)
}

/// Chinese, Japanese and Korean characters: each is a syllable and becomes its own token.
fn is_syllabic(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

/// Whether two adjacent tokens are often written as one word (`al qaida` / `alqaida`,
/// `jong un` / `jongun`, `abdel rahman` / `abdelrahman`): the index also files names under
/// such pairs joined, and queries look them up.
pub fn joinable(a: &Token, b: &Token) -> bool {
    let word = |t: &Token| {
        matches!(
            t.kind,
            TokenKind::Word | TokenKind::Particle | TokenKind::Initial
        )
    };
    word(a) && word(b) && (a.kind == TokenKind::Particle || a.text.len() <= 3 || b.text.len() <= 3)
}

/// The query's words concatenated: `Kim Jong-un`, `Kim Jong Un` and `KIM Jongun` all give
/// `kimjongun`.
pub fn compact(tokens: &[Token]) -> String {
    tokens
        .iter()
        .filter(|t| t.kind != TokenKind::Legal)
        .map(|t| t.text.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(name: &str, org: bool) -> Vec<String> {
        tokens(name, org).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn case_diacritics_and_punctuation() {
        assert_eq!(
            texts("PUTIN, Vladimir Vladimirovich", false),
            ["putin", "vladimir", "vladimirovich"]
        );
        assert_eq!(
            texts("  Müller-Lüdenscheidt  ", false),
            ["muller", "ludenscheidt"]
        );
        assert_eq!(texts("ŁÓDŹ Ñandú", false), ["lodz", "nandu"]);
    }

    #[test]
    fn scripts_are_transliterated() {
        assert_eq!(texts("Владимир Путин", false), ["vladimir", "putin"]);
        assert_eq!(texts("Ильич", false), ["ilich"]);
        assert_eq!(texts("金正恩", false), ["jin", "zheng", "en"]);
        // Hangul folded to the lists' spelling of Korean names.
        assert_eq!(texts("김정은", false), ["kim", "jong", "un"]);
        assert_eq!(texts("Ελληνικά", false), ["ellinika"]);
        // Arabic script: consonant skeletons, particles and the article read as such.
        assert_eq!(texts("أسامة بن لادن", false), ["samh", "bin", "ladn"]);
        assert_eq!(texts("عبد الرحمن", false), ["abdul", "al", "rhmn"]);
        assert!(tokens("أسامة بن لادن", false)[0].abjad);
        // Each word as written, for explanations (the article split off as its own word).
        let written = |name: &str| -> Vec<String> {
            tokens(name, false).into_iter().map(|t| t.written).collect()
        };
        assert_eq!(written("عبد الرحمن"), ["عبد", "ال", "رحمن"]);
        assert_eq!(written("Kim 김정은"), ["", "김", "정", "은"]);
        assert_eq!(texts("בשאר אל-אסד", false), ["bsr", "al", "sd"]);
        // A transliteration that spells an honorific is a name (`عمار`, Ammar: `mar`).
        assert_eq!(texts("عمار اسماعيل", false), ["mar", "asmayl"]);
    }

    #[test]
    fn particles_are_marked() {
        for spelling in ["Al Qaida", "al-Qa'ida", "AL QA’IDA"] {
            assert_eq!(texts(spelling, true), ["al", "qaida"], "{spelling}");
        }
        let toks = tokens("Usama bin Ladin", false);
        assert_eq!(toks[1].kind, TokenKind::Particle);
        assert_eq!(texts("Osama ben Laden", false), ["osama", "bin", "laden"]);
        assert_eq!(
            texts("Abdel Rahman el Sayed", false),
            ["abdul", "rahman", "al", "sayed"]
        );
        // Alone, a particle is a name.
        assert_eq!(tokens("Al", false)[0].kind, TokenKind::Word);
    }

    #[test]
    fn legal_forms_are_folded_for_organisations_only() {
        let toks = tokens("Romashka Limited Liability Company", true);
        assert_eq!(toks[1].text, "llc");
        assert_eq!(toks[1].kind, TokenKind::Legal);
        assert_eq!(texts("OOO Romashka", true), ["llc", "romashka"]);
        assert_eq!(texts("Romashka L.L.C.", true), ["romashka", "llc"]);
        assert_eq!(texts("ООО Ромашка", true), ["llc", "romashka"]);
        assert_eq!(texts("Ao Wei", false), ["ao", "wei"]);
    }

    #[test]
    fn honorifics_go_unless_alone() {
        assert_eq!(
            texts("Dr. Ayman al-Zawahiri", false),
            ["ayman", "al", "zawahiri"]
        );
        assert_eq!(texts("Sheikh", false), ["sheikh"]);
        // Honorifics written in Arabic script too, with an article written onto them, while
        // two other words remain.
        assert_eq!(texts("الشيخ ملا محمد عمر", false), texts("محمد عمر", false));
        assert_eq!(texts("ملا عمر", false).len(), 2);
        // `سید` stays a word: Latin names keep `Seyed`.
        assert_eq!(texts("سید محمد عمر", false).len(), 3);
    }

    #[test]
    fn initials_and_numbers() {
        let toks = tokens("V. Putin", false);
        assert_eq!(toks[0].kind, TokenKind::Initial);
        let toks = tokens("Arctic LNG 2", true);
        assert_eq!(toks[2].kind, TokenKind::Number);
        assert_eq!(compact(&tokens("Kim Jong-un", false)), "kimjongun");
    }
}

/// Property tests: normalising what normalisation gave changes nothing, for arbitrary Unicode
/// and for names built from the pieces the rules act on (particles, honorifics, legal forms,
/// other scripts, compatibility forms, punctuation). A fixed seed keeps `cargo test`
/// deterministic; `PROPTEST_RNG_SEED=N` and `PROPTEST_CASES=N` explore further.
#[cfg(test)]
mod properties {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    use super::*;

    /// Pieces of names that the normaliser's rules act on.
    const PIECES: &[&str] = &[
        "Vladimir",
        "PUTIN",
        "Müller-Lüdenscheidt",
        "Qa'ida",
        "QA’IDA",
        "al-",
        "Al",
        "bin",
        "ben",
        "Abdel",
        "el",
        "van",
        "de",
        "Dr.",
        "Mr",
        "Sheikh",
        "General",
        "Minister",
        "President",
        "LLC",
        "L.L.C.",
        "Limited Liability Company",
        "OOO",
        "GmbH",
        "Co.",
        "V.",
        "2",
        "LNG",
        "Владимир",
        "Путин",
        "ООО",
        "金正恩",
        "김정은",
        "أسامة",
        "بن",
        "لادن",
        "عبد الرحمن",
        "الشيخ",
        "בשאר",
        "Ελληνικά",
        "Ｐｕｔｉｎ",
        "ﬁ",
        "e\u{301}",
        "K",
        "½",
        "ŁÓDŹ",
        "Ñandú",
        "ß",
        "İ",
        "\u{200B}",
        "\u{FEFF}",
        ",",
        ", ",
        "-",
        ".",
        "'",
        "(",
        ")",
    ];

    fn config() -> Config {
        let mut config = Config::default();
        if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
            config.rng_seed = RngSeed::Fixed(0x5A4E_C710);
        }
        config
    }

    /// A name: pieces and arbitrary characters, apart or run together.
    fn name() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            3 => prop::sample::select(PIECES).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
            1 => "\\PC{1,6}",
        ];
        let gap = prop::sample::select(&[" ", " ", "", "-", ", "][..]);
        prop::collection::vec((piece, gap), 0..8)
            .prop_map(|parts| parts.into_iter().map(|(p, g)| p + g).collect())
    }

    /// The normal form of a text: its words, as [`words`] gives them, one space apart.
    fn normal(text: &str) -> String {
        words(text).join(" ")
    }

    proptest! {
        #![proptest_config(config())]

        /// An ASCII name's words read byte by byte are those read character by character.
        #[test]
        fn ascii_words_are_the_words_read_by_character(
            text in "[ -~\t\n]{0,40}",
            name in name().prop_filter("ascii", |n| n.is_ascii()),
        ) {
            for t in [text, name] {
                let fast: Vec<(String, Script, String)> = ascii_words(&t)
                    .into_iter()
                    .map(|w| (w.text, w.script, w.written))
                    .collect();
                let slow: Vec<(String, Script, String)> = unicode_words(&t)
                    .into_iter()
                    .map(|w| (w.text, w.script, w.written))
                    .collect();
                prop_assert_eq!(fast, slow, "{:?}", t);
            }
        }

        /// The quick check's shortcut gives NFKC itself, on any text and on names.
        #[test]
        fn the_nfkc_shortcut_is_nfkc(text in any::<String>(), name in name()) {
            for t in [text, name] {
                prop_assert_eq!(nfkc_chars(&t), t.nfkc().collect::<Vec<char>>());
            }
        }

        #[test]
        fn normalising_arbitrary_unicode_twice_changes_nothing(text in any::<String>()) {
            let once = normal(&text);
            prop_assert_eq!(normal(&once), once);
        }

        #[test]
        fn normalising_a_name_twice_changes_nothing(text in name()) {
            let once = normal(&text);
            prop_assert_eq!(normal(&once), once);
        }

        /// Every token is already in normal form: its text is one word that normalises to
        /// itself (a legal form to its canonical word).
        #[test]
        fn every_token_is_a_fixed_point(text in name(), organisation: bool) {
            for token in tokens(&text, organisation) {
                prop_assert!(!token.text.is_empty(), "{text:?}");
                prop_assert_eq!(words(&token.text), vec![token.text.clone()], "{:?}", text);
            }
        }

        /// The tokens of a name written in its normal form are the tokens of the name. Not
        /// with a comma: `KING, Pat` reads `King` as a surname written first (never a title),
        /// which the normal form, words one space apart, does not say any more.
        #[test]
        fn tokens_of_the_normal_form_are_the_same(
            text in name().prop_filter("no comma", |t| !t.contains(',')),
            organisation: bool,
        ) {
            let texts = |t: &str| -> Vec<String> {
                tokens(t, organisation).into_iter().map(|t| t.text).collect()
            };
            let once = texts(&text);
            prop_assert_eq!(texts(&once.join(" ")), once, "{:?}", text);
        }
    }
}
