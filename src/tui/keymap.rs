//! The keymap: the one table of keys. Key handling, the help overlay, the status-bar hints
//! and the README's key table are all generated from [`BINDINGS`].

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::tab::Tab;

/// What a key asks for. Which commands apply depends on the [`Scope`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Quit,
    Help,
    Back,
    NextTab,
    PrevTab,
    GoTab(usize),
    FocusNext,
    FocusPrev,
    Up,
    Down,
    Top,
    Bottom,
    /// Enter: run, store, open or confirm, depending on the focus.
    Activate,
    ToggleType,
    ThresholdUp,
    ThresholdDown,
    History,
    FalsePositive,
    TrueMatch,
    Escalate,
    /// The same three for the whole screening rather than one match.
    FalsePositiveAll,
    TrueMatchAll,
    EscalateAll,
    AddToWatchlist,
    Refresh,
    Add,
    Remove,
    Rescreen,
    Acknowledge,
    Resolve,
    CycleStatus,
    Load,
    ToggleHits,
    Sort,
    /// `/`: filter the table by words.
    Filter,
    /// `y`: copy the selected name or id (OSC 52).
    Copy,
    CycleList,
    Fetch,
    Edit,
    Toggle,
    Test,
    Export,
    Import,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere, also while a text field has focus (only non-printable keys).
    Global,
    /// Everywhere except in a text field (printable keys would be typed instead).
    Navigation,
    /// On one tab, outside text fields.
    Tab(Tab),
}

/// One key and what it does where.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub code: KeyCode,
    pub mods: KeyModifiers,
    pub scope: Scope,
    pub command: Command,
    /// Shown in the help overlay, the hints and the README.
    pub help: &'static str,
}

const fn bind(
    code: KeyCode,
    mods: KeyModifiers,
    scope: Scope,
    command: Command,
    help: &'static str,
) -> Binding {
    Binding {
        code,
        mods,
        scope,
        command,
        help,
    }
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
use Command as C;
use KeyCode as K;
use Scope as S;

/// Every key of the program.
pub const BINDINGS: &[Binding] = &[
    bind(K::Char('c'), CTRL, S::Global, C::Quit, "quit"),
    bind(K::Char('q'), NONE, S::Navigation, C::Quit, "quit"),
    bind(K::F(1), NONE, S::Global, C::Help, "help for this tab"),
    bind(
        K::Char('?'),
        NONE,
        S::Navigation,
        C::Help,
        "help for this tab",
    ),
    bind(K::Esc, NONE, S::Global, C::Back, "back out (never quits)"),
    bind(K::Char(']'), NONE, S::Navigation, C::NextTab, "next tab"),
    bind(
        K::Char('['),
        NONE,
        S::Navigation,
        C::PrevTab,
        "previous tab",
    ),
    bind(K::Char('1'), NONE, S::Navigation, C::GoTab(0), "Screen tab"),
    bind(K::Char('2'), NONE, S::Navigation, C::GoTab(1), "Batch tab"),
    bind(K::Char('3'), NONE, S::Navigation, C::GoTab(2), "Briefs tab"),
    bind(K::Char('4'), NONE, S::Navigation, C::GoTab(3), "Lists tab"),
    bind(
        K::Char('5'),
        NONE,
        S::Navigation,
        C::GoTab(4),
        "Watchlist tab",
    ),
    bind(K::Char('6'), NONE, S::Navigation, C::GoTab(5), "Alerts tab"),
    bind(
        K::Char('7'),
        NONE,
        S::Navigation,
        C::GoTab(6),
        "Webhooks tab",
    ),
    bind(K::Tab, NONE, S::Global, C::FocusNext, "next field"),
    bind(K::BackTab, SHIFT, S::Global, C::FocusPrev, "previous field"),
    bind(K::Up, NONE, S::Global, C::Up, "move up"),
    bind(K::Down, NONE, S::Global, C::Down, "move down"),
    bind(K::Char('k'), NONE, S::Navigation, C::Up, "move up"),
    bind(K::Char('j'), NONE, S::Navigation, C::Down, "move down"),
    bind(K::Char('g'), NONE, S::Navigation, C::Top, "first row"),
    bind(
        K::Char('/'),
        NONE,
        S::Navigation,
        C::Filter,
        "filter the table by words",
    ),
    bind(
        K::Char('y'),
        NONE,
        S::Navigation,
        C::Copy,
        "copy the selected name or id",
    ),
    bind(K::Char('G'), SHIFT, S::Navigation, C::Bottom, "last row"),
    bind(
        K::Enter,
        NONE,
        S::Global,
        C::Activate,
        "run, open or confirm",
    ),
    bind(
        K::Char('t'),
        CTRL,
        S::Tab(Tab::Screen),
        C::ToggleType,
        "type: any / individual / entity",
    ),
    bind(
        K::PageUp,
        NONE,
        S::Tab(Tab::Screen),
        C::ThresholdUp,
        "threshold +5",
    ),
    bind(
        K::PageDown,
        NONE,
        S::Tab(Tab::Screen),
        C::ThresholdDown,
        "threshold -5",
    ),
    bind(
        K::Char('r'),
        CTRL,
        S::Tab(Tab::Screen),
        C::History,
        "history of screenings",
    ),
    bind(
        K::Char('f'),
        NONE,
        S::Tab(Tab::Screen),
        C::FalsePositive,
        "decide: false positive (note)",
    ),
    bind(
        K::Char('t'),
        NONE,
        S::Tab(Tab::Screen),
        C::TrueMatch,
        "decide: true match (note)",
    ),
    bind(
        K::Char('e'),
        NONE,
        S::Tab(Tab::Screen),
        C::Escalate,
        "decide: escalate (note)",
    ),
    bind(
        K::Char('F'),
        SHIFT,
        S::Tab(Tab::Screen),
        C::FalsePositiveAll,
        "decide for the whole screening: false positive",
    ),
    bind(
        K::Char('T'),
        SHIFT,
        S::Tab(Tab::Screen),
        C::TrueMatchAll,
        "decide for the whole screening: true match",
    ),
    bind(
        K::Char('E'),
        SHIFT,
        S::Tab(Tab::Screen),
        C::EscalateAll,
        "decide for the whole screening: escalate",
    ),
    bind(
        K::Char('w'),
        NONE,
        S::Tab(Tab::Screen),
        C::AddToWatchlist,
        "add the name to the watchlist",
    ),
    bind(
        K::Char('l'),
        NONE,
        S::Tab(Tab::Batch),
        C::Load,
        "load a CSV, text or JSON file",
    ),
    bind(
        K::Char('h'),
        NONE,
        S::Tab(Tab::Batch),
        C::ToggleHits,
        "show hits only / all rows",
    ),
    bind(
        K::Char('s'),
        NONE,
        S::Tab(Tab::Batch),
        C::Sort,
        "sort: input order / best score",
    ),
    bind(
        K::Char('x'),
        NONE,
        S::Tab(Tab::Batch),
        C::Export,
        "export the rows shown (.csv or .json)",
    ),
    bind(K::Char('r'), NONE, S::Tab(Tab::Lists), C::Refresh, "reload"),
    bind(
        K::Char('u'),
        NONE,
        S::Tab(Tab::Lists),
        C::Fetch,
        "download from the publishers (once [ui] downloads = true)",
    ),
    bind(
        K::Char('i'),
        NONE,
        S::Tab(Tab::Lists),
        C::Import,
        "import from a folder (Tab completes)",
    ),
    bind(
        K::Char('i'),
        NONE,
        S::Tab(Tab::Watchlist),
        C::Import,
        "import names from a file",
    ),
    bind(
        K::Char('a'),
        NONE,
        S::Tab(Tab::Watchlist),
        C::Add,
        "add a name",
    ),
    bind(
        K::Char('d'),
        NONE,
        S::Tab(Tab::Watchlist),
        C::Remove,
        "remove (asks first)",
    ),
    bind(
        K::Char('s'),
        NONE,
        S::Tab(Tab::Watchlist),
        C::Rescreen,
        "re-screen the watchlist now",
    ),
    bind(
        K::Char('r'),
        NONE,
        S::Tab(Tab::Watchlist),
        C::Refresh,
        "reload",
    ),
    bind(
        K::Char(' '),
        NONE,
        S::Tab(Tab::Alerts),
        C::Toggle,
        "select / unselect (a and x then act on all selected)",
    ),
    bind(
        K::Char('a'),
        NONE,
        S::Tab(Tab::Alerts),
        C::Acknowledge,
        "acknowledge (the selected, or this row; one note)",
    ),
    bind(
        K::Char('x'),
        NONE,
        S::Tab(Tab::Alerts),
        C::Resolve,
        "resolve (the selected, or this row; one note)",
    ),
    bind(
        K::Char('s'),
        NONE,
        S::Tab(Tab::Alerts),
        C::CycleStatus,
        "filter: open / acknowledged / resolved / all",
    ),
    bind(
        K::Char('r'),
        NONE,
        S::Tab(Tab::Alerts),
        C::Refresh,
        "reload",
    ),
    bind(
        K::Char('l'),
        NONE,
        S::Tab(Tab::Briefs),
        C::CycleList,
        "filter: next list / all",
    ),
    bind(
        K::Char('u'),
        NONE,
        S::Tab(Tab::Briefs),
        C::Fetch,
        "fetch new briefs now",
    ),
    bind(
        K::Char('r'),
        NONE,
        S::Tab(Tab::Briefs),
        C::Refresh,
        "reload",
    ),
    bind(
        K::Char('a'),
        NONE,
        S::Tab(Tab::Webhooks),
        C::Add,
        "add (URL, then events)",
    ),
    bind(
        K::Char('e'),
        NONE,
        S::Tab(Tab::Webhooks),
        C::Edit,
        "edit URL and events",
    ),
    bind(
        K::Char(' '),
        NONE,
        S::Tab(Tab::Webhooks),
        C::Toggle,
        "enable / disable",
    ),
    bind(
        K::Char('t'),
        NONE,
        S::Tab(Tab::Webhooks),
        C::Test,
        "send a test event",
    ),
    bind(
        K::Char('d'),
        NONE,
        S::Tab(Tab::Webhooks),
        C::Remove,
        "delete (asks first)",
    ),
    bind(
        K::Char('r'),
        NONE,
        S::Tab(Tab::Webhooks),
        C::Refresh,
        "reload",
    ),
];

/// The keys in force: [`BINDINGS`] with the config's remaps (see [`super::remap`]).
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: BINDINGS.to_vec(),
        }
    }
}

impl Keymap {
    /// A keymap of exactly these bindings.
    pub fn new(bindings: Vec<Binding>) -> Keymap {
        Keymap { bindings }
    }

    /// Every binding in force.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The command of `key` on `tab`; `in_text` when a text field has focus (then only
    /// [`Scope::Global`] keys are commands, every other key is typed).
    pub fn lookup(&self, key: KeyEvent, tab: Tab, in_text: bool) -> Option<Command> {
        let mods = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        self.bindings
            .iter()
            .filter(|b| match b.scope {
                Scope::Global => true,
                Scope::Navigation => !in_text,
                Scope::Tab(t) => {
                    t == tab && (!in_text || b.mods.contains(CTRL) || !is_char(b.code))
                }
            })
            .find(|b| b.code == key.code && (b.mods & (CTRL | KeyModifiers::ALT)) == mods)
            .map(|b| b.command)
    }

    /// The bindings shown for `tab`: the tab's own first, then the common ones.
    pub fn for_tab(&self, tab: Tab) -> impl Iterator<Item = &Binding> {
        let own = self
            .bindings
            .iter()
            .filter(move |b| b.scope == Scope::Tab(tab));
        let common = self
            .bindings
            .iter()
            .filter(|b| matches!(b.scope, Scope::Global | Scope::Navigation));
        own.chain(common)
    }

    /// Short hints for the status bar: the tab's own keys.
    pub fn hints(&self, tab: Tab) -> String {
        let mut parts: Vec<String> = self
            .bindings
            .iter()
            .filter(|b| b.scope == Scope::Tab(tab))
            .map(|b| {
                format!(
                    "{} {}",
                    key_name(b),
                    b.help.split('(').next().unwrap_or("").trim()
                )
            })
            .collect();
        let help = self
            .bindings
            .iter()
            .find(|b| b.command == Command::Help && b.scope != Scope::Global)
            .or_else(|| self.bindings.iter().find(|b| b.command == Command::Help));
        if let Some(help) = help {
            parts.push(format!("{} help", key_name(help)));
        }
        parts.join(" · ")
    }
}

/// The command of `key` on `tab` with the default keys (see [`Keymap::lookup`]).
pub fn lookup(key: KeyEvent, tab: Tab, in_text: bool) -> Option<Command> {
    Keymap::default().lookup(key, tab, in_text)
}

fn is_char(code: KeyCode) -> bool {
    matches!(code, KeyCode::Char(_))
}

/// How a key is written in help and the README.
pub fn key_name(b: &Binding) -> String {
    let base = match b.code {
        K::Char(' ') => "Space".to_owned(),
        K::Char(c) => c.to_string(),
        K::F(n) => format!("F{n}"),
        K::Esc => "Esc".into(),
        K::Tab => "Tab".into(),
        K::BackTab => "Shift-Tab".into(),
        K::Up => "Up".into(),
        K::Down => "Down".into(),
        K::Enter => "Enter".into(),
        K::PageUp => "PgUp".into(),
        K::PageDown => "PgDn".into(),
        K::Left => "Left".into(),
        K::Right => "Right".into(),
        K::Home => "Home".into(),
        K::End => "End".into(),
        K::Backspace => "Backspace".into(),
        K::Delete => "Delete".into(),
        other => format!("{other:?}"),
    };
    if b.mods.contains(CTRL) {
        format!("Ctrl-{}", base.to_uppercase())
    } else if b.mods.contains(KeyModifiers::ALT) {
        format!("Alt-{base}")
    } else {
        base
    }
}

/// The README's key table (Markdown), generated from [`BINDINGS`].
pub fn markdown_table() -> String {
    let mut out =
        String::from("| Key | Where | Does | Action (`[ui.keys]`) |\n| --- | --- | --- | --- |\n");
    for b in BINDINGS {
        let scope = match b.scope {
            Scope::Global => "everywhere".to_owned(),
            Scope::Navigation => "outside text fields".to_owned(),
            Scope::Tab(t) => format!("{} tab", t.title()),
        };
        let key = key_name(b).replace('|', "\\|");
        out.push_str(&format!(
            "| `{key}` | {scope} | {} | `{}` |\n",
            b.help,
            command_name(b.command)
        ));
    }
    out
}

/// The name of `command` in `[ui.keys]` and the README (`quit`, `next_tab`, `tab_4`, ...).
pub fn command_name(command: Command) -> String {
    if let Command::GoTab(i) = command {
        return format!("tab_{}", i + 1);
    }
    let debug = format!("{command:?}");
    let mut name = String::new();
    for (i, c) in debug.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}
