//! `sanctions lists ...` and `sanctions show`.

use std::io::Write;
use std::sync::Arc;

use color_eyre::eyre::Result;

use super::exit::{self, Exit};
use super::output::{print_json, safe, thousands};
use super::workflow::runtime;
use super::{Context, ListsArgs, ListsCommand};
use crate::api::lists::{ImportOutcome, UpdateInfo};
use crate::fetch::Fetcher;
use crate::ingest::{self, ListOutcome, Outcome};
use crate::model::{ListCode, country_name};
use crate::service::ServiceError;
use crate::service::maintenance::{self, ImportError, ListsJob, Progress, Work};

/// What a user with an empty store should do, shown instead of empty results.
pub const NO_DATA_HINT: &str = "No sanctions lists are imported yet. Get them with one of:
  sanctions lists update            download the official files (needs internet)
  sanctions lists import DIR        offline, e.g. on a jump host: DIR holds one folder per
                                    list code (DIR/ofac_sdn/sdn.csv, DIR/un/consolidated.xml, ...),
                                    such as ../shared/data/lists";

/// Runs `lists` and its subcommands.
pub fn run(ctx: &Context, args: ListsArgs, json: bool) -> Result<Exit> {
    match args.command {
        None => overview(ctx, json),
        Some(ListsCommand::Import {
            dir,
            list,
            allow_shrink,
        }) => {
            super::connect::local_only(ctx, "lists import")?;
            if ctx.shared_store() {
                return import_shared(ctx, dir, list, allow_shrink, json);
            }
            let started = std::time::Instant::now();
            let options = ingest::ImportOptions::from_config(&ctx.config, allow_shrink);
            let code = refresh(ctx, Work::Import(dir), list, options, json)?;
            if !json {
                writeln!(
                    std::io::stdout(),
                    "done in {:.1} s",
                    started.elapsed().as_secs_f64()
                )?;
            }
            Ok(code)
        }
        Some(ListsCommand::Update { list, allow_shrink }) => {
            super::connect::local_only(ctx, "lists update")?;
            if ctx.shared_store() {
                return update_shared(ctx, &list, allow_shrink, json);
            }
            let options = ingest::ImportOptions::from_config(&ctx.config, allow_shrink);
            let fetcher = Fetcher::new(&ctx.config.fetch)?;
            refresh(ctx, Work::Update(fetcher), list, options, json)
        }
        Some(ListsCommand::Updates { code, limit }) => updates(ctx, code, usize::from(limit), json),
    }
}

/// `lists import` or `lists update` on the data folder, through the service as the UI runs
/// it (lock, import, integrity check, watchlist re-screen): one line per list, a warning if
/// the database is damaged, then what the re-screen found.
fn refresh(
    ctx: &Context,
    work: Work,
    selected: Vec<ListCode>,
    options: ingest::ImportOptions,
    json: bool,
) -> Result<Exit> {
    let svc = super::workflow::local_service(ctx)?;
    let job = ListsJob {
        data_dir: ctx.data_dir.clone(),
        work,
        selected,
        options,
    };
    let progress = move |step: Progress| {
        if step == Progress::Waiting {
            super::output::warn(super::context::LOCK_WAIT, json);
        }
    };
    let refreshed = runtime()?
        .block_on(svc.refresh_lists(job, Arc::new(progress)))
        .map_err(import_failure)?;
    let code = report(&refreshed.imported.outcomes, json)?;
    let code = super::store::after_import(refreshed.imported.damage.as_deref(), code, json);
    super::watch::print_rescreen(&refreshed.watchlist?, json);
    Ok(code)
}

/// An import that did not run: the database could not be opened or locked (with its
/// cause), or the import was refused as a whole (exit 3).
fn import_failure(e: ImportError) -> color_eyre::eyre::Report {
    match e {
        ImportError::Open { .. } | ImportError::Lock(_) => color_eyre::eyre::Report::new(e),
        ImportError::Refused(e) => exit::data(e.to_string()),
        ImportError::Service(e) => exit::data(e.to_string()),
    }
}

/// Prints the eight lists with their counts and last update.
pub fn overview(ctx: &Context, json: bool) -> Result<Exit> {
    let svc = super::connect::read_service(ctx)?;
    let infos = runtime()?
        .block_on(svc.lists())
        .map_err(|e| exit::data(e.to_string()))?;
    if json {
        print_json(&infos)?;
        return Ok(Exit::Success);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<11} {:<20} {:>8}  {:<21} published",
        "code", "name", "entities", "updated"
    )?;
    for info in &infos {
        writeln!(
            out,
            "{:<11} {:<20} {:>8}  {:<21} {}",
            info.list_code.code(),
            safe(&info.list_name),
            thousands(info.count),
            safe(info.updated_at.as_deref().unwrap_or("never")),
            safe(info.published.as_deref().unwrap_or("-")),
        )?;
    }
    let total: u64 = infos.iter().map(|i| i.count).sum();
    writeln!(out, "{:<32} {:>8}", "total", thousands(total))?;
    if let Some(target) = &ctx.remote {
        writeln!(out, "\nserver: {}", safe(&target.url))?;
    } else {
        let db = crate::config::database_path(&ctx.data_dir);
        let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
        writeln!(
            out,
            "\ndatabase: {} ({:.1} MB)",
            safe(&db.display().to_string()),
            size as f64 / 1e6
        )?;
        if let Some(access) = maintenance::access(&db) {
            writeln!(out, "access: {access}")?;
        }
    }
    if total == 0 {
        writeln!(out, "\n{NO_DATA_HINT}")?;
    }
    Ok(Exit::Success)
}

fn updates(ctx: &Context, list: ListCode, limit: usize, json: bool) -> Result<Exit> {
    let svc = super::connect::read_service(ctx)?;
    let records: Vec<UpdateInfo> = runtime()?
        .block_on(svc.list_updates(list, limit))
        .map_err(|e| exit::data(e.to_string()))?;
    if json {
        print_json(&records)?;
        return Ok(Exit::Success);
    }
    let mut out = std::io::stdout().lock();
    if records.is_empty() {
        writeln!(
            out,
            "{} ({}) has never been imported.\n\n{NO_DATA_HINT}",
            list.display_name(),
            list
        )?;
        return Ok(Exit::Success);
    }
    for r in &records {
        if let Some(why) = &r.failed {
            writeln!(
                out,
                "#{:<5} {}  FAILED: {}",
                r.update_id,
                safe(&r.at),
                safe(why)
            )?;
            write_origin_and_files(&mut out, r)?;
            continue;
        }
        writeln!(
            out,
            "#{:<5} {}  +{} added  -{} removed  ~{} changed  = {} entities  (published {})",
            r.update_id,
            safe(&r.at),
            thousands(r.added),
            thousands(r.removed),
            thousands(r.changed),
            thousands(r.total),
            safe(r.published.as_deref().unwrap_or("-")),
        )?;
        write_origin_and_files(&mut out, r)?;
        for note in &r.notes {
            writeln!(out, "       note: {}", safe(note))?;
        }
    }
    Ok(Exit::Success)
}

/// The origin of an update record and each of its files with size and sha256, indented.
fn write_origin_and_files(out: &mut impl Write, r: &UpdateInfo) -> std::io::Result<()> {
    writeln!(out, "       {}", safe(&r.origin))?;
    for f in &r.files {
        writeln!(
            out,
            "       {}  {} bytes  sha256 {}",
            safe(&f.name),
            thousands(f.bytes),
            safe(&f.sha256)
        )?;
    }
    Ok(())
}

/// Prints one line (or, with `--json`, one object) per list; data error when any list failed.
fn report(outcomes: &[ListOutcome], json: bool) -> Result<Exit> {
    let failed = outcomes.iter().filter(|o| o.failed()).count();
    let code = if failed > 0 {
        Exit::Data
    } else {
        Exit::Success
    };
    if json {
        let wire: Vec<ImportOutcome> = outcomes
            .iter()
            .map(|o| {
                let (outcome, reason, update) = match &o.outcome {
                    Outcome::Imported(r) => ("imported", None, Some(UpdateInfo::from(r.clone()))),
                    Outcome::Unchanged => ("unchanged", None, None),
                    Outcome::Skipped(why) => ("skipped", Some(why.clone()), None),
                    Outcome::Failed(why) => ("failed", Some(why.clone()), None),
                };
                ImportOutcome {
                    list_code: o.list,
                    list_name: o.list.display_name().to_owned(),
                    outcome: outcome.to_owned(),
                    reason,
                    update,
                }
            })
            .collect();
        print_json(&wire)?;
        return Ok(code);
    }
    let mut out = std::io::stdout().lock();
    for o in outcomes {
        let code = o.list.code();
        match &o.outcome {
            Outcome::Imported(r) => {
                writeln!(
                    out,
                    "{code:<11} imported   {:>6} entities (+{} added, -{} removed, ~{} changed)",
                    thousands(r.total),
                    thousands(r.added),
                    thousands(r.removed),
                    thousands(r.changed),
                )?;
                for note in &r.notes {
                    writeln!(out, "{:<11} note:      {}", "", safe(note))?;
                }
            }
            Outcome::Unchanged => writeln!(
                out,
                "{code:<11} unchanged  the publisher's files have not changed"
            )?,
            Outcome::Skipped(why) => writeln!(out, "{code:<11} skipped    {}", safe(why))?,
            Outcome::Failed(why) => writeln!(out, "{code:<11} FAILED     {}", safe(why))?,
        }
    }
    if failed > 0 {
        writeln!(
            std::io::stderr(),
            "{failed} list(s) failed; they keep their previous data."
        )?;
    }
    Ok(code)
}

/// `OFAC_SDN:306` -> `ofac_sdn:306`: the list code in any case.
pub fn normalise_entity_id(entity_id: &str) -> String {
    let entity_id = entity_id.trim();
    match entity_id.split_once(':') {
        Some((code, id)) => match code.parse::<ListCode>() {
            Ok(list) => list.entity_id(id.trim()),
            Err(_) => entity_id.to_owned(),
        },
        None => entity_id.to_owned(),
    }
}

/// Prints one entry with every field.
pub fn show(ctx: &Context, entity_id: &str, at: Option<i64>, json: bool) -> Result<Exit> {
    let svc = super::connect::read_service(ctx)?;
    let id = normalise_entity_id(entity_id);
    let rt = runtime()?;
    let entity = match rt.block_on(svc.entity(&id, at)) {
        Ok(detail) => detail.record,
        Err(ServiceError::NotFound { what, .. }) if what == "list update" => {
            return Err(exit::data(format!(
                "no list update {} (`sanctions lists updates CODE` lists them)",
                at.unwrap_or_default()
            )));
        }
        Err(ServiceError::NotFound { id: missing, .. })
            if at.is_some() && missing.contains("not listed then") =>
        {
            return Err(exit::data(format!(
                "{} was not listed right after update {}",
                safe(entity_id),
                at.unwrap_or_default()
            )));
        }
        Err(ServiceError::NotFound { .. }) => {
            let lists = rt
                .block_on(svc.lists())
                .map_err(|e| exit::data(e.to_string()))?;
            if lists.iter().all(|l| l.count == 0) {
                return Err(exit::data(format!(
                    "no entry {}: the store is empty.\n\n{NO_DATA_HINT}",
                    safe(entity_id)
                )));
            }
            return Err(exit::data(format!(
                "no entry {} (ids look like ofac_sdn:306 or un:6908575; `sanctions screen NAME` finds them)",
                safe(entity_id)
            )));
        }
        Err(other) => return Err(exit::data(other.to_string())),
    };
    let record = entity;
    if json {
        print_json(&record)?;
        return Ok(Exit::Success);
    }
    let mut out = std::io::stdout().lock();
    let mut line = |label: &str, value: &str| -> std::io::Result<()> {
        if value.is_empty() {
            return Ok(());
        }
        writeln!(out, "{:<14} {}", safe(label), safe(value))
    };
    let countries = |codes: &[String]| {
        codes
            .iter()
            .map(|c| match country_name(c) {
                Some(name) => format!("{c} ({name})"),
                None => c.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let e = &record;
    line("entity id", &e.entity_id)?;
    line("list", &e.list_name)?;
    line("type", e.kind.as_str())?;
    line("name", &e.primary_name)?;
    for alias in &e.aliases {
        let mut tags: Vec<String> = alias.kind.iter().cloned().collect();
        if alias.quality == crate::model::AliasQuality::Weak {
            tags.push("weak".into());
        }
        tags.extend(alias.script.iter().cloned());
        tags.extend(alias.lang.iter().cloned());
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", tags.join(", "))
        };
        line("alias", &format!("{}{tags}", alias.name))?;
    }
    let dates: Vec<String> = e.birth_dates.iter().map(|d| d.iso()).collect();
    line("born", &dates.join("; "))?;
    line("birthplace", &e.birth_places.join("; "))?;
    line("nationality", &countries(&e.nationalities))?;
    line("countries", &countries(&e.countries))?;
    for a in &e.addresses {
        // The one-line form when the list gives it (it holds the parts), else the parts.
        let text = a.full.clone().unwrap_or_else(|| {
            [&a.street, &a.city, &a.region, &a.postal_code, &a.country]
                .into_iter()
                .filter_map(|p| p.as_deref())
                .collect::<Vec<_>>()
                .join(", ")
        });
        line("address", &text)?;
    }
    for d in &e.identifiers {
        let mut text = format!("{} {}", d.doc_type, d.number);
        if let Some(c) = &d.country {
            text.push_str(&format!(" ({c})"));
        }
        if let Some(n) = &d.note {
            text.push_str(&format!("; {n}"));
        }
        line("document", &text)?;
    }
    line("programmes", &e.programmes.join(", "))?;
    line("listed on", e.listed_on.as_deref().unwrap_or(""))?;
    if let Some(ends) = &e.listing_ends {
        let today = crate::model::today_utc();
        let status = if crate::model::listing_ended(Some(ends), &today) {
            "ENDED"
        } else {
            "in force"
        };
        line("listing ends", &format!("{ends} ({status} on {today})"))?;
    }
    for (key, value) in &e.attributes {
        line(key, value)?;
    }
    line("remarks", e.remarks.as_deref().unwrap_or(""))?;
    line("source", e.source_url.as_deref().unwrap_or(""))?;
    Ok(Exit::Success)
}

/// `lists import` into a shared store: through the service (each list in its own
/// transaction under the store's import lock), then the watchlist re-screen.
fn import_shared(
    ctx: &Context,
    dir: std::path::PathBuf,
    lists: Vec<ListCode>,
    allow_shrink: bool,
    json: bool,
) -> Result<Exit> {
    let started = std::time::Instant::now();
    let svc = super::workflow::local_service(ctx)?;
    svc.configure(&ctx.config)?;
    let options = ingest::ImportOptions::from_config(&ctx.config, allow_shrink);
    let (outcomes, _) = super::workflow::runtime()?
        .block_on(svc.import_lists(dir, lists, options))
        .map_err(|e| exit::data(e.to_string()))?;
    let code = report(&outcomes, json)?;
    if !json {
        writeln!(
            std::io::stdout(),
            "done in {:.1} s",
            started.elapsed().as_secs_f64()
        )?;
    }
    Ok(code)
}

/// `lists update` on a shared (PostgreSQL) store: downloaded into the data folder's
/// `downloads/`, imported through the service under the store's per-list lock, so
/// instances updating at once import each publication once.
fn update_shared(ctx: &Context, list: &[ListCode], allow_shrink: bool, json: bool) -> Result<Exit> {
    let svc = super::workflow::local_service(ctx)?;
    svc.configure(&ctx.config)?;
    let options = ingest::ImportOptions::from_config(&ctx.config, allow_shrink);
    let fetcher = Fetcher::new(&ctx.config.fetch)?;
    let downloads = ctx.data_dir.join("downloads");
    // Multi-threaded: the store's blocking calls made in the update step off the runtime
    // (`block_in_place`), which a current-thread runtime refuses.
    let (outcomes, _) = super::workflow::runtime()?
        .block_on(svc.update_shared_lists(&fetcher, &downloads, list, &options))
        .map_err(|e| exit::data(e.to_string()))?;
    report(&outcomes, json)
}

#[cfg(test)]
mod tests {
    #[test]
    fn entity_ids_take_any_case_in_the_list_code() {
        assert_eq!(super::normalise_entity_id(" OFAC_SDN:306 "), "ofac_sdn:306");
        assert_eq!(super::normalise_entity_id("Un:QDi.001"), "un:QDi.001");
        assert_eq!(super::normalise_entity_id("nope:1"), "nope:1");
    }
}
