//! The terminal UI on the remote client: the status bar names the server, and a server that
//! cannot be reached or refuses the key gives a message saying what to do, while the UI stays
//! usable. Servers are real sockets on 127.0.0.1 (a closed port; a loopback server that
//! answers 401 to everything, standing in for a `sanctions serve` with a wrong key).
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sanctions::remote::{RemoteConfig, RemoteService};
use sanctions::tui::App;
use sanctions::tui::action::Action;
use sanctions::tui::state::Message;
use sanctions_service::Service;

fn start(url: &str) -> App {
    let service = RemoteService::new(RemoteConfig::new(url, Some("wrong-key".into()))).unwrap();
    let mode = sanctions::tui::mode_label(&service.mode());
    App::start(Arc::new(service), &mode, None, jiff::Timestamp::now())
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| sanctions::tui::view::render(frame, &app.state))
        .unwrap();
    terminal.backend().to_string()
}

fn snap(app: &App, name: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[port]");
    settings.add_filter(r"os error \d+", "os error [n]");
    settings.bind(|| {
        insta::assert_snapshot!(format!("{name}_80x24"), screen(app, 80, 24));
        insta::assert_snapshot!(format!("{name}_120x40"), screen(app, 120, 40));
    });
}

fn message(app: &App) -> String {
    match &app.state.status.message {
        Some(Message::Error(e)) => e.clone(),
        other => panic!("no error shown: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_named_with_what_to_do_and_typing_goes_on() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let mut app = start(&url);
    app.settle(Duration::from_secs(30)).await;
    assert!(app.state.status.mode.starts_with("REMOTE 127.0.0.1:"));
    let shown = message(&app);
    assert!(shown.contains("cannot reach"), "{shown}");
    assert!(shown.starts_with("server unreachable"), "{shown}");
    // Nothing typed is lost: the name field still takes keys.
    for c in "Putin".chars() {
        app.handle(Action::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )));
    }
    assert_eq!(app.state.screen.name.value(), "Putin");
    snap(&app, "remote_unreachable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_says_to_check_it() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let refuse = || async {
        (
            axum::http::StatusCode::UNAUTHORIZED,
            [("content-type", "application/json")],
            r#"{"success":false,"message":"invalid API key"}"#,
        )
    };
    let app_router = axum::Router::new().fallback(refuse);
    tokio::spawn(async move { axum::serve(listener, app_router).await });
    let mut app = start(&format!("http://{addr}"));
    app.settle(Duration::from_secs(30)).await;
    let shown = message(&app);
    assert!(shown.starts_with("API key refused"), "{shown}");
    assert!(shown.contains("invalid API key"), "{shown}");
    snap(&app, "remote_unauthorized");
}
