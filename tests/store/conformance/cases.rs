//! The cases: every store operation, its answers and its refusals, on any backend.
#![allow(clippy::unwrap_used)]

use jiff::Timestamp;
use sanctions_model::{
    Alert, AlertChange, AlertFilter, AlertKind, AlertStatus, Alias, AliasQuality, ApiKey,
    ChangeKind, Decision, Entity, EntityKind, Favorite, ListCode, ListVersions, MatchedEntity,
    NewApiKey, OutboxEvent, Plan, RescreenRun, ReviewAction, ReviewStatus, Scope, ScreeningFilter,
    ScreeningOrigin, ScreeningRecord, Severity, SourceFile,
};
use sanctions_sources::ParsedList;
use sanctions_store::{
    AttemptRecord, BriefFilter, BriefRecord, Changes, DEFAULT_ACCOUNT, DeliveryClaim,
    DeliveryOutcome, DeliveryRecord, FavoriteInsert, FavoriteUpdate, JobClaim, MarkerMove,
    Nearness, NewDecision, StoreError, WATCHLIST_MARKER, WebhookRecord,
};

use super::Both;

fn entity(id: &str, name: &str) -> Entity {
    let mut e = Entity::new(ListCode::Un, id, EntityKind::Individual, name);
    e.push_alias(Alias {
        quality: AliasQuality::Weak,
        ..Alias::new(format!("{name} alias"))
    });
    e.push_nationality("IQ");
    e
}

/// A UN list of the entries with these ids.
pub fn un_list(ids: &[&str]) -> ParsedList {
    parsed(
        ids.iter()
            .map(|id| entity(id, &format!("Name {id}")))
            .collect(),
    )
}

fn parsed(entities: Vec<Entity>) -> ParsedList {
    let mut p = ParsedList::new(ListCode::Un);
    p.entities = entities;
    p.files = vec![SourceFile {
        name: "consolidated.xml".into(),
        sha256: "00".repeat(32),
        bytes: 10,
    }];
    p.published = Some("2026-02-27".into());
    p
}

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_790_000_000 + seconds).unwrap()
}

fn screening(id: &str, matched: &[&str]) -> ScreeningRecord {
    ScreeningRecord {
        id: id.to_owned(),
        query: "Saddam Hussein".into(),
        kind: Some(EntityKind::Individual),
        threshold: 80,
        created_at: at(0),
        total_matches: matched.len() as u64,
        matched: matched
            .iter()
            .map(|e| MatchedEntity {
                entity_id: (*e).to_owned(),
                score: 91,
            })
            .collect(),
        results: serde_json::json!([{"entity_id": matched.first(), "score": 91}]),
        list_versions: ListVersions::from([(ListCode::Un, 1)]),
        engine_version: "test".into(),
        actor: "tester".into(),
        origin: ScreeningOrigin::Single,
        favorite_id: None,
        status: if matched.is_empty() {
            ReviewStatus::NoMatch
        } else {
            ReviewStatus::PendingReview
        },
    }
}

fn alert(id: &str, screening_id: Option<&str>) -> Alert {
    Alert {
        id: id.to_owned(),
        kind: AlertKind::ScreeningMatch,
        severity: Severity::High,
        title: "A match".into(),
        message: "Saddam Hussein matched".into(),
        created_at: at(1),
        status: AlertStatus::Open,
        screening_id: screening_id.map(str::to_owned),
        favorite_id: None,
        list: Some(ListCode::Un),
        entity_ids: vec!["un:1".into()],
    }
}

fn in_account(account: &str) -> Changes {
    Changes {
        account: Some(account.to_owned()),
        ..Changes::default()
    }
}

fn not_found<T: std::fmt::Debug>(result: Result<T, StoreError>) {
    assert!(
        matches!(result, Err(StoreError::NotFound { .. })),
        "{result:?}"
    );
}

fn refused<T: std::fmt::Debug>(result: Result<T, StoreError>) -> String {
    match result {
        Err(StoreError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

pub fn lists_import_and_history(repo: &dyn Both) {
    let empty = repo.lists().unwrap();
    assert_eq!(empty.len(), ListCode::ALL.len());
    assert!(
        empty
            .iter()
            .all(|l| l.count == 0 && l.last_update.is_none())
    );
    assert_eq!(repo.latest_update_id().unwrap(), 0);

    let first = repo
        .replace_list(&parsed(vec![entity("1", "A"), entity("2", "B")]), "test")
        .unwrap();
    assert_eq!(
        (first.added, first.removed, first.changed, first.total),
        (2, 0, 0, 2)
    );
    let un = repo
        .lists()
        .unwrap()
        .into_iter()
        .find(|l| l.list == ListCode::Un)
        .unwrap();
    assert_eq!((un.count, un.last_update), (2, Some(first.id)));
    assert_eq!(un.published.as_deref(), Some("2026-02-27"));
    assert_eq!(repo.list_versions().unwrap()[&ListCode::Un], first.id);
    assert_eq!(repo.latest_update_id().unwrap(), first.id);

    let second = repo
        .replace_list(&parsed(vec![entity("1", "A2"), entity("3", "C")]), "test")
        .unwrap();
    assert_eq!(
        (second.added, second.removed, second.changed, second.total),
        (1, 1, 1, 2)
    );
    let same = repo
        .replace_list(&parsed(vec![entity("1", "A2"), entity("3", "C")]), "test")
        .unwrap();
    assert_eq!((same.added, same.removed, same.changed), (0, 0, 0));

    let history = repo.updates(ListCode::Un, 10).unwrap();
    assert_eq!(
        history.iter().map(|u| u.id).collect::<Vec<_>>(),
        [same.id, second.id, first.id]
    );
    assert_eq!(repo.updates(ListCode::Un, 1).unwrap().len(), 1);
    assert!(repo.updates(ListCode::Eu, 10).unwrap().is_empty());
    assert_eq!(repo.update(second.id).unwrap().unwrap(), second);
    assert_eq!(repo.update(first.id).unwrap().unwrap().files, first.files);
    assert!(repo.update_exists(first.id).unwrap());
    assert!(!repo.update_exists(9_999).unwrap());

    let changes = repo.changes(second.id).unwrap();
    let kinds: Vec<(&str, ChangeKind)> = changes
        .iter()
        .map(|c| (c.entity_id.as_str(), c.change))
        .collect();
    assert_eq!(
        kinds,
        [
            ("un:1", ChangeKind::Changed),
            ("un:2", ChangeKind::Removed),
            ("un:3", ChangeKind::Added)
        ]
    );

    assert_eq!(repo.entity("un:1").unwrap().unwrap().primary_name, "A2");
    assert!(repo.entity("un:2").unwrap().is_none());
    assert_eq!(
        repo.entity_at("un:1", first.id)
            .unwrap()
            .unwrap()
            .primary_name,
        "A"
    );
    assert_eq!(
        repo.entity_at("un:1", second.id)
            .unwrap()
            .unwrap()
            .primary_name,
        "A2"
    );
    assert_eq!(
        repo.entity_at("un:2", first.id)
            .unwrap()
            .unwrap()
            .primary_name,
        "B"
    );
    assert!(repo.entity_at("un:2", second.id).unwrap().is_none());
    assert!(repo.entity_at("un:3", first.id).unwrap().is_none());

    let changed = repo.changed_entities(second.id).unwrap();
    let names: Vec<(ChangeKind, &str)> = changed
        .iter()
        .map(|(k, e)| (*k, e.primary_name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            (ChangeKind::Changed, "A2"),
            (ChangeKind::Removed, "B"),
            (ChangeKind::Added, "C")
        ]
    );
    let history = repo.entity_history("un:1").unwrap();
    assert_eq!(
        history
            .iter()
            .map(|v| (v.update_id, v.change))
            .collect::<Vec<_>>(),
        [
            (first.id, ChangeKind::Added),
            (second.id, ChangeKind::Changed)
        ]
    );

    let names = repo.entity_names().unwrap();
    assert_eq!(
        names
            .iter()
            .map(|n| n.entity_id.as_str())
            .collect::<Vec<_>>(),
        ["un:1", "un:3"]
    );
    assert_eq!(names[0].names.len(), 2);
    assert_eq!(
        names[0].names[1],
        ("A2 alias".to_owned(), AliasQuality::Weak)
    );
    assert_eq!(names[0].facts.nationalities, ["IQ"]);
    let digests = repo.name_digests().unwrap();
    assert_eq!(digests[&ListCode::Un].names, 4);
    assert!(repo.verify_names().unwrap().is_empty());
    let read = repo.read_back_names().unwrap();
    assert!(read.damage.is_empty());
    assert_eq!(read.update_id, repo.latest_update_id().unwrap());
}

pub fn a_failed_read_of_nothing_answers_nothing(repo: &dyn Both) {
    assert!(repo.update(1).unwrap().is_none());
    assert!(repo.changes(1).unwrap().is_empty());
    assert!(repo.entity("un:1").unwrap().is_none());
    assert!(repo.entity_at("un:1", 1).unwrap().is_none());
    assert!(repo.entity_history("un:1").unwrap().is_empty());
    assert!(repo.changed_entities(1).unwrap().is_empty());
    assert!(repo.entity_names().unwrap().is_empty());
    assert!(repo.list_versions().unwrap().is_empty());
    assert!(
        repo.screening(DEFAULT_ACCOUNT, "scr_nope")
            .unwrap()
            .is_none()
    );
    assert!(repo.alert(DEFAULT_ACCOUNT, "alt_nope").unwrap().is_none());
    assert!(
        repo.favorite(DEFAULT_ACCOUNT, "fav_nope")
            .unwrap()
            .is_none()
    );
    assert!(repo.webhook(DEFAULT_ACCOUNT, "wh_nope").unwrap().is_none());
    assert!(repo.brief("brf_nope").unwrap().is_none());
    assert!(repo.marker("nothing").unwrap().is_none());
    assert!(repo.rescreen_runs(10).unwrap().is_empty());
    assert_eq!(repo.pending_total().unwrap(), 0);
    assert_eq!(repo.favorite_count(None).unwrap(), 0);
}

pub fn screenings_and_decisions(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", Some(Plan::Pro)).unwrap();
    let other = repo.ensure_account("other", None).unwrap();
    let mut changes = in_account(&acme.id);
    changes.screenings = vec![
        screening("scr_01", &["un:1", "un:2"]),
        screening("scr_02", &[]),
    ];
    repo.record(&changes).unwrap();

    let stored = repo.screening(&acme.id, "scr_01").unwrap().unwrap();
    assert_eq!(stored, screening("scr_01", &["un:1", "un:2"]));
    assert!(repo.screening(&other.id, "scr_01").unwrap().is_none());
    assert!(repo.screening(DEFAULT_ACCOUNT, "scr_01").unwrap().is_none());

    let all = repo
        .screenings(
            &acme.id,
            &ScreeningFilter {
                limit: 10,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        all.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["scr_02", "scr_01"]
    );
    let pending = ScreeningFilter {
        status: Some(ReviewStatus::PendingReview),
        limit: 10,
        ..Default::default()
    };
    assert_eq!(repo.screenings(&acme.id, &pending).unwrap().len(), 1);
    let page = ScreeningFilter {
        before: Some("scr_02".into()),
        limit: 10,
        ..Default::default()
    };
    assert_eq!(repo.screenings(&acme.id, &page).unwrap()[0].id, "scr_01");
    let later = ScreeningFilter {
        since: Some(at(10)),
        limit: 10,
        ..Default::default()
    };
    assert!(repo.screenings(&acme.id, &later).unwrap().is_empty());
    assert!(
        repo.screenings(
            &other.id,
            &ScreeningFilter {
                limit: 10,
                ..Default::default()
            }
        )
        .unwrap()
        .is_empty()
    );

    let decision = NewDecision {
        screening_id: "scr_01".into(),
        entity_id: Some("un:1".into()),
        action: ReviewAction::Decide(Decision::FalsePositive),
        note: "another person".into(),
        actor: "alice".into(),
        at: at(5),
    };
    let (mut written, status) = repo.decide(&acme.id, &decision).unwrap();
    let record = written.pop().unwrap();
    assert!(written.is_empty());
    assert_eq!(
        (record.from, record.to),
        (ReviewStatus::PendingReview, ReviewStatus::FalsePositive)
    );
    assert_eq!(status, ReviewStatus::PendingReview);
    let whole = NewDecision {
        entity_id: None,
        action: ReviewAction::Decide(Decision::TrueMatch),
        ..decision.clone()
    };
    let (_, status) = repo.decide(&acme.id, &whole).unwrap();
    assert_eq!(status, ReviewStatus::TrueMatch);
    assert_eq!(
        repo.screening(&acme.id, "scr_01").unwrap().unwrap().status,
        ReviewStatus::TrueMatch
    );

    let log = repo.decisions(&acme.id, "scr_01").unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0], record);
    assert!(repo.decisions(&other.id, "scr_01").unwrap().is_empty());
    assert_eq!(
        repo.decisions_between(&acme.id, Some(at(5)), Some(at(6)))
            .unwrap()
            .len(),
        2
    );
    assert!(
        repo.decisions_between(&acme.id, Some(at(6)), None)
            .unwrap()
            .is_empty()
    );
    assert!(
        repo.decisions_between(&other.id, None, None)
            .unwrap()
            .is_empty()
    );
}

pub fn decisions_are_refused_when_they_cannot_apply(repo: &dyn Both) {
    let mut changes = in_account(DEFAULT_ACCOUNT);
    changes.screenings = vec![screening("scr_01", &["un:1"]), screening("scr_02", &[])];
    repo.record(&changes).unwrap();
    let other = repo.ensure_account("other", None).unwrap();
    let decide = |account: &str, screening: &str, entity: Option<&str>, decision| {
        repo.decide(
            account,
            &NewDecision {
                screening_id: screening.into(),
                entity_id: entity.map(str::to_owned),
                action: ReviewAction::Decide(decision),
                note: "n".into(),
                actor: "a".into(),
                at: at(3),
            },
        )
    };
    not_found(decide(&other.id, "scr_01", None, Decision::TrueMatch));
    not_found(decide(
        DEFAULT_ACCOUNT,
        "scr_nope",
        None,
        Decision::TrueMatch,
    ));
    let nothing = refused(decide(DEFAULT_ACCOUNT, "scr_02", None, Decision::TrueMatch));
    assert!(nothing.contains("matched nothing"), "{nothing}");
    let stranger = refused(decide(
        DEFAULT_ACCOUNT,
        "scr_01",
        Some("un:9"),
        Decision::TrueMatch,
    ));
    assert!(stranger.contains("not among the matches"), "{stranger}");
    decide(DEFAULT_ACCOUNT, "scr_01", Some("un:1"), Decision::TrueMatch).unwrap();
    let twice = refused(decide(
        DEFAULT_ACCOUNT,
        "scr_01",
        Some("un:1"),
        Decision::FalsePositive,
    ));
    assert!(twice.contains("final decision"), "{twice}");
    assert_eq!(repo.decisions(DEFAULT_ACCOUNT, "scr_01").unwrap().len(), 1);
}

/// Four-eyes review: a proposal moves a match to `proposed`; only a second, different
/// reviewer confirms or rejects it; the log keeps both entries, linked.
pub fn proposals_wait_for_a_second_reviewer(repo: &dyn Both) {
    let mut changes = in_account(DEFAULT_ACCOUNT);
    changes.screenings = vec![screening("scr_01", &["un:1", "un:2"])];
    repo.record(&changes).unwrap();
    let call = |entity: Option<&str>, action, actor: &str, minute| {
        repo.decide(
            DEFAULT_ACCOUNT,
            &NewDecision {
                screening_id: "scr_01".into(),
                entity_id: entity.map(str::to_owned),
                action,
                note: format!("{actor}'s note"),
                actor: actor.into(),
                at: at(minute),
            },
        )
    };
    let propose = ReviewAction::Propose(Decision::TrueMatch);
    let (proposal, status) = call(Some("un:1"), propose, "alice", 1).unwrap();
    assert_eq!(status, ReviewStatus::Proposed);
    assert_eq!(
        (proposal[0].from, proposal[0].to, proposal[0].proposed),
        (
            ReviewStatus::PendingReview,
            ReviewStatus::Proposed,
            Some(Decision::TrueMatch)
        )
    );
    let fp = ReviewAction::Propose(Decision::FalsePositive);
    let (_, status) = call(Some("un:2"), fp, "alice", 2).unwrap();
    assert_eq!(status, ReviewStatus::Proposed);
    let listed = ScreeningFilter {
        status: Some(ReviewStatus::Proposed),
        limit: 10,
        ..Default::default()
    };
    assert_eq!(repo.screenings(DEFAULT_ACCOUNT, &listed).unwrap().len(), 1);
    let own = refused(call(None, ReviewAction::Confirm, "alice", 3));
    assert!(own.contains("a second, different reviewer"), "{own}");
    let direct = refused(call(
        Some("un:1"),
        ReviewAction::Decide(Decision::FalsePositive),
        "bob",
        3,
    ));
    assert!(direct.contains("awaits a second reviewer"), "{direct}");
    let (rejected, status) = call(Some("un:2"), ReviewAction::Reject, "bob", 4).unwrap();
    assert_eq!(status, ReviewStatus::Proposed);
    assert_eq!(rejected[0].to, ReviewStatus::PendingReview);
    assert_eq!(rejected[0].proposal_id, Some(proposal[0].id + 1));
    let (confirmed, status) = call(None, ReviewAction::Confirm, "bob", 5).unwrap();
    assert_eq!(status, ReviewStatus::TrueMatch);
    assert_eq!(confirmed.len(), 1);
    assert_eq!(
        (
            confirmed[0].entity_id.as_deref(),
            confirmed[0].from,
            confirmed[0].to
        ),
        (
            Some("un:1"),
            ReviewStatus::Proposed,
            ReviewStatus::TrueMatch
        )
    );
    assert_eq!(confirmed[0].proposal_id, Some(proposal[0].id));
    let nothing = refused(call(None, ReviewAction::Reject, "carol", 6));
    assert!(nothing.contains("awaits a second reviewer"), "{nothing}");
    let log = repo.decisions(DEFAULT_ACCOUNT, "scr_01").unwrap();
    let who: Vec<(&str, &str)> = log
        .iter()
        .map(|d| (d.actor.as_str(), d.note.as_str()))
        .collect();
    assert_eq!(
        who,
        [
            ("alice", "alice's note"),
            ("alice", "alice's note"),
            ("bob", "bob's note"),
            ("bob", "bob's note")
        ]
    );
    assert_eq!(log[3], confirmed[0]);
    assert_eq!(log[0], proposal[0]);
}

/// Several alerts changed with one note in one transaction: all of them, or none when one
/// cannot take the status or is another account's.
pub fn alerts_change_together_or_not_at_all(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", None).unwrap();
    let mut changes = in_account(&acme.id);
    changes.screenings = vec![screening("scr_01", &["un:1"])];
    changes.alerts = ["alt_01", "alt_02", "alt_03"]
        .iter()
        .map(|id| alert(id, Some("scr_01")))
        .collect();
    repo.record(&changes).unwrap();
    let change = |id: &str, to| AlertChange {
        alert_id: id.to_owned(),
        from: AlertStatus::Open,
        to,
        note: "one note".into(),
        actor: "alice".into(),
        at: at(7),
    };
    repo.change_alert(&acme.id, &change("alt_03", AlertStatus::Resolved))
        .unwrap();
    let status = |id: &str| repo.alert(&acme.id, id).unwrap().unwrap().status;
    // alt_03 is resolved (final): the whole call is refused, alt_01 untouched.
    let ack = |id: &str| change(id, AlertStatus::Acknowledged);
    let refused_all = refused(repo.change_alerts(&acme.id, &[ack("alt_01"), ack("alt_03")]));
    assert!(refused_all.contains("alt_03"), "{refused_all}");
    assert_eq!(status("alt_01"), AlertStatus::Open);
    // Another account's alert is not found, and nothing changes either.
    not_found(repo.change_alerts(DEFAULT_ACCOUNT, &[ack("alt_01")]));
    not_found(repo.change_alerts(&acme.id, &[ack("alt_01"), ack("alt_99")]));
    assert_eq!(status("alt_01"), AlertStatus::Open);
    let done = repo
        .change_alerts(&acme.id, &[ack("alt_01"), ack("alt_02")])
        .unwrap();
    let ids: Vec<(&str, AlertStatus)> = done.iter().map(|a| (a.id.as_str(), a.status)).collect();
    assert_eq!(
        ids,
        [
            ("alt_01", AlertStatus::Acknowledged),
            ("alt_02", AlertStatus::Acknowledged)
        ]
    );
    assert_eq!(status("alt_02"), AlertStatus::Acknowledged);
    let log = repo.alert_changes(&acme.id, Some(at(7)), None).unwrap();
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(log.iter().all(|c| c.note == "one note"));
}

pub fn group_commit_writes_all_or_nothing(repo: &dyn Both) {
    let mut one = in_account(DEFAULT_ACCOUNT);
    one.screenings = vec![screening("scr_01", &["un:1"])];
    let mut two = in_account(DEFAULT_ACCOUNT);
    two.screenings = vec![screening("scr_02", &[])];
    repo.record_all(&[one, two]).unwrap();
    let all = ScreeningFilter {
        limit: 10,
        ..Default::default()
    };
    assert_eq!(repo.screenings(DEFAULT_ACCOUNT, &all).unwrap().len(), 2);
    // A repeated id fails the whole group: the new screening before it is not kept.
    let mut three = in_account(DEFAULT_ACCOUNT);
    three.screenings = vec![screening("scr_03", &[])];
    let mut again = in_account(DEFAULT_ACCOUNT);
    again.screenings = vec![screening("scr_01", &[])];
    assert!(repo.record_all(&[three, again]).is_err());
    assert!(repo.screening(DEFAULT_ACCOUNT, "scr_03").unwrap().is_none());
    assert_eq!(repo.screenings(DEFAULT_ACCOUNT, &all).unwrap().len(), 2);
}

pub fn alerts_and_their_log(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", None).unwrap();
    let mut changes = in_account(&acme.id);
    changes.screenings = vec![screening("scr_01", &["un:1"])];
    changes.alerts = vec![
        alert("alt_01", Some("scr_01")),
        alert("alt_02", Some("scr_01")),
    ];
    repo.record(&changes).unwrap();
    // An alert of no account's (news about a list) reaches every account.
    let news = Changes {
        alerts: vec![Alert {
            kind: AlertKind::ListUpdated,
            ..alert("alt_03", None)
        }],
        ..Changes::default()
    };
    repo.record(&news).unwrap();

    let all = AlertFilter {
        limit: 10,
        ..Default::default()
    };
    let acme_alerts = repo.alerts(&acme.id, &all).unwrap();
    assert_eq!(acme_alerts.len(), 3);
    assert_eq!(repo.alerts(DEFAULT_ACCOUNT, &all).unwrap().len(), 1);
    assert_eq!(
        repo.alert(DEFAULT_ACCOUNT, "alt_03").unwrap().unwrap().kind,
        AlertKind::ListUpdated
    );
    assert_eq!(
        repo.alert(&acme.id, "alt_01").unwrap().unwrap(),
        alert("alt_01", Some("scr_01"))
    );
    assert!(repo.alert(DEFAULT_ACCOUNT, "alt_01").unwrap().is_none());
    let kind = AlertFilter {
        kind: Some(AlertKind::ScreeningMatch),
        limit: 10,
        ..Default::default()
    };
    assert_eq!(repo.alerts(&acme.id, &kind).unwrap().len(), 2);
    let page = AlertFilter {
        before: Some("alt_02".into()),
        limit: 10,
        ..Default::default()
    };
    let ids: Vec<String> = repo
        .alerts(&acme.id, &page)
        .unwrap()
        .into_iter()
        .map(|a| a.id)
        .collect();
    assert!(
        ids.contains(&"alt_01".to_owned()) && !ids.contains(&"alt_02".to_owned()),
        "{ids:?}"
    );

    let change = |id: &str, to| AlertChange {
        alert_id: id.to_owned(),
        from: AlertStatus::Open,
        to,
        note: "seen".into(),
        actor: "alice".into(),
        at: at(7),
    };
    let acked = repo
        .change_alert(&acme.id, &change("alt_01", AlertStatus::Acknowledged))
        .unwrap();
    assert_eq!(acked.status, AlertStatus::Acknowledged);
    repo.change_alert(&acme.id, &change("alt_01", AlertStatus::Resolved))
        .unwrap();
    let back = refused(repo.change_alert(&acme.id, &change("alt_01", AlertStatus::Open)));
    assert!(back.contains("cannot become"), "{back}");
    not_found(repo.change_alert(DEFAULT_ACCOUNT, &change("alt_01", AlertStatus::Resolved)));
    not_found(repo.change_alert(&acme.id, &change("alt_nope", AlertStatus::Resolved)));
    let open = AlertFilter {
        status: Some(AlertStatus::Open),
        limit: 10,
        ..Default::default()
    };
    assert_eq!(repo.alerts(&acme.id, &open).unwrap().len(), 2);

    let log = repo.alert_changes(&acme.id, None, None).unwrap();
    assert_eq!(
        log.iter().map(|c| (c.from, c.to)).collect::<Vec<_>>(),
        [
            (AlertStatus::Open, AlertStatus::Acknowledged),
            (AlertStatus::Acknowledged, AlertStatus::Resolved)
        ]
    );
    assert!(
        repo.alert_changes(DEFAULT_ACCOUNT, None, None)
            .unwrap()
            .is_empty()
    );
    assert!(
        repo.alert_changes(&acme.id, Some(at(8)), None)
            .unwrap()
            .is_empty()
    );
}

fn favorite(id: &str, name: &str, matches: &[(&str, u8)]) -> FavoriteInsert {
    FavoriteInsert {
        favorite: Favorite {
            id: id.to_owned(),
            name: name.to_owned(),
            kind: Some(EntityKind::Individual),
            note: Some("customer".into()),
            dob: None,
            country: None,
            created_at: at(0),
            last_screened_at: Some(at(0)),
            last_match_count: matches.len() as u64,
            last_screening_id: None,
            matched_entity_ids: matches.iter().map(|(e, _)| (*e).to_owned()).collect(),
        },
        norm: format!("individual:{}", name.to_lowercase()),
        matches: matches.iter().map(|(e, s)| ((*e).to_owned(), *s)).collect(),
    }
}

pub fn watchlist_favorites(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", None).unwrap();
    let marker = || repo.marker(WATCHLIST_MARKER).unwrap().unwrap_or(0);
    repo.add_favorite(
        &acme.id,
        &favorite("fav_01", "Ann", &[("un:1", 90)]),
        &in_account(&acme.id),
    )
    .unwrap();
    assert_eq!(marker(), 1);
    let twice = repo.add_favorite(
        &acme.id,
        &favorite("fav_09", "Ann", &[]),
        &Changes::default(),
    );
    assert!(
        matches!(&twice, Err(StoreError::Duplicate { existing_id, .. }) if existing_id == "fav_01"),
        "{twice:?}"
    );
    // The same name in another account is another favorite.
    repo.add_favorite(
        DEFAULT_ACCOUNT,
        &favorite("fav_02", "Ann", &[]),
        &Changes::default(),
    )
    .unwrap();

    let batch = vec![
        (favorite("fav_03", "Bob", &[]), Changes::default()),
        (favorite("fav_04", "Ann", &[]), Changes::default()),
        (favorite("fav_05", "Bob", &[]), Changes::default()),
        (
            favorite("fav_06", "Cy", &[("un:2", 85)]),
            Changes::default(),
        ),
    ];
    assert_eq!(
        repo.import_favorites(&acme.id, &batch).unwrap(),
        ["fav_03", "fav_06"]
    );

    let listed = repo.favorites(&acme.id, None, 10).unwrap();
    assert_eq!(
        listed.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
        ["fav_01", "fav_03", "fav_06"]
    );
    assert_eq!(listed[0].matched_entity_ids, ["un:1"]);
    assert_eq!(listed[0].note.as_deref(), Some("customer"));
    assert_eq!(
        repo.favorites(&acme.id, Some("fav_01"), 1).unwrap()[0].id,
        "fav_03"
    );
    assert_eq!(
        repo.favorite(&acme.id, "fav_06").unwrap().unwrap().name,
        "Cy"
    );
    assert!(repo.favorite(DEFAULT_ACCOUNT, "fav_06").unwrap().is_none());
    assert_eq!(repo.favorite_count(Some(&acme.id)).unwrap(), 3);
    assert_eq!(repo.favorite_count(None).unwrap(), 4);
    let names = repo.favorite_names(Some(&acme.id)).unwrap();
    assert_eq!(names.len(), 3);
    let bob = names.iter().find(|f| f.id == "fav_03").unwrap();
    assert_eq!(
        (bob.id.as_str(), bob.name.as_str(), bob.kind),
        ("fav_03", "Bob", Some(EntityKind::Individual))
    );
    assert_eq!((&bob.dob, &bob.country), (&None, &None));
    assert_eq!(repo.favorite_names(None).unwrap().len(), 4);
    names_in_chunks(repo);
    let matches = repo.favorite_matches().unwrap();
    assert_eq!(matches["fav_06"], [("un:2".to_owned(), 85)]);
    assert!(!matches.contains_key("fav_03"));

    favorite_evidence_round_trips(repo, &acme.id);

    not_found(repo.remove_favorite(DEFAULT_ACCOUNT, "fav_06"));
    let before = marker();
    assert_eq!(repo.remove_favorite(&acme.id, "fav_06").unwrap().name, "Cy");
    assert_eq!(marker(), before + 1);
    not_found(repo.remove_favorite(&acme.id, "fav_06"));
    assert!(!repo.favorite_matches().unwrap().contains_key("fav_06"));
}

/// The names a re-screen reads come in chunks of the size asked, the last shorter, the same
/// names as read whole (four favorites); an error of the receiver ends the read and is its
/// result.
fn names_in_chunks(repo: &dyn Both) {
    let mut every = repo.favorite_names(None).unwrap();
    for chunk in [1, 2, 3, 4, 100] {
        let mut sizes = Vec::new();
        let mut read = Vec::new();
        repo.favorite_names_each(None, chunk, &mut |names| {
            sizes.push(names.len());
            read.extend(names);
            Ok(())
        })
        .unwrap();
        let full = 4 / chunk;
        let mut expected = vec![chunk; full];
        expected.extend((4 % chunk > 0).then_some(4 % chunk));
        assert_eq!(sizes, expected, "chunks of {chunk}");
        read.sort_by(|a, b| a.id.cmp(&b.id));
        every.sort_by(|a, b| a.id.cmp(&b.id));
        assert_eq!(read, every, "chunks of {chunk}");
    }
    let mut calls = 0;
    let stopped = repo.favorite_names_each(None, 1, &mut |_| {
        calls += 1;
        Err(StoreError::Unavailable {
            message: "the receiver is gone".into(),
            source: None,
        })
    });
    assert!(
        matches!(stopped, Err(StoreError::Unavailable { .. })),
        "{stopped:?}"
    );
    assert_eq!(calls, 1);
}

/// A favorite's date of birth and country come back as stored, added one by one or imported,
/// and with the names a re-screen reads.
fn favorite_evidence_round_trips(repo: &dyn Both, account: &str) {
    let mut dana = favorite("fav_07", "Dana", &[]);
    dana.favorite.dob = Some("1952-10-07".into());
    dana.favorite.country = Some("RU".into());
    repo.add_favorite(account, &dana, &Changes::default())
        .unwrap();
    let mut eve = favorite("fav_08", "Eve", &[]);
    eve.favorite.dob = Some("1961".into());
    repo.import_favorites(account, &[(eve, Changes::default())])
        .unwrap();
    let read = repo.favorite(account, "fav_07").unwrap().unwrap();
    assert_eq!(read.dob.as_deref(), Some("1952-10-07"));
    assert_eq!(read.country.as_deref(), Some("RU"));
    let names = repo.favorite_names(Some(account)).unwrap();
    let evidence = |id: &str| {
        let f = names.iter().find(|f| f.id == id).unwrap();
        (f.dob.as_deref(), f.country.as_deref())
    };
    assert_eq!(evidence("fav_07"), (Some("1952-10-07"), Some("RU")));
    assert_eq!(evidence("fav_08"), (Some("1961"), None));
    assert_eq!(evidence("fav_03"), (None, None));
    assert_eq!(repo.favorite(account, "fav_03").unwrap().unwrap().dob, None);
    repo.remove_favorite(account, "fav_07").unwrap();
    repo.remove_favorite(account, "fav_08").unwrap();
}

/// A favorite with a date of birth and a country in the default account (for `store copy`),
/// and the check that `repo` holds it as written.
pub fn favorite_with_evidence(repo: &dyn Both, write: bool) {
    if write {
        let mut dana = favorite("fav_dana", "Dana", &[]);
        dana.favorite.dob = Some("1952-10-07".into());
        dana.favorite.country = Some("RU".into());
        repo.add_favorite(DEFAULT_ACCOUNT, &dana, &Changes::default())
            .unwrap();
    }
    let read = repo.favorite(DEFAULT_ACCOUNT, "fav_dana").unwrap().unwrap();
    assert_eq!(read.dob.as_deref(), Some("1952-10-07"));
    assert_eq!(read.country.as_deref(), Some("RU"));
}

fn run(at_second: i64) -> RescreenRun {
    RescreenRun {
        id: 0,
        at: at(at_second),
        reason: "list update".into(),
        mode: "incremental".into(),
        list_versions: ListVersions::from([(ListCode::Un, 2)]),
        engine_version: "test".into(),
        actor: "cron".into(),
        screened: 1,
        changed: 1,
        alerts: 1,
    }
}

/// A favorite's nearness: unknown when added (and on a row an upgrade gave the columns),
/// kept as set, unknown again when set so; a favorite removed meanwhile is skipped.
pub fn favorite_nearness_round_trips(repo: &dyn Both) {
    for (id, name) in [("fav_n1", "Weihua Du"), ("fav_n2", "Du Yonghao")] {
        repo.add_favorite(
            DEFAULT_ACCOUNT,
            &favorite(id, name, &[]),
            &Changes::default(),
        )
        .unwrap();
    }
    assert!(crate::common::kept_nearness(repo).is_empty());
    let near = Nearness {
        near: 77.25 - 1_000.5,
        low: 300.0 + 1_000.5,
    };
    let rows = [
        ("fav_n1".to_owned(), Some(near)),
        ("fav_n2".to_owned(), None),
        ("fav_gone".to_owned(), Some(near)),
    ];
    repo.set_nearness(&rows).unwrap();
    let kept = crate::common::kept_nearness(repo);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept["fav_n1"], near);
    repo.set_nearness(&[("fav_n1".to_owned(), None)]).unwrap();
    assert!(crate::common::kept_nearness(repo).is_empty());
}

pub fn rescreen_records_once_by_compare_and_set(repo: &dyn Both) {
    repo.add_favorite(
        DEFAULT_ACCOUNT,
        &favorite("fav_01", "Ann", &[]),
        &Changes::default(),
    )
    .unwrap();
    let version = repo.marker(WATCHLIST_MARKER).unwrap().unwrap();
    let update = FavoriteUpdate {
        favorite_id: "fav_01".into(),
        matches: vec![("un:1".into(), 95)],
        gained: vec!["un:1".into()],
        lost: vec![],
        screening_id: None,
    };
    let found = Alert {
        kind: AlertKind::FavoriteMatch,
        favorite_id: Some("fav_01".into()),
        ..alert("alt_01", None)
    };
    let changes = Changes {
        alerts: vec![found.clone()],
        ..Changes::default()
    };
    let moves = [
        MarkerMove {
            key: WATCHLIST_MARKER,
            from: version,
            to: version,
        },
        MarkerMove {
            key: "rescreen_update",
            from: 0,
            to: 7,
        },
    ];
    let id = repo
        .record_rescreen(&run(9), std::slice::from_ref(&update), &changes, &moves)
        .unwrap();
    assert!(id.is_some());
    assert_eq!(repo.marker("rescreen_update").unwrap(), Some(7));
    // A second run that read the same markers records nothing.
    let late = repo
        .record_rescreen(&run(9), std::slice::from_ref(&update), &changes, &moves)
        .unwrap();
    assert_eq!(late, None);
    // One that read the new marker but diffs from the same watchlist version: its alert
    // for the same (favorite, entity) is not recorded twice.
    let next = [
        MarkerMove {
            key: WATCHLIST_MARKER,
            from: version,
            to: version,
        },
        MarkerMove {
            key: "rescreen_update",
            from: 7,
            to: 8,
        },
    ];
    let again = Changes {
        alerts: vec![Alert {
            id: "alt_02".into(),
            ..found
        }],
        ..Changes::default()
    };
    assert!(
        repo.record_rescreen(&run(10), &[update], &again, &next)
            .unwrap()
            .is_some()
    );
    let all = AlertFilter {
        limit: 10,
        ..Default::default()
    };
    let alerts = repo.alerts(DEFAULT_ACCOUNT, &all).unwrap();
    assert_eq!(
        alerts.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["alt_01"]
    );

    assert_eq!(
        repo.favorite_matches().unwrap()["fav_01"],
        [("un:1".to_owned(), 95)]
    );
    let log = repo.favorite_changes("fav_01").unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!((log[0].0.as_str(), log[0].1.as_str()), ("un:1", "gained"));
    let runs = repo.rescreen_runs(10).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].at, at(10));
    assert_eq!(runs[1].list_versions, run(9).list_versions);
    let fav = repo.favorite(DEFAULT_ACCOUNT, "fav_01").unwrap().unwrap();
    assert_eq!(fav.last_match_count, 1);
    assert_eq!(fav.last_screened_at, Some(at(10)));
}

fn webhook(id: &str, events: &[&str]) -> WebhookRecord {
    WebhookRecord {
        id: id.to_owned(),
        url: "http://127.0.0.1:9/hook".into(),
        events: events.iter().map(|e| (*e).to_owned()).collect(),
        description: Some("ops".into()),
        secret: "whsec_test".into(),
        active: true,
        disabled_reason: None,
        created_at: at(0),
        updated_at: at(0),
    }
}

fn event(id: &str, screening_id: &str) -> OutboxEvent {
    OutboxEvent {
        event_id: id.to_owned(),
        kind: "screening.match".into(),
        created_at: at(2),
        payload: serde_json::json!({"screening_id": screening_id}),
    }
}

fn attempt(webhook_id: &str, event_id: &str, status: Option<u16>) -> AttemptRecord {
    AttemptRecord {
        webhook_id: webhook_id.to_owned(),
        event_id: event_id.to_owned(),
        kind: "screening.match".into(),
        attempt: 1,
        at: at(20),
        status_code: status,
        latency_ms: 12,
        error: None,
        response: Some("ok".into()),
    }
}

pub fn webhooks_deliveries_and_claims(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", Some(Plan::Business)).unwrap();
    // An event nobody subscribes to is not kept: a webhook created later never sees it.
    let mut early = in_account(&acme.id);
    early.screenings = vec![screening("scr_00", &["un:1"])];
    early.events = vec![event("evt_00", "scr_00")];
    repo.record(&early).unwrap();

    repo.insert_webhook(&acme.id, &webhook("wh_01", &["screening.match"]))
        .unwrap();
    assert_eq!(
        repo.webhooks(&acme.id).unwrap(),
        [webhook("wh_01", &["screening.match"])]
    );
    assert!(repo.webhooks(DEFAULT_ACCOUNT).unwrap().is_empty());
    assert!(repo.webhook(DEFAULT_ACCOUNT, "wh_01").unwrap().is_none());
    not_found(repo.update_webhook(DEFAULT_ACCOUNT, &webhook("wh_01", &[])));
    not_found(repo.delete_webhook(DEFAULT_ACCOUNT, "wh_01"));
    let described = WebhookRecord {
        description: Some("changed".into()),
        ..webhook("wh_01", &["screening.match"])
    };
    repo.update_webhook(&acme.id, &described).unwrap();
    assert_eq!(repo.webhook(&acme.id, "wh_01").unwrap().unwrap(), described);

    let mut changes = in_account(&acme.id);
    changes.screenings = vec![screening("scr_01", &["un:1"])];
    changes.events = vec![event("evt_01", "scr_01")];
    repo.record(&changes).unwrap();
    // Another account's event never reaches this webhook.
    let mut foreign = in_account(DEFAULT_ACCOUNT);
    foreign.screenings = vec![screening("scr_02", &["un:1"])];
    foreign.events = vec![event("evt_02", "scr_02")];
    repo.record(&foreign).unwrap();
    assert_eq!(repo.pending_total().unwrap(), 1);

    assert_eq!(repo.fan_out(at(10)).unwrap(), 1);
    assert_eq!(repo.fan_out(at(10)).unwrap(), 0);
    assert_eq!(repo.pending_deliveries("wh_01").unwrap(), 1);
    assert_eq!(repo.due_deliveries(at(10), 10).unwrap().len(), 1);
    assert!(repo.due_deliveries(at(9), 10).unwrap().is_empty());

    fn claim(owner: &str) -> DeliveryClaim<'_> {
        DeliveryClaim {
            owner,
            now: at(11),
            until: at(71),
            skip: &[],
        }
    }
    let mine = repo.claim_deliveries(&claim("worker-a"), 10).unwrap();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].event.event_id, "evt_01");
    assert_eq!(mine[0].webhook.id, "wh_01");
    assert_eq!(mine[0].attempts, 0);
    assert!(
        repo.claim_deliveries(&claim("worker-b"), 10)
            .unwrap()
            .is_empty()
    );
    assert_eq!(repo.renew_claims("worker-a", at(90)).unwrap(), 1);
    assert_eq!(repo.renew_claims("worker-b", at(90)).unwrap(), 0);

    let retry = DeliveryOutcome::Retry(at(30));
    holder("worker-a");
    record_attempted(
        repo,
        &attempt("wh_01", "evt_01", Some(500)),
        Some(mine[0].seq),
        &retry,
        None,
    )
    .unwrap();
    assert!(repo.due_deliveries(at(29), 10).unwrap().is_empty());
    let again = repo
        .claim_deliveries(
            &DeliveryClaim {
                owner: "worker-b",
                now: at(30),
                until: at(90),
                skip: &[],
            },
            10,
        )
        .unwrap();
    assert_eq!(again[0].attempts, 1);
    holder("worker-b");
    record_attempted(
        repo,
        &attempt("wh_01", "evt_01", Some(204)),
        Some(again[0].seq),
        &DeliveryOutcome::Delivered,
        None,
    )
    .unwrap();
    assert_eq!(repo.pending_deliveries("wh_01").unwrap(), 0);
    assert_eq!(repo.pending_total().unwrap(), 0);
    let log = repo.webhook_attempts(&acme.id, "wh_01", 10).unwrap();
    assert_eq!(
        log.iter().map(|a| a.status_code).collect::<Vec<_>>(),
        [Some(204), Some(500)]
    );
    assert!(
        repo.webhook_attempts(DEFAULT_ACCOUNT, "wh_01", 10)
            .unwrap()
            .is_empty()
    );
    assert_eq!(repo.webhook_last_success("wh_01").unwrap(), Some(at(20)));

    // A 410 disables the webhook and alerts its account once.
    let gone = DeliveryOutcome::Disable("the endpoint answered 410 Gone".into());
    let notice = Alert {
        kind: AlertKind::WebhookDisabled,
        ..alert("alt_wh", None)
    };
    record_attempted(
        repo,
        &attempt("wh_01", "evt_01", Some(410)),
        None,
        &gone,
        Some(&notice),
    )
    .unwrap();
    let disabled = repo.webhook(&acme.id, "wh_01").unwrap().unwrap();
    assert!(!disabled.active);
    assert_eq!(
        disabled.disabled_reason.as_deref(),
        Some("the endpoint answered 410 Gone")
    );
    assert_eq!(
        repo.alert(&acme.id, "alt_wh").unwrap().unwrap().kind,
        AlertKind::WebhookDisabled
    );

    repo.delete_webhook(&acme.id, "wh_01").unwrap();
    assert!(repo.webhooks(&acme.id).unwrap().is_empty());
    for n in 0..sanctions_store::MAX_WEBHOOKS {
        repo.insert_webhook(
            &acme.id,
            &webhook(&format!("wh_{n:02}"), &["alert.created"]),
        )
        .unwrap();
    }
    let full = refused(repo.insert_webhook(&acme.id, &webhook("wh_99", &["alert.created"])));
    assert!(full.contains("at most"), "{full}");
}

pub fn an_expired_lease_is_claimed_again(repo: &dyn Both) {
    repo.insert_webhook(DEFAULT_ACCOUNT, &webhook("wh_01", &["screening.match"]))
        .unwrap();
    let mut changes = in_account(DEFAULT_ACCOUNT);
    changes.screenings = vec![screening("scr_01", &["un:1"])];
    changes.events = vec![event("evt_01", "scr_01")];
    repo.record(&changes).unwrap();
    repo.fan_out(at(0)).unwrap();
    let dead = DeliveryClaim {
        owner: "died",
        now: at(1),
        until: at(5),
        skip: &[],
    };
    assert_eq!(repo.claim_deliveries(&dead, 10).unwrap().len(), 1);
    let early = DeliveryClaim {
        owner: "heir",
        now: at(4),
        until: at(60),
        skip: &[],
    };
    assert!(repo.claim_deliveries(&early, 10).unwrap().is_empty());
    let late = DeliveryClaim {
        owner: "heir",
        now: at(5),
        until: at(60),
        skip: &[],
    };
    let taken = repo.claim_deliveries(&late, 10).unwrap();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].event.event_id, "evt_01");
    assert_eq!(repo.renew_claims("died", at(99)).unwrap(), 0);
}

pub fn a_list_update_is_an_event_for_every_account(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", None).unwrap();
    repo.insert_webhook(&acme.id, &webhook("wh_a", &["list.updated"]))
        .unwrap();
    repo.insert_webhook(DEFAULT_ACCOUNT, &webhook("wh_d", &["list.updated"]))
        .unwrap();
    let update = repo
        .replace_list(&parsed(vec![entity("1", "A")]), "test")
        .unwrap();
    // No change, no event.
    repo.replace_list(&parsed(vec![entity("1", "A")]), "test")
        .unwrap();
    assert_eq!(repo.fan_out(at(0)).unwrap(), 2);
    let due = repo.due_deliveries(at(0), 10).unwrap();
    assert_eq!(due.len(), 2);
    assert_eq!(due[0].event.kind, "list.updated");
    assert_eq!(due[0].event.payload["update_id"], update.id);
    assert_eq!(due[0].event.payload["added"], 1);
    assert_eq!(due[0].event.event_id, due[1].event.event_id);
}

fn brief(id: &str, guid: &str, list: &str, title: &str, published: i64) -> BriefRecord {
    BriefRecord {
        id: id.to_owned(),
        source: "list_update".into(),
        guid: guid.to_owned(),
        title: title.to_owned(),
        summary: "summary".into(),
        body: "# body 100%".into(),
        url: None,
        published_at: at(published),
        lists: vec![list.to_owned()],
        countries: vec!["IQ".into()],
        entity_ids: vec!["un:1".into()],
        severity: "high".into(),
        created_at: at(published),
    }
}

pub fn briefs_stored_once_and_filtered(repo: &dyn Both) {
    let first = repo
        .replace_list(&parsed(vec![entity("1", "A")]), "test")
        .unwrap();
    assert_eq!(
        repo.updates_without_brief(10).unwrap(),
        [(first.id, "un".to_owned())]
    );
    let guid = format!("update:{}", first.id);
    let briefs = [
        brief("brf_1", &guid, "un", "UN adds one", 1),
        brief("brf_2", "other", "eu", "EU removes two", 2),
    ];
    assert_eq!(repo.insert_briefs(&briefs).unwrap(), 2);
    assert_eq!(repo.insert_briefs(&briefs).unwrap(), 0);
    assert!(repo.updates_without_brief(10).unwrap().is_empty());

    let all = repo
        .briefs(&BriefFilter {
            limit: 10,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        all.iter().map(|b| b.id.as_str()).collect::<Vec<_>>(),
        ["brf_2", "brf_1"]
    );
    let filter = |f: BriefFilter| -> Vec<String> {
        repo.briefs(&BriefFilter { limit: 10, ..f })
            .unwrap()
            .into_iter()
            .map(|b| b.id)
            .collect()
    };
    assert_eq!(
        filter(BriefFilter {
            list: Some("un".into()),
            ..Default::default()
        }),
        ["brf_1"]
    );
    assert_eq!(
        filter(BriefFilter {
            country: Some("iq".into()),
            ..Default::default()
        })
        .len(),
        2
    );
    assert!(
        filter(BriefFilter {
            country: Some("FR".into()),
            ..Default::default()
        })
        .is_empty()
    );
    assert_eq!(
        filter(BriefFilter {
            q: Some("eu REMOVES".into()),
            ..Default::default()
        }),
        ["brf_2"]
    );
    assert_eq!(
        filter(BriefFilter {
            q: Some("100%".into()),
            ..Default::default()
        })
        .len(),
        2
    );
    assert!(
        filter(BriefFilter {
            q: Some("_".into()),
            ..Default::default()
        })
        .is_empty()
    );
    assert_eq!(
        filter(BriefFilter {
            since: Some(at(2)),
            ..Default::default()
        }),
        ["brf_2"]
    );
    assert_eq!(
        filter(BriefFilter {
            after: Some("brf_2".into()),
            ..Default::default()
        }),
        ["brf_1"]
    );
    assert_eq!(repo.brief("brf_1").unwrap().unwrap(), briefs[0]);
}

fn new_key(id: &str, hash: &str, account: &str, label: &str) -> NewApiKey {
    NewApiKey {
        key: ApiKey {
            id: id.to_owned(),
            prefix: "sk_live_abc".to_owned(),
            label: Some(label.to_owned()),
            plan: Plan::Pro,
            created_at: at(0),
            revoked_at: None,
            account_id: account.to_owned(),
            account: account.to_owned(),
            scopes: Scope::defaults(Plan::Pro),
        },
        hash: hash.to_owned(),
    }
}

pub fn keys_accounts_and_credits(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", Some(Plan::Business)).unwrap();
    assert_eq!(repo.ensure_account("acme", None).unwrap(), acme);
    let wrong = refused(repo.ensure_account("acme", Some(Plan::Free)));
    assert!(wrong.contains("set-plan"), "{wrong}");
    assert_eq!(repo.account_named("acme").unwrap(), Some(acme.clone()));
    assert!(repo.account_named("nobody").unwrap().is_none());

    repo.create_key(&new_key("key_1", "h1", &acme.id, "ci"))
        .unwrap();
    let label = refused(repo.create_key(&new_key("key_2", "h2", &acme.id, "ci")));
    assert!(
        label.contains("\"ci\" is already used by key key_1"),
        "{label}"
    );
    assert!(
        repo.create_key(&new_key("key_3", "h1", &acme.id, "other"))
            .is_err()
    );
    not_found(repo.create_key(&new_key("key_4", "h4", "acct_nope", "x")));
    repo.create_key(&new_key("key_5", "h5", DEFAULT_ACCOUNT, "ci"))
        .unwrap();

    let found = repo.keys_with_prefix("sk_live_abc").unwrap();
    assert_eq!(found.len(), 2);
    let (key, hash) = found.iter().find(|(k, _)| k.id == "key_1").unwrap();
    assert_eq!(
        (hash.as_str(), key.plan, key.account.as_str()),
        ("h1", Plan::Business, "acme")
    );
    assert_eq!(key.scopes, Scope::defaults(Plan::Pro));
    assert_eq!(repo.api_keys().unwrap().len(), 2);
    assert_eq!(repo.account_keys(&acme.id).unwrap().len(), 1);
    assert_eq!(repo.keys_fingerprint().unwrap(), (2, 0));

    assert!(repo.revoke_key("key_1").unwrap().revoked_at.is_some());
    assert_eq!(repo.keys_fingerprint().unwrap(), (2, 1));
    repo.revoke_key("key_1").unwrap();
    assert_eq!(repo.keys_fingerprint().unwrap(), (2, 1));
    not_found(repo.revoke_key("key_nope"));
    repo.create_key(&new_key("key_6", "h6", &acme.id, "ci"))
        .unwrap();

    let before = repo.keys_fingerprint().unwrap();
    assert_eq!(
        repo.set_account_plan("acme", Plan::Pro).unwrap().plan,
        Plan::Pro
    );
    assert_ne!(repo.keys_fingerprint().unwrap(), before);
    let plan = |id: &str| {
        repo.api_keys()
            .unwrap()
            .into_iter()
            .find(|k| k.id == id)
            .unwrap()
            .plan
    };
    assert_eq!(plan("key_6"), Plan::Pro);
    not_found(repo.set_account_plan("nobody", Plan::Pro));
    let names: Vec<String> = repo
        .accounts()
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names, ["acme", "default"]);

    let id = acme.id.as_str();
    assert_eq!(
        repo.take_credits(id, "2026-11", 8, Some(10)).unwrap(),
        Ok(8)
    );
    assert_eq!(
        repo.take_credits(id, "2026-11", 3, Some(10)).unwrap(),
        Err(8)
    );
    assert_eq!(
        repo.take_credits(id, "2026-11", 2, Some(10)).unwrap(),
        Ok(10)
    );
    repo.return_credits(id, "2026-11", 2).unwrap();
    repo.return_credits(id, "2026-10", 2).unwrap();
    assert_eq!(repo.credits_used(id, "2026-11").unwrap(), 8);
    assert_eq!(repo.credits_used(id, "2026-12").unwrap(), 0);
    assert_eq!(
        repo.take_credits(id, "2026-12", 11, Some(10)).unwrap(),
        Err(0)
    );
    assert_eq!(
        repo.take_credits(id, "2026-12", 900, None).unwrap(),
        Ok(900)
    );
    assert_eq!(repo.credits_used(DEFAULT_ACCOUNT, "2026-12").unwrap(), 0);
}

pub fn credits_taken_concurrently_never_overspend(repo: &dyn Both) {
    let taken = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..6 {
            scope.spawn(|| {
                for _ in 0..5 {
                    if repo
                        .take_credits(DEFAULT_ACCOUNT, "2026-11", 1, Some(17))
                        .unwrap()
                        .is_ok()
                    {
                        taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(taken.into_inner(), 17);
    assert_eq!(repo.credits_used(DEFAULT_ACCOUNT, "2026-11").unwrap(), 17);
}

/// A job (a brief, a scheduled read) is held by one owner at a time: taken when free,
/// renewed by its owner, refused to another while the lease runs, taken over once it has
/// run out, and released only by its holder.
pub fn jobs_are_claimed_once_and_taken_over_after_their_lease(repo: &dyn Both) {
    let now: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let at = |secs: i64| now + jiff::SignedDuration::from_secs(secs);
    let claim = |owner: &'static str, from: i64, to: i64| JobClaim {
        job: "brief:update:7",
        owner,
        now: at(from),
        until: at(to),
    };
    assert!(repo.claim_job(&claim("a", 0, 60)).unwrap(), "free: taken");
    assert!(!repo.claim_job(&claim("b", 1, 61)).unwrap(), "held by a");
    assert!(repo.claim_job(&claim("a", 30, 90)).unwrap(), "renewed by a");
    assert!(
        !repo.claim_job(&claim("b", 61, 120)).unwrap(),
        "renewed past 60"
    );
    // Another job is its own.
    let other = JobClaim {
        job: "feed:news",
        ..claim("b", 61, 120)
    };
    assert!(repo.claim_job(&other).unwrap());
    // a dies: its lease runs out at 90, and b takes the job over.
    assert!(
        repo.claim_job(&claim("b", 90, 150)).unwrap(),
        "expired: taken over"
    );
    assert!(!repo.claim_job(&claim("a", 91, 151)).unwrap(), "a lost it");
    assert!(
        !repo.release_job("brief:update:7", "a").unwrap(),
        "only the holder releases"
    );
    assert!(!repo.claim_job(&claim("c", 100, 160)).unwrap(), "still b's");
    assert!(repo.release_job("brief:update:7", "b").unwrap());
    assert!(
        repo.claim_job(&claim("c", 100, 160)).unwrap(),
        "released: free"
    );
}

/// Many threads asking for one job at once: exactly one gets it.
pub fn one_of_many_concurrent_claims_wins(repo: &dyn Both) {
    let now = Timestamp::now();
    let until = now + jiff::SignedDuration::from_secs(60);
    let won = std::sync::atomic::AtomicU64::new(0);
    let owners: Vec<String> = (0..8).map(|i| format!("owner-{i}")).collect();
    std::thread::scope(|scope| {
        for owner in &owners {
            let won = &won;
            scope.spawn(move || {
                let claim = JobClaim {
                    job: "rescreen:scheduled",
                    owner,
                    now,
                    until,
                };
                if retry_busy(|| repo.claim_job(&claim)) {
                    won.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(won.into_inner(), 1);
}

/// `call`, tried again while the store says it is busy (a transient error, by its kind).
fn retry_busy<T>(call: impl Fn() -> Result<T, StoreError>) -> T {
    loop {
        match call() {
            Ok(value) => return value,
            Err(e) if e.is_transient() => assert!(matches!(e, StoreError::Busy { .. }), "{e:?}"),
            Err(e) => panic!("{e:?}"),
        }
    }
}

/// Errors come in the backend-neutral kinds, whatever the backend: a missing row is
/// `NotFound`, a refused rule `Refused`, a duplicate favorite `Duplicate`; and their
/// messages never name the backend's driver types.
pub fn errors_are_backend_neutral(repo: &dyn Both) {
    let missing = repo.remove_favorite(DEFAULT_ACCOUNT, "fav_missing");
    assert!(
        matches!(&missing, Err(StoreError::NotFound { what: _, id }) if id == "fav_missing"),
        "{missing:?}"
    );
    let decision = NewDecision {
        screening_id: "scr_missing".into(),
        entity_id: None,
        action: ReviewAction::Decide(Decision::TrueMatch),
        note: "n".into(),
        actor: "a".into(),
        at: Timestamp::now(),
    };
    let refused = repo.decide(DEFAULT_ACCOUNT, &decision);
    assert!(
        matches!(
            &refused,
            Err(StoreError::NotFound { .. } | StoreError::Refused(_))
        ),
        "{refused:?}"
    );
    for error in [missing.err(), refused.err()].into_iter().flatten() {
        let text = format!("{error} {error:?}");
        assert!(
            !text.contains("rusqlite") && !text.contains("SqliteFailure"),
            "{text}"
        );
        assert!(!error.is_transient() && error.retry_after().is_none());
    }
}

/// One attempt recorded for whoever holds its claim (a test attempt when `seq` is none).
fn record_attempted(
    repo: &dyn Both,
    attempt: &AttemptRecord,
    seq: Option<i64>,
    outcome: &DeliveryOutcome,
    alert: Option<&Alert>,
) -> Result<usize, StoreError> {
    let owner = match seq {
        Some(_) => OWNER.with(|o| o.borrow().clone()),
        None => String::new(),
    };
    repo.record_deliveries(
        &owner,
        &[DeliveryRecord::Attempted {
            attempt: attempt.clone(),
            seq,
            outcome: outcome.clone(),
            alert: alert.map(|a| Box::new(a.clone())),
        }],
    )
}

thread_local! {
    /// The worker whose claims `record_attempted` records.
    static OWNER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

fn holder(owner: &str) {
    OWNER.with(|o| *o.borrow_mut() = owner.to_owned());
}
