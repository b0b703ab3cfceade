//! `clawtop --hosts FILE`: the fleet TUI. A Fleet screen (one row per host) above a Sessions
//! screen spanning the hosts; Enter on a session hands the terminal to clawtop on that
//! session's host (`ssh -t DEST clawtop KEY`) and the fleet comes back when it exits.
//!
//! Same skeleton as the single-host TUI: its state is [`crate::tui::model::fleet`],
//! [`fleet_update::update`] is pure and returns effects, [`draw::draw`] is a pure function of
//! the state, the fleet modes of the one keymap ([`crate::tui::model::keymap`]) drive keys,
//! hints and help; this is its runtime. Host reads run on their own threads (each bounded by
//! its host's deadline, see [`crate::fleet`]), so a slow host never holds a frame; the 1 s
//! clock of
//! [`crate::tui::runtime::terminal::spawn_events`] decides when a host is due again.
//!
//! A remote session's details (transcript, summaries, compaction, flush) are not copied
//! here: they are read and acted on by the host's own clawtop, which checks everything it
//! checks locally. Local and gateway hosts are opened with this clawtop the same way.

use crate::fleet::hosts::HostSpec;
use crate::tui::draw::fleet as draw;
use crate::tui::model::action::Action;
use crate::tui::model::fleet::{self as state, FleetAction, FleetEffect, FleetState};
use crate::tui::runtime::terminal::{self, Guard};
use crate::tui::update::fleet::{self as fleet_update, update};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

/// Runs the fleet TUI until the operator quits. Blocks; builds its own tokio runtime.
pub fn run(hosts: Vec<HostSpec>, home: Option<PathBuf>) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let out = rt.block_on(run_async(hosts, home));
    // Host reads still running are bounded by their deadlines; do not wait for them.
    rt.shutdown_background();
    out
}

/// Runs `fx`: reads on threads, reporting back on `tx`; returns the hand-overs, which the
/// loop runs with the terminal suspended.
fn start(
    fx: Vec<FleetEffect>,
    state: &FleetState,
    home: &Arc<Option<PathBuf>>,
    tx: &UnboundedSender<FleetAction>,
) -> Vec<(String, Vec<String>)> {
    let mut opens = Vec::new();
    for e in fx {
        match e {
            FleetEffect::Read(index) => {
                let spec = state.hosts[index].spec.clone();
                let (tx, home) = (tx.clone(), home.clone());
                std::thread::spawn(move || {
                    let result = crate::fleet::read_host_bounded(&spec, home.as_ref().as_deref());
                    let _ = tx.send(FleetAction::HostRead {
                        index,
                        result: Box::new(result),
                    });
                });
            }
            FleetEffect::Open { program, args } => opens.push((program, args)),
        }
    }
    opens
}

async fn run_async(hosts: Vec<HostSpec>, home: Option<PathBuf>) -> anyhow::Result<()> {
    let mut signals = terminal::Signals::install()?;
    let mut term = terminal::enter(false)?;
    let _guard = Guard { mouse: false };
    let this_exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "clawtop".into());
    let mut state = FleetState::new(hosts, chrono::Utc::now().timestamp_millis(), this_exe);
    let home = Arc::new(home);
    let (ftx, mut frx) = unbounded_channel::<FleetAction>();
    let (itx, mut irx) = unbounded_channel::<Action>();
    let cancel = CancellationToken::new();
    let mut input = cancel.child_token();
    let mut input_task = terminal::spawn_events(itx.clone(), input.clone());
    let mut opens = start(fleet_update::init(&mut state), &state, &home, &ftx);
    loop {
        let res = term.draw(|f| draw::draw(f, &state));
        if let Err(e) = res {
            cancel.cancel();
            return Err(e.into());
        }
        for (program, args) in std::mem::take(&mut opens) {
            // The input task would read the keys meant for the host's clawtop: stop it first.
            input.cancel();
            let _ = (&mut input_task).await;
            terminal::restore(false);
            let done = tokio::task::spawn_blocking(move || {
                std::process::Command::new(&program)
                    .args(&args)
                    .status()
                    .map(|s| s.code())
                    .map_err(|source| state::HandOverError::Spawn {
                        program: program.clone(),
                        source,
                    })
            })
            .await
            .unwrap_or_else(|e| Err(e.into()));
            terminal::resume(&mut term, false)?;
            input = cancel.child_token();
            input_task = terminal::spawn_events(itx.clone(), input.clone());
            let fx = update(&mut state, FleetAction::OpenDone(done));
            opens.extend(start(fx, &state, &home, &ftx));
        }
        if !opens.is_empty() {
            continue;
        }
        let action = tokio::select! {
            a = irx.recv() => match a {
                Some(Action::Key(k)) => FleetAction::Key(k),
                Some(Action::Tick { now_ms }) => FleetAction::Tick { now_ms },
                Some(_) => continue,
                None => break,
            },
            a = frx.recv() => match a {
                Some(a) => a,
                None => break,
            },
            sig = signals.recv() => {
                cancel.cancel();
                return Err(terminal::EndedBySignal(sig).into());
            }
        };
        let fx = update(&mut state, action);
        opens.extend(start(fx, &state, &home, &ftx));
        if state.should_quit {
            break;
        }
    }
    cancel.cancel();
    Ok(())
}
