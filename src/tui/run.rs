//! The terminal side: raw mode, alternate screen and bracketed paste on and off, and the one
//! `tokio::select!` loop over key events, service results and (only while work runs) the
//! spinner tick. A frame is drawn only after something changed.

use std::io::{self, Stdout};
use std::time::Duration;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, Event, EventStream,
    KeyEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::action::Action;
use super::app::App;
use super::view;

/// Puts the terminal back as it was (also called by the panic hook); harmless when the UI
/// never started.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// Mouse reporting of presses, releases, drags and the wheel only (`?1000h`, `?1002h`, SGR
/// `?1006h`): not crossterm's `EnableMouseCapture`, whose `?1003h` reports every motion of
/// the pointer, a stream of bytes over SSH for nothing the UI uses.
pub struct EnableClicksAndDrags;

/// The bytes [`EnableClicksAndDrags`] writes.
pub const CLICKS_AND_DRAGS: &str = "\x1b[?1000h\x1b[?1002h\x1b[?1006h";

impl crossterm::Command for EnableClicksAndDrags {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str(CLICKS_AND_DRAGS)
    }
}

/// Runs the UI on the real terminal until the user quits.
pub async fn run(mut app: App) -> io::Result<()> {
    enable_raw_mode()?;
    let mut terminal = match setup(app.state.mouse) {
        Ok(t) => t,
        Err(e) => {
            restore();
            return Err(e);
        }
    };
    let result = event_loop(&mut terminal, &mut app).await;
    restore();
    result
}

fn setup(mouse: bool) -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
    let mut stdout = io::stdout();
    execute!(stdout, EnterAlternateScreen, EnableBracketedPaste)?;
    if mouse {
        execute!(stdout, EnableClicksAndDrags)?;
    }
    Terminal::new(CrosstermBackend::new(stdout))
}

async fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
) -> io::Result<()> {
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(120));
    let period = Duration::from_secs(super::update::POLL_SECS);
    let mut poll = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut dirty = true;
    loop {
        if dirty {
            terminal.draw(|frame| view::render(frame, &app.state))?;
            dirty = false;
        }
        if let Some(text) = app.state.clipboard.take() {
            // OSC 52: the terminal (also over SSH, and tmux with set-clipboard) copies it.
            use std::io::Write;
            let mut out = io::stdout();
            out.write_all(super::filter::osc52(&text).as_bytes())?;
            out.flush()?;
        }
        if app.state.quit {
            return Ok(());
        }
        let busy = app.state.busy();
        tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) if key.kind == KeyEventKind::Press => {
                    app.handle(Action::Key(key));
                    dirty = true;
                }
                Some(Ok(Event::Paste(text))) => {
                    app.handle(Action::Paste(text));
                    dirty = true;
                }
                Some(Ok(Event::Mouse(event))) => {
                    let size = terminal.size()?;
                    app.handle(Action::Mouse { event, width: size.width, height: size.height });
                    dirty = true;
                }
                Some(Ok(Event::Resize(..))) => {
                    terminal.autoresize()?;
                    dirty = true;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
            Some(action) = app.next() => {
                app.handle(action);
                dirty = true;
            }
            _ = tick.tick(), if busy => {
                app.handle(Action::Tick);
                dirty = true;
            }
            _ = poll.tick() => {
                app.handle(Action::Poll);
                // Redrawn only when the tick started work (the spinner shows it).
                dirty = app.state.busy();
            }
        }
    }
}
