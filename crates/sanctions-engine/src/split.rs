//! One word written in Arabic script that the Latin names write as two: Persian and Arabic
//! write as one word what the lists romanise apart (`محمدتقی` / `Mohammad Taghi`, `عباسعلی` /
//! `Abbas-Ali`, `عبدالروف` / `Abdul Rauf`). Two rules:
//!
//! - [`abd_apart`](super::abd::abd_apart) (in `abd`, a leaf that normalisation calls): `عبد` with the article written onto the next word (`عبدالروف`) is read as
//!   written apart (`عبد الروف`), the Arabic convention, so that it reaches the tokens the
//!   apart form gives (`abdul al rwf`) and, through `normalize::abjad_joins`, still meets a
//!   Latin compound (`Abdurrauf`). Part of normalisation: queries and listed names alike.
//! - [`compound_reading`]: a word that splits into a head the engine knows (a word of the
//!   cross-script lexicon, `محمد`) and a rest (`تقی`), or into a head and a known rest
//!   (`صفر` + `علی`), gives the name a second reading with the word split, screened as an
//!   alternative ([`super::alternatives`]) and filed by the index as a variant of the listed
//!   name; the reading as written stays, each entry keeping its better result.

#[cfg(test)]
use super::abd::abd_apart;
use super::lexicon;
use super::normalize::{self, TokenKind};
use super::script::{Script, script_of};

/// The least letters of a known head (`محمد`, `عباس`, `احمد`): two-letter heads (`عل`,
/// `حس`) begin too many words that are not compounds. Set by that reasoning, not tuned.
const MIN_HEAD: usize = 3;
/// The least letters of the rest: the given names that end these compounds have three
/// (`رضا`, `علی`, `نظر`, `تقی`). Two was measured first: the skeleton of a head of three
/// letters is often a known word's by chance (alef is silent: `بسا` reads `bs` like
/// `عباس`), and a word of five letters then read as two names met other entries, pushing
/// targets out of the first ten (the cross-script set's recall@10 fell).
const MIN_REST: usize = 3;
/// The most letters of a word tried as two: two given names joined rarely pass a dozen
/// (`محمدحسین`, 8; `عبدالرحمنعلی`, 12); bounds the work on any input, since every split
/// tried normalises its parts. Set by that reasoning, not tuned.
const MAX_JOINED: usize = 20;

/// Whether `c` is a letter of the Arabic script (Arabic, Persian, Urdu, Pashto), not Hebrew.
fn arabic(c: char) -> bool {
    c.is_alphabetic() && script_of(c) == Script::Abjad && !('\u{0590}'..='\u{05FF}').contains(&c)
}

/// The name with every word written in Arabic script that splits into two names
/// ([`split_word`]) written as two, or `None` when no word does.
pub(crate) fn compound_reading(name: &str) -> Option<String> {
    // Most names hold no Arabic letter: no word to split, nothing allocated.
    if !name.chars().any(arabic) {
        return None;
    }
    let mut split = false;
    let words: Vec<String> = name
        .split(' ')
        .map(|w| match split_word(w) {
            Some((head, rest)) => {
                split = true;
                format!("{head} {rest}")
            }
            None => w.to_owned(),
        })
        .collect();
    split.then(|| words.join(" "))
}

/// Whether a word written in an abjad is one the cross-script lexicon knows, read alone.
fn known(word: &str) -> bool {
    match normalize::tokens(word, false).as_slice() {
        [t] => {
            t.abjad && t.kind == TokenKind::Word && !lexicon::latin_spellings(&t.text).is_empty()
        }
        _ => false,
    }
}

/// A word of Arabic-script letters only, as a head and a rest of at least [`MIN_HEAD`] and
/// [`MIN_REST`] letters: the longest head the lexicon knows, else the longest head whose
/// rest it knows (`صفر` + `علی`).
fn split_word(word: &str) -> Option<(&str, &str)> {
    let letters = word.chars().count();
    if !(MIN_HEAD + MIN_REST..=MAX_JOINED).contains(&letters) || !word.chars().all(arabic) {
        return None;
    }
    let at = |n: usize| word.char_indices().nth(n).map_or(word.len(), |(b, _)| b);
    let mut heads = (MIN_HEAD..=letters - MIN_REST).rev();
    let n = heads
        .clone()
        .find(|&n| known(&word[..at(n)]))
        .or_else(|| heads.find(|&n| known(&word[at(n)..])))?;
    Some((&word[..at(n)], &word[at(n)..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apart(name: &str) -> String {
        abd_apart(name.chars().collect()).into_iter().collect()
    }

    #[test]
    fn abd_and_the_article_read_apart() {
        assert_eq!(apart("عبدالروف خادم"), "عبد الروف خادم");
        assert_eq!(apart("عبدالمنان محمد اسحاق"), "عبد المنان محمد اسحاق");
        assert_eq!(apart("عبدالحميد المصلي"), "عبد الحميد المصلي");
        assert_eq!(apart("برادر عبدالغنی"), "برادر عبد الغنی");
        assert_eq!(apart("عبدالحليم"), "عبد الحليم");
        // With two letters or fewer after the article the word stays whole (written apart,
        // `الحق` keeps its article too); and `عبدال` inside a word is not split.
        assert_eq!(apart("عبدالحی"), "عبدالحی");
        assert_eq!(apart("عبدالی"), "عبدالی");
        assert_eq!(apart("محمدعبدالله"), "محمدعبدالله");
        // The same tokens as written apart.
        for (joined, written_apart) in [
            ("عبدالروف", "عبد الروف"),
            ("عبدالرحمن", "عبد الرحمن"),
            ("عبدالغنی", "عبد الغنی"),
        ] {
            let texts = |n: &str| -> Vec<String> {
                normalize::tokens(n, false)
                    .into_iter()
                    .map(|t| t.text)
                    .collect()
            };
            assert_eq!(texts(joined), texts(written_apart), "{joined}");
        }
    }

    #[test]
    fn a_known_head_or_rest_splits_a_word() {
        // `محمد`, `احمد`, `عباس` and `علی`, `رضا` are in the committed lexicon.
        assert_eq!(
            compound_reading("محمدتقی اسانلو").as_deref(),
            Some("محمد تقی اسانلو")
        );
        assert_eq!(
            compound_reading("محمدنظر عظیمی").as_deref(),
            Some("محمد نظر عظیمی")
        );
        assert_eq!(
            compound_reading("احمدرضا رادان").as_deref(),
            Some("احمد رضا رادان")
        );
        assert_eq!(
            compound_reading("عباسعلی کدخدایی").as_deref(),
            Some("عباس علی کدخدایی")
        );
        assert_eq!(
            compound_reading("صفرعلی موسوی").as_deref(),
            Some("صفر علی موسوی")
        );
        // A one-letter suffix, a known word and a Latin name stay as they are.
        assert_eq!(compound_reading("محمدی"), None);
        assert_eq!(compound_reading("محمد"), None);
        assert_eq!(compound_reading("Mohammadtaghi"), None);
    }

    fn entry(id: &str, name: &str) -> crate::model::EntityNames {
        crate::model::EntityNames {
            entity_id: format!("ofac_sdn:{id}"),
            list: crate::model::ListCode::OfacSdn,
            kind: crate::model::EntityKind::Individual,
            primary_name: name.to_owned(),
            country: None,
            names: vec![(name.to_owned(), crate::model::AliasQuality::Unspecified)],
            listing_ends: None,
            facts: Default::default(),
        }
    }

    /// The score of the entry `id` for `query` against an index of `listed` names.
    fn score(listed: &[&str], query: &str, id: usize) -> u8 {
        let entries: Vec<_> = listed
            .iter()
            .enumerate()
            .map(|(i, n)| entry(&i.to_string(), n))
            .collect();
        let index = super::super::Index::build(&entries);
        let request = super::super::Request {
            threshold: Some(0),
            ..super::super::Request::new(query)
        };
        let screening = super::super::screen(&index, &request).unwrap_or_else(|e| panic!("{e}"));
        let wanted = format!("ofac_sdn:{id}");
        screening
            .hits
            .iter()
            .find(|h| h.entity_id == wanted)
            .map_or(0, |h| h.score)
    }

    #[test]
    fn joined_words_meet_the_two_words_both_ways() {
        let threshold = super::super::DEFAULT_THRESHOLD;
        for (joined, latin) in [
            ("محمدتقی اسانلو", "Mohammad Taghi OSANLOO"),
            ("عبدالروف خادم", "Abdul Rauf Khadem"),
            ("عباسعلی کدخدایی", "Abbas-Ali Kadkhodaei"),
        ] {
            let others = ["Ali Reza MORADI", "Mohammad NAZARI"];
            let listed = [latin, others[0], others[1]];
            let s = score(&listed, joined, 0);
            assert!(s >= threshold, "{joined} -> {latin}: {s}");
            let listed = [joined, others[0], others[1]];
            let s = score(&listed, latin, 0);
            assert!(s >= threshold, "{latin} -> {joined}: {s}");
        }
    }
}
