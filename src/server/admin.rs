//! Handlers of an account's own administration: the `admin` scope.

use std::sync::Arc;

use axum::extract::State;

use super::AppState;
use super::auth::Caller;
use super::reply::{ApiError, Reply, ok};
use crate::model::Scope;
use crate::service::ServiceError;
#[allow(unused_imports)] // the types and texts of the OpenAPI document (`#[utoipa::path]`)
use {
    super::openapi_texts::*,
    crate::api::envelope::Failure,
    crate::api::routes::{self, PREFIX},
    crate::model::ApiKey,
};

/// `GET /keys`: the keys of the caller's account (revoked ones too), never a secret nor a
/// hash; read with the account in SQL.
#[utoipa::path(
    get,
    path = routes::KEYS,
    context_path = PREFIX,
    operation_id = "accountKeys",
    tag = EXTENSIONS,
    summary = "The keys of the caller's account: ids, prefixes, labels, scopes; never a secret.",
    description = NEEDS_ADMIN,
    responses(
        (status = 200, description = "Success.", body = Vec<ApiKey>),
        (status = 403, description = FORBIDDEN_ADMIN, body = Failure)
    )
)]
pub async fn keys(State(state): State<Arc<AppState>>, caller: Caller) -> Reply {
    caller.scope(Scope::Admin)?;
    let store = state.keys.clone();
    let account = caller.key.account_id.clone();
    let keys = tokio::task::spawn_blocking(move || store.account_keys(&account))
        .await
        .map_err(|e| ApiError::from(ServiceError::from(e)))?
        .map_err(|e| ApiError::from(ServiceError::from(e)))?;
    Ok(ok(keys))
}
