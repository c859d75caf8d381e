//! Names made only of words that are also particles, titles or legal forms (`DAS, V.`, `Pat
//! D. King`, `VAN, Del`): normalised the usual way they leave nothing to screen (particles
//! weigh as no evidence, titles and legal forms are set aside), yet a listed surname can be
//! such a word. When such a name looks like a person's name (it has an initial, or it is
//! written `SURNAME, Given`) its words are screened as they are, for exact matches only
//! ([`reading`]). Punctuation alone, or titles and honorifics alone, are still nothing.

use super::normalize::{self, Token, TokenKind};

/// Whether `name` gives anything to screen: a word or a number once titles, legal forms,
/// particles and punctuation are set aside, or else a name of such words that looks like a
/// person's ([`reading`]).
/// `organisation`: the name may be an organisation's (legal forms are read as such).
pub fn has_something_to_screen(name: &str, organisation: bool) -> bool {
    let (read, something) = read_and_judge(name, organisation, true);
    // The engine reads the same name when it is screened (`read`): kept for it.
    let key = Box::from(name);
    let mut reads = reads();
    let kept = &mut reads[usize::from(organisation)];
    if kept.len() >= READS_KEPT {
        kept.clear();
    }
    kept.insert(key, read);
    something
}

/// [`READS`], held (a thread that panicked holding it left whole readings only).
fn reads() -> std::sync::MutexGuard<'static, Reads> {
    READS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Names read by [`has_something_to_screen`], by type (`[organisation]`) and name, kept for
/// the [`read`] that most often follows (a screening checks its name, then screens it; the
/// CLI's `batch` checks every row as its file is read, then screens the rows on every core,
/// each on whichever thread is free): taken by the first [`read`] of the same name and type,
/// so that a name is read once for both. Shared by the threads, so that a row checked on one
/// is found on another; what it keeps is what [`read`] would work out again, so it changes no
/// answer.
static READS: std::sync::LazyLock<std::sync::Mutex<Reads>> =
    std::sync::LazyLock::new(Default::default);

type Reads = [crate::table::FastMap<Box<str>, (Vec<Token>, bool)>; 2];

/// How many names of a type [`READS`] keeps (emptied when full): a batch file's rows checked
/// ahead of their screening (a longer file's last ones); names checked and never screened (a
/// row refused for its other cells, a `--strict` import's first pass) go with the next
/// emptying. Some 6 MB a type at most (a name and its tokens, about 400 bytes).
const READS_KEPT: usize = 1 << 14;

/// Whether every one of `words` is a title or a particle (the usual reading sets them all
/// aside).
fn titles_and_particles_only(words: &normalize::NameWords) -> bool {
    words.texts().all(normalize::is_title_or_particle)
}

/// Whether `tokens` hold a word or a number to search on.
fn searches(tokens: &[Token]) -> bool {
    tokens
        .iter()
        .any(|t| matches!(t.kind, TokenKind::Word | TokenKind::Number))
}

/// The tokens the engine screens `name` by (`organisation`: it may be an organisation's), and
/// whether they are read literally ([`reading`]): its words read once for both. What
/// [`super::screen_one`] screens and the incremental re-screen's bound reads
/// (`ReadName::of`).
pub(crate) fn read(name: &str, organisation: bool) -> (Vec<Token>, bool) {
    let kept = reads()[usize::from(organisation)].remove(name);
    kept.unwrap_or_else(|| read_and_judge(name, organisation, false).0)
}

/// [`read`] of `name`, and, when `judge`, whether it gives anything to screen
/// ([`has_something_to_screen`]; else that answer means nothing): its words read once for
/// both. Something is a word or a number to search on once titles, legal forms, particles
/// and punctuation are set aside, or else the literal reading; a name is read literally only
/// when the usual reading leaves nothing.
fn read_and_judge(name: &str, organisation: bool, judge: bool) -> ((Vec<Token>, bool), bool) {
    let words = normalize::NameWords::of(name);
    let literal = reading(name, &words);
    // Asked only where an answer needs it: most names are not judged and not literal.
    let titles_only = (judge || literal.is_some()) && titles_and_particles_only(&words);
    let tokens = words.tokens(name, organisation);
    let searched = searches(&tokens);
    let something = literal.is_some() || (searched && !titles_only);
    let read = match literal {
        Some(literal) if !searched || titles_only => (literal, true),
        _ => (tokens, false),
    };
    (read, something)
}

/// The tokens of a name made only of particles, titles, legal forms and initials that looks
/// like a person's name, each word kept as written (particles spelt one way, `ben` = `bin`,
/// as the index files them), single letters as initials; `None` for any other name.
/// `words`: the name's words ([`normalize::NameWords`]).
fn reading(name: &str, words: &normalize::NameWords) -> Option<Vec<Token>> {
    let initial = |w: &str| w.len() == 1 && w.bytes().all(|b| b.is_ascii_alphabetic());
    let set_aside = |w: &str| normalize::is_title_or_particle(w) || is_legal_form(w);
    // At least one word a surname could be: not an initial, not only a courtesy title.
    let surname = |w: &str| !initial(w) && !normalize::is_honorific(w);
    let comma_form = || {
        name.split_once(',').is_some_and(|(before, after)| {
            !normalize::words(before).is_empty() && !normalize::words(after).is_empty()
        })
    };
    // Every condition must hold: the cheap ones first (most names have neither an initial
    // nor a comma, and are told apart without reading any word as a legal form).
    let mut texts = words.texts();
    let literal = !words.is_empty()
        && (texts.clone().any(initial) || comma_form())
        && texts.clone().any(surname)
        && texts.all(|w| initial(w) || set_aside(w));
    literal.then(|| words.texts().map(|w| literal_token(w.to_owned())).collect())
}

/// A word alone read as a legal form (`pat`, `ao`, `co`).
fn is_legal_form(word: &str) -> bool {
    if normalize::is_normal_word(word) {
        return normalize::is_legal_form_alone(word);
    }
    is_legal_form_normalised(word)
}

/// [`is_legal_form`] of any text: its normalisation is one legal form.
fn is_legal_form_normalised(word: &str) -> bool {
    matches!(normalize::tokens(word, true).as_slice(), [t] if t.kind == TokenKind::Legal)
}

fn literal_token(word: String) -> Token {
    let kind = if word.len() == 1 {
        TokenKind::Initial
    } else {
        TokenKind::Word
    };
    Token {
        text: normalize::canonical_particle(&word).to_owned(),
        raw: String::new(),
        kind,
        abjad: false,
        written: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_normal_word_is_a_legal_form_as_its_normalisation_says() {
        let words = [
            "llc",
            "ooo",
            "pat",
            "ao",
            "co",
            "ltd",
            "limited",
            "limitd",
            "limitedd",
            "company",
            "compnay",
            "gmbh",
            "sa",
            "plc",
            "inc",
            "corp",
            "bhd",
            "berhad",
            "oao",
            "zao",
            "pao",
            "fzco",
            "ab",
            "oy",
            "nv",
            "bv",
            "ag",
            "kg",
            "as",
            "vladimir",
            "bank",
            "de",
            "das",
            "2",
            "mr",
            "president",
        ];
        for word in words {
            assert_eq!(
                is_legal_form(word),
                is_legal_form_normalised(word),
                "{word}"
            );
        }
        assert!(words.iter().filter(|w| is_legal_form(w)).count() > 15);
    }

    proptest::proptest! {
        #[test]
        fn any_normal_word_is_a_legal_form_as_its_normalisation_says(word in "[a-z0-9]{1,9}") {
            proptest::prop_assert_eq!(is_legal_form(&word), is_legal_form_normalised(&word));
        }

        /// `read` decides from one reading of the words what the two questions, each asked
        /// from the name alone, decide: read literally when it may be and the usual reading
        /// leaves nothing to search on.
        #[test]
        fn a_name_is_read_as_its_two_questions_say(
            words in proptest::collection::vec(
                "(das|van|del|bin|al|mr|dr|pat|co|llc|ltd|ao|v|d|k|king|smith|7|\\.)", 1..5),
            comma in proptest::option::of(0usize..4),
            organisation in proptest::bool::ANY,
        ) {
            let mut name = String::new();
            for (i, word) in words.iter().enumerate() {
                if i > 0 {
                    name.push_str(if comma == Some(i) { ", " } else { " " });
                }
                name.push_str(word);
            }
            let asked = |n: &str| normalize::NameWords::of(n);
            let literal = reading(&name, &asked(&name));
            let ordinary = ordinary_of(&name, asked(&name), organisation);
            let something = literal.is_some() || ordinary;
            let expected = match literal.filter(|_| !ordinary) {
                Some(tokens) => (tokens, true),
                None => (normalize::tokens(&name, organisation), false),
            };
            proptest::prop_assert_eq!(read(&name, organisation), expected.clone(), "{:?}", name);
            // Checked first, the name is read once for both: the same answers, and the
            // reading kept for one type is not given to the other.
            proptest::prop_assert_eq!(has_something_to_screen(&name, !organisation), {
                let other = ordinary_of(&name, asked(&name), !organisation);
                reading(&name, &asked(&name)).is_some() || other
            });
            proptest::prop_assert_eq!(read(&name, organisation), expected.clone(), "{:?}", name);
            proptest::prop_assert_eq!(has_something_to_screen(&name, organisation), something);
            proptest::prop_assert_eq!(read(&name, organisation), expected.clone(), "{:?}", name);
            proptest::prop_assert_eq!(read(&name, organisation), expected, "{:?}", name);
        }
    }

    /// A batch checks its rows as the file is read and screens them on whichever thread is
    /// free: the reading its check kept is taken by the screening's read on another thread,
    /// and is what reading the name again gives.
    #[test]
    fn a_name_checked_on_one_thread_is_read_from_what_the_check_kept_on_another() {
        let name = "Oksana Verbitskaya-Kittredge";
        let held = || reads()[0].contains_key(name);
        assert!(has_something_to_screen(name, false));
        assert!(held(), "kept by the check");
        let there = std::thread::spawn(move || read(name, false))
            .join()
            .unwrap();
        assert!(!held(), "taken by the read");
        assert_eq!(there, read_and_judge(name, false, false).0);
        assert_eq!(read(name, false), there, "read again once taken");
    }

    /// Whether the usual normalisation of `name`, whose words are `words`, keeps a word or a
    /// number to search on: the question asked from the name alone.
    fn ordinary_of(name: &str, words: normalize::NameWords, organisation: bool) -> bool {
        !titles_and_particles_only(&words) && searches(&words.tokens(name, organisation))
    }

    fn texts(name: &str) -> Option<Vec<String>> {
        reading(name, &normalize::NameWords::of(name))
            .map(|t| t.into_iter().map(|t| t.text).collect())
    }

    #[test]
    fn a_name_of_particles_with_an_initial_or_a_comma_is_read_literally() {
        assert_eq!(texts("DAS, V."), Some(vec!["das".into(), "v".into()]));
        assert_eq!(
            texts("Pat D. King"),
            Some(vec!["pat".into(), "d".into(), "king".into()])
        );
        assert_eq!(texts("BEN, Van"), Some(vec!["bin".into(), "van".into()]));
        assert!(has_something_to_screen("Pat D. King", true));
        assert!(has_something_to_screen("Del, A.", false));
    }

    #[test]
    fn punctuation_titles_and_bare_particles_are_still_nothing() {
        for name in [
            ".", "Mr", "Mr.", "Dr. A.", "Mr, Mrs", "al", "Van Der", "King", "-, -",
        ] {
            assert!(!has_something_to_screen(name, true), "{name}");
        }
        // An ordinary name is not read literally.
        assert_eq!(texts("Vladimir Putin"), None);
        assert!(has_something_to_screen("Vladimir Putin", true));
    }
}
