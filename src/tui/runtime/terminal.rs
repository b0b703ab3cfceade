//! Terminal lifecycle and input: raw mode + alternate screen, a chained panic hook that
//! restores the terminal before the panic message prints, [`Signals`] so that SIGINT,
//! SIGTERM and SIGHUP end the TUI through the same restoring exit path instead of killing
//! it with the terminal raw, and a tokio task turning crossterm events and a clock tick into
//! actions.

use crate::tui::model::action::Action;
use crate::tui::runtime::palette::{self, Sgr16};
use crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyCode, KeyEvent, KeyModifiers,
    MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{Stdout, stdout};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// The terminal; frames go through [`Sgr16`] (16-colour codes when `TERM` lacks 256).
pub type Term = Terminal<CrosstermBackend<Sgr16<Stdout>>>;

/// Restores the terminal; safe to call more than once.
pub fn restore(mouse: bool) {
    if mouse {
        let _ = execute!(stdout(), DisableMouseCapture);
    }
    // Raw mode first: it has more side effects than the alternate screen.
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), LeaveAlternateScreen, crossterm::cursor::Show);
}

/// Enters raw mode and the alternate screen and installs the panic hook.
pub fn enter(mouse: bool) -> anyhow::Result<Term> {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore(mouse);
        prev(info);
    }));
    enable_raw_mode()?;
    let mut out = stdout();
    execute!(out, EnterAlternateScreen)?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    let mut term = Terminal::new(CrosstermBackend::new(Sgr16::new(out, !palette::from_env())))?;
    term.clear()?;
    Ok(term)
}

/// Takes the terminal back after [`restore`] (an external editor ran): raw mode, the
/// alternate screen, and a cleared frame so the next draw repaints everything.
pub fn resume(term: &mut Term, mouse: bool) -> std::io::Result<()> {
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen)?;
    if mouse {
        execute!(stdout(), EnableMouseCapture)?;
    }
    term.clear()
}

/// SIGINT, SIGTERM and SIGHUP, caught. Install them before [`enter`]: from then on none of
/// them can end the process with the terminal in raw mode; the event loop ends instead and
/// the [`Guard`] restores the terminal (in raw mode Ctrl-C is a key, so SIGINT comes only
/// from `kill`; SIGHUP is an ssh connection that dropped).
pub struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    /// Needs a tokio runtime.
    pub fn install() -> std::io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// The next signal's number.
    pub async fn recv(&mut self) -> i32 {
        tokio::select! {
            _ = self.int.recv() => SIGINT,
            _ = self.term.recv() => SIGTERM,
            _ = self.hup.recv() => SIGHUP,
        }
    }
}

/// The TUI ended because of a signal (its number); the terminal was restored. The process
/// should exit with 128 + the number, as a shell reports a signalled child.
#[derive(Debug, thiserror::Error)]
#[error("ended by {} (terminal restored)", signal_name(*.0))]
pub struct EndedBySignal(pub i32);

const SIGINT: i32 = rustix::process::Signal::INT.as_raw();
const SIGTERM: i32 = rustix::process::Signal::TERM.as_raw();
const SIGHUP: i32 = rustix::process::Signal::HUP.as_raw();

fn signal_name(n: i32) -> &'static str {
    match n {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Restores the terminal when dropped (normal exit and `?` errors alike).
pub struct Guard {
    pub mouse: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore(self.mouse);
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Forwards terminal events and a 1 s tick as actions until cancelled.
pub fn spawn_events(
    tx: UnboundedSender<Action>,
    cancel: CancellationToken,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut events = EventStream::new();
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            let action = tokio::select! {
                _ = cancel.cancelled() => break,
                _ = tick.tick() => Some(Action::Tick { now_ms: now_ms() }),
                ev = events.next() => match ev {
                    None => break,
                    Some(Err(e)) => Some(Action::Error(format!("terminal input: {e}"))),
                    Some(Ok(ev)) => map_event(ev),
                },
            };
            if let Some(a) = action {
                if tx.send(a).is_err() {
                    break;
                }
            }
        }
    })
}

fn map_event(ev: Event) -> Option<Action> {
    match ev {
        Event::Key(k) => Some(Action::Key(k)),
        Event::Resize(w, h) => Some(Action::Resize(w, h)),
        // Only with --mouse: the wheel scrolls like the arrow keys.
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => {
                Some(Action::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)))
            }
            MouseEventKind::ScrollDown => Some(Action::Key(KeyEvent::new(
                KeyCode::Down,
                KeyModifiers::NONE,
            ))),
            _ => None,
        },
        _ => None,
    }
}
