//! What a screening answer carries besides the engine's matches, filled in by the service so
//! that every face (CLI, UI, server, remote client) shows the same: the `coverage` (every
//! requested list with its version, what was really searched) and the `group` of each match
//! (one person's or organisation's entries on several lists), `limit` counting groups.
//!
//! What an answer needs besides the engine's matches is kept with the index it was screened
//! on ([`Answers`]): the lists' snapshot for the coverage, the matched entries' grouping facts and
//! the counts of entries searched, so that an answer reads nothing from the store once they are
//! known. All of it is dropped with the index when a list update lands.
//!
//! An entry's grouping facts are worked out the first time it is met, from the entry as the
//! index holds it (list, type, primary name, dates of birth, countries) and its names as
//! stored, kept with the index (read when it was built, and in its file beside it:
//! [`Answers::read_back`]); an entry not among them, from its record in the store.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::Loaded;
use crate::ServiceError;
use crate::api::coverage::Coverage;
use crate::api::screening::{KindFilter, Match, ScreenRequest, ScreenResult};
use crate::coverage::DEFAULT_MAX_AGE_DAYS;
use crate::engine::{self, Hit, ScreenError};
use crate::grouping::Facts;
use crate::model::{EntityKind, ListCode};
use crate::store::{ListSummary, Repository, StoredNames};
use crate::{grouping, mapping};

/// The engine request of `request`: asks for enough entries that `limit` can count people
/// and organisations, not their entries on several lists.
pub(crate) fn widened(request: &ScreenRequest) -> engine::Request {
    let limit = request.limit.unwrap_or(engine::DEFAULT_LIMIT);
    engine::Request {
        limit: Some((limit * ListCode::ALL.len()).min(engine::MAX_LIMIT)),
        ..mapping::request(request)
    }
}

/// What the answers screened on one index share: read once, kept with the index.
#[derive(Default)]
pub(crate) struct Answers {
    /// The lists' counts and versions when the index was built: every answer's coverage.
    pub lists: Vec<ListSummary>,
    /// What grouping compares of each entry of the index met so far, by its position in
    /// the index (`None` inside: not in the store), worked out once (not the record itself:
    /// it is several times larger).
    entities: Box<[OnceLock<Option<Box<Facts>>>]>,
    /// Entries searched, by (lists searched, include ended, kind filter, today).
    searched: Mutex<HashMap<SearchedKey, u64>>,
    /// Every entry's names as stored when the index was built (of every list, withheld or
    /// not), which the grouping compares.
    names: Option<StoredNames>,
}

/// The lists searched (sorted), whether ended listings count, the kind filter (0 both, 1
/// individuals, 2 entities) and today's date (listings end by date).
type SearchedKey = (Vec<ListCode>, bool, u8, String);

/// Where the grouping finds an entry's names: as kept with the index, else in the entry's
/// record in the store.
pub(crate) struct Names<'a> {
    pub repo: &'a dyn Repository,
    pub read_back: Option<&'a StoredNames>,
}

impl Answers {
    /// The answers' share of an index of `entities` entries whose lists are `lists`, built
    /// from entries whose names as stored are `names`.
    pub(crate) fn new(
        lists: Vec<ListSummary>,
        entities: usize,
        names: Option<StoredNames>,
    ) -> Answers {
        Answers {
            lists,
            entities: (0..entities).map(|_| OnceLock::new()).collect(),
            names,
            ..Answers::default()
        }
    }

    /// The names as stored of the entries the index was built from, when known.
    pub(crate) fn read_back(&self) -> Option<&StoredNames> {
        self.names.as_ref()
    }

    /// The grouping facts of the entry of `hit`, worked out the first time it is met.
    fn facts(&self, names: &Names, hit: &Hit) -> Result<Option<&Facts>, ServiceError> {
        // Sized from the index the hit comes from: every entry has its place.
        let Some(slot) = self.entities.get(hit.entity as usize) else {
            return Ok(None);
        };
        if let Some(known) = slot.get() {
            return Ok(known.as_deref());
        }
        let found = facts_of(names, hit)?.map(Box::new);
        // Another thread may have worked it out meanwhile: the same facts.
        Ok(slot.get_or_init(|| found).as_deref())
    }
}

/// The grouping facts of the entry of `hit`: from its names read back, else its record.
fn facts_of<'a>(names: &Names<'a>, hit: &Hit) -> Result<Option<Facts>, ServiceError> {
    // The names read back are in the order the index was built from: the hit's position
    // is most often the entry's place among them too.
    let stored = |n: &'a StoredNames| n.names_near(hit.entity as usize, &hit.entity_id);
    if let Some(all) = names.read_back.and_then(stored) {
        return Ok(Some(Facts::new(
            hit.list,
            hit.kind,
            &hit.primary_name,
            all,
            &hit.facts.birth_dates,
            hit.facts.nationalities.iter().chain(&hit.facts.countries),
        )));
    }
    Ok(names.repo.entity(&hit.entity_id)?.map(|e| Facts::of(&e)))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The answer to `request` on `loaded`: the engine's matches (more entries than `limit`, see
/// [`widened`]) grouped, the best `request.limit` groups kept, with `coverage` ([`coverage`]
/// of the same request: a batch works it out once for its rows). Only the matches kept are
/// put in wire form.
pub(crate) fn answer(
    names: &Names,
    loaded: &Loaded,
    request: &ScreenRequest,
    coverage: Coverage,
) -> Result<ScreenResult, ServiceError> {
    let screening = engine::screen(&loaded.index, &widened(request)).map_err(engine_error)?;
    let groups = groups(names, loaded, &screening.hits)?;
    let limit = u32::try_from(request.limit.unwrap_or(engine::DEFAULT_LIMIT)).unwrap_or(u32::MAX);
    let results = screening
        .hits
        .into_iter()
        .zip(groups)
        .filter(|&(_, group)| group <= limit)
        .map(|(hit, group)| Match {
            group: Some(group),
            ..mapping::match_of(hit)
        })
        .collect();
    Ok(ScreenResult {
        query: request.name.clone(),
        total_matches: screening.total,
        results,
        coverage: Some(coverage),
    })
}

/// The group of each of `hits` ([`grouping::assign`]). Entries of one list never group:
/// matches all of one list are each a group of their own, in rank order, and their facts are
/// not worked out.
fn groups(names: &Names, loaded: &Loaded, hits: &[Hit]) -> Result<Vec<u32>, ServiceError> {
    if hits.windows(2).all(|pair| pair[0].list == pair[1].list) {
        return Ok((1..=hits.len() as u32).collect());
    }
    let facts = hits
        .iter()
        .map(|hit| loaded.answers.facts(names, hit))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(grouping::assign(&facts))
}

/// The coverage of an answer to `request`: the requested lists (all eight when none), each
/// with its version and status, from the lists' snapshot taken with the index (no store
/// read), and the entries really searched.
pub(crate) fn coverage(loaded: &Loaded, request: &ScreenRequest) -> Coverage {
    let answers = &loaded.answers;
    let requested = request.lists.clone().unwrap_or_default();
    let mut coverage = crate::coverage::build(
        &answers.lists,
        &requested,
        DEFAULT_MAX_AGE_DAYS,
        jiff::Timestamp::now(),
    );
    let mut searchable = crate::coverage::searchable(&coverage);
    searchable.sort();
    searchable.dedup();
    let kind = match request.kind {
        None => 0,
        Some(KindFilter::Individual) => 1,
        Some(KindFilter::Entity) => 2,
    };
    let key = (
        searchable,
        request.include_ended,
        kind,
        crate::model::today_utc(),
    );
    let known = lock(&answers.searched).get(&key).copied();
    coverage.entries_searched = match known {
        Some(n) => n,
        None => {
            let n = entries_searched(loaded, request, &key);
            lock(&answers.searched).insert(key, n);
            n
        }
    };
    coverage
}

/// The entries of the index that a screening of `request` searches.
fn entries_searched(loaded: &Loaded, request: &ScreenRequest, key: &SearchedKey) -> u64 {
    let (searchable, include_ended, _, today) = key;
    loaded.index.count_entries(|list, kind, ends| {
        searchable.contains(&list)
            && (*include_ended || !crate::model::listing_ended(ends, today))
            && match request.kind {
                None => true,
                Some(KindFilter::Individual) => kind == EntityKind::Individual,
                Some(KindFilter::Entity) => kind != EntityKind::Individual,
            }
    }) as u64
}

/// The error of an engine refusal.
pub(crate) fn engine_error(error: ScreenError) -> ServiceError {
    let field = match error {
        ScreenError::EmptyName | ScreenError::NameTooLong => "name",
        ScreenError::Threshold(_) => "threshold",
        ScreenError::Limit(_) => "limit",
        ScreenError::DateOfBirth(_) => "date_of_birth",
        ScreenError::Country(_) => "country",
    };
    ServiceError::validation(field, error.to_string())
}
