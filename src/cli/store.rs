//! `sanctions store check`: SQLite's full integrity check of the database and, per list,
//! the names read back against the count and checksum stored at import. Exit 0 when all is
//! sound, 3 when anything is damaged (with how to repair it).

use std::io::Write;

use clap::{Args, Subcommand};
use color_eyre::eyre::Result;
use serde::Serialize;

use super::Context;
use super::exit::{self, Exit};
use super::output::{print_json, safe, thousands};
use crate::model::ListCode;
use crate::store::postgres::{PostgresRepository, copy_from_sqlite};
use crate::store::{IntegrityReport, NameDamage, Store};

/// `sanctions store ...`.
#[derive(Debug, Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
}

/// The store subcommands.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Check the database: SQLite's integrity_check, and each list's names against the
    /// count and checksum recorded at import. Exit 0 sound, 3 damaged.
    Check,
    /// Copy this data folder's database into an empty PostgreSQL store (lists and their
    /// history, screenings, decisions, watchlist, alerts, webhooks with their delivery log,
    /// accounts, keys, credits, briefs), checking every table's row count.
    Copy {
        /// The PostgreSQL store: `postgres://USER@HOST:PORT/DB` (`?sslmode=require` for TLS).
        #[arg(long, value_name = "URL")]
        to: String,
    },
    /// Apply the PostgreSQL store's pending schema migrations (done at start as well).
    Migrate {
        #[arg(long, value_name = "URL", env = "SANCTIONS_DATABASE_URL")]
        database_url: String,
    },
}

/// The report of `store check --json`.
#[derive(Debug, Serialize)]
struct CheckReport {
    database: String,
    /// How a write-protected folder was read, when it was (immutable, a private copy).
    access: Option<&'static str>,
    /// `integrity_check`'s verdict.
    integrity: IntegrityWire,
    lists: Vec<ListCheck>,
    ok: bool,
}

#[derive(Debug, Serialize)]
struct IntegrityWire {
    check: &'static str,
    ok: bool,
    problems: Vec<String>,
    elapsed_ms: u64,
}

/// One list's verdict: `ok`, `damaged`, `unverified` (imported before digests were kept)
/// or `empty` (never imported).
#[derive(Debug, Serialize)]
struct ListCheck {
    list_code: ListCode,
    status: &'static str,
    names_stored: Option<u64>,
    names_found: Option<u64>,
    /// For a damaged list: what is wrong and how to repair it.
    message: Option<String>,
}

/// Runs `store` and its subcommands.
pub fn run(ctx: &Context, args: StoreArgs, json: bool) -> Result<Exit> {
    match args.command {
        StoreCommand::Check => check(ctx, json),
        StoreCommand::Copy { to } => copy(ctx, &to, json),
        StoreCommand::Migrate { database_url } => migrate(&database_url, json),
    }
}

/// `store copy --to URL`: the local database into an empty PostgreSQL store.
fn copy(ctx: &Context, to: &str, json: bool) -> Result<Exit> {
    super::connect::local_only(ctx, "store copy")?;
    let _lock = ctx.write_lock(json)?;
    let from = crate::config::database_path(&ctx.data_dir);
    let target = PostgresRepository::connect(to).map_err(|e| exit::data(e.to_string()))?;
    let report = copy_from_sqlite(&from, &target).map_err(|e| {
        exit::data(format!(
            "cannot copy {} to {}: {e}",
            from.display(),
            target.url()
        ))
    })?;
    if json {
        let tables: serde_json::Map<String, serde_json::Value> = report
            .tables
            .iter()
            .map(|(t, n)| ((*t).to_owned(), (*n).into()))
            .collect();
        print_json(
            &serde_json::json!({"from": from.display().to_string(), "to": target.url(), "tables": tables}),
        )?;
        return Ok(Exit::Success);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "copied {} to {}",
        safe(&from.display().to_string()),
        safe(target.url())
    )?;
    for (table, rows) in &report.tables {
        writeln!(out, "  {table:<22} {:>12}", thousands(*rows))?;
    }
    Ok(Exit::Success)
}

/// `store migrate`: the PostgreSQL store's pending migrations.
fn migrate(url: &str, json: bool) -> Result<Exit> {
    let fail = |e: crate::store::StoreError| exit::data(e.to_string());
    let store = PostgresRepository::connect(url).map_err(fail)?;
    let applied = store.migrate().map_err(fail)?;
    let version = store.schema_version().map_err(fail)?;
    if json {
        print_json(
            &serde_json::json!({"database": store.url(), "applied": applied, "version": version}),
        )?;
    } else if applied.is_empty() {
        println!(
            "{} is at schema {version}: nothing to apply",
            safe(store.url())
        );
    } else {
        println!(
            "{}: applied {applied:?}, now at schema {version}",
            safe(store.url())
        );
    }
    Ok(Exit::Success)
}

fn check(ctx: &Context, json: bool) -> Result<Exit> {
    super::connect::local_only(ctx, "store check")?;
    let path = crate::config::database_path(&ctx.data_dir);
    if !path.exists() {
        return Err(exit::data(format!(
            "no database at {}: nothing to check",
            path.display()
        )));
    }
    let store = ctx.open_read()?;
    let fail = |e: crate::store::StoreError| {
        exit::data(format!(
            "cannot check {}: {e}; the database is damaged: restore it from a backup, or move it away and import the lists again",
            path.display()
        ))
    };
    let integrity = store.integrity(true).map_err(fail)?;
    let lists = list_checks(&store).map_err(fail)?;
    let report = CheckReport {
        database: path.display().to_string(),
        access: crate::store::readonly::access(&path)
            .ok()
            .and_then(|a| a.describe()),
        ok: integrity.ok() && lists.iter().all(|l| l.status != "damaged"),
        integrity: wire(integrity),
        lists,
    };
    let code = if report.ok { Exit::Success } else { Exit::Data };
    if json {
        print_json(&report)?;
    } else {
        print_human(&report)?;
    }
    Ok(code)
}

fn wire(report: IntegrityReport) -> IntegrityWire {
    IntegrityWire {
        check: report.check,
        ok: report.ok(),
        problems: report.problems,
        elapsed_ms: report.elapsed_ms,
    }
}

/// Each list's names against its digest.
fn list_checks(store: &Store) -> Result<Vec<ListCheck>, crate::store::StoreError> {
    let stored = store.name_digests()?;
    let damage: Vec<NameDamage> = store.verify_names()?;
    let counts = store.lists()?;
    Ok(ListCode::ALL
        .iter()
        .map(|&list| {
            let digest = stored.get(&list);
            let hurt = damage.iter().find(|d| d.list == list);
            let has_data = counts.iter().any(|s| s.list == list && s.count > 0);
            let status = match (hurt, digest, has_data) {
                (Some(_), _, _) => "damaged",
                (None, Some(_), _) => "ok",
                (None, None, true) => "unverified",
                (None, None, false) => "empty",
            };
            ListCheck {
                list_code: list,
                status,
                names_stored: digest.map(|d| d.names),
                names_found: hurt.map_or(digest.map(|d| d.names), |d| Some(d.found)),
                message: hurt.map(NameDamage::message),
            }
        })
        .collect())
}

fn print_human(report: &CheckReport) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "database   {}", safe(&report.database))?;
    if let Some(access) = report.access {
        writeln!(out, "access     {access}")?;
    }
    let i = &report.integrity;
    let verdict = if i.ok { "ok" } else { "DAMAGED" };
    writeln!(
        out,
        "structure  {verdict} (PRAGMA {}, {} ms)",
        i.check, i.elapsed_ms
    )?;
    for problem in &i.problems {
        writeln!(out, "           {}", safe(problem))?;
    }
    for l in &report.lists {
        let names = l
            .names_found
            .map_or(String::new(), |n| format!("{} names", thousands(n)));
        let status = if l.status == "damaged" {
            "DAMAGED"
        } else {
            l.status
        };
        writeln!(out, "{:<10} {status:<10} {names}", l.list_code.code())?;
        if let Some(message) = &l.message {
            writeln!(out, "           {}", safe(message))?;
        }
    }
    if !i.ok {
        writeln!(
            out,
            "\nThe file is damaged: restore the database from a backup, or move it away and import the lists again."
        )?;
    }
    Ok(())
}

/// The full check after an import or update: `code` when the database is sound, else a
/// warning saying how to repair it and exit 3.
pub fn after_import(store: &Store, code: Exit, json: bool) -> Exit {
    let problems = match store.integrity(true) {
        Ok(report) if report.ok() => return code,
        Ok(report) => report.problems.join("; "),
        Err(e) => e.to_string(),
    };
    super::output::warn(
        &format!(
            "the database failed its integrity check after the import ({problems}): restore it from a backup, or move it away and import the lists again; `sanctions store check` shows the damage"
        ),
        json,
    );
    Exit::Data
}
