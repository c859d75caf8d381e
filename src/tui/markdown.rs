//! Markdown (brief bodies) to styled, terminal-safe lines: headings stand out, emphasis and
//! code are styled, list items get a bullet or their number, a link keeps its address after
//! its text, a quote a bar; raw HTML is shown as text. Every piece of text is sanitised.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::text::sanitize;
use super::theme;

/// The lines of `markdown`, styled.
pub fn lines(markdown: &str) -> Vec<Line<'static>> {
    let mut w = Writer::default();
    for event in Parser::new_ext(markdown, Options::ENABLE_STRIKETHROUGH) {
        w.event(event);
    }
    w.flush();
    while w.lines.last().is_some_and(|l| l.spans.is_empty()) {
        w.lines.pop();
    }
    w.lines
}

#[derive(Default)]
struct Writer {
    lines: Vec<Line<'static>>,
    spans: Vec<Span<'static>>,
    /// Bold, italic, code, heading: the style of the text now.
    styles: Vec<Style>,
    /// One entry per open list: the next number of an ordered list.
    lists: Vec<Option<u64>>,
    quote: usize,
    /// Link addresses, shown after the link's text.
    links: Vec<String>,
}

impl Writer {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::default(), |acc, s| acc.patch(*s))
    }

    fn text(&mut self, text: &str) {
        if self.spans.is_empty() && self.quote > 0 {
            self.spans.push(Span::raw("│ ".repeat(self.quote)));
        }
        let style = self.style();
        self.spans.push(Span::styled(sanitize(text), style));
    }

    fn flush(&mut self) {
        if !self.spans.is_empty() {
            self.lines.push(Line::from(std::mem::take(&mut self.spans)));
        }
    }

    /// Ends a block: its line, then one blank line (never two).
    fn block_end(&mut self) {
        self.flush();
        if self.lines.last().is_some_and(|l| !l.spans.is_empty()) && self.lists.is_empty() {
            self.lines.push(Line::default());
        }
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                self.styles.push(theme::accent());
                self.text(&t);
                self.styles.pop();
            }
            Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.lines.push(Line::from("────────"));
            }
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                let mut style = theme::accent().add_modifier(Modifier::BOLD);
                if level != HeadingLevel::H1 {
                    style = theme::accent();
                }
                self.styles.push(style);
            }
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::CodeBlock(_) => {
                self.flush();
                self.styles.push(theme::accent());
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quote += 1;
            }
            Tag::List(first) => {
                self.flush();
                self.lists.push(first);
            }
            Tag::Item => self.item(),
            Tag::Link { dest_url, .. } => self.links.push(dest_url.to_string()),
            _ => {}
        }
    }

    /// A list item: indented by its depth, with a bullet or its number.
    fn item(&mut self) {
        self.flush();
        let depth = self.lists.len().saturating_sub(1);
        let marker = match self.lists.last_mut() {
            Some(Some(n)) => {
                let m = format!("{n}. ");
                *n += 1;
                m
            }
            _ => "• ".to_owned(),
        };
        self.spans
            .push(Span::raw(format!("{}{marker}", "  ".repeat(depth))));
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) | TagEnd::CodeBlock => {
                self.styles.pop();
                self.block_end();
            }
            TagEnd::Strong | TagEnd::Emphasis | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Paragraph => self.block_end(),
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.block_end();
            }
            TagEnd::Item => self.flush(),
            TagEnd::Link => {
                if let Some(url) = self.links.pop() {
                    self.text(&format!(" ({url})"));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    fn plain(markdown: &str) -> Vec<String> {
        super::lines(markdown)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn markup_is_drawn_not_shown() {
        let md = "# Title\n\nSome **bold** and `code`.\n\n## Added (2)\n\n- One (`un:1`)\n- Two\n\n[Read at the source](https://example.org/x)\n";
        assert_eq!(
            plain(md),
            [
                "Title",
                "",
                "Some bold and code.",
                "",
                "Added (2)",
                "",
                "• One (un:1)",
                "• Two",
                "",
                "Read at the source (https://example.org/x)",
            ]
        );
    }

    #[test]
    fn escapes_and_controls_never_reach_the_terminal() {
        let text = plain("# \u{1b}]52;c;x\u{7}\n\n1. a\u{202e}b\n2. <b>c</b>\n");
        assert!(text.iter().all(|l| !l.contains('\u{1b}')), "{text:?}");
        assert_eq!(text[2], "1. ab");
        assert!(text[3].starts_with("2. "), "{text:?}");
    }
}
