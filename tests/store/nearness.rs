//! The favorites' nearness columns (migration 14 on SQLite, 8 on PostgreSQL): a store of
//! the version before, with a favorite, upgrades to one where that favorite's nearness is
//! unknown (NULL: the next incremental re-screen screens it), then keeps what is set.
#![allow(clippy::unwrap_used)]

use sanctions_model::{EntityKind, Favorite};
use sanctions_store::postgres::PostgresRepository;
use sanctions_store::{
    Changes, DEFAULT_ACCOUNT, FavoriteInsert, Nearness, Repository, SqliteRepository,
};

use crate::conformance::{Schema, admin};

fn favorite(id: &str, name: &str) -> FavoriteInsert {
    let at = jiff::Timestamp::from_second(1_790_000_000).unwrap();
    FavoriteInsert {
        favorite: Favorite {
            id: id.to_owned(),
            name: name.to_owned(),
            kind: Some(EntityKind::Individual),
            note: None,
            dob: None,
            country: None,
            created_at: at,
            last_screened_at: Some(at),
            last_match_count: 0,
            last_screening_id: None,
            matched_entity_ids: Vec::new(),
        },
        norm: format!("individual:{}", name.to_lowercase()),
        matches: Vec::new(),
    }
}

/// The one favorite the upgrade tests keep: `fav_up`, `Weihua Du`.
fn add_the_favorite(repo: &dyn Repository) {
    repo.add_favorite(
        DEFAULT_ACCOUNT,
        &favorite("fav_up", "Weihua Du"),
        &Changes::default(),
    )
    .unwrap();
}

/// After the upgrade: the favorite is there, its nearness unknown; then it is kept.
fn upgraded(repo: &dyn Repository) {
    assert_eq!(repo.favorite_count(None).unwrap(), 1);
    assert!(crate::common::kept_nearness(repo).is_empty());
    let near = Nearness {
        near: 76.5,
        low: 300.0,
    };
    repo.set_nearness(&[("fav_up".to_owned(), Some(near))])
        .unwrap();
    assert_eq!(crate::common::kept_nearness(repo)["fav_up"], near);
}

#[test]
fn an_upgraded_sqlite_store_knows_no_nearness() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sanctions.db");
    let repo = SqliteRepository::open(&path).unwrap();
    add_the_favorite(&repo);
    drop(repo);
    // Back to version 13: the columns gone, as a store of the previous release has it.
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "ALTER TABLE favorites DROP COLUMN near_score;
         ALTER TABLE favorites DROP COLUMN low_score;
         PRAGMA user_version = 13;",
    )
    .unwrap();
    drop(db);
    let repo = SqliteRepository::open(&path).unwrap();
    upgraded(&repo);
    let version = |path: &std::path::Path| -> i64 {
        let db = rusqlite::Connection::open(path).unwrap();
        db.pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap()
    };
    let latest = dir.path().join("latest.db");
    drop(SqliteRepository::open(&latest).unwrap());
    assert_eq!(version(&path), version(&latest), "and on to the latest");
    assert!(version(&path) >= 16);
}

#[test]
fn an_upgraded_postgres_store_knows_no_nearness() {
    let schema = Schema::create();
    let repo = PostgresRepository::open(&schema.url()).unwrap();
    add_the_favorite(&repo);
    drop(repo);
    // Back to version 7: the columns gone, as a store of the previous release has it.
    let name = schema.name();
    admin()
        .batch_execute(&format!(
            "ALTER TABLE {name}.favorites DROP COLUMN near_score, DROP COLUMN low_score;
             DELETE FROM {name}.schema_migrations WHERE version >= 8;"
        ))
        .unwrap();
    let repo = PostgresRepository::open(&schema.url()).unwrap();
    assert_eq!(repo.schema_version().unwrap(), 9, "and on to the latest");
    upgraded(&repo);
}
