//! The effect runner: performs [`Effect`]s against the [`Service`] on tokio and sends each
//! result back as an [`Action`] tagged with its request id. A newer read of the same slot
//! aborts the older one (writes are never aborted once sent).

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::AbortHandle;

use super::action::{Action, Call, Effect, Outcome, Slot};
use crate::api::batch::{BatchName, BatchRequest};
use crate::api::screenings::ScreeningQuery;
use crate::service::Service;

/// Builds the screening index in the background (blocking work), or says why it cannot.
pub type Warmup = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// Largest batch file read (the batch reader's own limit applies too).
const MAX_FILE: u64 = 64 * 1024 * 1024;

/// The pause in typing after which results as you type are fetched.
pub const DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(250);

/// Runs effects; results arrive on the channel given to [`Runner::new`].
pub struct Runner {
    service: Arc<dyn Service>,
    tx: UnboundedSender<Action>,
    reads: HashMap<Slot, AbortHandle>,
    warmup: Option<Warmup>,
    lists_tool: Option<super::lists_job::ListsTool>,
}

impl Runner {
    /// A runner calling `service`, sending results to `tx`.
    pub fn new(
        service: Arc<dyn Service>,
        tx: UnboundedSender<Action>,
        warmup: Option<Warmup>,
    ) -> Runner {
        Runner {
            service,
            tx,
            reads: HashMap::new(),
            warmup,
            lists_tool: None,
        }
    }

    /// Lets the Lists tab update and import the lists (local mode only).
    pub fn set_lists_tool(&mut self, tool: super::lists_job::ListsTool) {
        self.lists_tool = Some(tool);
    }

    fn run_lists(&self, id: super::action::ReqId, work: super::lists_job::ListsWork) {
        let tx = self.tx.clone();
        let Some(tool) = self.lists_tool.clone() else {
            let why = format!(
                "{} is not available here: run `sanctions {}` on the machine holding the data",
                work.name(),
                work.name()
            );
            let _ = tx.send(Action::Done(id, Box::new(Outcome::ListsRan(Err(why)))));
            return;
        };
        tokio::spawn(async move {
            let progress = {
                let tx = tx.clone();
                move |step| {
                    let _ = tx.send(Action::ListsProgress(step));
                }
            };
            let result = super::lists_job::run(&tool, &work, progress).await;
            let _ = tx.send(Action::Done(id, Box::new(Outcome::ListsRan(result))));
        });
    }

    /// Screens and stores a batch through the one batch orchestration, as `sanctions batch
    /// --store` does (500 names per service call), sending its progress as it goes.
    fn run_batch(&self, id: super::action::ReqId, request: BatchRequest) {
        let tx = self.tx.clone();
        let service = self.service.clone();
        tokio::spawn(async move {
            let items = crate::batch::request_items(&request);
            let template = crate::batch::request_template(&request);
            let checked = crate::batch::unchecked();
            let plan = crate::batch::Plan {
                template: &template,
                checked: &checked,
                mode: crate::batch::Mode::Store,
            };
            let progress = |rows| {
                let _ = tx.send(Action::BatchProgress(rows));
            };
            let result = crate::batch::screen_items(&service, &items, &plan, &progress).await;
            let outcome = Outcome::Batch(result.map(crate::batch::Screened::response));
            let _ = tx.send(Action::Done(id, Box::new(outcome)));
            if let Some(limit) = service.rate_limit() {
                let _ = tx.send(Action::RateLimit(limit));
            }
        });
    }

    /// Starts `effect` (must be called inside a tokio runtime).
    pub fn run(&mut self, effect: Effect) {
        match effect {
            Effect::Warmup => {
                let tx = self.tx.clone();
                match self.warmup.take() {
                    Some(warmup) => {
                        tokio::task::spawn_blocking(move || {
                            let _ = tx.send(Action::IndexReady(warmup()));
                        });
                    }
                    None => {
                        let _ = tx.send(Action::IndexReady(Ok(())));
                    }
                }
            }
            Effect::Debounce(n) => {
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(DEBOUNCE).await;
                    let _ = tx.send(Action::PreviewDue(n));
                });
            }
            Effect::Call(id, Call::RunLists(work)) => self.run_lists(id, work),
            Effect::Call(id, Call::Batch(request)) => self.run_batch(id, request),
            Effect::Call(id, call) => {
                let slot = call.slot();
                let abortable = call.abortable();
                if abortable && let Some(old) = self.reads.remove(&slot) {
                    old.abort();
                }
                let service = self.service.clone();
                let tx = self.tx.clone();
                let handle = tokio::spawn(async move {
                    let outcome = perform(service.as_ref(), call).await;
                    let _ = tx.send(Action::Done(id, Box::new(outcome)));
                    if let Some(limit) = service.rate_limit() {
                        let _ = tx.send(Action::RateLimit(limit));
                    }
                });
                if abortable {
                    self.reads.insert(slot, handle.abort_handle());
                }
            }
        }
    }
}

async fn perform(service: &dyn Service, call: Call) -> Outcome {
    match call {
        Call::Screen(request) => Outcome::Screened(service.screen(request).await),
        Call::Preview(request) => Outcome::Previewed(service.preview(request).await),
        Call::Screening(id) => Outcome::Screening(service.screening(&id).await),
        Call::History(cursor) => Outcome::History(
            service
                .screenings(ScreeningQuery {
                    limit: Some(super::pages::screen::HISTORY_PAGE),
                    cursor,
                    ..ScreeningQuery::default()
                })
                .await,
        ),
        Call::Entity(id) => Outcome::Entity(service.entity(&id, None).await.map(Box::new)),
        Call::Decide(id, request) => Outcome::Decided(service.decide(&id, request).await),
        Call::Verdict(id, request) => Outcome::Verdict(service.verdict(&id, request).await),
        Call::Lists => Outcome::Lists(service.lists().await),
        Call::ListUpdates(code) => Outcome::ListUpdates(service.list_updates(code, 50).await),
        Call::Favorites => Outcome::Favorites(service.favorites(None, Some(500)).await),
        Call::AddFavorite(request) => Outcome::FavoriteAdded(service.add_favorite(request).await),
        Call::RemoveFavorite(id) => Outcome::FavoriteRemoved(service.remove_favorite(&id).await),
        Call::Rescreen => Outcome::Rescreened(service.rescreen().await),
        Call::Alerts(query) => Outcome::Alerts(service.alerts(query).await),
        Call::OpenAlerts => Outcome::OpenAlerts(
            service
                .alerts(crate::api::alerts::AlertQuery {
                    status: Some(crate::api::alerts::AlertStatus::Open),
                    kind: None,
                    since: None,
                    limit: Some(100),
                    cursor: None,
                })
                .await,
        ),
        Call::SetAlerts(ids, request) => set_alerts(service, ids, request).await,
        Call::ReadBatch(path) => Outcome::BatchLoaded(read_batch(&path).await),
        Call::Batch(_) => Outcome::Batch(Err(crate::service::ServiceError::Unavailable(
            "a batch runs through the batch orchestration".into(),
        ))),
        Call::Briefs(query) => Outcome::Briefs(service.briefs(query).await),
        Call::RefreshBriefs => Outcome::BriefsRefreshed(service.refresh_briefs().await),
        Call::Webhooks => Outcome::Webhooks(service.webhooks().await),
        Call::CreateWebhook(request) => {
            Outcome::WebhookSaved(service.create_webhook(request).await)
        }
        Call::UpdateWebhook(id, request) => {
            Outcome::WebhookSaved(service.update_webhook(&id, request).await)
        }
        Call::DeleteWebhook(id) => Outcome::WebhookDeleted(service.delete_webhook(&id).await),
        Call::TestWebhook(id) => {
            let result = service.test_webhook(&id).await;
            Outcome::WebhookTested(id, result)
        }
        Call::Deliveries(id) => Outcome::Deliveries(service.webhook_deliveries(&id, 100).await),
        Call::ImportFavorites(path) => {
            Outcome::FavoritesImported(import_favorites(service, &path).await)
        }
        Call::WriteFile(path, contents) => Outcome::Written(write_new(&path, &contents).await),
        Call::RunLists(work) => Outcome::ListsRan(Err(format!("{} not started", work.name()))),
        Call::Complete(typed) => {
            let found = super::complete::list(typed.clone()).await;
            Outcome::Completed(typed, found)
        }
    }
}

/// Acknowledges or resolves `ids` in turn with one note; stops at the first failure (a
/// refused key or a lost server would fail the rest too).
async fn set_alerts(
    service: &dyn Service,
    ids: Vec<String>,
    request: crate::api::alerts::AlertStatusRequest,
) -> Outcome {
    let first = ids.first().cloned().unwrap_or_default();
    let total = ids.len();
    let bulk = crate::api::alerts::AlertBulkRequest {
        ids,
        status: request.status,
        note: request.note,
    };
    // One call, one transaction: every alert changed, or none.
    match service.set_alerts_status(bulk).await {
        Ok(done) => Outcome::AlertsSet { done, failed: None },
        Err(e) => Outcome::AlertsSet {
            done: Vec::new(),
            failed: Some((first, e, total.saturating_sub(1))),
        },
    }
}

async fn import_favorites(
    service: &dyn Service,
    path: &std::path::Path,
) -> Result<crate::api::favorites::ImportSummary, String> {
    let (batch, shown) = read_input(path).await?;
    let names = favorites_of(batch, &shown)?;
    service
        .import_favorites(crate::api::favorites::FavoriteImport { names })
        .await
        .map_err(|e| e.to_string())
}

/// The names a watchlist import adds, each with its date of birth and country; all or
/// nothing, as a batch is read: the first row refused is named (a date of birth or country
/// that cannot be read too, since each is weighed in every re-screen).
fn favorites_of(
    batch: crate::batch::Batch,
    shown: &str,
) -> Result<Vec<crate::api::favorites::FavoriteRequest>, String> {
    batch
        .items
        .into_iter()
        .map(|item| {
            item.favorite()
                .map_err(|(place, why)| format!("{shown} {place}: {why}"))
        })
        .collect()
}

async fn write_new(path: &std::path::Path, contents: &str) -> Result<String, String> {
    use tokio::io::AsyncWriteExt;
    let shown = path.display().to_string();
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .await
        .map_err(|e| format!("cannot create {shown}: {e}"))?;
    file.write_all(contents.as_bytes())
        .await
        .map_err(|e| format!("cannot write {shown}: {e}"))?;
    file.flush()
        .await
        .map_err(|e| format!("cannot write {shown}: {e}"))?;
    Ok(shown)
}

/// A batch file read whole (at most [`MAX_FILE`] bytes), with its path as shown.
async fn read_input(path: &std::path::Path) -> Result<(crate::batch::Batch, String), String> {
    let shown = path.display().to_string();
    let meta = tokio::fs::metadata(path)
        .await
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if meta.len() > MAX_FILE {
        return Err(format!(
            "{shown} is larger than {} MiB",
            MAX_FILE / 1024 / 1024
        ));
    }
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    let batch = crate::batch::parse_input(&bytes, &crate::batch::InputOptions::default())
        .map_err(|e| format!("{shown}: {e}"))?;
    Ok((batch, shown))
}

async fn read_batch(path: &std::path::Path) -> Result<super::pages::batch::Loaded, String> {
    let (batch, shown) = read_input(path).await?;
    // All or nothing, like the service: a bad row is named rather than skipped.
    if let Some(bad) = batch.first_refused() {
        let line = bad.line.map_or(String::new(), |l| format!(" line {l}"));
        let why = bad.error.as_deref().unwrap_or("");
        return Err(format!("{shown}{line}: {why}"));
    }
    let items = batch.items;
    if items.is_empty() {
        return Err(format!("{shown} holds no name"));
    }
    let cells = items.iter().map(|item| item.cells.clone()).collect();
    let names = items
        .into_iter()
        .map(|item| BatchName::Typed {
            name: item.name,
            kind: item.kind,
            date_of_birth: item.date_of_birth,
            country: item.country,
        })
        .collect();
    Ok(super::pages::batch::Loaded {
        request: BatchRequest {
            names,
            options: None,
        },
        header: batch.header,
        roles: batch.roles,
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::favorites_of;
    use crate::batch::{InputOptions, parse_input};

    /// A row's name, date of birth and country as imported.
    type Kept = (String, Option<String>, Option<String>);

    fn read(text: &str) -> Result<Vec<Kept>, String> {
        let batch = parse_input(text.as_bytes(), &InputOptions::default()).unwrap();
        let names = favorites_of(batch, "customers.csv")?;
        Ok(names
            .into_iter()
            .map(|f| (f.name, f.date_of_birth, f.country))
            .collect())
    }

    #[test]
    fn an_imported_rows_date_of_birth_and_country_are_kept() {
        let names = read("name,dob,country\nVladimir Putin,1952-10-07,RU\nAnn Other,,\n");
        assert_eq!(
            names.unwrap(),
            [
                (
                    "Vladimir Putin".to_owned(),
                    Some("1952-10-07".to_owned()),
                    Some("RU".to_owned())
                ),
                ("Ann Other".to_owned(), None, None),
            ]
        );
    }

    #[test]
    fn a_row_whose_date_of_birth_cannot_be_read_is_named() {
        let refused = read("name,dob\nAnn Other,1970\nBo Other,31/31/1990\n").unwrap_err();
        assert!(
            refused.starts_with("customers.csv line 3: date of birth"),
            "{refused}"
        );
    }
}
