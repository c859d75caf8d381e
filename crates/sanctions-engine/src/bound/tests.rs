//! The bound against the engine's own scores: never under any score a changed entry gets,
//! and as high as the score where the scorer's name coverage is whole (so that a bound
//! leaving out a fuzzy word, a join, an initial or the facts' points fails here).

use super::*;
use crate::letters::{apart, bigrams_apart};
use crate::model::{AliasQuality, DateSpec, EntityFacts, EntityKind, EntityNames, ListCode};
use crate::{Index, Request, screen};

fn entry(id: usize, kind: EntityKind, names: &[&str], born: Option<i32>) -> EntityNames {
    EntityNames {
        entity_id: format!("un:{id}"),
        list: ListCode::Un,
        kind,
        primary_name: names[0].to_owned(),
        country: Some("IR".to_owned()),
        names: names
            .iter()
            .map(|n| (n.to_string(), AliasQuality::Strong))
            .collect(),
        listing_ends: None,
        facts: EntityFacts {
            birth_dates: born
                .map(|year| DateSpec::Year { year })
                .into_iter()
                .collect(),
            nationalities: vec!["IR".to_owned()],
            ..Default::default()
        },
    }
}

/// Listed names: the first half unchanged, the second half "changed by an update".
const LISTED: &[(&str, &str)] = &[
    ("PUTIN, Vladimir Vladimirovich", "Vladimir PUTIN"),
    ("NASRALLAH, Hassan", "Hasan NASRALLA"),
    ("ROMASHKA LIMITED LIABILITY COMPANY", "ROMASHKA LLC"),
    ("KIM, Jong Un", "KIM Jongun"),
    ("HASSAN, Mohammed Ali", "Muhammad Ali HASAN"),
    ("AL-KAWARI, Salih", "Salih ALKAWARI"),
    ("VNESHECONOMBANK", "VNESHECONOMBANK STATE CORPORATION"),
    ("SELIVANOV, Aleksey Sergeevich", "Alexei SELIVANOV"),
    ("RAHIMI, Abdul Rahman", "Abdulrahman RAHIMI"),
    ("DE LA CRUZ, Maria Fernanda", "Maria Fernanda DELACRUZ"),
    ("ZHDANOV, Mikhail Mikhaylovich", "M. M. ZHDANOV"),
    ("GHORBANI, Mohammad Reza", "Mohammadreza GHORBANI"),
    ("BANCO NACIONAL DE CUBA", "NATIONAL BANK OF CUBA"),
    ("TOSIH, Abdullah", "Abdallah TOSEEH"),
    ("MOHAMMADI, Farhad", "Farhad MOHAMADI"),
    ("IVANOV, Petr Nikolaevich", "Pyotr IVANOV"),
];

fn index() -> Index {
    let entries: Vec<EntityNames> = LISTED
        .iter()
        .enumerate()
        .map(|(i, (a, b))| {
            let kind = if a.contains(',') {
                EntityKind::Individual
            } else {
                EntityKind::Entity
            };
            entry(i, kind, &[a, b], Some(1960 + i as i32))
        })
        .collect();
    Index::build(&entries)
}

fn changed_ids() -> Vec<String> {
    (LISTED.len() / 2..LISTED.len())
        .map(|i| format!("un:{i}"))
        .collect()
}

/// The entries of [`changed_ids`] in `index`, as the bound reads them.
fn changed_entries(index: &Index) -> ChangedEntries {
    ChangedEntries::new(index, changed_ids().iter().map(String::as_str))
}

/// Queries made from every listed name: as listed, with a typo, a word dropped, a word
/// added, the words reordered, initials, two words joined and one split; each plain and
/// with a date of birth and a country that agree.
fn queries() -> Vec<Request> {
    let mut names: Vec<(String, usize)> = Vec::new();
    for (i, (a, b)) in LISTED.iter().enumerate() {
        for name in [a, b] {
            let words: Vec<String> = name
                .split([' ', ','])
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            names.extend(variants(&words, i).into_iter().map(|v| (v, i)));
        }
    }
    names.push(("John Smith".to_owned(), 0));
    names.push(("Maria Gonzalez Fernandez".to_owned(), 9));
    let mut out = Vec::new();
    for (name, i) in names {
        out.push(Request::new(name.clone()));
        out.push(Request {
            date_of_birth: Some((1960 + i as i32).to_string()),
            country: Some("IR".to_owned()),
            ..Request::new(name.clone())
        });
        // Facts that conflict: the bound takes the entry's points off as the engine does.
        out.push(Request {
            date_of_birth: Some((1930 + i as i32).to_string()),
            country: Some("GB".to_owned()),
            ..Request::new(name)
        });
    }
    out
}

fn variants(words: &[String], seed: usize) -> Vec<String> {
    let joined = |w: &[String]| w.join(" ");
    let mut out = vec![joined(words)];
    let extra = ["smith", "karimi", "olga", "trading"][seed % 4];
    out.push(format!("{} {extra}", joined(words)));
    let mut typo = words.to_vec();
    if let Some(w) = typo.iter_mut().max_by_key(|w| w.len()) {
        let at = w.len() / 2;
        w.replace_range(at..=at, "e");
    }
    out.push(joined(&typo));
    out.push(format!("{} {extra}", joined(&typo)));
    if words.len() > 1 {
        out.push(joined(&words[1..]));
        let mut reordered = words.to_vec();
        reordered.rotate_left(1);
        out.push(joined(&reordered));
        out.push(format!("{}{} {}", words[0], words[1], joined(&words[2..])));
        let initials: Vec<String> = words[..words.len() - 1]
            .iter()
            .map(|w| w[..1].to_owned())
            .chain(words.last().cloned())
            .collect();
        out.push(joined(&initials));
    }
    if let Some(long) = words.iter().find(|w| w.len() >= 8) {
        let (a, b) = long.split_at(long.len() / 2);
        out.push(
            words
                .iter()
                .map(|w| {
                    if w == long {
                        format!("{a} {b}")
                    } else {
                        w.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    out
}

/// Every (query, score, bound) of a changed entry's hit.
fn changed_hits(index: &Index, changed: &ChangedEntries) -> Vec<(String, u8, u8)> {
    let ids = changed_ids();
    let mut cache = BoundCache::default();
    let mut out = Vec::new();
    for request in queries() {
        let all = Request {
            threshold: Some(0),
            limit: Some(crate::MAX_LIMIT),
            ..request.clone()
        };
        let most = changed.most(index, &all, &mut cache);
        let screening = screen(index, &all).expect("screened");
        for hit in screening.hits.iter().filter(|h| ids.contains(&h.entity_id)) {
            out.push((
                format!("{} {:?}", request.name, request.date_of_birth),
                hit.score,
                most,
            ));
        }
    }
    out
}

#[test]
fn no_changed_entry_scores_above_the_bound() {
    let index = index();
    let changed = changed_entries(&index);
    let hits = changed_hits(&index, &changed);
    assert!(hits.len() > 200, "{}", hits.len());
    let over: Vec<_> = hits
        .iter()
        .filter(|(_, score, most)| score > most)
        .collect();
    assert!(over.is_empty(), "scores above the bound: {over:?}");
}

#[test]
fn every_favorite_a_changed_entry_alerts_at_its_threshold_is_selected() {
    // `reaches` at a threshold leaves out what cannot reach it (names met by initials only,
    // joins that cannot matter): at the score of each changed entry's hit, it must select.
    let index = index();
    let ids = changed_ids();
    let changed = ChangedEntries::new(&index, ids.iter().map(String::as_str));
    let mut cache = BoundCache::default();
    let mut checked = 0;
    for request in queries() {
        let all = Request {
            threshold: Some(0),
            limit: Some(crate::MAX_LIMIT),
            ..request.clone()
        };
        let screening = screen(&index, &all).expect("screened");
        for hit in screening.hits.iter().filter(|h| ids.contains(&h.entity_id)) {
            let at = Request {
                threshold: Some(hit.score),
                ..request.clone()
            };
            assert!(
                changed.reaches(&index, &at, &mut cache),
                "{} {:?} {}: not selected at {}",
                request.name,
                request.date_of_birth,
                hit.entity_id,
                hit.score
            );
            checked += 1;
        }
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn the_bound_is_reached_where_the_listed_name_is_wholly_met() {
    let index = index();
    let changed = changed_entries(&index);
    let hits = changed_hits(&index, &changed);
    // A word added to a listed name: the name is met whole, the query is not, and the
    // score is the query coverage plus the facts' points: the bound exactly.
    let tight: Vec<_> = hits
        .iter()
        .filter(|(q, score, most)| score == most && *score < 100 && q.contains("Some"))
        .collect();
    assert!(tight.len() >= 5, "{hits:?}");
    let tight_fuzzy = hits
        .iter()
        .filter(|(_, score, most)| score == most && *score < 95)
        .count();
    assert!(tight_fuzzy >= 5, "{hits:?}");
}

#[test]
fn unchanged_and_unrelated_names_are_left_out() {
    let index = index();
    let changed = changed_entries(&index);
    let mut cache = BoundCache::default();
    let reaches =
        |name: &str, cache: &mut BoundCache| changed.reaches(&index, &Request::new(name), cache);
    assert!(!reaches("John Smith", &mut cache));
    assert!(!reaches("Vladimir Vladimirovich Putin", &mut cache));
    assert!(!reaches("Hassan Nasrallah", &mut cache));
    assert!(reaches("Farhad Mohammadi", &mut cache));
    assert!(reaches("Pyotr Ivanof", &mut cache));
    let none = ChangedEntries::new(&index, ["un:none"]);
    assert!(none.is_empty());
    assert_eq!(
        none.most(&index, &Request::new("Pyotr Ivanov"), &mut cache),
        0
    );
}

#[test]
fn words_met_in_different_changed_names_do_not_add_up() {
    let index = index();
    let changed = changed_entries(&index);
    let mut cache = BoundCache::default();
    let reaches =
        |name: &str, cache: &mut BoundCache| changed.reaches(&index, &Request::new(name), cache);
    // Each word is met whole by some changed name, never both by one.
    assert!(!reaches("Farhad Ivanov", &mut cache));
    assert!(!reaches("Abdallah Ghorbani", &mut cache));
    assert!(reaches("Farhad Mohamadi", &mut cache));
    assert!(reaches("Abdallah Toseeh", &mut cache));
    assert!(reaches("Mohammadreza Ghorbani", &mut cache));
}

#[test]
fn the_facts_count_as_the_entry_gives_them() {
    let index = index();
    let changed = changed_entries(&index);
    let mut cache = BoundCache::default();
    let mut most = |request: Request| changed.most(&index, &request, &mut cache);
    let plain = most(Request::new("Farhad Mohammadi"));
    // Every changed entry has a date of birth and the nationality IR: both conflict.
    let conflicting = most(Request {
        date_of_birth: Some("1900".to_owned()),
        country: Some("GB".to_owned()),
        ..Request::new("Farhad Mohammadi")
    });
    assert!(plain > 20, "{plain}");
    assert_eq!(conflicting, plain - 12);
    // The nationality named (in any case) agrees, below the cap of 100.
    let partial = most(Request::new("Farhad Mohammadi Karimi"));
    let agreeing = most(Request {
        country: Some("ir".to_owned()),
        ..Request::new("Farhad Mohammadi Karimi")
    });
    assert!((20..98).contains(&partial), "{partial}");
    assert_eq!(agreeing, partial + 2);
    // An entry the type filter refuses is never a hit.
    let bank = |kind| Request {
        kind: Some(kind),
        ..Request::new("National Bank of Cuba")
    };
    assert!(most(bank(KindFilter::Entity)) >= 95);
    assert!(most(bank(KindFilter::Individual)) < 50);
    // A date of birth the engine refuses: the request is not bounded (always screened).
    let refused = Request {
        date_of_birth: Some("not a date".to_owned()),
        ..Request::new("John Smith")
    };
    assert_eq!(most(refused), UNBOUNDED);
}

#[test]
fn the_letters_filters_drop_no_pair_the_similarities_accept() {
    // Words and adjacent words written as one, from the listed names, each with a typo, a
    // letter dropped, two letters swapped and one added: against every other as a target.
    let mut words: Vec<String> = Vec::new();
    for (a, b) in LISTED {
        for name in [a, b] {
            let w: Vec<String> = name
                .split([' ', ','])
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            words.extend(w.iter().cloned());
            words.extend(w.windows(2).map(|p| p.concat()));
        }
    }
    let mut all = words.clone();
    for w in &words {
        let at = w.len() / 2;
        all.push(format!("{}e{}", &w[..at], &w[at + 1..]));
        all.push(format!("{}{}", &w[..at], &w[at + 1..]));
        all.push(format!("{}x{}", &w[..at], &w[at..]));
        let mut swapped = w.clone().into_bytes();
        swapped.swap(at - 1, at);
        all.push(String::from_utf8(swapped).expect("ascii"));
    }
    let mut targets = Targets::default();
    for (n, t) in all.iter().enumerate() {
        targets.push(t, n as u32);
    }
    targets.finish();
    let mut met = 0;
    for whole in &all {
        let mut found: Vec<(u32, f32)> = Vec::new();
        targets.meeting(whole, |n, s| found.push((n, s)));
        let expected: Vec<(u32, f32)> = all
            .iter()
            .enumerate()
            .filter_map(|(n, t)| joined_similarity(whole, t, "").map(|s| (n as u32, s)))
            .collect();
        found.sort_by_key(|f| f.0);
        assert_eq!(found, expected, "{whole}");
        met += expected.len();
    }
    assert!(met > 2 * all.len(), "{met}");
    // The same filter before `QueryToken::farther`'s similarity of long words.
    let mut close = 0;
    for a in &all {
        for b in &all {
            let similar =
                crate::similarity::edit_similarity(a, b) >= crate::similarity::MIN_SIMILARITY;
            if similar {
                close += 1;
                assert!(
                    WordRun::new(0, b, 0..0).within_edits(
                        (letters(a), bigrams(a)),
                        a.len(),
                        1.0 - MIN_SIMILARITY
                    ),
                    "{a} {b}"
                );
            }
        }
    }
    assert!(close > 2 * all.len(), "{close}");
}

#[test]
fn a_target_held_by_several_names_is_compared_once_and_meets_each() {
    // What `meeting` finds is what comparing every (text, name) pushed, in (text, name)
    // order and each once, finds.
    let pushed = [
        ("mohammad", 7),
        ("mohammad", 3),
        ("mohammed", 2),
        ("mohammad", 3),
        ("muhammad", 5),
        ("mohammadi", 1),
        ("mohamad", 9),
        ("mоhammad", 4), // a Cyrillic о: not ASCII, always compared
        ("mahmoud", 6),
    ];
    let mut targets = Targets::default();
    for (text, name) in pushed {
        targets.push(text, name);
    }
    targets.finish();
    for whole in ["mohammad", "muhamad", "mohammadi", "mоhammad"] {
        let mut found = Vec::new();
        targets.meeting(whole, |name, s| found.push((name, s)));
        let mut expected: Vec<(&str, u32)> = pushed.to_vec();
        expected.sort_by_key(|&(text, name)| (text.is_ascii(), text.len(), text, name));
        expected.dedup();
        let expected: Vec<(u32, f32)> = expected
            .into_iter()
            .filter(|(text, _)| text.len().abs_diff(whole.len()) <= 2)
            .filter_map(|(text, name)| Some((name, joined_similarity(whole, text, "")?)))
            .collect();
        assert!(!expected.is_empty(), "{whole}");
        let sorted = |mut v: Vec<(u32, f32)>| {
            v.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            v
        };
        assert_eq!(sorted(found), sorted(expected), "{whole}");
    }
}

#[test]
fn joins_remembered_are_the_joins_met() {
    // Asked again, and after the memory was emptied for room, the same names and
    // similarities in the same order as the targets give them.
    let index = index();
    let changed = changed_entries(&index);
    let texts = [
        "mohammadreza",
        "abdulrahman",
        "mohammadreza",
        "delacruz",
        "vneshecon",
        "abdulrahman",
        "kimjongun",
        "delacruz",
    ];
    let mut joins = JoinsMet {
        kept: 3,
        ..JoinsMet::default()
    };
    let mut met = 0;
    for whole in texts {
        let mut direct = Vec::new();
        changed
            .join_targets
            .meeting(whole, |n, s| direct.push((n, s)));
        joins.make_room();
        // The same text, the same key: the first place it has in `texts`.
        let key = texts.iter().position(|t| *t == whole).unwrap_or(0) as u64;
        let run = joins.run(&changed, (key, whole, ""), &mut String::new());
        assert_eq!(joins.found(run), direct.as_slice(), "{whole}");
        assert!(joins.texts.len() <= 3);
        met += direct.len();
    }
    assert!(met > 4, "{met}");
}

/// Each cache's bound of every name `request` meets at `threshold`, bit for bit.
fn bounds_bits(
    changed: &ChangedEntries,
    index: &Index,
    (request, read): (&Request, &ReadName),
    threshold: u8,
    caches: &mut [BoundCache],
) -> Vec<Vec<(u32, u32)>> {
    caches
        .iter_mut()
        .map(|cache| {
            changed.name_bounds(index, request, read, threshold, cache);
            cache.names.iter().map(|&(n, b)| (n, b.to_bits())).collect()
        })
        .collect()
}

#[test]
fn initials_read_through_or_looked_up_sum_alike() {
    // Each name's bound, bit for bit, whichever way the initials' lists are read.
    let index = index();
    let changed = changed_entries(&index);
    let cache = |forced: Option<bool>| BoundCache {
        initials_read_through: forced,
        ..BoundCache::default()
    };
    let mut caches = [cache(Some(true)), cache(Some(false)), cache(None)];
    let mut initials = 0;
    for request in queries() {
        for threshold in [30, 50, 65, 78, 90] {
            let read = ReadName::of(&request);
            let bounds = bounds_bits(&changed, &index, (&request, &read), threshold, &mut caches);
            assert_eq!(bounds[0], bounds[1], "{} at {threshold}", request.name);
            assert_eq!(bounds[0], bounds[2], "{} at {threshold}", request.name);
            initials += usize::from(read.tokens.iter().any(|t| t.text.len() == 1));
        }
    }
    assert!(initials > 50, "{initials}");
}

#[test]
fn each_listed_word_of_a_first_letter_is_one_run_of_its_names() {
    // The long-word filter reads a run per distinct word: the runs cover each list in
    // order, one per word, with the word's own length and letters.
    let index = index();
    let changed = changed_entries(&index);
    let mut words = 0;
    for (list, runs) in changed.by_first.iter().zip(&changed.words_by_first) {
        let mut next = 0;
        for run in runs {
            assert_eq!(run.names.start, next);
            assert!(run.names.end > run.names.start);
            assert!(list[run.names.clone()].iter().all(|t| t.0 == run.id));
            let text = index.vocab[run.id as usize].text.as_str();
            assert_eq!(run.len as usize, text.len());
            assert_eq!(run.letters, Some((letters(text), bigrams(text))));
            next = run.names.end;
        }
        assert_eq!(next, list.len());
        let ids: HashSet<u32> = list.iter().map(|t| t.0).collect();
        assert_eq!(ids.len(), runs.len());
        words += runs.len();
    }
    assert!(words > 20, "{words}");
}

#[test]
fn bounds_copied_from_another_cache_are_the_bounds_worked_out() {
    // One cache works each token's bound out and offers it; another, sharing with it,
    // copies it: every name's bound bit for bit as a cache of its own works it out.
    let index = index();
    let changed = changed_entries(&index);
    let shared = Arc::new(SharedBounds::default());
    let mut caches = [
        BoundCache::default(),
        BoundCache::sharing(shared.clone()),
        BoundCache::sharing(shared.clone()),
    ];
    for request in queries() {
        for threshold in [30, 65, 78, 90] {
            let read = ReadName::of(&request);
            let bounds = bounds_bits(&changed, &index, (&request, &read), threshold, &mut caches);
            assert_eq!(bounds[0], bounds[1], "{} at {threshold}", request.name);
            assert_eq!(bounds[0], bounds[2], "{} at {threshold}", request.name);
        }
    }
    // The second sharing cache met only tokens the first had offered.
    let offered = shared.tokens.read().expect("bounds").len();
    assert_eq!(offered, caches[1].bounds.len());
    assert_eq!(caches[2].bounds.len(), offered);
    assert!(offered > 100, "{offered}");
    for (at, copied) in caches[2].bounds.iter().enumerate() {
        let (own, theirs) = (caches[1].kept(at as u32), caches[2].kept(at as u32));
        assert_eq!(own.singles, theirs.singles);
        assert_eq!(own.lights, theirs.lights);
        assert_eq!(copied.best.to_bits(), own.bound.best.to_bits());
        assert_eq!(copied.light_most.to_bits(), own.bound.light_most.to_bits());
    }
}

#[test]
fn targets_past_a_buckets_first_64_are_met_as_one_by_one() {
    // 300 targets of one first letter and length (the filter reads them 64 at a time),
    // each asked for with a letter changed: met as comparing every target meets them.
    let target = |i: usize| -> String {
        let letter = |k: usize| char::from(b'a' + ((i * 7 + k * 13 + i / (k + 1)) % 26) as u8);
        std::iter::once('m').chain((0..9).map(letter)).collect()
    };
    let all: Vec<String> = (0..300).map(target).collect();
    let mut targets = Targets::default();
    for (n, t) in all.iter().enumerate() {
        targets.push(t, n as u32);
    }
    targets.finish();
    let mut late = 0;
    for t in &all {
        let whole = format!("{}e{}", &t[..5], &t[6..]);
        let mut found: Vec<(u32, f32)> = Vec::new();
        targets.meeting(&whole, |n, s| found.push((n, s)));
        found.sort_by_key(|f| f.0);
        let expected: Vec<(u32, f32)> = all
            .iter()
            .enumerate()
            .filter_map(|(n, t)| joined_similarity(&whole, t, "").map(|s| (n as u32, s)))
            .collect();
        assert_eq!(found, expected, "{whole}");
        late += expected.iter().filter(|f| f.0 >= 64).count();
    }
    assert!(late > 200, "{late}");
}

proptest::proptest! {
    #[test]
    fn the_near_mask_is_the_filters_target_by_target(
        own in proptest::prelude::any::<(u64, u64)>(),
        targets in proptest::collection::vec(proptest::prelude::any::<(u64, u64)>(), 0..=64),
        allowed in 0u32..8,
    ) {
        // Targets near `own` made more likely: a few of its bits flipped.
        let targets: Vec<(u64, u64)> = targets
            .iter()
            .map(|&(a, b)| (own.0 ^ (a & a >> 7 & a >> 13), own.1 ^ (b & b >> 5 & b >> 11)))
            .collect();
        let (letters, bigrams): (Vec<u64>, Vec<u64>) = targets.iter().copied().unzip();
        let expected = targets.iter().enumerate().fold(0u64, |near, (at, &(l, b))| {
            let within = apart(own.0, l) <= allowed && bigrams_apart(own.1, b) <= allowed;
            near | u64::from(within) << at
        });
        proptest::prop_assert_eq!(near_mask(own, &letters, &bigrams, allowed), expected);
    }
}
