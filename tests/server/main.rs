//! `sanctions serve` and its clients: endpoints, accounts and isolation, hardening, TLS,
//! operability, the OpenAPI document, webhooks, the export and the remote client.
//! One test binary per theme, so the program is linked once for all of them: each former
//! `tests/NAME.rs` is a module here, its tests named `NAME::test`.

#[path = "../common/mod.rs"]
mod common;
mod export;
mod hardening;
mod isolation;
mod operability;
mod remote_client;
mod scenarios;
mod server;
mod server_openapi;
mod tls;
mod webhooks;
mod webhooks_limits;
