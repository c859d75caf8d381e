//! `sanctions store check`: SQLite's full integrity check of the database and, per list,
//! the names read back against the count and checksum stored at import. Exit 0 when all is
//! sound, 3 when anything is damaged (with how to repair it).

use std::io::Write;

use clap::{Args, Subcommand};
use color_eyre::eyre::Result;

use super::Context;
use super::exit::{self, Exit};
use super::output::{print_json, safe, thousands};
use crate::service::maintenance::{self, CheckError, CheckReport};
use crate::service::shared_store::{
    CopyReport, PostgresRepository, copy_from_sqlite, copy_to_sqlite,
};

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
    /// accounts, keys, credits, briefs), checking every table's row count. With --from, the
    /// way back: a PostgreSQL store into an empty data folder (a backup).
    Copy {
        /// The PostgreSQL store: `postgres://USER@HOST:PORT/DB` (`?sslmode=require` for TLS);
        /// with --from, the data folder to copy into (created if missing, empty).
        #[arg(long, value_name = "URL|DIR")]
        to: String,
        /// Copy from this PostgreSQL store into the data folder --to instead.
        #[arg(long, value_name = "URL")]
        from: Option<String>,
    },
    /// Apply the PostgreSQL store's pending schema migrations (done at start as well).
    Migrate {
        #[arg(long, value_name = "URL", env = "SANCTIONS_DATABASE_URL")]
        database_url: String,
    },
}

/// Runs `store` and its subcommands.
pub fn run(ctx: &Context, args: StoreArgs, json: bool) -> Result<Exit> {
    match args.command {
        StoreCommand::Check => check(ctx, json),
        StoreCommand::Copy { to, from: None } => copy(ctx, &to, json),
        StoreCommand::Copy {
            to,
            from: Some(from),
        } => copy_back(&from, std::path::Path::new(&to), json),
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
    print_copy(&from.display().to_string(), target.url(), &report, json)
}

/// `store copy --from URL --to DIR`: a PostgreSQL store into an empty data folder.
fn copy_back(from: &str, to: &std::path::Path, json: bool) -> Result<Exit> {
    let source = PostgresRepository::connect(from).map_err(|e| exit::data(e.to_string()))?;
    crate::files::create_private_dir(to)
        .map_err(|e| exit::data(format!("cannot create {}: {e}", to.display())))?;
    let db = crate::config::database_path(to);
    let report = copy_to_sqlite(&source, &db).map_err(|e| {
        exit::data(format!(
            "cannot copy {} to {}: {e}",
            source.url(),
            db.display()
        ))
    })?;
    print_copy(source.url(), &db.display().to_string(), &report, json)
}

/// What a copy moved: each table with its rows.
fn print_copy(from: &str, to: &str, report: &CopyReport, json: bool) -> Result<Exit> {
    if json {
        let tables: serde_json::Map<String, serde_json::Value> = report
            .tables
            .iter()
            .map(|(t, n)| ((*t).to_owned(), (*n).into()))
            .collect();
        print_json(&serde_json::json!({"from": from, "to": to, "tables": tables}))?;
        return Ok(Exit::Success);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "copied {} to {}", safe(from), safe(to))?;
    for (table, rows) in &report.tables {
        writeln!(out, "  {table:<22} {:>12}", thousands(*rows))?;
    }
    Ok(Exit::Success)
}

/// `store migrate`: the PostgreSQL store's pending migrations.
fn migrate(url: &str, json: bool) -> Result<Exit> {
    let fail = |e: crate::service::StoreError| exit::data(e.to_string());
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
    let report = maintenance::check(&path).map_err(|e| match e {
        CheckError::Open { .. } => color_eyre::eyre::Report::new(e),
        CheckError::Check(e) => exit::data(format!(
            "cannot check {}: {e}; the database is damaged: restore it from a backup, or move it away and import the lists again",
            path.display()
        )),
    })?;
    let code = if report.ok { Exit::Success } else { Exit::Data };
    if json {
        print_json(&report)?;
    } else {
        print_human(&report)?;
    }
    Ok(code)
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

/// The check after an import or update (the whole file's structure, the list tables in full): `code` when the database is sound, else a
/// warning saying how to repair it and exit 3.
pub fn after_import(damage: Option<&str>, code: Exit, json: bool) -> Exit {
    let Some(problems) = damage else {
        return code;
    };
    super::output::warn(
        &format!(
            "the database failed its integrity check after the import ({problems}): restore it from a backup, or move it away and import the lists again; `sanctions store check` shows the damage"
        ),
        json,
    );
    Exit::Data
}
