//! The UI's settings from the config's `[ui]`: the colour tier and theme, the keymap with
//! its remaps, the mouse, and what to say at start (remaps left out, a config file created).

use super::keymap::Keymap;
use super::state::{Message, State};
use super::{remap, theme};
use crate::config::ui::{Colors, UiConfig};

/// Settings for one run of the UI.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub keys: Keymap,
    pub mouse: bool,
    /// `[ui] feeds`: the publishers' news feeds are read.
    pub feeds: bool,
    /// `[ui] downloads`: `u` in Lists downloads the lists.
    pub downloads: bool,
    /// `[ui] offline`: nothing leaves this machine.
    pub offline: bool,
    /// Problems with the settings (shown as an error at start; the UI starts anyway).
    pub problems: Vec<String>,
    /// A notice for the status bar at start (e.g. the config file just created).
    pub notice: Option<String>,
    /// How the Lists tab updates and imports (local mode only).
    pub lists_tool: Option<super::lists_job::ListsTool>,
}

impl Settings {
    /// The settings of `ui`; sets the colour tier and theme of every style drawn from now on
    /// (`colors = "auto"`: from `NO_COLOR`, `COLORTERM` and `TERM`).
    pub fn from_config(ui: &UiConfig) -> Settings {
        let tier = match ui.colors {
            Colors::Auto => theme::Tier::from_env(),
            Colors::Fixed(tier) => tier,
        };
        theme::set(tier, ui.theme);
        let (keys, problems) = remap::keymap(&ui.keys);
        Settings {
            keys,
            mouse: ui.mouse,
            feeds: ui.feeds && !ui.offline,
            downloads: ui.downloads && !ui.offline,
            offline: ui.offline,
            problems,
            notice: None,
            lists_tool: None,
        }
    }

    /// Puts the settings into `state`: keys, mouse, and the start message.
    pub fn apply(self, state: &mut State) {
        state.lists.can_run = self.lists_tool.is_some();
        state.keys = self.keys;
        state.mouse = self.mouse;
        state.net = super::state::Network {
            feeds: self.feeds,
            downloads: self.downloads,
            offline: self.offline,
        };
        if !self.problems.is_empty() {
            let text = format!(
                "config: {} problem(s): {}",
                self.problems.len(),
                self.problems.join(" · ")
            );
            state.status.message = Some(Message::Error(super::text::sanitize(&text)));
        } else if let Some(notice) = self.notice {
            state.info(super::text::sanitize(&notice));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_reach_the_status_bar_and_the_ui_still_starts() {
        let ui: UiConfig =
            toml::from_str("mouse = true\ncolors = \"16\"\n[keys]\nquit = \"j\"\nnope = \"x\"")
                .unwrap();
        let settings = Settings::from_config(&ui);
        assert_eq!(theme::current().0, theme::Tier::Basic);
        let mut state = State::new("LOCAL", jiff::Timestamp::UNIX_EPOCH);
        settings.apply(&mut state);
        assert!(state.mouse);
        let Some(Message::Error(text)) = &state.status.message else {
            panic!("{:?}", state.status.message)
        };
        assert!(text.starts_with("config: 2 problem(s)"), "{text}");
        assert!(text.contains("quit: j is already down"), "{text}");
    }
}
