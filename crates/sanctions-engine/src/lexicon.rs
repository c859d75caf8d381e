//! The cross-script lexicon: words written in Arabic or Hebrew script, as [`super::normalize`]
//! gives them (`mhmd`, `smh`), and the Latin spellings the lists' own bilingual entries give
//! them (`muhammad mohammed mohamed ...`). Learned by `quality::lexicon` from the tune half of
//! the cross-script split only and committed as generated data (`lexicon.txt`, bounded to
//! 20,000 lines of at most 8 spellings); `tests/eval.rs` checks it is what the generator
//! gives. A pair it holds is stronger evidence than a shared consonant skeleton: the lists
//! themselves wrote the one word as the other.

use std::collections::HashMap;
use std::sync::{LazyLock, OnceLock};

/// Similarity of a word and a spelling the lexicon gives it: above a skeleton pair (0.88),
/// since the lists themselves wrote the one as the other, below an exact match. Tried 0.92,
/// 0.95 and 0.97 on the tune half of the cross-script set (see the README).
pub const LEXICON_SIMILARITY: f32 = 0.95;

struct Lexicon {
    /// Abjad word -> Latin spellings.
    latin: HashMap<&'static str, Vec<&'static str>>,
    /// Latin spelling -> abjad words.
    abjad: HashMap<&'static str, Vec<&'static str>>,
}

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    // Settles which text is used: a replacement comes too late once this has run.
    parse(TEXT.get_or_init(|| include_str!("lexicon.txt")))
});

/// The lexicon's text: the committed one, or another for evaluation only
/// ([`replace_for_evaluation`]).
static TEXT: OnceLock<&'static str> = OnceLock::new();

/// Makes the engine use `text` (in the format of `lexicon.txt`) instead of the committed
/// lexicon, for the rest of the process; false (and nothing changed) once the lexicon has
/// been used or replaced. For the evaluation tools only: `eval_script --proxy` learns a
/// lexicon from one half of the tune half and measures on the other, a stand-in for the
/// measure half that may be looked at.
#[doc(hidden)]
pub fn replace_for_evaluation(text: String) -> bool {
    TEXT.set(Box::leak(text.into_boxed_str())).is_ok()
}

fn parse(text: &'static str) -> Lexicon {
    let mut lexicon = Lexicon {
        latin: HashMap::new(),
        abjad: HashMap::new(),
    };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((word, spellings)) = line.split_once('\t') else {
            continue;
        };
        let spellings: Vec<&'static str> = spellings.split(' ').filter(|s| !s.is_empty()).collect();
        for &s in &spellings {
            lexicon.abjad.entry(s).or_default().push(word);
        }
        lexicon.latin.insert(word, spellings);
    }
    lexicon
}

/// The Latin spellings of an abjad word.
pub fn latin_spellings(abjad_word: &str) -> &'static [&'static str] {
    LEXICON.latin.get(abjad_word).map_or(&[], Vec::as_slice)
}

/// The abjad words a Latin word spells.
pub fn abjad_words(latin_word: &str) -> &'static [&'static str] {
    LEXICON.abjad.get(latin_word).map_or(&[], Vec::as_slice)
}

/// A Latin word under this edit similarity to every spelling the lexicon learned for an
/// abjad word is unlike all of them: 0.6 is the fuzzy floor's neighbourhood, where
/// spellings of one name still fall (`mohamad` / `mohammad` 0.88, `zuhair` / `zouhair`
/// 0.86) and other names do not (`zahra` / `zuhair` 0.5). Set by that reasoning, measured
/// once (see the README), not tuned.
const UNLIKE: f32 = 0.6;

/// Whether the lexicon speaks against an abjad word and a Latin one that share a consonant
/// skeleton: the lists spell the abjad word in ways all unlike the Latin word (`زهير` is
/// Zuhair, Zouhair, never Zahra, whose skeleton it shares). A word the lexicon does not
/// know is not spoken against.
pub fn contradicts(abjad_word: &str, latin_word: &str) -> bool {
    let spellings = latin_spellings(abjad_word);
    !spellings.is_empty()
        && spellings
            .iter()
            .all(|s| super::similarity::edit_similarity(s, latin_word) < UNLIKE)
}

/// Whether the lexicon refutes a skeleton pair of two words, one written in an abjad (`abjad`
/// of each tells which): it [`contradicts`] the pair, and the lists spell the Latin word for
/// another abjad word (`Mahmoud` is the lists' `محمود`, and their `محمد` is `Muhammad`,
/// `Mohamed`, never like `Mahmoud`, though both share the skeleton `mhmd`). Two different
/// given names, not two spellings of one: no pair at all, where a skeleton the lexicon only
/// contradicts is still a weak one (`script::SKELETON_CONTRADICTED`).
pub fn refutes(word: &str, abjad: bool, other: &str, other_abjad: bool) -> bool {
    let (abjad_word, latin_word) = match (abjad, other_abjad) {
        (true, false) => (word, other),
        (false, true) => (other, word),
        _ => return false,
    };
    !abjad_words(latin_word).is_empty() && contradicts(abjad_word, latin_word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_ways() {
        let l = parse("# header\nmhmd\tmuhammad mohammed\nsmh\tusama\n");
        assert_eq!(l.latin["mhmd"], ["muhammad", "mohammed"]);
        assert_eq!(l.abjad["usama"], ["smh"]);
    }

    #[test]
    fn a_latin_spelling_of_another_abjad_word_is_refuted() {
        // The committed lexicon: `حسن` is spelt Hassan, Hasan; Hussein is `حسين`.
        assert!(contradicts("hsn", "hussein"));
        assert!(refutes("hussein", false, "hsn", true));
        // `محمد` is spelt Muhammad, Mohamed...; Mahmoud is `محمود`.
        assert!(contradicts("mhmd", "mahmoud"));
        assert!(refutes("mahmoud", false, "mhmd", true));
        assert!(refutes("mhmd", true, "mahmoud", false));
        // The lists' own spellings, and a Latin word the lexicon does not know, are not.
        assert!(!refutes("mohamed", false, "mhmd", true));
        assert!(!refutes("mahmoudzadeh", false, "mhmd", true));
        // Two Latin words, or two abjad words, are not the lexicon's to judge.
        assert!(!refutes("mahmoud", false, "muhammad", false));
    }
}
