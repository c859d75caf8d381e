//! `sanctions store copy --to postgres://...`: a single-machine SQLite database moved into an
//! empty PostgreSQL store, table by table with binary COPY, in ONE transaction: the lists and
//! their history, screenings and decisions, the watchlist, alerts, webhooks with their
//! delivery log, accounts, keys and credits, briefs. The row counts of every table are
//! compared before the commit; a target that holds anything is refused.
//!
//! `sanctions store copy --from postgres://... --to DIR` is the way back (a backup, or a
//! return to one machine): every table read from one snapshot of the PostgreSQL store into a
//! new SQLite database in one transaction, with the same checks.

use std::path::Path;

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};
use postgres::{Row, Transaction};
use rusqlite::types::ValueRef;

use super::connect::PostgresRepository;
use super::{col, db, schema};
use crate::StoreError;

/// The tables copied, parents before children (foreign keys hold at every row).
const TABLES: &[&str] = &[
    "list_updates",
    "lists",
    "entities",
    "names",
    "entity_changes",
    "entity_versions",
    "name_digests",
    "outbox",
    "accounts",
    "screenings",
    "screening_matches",
    "decisions",
    "favorites",
    "favorite_matches",
    "favorite_changes",
    "favorite_alert_keys",
    "rescreen_runs",
    "rescreen_chunk_runs",
    "rescreen_chunks",
    "alerts",
    "alert_changes",
    "service_state",
    "webhooks",
    "webhook_deliveries",
    "webhook_attempts",
    "briefs",
    "api_keys",
    "account_usage",
];

/// The tables whose ids come from an identity, with its column.
const IDENTITIES: &[(&str, &str)] = &[
    ("list_updates", "id"),
    ("outbox", "seq"),
    ("decisions", "id"),
    ("favorite_changes", "id"),
    ("rescreen_runs", "id"),
    ("rescreen_chunk_runs", "id"),
    ("alert_changes", "id"),
    ("webhook_attempts", "id"),
];

/// The SQLite schema version a copy reads (the one this program writes: its last migration).
const SQLITE_VERSION: i64 = crate::schema::MIGRATIONS.len() as i64;

/// What a copy moved: each table with its row count (equal on both sides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyReport {
    pub tables: Vec<(&'static str, u64)>,
}

/// Copies the SQLite database at `from` into the empty PostgreSQL store `to`.
pub fn copy_from_sqlite(from: &Path, to: &PostgresRepository) -> Result<CopyReport, StoreError> {
    let source = open_source(from)?;
    to.migrate()?;
    to.write(|tx| {
        refuse_non_empty(tx, to.url())?;
        // The migration's default account: the source has its own.
        tx.execute("DELETE FROM accounts", &[]).map_err(db)?;
        let mut tables = Vec::with_capacity(TABLES.len());
        for table in TABLES {
            let copied = copy_table(&source, tx, table)?;
            let found = target_count(tx, table)?;
            if found != copied {
                return Err(StoreError::Refused(format!(
                    "the copy of {table} holds {found} rows where the source has {copied}: nothing was copied"
                )));
            }
            tables.push((*table, copied));
        }
        reset_identities(tx)?;
        Ok(CopyReport { tables })
    })
}

fn open_source(from: &Path) -> Result<rusqlite::Connection, StoreError> {
    if !from.exists() {
        return Err(StoreError::Refused(format!(
            "no database at {}: nothing to copy",
            from.display()
        )));
    }
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = rusqlite::Connection::open_with_flags(from, flags)?;
    conn.busy_timeout(crate::BUSY_TIMEOUT)?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != SQLITE_VERSION {
        return Err(StoreError::Refused(format!(
            "the database {} is at schema {version}, a copy reads schema {SQLITE_VERSION}: open it once with this version of sanctions (e.g. `sanctions lists`) to upgrade it first",
            from.display()
        )));
    }
    Ok(conn)
}

/// Refuses a target holding anything but the default account its migration made.
fn refuse_non_empty(tx: &mut Transaction<'_>, url: &str) -> Result<(), StoreError> {
    for table in TABLES {
        let sql = if *table == "accounts" {
            "SELECT count(*) FROM accounts WHERE id <> 'acct_default'".to_owned()
        } else {
            format!("SELECT count(*) FROM {table}")
        };
        let n: i64 = col(&tx.query_one(sql.as_str(), &[]).map_err(db)?, 0)?;
        if n > 0 {
            return Err(StoreError::Refused(format!(
                "the PostgreSQL store at {url} is not empty ({table} holds {n} rows): a copy goes into an empty store only"
            )));
        }
    }
    Ok(())
}

/// The target's columns of `table` with their types, in order.
fn columns(tx: &mut Transaction<'_>, table: &str) -> Result<Vec<(String, Type)>, StoreError> {
    let rows = tx
        .query(
            "SELECT column_name::text, data_type::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
            &[&table],
        )
        .map_err(db)?;
    rows.iter()
        .map(|r| {
            let name: String = col(r, 0)?;
            let kind = match col::<String>(r, 1)?.as_str() {
                "bigint" => Type::INT8,
                "boolean" => Type::BOOL,
                "bytea" => Type::BYTEA,
                _ => Type::TEXT,
            };
            Ok((name, kind))
        })
        .collect()
}

fn copy_table(
    source: &rusqlite::Connection,
    tx: &mut Transaction<'_>,
    table: &str,
) -> Result<u64, StoreError> {
    let columns = columns(tx, table)?;
    let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    let types: Vec<Type> = columns.iter().map(|(_, t)| t.clone()).collect();
    let list = names.join(", ");
    let sink = tx
        .copy_in(&format!("COPY {table} ({list}) FROM STDIN BINARY"))
        .map_err(db)?;
    let mut writer = BinaryCopyInWriter::new(sink, &types);
    let mut stmt = source.prepare(&format!("SELECT {list} FROM {table}"))?;
    let mut rows = stmt.query([])?;
    let mut copied = 0u64;
    while let Some(row) = rows.next()? {
        let mut values: Vec<Box<dyn ToSql + Sync>> = Vec::with_capacity(types.len());
        for (i, kind) in types.iter().enumerate() {
            values.push(convert(row.get_ref(i)?, kind, table, names[i])?);
        }
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref()).collect();
        writer.write(&refs).map_err(db)?;
        copied += 1;
    }
    writer.finish().map_err(db)?;
    Ok(copied)
}

/// One SQLite value as the target column's type. A screening's results stored as JSON text
/// (rows older than packing) are packed, as every PostgreSQL row is.
fn convert(
    value: ValueRef<'_>,
    kind: &Type,
    table: &str,
    column: &str,
) -> Result<Box<dyn ToSql + Sync>, StoreError> {
    let wrong = || {
        StoreError::invalid(
            &format!("{table}.{column}"),
            format!("a {:?} value where {kind} was expected", value.data_type()),
        )
    };
    Ok(match (value, kind) {
        (ValueRef::Null, k) if *k == Type::INT8 => Box::new(None::<i64>),
        (ValueRef::Null, k) if *k == Type::BOOL => Box::new(None::<bool>),
        (ValueRef::Null, k) if *k == Type::BYTEA => Box::new(None::<Vec<u8>>),
        (ValueRef::Null, k) if *k == Type::FLOAT8 => Box::new(None::<f64>),
        (ValueRef::Real(f), k) if *k == Type::FLOAT8 => Box::new(f),
        (ValueRef::Integer(i), k) if *k == Type::FLOAT8 => Box::new(i as f64),
        (ValueRef::Null, _) => Box::new(None::<String>),
        (ValueRef::Integer(i), k) if *k == Type::INT8 => Box::new(i),
        (ValueRef::Integer(i), k) if *k == Type::BOOL => Box::new(i != 0),
        (ValueRef::Integer(i), k) if *k == Type::TEXT => Box::new(i.to_string()),
        (ValueRef::Blob(b), k) if *k == Type::BYTEA => Box::new(b.to_vec()),
        (ValueRef::Text(t), k) if *k == Type::BYTEA => {
            let text = std::str::from_utf8(t).map_err(|_| wrong())?;
            let json: serde_json::Value = crate::codec::from_json(text, table)?;
            Box::new(crate::codec::to_packed_json(&json, table)?)
        }
        (ValueRef::Text(t), k) if *k == Type::TEXT => {
            Box::new(std::str::from_utf8(t).map_err(|_| wrong())?.to_owned())
        }
        (ValueRef::Blob(b), k) if *k == Type::TEXT => {
            Box::new(std::str::from_utf8(b).map_err(|_| wrong())?.to_owned())
        }
        _ => return Err(wrong()),
    })
}

fn target_count(tx: &mut Transaction<'_>, table: &str) -> Result<u64, StoreError> {
    let row = tx
        .query_one(format!("SELECT count(*) FROM {table}").as_str(), &[])
        .map_err(db)?;
    Ok(super::count(col(&row, 0)?))
}

/// Moves each identity past the ids copied, so new rows continue the sequence.
fn reset_identities(tx: &mut Transaction<'_>) -> Result<(), StoreError> {
    for (table, column) in IDENTITIES {
        tx.execute(
            format!(
                "SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
                               coalesce(max({column}), 0) + 1, false) FROM {table}"
            )
            .as_str(),
            &[],
        )
        .map_err(db)?;
    }
    Ok(())
}

/// Copies the PostgreSQL store `from` into a new SQLite database at `to` (created and
/// migrated), from one snapshot, in one SQLite transaction; refuses a database at `to` that
/// holds anything.
pub fn copy_to_sqlite(from: &PostgresRepository, to: &Path) -> Result<CopyReport, StoreError> {
    let mut store = crate::Store::open(to)?;
    let version: i64 = store
        .conn
        .pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != SQLITE_VERSION {
        return Err(StoreError::Refused(format!(
            "the database {} is at schema {version}, a copy writes schema {SQLITE_VERSION}",
            to.display()
        )));
    }
    from.snapshot(|source| {
        let target = store.conn.transaction()?;
        refuse_non_empty_sqlite(&target, to)?;
        // The migration's default account: the source has its own.
        target.execute("DELETE FROM accounts", [])?;
        let mut tables = Vec::with_capacity(TABLES.len());
        for table in TABLES {
            let copied = copy_back(source, &target, table)?;
            let found: i64 =
                target.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
            if super::count(found) != copied {
                return Err(StoreError::Refused(format!(
                    "the copy of {table} holds {found} rows where the source has {copied}: nothing was copied"
                )));
            }
            tables.push((*table, copied));
        }
        target.commit()?;
        Ok(CopyReport { tables })
    })
}

/// Refuses a SQLite database holding anything but the default account its migration made.
fn refuse_non_empty_sqlite(
    target: &rusqlite::Transaction<'_>,
    to: &Path,
) -> Result<(), StoreError> {
    for table in TABLES {
        let sql = if *table == "accounts" {
            "SELECT count(*) FROM accounts WHERE id <> 'acct_default'".to_owned()
        } else {
            format!("SELECT count(*) FROM {table}")
        };
        let n: i64 = target.query_row(&sql, [], |r| r.get(0))?;
        if n > 0 {
            return Err(StoreError::Refused(format!(
                "the database {} is not empty ({table} holds {n} rows): a copy goes into an empty data folder only",
                to.display()
            )));
        }
    }
    Ok(())
}

/// Copies `table` from the PostgreSQL snapshot into the SQLite transaction, row by row as
/// the rows stream in; returns how many.
fn copy_back(
    source: &mut Transaction<'_>,
    target: &rusqlite::Transaction<'_>,
    table: &str,
) -> Result<u64, StoreError> {
    let columns = columns(source, table)?;
    let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    let list = names.join(", ");
    let marks: Vec<String> = (1..=names.len()).map(|i| format!("?{i}")).collect();
    let mut insert = target.prepare(&format!(
        "INSERT INTO {table} ({list}) VALUES ({})",
        marks.join(", ")
    ))?;
    let no_params: [&(dyn ToSql + Sync); 0] = [];
    let mut rows = source
        .query_raw(format!("SELECT {list} FROM {table}").as_str(), no_params)
        .map_err(db)?;
    let mut copied = 0u64;
    while let Some(row) = rows.next().map_err(db)? {
        let values = columns
            .iter()
            .enumerate()
            .map(|(i, (_, kind))| sqlite_value(&row, i, kind))
            .collect::<Result<Vec<_>, _>>()?;
        insert.execute(rusqlite::params_from_iter(values))?;
        copied += 1;
    }
    Ok(copied)
}

/// One PostgreSQL value as SQLite stores it (a boolean as 0 or 1).
fn sqlite_value(row: &Row, i: usize, kind: &Type) -> Result<rusqlite::types::Value, StoreError> {
    use rusqlite::types::Value;
    Ok(if *kind == Type::INT8 {
        col::<Option<i64>>(row, i)?.map_or(Value::Null, Value::Integer)
    } else if *kind == Type::BOOL {
        col::<Option<bool>>(row, i)?.map_or(Value::Null, |b| Value::Integer(i64::from(b)))
    } else if *kind == Type::BYTEA {
        col::<Option<Vec<u8>>>(row, i)?.map_or(Value::Null, Value::Blob)
    } else if *kind == Type::FLOAT8 {
        col::<Option<f64>>(row, i)?.map_or(Value::Null, Value::Real)
    } else {
        col::<Option<String>>(row, i)?.map_or(Value::Null, Value::Text)
    })
}

/// The schema version this program's PostgreSQL migrations reach.
pub fn known_version() -> i64 {
    schema::MIGRATIONS.len() as i64
}
