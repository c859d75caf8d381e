//! `عبد` with the article written onto the next word, read as written apart (see `split`,
//! which describes both rules for Arabic-script compounds): a leaf that normalisation calls.

const AIN: char = '\u{0639}';
const BEH: char = '\u{0628}';
const DAL: char = '\u{062F}';
const ALEF: char = '\u{0627}';
const LAM: char = '\u{0644}';

/// The least letters after `عبدال` for the article to be read as written onto a word of
/// its own: three, the length from which normalisation splits the article off any word
/// (`الرحمن`, not `الله`), so that the joined form gives the tokens the apart form gives.
/// Two was measured first: `عبدالحی` then lost the spelling the lexicon had learned for it
/// whole (`Abdulhai`), since `الحی` keeps its article (a known entry fell from 92 to 75).
const MIN_ABD_REST: usize = 3;

/// `chars` (a name after NFKC) with a space written between `عبد` and an article joined to
/// it at the start of a word (`عبدالروف` as `عبد الروف`), when at least [`MIN_ABD_REST`]
/// letters follow the article.
pub(crate) fn abd_apart(chars: Vec<char>) -> Vec<char> {
    let starts = |i: usize| {
        (i == 0 || !chars[i - 1].is_alphabetic())
            && chars.get(i..i + 5) == Some(&[AIN, BEH, DAL, ALEF, LAM][..])
            && chars[i + 5..]
                .iter()
                .take_while(|c| c.is_alphabetic())
                .count()
                >= MIN_ABD_REST
    };
    if !(0..chars.len()).any(starts) {
        return chars;
    }
    let mut out = Vec::with_capacity(chars.len() + 2);
    for (i, &c) in chars.iter().enumerate() {
        if i >= 3 && starts(i - 3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}
