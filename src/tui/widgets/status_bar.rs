//! The status bar: mode, data freshness, open alerts, index and spinner on the first line;
//! the latest message (errors never block) or the tab's key hints on the second.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::state::{IndexState, Message, State};
use crate::tui::text::fit;
use crate::tui::theme;

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Draws the two status lines into `area`.
pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let st = &state.status;
    let mut spans = vec![
        Span::styled(format!(" {} ", st.mode), theme::badge()),
        Span::styled(format!(" {} ", state.mode_label()), theme::accent()),
    ];
    let data = match &st.freshness {
        // A remote server's text: cut on a character boundary, sanitised.
        Some(at) => {
            let day: String = crate::tui::text::sanitize(at).chars().take(10).collect();
            format!(" data {day} ")
        }
        None if state.lists.loaded && state.lists.lists.iter().all(|l| l.count == 0) => {
            " NO DATA: see Lists (4) ".to_owned()
        }
        None => " data … ".to_owned(),
    };
    spans.push(Span::raw(data));
    if let Some(warning) = crate::tui::coverage::status_warning(&state.lists.lists, state.now) {
        spans.push(Span::styled(format!("│ {warning} "), theme::warn()));
    }
    if let Some(limit) = st.rate_limit {
        let text = format!("│ {}/{} requests left ", limit.remaining, limit.limit);
        if limit.remaining * 10 < limit.limit {
            // Said in words too: the colour is not the only sign.
            spans.push(Span::styled(format!("{text}LOW "), theme::warn()));
        } else {
            spans.push(Span::raw(text));
        }
    }
    match st.open_alerts {
        Some((0, _)) => spans.push(Span::raw("│ no open alerts ")),
        Some((n, more)) => spans.push(Span::styled(
            format!("│ {n}{} OPEN ALERTS ", if more { "+" } else { "" }),
            theme::warn(),
        )),
        None => {}
    }
    match &st.index {
        IndexState::Building => spans.push(Span::raw("│ index building… ")),
        IndexState::Ready => {}
        IndexState::Failed(e) => spans.push(Span::styled(format!("│ index: {e} "), theme::error())),
    }
    if state.busy() {
        spans.push(Span::raw(format!(
            "│ {} working ",
            SPINNER[st.spinner % SPINNER.len()]
        )));
    }
    let width = area.width as usize;
    let second = match &st.message {
        Some(Message::Error(e)) => Line::from(Span::styled(
            fit(&format!(" ✗ {e}  (Esc hides)"), width),
            theme::error(),
        )),
        Some(Message::Info(m)) => Line::from(Span::raw(fit(&format!(" ✓ {m}"), width))),
        None => Line::from(Span::styled(
            fit(&format!(" {}", state.keys.hints(state.tab)), width),
            Style::default().add_modifier(Modifier::DIM),
        )),
    };
    frame.render_widget(Paragraph::new(vec![Line::from(spans), second]), area);
}
