//! Handlers of an account's own administration: the `admin` scope.

use std::sync::Arc;

use axum::extract::State;

use super::AppState;
use super::auth::Caller;
use super::reply::{ApiError, Reply, ok};
use crate::model::Scope;
use crate::service::ServiceError;

/// `GET /keys`: the keys of the caller's account (revoked ones too), never a secret nor a
/// hash; read with the account in SQL.
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
