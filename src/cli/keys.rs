//! `sanctions keys create|list|revoke`: the API keys of `sanctions serve`.

use clap::{Args, Subcommand};
use color_eyre::eyre::{Context as _, Result};

use super::Context;
use super::exit::Exit;
use super::output::{print_json, safe, write_text};
use super::workflow::local_service;
use crate::model::Plan;
use crate::server::keys;
use crate::store::KeyStore;

/// `sanctions keys ...`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    pub command: KeysCommand,
}

/// The key subcommands.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Make a new key and print it once (only its hash is stored).
    Create {
        /// free, pro or business.
        #[arg(long)]
        plan: Plan,
        /// A name for the key (shown in lists, recorded as the actor of its screenings).
        #[arg(long)]
        label: Option<String>,
    },
    /// List the keys (never the secrets).
    List,
    /// Revoke a key by id: a running server refuses it at once.
    Revoke { id: String },
}

/// Runs a `keys` subcommand.
pub fn run(ctx: &Context, args: KeysArgs, json: bool) -> Result<Exit> {
    let svc = local_service(ctx)?;
    let repo = svc.repo();
    match args.command {
        KeysCommand::Create { plan, label } => {
            if label.as_ref().is_some_and(|l| l.chars().count() > 200) {
                color_eyre::eyre::bail!("--label: at most 200 characters");
            }
            let (secret, new) = keys::generate(plan, label)?;
            repo.create_key(&new).wrap_err("cannot store the key")?;
            if json {
                let mut value = serde_json::to_value(&new.key)?;
                value["key"] = serde_json::Value::String(secret);
                print_json(&value)?;
            } else {
                write_text(&format!(
                    "{secret}\n\nKey {} ({} plan) created. Keep it now: it is not shown again.\n",
                    new.key.id,
                    new.key.plan.title()
                ))?;
            }
        }
        KeysCommand::List => {
            let all = repo.api_keys()?;
            if json {
                print_json(&all)?;
            } else if all.is_empty() {
                write_text("No keys. Make one with `sanctions keys create --plan free`.\n")?;
            } else {
                let mut text = String::new();
                for k in &all {
                    let state = match k.revoked_at {
                        Some(at) => format!("revoked {at}"),
                        None => "active".to_owned(),
                    };
                    text.push_str(&format!(
                        "{}  {}…  {:<8}  {}  {}\n",
                        k.id,
                        k.prefix,
                        k.plan.as_str(),
                        state,
                        safe(k.label.as_deref().unwrap_or("")),
                    ));
                }
                write_text(&text)?;
            }
        }
        KeysCommand::Revoke { id } => {
            let key = repo.revoke_key(&id)?;
            if json {
                print_json(&key)?;
            } else {
                write_text(&format!("Key {} revoked.\n", key.id))?;
            }
        }
    }
    Ok(Exit::Success)
}
