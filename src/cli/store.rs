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
}

/// Runs `store` and its subcommands.
pub fn run(ctx: &Context, args: StoreArgs, json: bool) -> Result<Exit> {
    match args.command {
        StoreCommand::Check => check(ctx, json),
    }
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

/// The full check after an import or update: `code` when the database is sound, else a
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
