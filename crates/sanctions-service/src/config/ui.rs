//! `[ui]`: the terminal UI's settings (mode, colours, theme, mouse, key remaps), and the
//! commented configuration file written on the UI's first start.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// `[ui]` of the configuration file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UiConfig {
    /// Where the UI's data comes from; unset: remote when a server URL is given.
    pub mode: Option<UiMode>,
    /// How many colours to draw with (`auto`: from the environment).
    pub colors: Colors,
    /// The terminal's background, for readable shades.
    pub theme: Background,
    /// Mouse clicks and wheel (off: the terminal's own text selection keeps working).
    pub mouse: bool,
    /// Read the publishers' news feeds (`[briefs] feeds`) while the UI runs and on `u` in
    /// Briefs. Off by default: the UI contacts no website unless asked.
    pub feeds: bool,
    /// Download the lists from the publishers on `u` in Lists. Off by default: the lists
    /// are imported from a folder (`i`) unless the user allows downloads.
    pub downloads: bool,
    /// Nothing leaves this machine: no feed is read, no list is downloaded (`u` in Lists and
    /// Briefs refuse and say why), no webhook is called, whatever else the file says.
    pub offline: bool,
    /// Action name -> key(s), e.g. `quit = ["q", "ctrl-q"]`; checked when the UI starts.
    pub keys: BTreeMap<String, Keys>,
}

/// `[ui] mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UiMode {
    /// This machine's data folder, even when `[remote] url` is set.
    Local,
    /// The server of `[remote] url` (or `--remote`, `SANCTIONS_API_URL`).
    Remote,
}

/// One key or several.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Keys {
    One(String),
    Many(Vec<String>),
}

impl Keys {
    /// The key names.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Keys::One(k) => vec![k.as_str()],
            Keys::Many(ks) => ks.iter().map(String::as_str).collect(),
        }
    }
}

/// How many colours the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Tier {
    /// No colour at all: bold, reversed and underlined text only.
    #[serde(rename = "none")]
    None,
    /// The 16 basic ANSI colours (every terminal).
    #[serde(rename = "16")]
    Basic,
    /// The xterm 256-colour palette.
    #[serde(rename = "256")]
    Indexed,
    /// 24-bit colour.
    #[serde(rename = "truecolor")]
    True,
}

impl Tier {
    /// The tier of a terminal described by `NO_COLOR`, `COLORTERM` and `TERM`.
    pub fn detect(no_color: Option<&str>, colorterm: Option<&str>, term: Option<&str>) -> Tier {
        if no_color.is_some_and(|v| !v.is_empty()) {
            return Tier::None;
        }
        let term = term.unwrap_or("").to_ascii_lowercase();
        if term == "dumb" {
            return Tier::None;
        }
        let colorterm = colorterm.unwrap_or("").to_ascii_lowercase();
        if colorterm == "truecolor" || colorterm == "24bit" || term.contains("direct") {
            Tier::True
        } else if term.contains("256color") {
            Tier::Indexed
        } else {
            Tier::Basic
        }
    }

    /// [`Tier::detect`] on this process's environment.
    pub fn from_env() -> Tier {
        let var = |name| std::env::var(name).ok();
        Tier::detect(
            var("NO_COLOR").as_deref(),
            var("COLORTERM").as_deref(),
            var("TERM").as_deref(),
        )
    }
}

/// `[ui] colors`: a tier, or detection from the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Colors {
    /// From `NO_COLOR`, `COLORTERM` and `TERM`.
    #[default]
    Auto,
    /// This tier, whatever the environment says.
    Fixed(Tier),
}

impl<'de> Deserialize<'de> for Colors {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let word = String::deserialize(d)?;
        if word == "auto" {
            return Ok(Colors::Auto);
        }
        Tier::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&word))
            .map(Colors::Fixed)
            .map_err(|_| {
                serde::de::Error::custom(format!(
                    "colors: expected \"auto\", \"truecolor\", \"256\", \"16\" or \"none\", found {word:?}"
                ))
            })
    }
}

/// `[ui] theme`: the terminal's background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Background {
    #[default]
    Dark,
    Light,
}

/// The commented file written on the UI's first start (every line a default or a comment).
pub const TEMPLATE: &str = include_str!("template.toml");

/// Writes [`TEMPLATE`] to `path` (creating its folder) unless a file is there already.
/// Returns whether it was written.
pub fn create_default(path: &Path) -> std::io::Result<bool> {
    use std::io::Write;
    if path.exists() {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        crate::files::create_private_dir(dir)?;
    }
    // 0600: a configuration may hold an API key.
    let mut file = match crate::files::private_options()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(e),
    };
    file.write_all(TEMPLATE.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// The file may hold an API key: 0600 and its new folder 0700, whatever the umask.
    #[cfg(unix)]
    #[test]
    fn the_default_file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("sanctions/config.toml");
        assert!(create_default(&path).unwrap());
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&tmp.path().join("sanctions")), 0o700);
    }

    #[test]
    fn the_template_parses_to_the_defaults_and_holds_no_secret() {
        let config = Config::parse(TEMPLATE).unwrap();
        assert_eq!(config.ui, UiConfig::default());
        assert!(config.remote.url.is_none() && config.remote.api_key.is_none());
        assert!(!config.ui.mouse);
        // Uncommenting the examples gives valid settings.
        let uncommented: String = TEMPLATE
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest)
                    if rest.split_once(" = ").is_some_and(|(k, _)| {
                        k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    }) =>
                {
                    rest
                }
                _ => l,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let config = Config::parse(&uncommented).unwrap();
        assert_eq!(config.ui.mode, Some(UiMode::Local));
        assert_eq!(config.ui.colors, Colors::Auto);
        assert_eq!(
            config.ui.keys["quit"],
            Keys::Many(vec!["q".into(), "ctrl-q".into()])
        );
        assert!(config.remote.url.is_some());
    }

    #[test]
    fn ui_settings_parse_and_bad_words_are_refused() {
        let config = Config::parse(
            "[ui]\nmode = \"remote\"\ncolors = \"256\"\ntheme = \"light\"\nmouse = true\n[ui.keys]\nquit = \"x\"",
        )
        .unwrap();
        assert_eq!(config.ui.mode, Some(UiMode::Remote));
        assert_eq!(config.ui.colors, Colors::Fixed(Tier::Indexed));
        assert_eq!(config.ui.theme, Background::Light);
        assert!(config.ui.mouse);
        assert_eq!(config.ui.keys["quit"].names(), ["x"]);
        for (word, tier) in [
            ("none", Tier::None),
            ("16", Tier::Basic),
            ("truecolor", Tier::True),
        ] {
            let config = Config::parse(&format!("[ui]\ncolors = \"{word}\"")).unwrap();
            assert_eq!(config.ui.colors, Colors::Fixed(tier));
        }
        let err = Config::parse("[ui]\ncolors = \"8\"").unwrap_err();
        assert!(err.contains("expected \"auto\""), "{err}");
        assert!(Config::parse("[ui]\ntheme = \"blue\"").is_err());
        assert!(Config::parse("[ui]\nmode = \"cloud\"").is_err());
        assert!(Config::parse("[ui]\nmice = true").is_err());
    }

    #[test]
    fn the_file_is_created_once_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/config.toml");
        assert!(create_default(&path).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), TEMPLATE);
        std::fs::write(&path, "[ui]\nmouse = true\n").unwrap();
        assert!(!create_default(&path).unwrap());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[ui]\nmouse = true\n"
        );
    }
}
