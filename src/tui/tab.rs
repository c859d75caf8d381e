//! The seven tabs: a leaf, named by the keymap, the state, the pages and the queue.

/// The seven tabs, in the order of their number keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    Screen,
    Batch,
    Briefs,
    Lists,
    Watchlist,
    Alerts,
    Webhooks,
}

impl Tab {
    /// Every tab in order.
    pub const ALL: [Tab; 7] = [
        Tab::Screen,
        Tab::Batch,
        Tab::Briefs,
        Tab::Lists,
        Tab::Watchlist,
        Tab::Alerts,
        Tab::Webhooks,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Screen => "Screen",
            Tab::Batch => "Batch",
            Tab::Briefs => "Briefs",
            Tab::Lists => "Lists",
            Tab::Watchlist => "Watchlist",
            Tab::Alerts => "Alerts",
            Tab::Webhooks => "Webhooks",
        }
    }

    /// Position in [`Tab::ALL`].
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }
}

impl Tab {
    /// Whether `/` filters this tab's table.
    pub fn filterable(self) -> bool {
        matches!(
            self,
            Tab::Briefs | Tab::Batch | Tab::Lists | Tab::Watchlist | Tab::Alerts | Tab::Webhooks
        )
    }
}
