//! The downloader against a real HTTP server on 127.0.0.1.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::server::{self, Files};
use sanctions_model::ListCode;
use sanctions_service::config::FetchConfig;
use sanctions_service::fetch::{FetchError, Fetched, Fetcher, Validators};

fn config(addr: std::net::SocketAddr) -> FetchConfig {
    FetchConfig {
        mirror: Some(format!("http://{addr}/")),
        timeout_secs: 10,
        retries: 2,
        ..FetchConfig::default()
    }
}

#[tokio::test]
async fn downloads_then_asks_conditionally() {
    let files = Files::default();
    files.put("un/consolidated.xml", b"<CONSOLIDATED_LIST/>".to_vec());
    let addr = server::start(files.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(&config(addr)).unwrap();

    let Fetched::Downloaded { validators } = fetcher
        .fetch_list(ListCode::Un, dir.path(), true)
        .await
        .unwrap()
    else {
        panic!("expected a download");
    };
    assert_eq!(
        std::fs::read(dir.path().join("consolidated.xml")).unwrap(),
        b"<CONSOLIDATED_LIST/>"
    );
    // Not saved yet (the import has not happened): the next request is unconditional.
    assert_eq!(Validators::load(dir.path()), Validators::default());
    validators.save(dir.path()).unwrap();

    let again = fetcher
        .fetch_list(ListCode::Un, dir.path(), true)
        .await
        .unwrap();
    assert!(matches!(again, Fetched::NotModified), "{again:?}");
    // Unconditional when asked (an empty store) even with validators saved.
    let forced = fetcher
        .fetch_list(ListCode::Un, dir.path(), false)
        .await
        .unwrap();
    assert!(matches!(forced, Fetched::Downloaded { .. }));
    assert_eq!(files.statuses("un/consolidated.xml"), [200, 304, 200]);

    files.put(
        "un/consolidated.xml",
        b"<CONSOLIDATED_LIST version='2'/>".to_vec(),
    );
    let changed = fetcher
        .fetch_list(ListCode::Un, dir.path(), true)
        .await
        .unwrap();
    assert!(matches!(changed, Fetched::Downloaded { .. }));
    assert_eq!(
        std::fs::read(dir.path().join("consolidated.xml")).unwrap(),
        b"<CONSOLIDATED_LIST version='2'/>"
    );
}

#[tokio::test]
async fn retries_server_errors_then_gives_up() {
    let files = Files::default();
    files.put("un/consolidated.xml", b"x".to_vec());
    files.fail_first("un/consolidated.xml", 2);
    let addr = server::start(files.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(&config(addr)).unwrap();
    fetcher
        .fetch_list(ListCode::Un, dir.path(), true)
        .await
        .unwrap();
    assert_eq!(files.statuses("un/consolidated.xml"), [503, 503, 200]);

    files.fail_first("un/consolidated.xml", 5);
    let err = fetcher
        .fetch_list(ListCode::Un, dir.path(), false)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("503") && err.to_string().contains("3 attempts"),
        "{err}"
    );
}

#[tokio::test]
async fn refuses_files_over_the_size_cap_and_leaves_nothing_behind() {
    let files = Files::default();
    files.put("un/consolidated.xml", vec![b'a'; 5000]);
    let addr = server::start(files).await;
    let dir = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(&FetchConfig {
        max_bytes: 1000,
        ..config(addr)
    })
    .unwrap();
    let err = fetcher
        .fetch_list(ListCode::Un, dir.path(), true)
        .await
        .unwrap_err();
    assert!(
        matches!(err, FetchError::TooLarge { limit: 1000, .. }),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn a_missing_optional_file_is_fine_a_missing_required_one_is_not() {
    let files = Files::default();
    for name in ["sdn.csv", "add.csv", "alt.csv"] {
        files.put(&format!("ofac_sdn/{name}"), name.as_bytes().to_vec());
    }
    let addr = server::start(files.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(&config(addr)).unwrap();
    let fetched = fetcher
        .fetch_list(ListCode::OfacSdn, dir.path(), true)
        .await
        .unwrap();
    assert!(matches!(fetched, Fetched::Downloaded { .. }));
    assert!(dir.path().join("alt.csv").is_file());
    assert!(!dir.path().join("sdn_comments.csv").exists());

    let err = fetcher
        .fetch_list(ListCode::Eu, dir.path(), true)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("404"), "{err}");
}

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let dir = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(&FetchConfig {
        retries: 0,
        ..config(addr)
    })
    .unwrap();
    let err = fetcher
        .fetch_list(ListCode::Un, dir.path(), true)
        .await
        .unwrap_err();
    assert!(err.to_string().contains(&addr.to_string()), "{err}");
}
