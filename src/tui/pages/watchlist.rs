//! The Watchlist tab: names re-screened after every list change, with when they were last
//! screened and how many entries they match; add, remove (asks first), re-screen now.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::Block;

use crate::tui::action::{Call, Effect, Outcome, Slot};
use crate::tui::keymap::Command;
use crate::tui::queue::InternalEvent;
use crate::tui::state::{Prompt, PromptKind, State, call};
use crate::tui::widgets::table;

pub use crate::tui::page_state::watchlist::WatchlistState;

/// Handles a command on the Watchlist tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let w = &mut state.watchlist;
    if table::step(&mut w.selected, w.items.len(), command) {
        return Vec::new();
    }
    match command {
        Command::Refresh => return vec![call(state, Call::Favorites)],
        Command::Rescreen => return vec![call(state, Call::Rescreen)],
        Command::Import => {
            state.prompt = Some(Prompt::new(
                "Import names to the watchlist (CSV, text or JSON): path",
                PromptKind::WatchlistImport,
            ));
        }
        Command::Add => {
            state.prompt = Some(Prompt::new(
                "Add to the watchlist: name",
                PromptKind::AddFavorite,
            ));
        }
        Command::Activate => {
            let Some(f) = w.items.get(w.selected) else {
                return Vec::new();
            };
            let (id, name) = (f.last_screening_id.clone(), f.name.clone());
            let Some(id) = id else {
                state.info(format!(
                    "{} has no stored screening with matches yet (s re-screens the watchlist)",
                    crate::tui::text::sanitize(&name)
                ));
                return Vec::new();
            };
            state.queue.push(InternalEvent::OpenScreening(id));
            return Vec::new();
        }
        Command::Remove => {
            if let Some(f) = w.items.get(w.selected) {
                let (favorite_id, name) = (f.id.clone(), f.name.clone());
                state.prompt = Some(Prompt::new(
                    format!(
                        "Remove {:?} from the watchlist? (y/n)",
                        crate::tui::text::sanitize(&name)
                    ),
                    PromptKind::ConfirmRemove { favorite_id, name },
                ));
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Applies a result for the Watchlist tab.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::Favorites(Ok(page)) => {
            let w = &mut state.watchlist;
            w.items = page.items;
            w.total = page.total;
            w.loaded = true;
            w.error = None;
            w.selected = table::clamp(w.selected, w.items.len());
            Vec::new()
        }
        Outcome::FavoriteAdded(Ok(f)) => {
            state.info(format!(
                "added {:?} to the watchlist ({} match{})",
                f.name,
                f.last_match_count,
                if f.last_match_count == 1 { "" } else { "es" }
            ));
            vec![call(state, Call::Favorites)]
        }
        Outcome::FavoritesImported(Ok(s)) => {
            state.info(format!(
                "imported {} name(s): {} added, {} already watched, {} matching now",
                s.total, s.added, s.duplicates, s.matched
            ));
            vec![call(state, Call::Favorites)]
        }
        Outcome::FavoritesImported(Err(e)) => {
            state.error(e);
            Vec::new()
        }
        Outcome::FavoriteRemoved(Ok(f)) => {
            state.info(format!("removed {:?} from the watchlist", f.name));
            vec![call(state, Call::Favorites)]
        }
        Outcome::Rescreened(Ok(r)) => {
            state.info(format!(
                "re-screened {} name(s): {} changed, {} new alert(s)",
                r.screened,
                r.changed,
                r.alert_ids.len()
            ));
            vec![call(state, Call::Favorites), call(state, Call::OpenAlerts)]
        }
        Outcome::Favorites(Err(e)) => {
            state.watchlist.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        Outcome::FavoriteAdded(Err(e))
        | Outcome::FavoriteRemoved(Err(e))
        | Outcome::Rescreened(Err(e)) => {
            state.service_error(&e);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Draws the Watchlist tab.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let w = &state.watchlist;
    let block = Block::bordered().title(format!(
        " Watchlist · {} name(s) · a add · d remove · s re-screen ",
        w.total
    ));
    if !w.loaded || w.items.is_empty() {
        let empty = "The watchlist is empty. Press a to add a name, or w on the Screen tab to add the screened name.\nWatched names are re-screened after every list update, and new matches raise alerts.";
        let pending = state.requests.pending(Slot::Favorites);
        let text = table::placeholder(w.error.as_deref(), pending, w.loaded, empty);
        table::message(frame, area, block, text);
        return;
    }
    let rows = w
        .items
        .iter()
        .map(|f| {
            vec![
                f.name.clone(),
                f.kind.map_or("any".to_owned(), |k| k.to_string()),
                f.last_screened_at
                    .map_or("never".into(), |t| t.strftime("%Y-%m-%d %H:%M").to_string()),
                f.last_match_count.to_string(),
                f.note.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let widths = [
        Constraint::Fill(2),
        Constraint::Length(10),
        Constraint::Length(16),
        Constraint::Length(7),
        Constraint::Fill(1),
    ];
    let header = ["Name", "Type", "Screened (UTC)", "Matches", "Note"];
    table::draw(frame, area, block, &header, &widths, rows, Some(w.selected));
}
