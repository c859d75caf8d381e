//! The Webhooks tab's state: the endpoints, the delivery log, a test's outcome and a new
//! secret. A leaf: [`crate::tui::state::State`] holds it, the page
//! [`crate::tui::pages::webhooks`] changes and draws it.

use crate::api::webhooks::{DeliveryAttempt, Webhook, WebhookTestResult};

/// The Webhooks tab's state.
#[derive(Debug, Default)]
pub struct WebhooksState {
    pub items: Vec<Webhook>,
    pub loaded: bool,
    pub selected: usize,
    /// The delivery log of the selected webhook is shown instead of the list.
    pub log: bool,
    pub deliveries: Vec<DeliveryAttempt>,
    /// The last test: which webhook, and its outcome.
    pub test: Option<(String, WebhookTestResult)>,
    /// The secret of the webhook just created (the service shows it once).
    pub secret: Option<(String, String)>,
    /// The webhook just created: the next reload puts the cursor on it.
    pub fresh: Option<String>,
    pub error: Option<String>,
}

impl WebhooksState {
    /// The webhook under the cursor.
    pub fn current(&self) -> Option<&Webhook> {
        self.items.get(self.selected)
    }
}
