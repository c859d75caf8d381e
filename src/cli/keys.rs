//! `sanctions keys create|list|revoke`: the API keys of `sanctions serve`.

use clap::{Args, Subcommand};
use color_eyre::eyre::{Context as _, Result};

use super::Context;
use super::exit::Exit;
use super::output::{print_json, safe, write_text};
use super::workflow::local_service;
use crate::model::{Plan, Scope};
use crate::service::KeyStore;
use crate::service::keys;

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
        /// The account (customer or team) the key belongs to, created on first use; its
        /// keys share its plan, limits, credits and data. Without it the key gets an
        /// account of its own, named after the key's id. `default` is the local user's.
        #[arg(long)]
        account: Option<String>,
        /// free, pro or business: the plan of a new account (free when omitted); an
        /// existing account keeps its own (see `sanctions accounts set-plan`).
        #[arg(long)]
        plan: Option<Plan>,
        /// A name for the key, unique among the account's active keys (shown in lists,
        /// recorded with the key's id as the actor of its screenings).
        #[arg(long)]
        label: Option<String>,
        /// What the key may do, comma-separated: screen, review, watchlist, webhooks,
        /// audit, admin. Default: what the account's plan allows, admin aside.
        #[arg(long)]
        scopes: Option<String>,
    },
    /// List the keys (never the secrets).
    List,
    /// Revoke a key by id: a running server refuses it at once.
    Revoke { id: String },
}

/// Runs a `keys` subcommand.
pub fn run(ctx: &Context, args: KeysArgs, json: bool) -> Result<Exit> {
    let svc = local_service(ctx)?;
    let repo = svc.key_store();
    match args.command {
        KeysCommand::Create {
            account,
            plan,
            label,
            scopes,
        } => create(repo.as_ref(), account, plan, label, scopes, json)?,
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
                        "{}  {}…  {:<8}  {}  {}  [{}]  {}\n",
                        k.id,
                        k.prefix,
                        k.plan.as_str(),
                        safe(&k.account),
                        state,
                        Scope::join(&k.scopes),
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

/// `sanctions keys create`: the account found or made, the key generated and stored.
fn create(
    repo: &dyn KeyStore,
    account: Option<String>,
    plan: Option<Plan>,
    label: Option<String>,
    scopes: Option<String>,
    json: bool,
) -> Result<()> {
    if label.as_ref().is_some_and(|l| l.chars().count() > 200) {
        color_eyre::eyre::bail!("--label: at most 200 characters");
    }
    let scopes = scopes
        .as_deref()
        .map(Scope::parse_list)
        .transpose()
        .map_err(|e| color_eyre::eyre::eyre!("--scopes: {e}"))?;
    let id = crate::service::new_id("key_");
    let name = match account {
        Some(name) => super::accounts::check_name(&name)?,
        None => id.clone(),
    };
    let account = repo
        .ensure_account(&name, plan)
        .wrap_err_with(|| format!("cannot use account {}", safe(&name)))?;
    let scopes = scopes.unwrap_or_else(|| Scope::defaults(account.plan));
    let (secret, mut new) = keys::generate(&account, label, scopes)?;
    new.key.id = id;
    repo.create_key(&new).wrap_err("cannot store the key")?;
    if json {
        let mut value = serde_json::to_value(&new.key)?;
        value["key"] = serde_json::Value::String(secret);
        print_json(&value)?;
    } else {
        write_text(&format!(
            "{secret}\n\nKey {} of account {} ({} plan; scopes {}) created. Keep it now: it is \
             not shown again.\n",
            new.key.id,
            safe(&account.name),
            account.plan.title(),
            Scope::join(&new.key.scopes)
        ))?;
    }
    Ok(())
}
