//! `sanctions watchlist ...` and `sanctions alerts ...`, through the service.

use std::io::Write;

use color_eyre::eyre::{Context as _, Result, eyre};

use super::Context;
use super::exit::Exit;
use super::output::print_json;
use super::workflow::{
    AlertStatusArg, AlertsArgs, AlertsCommand, WatchlistArgs, WatchlistCommand, opt_since, runtime,
    safe, ts,
};
use crate::api::alerts::{Alert, AlertKind, AlertQuery, AlertStatus, AlertStatusRequest};
use crate::api::favorites::{FavoriteImport, FavoriteRequest};
use crate::batch;

/// `sanctions watchlist ...`.
pub fn run_watchlist(ctx: &Context, args: WatchlistArgs, json: bool) -> Result<Exit> {
    let svc = super::connect::service(ctx)?.service;
    let rt = runtime()?;
    match args.command {
        WatchlistCommand::Add {
            name,
            kind,
            note,
            dob,
            country,
        } => {
            let favorite = rt.block_on(svc.add_favorite(FavoriteRequest {
                name,
                kind: kind.map(Into::into),
                note,
                date_of_birth: dob,
                country,
            }))?;
            if json {
                print_json(&favorite)?;
            } else {
                println!(
                    "Added {} {:?}: {} match{} now{}.",
                    safe(&favorite.id),
                    safe(&favorite.name),
                    favorite.last_match_count,
                    if favorite.last_match_count == 1 {
                        ""
                    } else {
                        "es"
                    },
                    favorite
                        .last_screening_id
                        .as_deref()
                        .map(|s| format!(" (screening {})", safe(s)))
                        .unwrap_or_default()
                );
            }
        }
        WatchlistCommand::List => {
            let mut all = Vec::new();
            let mut cursor = None;
            loop {
                let page = rt.block_on(svc.favorites(cursor, Some(500)))?;
                all.extend(page.items);
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            if json {
                print_json(&all)?;
                return Ok(Exit::Success);
            }
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            writeln!(
                out,
                "{:<30}  {:<19}  {:>7}  name",
                "id", "last screened (UTC)", "matches"
            )?;
            for f in &all {
                writeln!(
                    out,
                    "{:<30}  {:<19}  {:>7}  {}{}{}",
                    safe(&f.id),
                    f.last_screened_at.map(ts).unwrap_or_default(),
                    f.last_match_count,
                    safe(&f.name),
                    f.kind.map(|k| format!(" ({k})")).unwrap_or_default(),
                    evidence(&f.dob, &f.country)
                )?;
            }
            writeln!(
                out,
                "{} name{} on the watchlist.",
                all.len(),
                if all.len() == 1 { "" } else { "s" }
            )?;
        }
        WatchlistCommand::Remove { id } => {
            let removed = rt.block_on(svc.remove_favorite(&id))?;
            println!("Removed {} {:?}.", safe(&removed.id), safe(&removed.name));
        }
        WatchlistCommand::Import { file, strict } => {
            return import_file(svc.as_ref(), &rt, &file, strict, json);
        }
        WatchlistCommand::Rescreen => {
            let summary = rt.block_on(svc.rescreen())?;
            if json {
                print_json(&summary)?;
            } else {
                println!(
                    "Re-screened {} favorites ({}): {} changed, {} new alert{} [{} ms].",
                    summary.favorites,
                    safe(&summary.mode),
                    summary.changed,
                    summary.alert_ids.len(),
                    if summary.alert_ids.len() == 1 {
                        ""
                    } else {
                        "s"
                    },
                    summary.millis
                );
            }
        }
    }
    Ok(Exit::Success)
}

/// `sanctions alerts ...`.
pub fn run_alerts(ctx: &Context, args: AlertsArgs, json: bool) -> Result<Exit> {
    let svc = super::connect::service(ctx)?.service;
    let rt = runtime()?;
    let (id, status, note) = match args.command {
        Some(AlertsCommand::Ack { id, note }) => (id, AlertStatus::Acknowledged, note),
        Some(AlertsCommand::Resolve { id, note }) => (id, AlertStatus::Resolved, note),
        None => {
            let kind = args
                .kind
                .as_deref()
                .map(|k| {
                    AlertKind::parse(k).ok_or_else(|| {
                        eyre!("unknown alert kind {k:?} (screening.match, favorite.match, list.updated, webhook.disabled)")
                    })
                })
                .transpose()?;
            let page = rt.block_on(svc.alerts(AlertQuery {
                status: args.status.map(|s| match s {
                    AlertStatusArg::Open => AlertStatus::Open,
                    AlertStatusArg::Acknowledged => AlertStatus::Acknowledged,
                    AlertStatusArg::Resolved => AlertStatus::Resolved,
                }),
                kind,
                since: opt_since(args.since.as_deref())?,
                limit: Some(args.limit),
                cursor: None,
            }))?;
            if json {
                print_json(&page)?;
            } else {
                print_alerts(&page.items)?;
            }
            return Ok(Exit::Success);
        }
    };
    let alert = rt.block_on(svc.set_alert_status(&id, AlertStatusRequest { status, note }))?;
    println!("Alert {} is now {}.", alert.id, alert.status);
    Ok(Exit::Success)
}

fn print_alerts(alerts: &[Alert]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<30}  {:<19}  {:<15}  {:<6}  {:<12}  title",
        "id", "created (UTC)", "kind", "sev", "status"
    )?;
    for a in alerts {
        writeln!(
            out,
            "{:<30}  {:<19}  {:<15}  {:<6}  {:<12}  {}",
            a.id,
            ts(a.created_at),
            a.kind.as_str(),
            a.severity.as_str(),
            a.status.as_str(),
            safe(&a.title)
        )?;
    }
    if alerts.is_empty() {
        writeln!(out, "No alert.")?;
    }
    Ok(())
}

/// Names sent to the service per call by `watchlist import` (each call screens and stores
/// them in chunks of its own): the file is read as it is imported, never held whole.
const IMPORT_CALL: usize = 10_000;
/// Refused rows named in the closing message (each is reported on its own line as read).
const PLACES_NAMED: usize = 10;

/// The rows of a watchlist file: streamed line by line when it is UTF-8 text (any length),
/// else read whole (JSON, UTF-16, legacy encodings; the batch limits apply).
fn watchlist_rows(
    file: &std::path::Path,
) -> Result<Box<dyn Iterator<Item = Result<batch::BatchItem, batch::BatchError>>>> {
    let options = batch::InputOptions::default();
    let context = || format!("cannot read the watchlist file {}", file.display());
    if let Some(stream) = batch::stream::open(file, &options).wrap_err_with(context)? {
        return Ok(Box::new(stream));
    }
    let bytes = std::fs::read(file).wrap_err_with(|| format!("cannot read {}", file.display()))?;
    let read = batch::parse_input(&bytes, &options).wrap_err_with(context)?;
    Ok(Box::new(read.items.into_iter().map(Ok)))
}

/// What an import did so far.
struct Tally {
    summary: crate::api::favorites::ImportSummary,
    refused: usize,
    places: Vec<String>,
}

impl Default for Tally {
    fn default() -> Self {
        let summary = crate::api::favorites::ImportSummary {
            total: 0,
            added: 0,
            duplicates: 0,
            matched: 0,
            alerts: 0,
        };
        Tally {
            summary,
            refused: 0,
            places: Vec::new(),
        }
    }
}

impl Tally {
    /// Counts a row refused at `place` (`line 4`) for `why`: the message naming both.
    fn refuse(&mut self, place: String, why: &str) -> String {
        self.refused += 1;
        let reason = format!("{place}: {why}");
        if self.places.len() < PLACES_NAMED {
            self.places.push(place);
        }
        reason
    }

    fn add(&mut self, done: crate::api::favorites::ImportSummary) {
        let s = &mut self.summary;
        s.total += done.total;
        s.added += done.added;
        s.duplicates += done.duplicates;
        s.matched += done.matched;
        s.alerts += done.alerts;
    }

    fn places(&self) -> String {
        let more = if self.refused > self.places.len() {
            ", ..."
        } else {
            ""
        };
        format!("{}{more}", self.places.join(", "))
    }
}

/// `watchlist import FILE`: every good row imported, each refused row reported with its
/// line and reason as it is read (then exit 3, as a batch with rows not screened); with
/// `strict`, the file is checked whole first and one bad row refuses it all.
fn import_file(
    svc: &dyn crate::service::Service,
    rt: &tokio::runtime::Runtime,
    file: &std::path::Path,
    strict: bool,
    json: bool,
) -> Result<Exit> {
    let file_name = safe(&file.display().to_string());
    if strict {
        check_strict(file, &file_name)?;
    }
    let started = std::time::Instant::now();
    let mut tally = Tally::default();
    let mut names = Vec::with_capacity(IMPORT_CALL);
    for item in watchlist_rows(file)? {
        let item = item.wrap_err_with(|| format!("cannot read {file_name}"))?;
        match item.favorite() {
            Ok(request) => names.push(request),
            Err((place, why)) => {
                let reason = tally.refuse(place, &why);
                super::output::warn(&format!("{file_name}: row refused, {reason}"), json);
                continue;
            }
        }
        if names.len() == IMPORT_CALL {
            let chunk = std::mem::replace(&mut names, Vec::with_capacity(IMPORT_CALL));
            tally.add(rt.block_on(svc.import_favorites(FavoriteImport { names: chunk }))?);
        }
    }
    if !names.is_empty() {
        tally.add(rt.block_on(svc.import_favorites(FavoriteImport { names }))?);
    }
    if tally.summary.total == 0 {
        return Err(super::exit::data(format!(
            "{file_name}: no row to import ({} refused)",
            tally.refused
        )));
    }
    report_import(&tally, started.elapsed(), json)
}

/// `--strict`: the whole file read once before anything is imported.
fn check_strict(file: &std::path::Path, file_name: &str) -> Result<()> {
    let mut tally = Tally::default();
    let mut shown = Vec::new();
    for item in watchlist_rows(file)? {
        let item = item.wrap_err_with(|| format!("cannot read {file_name}"))?;
        if let Err((place, why)) = item.favorite() {
            let reason = tally.refuse(place, &why);
            if shown.len() < PLACES_NAMED {
                shown.push(reason);
            }
        }
    }
    if tally.refused == 0 {
        return Ok(());
    }
    Err(super::exit::data(format!(
        "{file_name}: {} bad row(s), nothing imported (--strict): {}{}",
        tally.refused,
        shown.join("; "),
        if tally.refused > shown.len() {
            "; ..."
        } else {
            ""
        }
    )))
}

fn report_import(tally: &Tally, took: std::time::Duration, json: bool) -> Result<Exit> {
    let summary = &tally.summary;
    if json {
        print_json(summary)?;
    } else {
        println!(
            "Read {} names: {} added, {} already on the watchlist, {} refused; {} match something ({} alerts) [{:.1} s].",
            summary.total + tally.refused,
            summary.added,
            summary.duplicates,
            tally.refused,
            summary.matched,
            summary.alerts,
            took.as_secs_f64()
        );
    }
    if tally.refused == 0 {
        return Ok(Exit::Success);
    }
    Err(super::exit::data(format!(
        "{} row(s) refused ({}); the others were imported",
        tally.refused,
        tally.places()
    )))
}

/// After `lists import` or `lists update`: what the watchlist re-screen found, in a line on
/// standard error (nothing is printed with `--json`, nor when no name is watched).
pub fn print_rescreen(summary: &crate::api::favorites::RescreenSummary, json: bool) {
    if !json && summary.run_id.is_some() && summary.favorites > 0 {
        eprintln!(
            "watchlist: {} names re-screened ({}), {} changed, {} new alert{}",
            summary.favorites,
            summary.mode,
            summary.changed,
            summary.alert_ids.len(),
            if summary.alert_ids.len() == 1 {
                ""
            } else {
                "s"
            }
        );
    }
}

/// A favorite's date of birth and country as ` [dob 1957-03-10, country RU]` (empty: neither).
fn evidence(dob: &Option<String>, country: &Option<String>) -> String {
    let parts: Vec<String> = [("dob", dob), ("country", country)]
        .into_iter()
        .filter_map(|(label, v)| v.as_deref().map(|v| format!("{label} {}", safe(v))))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" [{}]", parts.join(", "))
    }
}
