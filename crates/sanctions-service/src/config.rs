//! The configuration file (TOML) and where the program keeps its data.
//!
//! Every setting has a default, so no file is needed. A file given with `--config` must
//! exist; the default one (`<config dir>/config.toml`) is read only when present.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::ListCode;

pub mod ui;

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("config file {path}: {message}")]
    Invalid { path: String, message: String },
    #[error("no home directory found: pass --data-dir or set SANCTIONS_DATA_DIR")]
    NoHome,
}

/// The whole configuration file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub fetch: FetchConfig,
    #[serde(default)]
    pub import: ImportConfig,
    #[serde(default)]
    pub screening: ScreeningConfig,
    #[serde(default)]
    pub watchlist: WatchlistConfig,
    #[serde(default)]
    pub webhooks: WebhooksConfig,
    #[serde(default)]
    pub briefs: BriefsConfig,
    #[serde(default)]
    pub remote: RemoteSettings,
    #[serde(default)]
    pub server: ServerConfig,
    /// `[ui]`: the terminal UI (mode, colours, theme, mouse, key remaps).
    #[serde(default)]
    pub ui: ui::UiConfig,
    /// `[store]`: where the store is (`--database-url` and `SANCTIONS_DATABASE_URL` win).
    #[serde(default)]
    pub store: StoreSettings,
    /// `[review]`: how decisions are recorded (four-eyes review).
    #[serde(default)]
    pub review: ReviewConfig,
}

/// `[review]`: with `four_eyes = true`, a `true_match` or `false_positive` recorded by one
/// reviewer stays `proposed` until a second, different reviewer (the OS user locally, the
/// API key's label on a server) confirms or rejects it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReviewConfig {
    pub four_eyes: bool,
}

/// `[store]`: a PostgreSQL database shared by several `sanctions serve` instances instead
/// of the SQLite file in the data folder.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreSettings {
    /// `postgres://USER@HOST:PORT/DB` (`?sslmode=require` for TLS, verified against the
    /// platform's roots). Absent: SQLite.
    pub url: Option<String>,
}

/// `[remote]`: a `sanctions serve` to work against instead of the local store (`--remote
/// URL` and the env vars `SANCTIONS_API_URL`, `SANCTIONS_API_KEY` win over it).
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RemoteSettings {
    /// The server's base URL, e.g. `https://screening.example.com`.
    pub url: Option<String>,
    /// The environment variable holding the API key (better than writing the key here).
    pub api_key_env: Option<String>,
    /// The API key itself (keep the file private), when no env var holds it.
    pub api_key: Option<String>,
    /// Seconds allowed for one request (default 120).
    pub timeout_secs: Option<u64>,
}

impl std::fmt::Debug for RemoteSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key: a debug log of the configuration must not leak it.
        f.debug_struct("RemoteSettings")
            .field("url", &self.url)
            .field("api_key_env", &self.api_key_env)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("timeout_secs", &self.timeout_secs)
            .finish()
    }
}

/// `[server]`: `sanctions serve`'s address, bounds and plans.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// Address to listen on (`--bind` overrides it).
    pub bind: String,
    /// Largest request body accepted, in bytes.
    pub body_limit_bytes: usize,
    /// Seconds before a request is abandoned (answered 503).
    pub request_timeout_secs: u64,
    /// Most open connections; further ones are closed at once.
    pub max_connections: usize,
    /// Most open connections from one client address; further ones are closed at once.
    pub max_connections_per_address: usize,
    /// Seconds a connection may take to send a request head, and may stay idle between
    /// requests (keep-alive); past it the connection is closed.
    pub header_read_timeout_secs: u64,
    /// Failed authentications allowed from one client address per window; past it, 429.
    pub auth_failures_per_window: u32,
    /// The window of `auth_failures_per_window`, in seconds.
    pub auth_failure_window_secs: u64,
    /// Browser origins allowed to call the interface (CORS), e.g. `https://app.example.com`;
    /// empty (the default): no CORS, and `OPTIONS` is a 405.
    pub cors_origins: Vec<String>,
    /// Answers larger than this many bytes are compressed (brotli or gzip, as the client prefers).
    pub compress_above_bytes: u16,
    /// Most requests handled at once; further ones wait their turn.
    pub max_in_flight: usize,
    /// Seconds a graceful shutdown waits for requests in flight.
    pub shutdown_grace_secs: u64,
    /// Per-plan overrides: `[server.plans.free] requests_per_minute = 20`.
    pub plans: PlansConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: "127.0.0.1:8080".to_owned(),
            body_limit_bytes: 1024 * 1024,
            request_timeout_secs: 30,
            max_connections: 16_384,
            max_connections_per_address: 256,
            header_read_timeout_secs: 10,
            auth_failures_per_window: 20,
            auth_failure_window_secs: 60,
            cors_origins: Vec::new(),
            compress_above_bytes: 1024,
            max_in_flight: 512,
            shutdown_grace_secs: 30,
            plans: PlansConfig::default(),
        }
    }
}

/// `[server.plans.*]`: what each plan may do; unset fields keep the built-in defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlansConfig {
    pub free: PlanOverride,
    pub pro: PlanOverride,
    pub business: PlanOverride,
}

/// One plan's overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlanOverride {
    pub requests_per_minute: Option<u64>,
    /// A number, or `"unlimited"`.
    pub screenings_per_month: Option<Quota>,
    pub batch: Option<bool>,
    pub webhooks: Option<bool>,
}

/// Screenings per month: a number or `"unlimited"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quota {
    Limited(u64),
    Unlimited,
}

impl<'de> Deserialize<'de> for Quota {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(Quota::Limited(n)),
            Raw::Text(t) if t == "unlimited" => Ok(Quota::Unlimited),
            Raw::Text(t) => Err(serde::de::Error::custom(format!(
                "screenings_per_month: expected a number or \"unlimited\", found {t:?}"
            ))),
        }
    }
}

/// `[watchlist]`: how a running `serve` or UI monitors the watchlist.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WatchlistConfig {
    /// Hours between scheduled full re-screens (besides the one after every list update).
    pub rescreen_every_hours: u64,
    /// Seconds between checks for list updates imported by another process (a cron job).
    pub poll_secs: u64,
}

impl Default for WatchlistConfig {
    fn default() -> Self {
        WatchlistConfig {
            rescreen_every_hours: 24,
            poll_secs: 60,
        }
    }
}

/// `[webhooks]`: delivery of events to registered endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebhooksConfig {
    /// Waits before each retry of a failed delivery (`5s`, `5m`, `2h`, `1d`); after the last
    /// one the event is given up for that endpoint.
    pub retry_schedule: Vec<String>,
    /// Seconds before one delivery attempt is abandoned.
    pub timeout_secs: u64,
    /// In server mode, allow endpoints on loopback, private, link-local or metadata
    /// addresses (standalone use always allows them).
    pub allow_private_targets: bool,
    /// Largest event body sent, in bytes.
    pub max_payload_bytes: usize,
    /// How often the delivery worker looks for new events, in milliseconds.
    pub poll_interval_ms: u64,
    /// An endpoint that has not accepted an event for this many hours, and gives up on one,
    /// is disabled.
    pub disable_after_hours: u64,
}

impl Default for WebhooksConfig {
    fn default() -> Self {
        WebhooksConfig {
            retry_schedule: crate::webhooks::schedule::DEFAULT_SCHEDULE
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            timeout_secs: 10,
            allow_private_targets: false,
            max_payload_bytes: 256 * 1024,
            poll_interval_ms: 1000,
            disable_after_hours: 72,
        }
    }
}

/// `[briefs]`: risk briefs from list updates and the publishers' news feeds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BriefsConfig {
    /// RSS or Atom feeds read by `briefs refresh` and, while `serve` or the UI runs, every
    /// `refresh_secs` (default: the publishers' own news feeds, see [`default_feeds`]; an
    /// empty list `feeds = []` reads none, e.g. on a machine without internet).
    pub feeds: Vec<FeedConfig>,
    /// Seconds between two reads of a feed while `serve` or the UI runs.
    pub refresh_secs: u64,
    /// Seconds before a feed that failed is read again (doubling on each further failure,
    /// up to `refresh_secs`).
    pub retry_secs: u64,
    /// Seconds before a feed download is abandoned.
    pub timeout_secs: u64,
    /// Largest feed accepted, in bytes.
    pub max_feed_bytes: u64,
    /// Most items kept from one read of one feed.
    pub max_items: usize,
}

/// One feed: `{ name = "ofac", url = "https://..." }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedConfig {
    pub name: String,
    pub url: String,
}

impl Default for BriefsConfig {
    fn default() -> Self {
        BriefsConfig {
            feeds: default_feeds(),
            refresh_secs: 6 * 3600,
            retry_secs: 300,
            timeout_secs: 20,
            max_feed_bytes: 4 * 1024 * 1024,
            max_items: 200,
        }
    }
}

/// The publishers' own news feeds: OFAC's Recent Actions, the EU Financial Sanctions Files
/// notices, OFSI's announcements on GOV.UK and the UN's press releases (all of them: the
/// Security Council's sanctions committees announce their changes there).
/// Canada (SEMA), Australia (DFAT) and the World Bank publish no feed of their changes.
pub fn default_feeds() -> Vec<FeedConfig> {
    [
        ("ofac", "https://ofac.treasury.gov/system/files/126/ofac.xml"),
        ("eu_fsf", "https://webgate.ec.europa.eu/fsd/fsf/public/rss"),
        (
            "uk_ofsi",
            "https://www.gov.uk/government/organisations/office-of-financial-sanctions-implementation.atom",
        ),
        ("un_press", "https://press.un.org/en/rss.xml"),
    ]
    .into_iter()
    .map(|(name, url)| FeedConfig {
        name: name.to_owned(),
        url: url.to_owned(),
    })
    .collect()
}

/// `[import]`: the guards of `lists import` and `lists update`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImportConfig {
    /// The largest share of a list (percent) one import may remove without `--allow-shrink`.
    pub max_shrink_percent: f64,
    /// Removals of fewer entries than this are always allowed (small lists change by a few).
    pub min_shrink_entries: u64,
}

impl Default for ImportConfig {
    fn default() -> Self {
        ImportConfig {
            max_shrink_percent: 10.0,
            min_shrink_entries: 50,
        }
    }
}

impl ImportConfig {
    /// The most entries an import may remove from a list holding `before` entries: more than
    /// `max_shrink_percent` of it and at least `min_shrink_entries` is refused.
    pub fn max_removed(&self, before: u64) -> u64 {
        let share = (before as f64 * self.max_shrink_percent.clamp(0.0, 100.0) / 100.0).floor();
        (share as u64).max(self.min_shrink_entries.saturating_sub(1))
    }
}

/// `[screening]`: what the screening index holds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScreeningConfig {
    /// Screen the lists' weak ("low quality") aliases, e.g. OFAC's a.k.a.s written only in
    /// Remarks. They score a little lower and are labelled weak; `false` follows OFAC's
    /// guidance not to screen them.
    pub weak_aliases: bool,
}

impl Default for ScreeningConfig {
    fn default() -> Self {
        ScreeningConfig { weak_aliases: true }
    }
}

/// `[fetch]`: how `lists update` downloads the official files.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FetchConfig {
    /// Seconds before a download is abandoned.
    pub timeout_secs: u64,
    /// Largest file accepted, in bytes.
    pub max_bytes: u64,
    /// Further attempts after a failed download (network errors and 5xx only).
    pub retries: u32,
    /// A mirror serving `<mirror>/<list_code>/<file name>` for every list, instead of the
    /// publishers (env `SANCTIONS_MIRROR`).
    pub mirror: Option<String>,
    /// Per-list overrides: `[fetch.urls.un] "consolidated.xml" = "https://..."`.
    pub urls: BTreeMap<ListCode, BTreeMap<String, String>>,
    /// Extra request headers per list (the World Bank API wants an `apikey`).
    pub headers: BTreeMap<ListCode, BTreeMap<String, String>>,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            timeout_secs: 120,
            max_bytes: 128 * 1024 * 1024,
            retries: 2,
            mirror: None,
            urls: BTreeMap::new(),
            // The World Bank's API answers only requests carrying the key its own public
            // web page sends; override it in [fetch.headers.world_bank] if it changes.
            headers: BTreeMap::from([(
                ListCode::WorldBank,
                BTreeMap::from([(
                    "apikey".to_owned(),
                    "z9duUaFUiEUYSHs97CU38fcZO7ipOPvm".to_owned(),
                )]),
            )]),
        }
    }
}

impl Config {
    /// Loads `explicit` (which must exist), else the default file when present, else defaults.
    pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let path = match explicit {
            Some(path) => path.to_path_buf(),
            None => match default_config_file() {
                Some(path) if path.is_file() => path,
                _ => return Ok(Config::default()),
            },
        };
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Config::parse(&text).map_err(|message| ConfigError::Invalid {
            path: path.display().to_string(),
            message,
        })
    }

    /// Parses the text of a configuration file; a duration longer than a year is refused
    /// ([`Config::durations`]).
    pub fn parse(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| e.to_string())?;
        for (name, seconds) in config.durations() {
            if seconds > MAX_DURATION_SECS {
                return Err(format!(
                    "{name}: {seconds} is longer than a year ({MAX_DURATION_SECS} seconds)"
                ));
            }
        }
        Ok(config)
    }

    /// Every duration the file sets, in seconds, by the setting's name: a timer set from any
    /// of them must stay within what a clock can add (`Instant + Duration` panics past it).
    fn durations(&self) -> [(&'static str, u64); 14] {
        let (server, hours) = (&self.server, |h: u64| h.saturating_mul(3600));
        [
            ("[fetch] timeout_secs", self.fetch.timeout_secs),
            (
                "[watchlist] rescreen_every_hours",
                hours(self.watchlist.rescreen_every_hours),
            ),
            ("[watchlist] poll_secs", self.watchlist.poll_secs),
            ("[webhooks] timeout_secs", self.webhooks.timeout_secs),
            (
                "[webhooks] poll_interval_ms",
                self.webhooks.poll_interval_ms / 1000,
            ),
            (
                "[webhooks] disable_after_hours",
                hours(self.webhooks.disable_after_hours),
            ),
            ("[briefs] refresh_secs", self.briefs.refresh_secs),
            ("[briefs] retry_secs", self.briefs.retry_secs),
            ("[briefs] timeout_secs", self.briefs.timeout_secs),
            (
                "[remote] timeout_secs",
                self.remote.timeout_secs.unwrap_or(0),
            ),
            ("[server] request_timeout_secs", server.request_timeout_secs),
            (
                "[server] header_read_timeout_secs",
                server.header_read_timeout_secs,
            ),
            (
                "[server] auth_failure_window_secs",
                server.auth_failure_window_secs,
            ),
            ("[server] shutdown_grace_secs", server.shutdown_grace_secs),
        ]
    }
}

/// The longest duration a setting may hold: a year, in seconds.
const MAX_DURATION_SECS: u64 = 365 * 24 * 3600;

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "sanctions")
}

/// `<platform config dir>/config.toml`.
pub fn default_config_file() -> Option<PathBuf> {
    project_dirs().map(|d| d.config_dir().join("config.toml"))
}

/// The platform data directory (e.g. `~/.local/share/sanctions`).
pub fn default_data_dir() -> Result<PathBuf, ConfigError> {
    project_dirs()
        .map(|d| d.data_dir().to_path_buf())
        .ok_or(ConfigError::NoHome)
}

/// The SQLite database inside a data directory.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("sanctions.db")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_limit_is_a_share_but_never_under_the_minimum() {
        let import = ImportConfig::default();
        assert_eq!(import.max_removed(14_965), 1_496);
        assert_eq!(import.max_removed(100), 49);
        assert_eq!(import.max_removed(0), 49);
    }

    #[test]
    fn a_duration_longer_than_a_year_is_refused_naming_its_setting() {
        for (text, name) in [
            (
                "[server]\nheader_read_timeout_secs = 18446744073709551615",
                "[server] header_read_timeout_secs",
            ),
            (
                "[watchlist]\nrescreen_every_hours = 3000000000000000",
                "[watchlist] rescreen_every_hours",
            ),
            ("[briefs]\nrefresh_secs = 31536001", "[briefs] refresh_secs"),
        ] {
            let refused = Config::parse(text).unwrap_err();
            assert!(refused.starts_with(name), "{refused}");
            assert!(refused.contains("longer than a year"), "{refused}");
        }
        let year = Config::parse("[watchlist]\nrescreen_every_hours = 8760").unwrap();
        assert_eq!(year.watchlist.rescreen_every_hours, 8760);
        assert!(Config::parse("").is_ok());
    }

    #[test]
    fn parses_overrides_and_rejects_typos() {
        let config = Config::parse(
            r#"
            [fetch]
            timeout_secs = 5
            mirror = "http://127.0.0.1:9/lists"
            [fetch.urls.un]
            "consolidated.xml" = "http://127.0.0.1:9/un.xml"
            [fetch.headers.world_bank]
            apikey = "k"
            "#,
        )
        .unwrap();
        assert_eq!(config.fetch.timeout_secs, 5);
        assert_eq!(config.fetch.retries, 2);
        assert_eq!(
            config.fetch.urls[&ListCode::Un]["consolidated.xml"],
            "http://127.0.0.1:9/un.xml"
        );
        assert!(Config::parse("[fetch]\ntimeout = 5").is_err());
        assert!(config.screening.weak_aliases);
        assert_eq!(config.import, ImportConfig::default());
        let config =
            Config::parse("[import]\nmax_shrink_percent = 5\n[screening]\nweak_aliases = false")
                .unwrap();
        assert!(!config.screening.weak_aliases);
        assert!(!config.review.four_eyes);
        let review = Config::parse("[review]\nfour_eyes = true").unwrap();
        assert!(review.review.four_eyes);
        assert!(Config::parse("[review]\nfour_eye = true").is_err());
        assert_eq!(config.import.max_shrink_percent, 5.0);
        assert_eq!(config.import.min_shrink_entries, 50);
        assert!(Config::parse("[fetch.urls.nope]\na = \"b\"").is_err());
        let config = Config::parse(
            "[server]\nbind = \"0.0.0.0:9\"\n[server.plans.free]\nscreenings_per_month = \"unlimited\"\n[server.plans.pro]\nrequests_per_minute = 7",
        )
        .unwrap();
        assert_eq!(config.server.bind, "0.0.0.0:9");
        assert_eq!(config.server.body_limit_bytes, 1024 * 1024);
        assert_eq!(
            config.server.plans.free.screenings_per_month,
            Some(Quota::Unlimited)
        );
        assert_eq!(config.server.plans.pro.requests_per_minute, Some(7));
        assert!(Config::parse("[server.plans.free]\nscreenings_per_month = \"lots\"").is_err());
    }
}
