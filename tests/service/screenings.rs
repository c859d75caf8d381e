//! Stored screenings, decisions, batch and the audit export through the local service.

use sanctions_api::batch::{BatchName, BatchRequest};
use sanctions_api::screening::ScreenRequest;
use sanctions_api::screenings::{
    AuditQuery, Decision, DecisionRequest, ScreeningQuery, Verdict, VerdictRequest,
};
use sanctions_model::ReviewStatus;
use sanctions_service::batch;
use sanctions_service::{Service, ServiceError};

use crate::service;

fn decision(entity: Option<&str>, decision: Decision, note: &str) -> DecisionRequest {
    DecisionRequest {
        entity_id: entity.map(str::to_owned),
        decision,
        note: note.to_owned(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_screening_is_stored_with_its_list_versions_and_read_back() {
    let (_dir, svc) = service().await;
    let response = svc
        .screen(ScreenRequest::new("Vladimir Putin"))
        .await
        .unwrap();
    assert!(
        response.id.starts_with("scr_") && response.id.len() == 30,
        "{}",
        response.id
    );
    assert!(response.result.total_matches > 0);
    assert_eq!(response.result.results[0].entity_id, "ofac_sdn:35096");

    let stored = svc.screening(&response.id).await.unwrap();
    assert_eq!(stored.query, "Vladimir Putin");
    assert_eq!(stored.results, response.result.results);
    assert_eq!(stored.created_by, "analyst1");
    assert_eq!(stored.status, ReviewStatus::PendingReview);
    assert!(stored.engine_version.starts_with("sanctions "));
    assert_eq!(stored.list_versions.len(), 8, "{:?}", stored.list_versions);
    let lists = svc.lists().await.unwrap();
    for list in lists {
        let latest = svc.list_updates(list.list_code, 1).await.unwrap();
        assert_eq!(
            stored.list_versions.get(&list.list_code),
            Some(&latest[0].update_id)
        );
        assert_eq!(list.update_id, Some(latest[0].update_id));
    }

    // A name on no list is stored as no_match.
    let none = svc
        .screen(ScreenRequest::new("Zyxwv Qqqqq Unlisted"))
        .await
        .unwrap();
    let none = svc.screening(&none.id).await.unwrap();
    assert_eq!(none.status, ReviewStatus::NoMatch);
    assert!(none.results.is_empty());

    // Listing, newest first, filtered by status.
    let page = svc.screenings(ScreeningQuery::default()).await.unwrap();
    assert_eq!(page.items.len(), 2);
    assert_eq!(page.items[0].id, none.id);
    let pending = svc
        .screenings(ScreeningQuery {
            status: Some(ReviewStatus::PendingReview),
            ..ScreeningQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(pending.items.len(), 1);
    assert_eq!(pending.items[0].id, response.id);

    // Unknown and malformed ids are 404.
    for id in [
        "scr_01ARZ3NDEKTSV4RRFFQ69G5FAV",
        "nope",
        "scr_'; DROP TABLE",
    ] {
        let err = svc.screening(id).await.unwrap_err();
        assert_eq!(err.status(), 404, "{id}: {err}");
    }
}

fn verdict(verdict: Verdict, note: &str) -> VerdictRequest {
    VerdictRequest {
        verdict,
        entity_id: None,
        note: note.to_owned(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn four_eyes_proposals_wait_for_a_second_reviewer() {
    let (_dir, alice) = service().await;
    alice.set_four_eyes(true);
    let bob = alice.with_actor("analyst2");
    let screening = alice
        .screen(ScreenRequest::new("Vladimir Putin"))
        .await
        .unwrap();
    let id = screening.id.as_str();
    let entity = screening.result.results[0].entity_id.clone();
    // Nothing to confirm yet.
    let err = bob
        .verdict(id, verdict(Verdict::Confirm, "ok"))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("awaits a second reviewer"),
        "{err}"
    );
    // An escalation is recorded at once; a true match becomes a proposal.
    let escalated = alice
        .decide(id, decision(Some(&entity), Decision::Escalated, "ask L2"))
        .await
        .unwrap();
    assert_eq!(escalated.decision.to, ReviewStatus::Escalated);
    let proposed = alice
        .decide(id, decision(Some(&entity), Decision::TrueMatch, "same DOB"))
        .await
        .unwrap();
    assert_eq!(proposed.decision.to, ReviewStatus::Proposed);
    assert_eq!(proposed.decision.proposed, Some(Decision::TrueMatch));
    let stored = alice.screening(id).await.unwrap();
    assert_ne!(stored.status, ReviewStatus::TrueMatch);
    // The proposer cannot confirm it: a clear refusal naming the field.
    let err = alice
        .verdict(id, verdict(Verdict::Confirm, "me again"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ServiceError::Validation { field, message }
            if field == "verdict" && message.contains("a second, different reviewer")),
        "{err}"
    );
    // A second reviewer rejects it: back to escalated; then a new proposal, confirmed.
    let rejected = bob
        .verdict(id, verdict(Verdict::Reject, "not the same person"))
        .await
        .unwrap();
    assert_eq!(rejected.decisions[0].to, ReviewStatus::Escalated);
    alice
        .decide(id, decision(None, Decision::FalsePositive, "other DOB"))
        .await
        .unwrap();
    let confirmed = bob
        .verdict(id, verdict(Verdict::Confirm, "agreed"))
        .await
        .unwrap();
    assert_eq!(confirmed.decisions[0].to, ReviewStatus::FalsePositive);
    assert_eq!(confirmed.decisions[0].actor, "analyst2");
    let stored = alice.screening(id).await.unwrap();
    // Every entry stays in the audit log, with who and the note.
    let log: Vec<(&str, ReviewStatus, &str)> = stored
        .decisions
        .iter()
        .filter(|d| d.entity_id.as_deref() == Some(entity.as_str()) || d.entity_id.is_none())
        .map(|d| (d.actor.as_str(), d.to, d.note.as_str()))
        .collect();
    assert_eq!(
        log,
        [
            ("analyst1", ReviewStatus::Escalated, "ask L2"),
            ("analyst1", ReviewStatus::Proposed, "same DOB"),
            ("analyst2", ReviewStatus::Escalated, "not the same person"),
            ("analyst1", ReviewStatus::Proposed, "other DOB"),
            ("analyst2", ReviewStatus::FalsePositive, "agreed"),
        ]
    );
    let audit = alice.audit(AuditQuery::default()).await.unwrap();
    assert_eq!(audit.decisions.len(), stored.decisions.len());
    // Off again: decisions are recorded at once.
    alice.set_four_eyes(false);
    let other = alice
        .screen(ScreenRequest::new("Vladimir Putin"))
        .await
        .unwrap();
    let direct = alice
        .decide(&other.id, decision(None, Decision::TrueMatch, "direct"))
        .await
        .unwrap();
    assert_eq!(direct.status, ReviewStatus::TrueMatch);
}

#[tokio::test(flavor = "multi_thread")]
async fn decisions_follow_the_transitions_and_are_audited() {
    let (_dir, svc) = service().await;
    let screening = svc
        .screen(ScreenRequest::new("Vladimir Putin"))
        .await
        .unwrap();
    let id = screening.id.as_str();
    let entity = screening.result.results[0].entity_id.clone();

    // A note is required.
    let err = svc
        .decide(id, decision(Some(&entity), Decision::Escalated, "  "))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ServiceError::Validation { field, .. } if field == "note"),
        "{err}"
    );
    // An entity that did not match is refused.
    let err = svc
        .decide(id, decision(Some("un:1"), Decision::TrueMatch, "x"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), 422, "{err}");
    assert!(err.to_string().contains("not among the matches"), "{err}");

    let escalated = svc
        .decide(
            id,
            decision(Some(&entity), Decision::Escalated, "same DOB, ask L2"),
        )
        .await
        .unwrap();
    assert_eq!(escalated.decision.from, ReviewStatus::PendingReview);
    assert_eq!(escalated.status, ReviewStatus::Escalated);
    // Escalated cannot be escalated again, but becomes a final decision.
    let err = svc
        .decide(id, decision(Some(&entity), Decision::Escalated, "again"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), 422);
    let done = svc
        .decide(
            id,
            decision(Some(&entity), Decision::TrueMatch, "confirmed by L2"),
        )
        .await
        .unwrap();
    assert_eq!(done.decision.from, ReviewStatus::Escalated);
    assert_eq!(done.status, ReviewStatus::TrueMatch);
    // A final decision is final.
    let err = svc
        .decide(id, decision(Some(&entity), Decision::FalsePositive, "oops"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("final"), "{err}");

    // The whole screening: the remaining matches become false positives; the true match stays.
    let rest = svc
        .decide(
            id,
            decision(None, Decision::FalsePositive, "other hits are namesakes"),
        )
        .await;
    let stored = svc.screening(id).await.unwrap();
    if stored.results.len() > 1 {
        assert_eq!(rest.unwrap().status, ReviewStatus::TrueMatch);
    } else {
        assert!(rest.is_err());
    }
    assert_eq!(stored.status, ReviewStatus::TrueMatch);
    assert!(stored.decisions.len() >= 2);
    assert_eq!(stored.decisions[0].actor, "analyst1");
    assert_eq!(stored.decisions[0].note, "same DOB, ask L2");

    // Nothing to decide on a no-match screening.
    let none = svc
        .screen(ScreenRequest::new("Zyxwv Qqqqq Unlisted"))
        .await
        .unwrap();
    let err = svc
        .decide(&none.id, decision(None, Decision::FalsePositive, "x"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("nothing to decide"), "{err}");
    // Unknown screening.
    let err = svc
        .decide(
            "scr_01ARZ3NDEKTSV4RRFFQ69G5FAV",
            decision(None, Decision::TrueMatch, "x"),
        )
        .await
        .unwrap_err();
    assert_eq!(err.status(), 404);

    // The audit export holds both screenings and every decision, with list versions.
    let audit = svc.audit(AuditQuery::default()).await.unwrap();
    assert_eq!(audit.screenings.len(), 2);
    assert_eq!(audit.screenings[0].id, id);
    assert_eq!(audit.screenings[0].list_versions.len(), 8);
    assert_eq!(audit.decisions.len(), stored.decisions.len());
}

fn names(items: &[&str]) -> BatchRequest {
    BatchRequest {
        names: items
            .iter()
            .map(|n| BatchName::Name((*n).to_owned()))
            .collect(),
        options: None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_is_screened_in_order_and_every_name_stored() {
    let (_dir, svc) = service().await;
    let sent = [
        "Vladimir Putin",
        "Zyxwv Qqqqq Unlisted",
        "Banco Nacional de Cuba",
        "Kim Jong Un",
    ];
    let response = svc.screen_batch(names(&sent)).await.unwrap();
    assert_eq!(response.total, 4);
    let got: Vec<&str> = response.results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(got, sent);
    assert_eq!(response.results[1].matches, 0);
    for r in &response.results {
        let stored = svc.screening(&r.screening_id).await.unwrap();
        assert_eq!(stored.query, r.name);
        assert_eq!(stored.total_matches as usize, r.matches);
    }
    assert!(response.results[0].matches > 0 && response.results[2].matches > 0);

    // CSV variants: BOM, CRLF, quoted fields with commas, a type column; and no header.
    let csv =
        "\u{feff}name,type\r\n\"PUTIN, Vladimir\",individual\r\nBanco Nacional de Cuba,entity\r\n";
    let from_csv = batch_request(csv.as_bytes());
    assert_eq!(from_csv.names.len(), 2);
    assert_eq!(from_csv.names[0].name(), "PUTIN, Vladimir");
    let response = svc.screen_batch(from_csv).await.unwrap();
    assert!(
        response.results.iter().all(|r| r.matches > 0),
        "{response:?}"
    );
    let plain = batch_request(b"Vladimir Putin\nKim Jong Un\n");
    assert_eq!(svc.screen_batch(plain).await.unwrap().total, 2);
}

/// The UI's and the server's stored batch: a request's names through the one batch
/// orchestration answer as one `screen_batch` call does, name for name (new screening ids).
#[tokio::test(flavor = "multi_thread")]
async fn a_request_through_the_batch_orchestration_answers_as_screen_batch() {
    let (_dir, svc) = service().await;
    let mut request = names(&[
        "Vladimir Putin",
        "Zyxwv Qqqqq Unlisted",
        "Banco Nacional de Cuba",
    ]);
    request.names.push(BatchName::typed(
        "Kim Jong Un".into(),
        Some(sanctions_api::screening::KindFilter::Entity),
    ));
    // A name's own date of birth is weighed as `screen` weighs it (20 years off: lower).
    request.names.push(BatchName::Typed {
        name: "Sergey Lavrov".into(),
        kind: None,
        date_of_birth: Some("1970".into()),
        country: None,
    });
    let best = |dob: Option<&str>| {
        let request = ScreenRequest {
            date_of_birth: dob.map(str::to_owned),
            ..ScreenRequest::new("Sergey Lavrov")
        };
        let svc = &svc;
        async move { svc.screen(request).await.unwrap().result.results[0].score }
    };
    let (with_dob, without) = (best(Some("1970")).await, best(None).await);
    assert!(with_dob < without, "{with_dob} / {without}");
    let direct = svc.screen_batch(request.clone()).await.unwrap();
    assert_eq!(direct.results[4].best_score, Some(with_dob));
    let svc: std::sync::Arc<dyn sanctions_service::Service> = std::sync::Arc::new(svc);
    let (template, checked) = (batch::request_template(&request), batch::unchecked());
    let plan = batch::Plan {
        template: &template,
        checked: &checked,
        mode: batch::Mode::Store,
    };
    let rows = std::sync::atomic::AtomicU64::new(0);
    let progress = |n| {
        rows.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    };
    let items = batch::request_items(&request);
    let screened = batch::screen_items(&svc, &items, &plan, &progress)
        .await
        .unwrap();
    assert_eq!(rows.into_inner(), 5);
    let through = screened.response();
    assert_eq!(through.total, direct.total);
    let strip = |r: &sanctions_api::batch::BatchResult| (r.name.clone(), r.matches, r.best_score);
    let a: Vec<_> = through.results.iter().map(strip).collect();
    let b: Vec<_> = direct.results.iter().map(strip).collect();
    assert_eq!(a, b);
    for r in &through.results {
        assert_eq!(svc.screening(&r.screening_id).await.unwrap().query, r.name);
    }
}

/// A batch request from a file's bytes, read by the batch reader the CLI uses.
fn batch_request(bytes: &[u8]) -> BatchRequest {
    let read = batch::parse_input(bytes, &batch::InputOptions::default()).unwrap();
    BatchRequest {
        names: read
            .items
            .into_iter()
            .map(|i| BatchName::typed(i.name, i.kind))
            .collect(),
        options: None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_batches_and_bad_requests_are_refused_and_store_nothing() {
    let (_dir, svc) = service().await;
    let long = "x".repeat(501);
    let err = svc
        .screen_batch(names(&["Vladimir Putin", "  ", &long]))
        .await
        .unwrap_err();
    assert_eq!(err.status(), 422);
    let message = err.to_string();
    assert!(
        message.contains("row 2") && message.contains("row 3"),
        "{message}"
    );
    assert!(message.contains("nothing was screened"), "{message}");
    let too_many: Vec<String> = (0..501).map(|i| format!("Name {i}")).collect();
    let refs: Vec<&str> = too_many.iter().map(String::as_str).collect();
    let err = svc.screen_batch(names(&refs)).await.unwrap_err();
    assert!(err.to_string().contains("at most 500"), "{err}");
    assert_eq!(
        svc.screen_batch(names(&[])).await.unwrap_err().status(),
        422
    );

    for bad in [
        ScreenRequest::new(""),
        ScreenRequest::new(long.clone()),
        ScreenRequest {
            threshold: Some(101),
            ..ScreenRequest::new("x")
        },
        ScreenRequest {
            limit: Some(0),
            ..ScreenRequest::new("x")
        },
    ] {
        let err = svc.screen(bad.clone()).await.unwrap_err();
        assert!(
            matches!(err, ServiceError::Validation { .. }),
            "{bad:?}: {err}"
        );
    }
    let page = svc.screenings(ScreeningQuery::default()).await.unwrap();
    assert!(page.items.is_empty(), "nothing may be stored: {page:?}");
    let audit = svc.audit(AuditQuery::default()).await.unwrap();
    assert!(audit.screenings.is_empty() && audit.alerts.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn screening_with_no_lists_says_how_to_get_them() {
    let (_dir, svc) = crate::empty_service().await;
    let err = svc
        .screen(ScreenRequest::new("Vladimir Putin"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), 503);
    assert!(err.to_string().contains("lists import"), "{err}");
}

/// A watchlist import whose rows hold a date of birth or a country the engine cannot read is
/// refused whole, naming each such row, before any name is added (the date is weighed in
/// every re-screen, so it is checked when it is kept, as `add_favorite` checks it).
#[tokio::test(flavor = "multi_thread")]
async fn a_favorite_import_with_unreadable_evidence_adds_nothing() {
    use sanctions_api::favorites::{FavoriteImport, FavoriteRequest};
    let (_dir, svc) = service().await;
    let favorite = |name: &str, dob: Option<&str>, country: Option<&str>| FavoriteRequest {
        name: name.to_owned(),
        kind: None,
        note: None,
        date_of_birth: dob.map(str::to_owned),
        country: country.map(str::to_owned),
    };
    let names = vec![
        favorite("Ann Other", Some("1970-01-02"), Some("FR")),
        favorite("Bo Other", Some("31/31/1990"), None),
        favorite("Cy Other", None, Some("Atlantis")),
    ];
    let err = svc
        .import_favorites(FavoriteImport { names })
        .await
        .unwrap_err();
    assert_eq!(err.status(), 422, "{err}");
    let message = err.to_string();
    for named in [
        "row 2: ",
        "31/31/1990",
        "row 3: ",
        "Atlantis",
        "nothing was imported",
    ] {
        assert!(message.contains(named), "{named}: {message}");
    }
    assert_eq!(svc.favorites(None, None).await.unwrap().total, 0);
    let kept = svc
        .add_favorite(favorite("Ann Other", Some("02.01.1970"), Some("France")))
        .await
        .unwrap();
    assert_eq!(
        (kept.dob.as_deref(), kept.country.as_deref()),
        (Some("1970-01-02"), Some("FR"))
    );
}
