//! The store interface's conformance suite, written once over `&dyn Repository` and the key
//! store, and run on every backend: each case on a SQLite file in a temporary folder and on
//! a fresh schema of the real PostgreSQL server (`SANCTIONS_TEST_DATABASE_URL`, else
//! `postgres://postgres@127.0.0.1:5432/test`), dropped afterwards. PostgreSQL unreachable
//! fails the suite with a message saying so: it never skips.
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::conformance;

use conformance::{Both, backends};

macro_rules! cases {
    ($($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                for backend in backends() {
                    let repo: &dyn Both = backend.repo();
                    eprintln!("{}: {}", stringify!($case), backend.name());
                    conformance::cases::$case(repo);
                }
            }
        )*
    };
}

cases!(
    lists_import_and_history,
    a_failed_read_of_nothing_answers_nothing,
    screenings_and_decisions,
    decisions_are_refused_when_they_cannot_apply,
    proposals_wait_for_a_second_reviewer,
    group_commit_writes_all_or_nothing,
    alerts_and_their_log,
    alerts_change_together_or_not_at_all,
    watchlist_favorites,
    favorite_nearness_round_trips,
    rescreen_records_once_by_compare_and_set,
    webhooks_deliveries_and_claims,
    an_expired_lease_is_claimed_again,
    a_list_update_is_an_event_for_every_account,
    briefs_stored_once_and_filtered,
    keys_accounts_and_credits,
    credits_taken_concurrently_never_overspend,
    jobs_are_claimed_once_and_taken_over_after_their_lease,
    one_of_many_concurrent_claims_wins,
    errors_are_backend_neutral,
);

/// A PostgreSQL server that cannot be reached is `Unavailable` (transient, with a cause),
/// not a refusal of the request.
#[test]
fn an_unreachable_postgres_is_unavailable() {
    use sanctions_store::StoreError;
    use sanctions_store::postgres::PostgresRepository;
    // A port nothing listens on (bound, then closed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://postgres@127.0.0.1:{port}/test?connect_timeout=2");
    let error = PostgresRepository::open(&url).unwrap_err();
    assert!(matches!(error, StoreError::Unavailable { .. }), "{error:?}");
    assert!(error.is_transient());
    assert_eq!(error.retry_after(), Some(5));
    assert!(std::error::Error::source(&error).is_some(), "{error:?}");
}

#[test]
fn postgres_refuses_a_database_newer_than_the_program() {
    conformance::newer_schema_is_refused();
}

/// `sanctions store copy --to URL` moves a data folder's database into an empty PostgreSQL
/// store, which then answers every read as SQLite did (and new rows continue the ids); a
/// second copy into the same store is refused.
#[test]
fn store_copy_moves_everything_and_refuses_a_non_empty_target() {
    use sanctions_store::postgres::PostgresRepository;
    use sanctions_store::{Repository, SqliteRepository};

    let data = tempfile::tempdir().unwrap();
    let sqlite = SqliteRepository::open(&data.path().join("sanctions.db")).unwrap();
    conformance::cases::lists_import_and_history(&sqlite);
    conformance::cases::webhooks_deliveries_and_claims(&sqlite);
    conformance::cases::rescreen_records_once_by_compare_and_set(&sqlite);
    conformance::cases::keys_accounts_and_credits(&sqlite);
    conformance::cases::favorite_with_evidence(&sqlite, true);

    let schema = conformance::Schema::create();
    let copy = |json: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sanctions"));
        command.arg("--data-dir").arg(data.path());
        if json {
            command.arg("--json");
        }
        command
            .args(["store", "copy", "--to", &schema.url()])
            .output()
            .unwrap()
    };
    let out = copy(true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["tables"]["entities"], 2);
    assert_eq!(report["tables"]["webhook_attempts"], 3);
    assert_eq!(report["tables"]["api_keys"], 3);

    let pg = PostgresRepository::open(&schema.url()).unwrap();
    conformance::same_reads(&sqlite, &pg);
    conformance::cases::favorite_with_evidence(&pg, false);
    let next = sanctions_store::Repository::replace_list(
        &pg,
        &conformance::cases::un_list(&["1", "9"]),
        "after the copy",
    )
    .unwrap();
    assert!(next.id > sqlite.latest_update_id().unwrap());

    let again = copy(false);
    assert!(!again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("not empty"), "{stderr}");
}

/// An import through one instance's store is heard by another's listener (NOTIFY is sent
/// at the commit): the listener fires once at start and once per import.
#[test]
fn postgres_tells_every_instance_of_a_list_change() {
    use sanctions_store::Repository;
    use sanctions_store::postgres::PostgresRepository;
    use std::time::Duration;

    let schema = conformance::Schema::create();
    let watcher = std::sync::Arc::new(PostgresRepository::open(&schema.url()).unwrap());
    let importer = PostgresRepository::open(&schema.url()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let _listening = watcher.watch_lists(move || {
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the listener connects and reports once");
    importer
        .replace_list(&conformance::cases::un_list(&["1"]), "test")
        .unwrap();
    rx.recv_timeout(Duration::from_secs(2))
        .expect("the import is heard within 2 s");
    assert!(!watcher.list_versions().unwrap().is_empty());
}

/// Request windows shared by every instance on PostgreSQL: concurrent requests are counted
/// exactly against the limit (SQLite keeps none: one process counts in memory).
#[test]
fn rate_windows_are_shared_on_postgres_only() {
    let sqlite = conformance::sqlite();
    assert_eq!(sqlite.repo().hit_shared_window("k", 60, 10).unwrap(), None);
    let pg = conformance::postgres();
    let repo = pg.repo();
    let allowed = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..6 {
                    let (ok, used) = repo.hit_shared_window("key_1", 600, 10).unwrap().unwrap();
                    assert!(used <= 10);
                    if ok {
                        allowed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(allowed.into_inner(), 10);
    assert_eq!(
        repo.hit_shared_window("key_1", 660, 10).unwrap(),
        Some((true, 1))
    );
    assert_eq!(
        repo.hit_shared_window("key_2", 600, 10).unwrap(),
        Some((true, 1))
    );
    assert_eq!(
        repo.hit_shared_window("key_3", 600, 0).unwrap(),
        Some((false, 0))
    );
}

/// The hourly windows of the expensive operations are counted in the store on both
/// backends: concurrent uses are counted exactly against the limit, per key and per window,
/// and a window long ended is cleared when a later one starts.
#[test]
fn store_windows_count_exactly_on_both_backends() {
    for backend in conformance::backends() {
        let repo = backend.repo();
        let name = backend.name();
        let allowed = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    for _ in 0..4 {
                        let (ok, used) = repo.hit_window("audit:acct_1", 7200, 6).unwrap();
                        assert!(used <= 6, "{name}: {used}");
                        if ok {
                            allowed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(allowed.into_inner(), 6, "{name}");
        assert_eq!(
            repo.hit_window("audit:acct_1", 7200, 6).unwrap(),
            (false, 6),
            "{name}"
        );
        assert_eq!(repo.hit_window("audit:acct_2", 7200, 6).unwrap(), (true, 1));
        assert_eq!(
            repo.hit_window("briefs:acct_1", 7200, 6).unwrap(),
            (true, 1)
        );
        assert_eq!(
            repo.hit_window("audit:acct_1", 10_800, 6).unwrap(),
            (true, 1)
        );
        assert_eq!(
            repo.hit_window("audit:acct_3", 7200, 0).unwrap(),
            (false, 0)
        );
        // A day later, the old windows are gone: a use in the first one counts afresh.
        assert_eq!(
            repo.hit_window("audit:acct_1", 7200 + 200_000, 6).unwrap(),
            (true, 1)
        );
        assert_eq!(
            repo.hit_window("audit:acct_1", 7200, 6).unwrap(),
            (true, 1),
            "{name}: the ended window was cleared"
        );
    }
}

/// The eight real lists imported on both backends read back alike: every entry's names and
/// facts, the digests, the counts; a second import of the same files changes nothing.
#[test]
fn the_real_lists_read_back_alike_on_both_backends() {
    use sanctions_model::ListCode;

    let lists = common::shared_data().join("lists");
    let sqlite = conformance::sqlite();
    let pg = conformance::postgres();
    for list in ListCode::ALL {
        let parsed = sanctions_sources::parse_dir(list, &lists.join(list.code()))
            .unwrap_or_else(|e| panic!("{list}: {e}"));
        let started = std::time::Instant::now();
        let stored = pg.repo().replace_list(&parsed, "test").unwrap();
        let pg_time = started.elapsed();
        let started = std::time::Instant::now();
        sqlite.repo().replace_list(&parsed, "test").unwrap();
        eprintln!(
            "{list}: {} entries, PostgreSQL {pg_time:?}, SQLite {:?}",
            stored.total,
            started.elapsed()
        );
        let again = pg.repo().replace_list(&parsed, "test").unwrap();
        assert_eq!((again.added, again.removed, again.changed), (0, 0, 0));
    }
    let (a, b) = (sqlite.repo(), pg.repo());
    assert_eq!(
        a.lists()
            .unwrap()
            .iter()
            .map(|l| l.count)
            .collect::<Vec<_>>(),
        b.lists()
            .unwrap()
            .iter()
            .map(|l| l.count)
            .collect::<Vec<_>>()
    );
    assert_eq!(a.entity_names().unwrap(), b.entity_names().unwrap());
    assert_eq!(a.name_digests().unwrap(), b.name_digests().unwrap());
    assert!(b.verify_names().unwrap().is_empty());
    assert_eq!(
        a.entity("ofac_sdn:306").unwrap(),
        b.entity("ofac_sdn:306").unwrap()
    );
}

/// What differs between the backends, asked through `Backend` alone (as the service does):
/// an import through `list_sink` (its shrink guard included), where derived files go, the
/// background work, and who hears a list change.
#[test]
fn the_backend_interface_names_no_backend() {
    use sanctions_store::{StoreError, StoreLocation};
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sanctions.db");
    let schema = conformance::Schema::create();
    for location in [
        StoreLocation::Sqlite(file.clone()),
        StoreLocation::Postgres(schema.url()),
    ] {
        let store = sanctions_store::open(&location).unwrap();
        let shared = matches!(location, StoreLocation::Postgres(_));
        assert_eq!(store.is_shared(), shared, "{location:?}");
        assert_eq!(store.local_file(), (!shared).then_some(file.as_path()));
        assert_eq!(store.open_problem(), None);
        assert_eq!(store.clone().start_background(), !shared, "{location:?}");
        assert!(!store.clone().start_background(), "started once at most");

        let (tx, rx) = std::sync::mpsc::channel();
        let watch = store.watch_lists(Box::new(move || {
            let _ = tx.send(());
        }));
        assert_eq!(watch.is_some(), shared, "{location:?}");
        if shared {
            rx.recv_timeout(Duration::from_secs(10))
                .expect("the listener connects and reports once");
        }

        let mut sink = store.list_sink();
        let record = sink
            .replace_list_guarded(&conformance::cases::un_list(&["1", "2"]), "test", &|_| None)
            .unwrap();
        assert_eq!(record.total, 2);
        let refused =
            sink.replace_list_guarded(&conformance::cases::un_list(&["1"]), "test", &|_| Some(0));
        assert!(
            matches!(refused, Err(StoreError::WouldShrink { .. })),
            "{refused:?}"
        );
        let failed = sink
            .record_failed_import(record.list, "test", &[], "unreadable")
            .unwrap();
        assert_eq!(failed.failed.as_deref(), Some("unreadable"));
        let listed = sink.lists().unwrap();
        let summary = listed.iter().find(|l| l.list == record.list).unwrap();
        assert_eq!(summary.count, 2, "{location:?}");
        drop(sink);
        assert_eq!(store.entity_names().unwrap().len(), 2, "{location:?}");
        if shared {
            rx.recv_timeout(Duration::from_secs(2))
                .expect("the import is heard within 2 s");
        }
        drop(watch);
    }
}
