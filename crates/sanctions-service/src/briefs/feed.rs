//! Briefs from one RSS or Atom feed (parsed with `feed-rs`): each item a brief with its link,
//! keyed by its guid so that reading the feed again adds nothing twice.

use std::time::Duration;

use jiff::Timestamp;

use super::{MAX_BODY, MAX_SUMMARY, MAX_TITLE, clip};
use crate::config::FeedConfig;
use crate::store::BriefRecord;

/// Downloads `feed` (at most `max_bytes`, within `timeout`) and turns its newest `max_items`
/// items into briefs; `new_id` names each. The error says what went wrong, for the report.
pub async fn fetch(
    feed: &FeedConfig,
    timeout: Duration,
    max_bytes: u64,
    max_items: usize,
    new_id: &(dyn Fn() -> String + Sync),
) -> Result<Vec<BriefRecord>, String> {
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::limited(5))
        .user_agent(concat!("sanctions/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| e.to_string())?;
    let mut response = client
        .get(&feed.url)
        .send()
        .await
        .map_err(|e| format!("cannot read {}: {}", feed.url, chain(&e)))?;
    if !response.status().is_success() {
        return Err(format!("{} answered HTTP {}", feed.url, response.status()));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("reading {}: {}", feed.url, chain(&e)))?
    {
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > max_bytes {
            return Err(format!("{} is larger than {max_bytes} bytes", feed.url));
        }
    }
    parse(&feed.name, &bytes, max_items, new_id)
}

/// An error with its causes (`error sending request: ... : dns error: ...`), so that the
/// report says why a feed could not be read.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The briefs of a feed document.
pub fn parse(
    source: &str,
    bytes: &[u8],
    max_items: usize,
    new_id: &(dyn Fn() -> String + Sync),
) -> Result<Vec<BriefRecord>, String> {
    let parsed = feed_rs::parser::parse(bytes).map_err(|e| format!("not a valid feed: {e}"))?;
    let now = Timestamp::now();
    Ok(parsed
        .entries
        .into_iter()
        .take(max_items)
        .map(|entry| {
            let title = entry
                .title
                .map(|t| t.content)
                .unwrap_or_else(|| "(untitled)".to_owned());
            let summary = entry.summary.map(|t| t.content).unwrap_or_default();
            let content = entry.content.and_then(|c| c.body).unwrap_or_default();
            let url = entry.links.first().map(|l| l.href.clone());
            let published = entry
                .published
                .or(entry.updated)
                .and_then(|d| Timestamp::from_second(d.timestamp()).ok())
                .unwrap_or(now);
            let summary = clip(&strip_tags(&summary), MAX_SUMMARY);
            let mut body = format!("# {}\n\n{}\n", clip(&title, MAX_TITLE), summary);
            if !content.is_empty() {
                body.push_str(&format!("\n{}\n", strip_tags(&content)));
            }
            if let Some(url) = &url {
                body.push_str(&format!("\n[Read at the source]({url})\n"));
            }
            BriefRecord {
                id: new_id(),
                source: source.to_owned(),
                guid: clip(&entry.id, 500),
                title: clip(&title, MAX_TITLE),
                summary,
                body: clip(&body, MAX_BODY),
                url,
                published_at: published,
                lists: Vec::new(),
                countries: Vec::new(),
                entity_ids: Vec::new(),
                severity: "low".to_owned(),
                created_at: now,
            }
        })
        .collect())
}

/// Text without HTML tags (feeds often carry HTML in their descriptions).
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}
