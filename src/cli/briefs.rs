//! `sanctions briefs [show ID | refresh]`: risk briefs from list updates and feeds.

use clap::{Args, Subcommand};
use color_eyre::eyre::Result;

use super::Context;
use super::exit::Exit;
use super::output::print_json;
use super::workflow::{runtime, safe};
use crate::api::briefs::BriefQuery;

/// `sanctions briefs ...`.
#[derive(Debug, Args)]
pub struct BriefsArgs {
    #[command(subcommand)]
    pub command: Option<BriefsCommand>,
    /// Most briefs shown (1-100).
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// The cursor printed under the previous page.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Only briefs about this list (a code such as ofac_sdn).
    #[arg(long)]
    pub list: Option<String>,
    /// Only briefs naming this country (two letters).
    #[arg(long)]
    pub country: Option<String>,
    /// Only briefs published since (YYYY-MM-DD or RFC 3339).
    #[arg(long)]
    pub since: Option<String>,
    /// Words that must all appear.
    #[arg(long)]
    pub q: Option<String>,
}

/// The brief subcommands.
#[derive(Debug, Subcommand)]
pub enum BriefsCommand {
    /// One brief in full.
    Show { id: String },
    /// Brief new list updates and read the feeds of `[briefs]` now.
    Refresh,
}

/// Runs `sanctions briefs ...`.
pub fn run(ctx: &Context, args: BriefsArgs, json: bool) -> Result<Exit> {
    let svc = super::connect::service(ctx)?.service;
    let rt = runtime()?;
    match args.command {
        None => {
            let page = rt.block_on(svc.briefs(BriefQuery {
                limit: Some(args.limit),
                cursor: args.cursor,
                list: args.list,
                country: args.country,
                since: args.since,
                q: args.q,
            }))?;
            if json {
                print_json(&page)?;
                return Ok(Exit::Success);
            }
            if page.items.is_empty() {
                println!("No briefs.");
            }
            for b in &page.items {
                println!(
                    "{}  {}  {:<6}  {:<12}  {}",
                    safe(&b.published_at),
                    safe(&b.id),
                    safe(&b.severity),
                    safe(&b.source),
                    safe(&b.title)
                );
            }
            if let Some(next) = page.next_cursor {
                println!("more: --cursor {}", safe(&next));
            }
        }
        Some(BriefsCommand::Show { id }) => {
            let b = rt.block_on(svc.brief(&id))?;
            if json {
                print_json(&b)?;
            } else {
                println!("{}", safe(&b.title));
                println!(
                    "{} · {} · {} · severity {}",
                    safe(&b.id),
                    safe(&b.source),
                    safe(&b.published_at),
                    safe(&b.severity)
                );
                if let Some(url) = &b.url {
                    println!("{}", safe(url));
                }
                println!();
                for line in b.body.lines() {
                    println!("{}", safe(line));
                }
            }
        }
        Some(BriefsCommand::Refresh) => {
            let report = rt.block_on(svc.refresh_briefs())?;
            if json {
                print_json(&report)?;
            } else {
                println!("{} brief(s) from list updates.", report.list_updates);
                for f in &report.feeds {
                    match &f.error {
                        None => println!("{}: {} items, {} new.", safe(&f.name), f.items, f.new),
                        Some(e) => println!("{}: failed: {}", safe(&f.name), safe(e)),
                    }
                }
            }
            if report.feeds.iter().any(|f| f.error.is_some()) {
                return Ok(Exit::Data);
            }
        }
    }
    Ok(Exit::Success)
}
