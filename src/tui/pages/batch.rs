//! The Batch tab: load a file of names (CSV, one per line, or JSON), screen and store it
//! through the one batch orchestration (500 names per service call) with a progress bar, then browse the results (hits only, sorted by score) and
//! open any row's stored screening.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Gauge};

use crate::api::batch::{BatchName, BatchRequest, BatchResult};
use crate::tui::action::{Call, Effect, Outcome};
use crate::tui::keymap::Command;
use crate::tui::queue::InternalEvent;
use crate::tui::state::{Prompt, PromptKind, State, call};
use crate::tui::widgets::{score_bar::score_bar, table};

pub use crate::tui::page_state::batch::{BatchState, Loaded};

/// Screens the names loaded: the whole batch in one call, which the runner makes through
/// the one batch orchestration (`sanctions_service::batch::screen_items`, as
/// `sanctions batch --store`), its progress coming back as it goes.
fn start(state: &mut State) -> Vec<Effect> {
    let request = BatchRequest {
        names: state.batch.names.clone(),
        options: None,
    };
    vec![call(state, Call::Batch(request))]
}

/// The batch is screened and stored: its rows, and a word in the status bar.
fn finished(state: &mut State, results: Vec<BatchResult>) -> Vec<Effect> {
    let b = &mut state.batch;
    b.results = results;
    b.done = b.results.len();
    b.running = false;
    let hits = b.results.iter().filter(|r| r.matches > 0).count();
    let total = b.results.len();
    state.info(format!(
        "batch done: {total} name(s) screened and stored, {hits} with matches"
    ));
    vec![call(state, Call::OpenAlerts)]
}

/// Rows of the running batch screened since the last word.
pub fn progress(state: &mut State, rows: u64) {
    let b = &mut state.batch;
    b.done = (b.done + usize::try_from(rows).unwrap_or(usize::MAX)).min(b.names.len());
}

/// Handles a command on the Batch tab.
pub fn on_command(state: &mut State, command: Command) -> Vec<Effect> {
    let b = &mut state.batch;
    let len = b.rows().len();
    if table::step(&mut b.selected, len, command) {
        return Vec::new();
    }
    match command {
        Command::Load if !b.running => {
            state.prompt = Some(Prompt::new(
                "Batch file (CSV, text or JSON): path",
                PromptKind::BatchPath,
            ));
        }
        Command::Load => state.error("a batch is running; wait for it to finish"),
        Command::ToggleHits => {
            b.hits_only = !b.hits_only;
            b.selected = 0;
        }
        Command::Sort => b.by_score = !b.by_score,
        Command::Export if b.results.is_empty() => {
            state.error("nothing to export yet: load a file or paste names first");
        }
        Command::Export => {
            state.prompt = Some(Prompt::new(
                "Export the rows shown to a new file (.csv or .json): path",
                PromptKind::BatchExport,
            ));
        }
        Command::Activate => {
            if let Some(id) = b.rows().get(b.selected).map(|r| r.screening_id.clone()) {
                state.queue.push(InternalEvent::OpenScreening(id));
                return Vec::new();
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Most names pasted at once.
const MAX_PASTED: usize = 10_000;

/// Names pasted on the tab (one per line): screened as a batch at once.
pub fn paste(state: &mut State, text: &str) -> Vec<Effect> {
    let names: Vec<BatchName> = crate::tui::text::split_lines(text)
        .into_iter()
        .map(|l| crate::tui::text::sanitize(l).trim().to_owned())
        .filter(|l| !l.is_empty())
        .take(MAX_PASTED)
        .map(|name| BatchName::typed(name, None))
        .collect();
    if names.is_empty() {
        state.error("the pasted text holds no name (one name per line)");
        return Vec::new();
    }
    let request = BatchRequest {
        names,
        options: None,
    };
    on_done(state, Outcome::BatchLoaded(Ok(Loaded::names(request))))
}

/// Writes the rows shown (after the filters and sort) to a new file at `path`: JSON when it
/// ends in `.json`, CSV otherwise.
pub fn export(state: &mut State, path: &str) -> Vec<Effect> {
    let b = &state.batch;
    let rows = b.indexed_rows();
    let contents = if path.to_lowercase().ends_with(".json") {
        export_json(b, &rows)
    } else {
        export_csv(b, &rows)
    };
    match contents {
        Ok(contents) => vec![call(state, Call::WriteFile(path.into(), contents))],
        Err(e) => {
            state.error(format!("cannot export: {e}"));
            Vec::new()
        }
    }
}

/// The rows as JSON: each result with an `input` object of every input column.
fn export_json(b: &BatchState, rows: &[(usize, &BatchResult)]) -> Result<String, String> {
    let out: Vec<serde_json::Value> = rows
        .iter()
        .map(|(i, r)| {
            let mut value = serde_json::to_value(r).unwrap_or_default();
            if !b.header.is_empty()
                && let Some(object) = value.as_object_mut()
            {
                let input: serde_json::Map<String, serde_json::Value> = b
                    .header
                    .iter()
                    .enumerate()
                    .map(|(c, h)| (h.clone(), b.cell(*i, c).into()))
                    .collect();
                object.insert("input".into(), input.into());
            }
            value
        })
        .collect();
    serde_json::to_string_pretty(&out).map_err(|e| e.to_string())
}

/// The rows as CSV: name, matches, best score, screening id, then every other input column.
fn export_csv(b: &BatchState, rows: &[(usize, &BatchResult)]) -> Result<String, String> {
    let extra = b.extra_columns();
    let mut out = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["name", "matches", "best_score", "screening_id"];
    header.extend(extra.iter().map(|(_, h)| *h));
    let mut result = out.write_record(&header);
    for (i, r) in rows {
        let best = r.best_score.map_or(String::new(), |b| b.to_string());
        let matches = r.matches.to_string();
        let mut record = vec![r.name.as_str(), &matches, &best, &r.screening_id];
        record.extend(extra.iter().map(|(c, _)| b.cell(*i, *c)));
        result = result.and_then(|()| out.write_record(&record));
    }
    result
        .map_err(|e| e.to_string())
        .and_then(|()| out.into_inner().map_err(|e| e.to_string()))
        .and_then(|bytes| String::from_utf8(bytes).map_err(|e| e.to_string()))
}

/// Applies a result for the Batch tab.
pub fn on_done(state: &mut State, outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::BatchLoaded(Ok(loaded)) => {
            let note = loaded.columns_note();
            let b = &mut state.batch;
            *b = BatchState {
                hits_only: b.hits_only,
                by_score: b.by_score,
                words: b.words.clone(),
                names: loaded.request.names,
                running: true,
                header: loaded.header,
                roles: loaded.roles,
                cells: loaded.cells,
                note: note.clone(),
                ..BatchState::default()
            };
            if let Some(note) = note {
                state.info(note);
            }
            start(state)
        }
        Outcome::Batch(Ok(response)) => finished(state, response.results),
        Outcome::Written(Ok(path)) => {
            state.info(format!("exported to {path}"));
            Vec::new()
        }
        Outcome::Written(Err(e)) => {
            state.error(e);
            Vec::new()
        }
        Outcome::BatchLoaded(Err(e)) => {
            state.batch.error = Some(e.clone());
            state.error(e);
            Vec::new()
        }
        Outcome::Batch(Err(e)) => {
            state.batch.running = false;
            state.batch.error = Some(e.to_string());
            state.service_error(&e);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Draws the Batch tab.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let b = &state.batch;
    let [gauge, body] = Layout::vertical([Constraint::Length(3), Constraint::Min(0)]).areas(area);
    let total = b.names.len().max(1);
    let done = b.done;
    let label = if b.names.is_empty() {
        "no batch loaded".to_owned()
    } else {
        let hits = b.results.iter().filter(|r| r.matches > 0).count();
        format!(
            "{done} / {} screened · {}% · {hits} with matches",
            b.names.len(),
            done * 100 / total
        )
    };
    frame.render_widget(
        Gauge::default()
            .block(Block::bordered().title(" Progress "))
            .ratio((done as f64 / total as f64).clamp(0.0, 1.0))
            .label(label),
        gauge,
    );
    let title = format!(
        " Results · {} · {} · l load · h hits · s sort · Enter open ",
        if b.hits_only { "hits only" } else { "all rows" },
        if b.by_score {
            "by score"
        } else {
            "input order"
        }
    );
    let mut block = Block::bordered().title(title);
    if let Some(note) = &b.note {
        let width = body.width.saturating_sub(2) as usize;
        block = block.title_bottom(crate::tui::text::fit(&format!(" {note} "), width));
    }
    let rows = b.rows();
    if rows.is_empty() {
        let text = match &b.error {
            Some(e) => format!("✗ {}", crate::tui::text::sanitize(e)),
            None if b.running => "Screening…".to_owned(),
            None if !b.results.is_empty() => "No row with a match.".to_owned(),
            None => "Press l and type the path of a file: CSV with a name column (and optional type), one name per line, or JSON. Each name is screened and stored; batches over 500 names go in chunks of 500.".to_owned(),
        };
        table::message(frame, body, block, text);
        return;
    }
    let extra = b.extra_columns();
    // As many input columns as fit beside the name (the export always has all of them).
    let room = (body.width as usize).saturating_sub(9 + 7 + 30 + 20) / 14;
    let extra = &extra[..extra.len().min(room)];
    let cells = b
        .indexed_rows()
        .iter()
        .map(|(i, r)| {
            let mut row = vec![
                r.best_score.map_or("-".into(), |s| score_bar(s, 5)),
                r.name.clone(),
                r.matches.to_string(),
            ];
            row.extend(extra.iter().map(|(c, _)| b.cell(*i, *c).to_owned()));
            row.push(r.screening_id.clone());
            row
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(9),
        Constraint::Fill(1),
        Constraint::Length(7),
    ];
    widths.extend(extra.iter().map(|_| Constraint::Length(13)));
    widths.push(Constraint::Length(30));
    let mut header = vec!["Best", "Name", "Matches"];
    header.extend(extra.iter().map(|(_, h)| *h));
    header.push("Screening");
    table::draw(
        frame,
        body,
        block,
        &header,
        &widths,
        cells,
        Some(b.selected),
    );
}
