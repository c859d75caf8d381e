//! `sanctions webhooks create|list|show|update|delete|test|deliveries|deliver`.

use clap::{Args, Subcommand};
use color_eyre::eyre::{Context as _, Result};

use super::Context;
use super::exit::Exit;
use super::output::print_json;
use super::workflow::{local_service, runtime, safe};
use crate::api::webhooks::{Webhook, WebhookCreate, WebhookUpdate};
use crate::service::LocalService;

/// `sanctions webhooks ...`.
#[derive(Debug, Args)]
pub struct WebhooksArgs {
    #[command(subcommand)]
    pub command: Option<WebhooksCommand>,
}

/// The webhook subcommands.
#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// Register an endpoint; prints its signing secret once.
    Create {
        url: String,
        /// Event kinds (comma-separated): screening.match, list.updated, favorite.match,
        /// alert.created.
        #[arg(long, value_delimiter = ',', required = true)]
        events: Vec<String>,
        #[arg(long)]
        description: Option<String>,
    },
    /// List the registered endpoints.
    List,
    /// Show one endpoint.
    Show { id: String },
    /// Change an endpoint (`--active true` re-enables a disabled one).
    Update {
        id: String,
        #[arg(long)]
        url: Option<String>,
        #[arg(long, value_delimiter = ',')]
        events: Option<Vec<String>>,
        #[arg(long)]
        description: Option<String>,
        #[arg(long)]
        active: Option<bool>,
    },
    /// Delete an endpoint.
    Delete { id: String },
    /// Send a signed `webhook.test` event now and show the outcome.
    Test { id: String },
    /// The delivery attempts of an endpoint, newest first.
    Deliveries {
        id: String,
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Run the delivery worker: deliver pending events, with retries, until stopped.
    Deliver {
        /// Stop when no delivery is pending (after waiting out retries) instead of running on.
        #[arg(long)]
        once: bool,
    },
}

fn worker(ctx: &Context) -> Result<LocalService> {
    super::connect::local_only(ctx, "webhooks deliver")?;
    let svc = local_service(ctx)?;
    svc.configure(&ctx.config)?;
    Ok(svc)
}

/// Runs `sanctions webhooks ...`.
pub fn run(ctx: &Context, args: WebhooksArgs, json: bool) -> Result<Exit> {
    let rt = runtime()?;
    let command = args.command.unwrap_or(WebhooksCommand::List);
    if let WebhooksCommand::Deliver { once } = command {
        let svc = worker(ctx)?;
        rt.block_on(svc.run_webhook_worker(once, async {
            let _ = tokio::signal::ctrl_c().await;
        }))
        .wrap_err("the delivery worker stopped")?;
        return Ok(Exit::Success);
    }
    let svc = super::connect::service(ctx)?.service;
    match command {
        WebhooksCommand::Create {
            url,
            events,
            description,
        } => {
            let w = rt.block_on(svc.create_webhook(WebhookCreate {
                url,
                events,
                description,
            }))?;
            if json {
                print_json(&w)?;
            } else {
                print_one(&w);
                println!(
                    "secret: {} (shown only now: verify deliveries with it)",
                    safe(w.secret.as_deref().unwrap_or_default())
                );
            }
        }
        WebhooksCommand::List => {
            let all = rt.block_on(svc.webhooks())?;
            if json {
                print_json(&all)?;
            } else if all.is_empty() {
                println!("No webhooks. Add one with `sanctions webhooks create URL --events ...`.");
            } else {
                for w in &all {
                    print_one(w);
                }
            }
        }
        WebhooksCommand::Show { id } => {
            let w = rt.block_on(svc.webhook(&id))?;
            if json {
                print_json(&w)?;
            } else {
                print_one(&w);
            }
        }
        WebhooksCommand::Update {
            id,
            url,
            events,
            description,
            active,
        } => {
            let w = rt.block_on(svc.update_webhook(
                &id,
                WebhookUpdate {
                    url,
                    events,
                    description,
                    active,
                },
            ))?;
            if json {
                print_json(&w)?;
            } else {
                print_one(&w);
            }
        }
        WebhooksCommand::Delete { id } => {
            let w = rt.block_on(svc.delete_webhook(&id))?;
            println!("Deleted {} ({}).", safe(&w.id), safe(&w.url));
        }
        WebhooksCommand::Test { id } => {
            let r = rt.block_on(svc.test_webhook(&id))?;
            if json {
                print_json(&r)?;
            } else if r.delivered {
                println!(
                    "Delivered {}: HTTP {} in {} ms.",
                    safe(&r.event_id),
                    r.status_code.unwrap_or_default(),
                    r.latency_ms
                );
            } else {
                println!(
                    "Not delivered {}: {} ({} ms).",
                    safe(&r.event_id),
                    safe(r.error.as_deref().unwrap_or("unknown error")),
                    r.latency_ms
                );
            }
            if !r.delivered {
                return Ok(Exit::Data);
            }
        }
        WebhooksCommand::Deliveries { id, limit } => {
            let log = rt.block_on(svc.webhook_deliveries(&id, limit))?;
            if json {
                print_json(&log)?;
            } else {
                for a in &log {
                    println!(
                        "{}  {:<16} #{:<2} {:>4}  {:>6} ms  {}  {}",
                        a.at,
                        a.kind,
                        a.attempt,
                        a.status_code.map(|s| s.to_string()).unwrap_or("-".into()),
                        a.latency_ms,
                        safe(&a.event_id),
                        safe(a.error.as_deref().unwrap_or("ok"))
                    );
                }
            }
        }
        WebhooksCommand::Deliver { .. } => {}
    }
    Ok(Exit::Success)
}

fn print_one(w: &Webhook) {
    println!(
        "{}  {}  {}  [{}]  pending {}{}{}",
        safe(&w.id),
        if w.active { "active  " } else { "disabled" },
        safe(&w.url),
        safe(&w.events.join(",")),
        w.pending,
        w.description
            .as_deref()
            .map(|d| format!("  {}", safe(d)))
            .unwrap_or_default(),
        w.disabled_reason
            .as_deref()
            .map(|r| format!("  ({})", safe(r)))
            .unwrap_or_default(),
    );
}
