//! `sanctions accounts [list|show NAME|set-plan NAME PLAN]`: the accounts of
//! `sanctions serve`. An account (a customer or a team) holds the plan, the limits, the
//! monthly credits and the data of its keys; `sanctions keys create --account NAME` makes
//! one on first use.

use clap::{Args, Subcommand};
use color_eyre::eyre::{Result, bail, eyre};

use super::Context;
use super::exit::Exit;
use super::output::{print_json, safe, write_text};
use super::workflow::local_service;
use crate::model::{Account, Plan};
use crate::service::KeyStore;

/// `sanctions accounts ...`.
#[derive(Debug, Args)]
pub struct AccountsArgs {
    #[command(subcommand)]
    pub command: Option<AccountsCommand>,
}

/// The account subcommands.
#[derive(Debug, Subcommand)]
pub enum AccountsCommand {
    /// Every account with its plan and its active keys (the default).
    List,
    /// One account: its plan, this month's credits used and its keys.
    Show { name: String },
    /// Move an account to another plan; its keys follow at once, even on a running server.
    SetPlan { name: String, plan: Plan },
}

/// The longest account name.
const MAX_NAME: usize = 100;

/// An account name fit to store: trimmed, 1 to 100 characters, no control characters.
pub fn check_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        bail!("--account: a name of 1 to {MAX_NAME} characters");
    }
    if name.chars().any(char::is_control) {
        bail!("--account: control characters are not allowed in a name");
    }
    Ok(name.to_owned())
}

/// Runs an `accounts` subcommand.
pub fn run(ctx: &Context, args: AccountsArgs, json: bool) -> Result<Exit> {
    let svc = local_service(ctx)?;
    let repo = svc.key_store();
    match args.command.unwrap_or(AccountsCommand::List) {
        AccountsCommand::List => list(repo.as_ref(), json)?,
        AccountsCommand::Show { name } => show(repo.as_ref(), &name, json)?,
        AccountsCommand::SetPlan { name, plan } => {
            let account = repo.set_account_plan(&name, plan)?;
            if json {
                print_json(&account)?;
            } else {
                write_text(&format!(
                    "Account {} is now on the {} plan.\n",
                    safe(&account.name),
                    account.plan.title()
                ))?;
            }
        }
    }
    Ok(Exit::Success)
}

fn active_keys(repo: &dyn KeyStore, account: &Account) -> Result<Vec<crate::model::ApiKey>> {
    Ok(repo
        .api_keys()?
        .into_iter()
        .filter(|k| k.account_id == account.id && k.revoked_at.is_none())
        .collect())
}

fn list(repo: &dyn KeyStore, json: bool) -> Result<()> {
    let accounts = repo.accounts()?;
    if json {
        return print_json(&accounts);
    }
    let mut text = String::new();
    for a in &accounts {
        let keys = active_keys(repo, a)?.len();
        text.push_str(&format!(
            "{:<30}  {:<8}  {} active key{}  {}\n",
            safe(&a.name),
            a.plan.as_str(),
            keys,
            if keys == 1 { "" } else { "s" },
            a.id
        ));
    }
    write_text(&text)?;
    Ok(())
}

fn show(repo: &dyn KeyStore, name: &str, json: bool) -> Result<()> {
    let account = repo
        .account_named(name)?
        .ok_or_else(|| eyre!("no account is called {}", safe(name)))?;
    let month = jiff::Timestamp::now().strftime("%Y-%m").to_string();
    let used = repo.credits_used(&account.id, &month)?;
    let keys = active_keys(repo, &account)?;
    if json {
        let mut value = serde_json::to_value(&account)?;
        value["credits_used"] = serde_json::json!({ "month": month, "used": used });
        value["keys"] = serde_json::to_value(&keys)?;
        return print_json(&value);
    }
    let mut text = format!(
        "Account {} ({})\nPlan: {}\nCredits used in {month}: {used}\nActive keys:\n",
        safe(&account.name),
        account.id,
        account.plan.title()
    );
    for k in &keys {
        text.push_str(&format!(
            "  {}  {}…  [{}]  {}\n",
            k.id,
            k.prefix,
            crate::model::Scope::join(&k.scopes),
            safe(k.label.as_deref().unwrap_or(""))
        ));
    }
    write_text(&text)?;
    Ok(())
}
