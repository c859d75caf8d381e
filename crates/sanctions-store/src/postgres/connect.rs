//! Connecting: the URL, TLS, the connection pool, and the transaction helpers every
//! operation runs in.

use std::sync::Arc;
use std::time::Duration;

use postgres::{Client, Transaction};
use r2d2_postgres::PostgresConnectionManager;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{db, schema};
use crate::StoreError;

type Manager = PostgresConnectionManager<MakeRustlsConnect>;

/// Opens a connection outside the pool.
pub(super) type Connector = Box<dyn Fn() -> Result<Client, StoreError> + Send>;
type Pooled = r2d2::PooledConnection<Manager>;

/// Most connections one process keeps to the database: the server runs store calls on
/// blocking threads, and each holds a connection for one call.
const POOL_SIZE: u32 = 16;

/// How long a call waits for a free connection (or for the database to answer a connect).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The store on a PostgreSQL database (see the module's documentation).
pub struct PostgresRepository {
    pool: r2d2::Pool<Manager>,
    /// The connection settings, for connections outside the pool (a listener).
    config: postgres::Config,
    /// The URL without its password, for messages and logs.
    shown: String,
}

impl std::fmt::Debug for PostgresRepository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresRepository")
            .field("url", &self.shown)
            .finish()
    }
}

impl PostgresRepository {
    /// Connects to the database at `url` (`postgres://user@host:port/db?sslmode=...`),
    /// applies pending migrations, and refuses a database written by a newer program.
    pub fn open(url: &str) -> Result<PostgresRepository, StoreError> {
        let repo = PostgresRepository::connect(url)?;
        repo.migrate()?;
        Ok(repo)
    }

    /// Connects without migrating (`sanctions store migrate` reports what it applies).
    pub fn connect(url: &str) -> Result<PostgresRepository, StoreError> {
        let mut config: postgres::Config = url
            .parse()
            .map_err(|e| StoreError::Refused(format!("the database URL is not valid: {e}")))?;
        let shown = described(&config);
        if config.get_application_name().is_none() {
            config.application_name(&application_name());
        }
        if !url.contains("sslmode=") {
            // libpq's default (`prefer`) would try TLS without verifying the server; here
            // TLS is always verified, so it is asked for explicitly.
            config.ssl_mode(postgres::config::SslMode::Disable);
        }
        let manager = PostgresConnectionManager::new(config.clone(), tls()?);
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(1))
            .connection_timeout(CONNECT_TIMEOUT)
            .build(manager)
            .map_err(|e| StoreError::Unavailable {
                message: format!("cannot connect to PostgreSQL at {shown}: {e}"),
                source: Some(Box::new(e)),
            })?;
        Ok(PostgresRepository {
            pool,
            config,
            shown,
        })
    }

    /// Applies the migrations this database lacks; returns the versions applied.
    pub fn migrate(&self) -> Result<Vec<i64>, StoreError> {
        self.write(schema::migrate)
    }

    /// The schema version of the database.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.read(schema::version)
    }

    /// What opens a connection of its own, outside the pool (a listener keeps one open).
    pub(super) fn connector(&self) -> Connector {
        let config = self.config.clone();
        Box::new(move || config.connect(tls()?).map_err(db))
    }

    /// The database URL, without its password.
    pub fn url(&self) -> &str {
        &self.shown
    }

    fn pooled(&self) -> Result<Pooled, StoreError> {
        self.pool.get().map_err(|e| StoreError::Unavailable {
            // Said to whoever made the request: the database's place is the operator's.
            message: format!("no connection to PostgreSQL: {e}"),
            source: Some(Box::new(e)),
        })
    }

    /// Runs `read` on a pooled connection (each statement sees committed data).
    pub(super) fn read<T>(
        &self,
        read: impl FnOnce(&mut Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        blocking(|| {
            let mut conn = self.pooled()?;
            read(&mut conn)
        })
    }

    /// Runs `read` in one read-only REPEATABLE READ transaction: every statement sees the
    /// same snapshot (an import committing meanwhile is wholly outside it).
    pub(super) fn snapshot<T>(
        &self,
        read: impl FnOnce(&mut Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        blocking(|| {
            let mut conn = self.pooled()?;
            let mut tx = conn
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .map_err(db)?;
            let value = read(&mut tx)?;
            tx.commit().map_err(db)?;
            Ok(value)
        })
    }

    /// Runs `write` in one transaction, committed when it returns `Ok` (rolled back
    /// otherwise).
    pub(super) fn write<T>(
        &self,
        write: impl FnOnce(&mut Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        blocking(|| {
            let mut conn = self.pooled()?;
            let mut tx = conn.transaction().map_err(db)?;
            let value = write(&mut tx)?;
            tx.commit().map_err(db)?;
            Ok(value)
        })
    }
}

/// What this process does, named in its connections' `application_name` (set once, before
/// the store is opened, e.g. `serve`); `sanctions` alone when unset.
static ROLE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Names this process's role in the `application_name` of the connections it opens from now
/// on (`sanctions-serve-HOST-PID` in `pg_stat_activity`). The first call wins.
pub fn name_connections(role: &str) {
    let _ = ROLE.set(role.to_owned());
}

/// `sanctions[-ROLE]-HOST-PID`, unless the URL names one (`?application_name=...`).
fn application_name() -> String {
    let uname = rustix::system::uname();
    let host = uname.nodename().to_string_lossy();
    match ROLE.get() {
        Some(role) => format!("sanctions-{role}-{host}-{}", std::process::id()),
        None => format!("sanctions-{host}-{}", std::process::id()),
    }
}

/// Runs `work`, which blocks on the database, where blocking is allowed: the `postgres`
/// client drives its connection with a `block_on` of its own, which tokio refuses on a
/// thread that runs async tasks. On a multi-threaded runtime's worker (a caller that did
/// not hop to `spawn_blocking`) the worker hands its tasks over first (`block_in_place`);
/// on a blocking-pool thread, or with no runtime, it just runs.
fn blocking<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// TLS with the platform's root certificates (a company CA works). Whether it is used is
/// the URL's `sslmode`: none or `disable` (plain), `prefer` (TLS when the server offers
/// it) or `require`; the server's certificate is always verified when TLS is used.
fn tls() -> Result<MakeRustlsConnect, StoreError> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        // A certificate the platform lists but rustls cannot read is skipped.
        let _ = roots.add(cert);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError::Refused(format!("TLS setup: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// `url` as messages and logs may show it: the user, hosts, ports and database it names,
/// read by the driver's own parser, so that no password shows whichever way it was written
/// (`user:password@`, a `password=` parameter, the `key=value` form, a password holding `/`
/// or `@`); no other parameter either. A URL the driver cannot read shows as no part of it.
pub fn redacted(url: &str) -> String {
    match url.parse::<postgres::Config>() {
        Ok(config) => described(&config),
        Err(_) => "(a database URL that does not read)".into(),
    }
}

/// The user, hosts, ports and database of `config`, as a URL without a password
/// ([`redacted`]).
fn described(config: &postgres::Config) -> String {
    let ports = config.get_ports();
    let hosts: Vec<String> = (config.get_hosts().iter().enumerate())
        .map(|(i, host)| {
            let name = match host {
                postgres::config::Host::Tcp(name) => name.clone(),
                postgres::config::Host::Unix(path) => path.display().to_string(),
            };
            // One port for all hosts, or one each.
            match ports.get(i).or(ports.first()) {
                Some(port) => format!("{name}:{port}"),
                None => name,
            }
        })
        .collect();
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let db = config.get_dbname().unwrap_or_default();
    format!("postgres://{user}{}/{db}", hosts.join(","))
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn a_password_never_shows() {
        assert_eq!(
            redacted("postgres://app:s3cret@db:5432/x?sslmode=require"),
            "postgres://app@db:5432/x"
        );
        assert_eq!(
            redacted("postgres://postgres@127.0.0.1/test"),
            "postgres://postgres@127.0.0.1:5432/test"
        );
        for url in [
            "postgres://app@db/x?password=s3cret",
            "host=db user=app password=s3cret dbname=x",
            "postgres://app:s3%2Fcr%40et@db/x",
            "postgresql://app:s3cret@db1:5432,db2:5433/x",
        ] {
            let shown = redacted(url);
            assert!(!shown.contains("s3"), "{url} -> {shown}");
            assert!(shown.contains("app@db"), "{url} -> {shown}");
        }
        assert_eq!(
            redacted("postgres://a:s3cret@[::1"),
            "(a database URL that does not read)"
        );
    }
}
