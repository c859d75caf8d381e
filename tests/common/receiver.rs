//! A loopback webhook receiver that counts deliveries by `webhook-id` (the claims and
//! multi-process tests check every event arrives exactly once per endpoint).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};

/// A loopback receiver that counts deliveries by `webhook-id`.
#[derive(Clone, Default)]
pub struct Receiver {
    ids: Arc<Mutex<HashMap<String, usize>>>,
}

impl Receiver {
    pub fn counts(&self) -> HashMap<String, usize> {
        self.ids.lock().unwrap().clone()
    }
}

async fn receive(State(r): State<Receiver>, headers: HeaderMap) -> StatusCode {
    let id = headers["webhook-id"].to_str().unwrap().to_owned();
    *r.ids.lock().unwrap().entry(id).or_default() += 1;
    StatusCode::OK
}

pub async fn start_receiver() -> (String, Receiver) {
    let r = Receiver::default();
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(r.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), r)
}
