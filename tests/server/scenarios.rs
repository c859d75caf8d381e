//! One set of scenarios run against the local service and against the remote client talking
//! to a real `sanctions serve` on 127.0.0.1 (ephemeral port), both over the same imported
//! real lists: the answers must be the same (ids, times and actors aside). Then what only a
//! server can refuse: 401, 403 and 429, mapped onto the same `ServiceError`s.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;
use std::sync::Arc;

use common::serve::{Serve, new_key};
use sanctions::remote::{RemoteConfig, RemoteService};
use sanctions_api::alerts::AlertQuery;
use sanctions_api::batch::{BatchName, BatchRequest};
use sanctions_api::briefs::BriefQuery;
use sanctions_api::favorites::FavoriteRequest;
use sanctions_api::screening::{KindFilter, ScreenRequest};
use sanctions_api::screenings::{Decision, DecisionRequest, ScreeningQuery};
use sanctions_api::webhooks::WebhookCreate;
use sanctions_model::ListCode;
use sanctions_service::{LocalService, Service, ServiceError, ServiceMode};
use serde_json::Value;

/// A data folder with the eight real lists imported by the real binary.
fn imported() -> tempfile::TempDir {
    let shared = common::shared_data();
    let data = tempfile::tempdir().unwrap();
    let out = common::sanctions(
        data.path(),
        &["lists", "import", shared.join("lists").to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", common::stdout(&out));
    data
}

/// A copy of `from`'s database in a new folder (the same lists, the same update records).
fn copy(from: &Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().unwrap();
    for name in ["sanctions.db", "sanctions.db-wal"] {
        if from.join(name).exists() {
            std::fs::copy(from.join(name), to.path().join(name)).unwrap();
        }
    }
    to
}

/// What may differ between two runs of a scenario: ids, instants and who ran it; and a list
/// update's origin, which a server shows without its own folders (`import: <files>`).
fn scrub(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "id"
                    || key.ends_with("_id") && key != "entity_id" && key != "update_id"
                    || key.ends_with("_at")
                    || matches!(
                        key.as_str(),
                        "created_by" | "actor" | "secret" | "at" | "origin"
                    )
                {
                    *v = Value::Null;
                } else {
                    scrub(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub),
        _ => {}
    }
}

fn shown<T: serde::Serialize>(value: &T) -> Value {
    let mut v = serde_json::to_value(value).unwrap();
    scrub(&mut v);
    v
}

/// Runs every scenario on `svc` and returns what each answered, scrubbed.
async fn scenarios(svc: Arc<dyn Service>) -> Vec<(&'static str, Value)> {
    let mut out: Vec<(&'static str, Value)> = Vec::new();
    out.push(("lists", shown(&svc.lists().await.unwrap())));
    out.push((
        "list updates",
        shown(&svc.list_updates(ListCode::Un, 5).await.unwrap()),
    ));

    let screened = svc
        .screen(ScreenRequest {
            kind: Some(KindFilter::Individual),
            ..ScreenRequest::new("Vladimir Putin")
        })
        .await
        .unwrap();
    assert!(screened.id.starts_with("scr_"));
    assert!(screened.result.total_matches >= 1);
    assert!(screened.result.coverage.as_ref().unwrap().entries_searched > 0);
    assert_eq!(screened.result.results[0].group, Some(1));
    out.push(("screen", shown(&screened)));
    let stored = svc.screening(&screened.id).await.unwrap();
    assert_eq!(stored.id, screened.id);
    out.push(("stored screening", shown(&stored)));
    let decided = svc
        .decide(
            &screened.id,
            DecisionRequest {
                entity_id: None,
                decision: Decision::Escalated,
                note: "same name, checking the date of birth".into(),
            },
        )
        .await
        .unwrap();
    out.push(("decision", shown(&decided)));
    let page = svc.screenings(ScreeningQuery::default()).await.unwrap();
    out.push(("screenings", shown(&page)));

    let preview = svc
        .preview(ScreenRequest::new("Banco Nacional de Cuba"))
        .await
        .unwrap();
    assert!(preview.id.is_empty());
    out.push(("preview", shown(&preview)));
    let batch = svc
        .screen_batch(BatchRequest {
            names: vec![
                BatchName::Name("Kim Jong Un".into()),
                BatchName::typed("Rosoboronexport".into(), Some(KindFilter::Entity)),
                BatchName::Name("Zzyzx Quortlebee".into()),
            ],
            options: None,
        })
        .await
        .unwrap();
    assert_eq!(batch.total, 3);
    out.push(("batch", shown(&batch)));
    out.push((
        "entity",
        shown(&svc.entity("ofac_sdn:306", None).await.unwrap()),
    ));

    let favorite = svc
        .add_favorite(FavoriteRequest {
            name: "Usama bin Ladin".into(),
            kind: None,
            note: Some("customer 42".into()),
            date_of_birth: Some("1957".into()),
            country: Some("Saudi Arabia".into()),
        })
        .await
        .unwrap();
    // Stored in the interface's form, by the local service and through a server alike.
    assert_eq!(
        (favorite.dob.as_deref(), favorite.country.as_deref()),
        (Some("1957"), Some("SA"))
    );
    out.push(("favorite", shown(&favorite)));
    assert_eq!(
        shown(&svc.favorite(&favorite.id).await.unwrap()),
        shown(&favorite)
    );
    assert!(svc.favorite("fav_nope").await.is_err());
    out.push((
        "favorites",
        shown(&svc.favorites(None, None).await.unwrap()),
    ));
    out.push((
        "favorite removed",
        shown(&svc.remove_favorite(&favorite.id).await.unwrap()),
    ));
    out.push((
        "favorites after",
        shown(&svc.favorites(None, None).await.unwrap()),
    ));
    let alerts = svc.alerts(AlertQuery::default()).await.unwrap();
    for alert in &alerts.items {
        assert_eq!(shown(&svc.alert(&alert.id).await.unwrap()), shown(alert));
    }
    assert!(svc.alert("alt_nope").await.is_err());
    out.push(("alerts", shown(&alerts)));
    out.push((
        "briefs",
        shown(&svc.briefs(BriefQuery::default()).await.unwrap()),
    ));

    let hook = svc
        .create_webhook(WebhookCreate {
            url: "http://127.0.0.1:9/hook".into(),
            events: vec!["screening.match".into()],
            description: Some("scenario".into()),
        })
        .await
        .unwrap();
    assert!(hook.secret.is_some());
    out.push(("webhook", shown(&hook)));
    out.push(("webhooks", shown(&svc.webhooks().await.unwrap())));
    out.push((
        "webhook deleted",
        shown(&svc.delete_webhook(&hook.id).await.unwrap()),
    ));

    // Refusals: the same error, whether the service is here or behind HTTP.
    let errors = [
        svc.screening("scr_nope").await.map(|_| ()),
        svc.screen(ScreenRequest::new("  ")).await.map(|_| ()),
        svc.entity("ofac_sdn:999999999", None).await.map(|_| ()),
        svc.remove_favorite("fav_nope").await.map(|_| ()),
        svc.decide(
            &screened.id,
            DecisionRequest {
                entity_id: None,
                decision: Decision::Escalated,
                note: " ".into(),
            },
        )
        .await
        .map(|_| ()),
    ];
    out.push((
        "errors",
        Value::Array(
            errors
                .into_iter()
                .map(|e| Value::String(format!("{:?}", e.unwrap_err())))
                .collect(),
        ),
    ));
    out
}

fn remote(url: &str, key: Option<&str>) -> Arc<dyn Service> {
    Arc::new(RemoteService::new(RemoteConfig::new(url, key.map(str::to_owned))).unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn local_and_remote_give_the_same_answers() {
    let data = imported();
    let here = copy(data.path());
    let there = copy(data.path());
    let config = there.path().join("config.toml");
    // Loopback webhook targets are allowed on this test server (refused by default).
    std::fs::write(&config, "[webhooks]\nallow_private_targets = true\n").unwrap();
    let server = Serve::start(there.path(), Some(&config)).await;
    // The key acts on the local user's account (`default`), so that both sides see the same
    // data: the alerts of the lists' import belong to it (a new account starts empty).
    let plan = common::sanctions(
        there.path(),
        &["accounts", "set-plan", "default", "business"],
    );
    assert!(plan.status.success(), "{plan:?}");
    let out = common::sanctions(
        there.path(),
        &[
            "keys",
            "create",
            "--account",
            "default",
            "--label",
            "analyst",
            "--json",
        ],
    );
    let key = common::json(&out)["key"].as_str().unwrap().to_owned();

    let db = here.path().join("sanctions.db");
    let local: Arc<dyn Service> = Arc::new(
        tokio::task::spawn_blocking(move || LocalService::open(&db, "analyst"))
            .await
            .unwrap()
            .unwrap(),
    );
    let client = remote(&server.base, Some(&key));
    assert_eq!(
        client.mode(),
        ServiceMode::Remote {
            url: server.base.clone()
        }
    );
    let mine = scenarios(local).await;
    let theirs = scenarios(client.clone()).await;
    assert_eq!(mine.len(), theirs.len());
    for ((name, a), (_, b)) in mine.iter().zip(&theirs) {
        assert_eq!(
            a, b,
            "scenario {name:?}: local (left) and remote (right) differ"
        );
    }
    let rate = client
        .rate_limit()
        .expect("the server's X-RateLimit-* headers are kept");
    assert!(rate.limit >= rate.remaining && rate.reset > 0, "{rate:?}");
    server.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_refusal_maps_onto_the_service_errors() {
    let data = imported();
    let server = Serve::start(data.path(), None).await;
    // 401: no key, an unknown key, a revoked key.
    for key in [None, Some("sk_live_not_a_key")] {
        let err = remote(&server.base, key).lists().await.unwrap_err();
        assert!(matches!(err, ServiceError::Unauthorized(_)), "{err:?}");
    }
    // 403: the Free plan has no batch, and says which plan has.
    let free = remote(&server.base, Some(&new_key(data.path(), "free", "trial")));
    let err = free
        .screen_batch(BatchRequest {
            names: vec![BatchName::Name("Kim Jong Un".into())],
            options: None,
        })
        .await
        .unwrap_err();
    match &err {
        ServiceError::Forbidden(message) => assert!(message.contains("Pro plan"), "{message}"),
        other => panic!("expected 403, got {other:?}"),
    }
    // 429: the Free plan's 11th request within a minute, with the wait. The windows are
    // fixed minutes: when one ends during the loop the count starts again, so up to 25
    // requests (two windows' worth) are sent; tests/server/server.rs checks the exact 11th.
    let mut limited = None;
    for _ in 0..25 {
        if let Err(e) = free.lists().await {
            limited = Some(e);
            break;
        }
    }
    match limited {
        Some(ServiceError::RateLimited { retry_after, .. }) => {
            assert!(retry_after.is_some_and(|s| s <= 60), "{retry_after:?}")
        }
        other => panic!("expected 429, got {other:?}"),
    }
    assert_eq!(free.rate_limit().map(|r| r.remaining), Some(0));
    // Nothing listens: unavailable, naming the address.
    let err = remote("http://127.0.0.1:9", None)
        .lists()
        .await
        .unwrap_err();
    match err {
        ServiceError::Unavailable(message) => {
            assert!(
                message.starts_with("cannot reach http://127.0.0.1:9"),
                "{message}"
            )
        }
        other => panic!("expected unavailable, got {other:?}"),
    }
    server.stop();
}
