//! `sanctions lists ...` and `sanctions show`.

use std::process::ExitCode;

use color_eyre::eyre::{Result, bail};

use super::output::{print_json, thousands};
use super::{Context, ListsArgs, ListsCommand};
use crate::api::lists::{EntityRecord, ListInfo};
use crate::fetch::Fetcher;
use crate::ingest::{self, ListOutcome, Outcome};
use crate::model::{ListCode, country_name};
use crate::store::Store;

/// What a user with an empty store should do, shown instead of empty results.
pub const NO_DATA_HINT: &str = "No sanctions lists are imported yet. Get them with one of:
  sanctions lists update            download the official files (needs internet)
  sanctions lists import DIR        offline, e.g. on a jump host: DIR holds one folder per
                                    list code (DIR/ofac_sdn/sdn.csv, DIR/un/consolidated.xml, ...),
                                    such as ../shared/data/lists";

/// Runs `lists` and its subcommands.
pub fn run(ctx: &Context, args: ListsArgs) -> Result<ExitCode> {
    match args.command {
        None => overview(ctx, args.json),
        Some(ListsCommand::Import {
            dir,
            list,
            allow_shrink,
        }) => {
            let started = std::time::Instant::now();
            let mut store = ctx.open_store()?;
            let options = ingest::ImportOptions::from_config(&ctx.config, allow_shrink);
            let outcomes = ingest::import_dir_with(&mut store, &dir, &list, &options)?;
            let code = report(&outcomes);
            println!("done in {:.1} s", started.elapsed().as_secs_f64());
            Ok(code)
        }
        Some(ListsCommand::Update { list, allow_shrink }) => {
            let options = ingest::ImportOptions::from_config(&ctx.config, allow_shrink);
            let mut store = ctx.open_store()?;
            let fetcher = Fetcher::new(&ctx.config.fetch)?;
            let downloads = ctx.data_dir.join("downloads");
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let outcomes = runtime.block_on(ingest::update_lists_with(
                &mut store, &fetcher, &downloads, &list, &options,
            ));
            Ok(report(&outcomes))
        }
        Some(ListsCommand::Updates { code, json }) => updates(ctx, code, json),
    }
}

/// Prints the eight lists with their counts and last update.
pub fn overview(ctx: &Context, json: bool) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let infos = list_infos(&store)?;
    if json {
        print_json(&infos)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<11} {:<20} {:>8}  {:<21} published",
        "code", "name", "entities", "updated"
    );
    for info in &infos {
        println!(
            "{:<11} {:<20} {:>8}  {:<21} {}",
            info.code.code(),
            info.name,
            thousands(info.count),
            info.updated_at.as_deref().unwrap_or("never"),
            info.published.as_deref().unwrap_or("-"),
        );
    }
    let total: u64 = infos.iter().map(|i| i.count).sum();
    println!("{:<32} {:>8}", "total", thousands(total));
    let db = crate::config::database_path(&ctx.data_dir);
    let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
    println!("\ndatabase: {} ({:.1} MB)", db.display(), size as f64 / 1e6);
    if total == 0 {
        println!("\n{NO_DATA_HINT}");
    }
    Ok(ExitCode::SUCCESS)
}

fn list_infos(store: &Store) -> Result<Vec<ListInfo>> {
    Ok(store
        .lists()?
        .into_iter()
        .map(|s| ListInfo {
            code: s.list,
            name: s.list.display_name().to_owned(),
            count: s.count,
            updated_at: s.updated_at,
            published: s.published,
        })
        .collect())
}

fn updates(ctx: &Context, list: ListCode, json: bool) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let records = store.updates(list, 100)?;
    if json {
        print_json(&records)?;
        return Ok(ExitCode::SUCCESS);
    }
    if records.is_empty() {
        println!(
            "{} ({}) has never been imported.\n\n{NO_DATA_HINT}",
            list.display_name(),
            list
        );
        return Ok(ExitCode::SUCCESS);
    }
    for r in &records {
        if let Some(why) = &r.failed {
            println!("#{:<5} {}  FAILED: {why}", r.id, r.at);
            println!("       {}", r.origin);
            for f in &r.files {
                println!(
                    "       {}  {} bytes  sha256 {}",
                    f.name,
                    thousands(f.bytes),
                    f.sha256
                );
            }
            continue;
        }
        println!(
            "#{:<5} {}  +{} added  -{} removed  ~{} changed  = {} entities  (published {})",
            r.id,
            r.at,
            thousands(r.added),
            thousands(r.removed),
            thousands(r.changed),
            thousands(r.total),
            r.published.as_deref().unwrap_or("-"),
        );
        println!("       {}", r.origin);
        for f in &r.files {
            println!(
                "       {}  {} bytes  sha256 {}",
                f.name,
                thousands(f.bytes),
                f.sha256
            );
        }
        for note in &r.notes {
            println!("       note: {note}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints one line per list and returns failure when any list failed.
fn report(outcomes: &[ListOutcome]) -> ExitCode {
    for o in outcomes {
        let code = o.list.code();
        match &o.outcome {
            Outcome::Imported(r) => {
                println!(
                    "{code:<11} imported   {:>6} entities (+{} added, -{} removed, ~{} changed)",
                    thousands(r.total),
                    thousands(r.added),
                    thousands(r.removed),
                    thousands(r.changed),
                );
                for note in &r.notes {
                    println!("{:<11} note:      {note}", "");
                }
            }
            Outcome::Unchanged => {
                println!("{code:<11} unchanged  the publisher's files have not changed")
            }
            Outcome::Skipped(why) => println!("{code:<11} skipped    {why}"),
            Outcome::Failed(why) => println!("{code:<11} FAILED     {why}"),
        }
    }
    let failed = outcomes.iter().filter(|o| o.failed()).count();
    if failed > 0 {
        eprintln!("{failed} list(s) failed; they keep their previous data.");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints one entry with every field.
pub fn show(ctx: &Context, entity_id: &str, json: bool) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let Some(entity) = store.entity(entity_id.trim())? else {
        if store.entity_count()? == 0 {
            bail!("no entry {entity_id}: the store is empty.\n\n{NO_DATA_HINT}");
        }
        bail!("no entry {entity_id} (ids look like ofac_sdn:306 or un:6908575)");
    };
    let record = EntityRecord::from(entity);
    if json {
        print_json(&record)?;
        return Ok(ExitCode::SUCCESS);
    }
    let e = &record.entity;
    let line = |label: &str, value: &str| {
        if !value.is_empty() {
            println!("{label:<14} {value}");
        }
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
    line("entity id", &record.entity_id);
    line("list", &record.list_name);
    line("type", e.kind.as_str());
    line("name", &e.primary_name);
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
        line("alias", &format!("{}{tags}", alias.name));
    }
    let dates: Vec<String> = e.birth_dates.iter().map(|d| d.iso()).collect();
    line("born", &dates.join("; "));
    line("birthplace", &e.birth_places.join("; "));
    line("nationality", &countries(&e.nationalities));
    line("countries", &countries(&e.countries));
    for a in &e.addresses {
        // The one-line form when the list gives it (it holds the parts), else the parts.
        let text = a.full.clone().unwrap_or_else(|| {
            [&a.street, &a.city, &a.region, &a.postal_code, &a.country]
                .into_iter()
                .filter_map(|p| p.as_deref())
                .collect::<Vec<_>>()
                .join(", ")
        });
        line("address", &text);
    }
    for d in &e.identifiers {
        let mut text = format!("{} {}", d.doc_type, d.number);
        if let Some(c) = &d.country {
            text.push_str(&format!(" ({c})"));
        }
        if let Some(n) = &d.note {
            text.push_str(&format!("; {n}"));
        }
        line("document", &text);
    }
    line("programmes", &e.programs.join(", "));
    line("listed on", e.listed_on.as_deref().unwrap_or(""));
    if let Some(ends) = &e.listing_ends {
        let today = crate::model::today_utc();
        let status = if e.ended(&today) { "ENDED" } else { "in force" };
        line("listing ends", &format!("{ends} ({status} on {today})"));
    }
    for (key, value) in &e.attributes {
        line(key, value);
    }
    line("remarks", e.remarks.as_deref().unwrap_or(""));
    line("source", e.source_url.as_deref().unwrap_or(""));
    Ok(ExitCode::SUCCESS)
}
