//! The Briefs and Webhooks tabs until their service operations exist: each says plainly
//! that it arrives with the webhooks-and-briefs work, rather than showing made-up data.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::tui::state::Tab;

/// Draws the notice of `tab`.
pub fn draw(frame: &mut Frame, area: Rect, tab: Tab) {
    let what = match tab {
        Tab::Briefs => {
            "Briefs (latest-first news about list changes, with severity, detail and link)"
        }
        _ => "Webhooks (create, edit, enable, test and see the delivery log of HTTP callbacks)",
    };
    let text = format!(
        "{what} arrive with the webhooks-and-briefs work.\n\n\
         The service this program talks to has no such operation yet, so there is nothing to show \
         here: this tab is not a preview and holds no sample data."
    );
    let block = Block::bordered().title(format!(" {} · not available yet ", tab.title()));
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: false }).block(block),
        area,
    );
}
