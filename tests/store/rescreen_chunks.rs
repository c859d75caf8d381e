//! Full re-screens in claimed chunks (issue 25), on both backends: a run opened once per
//! scope and joined, its chunks claimed once each, renewed, taken over when a lease runs
//! out, a stale holder's commit refused (nothing written), a commit refused when a favorite
//! changed under it, and the run finished exactly once with the chunks' counts.
#![allow(clippy::unwrap_used)]

use crate::conformance::{self, Both};

use jiff::{SignedDuration, Timestamp};
use sanctions_model::{
    Alert, AlertFilter, AlertKind, AlertStatus, EntityKind, Favorite, ListVersions, OutboxEvent,
    RescreenRun, Severity,
};
use sanctions_store::{
    Changes, ChunkClaim, ChunkCommit, ChunkDone, ChunkLease, ChunkRunStart, DEFAULT_ACCOUNT,
    EVERY_ACCOUNT, FavoriteInsert, FavoriteUpdate, Nearness, RescreenChunk, WebhookRecord,
};

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_790_000_000 + seconds).unwrap()
}

fn favorite(i: usize, matches: &[(&str, u8)]) -> FavoriteInsert {
    let name = format!("Customer Number {i:03}");
    FavoriteInsert {
        favorite: Favorite {
            id: format!("fav_{i:03}"),
            name: name.clone(),
            kind: Some(EntityKind::Individual),
            note: None,
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

fn lease(run_id: i64, owner: &str, from: i64, to: i64) -> ChunkLease<'_> {
    ChunkLease {
        run_id,
        owner,
        now: at(from),
        until: at(to),
    }
}

fn claimed(claim: ChunkClaim) -> RescreenChunk {
    match claim {
        ChunkClaim::Claimed(chunk) => chunk,
        other => panic!("no chunk claimed: {other:?}"),
    }
}

fn record() -> RescreenRun {
    RescreenRun {
        id: 0,
        at: at(0),
        reason: "scheduled".into(),
        mode: "full".into(),
        list_versions: ListVersions::new(),
        engine_version: "test".into(),
        actor: "tester".into(),
        screened: 0,
        changed: 0,
        alerts: 0,
    }
}

/// The update of a favorite gaining `entity`, with its alert and event.
fn gained(favorite: &str, entity: &str, alert_id: &str) -> (FavoriteUpdate, Changes) {
    let update = FavoriteUpdate {
        favorite_id: favorite.to_owned(),
        matches: vec![(entity.to_owned(), 93)],
        gained: vec![entity.to_owned()],
        lost: vec![],
        screening_id: None,
    };
    let alert = Alert {
        id: alert_id.to_owned(),
        kind: AlertKind::FavoriteMatch,
        severity: Severity::High,
        title: "watchlist name newly matches 1 entry".into(),
        message: "new".into(),
        created_at: at(5),
        status: AlertStatus::Open,
        screening_id: None,
        favorite_id: Some(favorite.to_owned()),
        list: None,
        entity_ids: vec![entity.to_owned()],
    };
    let event = OutboxEvent {
        event_id: format!("evt_{alert_id}"),
        kind: "favorite.match".into(),
        created_at: at(5),
        payload: serde_json::json!({"favorite_id": favorite, "alert_id": alert_id}),
    };
    let changes = Changes {
        alerts: vec![alert],
        events: vec![event],
        ..Changes::default()
    };
    (update, changes)
}

fn done<'a>(
    chunk: &'a RescreenChunk,
    owner: &'a str,
    screened: u64,
    (updates, changes): (&'a [FavoriteUpdate], &'a Changes),
) -> ChunkDone<'a> {
    ChunkDone {
        chunk,
        owner,
        at: at(5),
        screened,
        updates,
        changes,
    }
}

/// A webhook of the default account for `favorite.match` events.
fn subscribe(repo: &dyn Both) {
    let hook = WebhookRecord {
        id: "wh_01".into(),
        url: "http://127.0.0.1:9/hook".into(),
        events: vec!["favorite.match".into()],
        description: None,
        secret: "whsec_test".into(),
        active: true,
        disabled_reason: None,
        created_at: at(0),
        updated_at: at(0),
    };
    repo.insert_webhook(DEFAULT_ACCOUNT, &hook).unwrap();
}

/// The events recorded so far, as deliveries to the one webhook.
fn events(repo: &dyn Both) -> usize {
    repo.fan_out(at(100)).unwrap();
    repo.pending_total().unwrap() as usize
}

fn chunks_claimed_renewed_taken_over_and_finished_once(repo: &dyn Both) {
    let favorites: Vec<_> = (0..25)
        .map(|i| (favorite(i, &[]), Changes::default()))
        .collect();
    repo.import_favorites(DEFAULT_ACCOUNT, &favorites).unwrap();
    subscribe(repo);
    let start = ChunkRunStart {
        scope: EVERY_ACCOUNT,
        reason: "scheduled",
        now: at(0),
        chunk_size: 10,
    };
    let run = repo.open_rescreen_chunks(&start).unwrap();
    // 25 favorites by 10: two full chunks, then the unbounded rest.
    assert_eq!((run.chunks, run.done, run.held), (3, 0, 0));
    assert_eq!(
        repo.open_rescreen_chunks(&start).unwrap().id,
        run.id,
        "joined"
    );

    let a = claimed(
        repo.claim_rescreen_chunk(&lease(run.id, "a", 1, 61))
            .unwrap(),
    );
    let b = claimed(
        repo.claim_rescreen_chunk(&lease(run.id, "b", 1, 61))
            .unwrap(),
    );
    let c = claimed(
        repo.claim_rescreen_chunk(&lease(run.id, "c", 1, 61))
            .unwrap(),
    );
    assert_eq!((a.seq, b.seq, c.seq), (0, 1, 2));
    assert_eq!(
        (a.after.as_deref(), a.last.as_deref()),
        (None, Some("fav_009"))
    );
    assert_eq!(c.last, None);
    let ids = |chunk: &RescreenChunk| {
        repo.rescreen_chunk_favorites(chunk)
            .unwrap()
            .into_iter()
            .map(|f| f.favorite.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&a).len(), 10);
    assert_eq!(ids(&b).first().map(String::as_str), Some("fav_010"));
    // Each favorite with the nearness kept for it (unknown until set), so that a re-screen
    // writes only the values that changed.
    let near = Nearness {
        near: 61.25,
        low: 300.0,
    };
    repo.set_nearness(&[("fav_001".to_owned(), Some(near))])
        .unwrap();
    let kept: Vec<Option<Nearness>> = repo
        .rescreen_chunk_favorites(&a)
        .unwrap()
        .into_iter()
        .take(3)
        .map(|f| f.favorite.nearness)
        .collect();
    assert_eq!(kept, [None, Some(near), None]);
    assert_eq!(ids(&c).len(), 5);
    assert_eq!(
        repo.claim_rescreen_chunk(&lease(run.id, "d", 2, 62))
            .unwrap(),
        ChunkClaim::Held
    );
    assert_eq!(
        repo.rescreen_chunk_run(run.id, at(2))
            .unwrap()
            .unwrap()
            .held,
        3
    );

    // a renews; b does not and dies: at 61 its chunk is d's, and a's is not.
    assert!(repo.renew_rescreen_chunk(&a, "a", at(120)).unwrap());
    assert!(
        !repo.renew_rescreen_chunk(&a, "b", at(120)).unwrap(),
        "only the holder renews"
    );
    let taken = claimed(
        repo.claim_rescreen_chunk(&lease(run.id, "d", 61, 121))
            .unwrap(),
    );
    assert_eq!(taken.seq, 1, "b's chunk taken over after its lease");
    assert!(
        !repo.renew_rescreen_chunk(&b, "b", at(130)).unwrap(),
        "b lost it"
    );

    // b's late commit writes nothing: no matches, alert, event or chunk done.
    let (update, changes) = gained("fav_012", "un:1", "alt_b");
    let stale = done(&b, "b", 10, (std::slice::from_ref(&update), &changes));
    assert_eq!(
        repo.commit_rescreen_chunk(&stale).unwrap(),
        ChunkCommit::Lost
    );
    let all = AlertFilter {
        limit: 10,
        ..Default::default()
    };
    assert!(repo.alerts(DEFAULT_ACCOUNT, &all).unwrap().is_empty());
    assert!(!repo.favorite_matches().unwrap().contains_key("fav_012"));
    assert_eq!(events(repo), 0);

    // d commits the same diff: recorded once, with its event.
    let (update, changes) = gained("fav_012", "un:1", "alt_d");
    let good = done(&taken, "d", 10, (std::slice::from_ref(&update), &changes));
    assert_eq!(
        repo.commit_rescreen_chunk(&good).unwrap(),
        ChunkCommit::Done(vec!["alt_d".into()])
    );
    assert_eq!(
        repo.commit_rescreen_chunk(&good).unwrap(),
        ChunkCommit::Lost,
        "done once"
    );
    assert_eq!(
        repo.favorite_matches().unwrap()["fav_012"],
        [("un:1".to_owned(), 93)]
    );
    assert_eq!(events(repo), 1);

    // Not finished while a chunk is open; a and c finish theirs.
    assert_eq!(
        repo.finish_rescreen_chunks(run.id, &record(), at(6))
            .unwrap(),
        None
    );
    let nothing = Changes::default();
    for (chunk, owner, n) in [(&a, "a", 10), (&c, "c", 5)] {
        let ok = repo.commit_rescreen_chunk(&done(chunk, owner, n, (&[], &nothing)));
        assert_eq!(ok.unwrap(), ChunkCommit::Done(vec![]));
    }
    assert_eq!(
        repo.claim_rescreen_chunk(&lease(run.id, "e", 7, 67))
            .unwrap(),
        ChunkClaim::AllDone
    );
    let finished = repo
        .finish_rescreen_chunks(run.id, &record(), at(8))
        .unwrap();
    assert!(finished.is_some());
    assert_eq!(
        repo.finish_rescreen_chunks(run.id, &record(), at(9))
            .unwrap(),
        None,
        "once"
    );
    let state = repo.rescreen_chunk_run(run.id, at(9)).unwrap().unwrap();
    assert_eq!(state.rescreen_run_id, finished);
    assert_eq!(
        (state.done, state.screened, state.changed, state.alerts),
        (3, 25, 1, 1)
    );
    assert_eq!(state.finished_at, Some(at(8)));
    let runs = repo.rescreen_runs(10).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(
        (
            runs[0].id,
            runs[0].screened,
            runs[0].changed,
            runs[0].alerts
        ),
        (finished.unwrap(), 25, 1, 1)
    );
    assert_eq!(repo.alerts(DEFAULT_ACCOUNT, &all).unwrap().len(), 1);
    assert_eq!(events(repo), 1, "one event, delivered once");
    assert!(repo.open_rescreen_chunk_runs(at(9), 10).unwrap().is_empty());
    // The next run of the scope is a new one.
    assert_ne!(repo.open_rescreen_chunks(&start).unwrap().id, run.id);
}

fn a_commit_over_changed_favorites_is_refused(repo: &dyn Both) {
    let acme = repo.ensure_account("acme", None).unwrap();
    let mine: Vec<_> = (0..3)
        .map(|i| (favorite(i, &[]), Changes::default()))
        .collect();
    repo.import_favorites(DEFAULT_ACCOUNT, &mine).unwrap();
    repo.import_favorites(&acme.id, &[(favorite(7, &[]), Changes::default())])
        .unwrap();
    let start = ChunkRunStart {
        scope: DEFAULT_ACCOUNT,
        reason: "manual",
        now: at(0),
        chunk_size: 2,
    };
    let run = repo.open_rescreen_chunks(&start).unwrap();
    assert_eq!(run.chunks, 2, "fav_000-fav_001, then the rest");
    let every = ChunkRunStart {
        scope: EVERY_ACCOUNT,
        ..start
    };
    assert_ne!(
        repo.open_rescreen_chunks(&every).unwrap().id,
        run.id,
        "scopes apart"
    );
    let chunk = claimed(
        repo.claim_rescreen_chunk(&lease(run.id, "a", 1, 61))
            .unwrap(),
    );
    let ids: Vec<String> = repo
        .rescreen_chunk_favorites(&chunk)
        .unwrap()
        .into_iter()
        .map(|f| f.favorite.id)
        .collect();
    assert_eq!(ids, ["fav_000", "fav_001"]);

    // Another run records fav_001's gain first: this chunk's diff is stale.
    let (update, changes) = gained("fav_001", "un:1", "alt_other");
    let moves = [sanctions_store::MarkerMove {
        key: sanctions_store::WATCHLIST_MARKER,
        from: repo
            .marker(sanctions_store::WATCHLIST_MARKER)
            .unwrap()
            .unwrap_or(0),
        to: repo
            .marker(sanctions_store::WATCHLIST_MARKER)
            .unwrap()
            .unwrap_or(0)
            + 1,
    }];
    repo.record_rescreen(&record(), std::slice::from_ref(&update), &changes, &moves)
        .unwrap()
        .unwrap();
    let (late, late_changes) = gained("fav_001", "un:1", "alt_late");
    let commit = done(&chunk, "a", 2, (std::slice::from_ref(&late), &late_changes));
    assert_eq!(
        repo.commit_rescreen_chunk(&commit).unwrap(),
        ChunkCommit::Stale
    );
    // Read again, nothing new: done, no second alert.
    let again = repo.rescreen_chunk_favorites(&chunk).unwrap();
    assert_eq!(again[1].matches, [("un:1".to_owned(), 93)]);
    let nothing = Changes::default();
    assert_eq!(
        repo.commit_rescreen_chunk(&done(&chunk, "a", 2, (&[], &nothing)))
            .unwrap(),
        ChunkCommit::Done(vec![])
    );
    let all = AlertFilter {
        limit: 10,
        ..Default::default()
    };
    let alerts = repo.alerts(DEFAULT_ACCOUNT, &all).unwrap();
    assert_eq!(
        alerts.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["alt_other"]
    );
    // A favorite removed under a chunk: its diff is stale too.
    let rest = claimed(
        repo.claim_rescreen_chunk(&lease(run.id, "a", 2, 62))
            .unwrap(),
    );
    let ids: Vec<String> = repo
        .rescreen_chunk_favorites(&rest)
        .unwrap()
        .into_iter()
        .map(|f| f.favorite.id)
        .collect();
    assert_eq!(ids, ["fav_002"], "the account's only");
    repo.remove_favorite(DEFAULT_ACCOUNT, "fav_002").unwrap();
    let (gone, gone_changes) = gained("fav_002", "un:2", "alt_gone");
    let commit = done(&rest, "a", 1, (std::slice::from_ref(&gone), &gone_changes));
    assert_eq!(
        repo.commit_rescreen_chunk(&commit).unwrap(),
        ChunkCommit::Stale
    );
}

/// Many threads claiming the chunks of one run at once: each chunk goes to one of them.
fn concurrent_claims_take_each_chunk_once(repo: &dyn Both) {
    let favorites: Vec<_> = (0..40)
        .map(|i| (favorite(i, &[]), Changes::default()))
        .collect();
    repo.import_favorites(DEFAULT_ACCOUNT, &favorites).unwrap();
    let now = Timestamp::now();
    let start = ChunkRunStart {
        scope: EVERY_ACCOUNT,
        reason: "scheduled",
        now,
        chunk_size: 5,
    };
    let run = repo.open_rescreen_chunks(&start).unwrap();
    assert_eq!(run.chunks, 9);
    let owners: Vec<String> = (0..6).map(|i| format!("owner-{i}")).collect();
    let taken = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for owner in &owners {
            let taken = &taken;
            scope.spawn(move || {
                let until = now + SignedDuration::from_secs(60);
                loop {
                    let claim = ChunkLease {
                        run_id: run.id,
                        owner,
                        now,
                        until,
                    };
                    match repo.claim_rescreen_chunk(&claim) {
                        Ok(ChunkClaim::Claimed(chunk)) => taken.lock().unwrap().push(chunk.seq),
                        Ok(_) => return,
                        Err(e) if e.is_transient() => {}
                        Err(e) => panic!("{e:?}"),
                    }
                }
            });
        }
    });
    let mut taken = taken.into_inner().unwrap();
    taken.sort_unstable();
    assert_eq!(taken, (0..9).collect::<Vec<i64>>());
}

/// A run of one account's watchlist says nothing of another account's favorites: a
/// favorite's `last_screened_at` moves with a run of every account or of its own account
/// only (another account's manual re-screen neither moves it nor shows when it ran).
fn a_run_of_one_account_leaves_anothers_last_screening(repo: &dyn Both) {
    let rival = repo.ensure_account("rival", None).unwrap().id;
    let ours = [(favorite(1, &[]), Changes::default())];
    repo.import_favorites(DEFAULT_ACCOUNT, &ours).unwrap();
    let theirs = [(favorite(2, &[]), Changes::default())];
    repo.import_favorites(&rival, &theirs).unwrap();
    let run_of = |scope: &str, second: i64| {
        let start = ChunkRunStart {
            scope,
            reason: "manual",
            now: at(second),
            chunk_size: 10,
        };
        let run = repo.open_rescreen_chunks(&start).unwrap();
        let owner = "p";
        let lease = lease(run.id, owner, second, second + 60);
        let chunk = claimed(repo.claim_rescreen_chunk(&lease).unwrap());
        let nothing = Changes::default();
        let ok = repo.commit_rescreen_chunk(&done(&chunk, owner, 1, (&[], &nothing)));
        assert_eq!(ok.unwrap(), ChunkCommit::Done(vec![]));
        let record = RescreenRun {
            at: at(second),
            ..record()
        };
        let finished = repo.finish_rescreen_chunks(run.id, &record, at(second));
        assert!(finished.unwrap().is_some(), "{scope} finished");
    };
    let screened = |account: &str, id: &str| {
        let favorite = repo.favorite(account, id).unwrap().unwrap();
        let listed = repo.favorites(account, None, 10).unwrap();
        assert_eq!(listed[0].last_screened_at, favorite.last_screened_at);
        favorite.last_screened_at
    };
    run_of(&rival, 10);
    assert_eq!(screened(&rival, "fav_002"), Some(at(10)));
    assert_eq!(
        screened(DEFAULT_ACCOUNT, "fav_001"),
        Some(at(0)),
        "not ours"
    );
    run_of(EVERY_ACCOUNT, 20);
    assert_eq!(screened(DEFAULT_ACCOUNT, "fav_001"), Some(at(20)));
    assert_eq!(screened(&rival, "fav_002"), Some(at(20)));
    run_of(DEFAULT_ACCOUNT, 30);
    assert_eq!(screened(DEFAULT_ACCOUNT, "fav_001"), Some(at(30)));
    assert_eq!(screened(&rival, "fav_002"), Some(at(20)), "not theirs");
}

#[test]
fn a_favorites_last_screening_is_of_its_accounts_runs_on_both_backends() {
    for backend in conformance::backends() {
        eprintln!("last screening by account: {}", backend.name());
        a_run_of_one_account_leaves_anothers_last_screening(backend.repo());
    }
}

#[test]
fn chunk_claims_on_both_backends() {
    for backend in conformance::backends() {
        eprintln!("chunk claims: {}", backend.name());
        chunks_claimed_renewed_taken_over_and_finished_once(backend.repo());
    }
}

#[test]
fn stale_chunk_commits_on_both_backends() {
    for backend in conformance::backends() {
        eprintln!("stale chunk commits: {}", backend.name());
        a_commit_over_changed_favorites_is_refused(backend.repo());
    }
}

#[test]
fn concurrent_chunk_claims_on_both_backends() {
    for backend in conformance::backends() {
        eprintln!("concurrent chunk claims: {}", backend.name());
        concurrent_claims_take_each_chunk_once(backend.repo());
    }
}

/// A process of the binary on the store at `url`, re-screening in chunks of `chunk`
/// favorites with a lease of `lease` seconds.
fn rescreen_process(data: &std::path::Path, url: &str, chunk: &str) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(["watchlist", "rescreen", "--json"])
        .env("SANCTIONS_DATABASE_URL", url)
        .env("SANCTIONS_RESCREEN_CHUNK", chunk)
        .env("SANCTIONS_RESCREEN_LEASE_SECS", "3")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends `signal` (`-STOP`, `-CONT`) to process `pid`.
fn signal(pid: &str, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([signal, pid])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {signal} {pid}");
}

/// Runs the binary on the store at `url` and checks it succeeded.
fn run_ok(data: &std::path::Path, url: &str, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("SANCTIONS_DATABASE_URL", url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A watchlist of `n` synthetic customers that match nothing, and the names of up to 150 UN
/// individuals (which match their entries).
fn watchlist_file(db: &mut postgres::Client, path: &std::path::Path, n: usize) -> usize {
    use std::io::Write;
    const GIVEN: [&str; 8] = [
        "Ana", "Joao", "Wei", "Olga", "Omar", "Priya", "Kofi", "Hans",
    ];
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "name,type").unwrap();
    for i in 0..n {
        let mut k = i;
        let mut surname = String::from("Qz");
        while k > 0 || surname.len() < 5 {
            surname.push(char::from(b'a' + (k % 26) as u8));
            k /= 26;
        }
        writeln!(out, "{} {surname}vutz,individual", GIVEN[i % GIVEN.len()]).unwrap();
    }
    let listed = db
        .query(
            "SELECT primary_name FROM entities WHERE kind = 'individual'
                 AND length(primary_name) > 12 ORDER BY entity_id LIMIT 150",
            &[],
        )
        .unwrap();
    for row in &listed {
        let name: String = row.get(0);
        writeln!(out, "\"{}\",individual", name.replace('"', "\"\"")).unwrap();
    }
    listed.len()
}

/// Forgets every favorite's matches (as if the lists had just gained them); returns the
/// (favorite, entity) pairs a full re-screen must alert, sorted.
fn forget_matches(db: &mut postgres::Client) -> Vec<(String, String)> {
    let rows = db
        .query(
            "DELETE FROM favorite_matches RETURNING favorite_id, entity_id",
            &[],
        )
        .unwrap();
    let mut pairs: Vec<(String, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    pairs.sort();
    pairs
}

/// The (favorite, entity) pairs of the `favorite.match` alerts created after alert `after`
/// (by creation time), sorted, and the newest alert's time.
fn alerted_since(db: &mut postgres::Client, after: &str) -> (Vec<(String, String)>, String) {
    let rows = db
        .query(
            "SELECT a.favorite_id, e.value, a.created_at FROM alerts a,
                 json_array_elements_text(a.entity_ids::json) e
             WHERE a.kind = 'favorite.match' AND a.created_at > $1",
            &[&after],
        )
        .unwrap();
    let mut pairs: Vec<(String, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    pairs.sort();
    let newest = rows
        .iter()
        .map(|r| r.get::<_, String>(2))
        .max()
        .unwrap_or_else(|| after.to_owned());
    (pairs, newest)
}

/// Three `watchlist rescreen` processes on one PostgreSQL schema with 20,000 favorites,
/// one killed with SIGKILL while it holds a chunk: the run still finishes, once; the killed
/// process's chunk is taken over after its lease; every expected alert is recorded exactly
/// once, with one event each; and the alerts equal those of one process re-screening the
/// same state alone.
#[test]
fn a_run_survives_a_killed_process_on_postgres() {
    let schema = conformance::Schema::create();
    let url = schema.url();
    let data = tempfile::tempdir().unwrap();
    let shared = crate::common::shared_data();
    let lists = shared.join("lists");
    run_ok(
        data.path(),
        &url,
        &["lists", "import", lists.to_str().unwrap(), "--list", "un"],
    );
    let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let file = data.path().join("customers.csv");
    let listed = watchlist_file(&mut db, &file, 20_000);
    assert!(listed >= 100, "only {listed} UN individuals");
    run_ok(
        data.path(),
        &url,
        &["watchlist", "import", file.to_str().unwrap(), "--json"],
    );
    // Events are kept for the kinds a webhook wants.
    run_ok(
        data.path(),
        &url,
        &[
            "webhooks",
            "create",
            "http://127.0.0.1:9/hook",
            "--events",
            "favorite.match",
            "--json",
        ],
    );
    let start: String = db
        .query_one("SELECT coalesce(max(created_at), '') FROM alerts", &[])
        .unwrap()
        .get(0);
    let expected = forget_matches(&mut db);
    assert!(expected.len() >= 100, "the watchlist matches too little");

    let mut processes: Vec<_> = (0..3)
        .map(|_| rescreen_process(data.path(), &url, "1000"))
        .collect();
    let doomed = format!("{}-%", processes[0].id());
    // Killed while it holds a chunk (a process holds up to two: the lower is looked at), once
    // a chunk is done: stopped (SIGSTOP) first, so that it cannot commit between the look and
    // the kill, and let go again when it held none.
    let holding = |db: &mut postgres::Client| -> Option<i64> {
        db.query_opt(
            "SELECT c.seq FROM rescreen_chunks c WHERE c.holder LIKE $1 AND c.done_at IS NULL
                 AND EXISTS (SELECT 1 FROM rescreen_chunks d WHERE d.done_at IS NOT NULL)
                 ORDER BY c.seq LIMIT 1",
            &[&doomed],
        )
        .unwrap()
        .map(|r| r.get(0))
    };
    let pid = processes[0].id().to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    let held = loop {
        if holding(&mut db).is_some() {
            signal(&pid, "-STOP");
            if let Some(seq) = holding(&mut db) {
                break seq;
            }
            signal(&pid, "-CONT");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the doomed process never held a chunk"
        );
        // Polled: the condition is in another process's database rows.
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    processes[0].kill().unwrap(); // SIGKILL
    processes[0].wait().unwrap();
    let survivors: Vec<serde_json::Value> = processes
        .drain(1..)
        .map(|p| {
            let out = p.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    let runs: Vec<(i64, Option<String>, i64, Option<i64>)> = db
        .query(
            "SELECT id, finished_at, chunks, rescreen_run_id FROM rescreen_chunk_runs ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    assert_eq!(runs.len(), 1, "one run: {runs:?}");
    assert!(runs[0].1.is_some() && runs[0].2 >= 20, "{runs:?}");
    for s in &survivors {
        assert_eq!(s["run_id"].as_i64(), runs[0].3, "{s}");
        assert_eq!(s["screened"], s["favorites"], "{s}");
        assert!(s["favorites"].as_u64().unwrap() >= 20_000, "{s}");
    }
    let recorded: i64 = db
        .query_one(
            "SELECT count(*) FROM rescreen_runs WHERE mode = 'full' AND reason = 'manual'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(recorded, 1, "the run recorded once");
    let (claims, holder): (i64, String) = db
        .query_one(
            "SELECT claims, holder FROM rescreen_chunks WHERE seq = $1 AND done_at IS NOT NULL",
            &[&held],
        )
        .map(|r| (r.get(0), r.get(1)))
        .unwrap();
    eprintln!("killed holding chunk {held}: claimed {claims} times, done by {holder}; {runs:?}");
    assert!(claims >= 2, "the killed process's chunk was not taken over");
    assert!(
        !holder.starts_with(&format!("{pid}-")),
        "done by the killed process"
    );
    let (pairs, newest) = alerted_since(&mut db, &start);
    let doubled = pairs.windows(2).filter(|w| w[0] == w[1]).count();
    assert_eq!(doubled, 0, "(favorite, entity) alerted twice");
    assert_eq!(pairs, expected, "the alerts of the chunked run");
    let events: i64 = db
        .query_one(
            "SELECT count(*) FROM outbox WHERE kind = 'favorite.match' AND created_at > $1",
            &[&start],
        )
        .unwrap()
        .get(0);
    let alerts: i64 = db
        .query_one(
            "SELECT count(*) FROM alerts WHERE kind = 'favorite.match' AND created_at > $1",
            &[&start],
        )
        .unwrap()
        .get(0);
    assert_eq!(events, alerts, "one event per alert");

    // One process alone, from the same state, alerts the same pairs.
    assert_eq!(forget_matches(&mut db), expected);
    let alone = run_ok(data.path(), &url, &["watchlist", "rescreen", "--json"]);
    let alone: serde_json::Value = serde_json::from_slice(&alone.stdout).unwrap();
    let (single, _) = alerted_since(&mut db, &newest);
    assert_eq!(single, pairs, "one process alone: the same alerts");
    assert_eq!(
        alone["alert_ids"].as_array().unwrap().len(),
        alerts as usize
    );
}
