//! The store interface's conformance suite, written once over `&dyn Repository` and the key
//! store, and run on every backend: each case on a SQLite file in a temporary folder and on
//! a fresh schema of the real PostgreSQL server (`SANCTIONS_TEST_DATABASE_URL`, else
//! `postgres://postgres@127.0.0.1:5432/test`), dropped afterwards. PostgreSQL unreachable
//! fails the suite with a message saying so: it never skips.
#![allow(clippy::unwrap_used)]

mod conformance;

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
    group_commit_writes_all_or_nothing,
    alerts_and_their_log,
    watchlist_favorites,
    rescreen_records_once_by_compare_and_set,
    webhooks_deliveries_and_claims,
    an_expired_lease_is_claimed_again,
    a_list_update_is_an_event_for_every_account,
    briefs_stored_once_and_filtered,
    keys_accounts_and_credits,
    credits_taken_concurrently_never_overspend,
);

#[test]
fn postgres_refuses_a_database_newer_than_the_program() {
    conformance::newer_schema_is_refused();
}
