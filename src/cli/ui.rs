//! `sanctions` with no subcommand on a terminal: the terminal UI, on the local data folder
//! or a server (`--remote`, `SANCTIONS_API_URL`, or the config's `[ui] mode` and
//! `[remote] url`). The first start writes the commented default config file.

use std::path::{Path, PathBuf};

use color_eyre::Result;

use super::{Context, Exit, connect, exit, workflow};
use crate::config::{self, ui::UiMode};
use crate::tui::lists_job::ListsTool;
use crate::tui::settings::Settings;

/// Writes the commented config file on the first start, when no `--config` (or
/// `SANCTIONS_CONFIG`) names another; says what happened, for the status bar.
fn first_run(explicit: Option<&Path>) -> Option<String> {
    if explicit.is_some() {
        return None;
    }
    let path: PathBuf = config::default_config_file()?;
    match config::ui::create_default(&path) {
        Ok(true) => Some(format!(
            "created the config file {} (its comments explain each setting)",
            path.display()
        )),
        Ok(false) => None,
        Err(e) => Some(format!(
            "could not create the config file {}: {e}",
            path.display()
        )),
    }
}

/// Opens the UI until the user quits.
pub fn run(
    data_dir: Option<&Path>,
    config_file: Option<&Path>,
    remote: Option<&str>,
) -> Result<Exit> {
    let notice = first_run(config_file);
    let ctx = Context::new(data_dir, config_file)?;
    let mut settings = Settings::from_config(&ctx.config.ui);
    settings.notice = notice;
    let mut remote_settings = ctx.config.remote.clone();
    if ctx.config.ui.mode == Some(UiMode::Local) {
        // `[ui] mode = "local"`: the config's server is not used; `--remote` still is.
        remote_settings.url = None;
    }
    match connect::resolve(remote, &remote_settings) {
        Some(target) => {
            let ctx = Context {
                remote: Some(target),
                ..ctx
            };
            // The status bar's REMOTE host comes from the service's mode.
            crate::tui::start(connect::service(&ctx)?.service, None, settings)?;
        }
        None if ctx.config.ui.mode == Some(UiMode::Remote) => {
            return Err(exit::usage(
                "[ui] mode = \"remote\" needs a server: set [remote] url in the config file, or pass --remote URL (or SANCTIONS_API_URL)",
            ));
        }
        None => {
            // The Lists tab updates and imports through this service, as `lists update` and
            // `lists import` do, on this data folder.
            connect::read_ahead(&ctx);
            let service = workflow::local_service(&ctx)?;
            // The index is read (or built) on its own thread from here on, while the terminal
            // is set up and the first frame drawn: a name typed at once finds it ready sooner.
            crate::service::Service::warm_up(&service);
            let tool = ListsTool::new(service.clone(), ctx.data_dir.clone(), &ctx.config);
            settings.lists_tool = Some(tool);
            crate::tui::start_local(service, &ctx.config, settings)?;
        }
    }
    Ok(Exit::Success)
}
