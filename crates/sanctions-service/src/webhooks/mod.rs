//! Webhooks: Standard Webhooks signing ([`sign`]), which URLs may be called ([`safety`]),
//! the retry schedule ([`schedule`]) and the delivery of outbox events ([`deliver`]).

pub mod deliver;
pub mod safety;
pub mod schedule;
pub mod sign;
pub mod worker;

/// The event kinds a webhook may subscribe to.
pub const EVENT_KINDS: [&str; 4] = [
    "screening.match",
    "list.updated",
    "favorite.match",
    "alert.created",
];

/// The kind of the event `test` sends.
pub const TEST_EVENT: &str = "webhook.test";
