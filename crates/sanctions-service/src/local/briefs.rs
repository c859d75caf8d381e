//! Risk briefs in the local service: list updates briefed on demand, feeds read by
//! `refresh`, the latest-first listing.

use std::time::Duration;

use super::convert::paged;
use super::jobs::{BRIEF_LEASE, Claim};
use super::{LocalService, new_id};
use crate::ServiceError;
use crate::api::briefs::{Brief, BriefQuery, FeedReport, RefreshReport};
use crate::api::screenings::Page;
use crate::briefs;
use crate::config::FeedConfig;
use crate::model::{ChangeKind, ListCode};
use crate::store::{BriefFilter, BriefRecord};

/// Default and largest page.
const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 100;

impl LocalService {
    /// Makes the briefs of list updates that have none yet (blocking). Returns how many.
    /// Each update's brief is a job claimed in the store: an update another process is
    /// briefing is left to it (and taken over if that process dies and its lease runs out).
    fn brief_updates(&self) -> Result<usize, ServiceError> {
        let todo = self.repo().updates_without_brief(100)?;
        let mut made = 0;
        for (id, code) in todo {
            // A list this version does not know (a newer one's) is left unbriefed.
            if code.parse::<ListCode>().is_err() {
                continue;
            }
            let job = format!("brief:update:{id}");
            if self.claim_job(&job, BRIEF_LEASE)? == Claim::Held {
                continue;
            }
            // Another process may have briefed it between the listing and the claim.
            let stored = match self
                .repo()
                .brief_stored("list_update", &format!("update:{id}"))
            {
                Ok(true) => Ok(0),
                Ok(false) => self.brief_update(id),
                Err(e) => Err(e.into()),
            };
            self.release_job(&job)?;
            made += stored?;
        }
        Ok(made)
    }

    /// Makes and stores the brief of list update `id` (blocking); returns 1 when stored.
    fn brief_update(&self, id: i64) -> Result<usize, ServiceError> {
        let repo = self.repo();
        let Some(update) = repo.update(id)? else {
            return Ok(0);
        };
        let (mut added, mut removed, mut changed) = (Vec::new(), Vec::new(), Vec::new());
        for (kind, entity) in repo.changed_entities(id)? {
            match kind {
                ChangeKind::Added => added.push(entity),
                ChangeKind::Changed => changed.push(entity),
                ChangeKind::Removed => removed.push(entity),
            }
        }
        let brief = briefs::update::brief(new_id("brf_"), &update, &added, &removed, &changed);
        let stored = repo.insert_briefs(&[brief])?;
        tracing::info!(update_id = id, owner = self.job_owner(), "brief made");
        Ok(stored)
    }

    pub(crate) async fn briefs_local(
        &self,
        query: BriefQuery,
    ) -> Result<Page<Brief>, ServiceError> {
        let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 || limit > MAX_LIMIT {
            return Err(ServiceError::validation(
                "limit",
                format!("must be 1 to {MAX_LIMIT}"),
            ));
        }
        let since = query.since.as_deref().map(parse_since).transpose()?;
        // A cursor is a brief's id: anything else is refused as on every other listing.
        if let Some(cursor) = &query.cursor {
            super::review::check_id("cursor", cursor, "brf_")?;
        }
        if let Some(list) = &query.list {
            list.parse::<ListCode>().map_err(|_| {
                let list = crate::error::quoted(list);
                ServiceError::validation("list", format!("unknown list {list:?}"))
            })?;
        }
        check_search(&query)?;
        self.blocking(move |this| {
            this.brief_updates()?;
            let filter = BriefFilter {
                list: query.list,
                country: query.country,
                source: None,
                since,
                q: query.q,
                after: query.cursor,
                limit: limit + 1,
            };
            let briefs = this.repo().briefs(&filter)?;
            let (items, next_cursor) = paged(briefs, limit, |b| &b.id, to_wire);
            Ok(Page { items, next_cursor })
        })
        .await
    }

    pub(crate) async fn brief_local(&self, id: String) -> Result<Brief, ServiceError> {
        self.blocking(move |this| {
            this.brief_updates()?;
            let brief = this.repo().brief(&id)?;
            brief
                .map(to_wire)
                .ok_or_else(|| ServiceError::not_found("brief", &id))
        })
        .await
    }

    pub(crate) async fn refresh_briefs_local(&self) -> Result<RefreshReport, ServiceError> {
        let list_updates = self.blocking(|this| this.brief_updates()).await?;
        let feeds = self.extensions().briefs.feeds;
        let feeds = self.read_feeds(&feeds).await?;
        Ok(RefreshReport {
            list_updates,
            feeds,
        })
    }

    /// Reads `feeds` one after the other, storing their new items. A feed that fails is
    /// reported in its [`FeedReport`] (and logged), never an error of the whole; only the
    /// store failing is.
    pub(crate) async fn read_feeds(
        &self,
        feeds: &[FeedConfig],
    ) -> Result<Vec<FeedReport>, ServiceError> {
        let config = self.extensions().briefs;
        let mut reports = Vec::new();
        for feed in feeds {
            let fetched = briefs::feed::fetch(
                feed,
                Duration::from_secs(config.timeout_secs.clamp(1, 300)),
                config.max_feed_bytes,
                config.max_items.clamp(1, 1000),
                &|| new_id("brf_"),
            )
            .await;
            let report = match fetched {
                Ok(items) => {
                    let count = items.len();
                    let new = self
                        .blocking(move |this| Ok(this.repo().insert_briefs(&items)?))
                        .await?;
                    tracing::info!(feed = %feed.name, items = count, new, "feed read");
                    FeedReport {
                        name: feed.name.clone(),
                        items: count,
                        new,
                        error: None,
                    }
                }
                Err(error) => {
                    tracing::warn!(feed = %feed.name, %error, "feed not read; retrying later");
                    FeedReport {
                        name: feed.name.clone(),
                        items: 0,
                        new: 0,
                        error: Some(error),
                    }
                }
            };
            self.remember_feed(&report);
            reports.push(report);
        }
        Ok(reports)
    }

    /// The outcome of the last read of each feed by this process (by `briefs refresh` or
    /// the background refresh), in the order first read: for a status line or the Briefs
    /// tab to say which feeds fail.
    pub fn feed_reports(&self) -> Vec<FeedReport> {
        self.inner
            .feeds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn remember_feed(&self, report: &FeedReport) {
        let mut feeds = self.inner.feeds.lock().unwrap_or_else(|p| p.into_inner());
        match feeds.iter_mut().find(|f| f.name == report.name) {
            Some(slot) => *slot = report.clone(),
            None => feeds.push(report.clone()),
        }
    }
}

fn parse_since(text: &str) -> Result<jiff::Timestamp, ServiceError> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts);
    }
    text.parse::<jiff::civil::Date>()
        .ok()
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp())
        .ok_or_else(|| {
            ServiceError::validation("since", "expected YYYY-MM-DD or an RFC 3339 instant")
        })
}

fn to_wire(b: BriefRecord) -> Brief {
    Brief {
        id: b.id,
        title: b.title,
        summary: b.summary,
        body: b.body,
        source: b.source,
        url: b.url,
        published_at: b.published_at.to_string(),
        lists: b.lists,
        countries: b.countries,
        entity_ids: b.entity_ids,
        severity: b.severity,
    }
}

/// Most characters of a briefs search (`q`): each word is looked for in every brief.
pub const MAX_SEARCH_CHARS: usize = 200;

/// A briefs query's `q` and `country` within their bounds: a search of at most
/// [`MAX_SEARCH_CHARS`] characters, a country of two letters (ISO 3166-1 alpha-2).
fn check_search(query: &BriefQuery) -> Result<(), ServiceError> {
    if query
        .q
        .as_ref()
        .is_some_and(|q| q.chars().count() > MAX_SEARCH_CHARS)
    {
        let why = format!("is longer than {MAX_SEARCH_CHARS} characters");
        return Err(ServiceError::validation("q", why));
    }
    match &query.country {
        Some(c) if !(c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic())) => {
            let why = format!(
                "{:?} is not a two-letter country code",
                crate::error::quoted(c)
            );
            Err(ServiceError::validation("country", why))
        }
        _ => Ok(()),
    }
}
