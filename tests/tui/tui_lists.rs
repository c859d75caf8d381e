//! The Lists tab updating and importing from inside the UI (through the local service, as
//! `sanctions lists import` does), its `/` filter, and path completion (Tab) in its prompt, driven
//! by real key events against the local service over a temporary store.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sanctions::tui::App;
use sanctions::tui::action::Action;
use sanctions::tui::lists_job::ListsTool;
use sanctions::tui::state::{Message, Tab};
use sanctions_model::ListCode;
use sanctions_service::LocalService;

fn key(app: &mut App, code: KeyCode) {
    app.handle(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

struct Setup {
    app: App,
    _data: tempfile::TempDir,
    layout: tempfile::TempDir,
}

/// An empty data folder, the UI on it with the program as its lists tool, and a folder
/// laid out for `lists import` holding the UN and World Bank fixtures.
fn setup() -> Setup {
    let data = tempfile::tempdir().unwrap();
    let config = data.path().join("offline.toml");
    std::fs::write(&config, "[briefs]\nfeeds = []\n").unwrap();
    let layout = tempfile::tempdir().unwrap();
    for (code, variant) in [("un", "good"), ("world_bank", "good")] {
        std::os::unix::fs::symlink(
            common::fixtures::fixture(code, variant),
            layout.path().join(code),
        )
        .unwrap();
    }
    let service = LocalService::open(&data.path().join("sanctions.db"), "analyst1").unwrap();
    let warmup = sanctions::tui::local_warmup(&service);
    let mut app = App::start(
        Arc::new(service.clone()),
        "LOCAL",
        Some(warmup),
        jiff::Timestamp::now(),
    );
    let config: sanctions_service::config::Config =
        toml::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    app.set_lists_tool(ListsTool::new(
        service.clone(),
        data.path().to_path_buf(),
        &config,
    ));
    Setup {
        app,
        _data: data,
        layout,
    }
}

fn info(app: &App) -> String {
    match &app.state.status.message {
        Some(Message::Info(m)) => m.clone(),
        other => panic!("no notice: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_from_the_lists_tab_with_completion_then_filter() {
    let Setup {
        mut app,
        layout,
        _data: _keep,
    } = setup();
    app.settle(Duration::from_secs(30)).await;
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('4'));
    app.settle(Duration::from_secs(30)).await;
    assert_eq!(app.state.tab, Tab::Lists);
    assert!(app.state.lists.lists.iter().all(|l| l.count == 0));
    key(&mut app, KeyCode::Char('i'));
    assert!(app.state.prompt.as_ref().unwrap().is_path());
    // Tab completes the folder from its unique start, with its slash.
    let base = layout.path().display().to_string();
    let (parent, name) = base.rsplit_once('/').unwrap();
    typed(&mut app, &format!("{parent}/{}", &name[..name.len() - 2]));
    key(&mut app, KeyCode::Tab);
    app.settle(Duration::from_secs(10)).await;
    let prompt = app.state.prompt.as_ref().unwrap();
    assert_eq!(prompt.input.value(), format!("{base}/"));
    // Two entries start with nothing: both are named, the value stays.
    key(&mut app, KeyCode::Tab);
    app.settle(Duration::from_secs(10)).await;
    let prompt = app.state.prompt.as_ref().unwrap();
    assert_eq!(prompt.input.value(), format!("{base}/"));
    assert_eq!(prompt.hint.as_deref(), Some("un/  world_bank/"));
    key(&mut app, KeyCode::Enter);
    assert!(app.state.prompt.is_none());
    assert!(app.state.lists.job.is_some());
    // The UI stays usable while it runs: another tab and back.
    key(&mut app, KeyCode::Char('1'));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('4'));
    app.settle(Duration::from_secs(120)).await;
    assert!(app.state.lists.job.is_none());
    let shown = info(&app);
    assert!(
        shown.starts_with("lists import finished: 2 list(s) imported · 0 unchanged · 6 skipped"),
        "{shown}"
    );
    let count = |app: &App, code| {
        app.state
            .lists
            .lists
            .iter()
            .find(|l| l.list_code == code)
            .map(|l| l.count)
    };
    assert_eq!(count(&app, ListCode::Un), Some(3));
    assert!(count(&app, ListCode::WorldBank).unwrap() > 0);
    // `/` filters the lists by words.
    key(&mut app, KeyCode::Char('/'));
    typed(&mut app, "world");
    key(&mut app, KeyCode::Enter);
    app.settle(Duration::from_secs(30)).await;
    let codes: Vec<ListCode> = app.state.lists.lists.iter().map(|l| l.list_code).collect();
    assert_eq!(codes, [ListCode::WorldBank]);
    key(&mut app, KeyCode::Char('/'));
    for _ in 0.."world".len() {
        key(&mut app, KeyCode::Backspace);
    }
    key(&mut app, KeyCode::Enter);
    app.settle(Duration::from_secs(30)).await;
    assert_eq!(app.state.lists.lists.len(), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_import_says_why_and_leaves_the_ui_usable() {
    let Setup {
        mut app,
        _data: _keep,
        ..
    } = setup();
    app.settle(Duration::from_secs(30)).await;
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('4'));
    key(&mut app, KeyCode::Char('i'));
    typed(&mut app, "/nonexistent/lists");
    key(&mut app, KeyCode::Enter);
    app.settle(Duration::from_secs(60)).await;
    match &app.state.status.message {
        Some(Message::Error(e)) => {
            assert!(e.starts_with("lists import failed:"), "{e}");
            assert!(e.contains("/nonexistent/lists"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(app.state.lists.job.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_tool_update_says_where_to_run_it() {
    let data = tempfile::tempdir().unwrap();
    let service = LocalService::open(&data.path().join("sanctions.db"), "analyst1").unwrap();
    let mut app = App::start(
        Arc::new(service),
        "REMOTE example",
        None,
        jiff::Timestamp::now(),
    );
    app.settle(Duration::from_secs(30)).await;
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('4'));
    key(&mut app, KeyCode::Char('u'));
    match &app.state.status.message {
        Some(Message::Error(e)) => assert!(e.contains("run `sanctions lists update` there"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(
        !app.state
            .requests
            .pending(sanctions::tui::action::Slot::ListsJob)
    );
}
