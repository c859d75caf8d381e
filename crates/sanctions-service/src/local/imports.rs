//! Lists and entries through the service, and list imports (local only: a remote client asks
//! the server's operator). Every import is followed by monitoring: `list.updated` alerts and
//! a re-screen of the watchlist.

use std::path::PathBuf;
use std::sync::Arc;

use super::LocalService;
use crate::ServiceError;
use crate::api::entities::EntityDetail;
use crate::api::favorites::RescreenSummary;
use crate::api::lists::{EntityRecord, ListInfo, UpdateInfo};
use crate::ingest::{self, ImportOptions, ListOutcome};
use crate::maintenance::{self, ImportError, Imported, ListsJob, Progress, Refreshed, Work};
use crate::model::ListCode;

impl LocalService {
    pub(crate) async fn lists_local(&self) -> Result<Vec<ListInfo>, ServiceError> {
        self.blocking(|this| {
            let repo = this.repo();
            let versions = repo.list_versions()?;
            let damage = this.damaged_lists()?;
            Ok(repo
                .lists()?
                .into_iter()
                .map(|mut l| {
                    if damage.iter().any(|d| d.list == l.list) {
                        l.count = 0; // unavailable until re-imported or restored
                    }
                    l
                })
                .map(|l| ListInfo {
                    list_code: l.list,
                    list_name: l.list.display_name().to_owned(),
                    count: l.count,
                    updated_at: l.updated_at,
                    published: l.published,
                    update_id: versions.get(&l.list).copied(),
                })
                .collect())
        })
        .await
    }

    pub(crate) async fn list_updates_local(
        &self,
        list: ListCode,
        limit: usize,
    ) -> Result<Vec<UpdateInfo>, ServiceError> {
        if limit == 0 || limit > 1000 {
            return Err(ServiceError::validation(
                "limit",
                "must be between 1 and 1000",
            ));
        }
        self.blocking(move |this| {
            Ok(this
                .repo()
                .updates(list, limit)?
                .into_iter()
                .map(UpdateInfo::from)
                .collect())
        })
        .await
    }

    pub(crate) async fn entity_local(
        &self,
        entity_id: String,
        at: Option<i64>,
    ) -> Result<EntityDetail, ServiceError> {
        let (code, _) = entity_id
            .split_once(':')
            .ok_or_else(|| ServiceError::not_found("entity", &entity_id))?;
        if code.parse::<ListCode>().is_err() || entity_id.len() > super::review::MAX_ENTITY_ID_BYTES
        {
            return Err(ServiceError::not_found("entity", &entity_id));
        }
        self.blocking(move |this| {
            let repo = this.repo();
            let entity = match at {
                None => repo.entity(&entity_id)?,
                Some(update) => {
                    if !repo.update_exists(update)? {
                        return Err(ServiceError::not_found("list update", &update.to_string()));
                    }
                    repo.entity_at(&entity_id, update)?
                }
            };
            let history = repo.entity_history(&entity_id)?;
            let entity = entity.ok_or_else(|| match at {
                Some(update) if !history.is_empty() => ServiceError::NotFound {
                    what: "entity".to_owned(),
                    id: format!("{entity_id} at update {update} (it was not listed then)"),
                },
                _ => ServiceError::not_found("entity", &entity_id),
            })?;
            Ok(EntityDetail {
                record: EntityRecord::from(entity),
                at_update: at,
                history,
            })
        })
        .await
    }

    /// Imports the official files under `dir` (one folder per list code), then monitors:
    /// alerts for the lists that changed and a re-screen of the watchlist.
    pub async fn import_lists(
        &self,
        dir: PathBuf,
        selected: Vec<ListCode>,
        options: ImportOptions,
    ) -> Result<(Vec<ListOutcome>, RescreenSummary), ServiceError> {
        let outcomes = self
            .blocking(move |this| {
                let repo = this.repo();
                let imported =
                    ingest::import_dir_with(&mut *repo.list_sink(), &dir, &selected, &options);
                imported.map_err(|e| ServiceError::Invalid(e.to_string()))
            })
            .await?;
        let summary = self.monitor().await?;
        Ok((outcomes, summary))
    }

    /// `lists update` on a store shared by several processes (PostgreSQL): downloads the
    /// selected lists into `downloads/<code>/` (a cache: its validators make the next
    /// requests conditional), imports each one whose files changed through the store's
    /// per-list import lock, then monitors. A publication another process imported while
    /// this one downloaded it is not imported again. The store's calls block: run it on a
    /// multi-threaded runtime (they step off it with `block_in_place`).
    pub async fn update_shared_lists(
        &self,
        fetcher: &crate::fetch::Fetcher,
        downloads: &std::path::Path,
        selected: &[ListCode],
        options: &ImportOptions,
    ) -> Result<(Vec<ListOutcome>, RescreenSummary), ServiceError> {
        let repo = self.repo();
        if !repo.is_shared() {
            return Err(ServiceError::Unavailable(
                "this store is a data folder's: update it with `lists update` there".into(),
            ));
        }
        let mut sink = repo.list_sink();
        let outcomes =
            ingest::update_lists_with(&mut *sink, fetcher, downloads, selected, options).await;
        let summary = self.monitor().await?;
        Ok((outcomes, summary))
    }

    /// `lists import` and `lists update` as every face runs them: the data folder's write
    /// lock (`Progress::Waiting` while another import holds it), the import or update of
    /// its database with the check that follows it (`Store::integrity_after_import`), then,
    /// still under the lock, the screening index of the new lists (kept for the processes
    /// that screen next) and the watchlist re-screen (`list.updated` alerts). Each step is
    /// reported to `progress` as it starts. On a shared store (PostgreSQL) an import or an
    /// update goes through the store's own per-list lock instead
    /// ([`LocalService::update_shared_lists`]).
    pub async fn refresh_lists(
        &self,
        job: ListsJob,
        progress: Arc<dyn Fn(Progress) + Send + Sync>,
    ) -> Result<Refreshed, ImportError> {
        if self.repository().is_shared() {
            return self.refresh_shared(job, progress.as_ref()).await;
        }
        let step = Arc::clone(&progress);
        let (lock, imported) = tokio::task::spawn_blocking(move || {
            let lock = maintenance::lock_data_dir(&job.data_dir, || step(Progress::Waiting))?;
            maintenance::run_job(&job, step.as_ref()).map(|imported| (lock, imported))
        })
        .await
        .map_err(|e| ServiceError::Unavailable(format!("the import stopped: {e}")))??;
        progress(Progress::Monitoring);
        if let Err(e) = self.prepare_index().await {
            tracing::warn!("the screening index was not prepared: {e}");
        }
        let watchlist = self.monitor().await;
        drop(lock);
        Ok(Refreshed {
            imported,
            watchlist,
        })
    }

    /// [`LocalService::refresh_lists`] on a shared store.
    async fn refresh_shared(
        &self,
        job: ListsJob,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<Refreshed, ImportError> {
        let (outcomes, summary) = match job.work {
            Work::Import(dir) => {
                progress(Progress::Importing);
                self.import_lists(dir, job.selected, job.options).await?
            }
            Work::Update(fetcher) => {
                progress(Progress::Downloading);
                let downloads = job.data_dir.join("downloads");
                self.update_shared_lists(&fetcher, &downloads, &job.selected, &job.options)
                    .await?
            }
        };
        Ok(Refreshed {
            imported: Imported {
                outcomes,
                damage: None,
            },
            watchlist: Ok(summary),
        })
    }
}
