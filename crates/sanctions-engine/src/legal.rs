//! Organisation legal forms in many languages ("LLC", "OOO", "Limited Liability Company",
//! "S.A. de C.V.", ...), recognised in a token stream and folded to one canonical token each,
//! so that respelt forms meet and the engine can count them as weak evidence.

use super::letters;
use super::similarity::edit_similarity_at_least;

/// Each entry: the canonical token and the token sequences (already normalised: lower-case
/// ASCII, punctuation split) that spell it. Longer phrases are tried first.
const FORMS: &[(&str, &[&str])] = &[
    (
        "llc",
        &[
            "limited liability company",
            "limited liability co",
            "limited liability partnership company",
            "l l c",
            "llc",
            "ooo",
            "obshchestvo s ogranichennoy otvetstvennostyu",
            "obshchestvo s ogranichennoi otvetstvennostiu",
            "obshchestvo s ogranichennoj otvetstvennostju",
            "tovarystvo z obmezhenoyu vidpovidalnistyu",
            "tov",
            "too",
            "mchj",
            "sp z o o",
            "spzoo",
            "sro",
            "s r o",
            "kft",
        ],
    ),
    (
        "jsc",
        &[
            "public joint stock company",
            "open joint stock company",
            "closed joint stock company",
            "private joint stock company",
            "joint stock company",
            "joint stock co",
            "publichnoe aktsionernoe obshchestvo",
            "otkrytoe aktsionernoe obshchestvo",
            "zakrytoe aktsionernoe obshchestvo",
            "aktsionernoe obshchestvo",
            "aktsionernoye obshchestvo",
            "jsc",
            "ojsc",
            "cjsc",
            "pjsc",
            "jsco",
            "ao",
            "oao",
            "zao",
            "pao",
            "pat",
            "prat",
        ],
    ),
    ("ltd", &["limited", "ltd", "ltda", "limitada", "ltee"]),
    (
        "co",
        &["company", "co", "compania", "compagnie", "cia", "companhia"],
    ),
    ("corp", &["corporation", "corp", "korporatsiya"]),
    ("inc", &["incorporated", "inc"]),
    ("plc", &["public limited company", "plc"]),
    ("llp", &["limited liability partnership", "llp", "l l p"]),
    ("lp", &["limited partnership", "lp"]),
    (
        "sa",
        &[
            "sociedad anonima",
            "societe anonyme",
            "sociedade anonima",
            "s a",
            "sa",
        ],
    ),
    (
        "sarl",
        &["societe a responsabilite limitee", "s a r l", "sarl"],
    ),
    ("sas", &["societe par actions simplifiee", "s a s", "sas"]),
    ("spa", &["societa per azioni", "s p a", "spa"]),
    (
        "srl",
        &[
            "societa a responsabilita limitata",
            "s r l",
            "srl",
            "s de rl",
        ],
    ),
    ("sacv", &["s a de c v", "sa de cv", "de c v", "de cv"]),
    ("gmbh", &["gesellschaft mit beschrankter haftung", "gmbh"]),
    ("ag", &["aktiengesellschaft", "ag"]),
    ("kg", &["kommanditgesellschaft", "kg"]),
    ("bv", &["besloten vennootschap", "b v", "bv"]),
    ("nv", &["naamloze vennootschap", "n v", "nv"]),
    (
        "fze",
        &[
            "free zone establishment",
            "fze",
            "fzco",
            "fzc",
            "fz llc",
            "fz",
        ],
    ),
    ("pte", &["pte", "pvt", "pty"]),
    ("sdn bhd", &["sendirian berhad", "sdn bhd", "bhd", "berhad"]),
    ("pt", &["pt", "perseroan terbatas", "tbk"]),
    (
        "as",
        &["aksjeselskap", "aktieselskab", "anonim sirketi", "a s"],
    ),
    ("ab", &["aktiebolag", "ab"]),
    ("oy", &["osakeyhtio", "oy"]),
    (
        "ep",
        &[
            "unitary enterprise",
            "federal state unitary enterprise",
            "fgup",
            "gup",
            "mup",
        ],
    ),
];

/// A phrase table built once: (token sequence, canonical form), longest sequences first.
pub struct LegalForms {
    phrases: Vec<(Vec<&'static str>, &'static str)>,
    /// The distinct first words of the phrases, and each phrase's first word among them.
    firsts: Vec<&'static str>,
    phrase_first: Vec<usize>,
    /// By a word's length: the first words ([`LegalForms::firsts`]) of five letters or more
    /// within a letter of it, the only ones [`same_word`] can accept spelt otherwise (empty
    /// past the longest first word).
    misspelt_near: Vec<Vec<usize>>,
}

impl LegalForms {
    pub fn new() -> LegalForms {
        let mut phrases: Vec<(Vec<&'static str>, &'static str)> = FORMS
            .iter()
            .flat_map(|(canonical, spellings)| {
                spellings
                    .iter()
                    .map(move |s| (s.split(' ').collect::<Vec<_>>(), *canonical))
            })
            .collect();
        phrases.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        let mut firsts: Vec<&'static str> = phrases.iter().map(|(p, _)| p[0]).collect();
        firsts.sort_unstable();
        firsts.dedup();
        let phrase_first = phrases
            .iter()
            .map(|(p, _)| firsts.binary_search(&p[0]).unwrap_or_default())
            .collect();
        let longest = firsts.iter().map(|f| f.len()).max().unwrap_or(0);
        let misspelt_near = (0..=longest + 1)
            .map(|len| {
                (0..firsts.len())
                    .filter(|&f| firsts[f].len() >= 5 && firsts[f].len().abs_diff(len) <= 1)
                    .collect()
            })
            .collect();
        LegalForms {
            phrases,
            firsts,
            phrase_first,
            misspelt_near,
        }
    }

    /// The canonical form and length of the longest legal-form phrase starting at `tokens[0]`.
    /// Words of five letters or more may be misspelt by a letter (`Compnay`, `Limitd`).
    pub fn match_at(&self, tokens: &[impl AsRef<str>]) -> Option<(&'static str, usize)> {
        let first = tokens.first()?.as_ref();
        // The first words the word can be (most often none): itself, or one misspelt.
        let itself = self.firsts.binary_search(&first).ok();
        let misspelt = self.misspelt_near.get(first.len()).into_iter().flatten();
        let met: Vec<usize> = itself
            .into_iter()
            .chain(
                misspelt
                    .copied()
                    .filter(|&f| Some(f) != itself && same_word(self.firsts[f], first)),
            )
            .collect();
        if met.is_empty() {
            return None;
        }
        self.phrases
            .iter()
            .zip(&self.phrase_first)
            .filter(|(_, f)| met.contains(f))
            .find_map(|((phrase, canonical), _)| {
                (tokens.len() >= phrase.len()
                    && phrase[1..]
                        .iter()
                        .zip(&tokens[1..])
                        .all(|(p, t)| same_word(p, t.as_ref())))
                .then_some((*canonical, phrase.len()))
            })
    }

    /// [`LegalForms::match_at`] by comparing every phrase: what it must give.
    #[cfg(test)]
    fn match_at_every_phrase(&self, tokens: &[String]) -> Option<(&'static str, usize)> {
        self.phrases.iter().find_map(|(phrase, canonical)| {
            (tokens.len() >= phrase.len()
                && phrase.iter().zip(tokens).all(|(p, t)| same_word(p, t)))
            .then_some((*canonical, phrase.len()))
        })
    }
}

/// The words of four letters or more of every legal form's spellings (`limited`,
/// `liability`, `joint`, `stock`, `company`, `obshchestvo`, ...), sorted.
/// With their folded keys (`similarity::folded_key`), worked out once.
static FORM_WORDS: std::sync::LazyLock<Vec<(&'static str, String)>> =
    std::sync::LazyLock::new(|| {
        let mut words: Vec<&'static str> = FORMS
            .iter()
            .flat_map(|(_, spellings)| spellings.iter().flat_map(|s| s.split(' ')))
            .filter(|w| w.len() >= 4)
            .collect();
        words.sort_unstable();
        words.dedup();
        words
            .into_iter()
            .map(|w| (w, super::similarity::folded_key(w)))
            .collect()
    });

/// Whether `word` is a word of a legal form's spelling, or a typo or a variant of one
/// (`liability`, `stock`, `compain`, `lymitfd`): what is left of a legal form that
/// reordering (`Stock Company X Joint`) or misspelling broke apart, so that it was not
/// folded into its canonical form.
pub fn is_form_word(word: &str) -> bool {
    use super::similarity::{folded_key, folded_similarity, osa_distance};
    if word.len() < 4 {
        return false;
    }
    if FORM_WORDS.binary_search_by(|(w, _)| (*w).cmp(word)).is_ok() {
        return true;
    }
    // A typo (one edit of a word of five letters or more), or a typo on top of a variant
    // (`Cmpani`); not merely alike (`Bernard` is not `Berhad`). Only the forms' words of the
    // same first letter (a run of the sorted words) and of about the same length are
    // compared, and the word's folded key is worked out once one of them is.
    let mut folded: Option<String> = None;
    same_first_letter(word).iter().any(|(form, form_folded)| {
        form.len().abs_diff(word.len()) <= 2
            && ((word.len() >= 5 && osa_distance(form, word) <= 1)
                || folded_similarity(
                    word,
                    folded.get_or_insert_with(|| folded_key(word)),
                    form,
                    form_folded,
                )
                .is_some())
    })
}

/// The run of [`FORM_WORDS`] (sorted) that begin with the first letter of `word`, which is
/// not empty (the run is when no form word begins so).
fn same_first_letter(word: &str) -> &'static [(&'static str, String)] {
    let first = word.as_bytes()[0];
    let from = FORM_WORDS.partition_point(|(w, _)| w.as_bytes()[0] < first);
    let run = FORM_WORDS[from..].partition_point(|(w, _)| w.as_bytes()[0] == first);
    &FORM_WORDS[from..from + run]
}

/// Whether `word` is the legal form's word `form` or, for a word of five letters or more, a
/// typo of it (at least [`TYPO_MIN`] alike); the typo's distance worked out only for words
/// the letters allow that close ([`letters::words_within`]: most words asked are names,
/// `joseph` against `limited`).
fn same_word(form: &str, word: &str) -> bool {
    if form == word {
        return true;
    }
    form.len() >= 5
        && form.len().abs_diff(word.len()) <= 1
        && form.as_bytes()[..2]
            .iter()
            .any(|b| word.as_bytes()[..2].contains(b))
        && letters::words_within(
            form,
            word,
            letters::edits_allowed(form.len().max(word.len()), 1.0 - TYPO_MIN),
        )
        && edit_similarity_at_least(form, word, TYPO_MIN) >= TYPO_MIN
}

/// How alike a typo of a legal form's word is at least.
const TYPO_MIN: f32 = 0.8;

impl Default for LegalForms {
    fn default() -> Self {
        LegalForms::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::letters::edited;

    /// Every spelling's words, each misspelt a few ways, run together as phrases of one to
    /// four words: what the phrase table is asked.
    fn words_near_the_forms() -> Vec<String> {
        let mut words: Vec<String> = FORMS
            .iter()
            .flat_map(|(_, spellings)| spellings.iter().flat_map(|s| s.split(' ')))
            .map(str::to_owned)
            .collect();
        let mut near = Vec::new();
        for w in &words {
            near.push(format!("{w}x"));
            near.push(format!("x{w}"));
            near.push(w[1..].to_owned());
            near.push(w[..w.len() - 1].to_owned());
            let mut swapped = w.clone().into_bytes();
            if swapped.len() > 3 {
                swapped.swap(1, 2);
            }
            near.push(String::from_utf8(swapped).unwrap_or_default());
        }
        words.extend(near);
        words.extend(["", "bank", "vladimir", "ivanov", "de", "s", "a"].map(str::to_owned));
        words
    }

    /// [`same_word`] with every typo's distance worked out: what it must give.
    fn same_word_compared(form: &str, word: &str) -> bool {
        form == word
            || (form.len() >= 5
                && form.len().abs_diff(word.len()) <= 1
                && form.as_bytes()[..2]
                    .iter()
                    .any(|b| word.as_bytes()[..2].contains(b))
                && edit_similarity_at_least(form, word, 0.8) >= 0.8)
    }

    /// Every word of every spelling, against its typos (a letter added, dropped, swapped or
    /// changed, two such) and against other words: what the letters refuse, the distance
    /// refuses too.
    #[test]
    fn typos_told_by_their_letters_are_the_typos_compared() {
        let forms: Vec<&str> = FORMS
            .iter()
            .flat_map(|(_, spellings)| spellings.iter().flat_map(|s| s.split(' ')))
            .collect();
        let mut words = words_near_the_forms();
        for w in words.clone() {
            if w.len() > 2 {
                let mut changed = w.clone().into_bytes();
                changed[w.len() / 2] = b'q';
                words.push(String::from_utf8(changed.clone()).unwrap_or_default());
                changed[1] = b'z';
                words.push(String::from_utf8(changed).unwrap_or_default());
                words.push(format!("{}{}", &w[..w.len() / 2], &w[w.len() / 2 + 1..]));
            }
        }
        words.extend(
            [
                "joseph",
                "limitd",
                "compnay",
                "aktsionernoe",
                "ltd.",
                "gmbh",
            ]
            .map(str::to_owned),
        );
        let mut typos = 0;
        for form in &forms {
            for word in &words {
                let expected = same_word_compared(form, word);
                assert_eq!(same_word(form, word), expected, "{form} / {word}");
                typos += usize::from(expected && form != word);
            }
        }
        assert!(
            typos > 100,
            "only {typos} typos met: the test would not see a wrong refusal"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_word_is_a_typo_by_its_letters_as_compared(
            form in "[a-h]{5,14}",
            edits in proptest::collection::vec((0usize..16, 0u8..4, b'a'..=b'h'), 0..4),
        ) {
            let word = crate::letters::with_edits(&form, &edits);
            proptest::prop_assert_eq!(same_word(&form, &word), same_word_compared(&form, &word));
        }

        #[test]
        fn any_word_is_a_form_word_as_by_every_form_word(word in "[a-z]{1,14}") {
            proptest::prop_assert_eq!(is_form_word(&word), is_form_word_scanned(&word));
        }
    }

    #[test]
    fn phrases_found_by_their_first_words_are_the_phrases_compared_one_by_one() {
        let forms = LegalForms::new();
        let words = words_near_the_forms();
        let mut found = 0;
        for (i, first) in words.iter().enumerate() {
            for len in 1..=4 {
                let tokens: Vec<String> = std::iter::once(first.clone())
                    .chain((1..len).map(|k| words[(i * 7 + k * 13) % words.len()].clone()))
                    .collect();
                let fast = forms.match_at(&tokens);
                assert_eq!(fast, forms.match_at_every_phrase(&tokens), "{tokens:?}");
                found += usize::from(fast.is_some());
            }
        }
        // Whole spellings too, so that phrases of several words are met.
        for (_, spellings) in FORMS {
            for spelling in *spellings {
                let tokens: Vec<String> = spelling.split(' ').map(str::to_owned).collect();
                assert_eq!(
                    forms.match_at(&tokens),
                    forms.match_at_every_phrase(&tokens)
                );
                assert!(forms.match_at(&tokens).is_some(), "{spelling}");
            }
        }
        assert!(found > 500, "{found} found");
    }

    fn toks(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn longest_phrase_wins() {
        let forms = LegalForms::new();
        assert_eq!(
            forms.match_at(&toks("limited liability company x")),
            Some(("llc", 3))
        );
        assert_eq!(forms.match_at(&toks("limited x")), Some(("ltd", 1)));
        assert_eq!(forms.match_at(&toks("ooo")), Some(("llc", 1)));
        assert_eq!(
            forms.match_at(&toks("public joint stock company")),
            Some(("jsc", 4))
        );
        assert_eq!(forms.match_at(&toks("s a de c v")), Some(("sacv", 5)));
        assert_eq!(forms.match_at(&toks("bank")), None);
        assert_eq!(
            forms.match_at(&toks("jonit stock ocmpany")),
            Some(("jsc", 3))
        );
        assert_eq!(forms.match_at(&toks("limitdd")), Some(("ltd", 1)));
        assert_eq!(forms.match_at(&toks("compact")), None);
    }

    #[test]
    fn leftover_words_of_a_legal_form_are_known() {
        for w in [
            "liability",
            "stock",
            "joint",
            "compain",
            "cmpani",
            "lymitfd",
        ] {
            assert!(is_form_word(w), "{w}");
        }
        for w in ["bernard", "sapfir", "bank", "ali"] {
            assert!(!is_form_word(w), "{w}");
        }
    }

    /// [`is_form_word`] comparing every form word, as it was before the run of the same
    /// first letter: what it must give.
    fn is_form_word_scanned(word: &str) -> bool {
        use crate::similarity::{folded_key, folded_similarity, osa_distance};
        if word.len() < 4 {
            return false;
        }
        let folded = folded_key(word);
        FORM_WORDS.iter().any(|(form, form_folded)| {
            form == &word
                || (form.as_bytes()[0] == word.as_bytes()[0]
                    && form.len().abs_diff(word.len()) <= 2
                    && ((word.len() >= 5 && osa_distance(form, word) <= 1)
                        || folded_similarity(word, &folded, form, form_folded).is_some()))
        })
    }

    /// The forms' words, their typos (one and two edits) and other words: the words compared
    /// by their first letter's run are told as by every form word.
    #[test]
    fn form_words_found_in_their_first_letters_run_are_those_found_by_all() {
        let mut words = words_near_the_forms();
        for w in words.clone() {
            for at in 0..w.len() + 1 {
                for kind in 0..4 {
                    words.push(edited(&w, at, kind, b'e'));
                    words.push(edited(&edited(&w, at, kind, b'k'), at + 2, 2, b'i'));
                }
            }
        }
        words.extend(["aaaa", "zzzzzz", "joseph", "compnay", "cmpani"].map(str::to_owned));
        let mut found = 0;
        for word in &words {
            let expected = is_form_word_scanned(word);
            assert_eq!(is_form_word(word), expected, "{word}");
            found += usize::from(expected);
        }
        assert!(
            found > 1_000,
            "only {found} form words met: the test would not see a wrong refusal"
        );
    }
}
