//! The `/` filter of the tables and the `y` copy target across the tabs: which rows a table
//! keeps for its words, and which name or id the selection offers to the clipboard. Above
//! the pages (it reaches into each tab's state); [`super::update`] calls it.

use super::action::{Call, Effect};
use super::filter::matches;
use super::state::{State, Tab, call};
use super::widgets::table::clamp;

/// Sets the words of `tab` (empty clears them) and reloads its rows.
pub fn set(state: &mut State, tab: Tab, words: &str) -> Vec<Effect> {
    let words = words.trim();
    if words.is_empty() {
        state.filters.remove(&tab);
    } else {
        state.filters.insert(tab, words.chars().take(200).collect());
    }
    match tab {
        Tab::Batch => {
            state.batch.words = state.filter(tab).map(str::to_owned);
            state.batch.selected = 0;
            Vec::new()
        }
        Tab::Lists => {
            state.lists.selected = 0;
            vec![call(state, Call::Lists)]
        }
        Tab::Watchlist => {
            state.watchlist.selected = 0;
            vec![call(state, Call::Favorites)]
        }
        Tab::Alerts => {
            state.alerts.selected = 0;
            vec![super::pages::alerts::reload(state)]
        }
        Tab::Webhooks => {
            state.webhooks.selected = 0;
            vec![call(state, Call::Webhooks)]
        }
        _ => Vec::new(),
    }
}

/// Keeps only the rows that match their tab's words (after every load).
pub fn apply(state: &mut State) {
    if let Some(words) = state.filters.get(&Tab::Lists) {
        state.lists.lists.retain(|l| {
            let text = format!("{} {}", l.list_code.code(), l.list_name);
            matches(words, &text)
        });
        state.lists.selected = clamp(state.lists.selected, state.lists.lists.len());
    }
    if let Some(words) = state.filters.get(&Tab::Watchlist) {
        state.watchlist.items.retain(|f| matches(words, &f.name));
        state.watchlist.selected = clamp(state.watchlist.selected, state.watchlist.items.len());
    }
    if let Some(words) = state.filters.get(&Tab::Alerts) {
        state.alerts.items.retain(|a| {
            let text = format!("{} {} {} {}", a.id, a.title, a.kind, a.severity.as_str());
            matches(words, &text)
        });
        state.alerts.selected = clamp(state.alerts.selected, state.alerts.items.len());
    }
    if let Some(words) = state.filters.get(&Tab::Webhooks) {
        state.webhooks.items.retain(|h| {
            let text = format!("{} {} {}", h.id, h.url, h.events.join(" "));
            matches(words, &text)
        });
        state.webhooks.selected = clamp(state.webhooks.selected, state.webhooks.items.len());
    }
}

/// The name or id under the cursor of the current tab, for `y`.
pub fn copy_target(state: &State) -> Option<String> {
    match state.tab {
        Tab::Screen => match state.screen.view {
            super::pages::screen::View::History => state
                .screen
                .history_visible()
                .get(state.screen.history_selected)
                .map(|h| h.id.clone()),
            _ => state.screen.current().map(|m| m.name.clone()).or_else(|| {
                state
                    .screen
                    .shown
                    .as_ref()
                    .filter(|s| !s.is_preview())
                    .map(|s| s.id.clone())
            }),
        },
        Tab::Batch => {
            let rows = state.batch.rows();
            rows.get(state.batch.selected).map(|r| r.name.clone())
        }
        Tab::Briefs => state
            .briefs
            .current()
            .map(|b| b.url.clone().unwrap_or_else(|| b.id.clone())),
        Tab::Lists => state
            .lists
            .lists
            .get(state.lists.selected)
            .map(|l| l.list_code.code().to_owned()),
        Tab::Watchlist => state
            .watchlist
            .items
            .get(state.watchlist.selected)
            .map(|f| f.name.clone()),
        Tab::Alerts => state
            .alerts
            .items
            .get(state.alerts.selected)
            .map(|a| a.id.clone()),
        // The secret of a new webhook first: it is shown once, and lost if not copied.
        // (Also before the reload after the creation has brought its row: the secret is
        // on screen from the creation's answer.)
        Tab::Webhooks => match (&state.webhooks.secret, state.webhooks.current()) {
            (Some((id, secret)), current)
                if current.is_none_or(|h| &h.id == id)
                    || state.webhooks.fresh.as_ref() == Some(id) =>
            {
                Some(secret.clone())
            }
            _ => state.webhooks.current().map(|h| h.id.clone()),
        },
    }
    .map(|t| super::text::sanitize(&t))
    .filter(|t| !t.is_empty())
}
