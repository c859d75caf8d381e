//! What flows through the core: [`Action`]s in (keys, paste, service results tagged with
//! their request id) and [`Effect`]s out (service calls for the runner to make).

use crossterm::event::KeyEvent;

use crate::api::alerts::{Alert, AlertQuery, AlertStatusRequest};
use crate::api::batch::{BatchRequest, BatchResponse};
use crate::api::briefs::{Brief, BriefQuery, RefreshReport};
use crate::api::entities::EntityDetail;
use crate::api::favorites::{
    Favorite, FavoritePage, FavoriteRequest, ImportSummary, RescreenSummary,
};
use crate::api::lists::{ListInfo, UpdateInfo};
use crate::api::screening::ScreenRequest;
use crate::api::screenings::{
    DecisionRequest, DecisionResponse, Page, ScreeningResponse, ScreeningSummary, StoredScreening,
};
use crate::api::webhooks::{
    DeliveryAttempt, Webhook, WebhookCreate, WebhookTestResult, WebhookUpdate,
};
use crate::model::ListCode;
use crate::service::{RateLimit, ServiceError};

/// A request id: results of an older request for the same [`Slot`] are dropped.
pub type ReqId = u64;

/// An input to [`super::update::update`].
#[derive(Debug)]
pub enum Action {
    /// A key press (never a release or repeat-release).
    Key(KeyEvent),
    /// Bracketed paste: the whole pasted text at once.
    Paste(String),
    /// The terminal changed size; only a redraw is needed.
    Resize,
    /// A mouse event on a terminal of this size (only with `[ui] mouse = true`).
    Mouse {
        event: crossterm::event::MouseEvent,
        width: u16,
        height: u16,
    },
    /// The spinner advances (sent only while work runs).
    Tick,
    /// The slow idle timer ([`super::update::POLL_SECS`]): retry an unreachable server,
    /// refresh the open-alert count now and then.
    Poll,
    /// The screening index finished building in the background.
    IndexReady(Result<(), String>),
    /// A service call finished.
    Done(ReqId, Box<Outcome>),
    /// The typing pause of debounce `n` is over: preview if it is still the latest.
    PreviewDue(u64),
    /// The rate-limit figures of the server's last answer (remote mode).
    RateLimit(RateLimit),
    /// Rows of the running batch screened since the last word.
    BatchProgress(u64),
    /// The step a running `lists update` / `lists import` has reached.
    ListsProgress(crate::service::maintenance::Progress),
}

/// The result of one service call.
#[derive(Debug)]
pub enum Outcome {
    Screened(Result<ScreeningResponse, ServiceError>),
    Previewed(Result<ScreeningResponse, ServiceError>),
    Screening(Result<StoredScreening, ServiceError>),
    History(Result<Page<ScreeningSummary>, ServiceError>),
    Entity(Result<Box<EntityDetail>, ServiceError>),
    Decided(Result<DecisionResponse, ServiceError>),
    Lists(Result<Vec<ListInfo>, ServiceError>),
    ListUpdates(Result<Vec<UpdateInfo>, ServiceError>),
    Favorites(Result<FavoritePage, ServiceError>),
    FavoriteAdded(Result<Favorite, ServiceError>),
    FavoriteRemoved(Result<Favorite, ServiceError>),
    Rescreened(Result<RescreenSummary, ServiceError>),
    Alerts(Result<Page<Alert>, ServiceError>),
    OpenAlerts(Result<Page<Alert>, ServiceError>),
    /// Alerts acknowledged or resolved in turn; the first failure stops the rest (its id,
    /// the error, how many were left untouched).
    AlertsSet {
        done: Vec<Alert>,
        failed: Option<(String, ServiceError, usize)>,
    },
    BatchLoaded(Result<super::page_state::batch::Loaded, String>),
    Batch(Result<BatchResponse, ServiceError>),
    Briefs(Result<Page<Brief>, ServiceError>),
    BriefsRefreshed(Result<RefreshReport, ServiceError>),
    Webhooks(Result<Vec<Webhook>, ServiceError>),
    WebhookSaved(Result<Webhook, ServiceError>),
    WebhookDeleted(Result<Webhook, ServiceError>),
    WebhookTested(String, Result<WebhookTestResult, ServiceError>),
    Deliveries(Result<Vec<DeliveryAttempt>, ServiceError>),
    /// A watchlist file imported, or why not.
    FavoritesImported(Result<ImportSummary, String>),
    /// A file written: its path, or why not.
    Written(Result<String, String>),
    /// `lists update` / `lists import` finished: its summary, or why it failed.
    ListsRan(Result<String, String>),
    /// The entries completing a typed path (the text completed), or why none.
    Completed(String, Result<Vec<super::complete::Entry>, String>),
}

/// A service call to make. Reads of the same slot supersede each other: the runner aborts
/// the older one and `update` drops its result if it still arrives.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    Screen(ScreenRequest),
    /// Screen without storing (results as you type).
    Preview(ScreenRequest),
    Screening(String),
    /// A page of the history of screenings (the cursor of the next page, or the first).
    History(Option<String>),
    Entity(String),
    Decide(String, DecisionRequest),
    Lists,
    ListUpdates(ListCode),
    Favorites,
    AddFavorite(FavoriteRequest),
    RemoveFavorite(String),
    Rescreen,
    Alerts(AlertQuery),
    OpenAlerts,
    /// Acknowledge or resolve these alerts with one note (one service call each, in turn).
    SetAlerts(Vec<String>, AlertStatusRequest),
    /// Read and parse a batch file (CSV, lines or JSON).
    ReadBatch(std::path::PathBuf),
    Batch(BatchRequest),
    Briefs(BriefQuery),
    RefreshBriefs,
    Webhooks,
    CreateWebhook(WebhookCreate),
    UpdateWebhook(String, WebhookUpdate),
    DeleteWebhook(String),
    TestWebhook(String),
    Deliveries(String),
    /// Read a file of names (CSV, lines or JSON) and add them to the watchlist.
    ImportFavorites(std::path::PathBuf),
    /// Write `contents` to a new file (never over an existing one).
    WriteFile(std::path::PathBuf, String),
    /// List the folder entries that complete a typed path (Tab in a file prompt).
    Complete(String),
    /// Update or import the lists (local mode: the program run on the same data folder).
    RunLists(super::lists_job::ListsWork),
}

/// Which in-flight request a result belongs to; one current request per slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    Screen,
    Preview,
    Screening,
    History,
    Entity,
    Decide,
    Lists,
    ListUpdates,
    Favorites,
    FavoriteChange,
    Rescreen,
    Alerts,
    OpenAlerts,
    AlertChange,
    Batch,
    Briefs,
    BriefsRefresh,
    Webhooks,
    WebhookChange,
    WebhookTest,
    Deliveries,
    Export,
    Complete,
    ListsJob,
}

impl Call {
    /// The slot of this call.
    pub fn slot(&self) -> Slot {
        match self {
            Call::Screen(_) => Slot::Screen,
            Call::Preview(_) => Slot::Preview,
            Call::Screening(_) => Slot::Screening,
            Call::History(_) => Slot::History,
            Call::Entity(_) => Slot::Entity,
            Call::Decide(..) => Slot::Decide,
            Call::Lists => Slot::Lists,
            Call::ListUpdates(_) => Slot::ListUpdates,
            Call::Favorites => Slot::Favorites,
            Call::AddFavorite(_) | Call::RemoveFavorite(_) | Call::ImportFavorites(_) => {
                Slot::FavoriteChange
            }
            Call::Rescreen => Slot::Rescreen,
            Call::Alerts(_) => Slot::Alerts,
            Call::OpenAlerts => Slot::OpenAlerts,
            Call::SetAlerts(..) => Slot::AlertChange,
            Call::ReadBatch(_) | Call::Batch(_) => Slot::Batch,
            Call::Briefs(_) => Slot::Briefs,
            Call::RefreshBriefs => Slot::BriefsRefresh,
            Call::Webhooks => Slot::Webhooks,
            Call::CreateWebhook(_) | Call::UpdateWebhook(..) | Call::DeleteWebhook(_) => {
                Slot::WebhookChange
            }
            Call::TestWebhook(_) => Slot::WebhookTest,
            Call::Deliveries(_) => Slot::Deliveries,
            Call::WriteFile(..) => Slot::Export,
            Call::Complete(_) => Slot::Complete,
            Call::RunLists(_) => Slot::ListsJob,
        }
    }

    /// Whether an older call of the same slot may be aborted (reads only: a write that was
    /// sent is never cancelled half-way).
    pub fn abortable(&self) -> bool {
        matches!(
            self,
            Call::Preview(_)
                | Call::Screening(_)
                | Call::History(_)
                | Call::Entity(_)
                | Call::Lists
                | Call::ListUpdates(_)
                | Call::Favorites
                | Call::Alerts(_)
                | Call::OpenAlerts
                | Call::ReadBatch(_)
                | Call::Briefs(_)
                | Call::Webhooks
                | Call::Deliveries(_)
                | Call::Complete(_)
        )
    }
}

/// What `update` asks the runner to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Make a service call; its result comes back as [`Action::Done`] with this id.
    Call(ReqId, Call),
    /// Build the screening index in the background ([`Action::IndexReady`] when done).
    Warmup,
    /// Wait for a pause in typing, then send [`Action::PreviewDue`] with this number.
    Debounce(u64),
}
