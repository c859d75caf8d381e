//! `sanctions screen`, and what `screen` and `batch` share: checking coverage before
//! screening (refusing partial coverage unless `--allow-partial`) and building the index.

use std::collections::HashMap;
use std::io::Write;

use color_eyre::eyre::Result;

use super::exit::{self, Exit};
use super::lists::NO_DATA_HINT;
use super::matches;
use super::output::{print_json, warn};
use super::{Context, ScreenArgs, ScreenOptions};
use crate::api::coverage::Coverage;
use crate::api::screening::{KindFilter, ScreenRequest};
use crate::batch::check_name;
use crate::engine::{self, Index};
use crate::model::{EntityKind, EntityNames, ListCode};
use crate::service::mapping;
use crate::store::Store;

/// What a screening runs on: the store, the index over it and the coverage of the request.
pub struct Prepared {
    pub store: Store,
    pub index: Index,
    coverage: Coverage,
    searchable: Vec<ListCode>,
    include_ended: bool,
}

impl Prepared {
    /// Checks what the requested lists hold, refuses partial coverage (exit 4) unless
    /// `--allow-partial`, refuses an empty store (exit 3), and builds the index.
    pub fn new(ctx: &Context, options: &ScreenOptions, json: bool) -> Result<Prepared> {
        let store = ctx.open_read()?;
        let summaries = store.lists()?;
        if summaries.iter().all(|s| s.count == 0) {
            return Err(exit::data(NO_DATA_HINT));
        }
        let coverage = crate::coverage::build(
            &summaries,
            &options.lists,
            options.max_age,
            jiff::Timestamp::now(),
        );
        let searchable = crate::coverage::searchable(&coverage);
        if !coverage.missing.is_empty() {
            let names = list_names(&coverage.missing);
            if searchable.is_empty() {
                return Err(exit::partial(format!(
                    "none of the requested lists has data ({names}); import them with `sanctions lists import DIR` or `sanctions lists update`"
                )));
            }
            if !options.allow_partial {
                return Err(exit::partial(format!(
                    "not screened: {names} {} no data, so a \"no match\" would not be true of {}. Import {} (`sanctions lists import DIR` or `lists update`), name the lists to check with --lists, or pass --allow-partial to screen against the others",
                    if coverage.missing.len() == 1 {
                        "has"
                    } else {
                        "have"
                    },
                    if coverage.missing.len() == 1 {
                        "it"
                    } else {
                        "them"
                    },
                    if coverage.missing.len() == 1 {
                        "it"
                    } else {
                        "them"
                    },
                )));
            }
            warn(
                &format!("partial coverage: not checked against {names} (no data)"),
                json,
            );
        }
        if !coverage.stale.is_empty() {
            warn(
                &format!(
                    "stale: {} not updated for more than {} days (`sanctions lists update`)",
                    list_names(&coverage.stale),
                    coverage.max_age_days
                ),
                json,
            );
        }
        let mut names = store.entity_names()?;
        if !ctx.config.screening.weak_aliases {
            names.iter_mut().for_each(EntityNames::drop_weak_aliases);
        }
        let started = std::time::Instant::now();
        let index = Index::build(&names);
        tracing::info!(
            entities = index.entity_count(),
            names = index.name_count(),
            ms = started.elapsed().as_millis() as u64,
            "screening index built"
        );
        Ok(Prepared {
            store,
            index,
            coverage,
            searchable,
            include_ended: options.include_ended,
        })
    }

    /// The coverage of a screening of type `kind`, with what was really searched.
    pub fn coverage(&self, kind: Option<KindFilter>) -> Coverage {
        let today = crate::model::today_utc();
        let searched = self.index.count_entries(|list, k, ends| {
            self.searchable.contains(&list)
                && (self.include_ended || !crate::model::listing_ended(ends, &today))
                && match kind {
                    None => true,
                    Some(KindFilter::Individual) => k == EntityKind::Individual,
                    Some(KindFilter::Entity) => k != EntityKind::Individual,
                }
        });
        Coverage {
            entries_searched: searched as u64,
            ..self.coverage.clone()
        }
    }

    /// The request for `options` (name empty), limited to the lists that hold data. The
    /// engine is asked for more entries than `--limit` so that the limit counts people and
    /// organisations, not their entries on several lists.
    pub fn template(&self, options: &ScreenOptions) -> ScreenRequest {
        ScreenRequest {
            name: String::new(),
            kind: options.kind.map(Into::into),
            threshold: Some(options.threshold),
            limit: Some((usize::from(options.limit) * ListCode::ALL.len()).min(engine::MAX_LIMIT)),
            lists: Some(self.searchable.clone()),
            include_ended: options.include_ended,
            date_of_birth: None,
            country: None,
        }
    }
}

/// `OFAC SDN (ofac_sdn), EU Consolidated (eu)`.
pub fn list_names(lists: &[ListCode]) -> String {
    lists
        .iter()
        .map(|l| format!("{} ({l})", l.display_name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Screens one name and prints the matches.
pub fn run(ctx: &Context, args: ScreenArgs, json: bool) -> Result<Exit> {
    let name = args.name.join(" ");
    let kind: Option<KindFilter> = args.options.kind.map(Into::into);
    check_name(&name, kind).map_err(|e| exit::usage(format!("cannot screen: {e}")))?;
    let prepared = Prepared::new(ctx, &args.options, json)?;
    let mut request = prepared.template(&args.options);
    request.name = name;
    request.date_of_birth = args.dob;
    request.country = args.country;
    let screening = engine::screen(&prepared.index, &mapping::request(&request))
        .map_err(|e| exit::usage(e.to_string()))?;
    let mut result = mapping::result(&request.name, screening);
    result.coverage = Some(prepared.coverage(kind));
    // Group one person's entries across lists; keep the best `--limit` groups.
    let ids: Vec<String> = result.results.iter().map(|m| m.entity_id.clone()).collect();
    let mut entities = HashMap::new();
    for id in ids {
        if let Some(e) = prepared.store.entity(&id)? {
            entities.insert(id, e);
        }
    }
    crate::grouping::assign(&mut result.results, &entities);
    let limit = u32::from(args.options.limit);
    result
        .results
        .retain(|m| m.group.is_some_and(|g| g <= limit));
    let code = if args.options.fail_on_match && result.total_matches > 0 {
        Exit::MatchFound
    } else {
        Exit::Success
    };
    if json {
        print_json(&result)?;
        return Ok(code);
    }
    let mut out = std::io::stdout().lock();
    matches::print_result(&mut out, &result, args.options.threshold, &entities)?;
    out.flush()?;
    Ok(code)
}
