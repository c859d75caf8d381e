//! Risk briefs end to end: the real binary on a real SQLite file, the real OFAC editions,
//! and Atom/RSS feeds served on 127.0.0.1.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use axum::Router;
use axum::http::StatusCode;
use common::{json, sanctions, shared_data, stdout};
use sanctions_model::{Entity, ListCode};
use sanctions_sources as sources;
use serde_json::Value;

fn by_id(dir: &Path) -> BTreeMap<String, Entity> {
    sources::parse_dir(ListCode::OfacSdn, dir)
        .unwrap()
        .entities
        .into_iter()
        .map(|e| (e.entity_id(), e))
        .collect()
}

#[test]
fn an_ofac_update_is_briefed_with_its_real_added_and_removed_entries() {
    let shared = shared_data();
    let old_dir = shared.join("editions/ofac_sdn/consistent_2023-12-28");
    let new_dir = shared.join("lists/ofac_sdn");
    let (old, new) = (by_id(&old_dir), by_id(&new_dir));
    let added: Vec<&Entity> = new
        .iter()
        .filter(|(k, _)| !old.contains_key(*k))
        .map(|(_, e)| e)
        .collect();
    let removed: Vec<&Entity> = old
        .iter()
        .filter(|(k, _)| !new.contains_key(*k))
        .map(|(_, e)| e)
        .collect();
    assert!(!added.is_empty() && !removed.is_empty());

    let data = tempfile::tempdir().unwrap();
    let editions = tempfile::tempdir().unwrap();
    let layout = |name: &str, from: &Path| {
        let dir = editions.path().join(name).join("ofac_sdn");
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["sdn.csv", "add.csv", "alt.csv"] {
            std::fs::copy(from.join(f), dir.join(f)).unwrap();
        }
        editions.path().join(name).display().to_string()
    };
    for (name, dir) in [("older", &old_dir), ("current", &new_dir)] {
        let out = sanctions(
            data.path(),
            &["lists", "import", &layout(name, dir), "--allow-shrink"],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let page = json(&sanctions(
        data.path(),
        &["briefs", "--list", "ofac_sdn", "--json"],
    ));
    let items = page["items"].as_array().unwrap();
    // The first import (everything added) and the update: latest first.
    assert_eq!(items.len(), 2, "{page:#}");
    let brief = &items[0];
    let title = brief["title"].as_str().unwrap();
    assert!(
        title.starts_with(&format!(
            "OFAC SDN: {} additions, {} removals",
            added.len(),
            removed.len()
        )),
        "{title}"
    );
    assert_eq!(brief["source"], "list_update");
    assert_eq!(brief["lists"], serde_json::json!(["ofac_sdn"]));
    let shown = json(&sanctions(
        data.path(),
        &["briefs", "show", brief["id"].as_str().unwrap(), "--json"],
    ));
    let body = shown["body"].as_str().unwrap();
    let ids: Vec<&str> = shown["entity_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // The first added and removed entries (in id order) are named in the body with their ids.
    for e in [added[0], removed[0]] {
        assert!(
            body.contains(&e.primary_name),
            "{} not in the brief",
            e.primary_name
        );
        assert!(body.contains(&e.entity_id()));
        assert!(ids.contains(&e.entity_id().as_str()));
    }
    assert!(body.contains("## Added") && body.contains("## Removed"));
    // A second listing makes no new brief.
    let again = json(&sanctions(data.path(), &["briefs", "--json"]));
    assert_eq!(again["items"].as_array().unwrap().len(), 2);
    let human = stdout(&sanctions(data.path(), &["briefs"]));
    assert!(human.contains("OFAC SDN:"));
}

const ATOM: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Publisher news</title><id>urn:feed:atom</id><updated>2026-11-20T10:00:00Z</updated>
  <entry><id>urn:news:1</id><title>Designations of shipping companies</title>
    <updated>2026-11-20T10:00:00Z</updated><link href="https://example.org/news/1"/>
    <summary>Six vessels identified as blocked property.</summary></entry>
  <entry><id>urn:news:2</id><title>General licence issued</title>
    <updated>2026-11-19T09:00:00Z</updated><link href="https://example.org/news/2"/>
    <summary>A general licence for humanitarian trade.</summary></entry>
</feed>"#;

const RSS: &str = r#"<?xml version="1.0"?>
<rss version="2.0"><channel><title>Recent actions</title><link>https://example.org</link>
  <description>d</description>
  <item><guid>action-100</guid><title>Counter terrorism designations</title>
    <link>https://example.org/a/100</link><pubDate>Fri, 21 Nov 2026 15:00:00 GMT</pubDate>
    <description>&lt;p&gt;Two individuals added.&lt;/p&gt;</description></item>
  <item><guid>action-99</guid><title>Russia-related designations removals</title>
    <link>https://example.org/a/99</link><pubDate>Thu, 20 Nov 2026 12:00:00 GMT</pubDate>
    <description>Delisting of one entity.</description></item>
</channel></rss>"#;

#[tokio::test(flavor = "multi_thread")]
async fn atom_and_rss_feeds_become_briefs_once_and_a_broken_feed_is_reported() {
    let app = Router::new()
        .route("/atom.xml", axum::routing::get(|| async { ATOM }))
        .route("/rss.xml", axum::routing::get(|| async { RSS }))
        .route(
            "/broken.xml",
            axum::routing::get(|| async { "<rss><channel><item>" }),
        )
        .route(
            "/down.xml",
            axum::routing::get(|| async { StatusCode::INTERNAL_SERVER_ERROR }),
        )
        .route(
            "/huge.xml",
            axum::routing::get(|| async { "x".repeat(100_000) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let data = tempfile::tempdir().unwrap();
    let config = data.path().join("config.toml");
    let mut text = String::from("[briefs]\nmax_feed_bytes = 50000\n");
    for name in ["atom", "rss", "broken", "down", "huge"] {
        text.push_str(&format!(
            "[[briefs.feeds]]\nname = \"{name}\"\nurl = \"http://{addr}/{name}.xml\"\n"
        ));
    }
    std::fs::write(&config, text).unwrap();
    let config = config.display().to_string();
    let d = data.path().to_path_buf();
    let (first, second, page, q, next) = tokio::task::spawn_blocking(move || {
        let run = |args: &[&str]| {
            let mut all = vec!["--config", config.as_str()];
            all.extend_from_slice(args);
            sanctions(&d, &all)
        };
        let out = run(&["briefs", "refresh", "--json"]);
        assert!(
            !out.status.success(),
            "a failed feed makes the exit code non-zero"
        );
        let first: Value = serde_json::from_slice(&out.stdout).unwrap();
        let second: Value =
            serde_json::from_slice(&run(&["briefs", "refresh", "--json"]).stdout).unwrap();
        let page = json(&run(&["briefs", "--limit", "3", "--json"]));
        let q = json(&run(&["briefs", "--q", "licence humanitarian", "--json"]));
        let cursor = page["next_cursor"].as_str().unwrap().to_owned();
        let next = json(&run(&[
            "briefs", "--limit", "3", "--cursor", &cursor, "--json",
        ]));
        (first, second, page, q, next)
    })
    .await
    .unwrap();
    let feeds = |v: &Value| -> BTreeMap<String, Value> {
        v["feeds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["name"].as_str().unwrap().to_owned(), f.clone()))
            .collect()
    };
    let (f1, f2) = (feeds(&first), feeds(&second));
    assert_eq!(f1["atom"]["new"], 2, "{first:#}");
    assert_eq!(f1["rss"]["new"], 2);
    assert_eq!(
        f2["atom"]["new"], 0,
        "fetched twice without duplicates: {second:#}"
    );
    assert_eq!(f2["rss"]["new"], 0);
    assert_eq!(f2["rss"]["items"], 2);
    assert!(
        f1["broken"]["error"]
            .as_str()
            .unwrap()
            .contains("not a valid feed")
    );
    assert!(f1["down"]["error"].as_str().unwrap().contains("500"));
    assert!(
        f1["huge"]["error"]
            .as_str()
            .unwrap()
            .contains("larger than")
    );
    // Latest first across feeds, three per page, then the last one.
    let titles: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Counter terrorism designations",
            "Russia-related designations removals",
            "Designations of shipping companies"
        ]
    );
    assert_eq!(next["items"].as_array().unwrap().len(), 1);
    assert!(next["next_cursor"].is_null());
    let rss = &page["items"][0];
    assert_eq!(rss["source"], "rss");
    assert_eq!(rss["url"], "https://example.org/a/100");
    assert_eq!(rss["summary"], "Two individuals added.");
    let q = q["items"].as_array().unwrap();
    assert_eq!(q.len(), 1);
    assert_eq!(q[0]["title"], "General licence issued");
}
