//! Drawing of the Screen tab: the name field with type and threshold, then the results
//! table, a match's detail with its explanation, or the history of screenings.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::screen::{Focus, View};
use crate::api::coverage::Coverage;
use crate::api::screening::{KindFilter, Match};
use crate::model::EntityKind;
use crate::tui::action::Slot;
use crate::tui::coverage;
use crate::tui::state::{IndexState, State};
use crate::tui::text::{fit, sanitize};
use crate::tui::theme;
use crate::tui::widgets::{score_bar::score_bar, table};

/// Draws the Screen tab into `area`.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let [field, body] = Layout::vertical([Constraint::Length(3), Constraint::Min(0)]).areas(area);
    draw_field(frame, field, state);
    match state.screen.view {
        View::Results => draw_results(frame, body, state),
        View::Detail => draw_detail(frame, body, state),
        View::History => draw_history(frame, body, state),
    }
}

fn draw_field(frame: &mut Frame, area: Rect, state: &State) {
    let s = &state.screen;
    let kind = match s.kind {
        None => "any",
        Some(KindFilter::Individual) => "individual",
        Some(KindFilter::Entity) => "entity",
    };
    let threshold = s.threshold.map_or("default".to_owned(), |t| t.to_string());
    let editing = s.in_text() && state.prompt.is_none();
    let [name, dob, country] = Layout::horizontal([
        Constraint::Min(30),
        Constraint::Length(14),
        Constraint::Length(12),
    ])
    .areas(area);
    let title = format!(
        " Name{} · type {kind} ^T · threshold {threshold} PgUp/Dn ",
        match (editing && s.focus == Focus::Name, s.replace) {
            (true, true) => " ✎ typing starts a new name",
            (true, false) => " ✎",
            _ => "",
        }
    );
    let fields = [
        (name, title, &s.name, Focus::Name),
        (dob, " Born (opt) ".to_owned(), &s.dob, Focus::Dob),
        (country, " Country ".to_owned(), &s.country, Focus::Country),
    ];
    for (rect, title, input, focus) in fields {
        let here = editing && s.focus == focus;
        let title = if here && focus != Focus::Name {
            format!("{}✎ ", title.trim_end())
        } else {
            title
        };
        let mut block = Block::bordered().title(fit(&title, rect.width.saturating_sub(2) as usize));
        if here {
            block = block.border_style(theme::accent());
        }
        let inner = block.inner(rect);
        let width = inner.width.max(1) as usize;
        let scroll = input.visual_scroll(width);
        let visible: String = sanitize(input.value()).chars().skip(scroll).collect();
        frame.render_widget(Paragraph::new(fit(&visible, width)).block(block), rect);
        if here {
            let x = (input.visual_cursor().saturating_sub(scroll)) as u16;
            frame.set_cursor_position(Position::new(inner.x + x.min(inner.width), inner.y));
        }
    }
}

fn draw_results(frame: &mut Frame, area: Rect, state: &State) {
    let s = &state.screen;
    let block = Block::bordered();
    let previewing = state.requests.pending(Slot::Preview) && s.shown.is_none();
    let message = if state.requests.pending(Slot::Screen) || previewing {
        Some(match state.status.index {
            IndexState::Building => {
                "Screening… (the index is still being built; it runs as soon as it is ready)"
                    .to_owned()
            }
            _ => "Screening…".to_owned(),
        })
    } else if let Some(e) = &s.error {
        Some(format!("✗ {e}"))
    } else if s.shown.is_none() {
        Some(
            if state.lists.loaded && state.lists.lists.iter().all(|l| l.count == 0) {
                "No list has been imported yet, so there is nothing to screen against.\nSee the Lists tab (4) for how to import or update the lists.".to_owned()
            } else {
                if super::screen::previews_on(state) {
                    "Type a name: results appear as you type (nothing stored). Enter runs and stores the screening for the audit trail.\nTab moves to the optional date of birth and country; ↓ to the results, Enter for a match's detail.".to_owned()
                } else {
                    format!(
                        "{}\nTab moves to the optional date of birth and country; ↓ to the results, Enter for a match's detail.",
                        super::screen::REMOTE_NO_PREVIEW
                    )
                }
            },
        )
    } else {
        None
    };
    if let Some(message) = message {
        table::message(frame, area, block.title(" Results "), message);
        return;
    }
    let Some(shown) = &s.shown else { return };
    let coverage = shown.coverage.clone().or_else(|| {
        (state.lists.loaded).then(|| coverage::of_lists(&state.lists.lists, state.now))
    });
    let area = match &coverage {
        Some(c) => {
            let [table_area, line] =
                Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
            draw_coverage(frame, line, c, state.now);
            table_area
        }
        None => area,
    };
    let block = block
        .title(fit(
            &results_title(shown, s.words.as_deref()),
            area.width.saturating_sub(2) as usize,
        ))
        .title_bottom(fit(
            &results_footer(shown, s.focus == Focus::Results),
            area.width.saturating_sub(2) as usize,
        ));
    if shown.results.is_empty() {
        let searched = coverage
            .as_ref()
            .map_or(String::new(), |c| format!(" ({})", coverage::searched(c)));
        let text = if shown.is_preview() {
            format!(
                "No match at this threshold so far{searched}. Enter stores the screening for the audit trail."
            )
        } else {
            format!(
                "No match at this threshold{searched}. The screening is stored (no review needed)."
            )
        };
        table::message(frame, area, block, text);
        return;
    }
    let visible = s.visible();
    if visible.is_empty() {
        let text = format!(
            "No match of the {} has the words {:?}. / changes them (empty: show all).",
            shown.results.len(),
            sanitize(s.words.as_deref().unwrap_or(""))
        );
        table::message(frame, area, block, text);
        return;
    }
    let wide = area.width >= 100;
    // A first column numbers the people or organisations where the answer grouped one's
    // entries of several lists (else each row is its own, and the column says nothing).
    let grouped = people(&shown.results).is_some();
    let groups = group_cells(&visible);
    let rows = visible
        .into_iter()
        .zip(groups)
        .map(|(m, group)| {
            let mut row = vec![
                score_bar(m.score, if wide { 10 } else { 5 }),
                m.name.clone(),
                m.matched_name.clone(),
                m.list_code.code().to_owned(),
            ];
            if wide {
                row.push(m.kind.to_string());
                row.push(m.country.clone().unwrap_or_default());
            }
            if grouped {
                row.insert(0, group);
            }
            row
        })
        .collect();
    let selected = (s.focus == Focus::Results).then_some(s.selected);
    let (mut header, mut widths) = if wide {
        (
            vec![
                "Score",
                "Listed name",
                "Matched name",
                "List",
                "Type",
                "Ctry",
            ],
            vec![
                Constraint::Length(14),
                Constraint::Fill(3),
                Constraint::Fill(2),
                Constraint::Length(10),
                Constraint::Length(10),
                Constraint::Length(4),
            ],
        )
    } else {
        (
            vec!["Score", "Listed name", "Matched name", "List"],
            vec![
                Constraint::Length(9),
                Constraint::Fill(3),
                Constraint::Fill(2),
                Constraint::Length(9),
            ],
        )
    };
    if grouped {
        header.insert(0, "#");
        widths.insert(0, Constraint::Length(if wide { 3 } else { 2 }));
    }
    table::draw(frame, area, block, &header, &widths, rows, selected);
}

/// The group column of `rows` (in the order shown): each row's person or organisation,
/// numbered as the answer groups them (one person's entries on several lists share a
/// number), written where a run of rows of one group begins and left empty on the rows of
/// the run after it.
fn group_cells(rows: &[&Match]) -> Vec<String> {
    let mut before = None;
    rows.iter()
        .map(|m| {
            let starts = m.group.is_some() && m.group != before;
            before = m.group;
            match m.group {
                Some(group) if starts => group.to_string(),
                _ => String::new(),
            }
        })
        .collect()
}

/// What the matches in `results` are where the answer grouped entries of several lists as
/// one person or organisation (fewer groups than matches): ` · 1 person, 1 organisation`,
/// each group counted once by the kind of its first entry.
fn people(results: &[Match]) -> Option<String> {
    const NAMES: [(&str, &str); 4] = [
        ("person", "people"),
        ("organisation", "organisations"),
        ("vessel", "vessels"),
        ("aircraft", "aircraft"),
    ];
    let mut seen: Vec<u32> = Vec::new();
    let mut counts = [0usize; NAMES.len()];
    for m in results {
        let Some(group) = m.group else { continue };
        if !seen.contains(&group) {
            seen.push(group);
            let at = match m.kind {
                EntityKind::Individual => 0,
                EntityKind::Entity => 1,
                EntityKind::Vessel => 2,
                EntityKind::Aircraft => 3,
            };
            counts[at] += 1;
        }
    }
    if seen.is_empty() || seen.len() >= results.len() {
        return None;
    }
    let parts: Vec<String> = counts
        .iter()
        .zip(NAMES)
        .filter(|(n, _)| **n > 0)
        .map(|(&n, (one, many))| format!("{n} {}", if n == 1 { one } else { many }))
        .collect();
    Some(format!(" · {}", parts.join(", ")))
}

/// The other entries of `results` that the answer grouped with `m` (the same person or
/// organisation on other lists), as `ofac_sdn:6365 (OFAC SDN), ...`; empty for none.
fn grouped_with(results: &[Match], m: &Match) -> String {
    results
        .iter()
        .filter(|o| m.group.is_some() && o.group == m.group && o.entity_id != m.entity_id)
        .map(|o| format!("{} ({})", o.entity_id, o.list_name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn results_title(shown: &super::screen::Shown, words: Option<&str>) -> String {
    let status = if shown.is_preview() {
        " · as you type, not stored: Enter stores".to_owned()
    } else {
        shown.status.map_or(String::new(), |st| format!(" · {st}"))
    };
    let words = words.map_or(String::new(), |w| format!(" · /{}", sanitize(w)));
    format!(
        " {} match{} for {:?}{}{status}{words} ",
        shown.total,
        if shown.total == 1 { "" } else { "es" },
        sanitize(&shown.query),
        people(&shown.results).unwrap_or_default(),
    )
}

/// The bottom line of the results: the screening id (whole, at 80 columns too) and the mode.
fn results_footer(shown: &super::screen::Shown, reviewing: bool) -> String {
    let id = if shown.is_preview() {
        "not stored".to_owned()
    } else {
        shown.id.clone()
    };
    let mode = match (reviewing, shown.is_preview()) {
        (true, false) => "REVIEW: f/t/e decide, Esc types again",
        (true, true) => "REVIEW: Enter opens a match",
        (false, _) => "↓ or Tab reviews",
    };
    format!(" {id} · {mode} ")
}

/// The screening's id and status, and the decisions recorded on this entry or on the whole
/// screening (who, when, from what to what, the note): the audit trail of the review.
fn decisions(lines: &mut Vec<Line<'static>>, shown: &super::screen::Shown, entity: &str) {
    lines.push(Line::styled("Review", theme::accent()));
    if shown.is_preview() {
        lines.push(Line::from(
            "  not stored (results as you type): Enter in the name field stores it",
        ));
        lines.push(Line::from(""));
        return;
    }
    field(lines, "screening", &shown.id);
    let status = shown.status.map_or("-".to_owned(), |st| st.to_string());
    field(lines, "status", &status);
    if let Some(p) = super::screen::pending_proposal(shown, entity) {
        lines.push(Line::styled(
            format!(
                "  {} proposed by {}, awaiting a second reviewer",
                p.decision,
                sanitize(&p.actor)
            ),
            theme::warn(),
        ));
        lines.push(Line::styled(
            "  c confirm · x reject (a second, different reviewer)",
            theme::warn(),
        ));
    }
    let mine: Vec<_> = shown
        .decisions
        .iter()
        .filter(|d| d.entity_id.as_deref().is_none_or(|e| e == entity))
        .collect();
    if mine.is_empty() {
        lines.push(Line::from("  no decision recorded yet"));
    }
    for d in mine {
        let on = if d.entity_id.is_some() {
            "this entry"
        } else {
            "whole screening"
        };
        let to = match (d.to, d.proposed) {
            (crate::model::ReviewStatus::Proposed, Some(p)) => format!("proposed {p}"),
            _ => d.to.to_string(),
        };
        lines.push(Line::from(format!(
            "  {} {} · {} → {to} ({on})",
            d.at.strftime("%Y-%m-%d %H:%M"),
            sanitize(&d.actor),
            d.from,
        )));
        lines.push(Line::from(format!("    note: {}", sanitize(&d.note))));
    }
    lines.push(Line::from(""));
}

fn draw_coverage(frame: &mut Frame, area: Rect, coverage: &Coverage, now: jiff::Timestamp) {
    let (text, warn) = coverage::line(coverage, now);
    let style = if warn {
        theme::warn()
    } else {
        ratatui::style::Style::default()
    };
    let text = fit(&format!(" {text}"), area.width as usize);
    frame.render_widget(Paragraph::new(Line::styled(text, style)), area);
}

fn field(lines: &mut Vec<Line<'static>>, label: &str, value: &str) {
    if !value.trim().is_empty() {
        lines.push(Line::from(vec![
            Span::styled(format!("{label:<13}"), theme::accent()),
            Span::raw(sanitize(value)),
        ]));
    }
}

fn draw_detail(frame: &mut Frame, area: Rect, state: &State) {
    let s = &state.screen;
    let block = Block::bordered().title(" Detail · ↑↓ scroll · f/t/e decide · w watch · Esc back ");
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(m) = s.current() {
        lines.push(Line::styled("Why it matched", theme::accent()));
        lines.push(Line::from(format!(
            "  score {} · query {:?} ↔ listed {:?}",
            m.score,
            sanitize(&s.shown.as_ref().map_or(String::new(), |x| x.query.clone())),
            sanitize(&m.matched_name)
        )));
        for t in &m.explanation {
            let q = t.query_token.as_deref().unwrap_or("—");
            let l = t.listed_token.as_deref().unwrap_or("—");
            lines.push(Line::from(format!(
                "  {:<16} ↔ {:<16} {:>3}  {}",
                fit(q, 16),
                fit(l, 16),
                t.similarity,
                sanitize(&t.how)
            )));
        }
        if let Some(ended) = &m.ended_on {
            field(&mut lines, "ended on", ended);
        }
        if let Some(shown) = &s.shown {
            field(&mut lines, "also listed", &grouped_with(&shown.results, m));
        }
        lines.push(Line::from(""));
        if let Some(shown) = &s.shown {
            decisions(&mut lines, shown, &m.entity_id);
        }
    }
    match &s.detail {
        None if state.requests.pending(Slot::Entity) => {
            lines.push(Line::from("Loading the entry…"))
        }
        None => lines.push(Line::from(
            "The entry could not be loaded (see the status bar).",
        )),
        Some(d) => {
            let r = &d.record;
            let e = r;
            lines.push(Line::styled("The listed entry", theme::accent()));
            field(&mut lines, "entity id", &r.entity_id);
            field(&mut lines, "list", &r.list_name);
            field(&mut lines, "type", e.kind.as_str());
            field(&mut lines, "name", &e.primary_name);
            for a in &e.aliases {
                field(&mut lines, "alias", &a.name);
            }
            let born: Vec<String> = e.birth_dates.iter().map(|d| d.iso()).collect();
            field(&mut lines, "born", &born.join("; "));
            field(&mut lines, "birthplace", &e.birth_places.join("; "));
            field(&mut lines, "nationality", &e.nationalities.join(", "));
            field(&mut lines, "countries", &e.countries.join(", "));
            for a in &e.addresses {
                let text = a.full.clone().unwrap_or_else(|| {
                    [&a.street, &a.city, &a.region, &a.postal_code, &a.country]
                        .into_iter()
                        .filter_map(|p| p.as_deref())
                        .collect::<Vec<_>>()
                        .join(", ")
                });
                field(&mut lines, "address", &text);
            }
            for doc in &e.identifiers {
                let mut text = format!("{} {}", doc.doc_type, doc.number);
                if let Some(c) = &doc.country {
                    text.push_str(&format!(" ({c})"));
                }
                field(&mut lines, "document", &text);
            }
            field(&mut lines, "programmes", &e.programmes.join(", "));
            field(
                &mut lines,
                "listed on",
                e.listed_on.as_deref().unwrap_or(""),
            );
            field(
                &mut lines,
                "listing ends",
                e.listing_ends.as_deref().unwrap_or(""),
            );
            field(&mut lines, "remarks", e.remarks.as_deref().unwrap_or(""));
            field(&mut lines, "source", e.source_url.as_deref().unwrap_or(""));
        }
    }
    let paragraph = Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((s.scroll, 0));
    frame.render_widget(paragraph, area);
}

/// The history's title: how many rows (`+` when more can be loaded), the `/` words, keys.
fn history_title(s: &super::screen::ScreenState) -> String {
    let more = if s.history_more() { "+" } else { "" };
    let count = match &s.history_words {
        Some(w) => format!(
            "{} of {}{more} · /{}",
            s.history_visible().len(),
            s.history.len(),
            sanitize(w)
        ),
        None => format!("{}{more}", s.history.len()),
    };
    format!(" History · {count} · Enter reopens · / filter · Esc back ")
}

fn draw_history(frame: &mut Frame, area: Rect, state: &State) {
    let s = &state.screen;
    let pending = state.requests.pending(Slot::History);
    let mut block = Block::bordered().title(history_title(s));
    if s.history_more() || (pending && !s.history.is_empty()) {
        block = block.title_bottom(if pending {
            " loading more… "
        } else {
            " more: ↓ past the last row loads them "
        });
    }
    let visible = s.history_visible();
    if visible.is_empty() {
        let empty = match &s.history_words {
            Some(w) if !s.history.is_empty() => format!(
                "No screening loaded has the words {:?}{}. / changes them (empty: show all).",
                sanitize(w),
                if s.history_more() {
                    "; ↓ loads more"
                } else {
                    ""
                }
            ),
            _ => "No screening stored yet.".to_owned(),
        };
        let text = table::placeholder(None, pending, true, &empty);
        table::message(frame, area, block, text);
        return;
    }
    let rows = visible
        .into_iter()
        .map(|h| {
            vec![
                h.created_at.strftime("%Y-%m-%d %H:%M").to_string(),
                h.query.clone(),
                h.total_matches.to_string(),
                h.best_score.map_or("-".into(), |b| b.to_string()),
                h.status.to_string(),
            ]
        })
        .collect();
    let widths = [
        Constraint::Length(16),
        Constraint::Fill(1),
        Constraint::Length(7),
        Constraint::Length(5),
        Constraint::Length(14),
    ];
    let header = ["When (UTC)", "Query", "Matches", "Best", "Review"];
    table::draw(
        frame,
        area,
        block,
        &header,
        &widths,
        rows,
        Some(s.history_selected),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(group: Option<u32>, kind: &str) -> Match {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        serde_json::from_value(serde_json::json!({
            "entity_id": format!("ofac_sdn:{id}"),
            "name": "NAME",
            "matched_name": "NAME",
            "list_code": "ofac_sdn",
            "list": "OFAC SDN",
            "score": 90,
            "type": if kind == "individual" { "individual" } else { "entity" },
            "kind": kind,
            "country": null,
            "explanation": [],
            "group": group,
        }))
        .expect("a match")
    }

    #[test]
    fn a_group_is_numbered_where_its_run_of_rows_begins() {
        let rows = [
            entry(Some(1), "individual"),
            entry(Some(1), "individual"),
            entry(Some(2), "entity"),
            entry(Some(1), "individual"),
            entry(None, "entity"),
            entry(Some(3), "vessel"),
        ];
        let shown: Vec<&Match> = rows.iter().collect();
        assert_eq!(group_cells(&shown), ["1", "", "2", "1", "", "3"]);
    }

    #[test]
    fn the_people_are_counted_by_kind_only_where_entries_were_grouped() {
        let person = |g| entry(Some(g), "individual");
        let grouped = [
            person(1),
            person(1),
            entry(Some(2), "entity"),
            entry(Some(2), "entity"),
            entry(Some(3), "vessel"),
        ];
        assert_eq!(
            people(&grouped).as_deref(),
            Some(" · 1 person, 1 organisation, 1 vessel")
        );
        assert_eq!(
            people(&[person(1), person(2), person(2)]).as_deref(),
            Some(" · 2 people")
        );
        let id = |i: usize| format!("{} (OFAC SDN)", grouped[i].entity_id);
        assert_eq!(grouped_with(&grouped, &grouped[2]), id(3));
        assert_eq!(grouped_with(&grouped, &grouped[0]), id(1));
        assert_eq!(grouped_with(&grouped, &grouped[4]), "");
        // Each its own group, or no groups (an older stored answer): nothing to say.
        assert_eq!(people(&[person(1), person(2)]), None);
        assert_eq!(people(&[entry(None, "individual")]), None);
        assert_eq!(people(&[]), None);
    }
}
