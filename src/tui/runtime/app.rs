//! The app loop: actions in, `update`, effects out, draw when something changed.

use crate::tui::draw;
use crate::tui::model::action::Action;
use crate::tui::model::state::AppState;
use crate::tui::runtime::TuiLaunch;
use crate::tui::runtime::effects::{Effect, EffectCtx, run_blocking};
use crate::tui::runtime::terminal::{self, Guard};
use crate::tui::update::{open_session, quiet, update};
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

/// Initial state and effects for a launch (also used by tests).
pub fn init(
    launch: &TuiLaunch,
    now_ms: i64,
    size: (u16, u16),
) -> (AppState, Vec<Effect>, EffectCtx) {
    let mut state = AppState::new(now_ms, size);
    state.demo = launch.demo;
    state.no_color = launch.no_color;
    state.open_on_load = launch.open.clone();
    state.session_only = launch.session_only;
    state.status.info = launch.notice.clone();
    let ctx = EffectCtx {
        loader: launch.loader.clone(),
        named_loader: launch.named_loader.clone(),
        demo: launch.demo,
        demo_now_ms: now_ms,
        logs: std::sync::Arc::new(launch.logs.clone()),
        ..EffectCtx::default()
    };
    let mut fx = Vec::new();
    match &launch.file {
        Some(file) => {
            state.bare_file = true;
            state.stack.clear();
            let source = crate::source::transcript_file::TranscriptFile::new(file.clone());
            let reference = source.reference();
            let session = crate::source::SessionHandle::new(std::sync::Arc::new(source), reference);
            let label = file.display().to_string();
            let mut row = crate::tui::model::view::SessionRow::new(
                crate::tui::runtime::store_adapter::bare_row(None),
                Some(session.clone()),
            );
            row.transcript = Some(label.clone());
            open_session(&mut state, row, session, label, &mut fx);
        }
        None => {
            // Launched on a session the source can read alone: its screen first, the list
            // behind it.
            if launch.open.is_some() && launch.named_loader.is_some() {
                fx.push(Effect::LoadNamed);
                // The 2,000 rows of a large host are read once its first screen is up: an
                // operator who named a session waits for that one (issue 31).
                state.sessions.deferred = crate::tui::model::state::Deferred::Named;
            } else {
                state.sessions.request_load(&mut fx);
            }
        }
    }
    (state, fx, ctx)
}

struct Runner {
    tx: UnboundedSender<Action>,
    ctx: EffectCtx,
}

impl Runner {
    /// Starts the effects; hands back the external edits, which the loop runs itself with
    /// the terminal handed over to the editor (see [`edit_suspended`]).
    #[must_use]
    fn run(&self, effects: Vec<Effect>) -> Vec<Effect> {
        let mut edits = Vec::new();
        for e in effects {
            match e {
                Effect::ExternalEdit { .. } => edits.push(e),
                Effect::Watch(paths) => self.ctx.files.set(paths),
                Effect::Generate {
                    dialog,
                    generation,
                    model,
                    cancel,
                    job,
                } => {
                    // Network: an async task; progress and the result come back as actions.
                    let tx = self.tx.clone();
                    let opts = self.ctx.client.clone();
                    tokio::spawn(crate::tui::runtime::effects::run_generation(
                        dialog, generation, *model, cancel, *job, opts, tx,
                    ));
                }
                Effect::GatewayCompact {
                    dialog,
                    generation,
                    cancel,
                    job,
                } => {
                    let tx = self.tx.clone();
                    tokio::spawn(crate::tui::runtime::effects::run_gateway_compaction(
                        dialog, generation, cancel, *job, tx,
                    ));
                }
                other => {
                    // Noted here, in dispatch order: the threads may start in any order.
                    crate::tui::runtime::effects::dispatched(&other, &self.ctx);
                    let tx = self.tx.clone();
                    let ctx = self.ctx.clone();
                    tokio::task::spawn_blocking(move || {
                        if let Some(a) = run_blocking(other, &ctx) {
                            // The loop may be gone when quitting; nothing to report then.
                            let _ = tx.send(a);
                        }
                    });
                }
            }
        }
        edits
    }
}

/// Runs an external edit with the TUI suspended: the input task stops first (it would
/// otherwise read the keys meant for the editor), the terminal leaves raw mode and the
/// alternate screen, the editor runs on a blocking thread while the loop waits (nothing is
/// drawn meanwhile), then the terminal is taken back, cleared for a full redraw, and input
/// resumes. The result comes back as an action like every effect's.
async fn edit_suspended(
    edit: Effect,
    runner: &Runner,
    term: &mut terminal::Term,
    mouse: bool,
    input: &mut (CancellationToken, tokio::task::JoinHandle<()>),
    app_cancel: &CancellationToken,
) {
    input.0.cancel();
    let _ = (&mut input.1).await;
    terminal::restore(mouse);
    let ctx = runner.ctx.clone();
    let action = tokio::task::spawn_blocking(move || run_blocking(edit, &ctx))
        .await
        .ok()
        .flatten();
    if let Err(e) = terminal::resume(term, mouse) {
        let _ = runner.tx.send(Action::Error(format!(
            "taking the terminal back failed: {e}"
        )));
    }
    let token = app_cancel.child_token();
    *input = (
        token.clone(),
        terminal::spawn_events(runner.tx.clone(), token),
    );
    if let Some(a) = action {
        let _ = runner.tx.send(a);
    }
}

/// Polls the watched files every second (on a blocking thread: stat calls are disk work);
/// reports changes. What counts as a change is [`crate::tui::runtime::watch::FileWatch::poll`]'s.
fn spawn_watcher(
    files: crate::tui::runtime::watch::FileWatch,
    tx: UnboundedSender<Action>,
    cancel: CancellationToken,
) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => break,
                _ = tick.tick() => {}
            }
            let files = files.clone();
            let Ok(changed) = tokio::task::spawn_blocking(move || files.poll()).await else {
                break;
            };
            if !changed.is_empty() && tx.send(Action::FilesChanged(changed)).is_err() {
                break;
            }
        }
    });
}

pub async fn run(launch: TuiLaunch) -> anyhow::Result<()> {
    let mut signals = terminal::Signals::install()?;
    let mut term = terminal::enter(launch.mouse)?;
    let _guard = Guard {
        mouse: launch.mouse,
    };
    let size = term.size()?;
    let now = chrono::Utc::now().timestamp_millis();
    let (mut state, initial, ctx) = init(&launch, now, (size.width, size.height));
    let (tx, mut rx) = unbounded_channel();
    let cancel = CancellationToken::new();
    let input_token = cancel.child_token();
    let mut input = (
        input_token.clone(),
        terminal::spawn_events(tx.clone(), input_token),
    );
    spawn_watcher(ctx.files.clone(), tx.clone(), cancel.clone());
    // Pushed changes (a Gateway's session events) arrive as actions like any other; sources
    // that push nothing answer false and stay polled.
    if let Some(source) = &launch.live {
        let push = tx.clone();
        // The marker appears when the source first says the channel is up.
        source.subscribe(Box::new(move |c| {
            let _ = push.send(Action::SourceChanged(c));
        }));
    }
    let runner = Runner { tx, ctx };
    let mut edits = runner.run(initial);
    let mut dirty = true;
    let mut draw_failures = 0;
    loop {
        if dirty {
            // Synchronized update: the terminal shows the frame at once, which matters over ssh.
            let _ = crossterm::execute!(
                std::io::stdout(),
                crossterm::terminal::BeginSynchronizedUpdate
            );
            let res = term.draw(|f| draw::draw(f, &state));
            let _ = crossterm::execute!(
                std::io::stdout(),
                crossterm::terminal::EndSynchronizedUpdate
            );
            match res {
                Ok(_) => draw_failures = 0,
                Err(e) if draw_failures == 0 => {
                    draw_failures += 1;
                    edits.extend(runner.run(update(
                        &mut state,
                        Action::Error(format!("drawing failed: {e}")),
                    )));
                }
                Err(e) => {
                    cancel.cancel();
                    return Err(e.into());
                }
            }
            dirty = false;
        }
        if !edits.is_empty() {
            for e in std::mem::take(&mut edits) {
                edit_suspended(e, &runner, &mut term, launch.mouse, &mut input, &cancel).await;
            }
            dirty = true;
            continue;
        }
        let first = tokio::select! {
            a = rx.recv() => a,
            sig = signals.recv() => {
                cancel.cancel();
                return Err(terminal::EndedBySignal(sig).into());
            }
        };
        let Some(first) = first else { break };
        // Drain everything pending before the next draw: one frame per burst of input.
        let mut batch = vec![first];
        while let Ok(a) = rx.try_recv() {
            batch.push(a);
        }
        for a in batch {
            dirty |= !quiet(&state, &a);
            edits.extend(runner.run(update(&mut state, a)));
        }
        if state.should_quit {
            break;
        }
    }
    cancel.cancel();
    Ok(())
}
