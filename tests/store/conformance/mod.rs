//! The backends the conformance suite runs on, each fresh per case.
#![allow(dead_code, clippy::unwrap_used)]

pub mod cases;

use sanctions_store::postgres::PostgresRepository;
use sanctions_store::{KeyStore, Repository, SqliteRepository};

/// The store interface a case uses: the repository and the key store.
pub trait Both: Repository + KeyStore {}
impl<T: Repository + KeyStore> Both for T {}

/// One backend, fresh: its repository, then what it lives in (dropped after it).
pub struct Backend {
    repo: Box<dyn Both>,
    name: &'static str,
    _place: Place,
}

enum Place {
    Folder(tempfile::TempDir),
    Schema(Schema),
}

impl Backend {
    pub fn repo(&self) -> &dyn Both {
        self.repo.as_ref()
    }
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A fresh SQLite file and a fresh PostgreSQL schema.
pub fn backends() -> Vec<Backend> {
    vec![sqlite(), postgres()]
}

pub fn sqlite() -> Backend {
    let dir = tempfile::tempdir().unwrap();
    let repo = SqliteRepository::open(&dir.path().join("sanctions.db")).unwrap();
    Backend {
        repo: Box::new(repo),
        name: "sqlite",
        _place: Place::Folder(dir),
    }
}

pub fn postgres() -> Backend {
    let schema = Schema::create();
    let repo = PostgresRepository::open(&schema.url()).unwrap();
    Backend {
        repo: Box::new(repo),
        name: "postgres",
        _place: Place::Schema(schema),
    }
}

/// The server the tests use.
pub fn server_url() -> String {
    std::env::var("SANCTIONS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A schema of its own on the test server, dropped with everything in it at the end.
pub struct Schema {
    name: String,
}

impl Schema {
    pub fn create() -> Schema {
        let name = format!(
            "sanctions_test_{}",
            ulid::Ulid::new().to_string().to_lowercase()
        );
        let mut client = admin();
        client
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .unwrap();
        Schema { name }
    }

    /// The server's URL with this schema as the search path of every connection.
    pub fn url(&self) -> String {
        let base = server_url();
        let sep = if base.contains('?') { '&' } else { '?' };
        format!("{base}{sep}options=-csearch_path%3D{}", self.name)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&server_url(), postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

/// A plain connection to the test server, or a failure that says what is missing.
pub fn admin() -> postgres::Client {
    let url = server_url();
    postgres::Client::connect(&url, postgres::NoTls).unwrap_or_else(|e| {
        panic!(
            "PostgreSQL is not reachable at {url}: {e}. The store conformance suite runs on \
             both backends and does not skip: start PostgreSQL (trust authentication, \
             database `test`) or point SANCTIONS_TEST_DATABASE_URL at one"
        )
    })
}

/// A database migrated by a newer program is refused, with both versions named.
pub fn newer_schema_is_refused() {
    let schema = Schema::create();
    drop(PostgresRepository::open(&schema.url()).unwrap());
    let mut client = admin();
    client
        .batch_execute(&format!(
            "INSERT INTO {}.schema_migrations (version, applied_at) VALUES (999, 'later')",
            schema.name()
        ))
        .unwrap();
    let refused = PostgresRepository::open(&schema.url()).unwrap_err();
    let text = refused.to_string();
    assert!(
        text.contains("newer version") && text.contains("999"),
        "{text}"
    );
    // Opening again at the current version applies nothing.
    let fresh = Schema::create();
    let repo = PostgresRepository::open(&fresh.url()).unwrap();
    assert!(repo.migrate().unwrap().is_empty());
    assert_eq!(
        repo.schema_version().unwrap(),
        sanctions_store::postgres::known_version()
    );
}

/// Two stores answer every read alike (after a copy).
pub fn same_reads(a: &dyn Both, b: &dyn Both) {
    use sanctions_model::{AlertFilter, ListCode, ScreeningFilter};
    use sanctions_store::WATCHLIST_MARKER;
    assert_eq!(a.lists().unwrap(), b.lists().unwrap());
    assert_eq!(
        a.updates(ListCode::Un, 100).unwrap(),
        b.updates(ListCode::Un, 100).unwrap()
    );
    assert_eq!(a.entity_names().unwrap(), b.entity_names().unwrap());
    assert_eq!(a.name_digests().unwrap(), b.name_digests().unwrap());
    assert!(b.verify_names().unwrap().is_empty());
    let last = a.latest_update_id().unwrap();
    assert_eq!(last, b.latest_update_id().unwrap());
    for id in 1..=last {
        assert_eq!(
            a.changed_entities(id).unwrap(),
            b.changed_entities(id).unwrap()
        );
    }
    assert_eq!(a.accounts().unwrap(), b.accounts().unwrap());
    assert_eq!(a.api_keys().unwrap(), b.api_keys().unwrap());
    assert_eq!(a.keys_fingerprint().unwrap(), b.keys_fingerprint().unwrap());
    assert_eq!(
        a.marker(WATCHLIST_MARKER).unwrap(),
        b.marker(WATCHLIST_MARKER).unwrap()
    );
    assert_eq!(a.rescreen_runs(100).unwrap(), b.rescreen_runs(100).unwrap());
    assert_eq!(a.favorite_matches().unwrap(), b.favorite_matches().unwrap());
    assert_eq!(
        a.briefs(&Default::default()).unwrap(),
        b.briefs(&Default::default()).unwrap()
    );
    for account in a.accounts().unwrap() {
        let id = account.id.as_str();
        let screenings = ScreeningFilter {
            limit: 1000,
            ..Default::default()
        };
        let listed = a.screenings(id, &screenings).unwrap();
        assert_eq!(listed, b.screenings(id, &screenings).unwrap());
        for s in &listed {
            assert_eq!(
                a.decisions(id, &s.id).unwrap(),
                b.decisions(id, &s.id).unwrap()
            );
        }
        let alerts = AlertFilter {
            limit: 1000,
            ..Default::default()
        };
        assert_eq!(
            a.alerts(id, &alerts).unwrap(),
            b.alerts(id, &alerts).unwrap()
        );
        assert_eq!(
            a.alert_changes(id, None, None).unwrap(),
            b.alert_changes(id, None, None).unwrap()
        );
        let favorites = a.favorites(id, None, 1000).unwrap();
        assert_eq!(favorites, b.favorites(id, None, 1000).unwrap());
        for f in &favorites {
            assert_eq!(
                a.favorite_changes(&f.id).unwrap(),
                b.favorite_changes(&f.id).unwrap()
            );
        }
        let webhooks = a.webhooks(id).unwrap();
        assert_eq!(webhooks, b.webhooks(id).unwrap());
        for w in &webhooks {
            assert_eq!(
                a.webhook_attempts(id, &w.id, 100).unwrap(),
                b.webhook_attempts(id, &w.id, 100).unwrap()
            );
            assert_eq!(
                a.pending_deliveries(&w.id).unwrap(),
                b.pending_deliveries(&w.id).unwrap()
            );
        }
        for month in ["2026-11", "2026-12"] {
            assert_eq!(
                a.credits_used(id, month).unwrap(),
                b.credits_used(id, month).unwrap()
            );
        }
    }
    assert_eq!(a.pending_total().unwrap(), b.pending_total().unwrap());
}
