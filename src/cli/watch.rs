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
        WatchlistCommand::Add { name, kind, note } => {
            let favorite = rt.block_on(svc.add_favorite(FavoriteRequest {
                name,
                kind: kind.map(Into::into),
                note,
            }))?;
            if json {
                print_json(&favorite)?;
            } else {
                println!(
                    "Added {} {:?}: {} match{} now{}.",
                    favorite.id,
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
                        .map(|s| format!(" (screening {s})"))
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
                    "{:<30}  {:<19}  {:>7}  {}{}",
                    f.id,
                    f.last_screened_at.map(ts).unwrap_or_default(),
                    f.last_match_count,
                    safe(&f.name),
                    f.kind.map(|k| format!(" ({k})")).unwrap_or_default()
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
            println!("Removed {} {:?}.", removed.id, safe(&removed.name));
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
                    summary.mode,
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

/// `watchlist import FILE`: every good row imported, each refused row reported with its
/// line and reason (then exit 3, as a batch with rows not screened); with `strict`, one bad
/// row refuses the whole file.
fn import_file(
    svc: &dyn crate::service::Service,
    rt: &tokio::runtime::Runtime,
    file: &std::path::Path,
    strict: bool,
    json: bool,
) -> Result<Exit> {
    let bytes = std::fs::read(file).wrap_err_with(|| format!("cannot read {}", file.display()))?;
    let read = batch::parse_input(&bytes, &batch::InputOptions::default())
        .wrap_err_with(|| format!("cannot read the watchlist file {}", file.display()))?;
    let (good, bad): (Vec<_>, Vec<_>) = read.items.into_iter().partition(|i| i.error.is_none());
    let refused: Vec<String> = bad
        .iter()
        .map(|i| format!("{}: {}", i.place(), i.error.as_deref().unwrap_or_default()))
        .collect();
    let file_name = safe(&file.display().to_string());
    if strict && !refused.is_empty() {
        let shown: Vec<&str> = refused.iter().take(10).map(String::as_str).collect();
        return Err(super::exit::data(format!(
            "{file_name}: {} bad row(s), nothing imported (--strict): {}{}",
            refused.len(),
            shown.join("; "),
            if refused.len() > shown.len() {
                "; ..."
            } else {
                ""
            }
        )));
    }
    for reason in &refused {
        super::output::warn(&format!("{file_name}: row refused, {reason}"), json);
    }
    if good.is_empty() {
        return Err(super::exit::data(format!(
            "{file_name}: no row to import ({} refused)",
            refused.len()
        )));
    }
    let started = std::time::Instant::now();
    let names = good
        .into_iter()
        .map(|i| FavoriteRequest {
            name: i.name,
            kind: i.kind,
            note: None,
        })
        .collect();
    let summary = rt.block_on(svc.import_favorites(FavoriteImport { names }))?;
    if json {
        print_json(&summary)?;
    } else {
        println!(
            "Read {} names: {} added, {} already on the watchlist, {} refused; {} match something ({} alerts) [{:.1} s].",
            summary.total + refused.len(),
            summary.added,
            summary.duplicates,
            refused.len(),
            summary.matched,
            summary.alerts,
            started.elapsed().as_secs_f64()
        );
    }
    if refused.is_empty() {
        return Ok(Exit::Success);
    }
    let places: Vec<String> = bad.iter().take(10).map(|i| i.place()).collect();
    Err(super::exit::data(format!(
        "{} row(s) refused ({}{}); the others were imported",
        refused.len(),
        places.join(", "),
        if refused.len() > places.len() {
            ", ..."
        } else {
            ""
        }
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
