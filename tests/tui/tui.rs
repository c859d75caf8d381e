//! The terminal UI drawn on ratatui's TestBackend at 80x24 and 120x40, driven by real key
//! events against the local service over a temporary store with the real lists imported.
//! Snapshots (insta) are committed; dates and ids are redacted.
#![allow(clippy::unwrap_used)]

use crate::common;
use common::shared_data as shared;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sanctions::tui::App;
use sanctions::tui::action::Action;
use sanctions_service::LocalService;
use sanctions_store::Store;

/// A database with the eight real lists, imported once per run and copied for each test.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("template.db");
        let lists = shared().join("lists");
        let mut store = Store::open(&path).unwrap();
        let outcomes = sanctions_service::ingest::import_dir(&mut store, &lists, &[]).unwrap();
        assert!(outcomes.iter().all(|o| !o.failed()), "{outcomes:?}");
        drop(store);
        (dir, path)
    });
    path
}

struct Ui {
    app: App,
    _dir: tempfile::TempDir,
}

async fn open(with_lists: bool) -> Ui {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sanctions.db");
    if with_lists {
        let template = template().to_path_buf();
        let copy = db.clone();
        tokio::task::spawn_blocking(move || std::fs::copy(template, copy).unwrap())
            .await
            .unwrap();
    }
    let service = LocalService::open(&db, "analyst1").unwrap();
    let warmup = sanctions::tui::local_warmup(&service);
    let mut app = App::start(
        Arc::new(service.clone()),
        "LOCAL",
        Some(warmup),
        jiff::Timestamp::now(),
    );
    // As `sanctions` starts it locally: the Lists tab can update and import.
    app.set_lists_tool(sanctions::tui::lists_job::ListsTool::new(
        service,
        dir.path().to_path_buf(),
        &Default::default(),
    ));
    Ui { app, _dir: dir }
}

/// Today's and yesterday's dates (`2026-11-26`), in UTC and in local time.
fn test_days() -> Vec<String> {
    let now = jiff::Zoned::now();
    let utc = now.with_time_zone(jiff::tz::TimeZone::UTC);
    let mut days: Vec<String> = [now.date(), utc.date()]
        .into_iter()
        .flat_map(|day| [Some(day), day.yesterday().ok()])
        .flatten()
        .map(|day| day.to_string())
        .collect();
    days.sort();
    days.dedup();
    days
}

impl Ui {
    async fn settle(&mut self) {
        self.app.settle(Duration::from_secs(60)).await;
    }

    /// Applies results that arrived without work running (a preview after its pause).
    async fn drain(&mut self) {
        while let Ok(Some(action)) =
            tokio::time::timeout(Duration::from_millis(50), self.app.next()).await
        {
            self.app.handle(action);
            self.settle().await;
        }
    }

    async fn key(&mut self, code: KeyCode) {
        self.key_with(code, KeyModifiers::NONE).await;
    }

    async fn key_with(&mut self, code: KeyCode, mods: KeyModifiers) {
        self.app.handle(Action::Key(KeyEvent::new(code, mods)));
        self.settle().await;
    }

    async fn typed(&mut self, text: &str) {
        for c in text.chars() {
            self.app.handle(Action::Key(KeyEvent::new(
                KeyCode::Char(c),
                KeyModifiers::NONE,
            )));
        }
        self.settle().await;
    }

    fn screen(&self, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal
            .draw(|frame| sanctions::tui::view::render(frame, &self.app.state))
            .unwrap();
        terminal.backend().to_string()
    }

    /// Snapshots at 80x24 and 120x40.
    fn snap(&self, name: &str) {
        let mut settings = insta::Settings::clone_current();
        settings.add_filter(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d", "[date time     ]");
        settings.add_filter(r"data \d{4}-\d\d-\d\d", "data [date    ]");
        // The Alerts tab's dates at 80 columns (month-day hour:minute).
        settings.add_filter(r"\b\d\d-\d\d \d\d:\d\d\b", "[mm-dd time]");
        settings.add_filter(
            r"\b(scr|alr|alt|fav|wh|brf|evt)_[0-9A-Za-z]{26}\b",
            "${1}_[id]",
        );
        // An id cut by an overlay (the help over the results' bottom line).
        settings.add_filter(
            r"\b(scr|alr|alt|fav|wh|brf|evt)_[0-9A-Za-z]{8,25}\b",
            "${1}_[id]",
        );
        settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[port]");
        // Latencies vary in digits, which moves what a cut line keeps: redact up to the end.
        settings.add_filter(
            r"no answer in \d+ ms[^\x22]*",
            "no answer in [n] ms · [error]",
        );
        settings.add_filter(
            r"\b\d+ ms +request failed[^│]*",
            "[n] ms request failed [error]",
        );
        settings.add_filter(r"whsec_[0-9A-Za-z+/=]+…?", "whsec_[secret]");
        // Screenings, briefs and deliveries are dated by the test run (today, or yesterday for
        // a run over midnight), and a list's age by the day it runs: no snapshot changes at
        // midnight, and the lists' own dates (publication, birth) stay checked.
        for day in test_days() {
            settings.add_filter(&day, "[date    ]");
        }
        settings.add_filter(r"\bpublished \d+ d\b", "published [n] d");
        settings.bind(|| {
            insta::assert_snapshot!(format!("{name}_80x24"), self.screen(80, 24));
            insta::assert_snapshot!(format!("{name}_120x40"), self.screen(120, 40));
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screen_tab_from_first_frame_to_a_recorded_decision() {
    let mut ui = open(true).await;
    ui.snap("screen_first_frame"); // before anything loaded: index building
    ui.settle().await;
    ui.snap("screen_ready");
    ui.typed("Vladimir Putin").await;
    ui.key(KeyCode::Enter).await;
    ui.snap("screen_results");
    let shown = ui.app.state.screen.shown.as_ref().unwrap();
    assert!(
        shown
            .results
            .iter()
            .any(|m| m.name.to_uppercase().contains("PUTIN")),
        "{:?}",
        shown.results
    );
    // After Enter the name field keeps the keyboard; ↓ enters the results (REVIEW).
    assert!(ui.app.state.in_text());
    ui.key(KeyCode::Down).await;
    ui.key(KeyCode::Enter).await;
    ui.snap("screen_detail");
    ui.key(KeyCode::Char('f')).await;
    ui.key(KeyCode::Enter).await; // empty note: refused
    ui.snap("screen_decision_note_required");
    ui.typed("different person: date of birth differs").await;
    ui.key(KeyCode::Enter).await;
    ui.snap("screen_decision_confirm"); // names the screening and the entry
    ui.key(KeyCode::Char('y')).await;
    ui.snap("screen_decision_recorded"); // the detail shows the decision, who and when
    ui.key(KeyCode::Esc).await;
    ui.key_with(KeyCode::Char('r'), KeyModifiers::CONTROL).await;
    ui.snap("screen_history");
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::F(1)).await;
    ui.snap("screen_help");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_tabs_with_the_real_lists() {
    let mut ui = open(true).await;
    ui.settle().await;
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('4')).await;
    ui.snap("lists");
    ui.key(KeyCode::Enter).await;
    ui.snap("lists_update_history");
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('5')).await;
    ui.snap("watchlist_empty");
    ui.key(KeyCode::Char('a')).await;
    ui.typed("Kim Jong Un").await;
    ui.snap("watchlist_add_prompt");
    ui.key(KeyCode::Enter).await;
    ui.key(KeyCode::Enter).await; // no date of birth
    ui.key(KeyCode::Enter).await; // no country
    ui.typed("board member of a client").await;
    ui.snap("watchlist_add_note_prompt"); // the optional note
    ui.key(KeyCode::Enter).await;
    ui.snap("watchlist_one_name");
    assert_eq!(
        ui.app.state.watchlist.items[0].note.as_deref(),
        Some("board member of a client")
    );
    assert_eq!(ui.app.state.watchlist.items.len(), 1);
    ui.key(KeyCode::Char('d')).await;
    ui.snap("watchlist_remove_confirm");
    ui.key(KeyCode::Char('y')).await;
    assert!(ui.app.state.watchlist.items.is_empty());
    ui.key(KeyCode::Char('6')).await;
    ui.snap("alerts_open");
    assert!(
        !ui.app.state.alerts.items.is_empty(),
        "adding a matching name raises an alert"
    );
    ui.key(KeyCode::Char('2')).await;
    ui.snap("batch_empty");
    ui.key(KeyCode::Char('l')).await;
    ui.typed("/nonexistent/names.csv").await;
    ui.key(KeyCode::Enter).await;
    ui.snap("batch_error");
    // Import a file of names (a repeat is skipped), then remove them again.
    ui.key(KeyCode::Char('5')).await;
    let names = ui._dir.path().join("watch.txt");
    std::fs::write(&names, "Kim Jong Un\nJohn Q Nobody\nKim Jong Un\n").unwrap();
    ui.key(KeyCode::Char('i')).await;
    ui.typed(names.to_str().unwrap()).await;
    ui.key(KeyCode::Enter).await;
    assert_eq!(
        ui.app.state.watchlist.items.len(),
        2,
        "{:?}",
        ui.app.state.status.message
    );
    for _ in 0..2 {
        ui.key(KeyCode::Char('d')).await;
        ui.key(KeyCode::Char('y')).await;
    }
    assert!(ui.app.state.watchlist.items.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_file_is_screened_with_progress_and_results() {
    let mut ui = open(true).await;
    ui.settle().await;
    let file = ui._dir.path().join("names.csv");
    std::fs::write(&file, "name\nVladimir Putin\nJohn Q Nobody\nKim Jong Un\n").unwrap();
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('2')).await;
    ui.key(KeyCode::Char('l')).await;
    ui.typed(file.to_str().unwrap()).await;
    ui.key(KeyCode::Enter).await;
    assert_eq!(ui.app.state.batch.results.len(), 3);
    ui.key(KeyCode::Char('h')).await;
    ui.key(KeyCode::Char('s')).await;
    ui.snap("batch_hits_by_score");
    // Export the rows shown (hits only) to CSV and JSON; an existing file is never replaced.
    let csv = ui._dir.path().join("hits.csv");
    ui.key(KeyCode::Char('x')).await;
    ui.typed(csv.to_str().unwrap()).await;
    ui.key(KeyCode::Enter).await;
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(
        written.starts_with("name,matches,best_score,screening_id\n"),
        "{written}"
    );
    assert!(written.contains("Vladimir Putin,"), "{written}");
    assert!(!written.contains("John Q Nobody"), "hits only: {written}");
    let json = ui._dir.path().join("hits.json");
    ui.key(KeyCode::Char('x')).await;
    ui.typed(json.to_str().unwrap()).await;
    ui.key(KeyCode::Enter).await;
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(rows.as_array().is_some_and(|r| !r.is_empty()));
    ui.key(KeyCode::Char('x')).await;
    ui.typed(csv.to_str().unwrap()).await;
    ui.key(KeyCode::Enter).await;
    assert!(sanctions::tui::update::has_error(&ui.app.state));
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), written);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_store_says_how_to_get_data() {
    let mut ui = open(false).await;
    ui.settle().await;
    ui.snap("screen_no_data");
    ui.typed("Vladimir Putin").await;
    ui.key(KeyCode::Enter).await;
    ui.snap("screen_error_no_data");
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('4')).await;
    ui.snap("lists_no_data");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_terminal_gets_the_too_small_screen() {
    let ui = open(false).await;
    insta::assert_snapshot!("too_small_40x10", ui.screen(40, 10));
}

#[test]
fn the_docs_key_table_is_the_keymap() {
    key_table_is_the_keymap("docs/tui.md");
}

fn key_table_is_the_keymap(file: &str) {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let start = "<!-- keys:start (generated from src/tui/keymap.rs; a test compares) -->\n";
    let end = "<!-- keys:end -->";
    let from = readme
        .find(start)
        .expect("docs/terminal-ui.md has the key-table markers")
        + start.len();
    let to = readme[from..].find(end).unwrap() + from;
    let table = sanctions::tui::keymap::markdown_table();
    assert_eq!(
        readme[from..to],
        table,
        "{file}'s key table differs from the keymap; replace it with:\n{table}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_as_you_type_then_enter_stores() {
    let mut ui = open(true).await;
    ui.settle().await;
    ui.typed("Vladimir Putin").await;
    // The preview starts after a pause in typing.
    tokio::time::sleep(sanctions::tui::runner::DEBOUNCE * 2).await;
    ui.drain().await;
    ui.snap("screen_preview");
    let shown = ui.app.state.screen.shown.as_ref().unwrap();
    assert!(shown.is_preview(), "nothing stored while typing");
    assert!(!shown.results.is_empty());
    ui.key(KeyCode::Tab).await;
    ui.typed("1952").await;
    ui.key(KeyCode::Tab).await;
    ui.typed("RU").await;
    ui.key(KeyCode::Enter).await;
    ui.snap("screen_stored_with_dob_and_country");
    let shown = ui.app.state.screen.shown.as_ref().unwrap();
    assert!(!shown.is_preview());
    ui.key(KeyCode::F(1)).await;
    for _ in 0..30 {
        ui.key(KeyCode::Down).await;
    }
    ui.snap("screen_help_scrolled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn briefs_list_detail_and_filter() {
    let mut ui = open(true).await;
    ui.settle().await;
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('3')).await;
    ui.snap("briefs");
    assert!(
        !ui.app.state.briefs.items.is_empty(),
        "each imported list has a brief"
    );
    ui.key(KeyCode::Enter).await;
    ui.snap("briefs_detail");
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('/')).await;
    ui.typed("no such words anywhere").await;
    ui.snap("briefs_filter_prompt");
    ui.key(KeyCode::Enter).await;
    ui.snap("briefs_filtered_empty");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_create_test_log_disable_and_delete() {
    let mut ui = open(false).await;
    ui.settle().await;
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('7')).await;
    ui.snap("webhooks");
    // A closed port on loopback: the test is refused, and says so.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", closed.local_addr().unwrap());
    drop(closed);
    ui.key(KeyCode::Char('a')).await;
    ui.typed(&url).await;
    ui.key(KeyCode::Enter).await;
    ui.snap("webhooks_events_prompt");
    ui.key(KeyCode::Enter).await;
    assert_eq!(
        ui.app.state.webhooks.items.len(),
        1,
        "{:?}",
        ui.app.state.status.message
    );
    ui.key(KeyCode::Char('t')).await;
    let (_, test) = ui.app.state.webhooks.test.clone().unwrap();
    assert!(!test.delivered);
    ui.snap("webhooks_tested");
    ui.key(KeyCode::Enter).await;
    ui.snap("webhooks_delivery_log");
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char(' ')).await;
    assert!(!ui.app.state.webhooks.items[0].active);
    ui.key(KeyCode::Char('d')).await;
    ui.snap("webhooks_delete_confirm");
    ui.key(KeyCode::Char('y')).await;
    assert!(ui.app.state.webhooks.items.is_empty());
}

/// Issue 21, trap 9: history and alerts stopped at 200 rows, alerts were handled one at a
/// time, and nothing filtered the history or the results. 210 names pasted on Batch store
/// 210 screenings with a match, each raising an alert.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alerts_and_history_page_on_filter_and_several_alerts_take_one_note() {
    let mut ui = open(true).await;
    ui.settle().await;
    ui.key(KeyCode::Esc).await;
    ui.key(KeyCode::Char('2')).await;
    let names: Vec<String> = (0..210)
        .map(|i| ["Vladimir Putin", "Kim Jong Un", "Hezbollah"][i % 3].to_owned())
        .collect();
    ui.app.handle(Action::Paste(names.join("\r")));
    ui.settle().await;
    assert_eq!(ui.app.state.batch.results.len(), 210);
    ui.key(KeyCode::Char('6')).await;
    assert_eq!(ui.app.state.alerts.items.len(), 200, "the first page");
    ui.key(KeyCode::Char('G')).await;
    ui.snap("alerts_first_page"); // 200+, and how to load more
    ui.key(KeyCode::Down).await;
    assert_eq!(
        ui.app.state.alerts.items.len(),
        210,
        "the next page appended"
    );
    ui.key(KeyCode::Char('g')).await;
    for _ in 0..3 {
        ui.key(KeyCode::Char(' ')).await;
    }
    ui.snap("alerts_three_selected");
    ui.key(KeyCode::Char('a')).await;
    ui.typed("same customer, one review").await;
    ui.snap("alerts_one_note_for_three");
    ui.key(KeyCode::Enter).await;
    ui.snap("alerts_three_acknowledged");
    assert_eq!(
        ui.app.state.alerts.items.len(),
        200,
        "207 open, a page shown"
    );
    ui.key(KeyCode::Char('s')).await; // acknowledged
    assert_eq!(ui.app.state.alerts.items.len(), 3);
    assert!(
        ui.app
            .state
            .alerts
            .items
            .iter()
            .all(|a| a.status == sanctions_api::alerts::AlertStatus::Acknowledged)
    );
    ui.key(KeyCode::Char('/')).await;
    ui.typed("hezbollah").await;
    ui.key(KeyCode::Enter).await;
    ui.snap("alerts_filtered");
    // The history: a page of 200, the next on ↓, and / filters it.
    ui.key(KeyCode::Char('1')).await;
    ui.key(KeyCode::Esc).await;
    ui.key_with(KeyCode::Char('r'), KeyModifiers::CONTROL).await;
    assert_eq!(ui.app.state.screen.history.len(), 200);
    ui.key(KeyCode::Char('G')).await;
    ui.key(KeyCode::Down).await;
    assert_eq!(ui.app.state.screen.history.len(), 210);
    ui.key(KeyCode::Char('/')).await;
    ui.typed("kim").await;
    ui.key(KeyCode::Enter).await;
    assert_eq!(ui.app.state.screen.history_visible().len(), 70);
    ui.snap("screen_history_filtered");
    // Reopen a row, review its results, and / filters them.
    ui.key(KeyCode::Enter).await;
    ui.key(KeyCode::Down).await;
    ui.key(KeyCode::Char('/')).await;
    ui.typed("un").await;
    ui.key(KeyCode::Enter).await;
    ui.snap("screen_results_filtered");
    let visible = ui.app.state.screen.visible();
    assert!(!visible.is_empty());
    assert!(visible.iter().all(|m| {
        format!("{} {} {}", m.name, m.matched_name, m.list_code.code())
            .to_lowercase()
            .contains("un")
    }));
}
