//! Effects: the disk work `update` asks for. Each runs off the render path (a blocking tokio
//! task in the app; inline in tests via [`run_blocking`] / [`drive`]) and reports back as an
//! [`Action`].

use crate::compaction::model::GenProgress;
use crate::llm::{CancellationToken, ClientOptions};
use crate::tui::model::action::Action;
use crate::tui::model::dialog::{DialogKind, GenFailure, Generated, ModelInfo, Prep};
use crate::tui::model::rows;
use crate::tui::model::state::AppState;
use crate::tui::model::view::SessionLoader;
use crate::tui::update::update;
use crate::usecase::{self, Problem};
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

pub use crate::tui::model::effect::{
    CommitJob, EditError, Effect, GatewayJob, GenJob, PrepareRequest,
};

/// What effects need from outside the state.
#[derive(Clone, Default)]
pub struct EffectCtx {
    /// None in bare-file mode and demo mode without a store.
    pub loader: Option<SessionLoader>,
    /// The launch's [`crate::tui::runtime::TuiLaunch::named_loader`].
    pub named_loader: Option<crate::tui::model::view::NamedLoader>,
    /// Demo: the loader is replaced by fixed rows.
    pub demo: bool,
    /// "Now" for the demo rows' ages.
    pub demo_now_ms: i64,
    /// Network behaviour of generation (tests shorten the retries).
    pub client: ClientOptions,
    /// Environment lookup for API keys (tests inject one; the app reads the process env).
    pub env: Option<EnvLookup>,
    /// The watched files and their stamps: `Watch` sets them, loads seed them, the app's
    /// watcher (or a test) polls them.
    pub files: crate::tui::runtime::watch::FileWatch,
    /// The launch's [`crate::tui::runtime::TuiLaunch::logs`], read with each transcript's
    /// details.
    pub logs: std::sync::Arc<Vec<std::path::PathBuf>>,
    /// What transcript loads keep of their memory-note and log reads between reloads.
    pub kept: std::sync::Arc<std::sync::Mutex<crate::usecase::history::Kept>>,
    /// The generation of the newest transcript read dispatched ([`dispatched`]): the details
    /// of an older one would be dropped on arrival (the open view has moved on), so their
    /// work is not done (on a 100 MB session, most of a second per superseded read).
    pub newest_read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// Notes what an effect supersedes as it is dispatched, before it runs on a thread of its
/// own: a transcript read makes the details of every older read moot
/// ([`EffectCtx::newest_read`]).
pub fn dispatched(effect: &Effect, ctx: &EffectCtx) {
    if let Effect::OpenTranscript { generation, .. } = effect {
        ctx.newest_read
            .fetch_max(*generation, std::sync::atomic::Ordering::Relaxed);
    }
}

pub use crate::usecase::EnvLookup;

impl EffectCtx {
    /// The environment the effects read (the injected lookup, else the process's).
    pub fn env_lookup(&self) -> EnvLookup {
        self.env.clone().unwrap_or_else(usecase::process_env)
    }

    /// The model choice of the dialogs: the host's config, and the dialog's pick.
    fn model_choice(&self, picked: &crate::llm::ModelOverrides) -> usecase::ModelChoice {
        usecase::ModelChoice {
            overrides: picked.clone(),
            env: self.env.clone().unwrap_or_else(usecase::process_env),
        }
    }
}

/// The audit of an edited draft, for the dialog that asked (edit `seq`).
fn audit_draft(
    dialog: u64,
    seq: u64,
    prep: &crate::usecase::compact::Prepared,
    text: &str,
) -> Action {
    Action::DraftAudited {
        dialog,
        seq,
        audit: Box::new(crate::usecase::compact::audit_draft(prep, text)),
    }
}

/// Runs one effect to completion on the current thread. `Watch` only replaces the polled
/// files and yields nothing.
pub fn run_blocking(effect: Effect, ctx: &EffectCtx) -> Option<Action> {
    // The app noted it at dispatch already; a headless driver runs effects here, in order.
    dispatched(&effect, ctx);
    match effect {
        Effect::LoadSessions => {
            // The built-in rows only when nobody supplied a loader (the store's demo host is a
            // real loader with real transcripts).
            if ctx.demo && ctx.loader.is_none() {
                return Some(Action::SessionsLoaded(Ok(
                    crate::tui::model::view::SessionsSnapshot {
                        rows: crate::tui::model::view::demo_rows(ctx.demo_now_ms),
                        label: "demo data".into(),
                        ..Default::default()
                    },
                )));
            }
            let loader = ctx.loader.as_ref()?;
            // A panicking loader must not take the UI down with it.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader()))
                .unwrap_or(Err(crate::tui::model::view::ReloadError::Panicked));
            if let Ok(snap) = &result {
                ctx.files.seed(&snap.stamps);
            }
            Some(Action::SessionsLoaded(result))
        }
        Effect::LoadNamed => {
            // Only a shortcut: no loader, no row or a panic leave the open to the whole
            // list's load, which the answer starts.
            let snap = ctx.named_loader.as_ref().and_then(|loader| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader()))
                    .ok()
                    .flatten()
            });
            Some(Action::NamedLoaded(snap))
        }
        Effect::Find {
            transcript,
            generation,
            from,
            forward,
            find,
        } => {
            let idx = rows::find(&transcript, from, forward, &find);
            Some(Action::Found {
                generation,
                idx,
                rank: idx.map(|i| rows::rank(&transcript, i, &find)),
                what: find.name(),
            })
        }
        Effect::OpenTranscript {
            session,
            generation,
            keep_recent_tokens,
        } => Some(open_transcript(
            &session,
            generation,
            keep_recent_tokens,
            ctx,
        )),
        Effect::LoadTranscriptDetails {
            session,
            generation,
            transcript,
            keep_recent_tokens,
            basis,
        } => transcript_details(
            &session,
            generation,
            &transcript,
            keep_recent_tokens,
            &basis,
            ctx,
        ),
        Effect::DecodeRows {
            transcript,
            generation,
            indices,
        } => {
            let rows = indices
                .into_iter()
                .filter(|&i| (i as usize) < transcript.len())
                .map(|i| rows::decode_row(&transcript, i))
                .collect();
            Some(Action::RowsDecoded { generation, rows })
        }
        Effect::DecodeDetail {
            transcript,
            generation,
            idx,
        } => {
            if idx as usize >= transcript.len() {
                return None;
            }
            let (title, body) = rows::detail_text(&transcript, idx);
            Some(Action::DetailLoaded {
                generation,
                idx,
                title,
                body,
            })
        }
        Effect::Prepare(req) => Some(prepare(&req, ctx)),
        Effect::AuditDraft {
            dialog,
            seq,
            prep,
            text,
        } => Some(audit_draft(dialog, seq, &prep, &text)),
        Effect::Commit { dialog, job } => Some(Action::Committed {
            dialog,
            result: commit(*job),
        }),
        Effect::Cancel(token) => {
            token.cancel();
            None
        }
        Effect::ExternalEdit {
            dialog,
            target,
            text,
        } => Some(Action::ExternalEdited {
            dialog,
            target,
            result: external_edit(&text, &ctx.env_lookup()),
        }),
        Effect::Watch(paths) => {
            ctx.files.set(paths);
            None
        }
        Effect::ExportSummary {
            transcript,
            idx,
            path,
            overwrite,
            header,
        } => Some(export_summary(&transcript, idx, path, overwrite, &header)),
        Effect::Generate { .. } | Effect::GatewayCompact { .. } => None,
    }
}

/// The first screen of a transcript ([`crate::tui::runtime::transcript::load_first`]); its
/// details follow in their own effect.
fn open_transcript(
    session: &crate::source::SessionHandle,
    generation: u64,
    keep_recent_tokens: u64,
    ctx: &EffectCtx,
) -> Action {
    // Stamped before the read: a line appended while it reads is seen by the poller.
    let stamps = crate::tui::runtime::watch::stamps(&session.transcript_watch());
    let result = crate::tui::runtime::transcript::load_first(session, keep_recent_tokens)
        .map(Box::new)
        .map_err(std::sync::Arc::new);
    ctx.files.seed(&stamps);
    Action::TranscriptLoaded { generation, result }
}

/// The details of a transcript on screen
/// ([`crate::tui::runtime::transcript::load_details`]), for its generation.
fn transcript_details(
    session: &crate::source::SessionHandle,
    generation: u64,
    transcript: &std::sync::Arc<crate::transcript::Transcript>,
    keep_recent_tokens: u64,
    basis: &crate::diagnosis::gather::Basis,
    ctx: &EffectCtx,
) -> Option<Action> {
    let superseded = || ctx.newest_read.load(std::sync::atomic::Ordering::Relaxed) > generation;
    if superseded() {
        return None;
    }
    let mut kept = ctx.kept.lock().unwrap_or_else(|e| e.into_inner());
    let details = crate::tui::runtime::transcript::load_details(
        session,
        transcript,
        keep_recent_tokens,
        basis,
        &ctx.logs,
        &mut kept,
        &superseded,
    )?;
    Some(Action::TranscriptDetailsLoaded {
        generation,
        details: Box::new(details),
    })
}

/// Writes a compaction's summary, read raw from its entry, after `header`.
fn export_summary(
    transcript: &crate::transcript::Transcript,
    idx: u32,
    path: std::path::PathBuf,
    overwrite: bool,
    header: &str,
) -> Action {
    use crate::summary::export::{self, ExportError};
    // `~/` typed in the prompt is the operator's home.
    let path = match path.to_str() {
        Some(typed) => export::typed_path(typed, crate::paths::home().as_deref()),
        None => path,
    };
    // The summary as the entry holds it (the screen shows a sanitized copy).
    let result = match transcript.entry_json(idx) {
        Ok(v) => {
            let summary = v["summary"].as_str().unwrap_or_default();
            export::write(&path, &format!("{header}\n\n{summary}"), overwrite)
        }
        Err(e) => Err(ExportError::Io {
            path: path.clone(),
            why: format!("reading the compaction entry: {e}"),
        }),
    };
    Action::Exported { path, result }
}

fn prepare(req: &PrepareRequest, ctx: &EffectCtx) -> Action {
    let model = ctx.model_choice(&req.model);
    let result = match req.kind {
        DialogKind::Compact => usecase::compact::prepare(
            &req.session,
            &usecase::compact::Options {
                keep_recent_tokens: Some(req.keep_recent_tokens),
                model,
            },
        )
        .map(|c| Box::new(Prep::Compact(Box::new(c)))),
        DialogKind::Flush => usecase::flush::prepare(
            &req.session,
            &usecase::flush::Options {
                workspace: None,
                model,
            },
        )
        .map(|f| Box::new(Prep::Flush(Box::new(f)))),
    };
    Action::DialogPrepared {
        dialog: req.dialog,
        seq: req.seq,
        result,
        models: usecase::model_candidates(&req.session),
    }
}

/// The operator's editor command: `$VISUAL`, then `$EDITOR`, then `vi` (as git and crontab
/// choose it). It may carry arguments (`code --wait`): it is run by `sh`, like git does.
pub fn editor_command(env: &EnvLookup) -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|k| env(k).filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string())
}

/// Writes `text` to a private temporary file (0600, tempfile's default; removed when done,
/// whatever happens), runs the editor on it, waiting, and returns what it left in the file.
/// `Err` (the text stays as it was) when the editor cannot start, exits non-zero, or leaves
/// something that is not UTF-8. Blocks: the app runs it with the TUI suspended.
pub fn external_edit(text: &str, env: &EnvLookup) -> Result<String, EditError> {
    use std::io::Write;
    use std::sync::Arc;
    let editor = editor_command(env);
    let shown = crate::sanitize::one_line(&editor);
    let mut file = tempfile::Builder::new()
        .prefix("clawtop-edit-")
        .suffix(".md")
        .tempfile()
        .map_err(|e| EditError::TempFile(Arc::new(e)))?;
    // Editors end the file with a newline; the text gets its own back without it.
    let trailing = text.ends_with('\n');
    file.write_all(text.as_bytes())
        .and_then(|_| {
            if trailing {
                Ok(())
            } else {
                file.write_all(b"\n")
            }
        })
        .and_then(|_| file.flush())
        .map_err(|e| EditError::WriteTemp(Arc::new(e)))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(&editor)
        .arg(file.path())
        .status()
        .map_err(|e| EditError::Spawn {
            editor: shown.clone(),
            source: Arc::new(e),
        })?;
    if !status.success() {
        return Err(match status.code() {
            Some(127) => EditError::NotFound(shown),
            Some(126) => EditError::NotExecutable(shown),
            Some(code) => EditError::Exited {
                editor: shown,
                code,
            },
            None => EditError::Killed(shown),
        });
    }
    // By path: editors that save by renaming a new file over the old one are read too.
    let bytes = std::fs::read(file.path()).map_err(|e| EditError::ReadBack(Arc::new(e)))?;
    let mut back = String::from_utf8(bytes).map_err(|_| EditError::NotUtf8)?;
    if !trailing && back.ends_with('\n') {
        back.pop();
        if back.ends_with('\r') {
            back.pop();
        }
    }
    Ok(back)
}

fn commit(job: CommitJob) -> Result<String, Problem> {
    match job {
        CommitJob::Compact { prep, text } => {
            let c = usecase::compact::commit(&prep, &text)?;
            let id = c
                .entry_id
                .clone()
                .unwrap_or_else(|| "(v1 file: pi assigns the id)".into());
            let store = match (&prep.store, c.store_updated) {
                (Some(s), true) => {
                    format!("; {} updated", crate::sanitize::one_line(&s.session_key))
                }
                _ => String::new(),
            };
            Ok(format!(
                "Committed compaction {id} ({} bytes of summary){store}; expected after ≈{} (overhead + kept + summary).",
                text.len(),
                crate::tui::model::view::thousands(c.tokens_after)
            ))
        }
        CommitJob::Flush { prep, text } => commit_flush(&prep, &text),
    }
}

/// Commits exactly `text` (blocking: runs in an effect) and words what was written.
fn commit_flush(f: &crate::tui::model::dialog::FlushPrep, text: &str) -> Result<String, Problem> {
    let c = usecase::flush::commit(f, text)?;
    let key = crate::sanitize::one_line(&f.session.session.key);
    Ok(if f.unrecorded.is_some() {
        format!(
            "Appended {} bytes to {}; the flush is not recorded (OpenClaw's own flush stays armed).",
            crate::tui::model::view::thousands(c.appended_bytes),
            c.target.display()
        )
    } else if c.appended_bytes == 0 {
        format!("Flush recorded (NO_REPLY, no notes written) for {key}.")
    } else {
        format!(
            "Appended {} bytes to {}; memoryFlushCompactionCount {} recorded.",
            crate::tui::model::view::thousands(c.appended_bytes),
            c.target.display(),
            c.memory_flush_compaction_count
                .map(|v| v.to_string())
                .unwrap_or_else(|| "-".into())
        )
    })
}

/// Runs a generation to its end, reporting through `tx`: `GenProgress` (Delta reports at most
/// every 100 ms, so ≤ 10 redraws a second however fast the model streams) and one `GenDone`.
pub async fn run_generation(
    dialog: u64,
    generation: u64,
    model: ModelInfo,
    cancel: CancellationToken,
    job: GenJob,
    options: ClientOptions,
    tx: UnboundedSender<Action>,
) {
    let start = Instant::now();
    let progress_tx = tx.clone();
    let mut last_delta: Option<Instant> = None;
    let on_progress = move |event: GenProgress| {
        if matches!(event, GenProgress::Delta { .. }) {
            if last_delta.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
                return;
            }
            last_delta = Some(Instant::now());
        }
        let _ = progress_tx.send(Action::GenProgress {
            dialog,
            generation,
            event,
            elapsed_ms: start.elapsed().as_millis() as u64,
        });
    };
    let failure = |p: Problem| match p {
        Problem::Cancelled => GenFailure::Cancelled,
        p => GenFailure::Failed(p.to_string()),
    };
    let result = match job {
        GenJob::Compact { prep, instructions } => {
            match usecase::compact::generate(
                &prep,
                &model,
                instructions,
                options,
                cancel.clone(),
                Box::new(on_progress),
            )
            .await
            {
                Ok(g) => {
                    // The draft's audit reads the transcript: a blocking task, with the draft.
                    let text = g.text.clone();
                    let audit = tokio::task::spawn_blocking(move || {
                        usecase::compact::audit_draft(&prep, &text)
                    })
                    .await
                    .ok()
                    .map(Box::new);
                    Ok(Generated {
                        text: g.text,
                        calls: g.calls,
                        warnings: g.warnings,
                        no_reply: false,
                        current: None,
                        audit,
                    })
                }
                Err(p) => Err(failure(p)),
            }
        }
        GenJob::Flush { prep, instructions } => usecase::flush::generate(
            &prep,
            &model,
            instructions,
            options,
            cancel.clone(),
            Box::new(on_progress),
        )
        .await
        .map(|d| Generated {
            text: d.text,
            calls: 1,
            warnings: d.warnings,
            no_reply: d.no_reply,
            current: Some(d.existing),
            audit: None,
        })
        .map_err(failure),
    };
    let result = if cancel.is_cancelled() {
        Err(GenFailure::Cancelled)
    } else {
        result
    };
    let _ = tx.send(Action::GenDone {
        dialog,
        generation,
        result,
    });
}

/// A compaction through OpenClaw's Gateway for the dialog `dialog`: connect, check for an
/// active run, compact, read what OpenClaw wrote back from the host, all in the one use case
/// ([`usecase::gateway_compact::run`], which the CLI calls too). Esc
/// cancels the wait, not OpenClaw's work: the dialog says so.
pub async fn run_gateway_compaction(
    dialog: u64,
    generation: u64,
    cancel: CancellationToken,
    job: GatewayJob,
    tx: UnboundedSender<Action>,
) {
    let GatewayJob {
        target,
        session,
        identity_dir,
        instructions,
        vouch_idle,
    } = job;
    let start = Instant::now();
    let step = |s: usecase::gateway_compact::Step| {
        use usecase::gateway_compact::Step;
        let (call, label) = match s {
            Step::Checking => (1, "connecting, checking for an active run"),
            Step::Sent => (
                2,
                "OpenClaw is compacting (its own model writes the summary)",
            ),
            Step::ReadingBack => (3, "reading what OpenClaw wrote back from the host"),
        };
        let _ = tx.send(Action::GenProgress {
            dialog,
            generation,
            event: GenProgress::Call {
                call,
                label: label.into(),
            },
            elapsed_ms: start.elapsed().as_millis() as u64,
        });
    };
    let req = usecase::gateway_compact::Request {
        target,
        key: session.session.key.clone(),
        instructions,
        wait: crate::gateway::ops::COMPACT_WAIT,
        vouch_idle,
        host: Some(session),
        host_by_key_only: false,
        identity_dir: Some(identity_dir),
    };
    let result = tokio::select! {
        r = usecase::gateway_compact::run(req, step) => match r {
            Ok(report) => Ok(Box::new(report)),
            Err(e) => Err(GenFailure::Failed(e.to_string())),
        },
        _ = cancel.cancelled() => Err(GenFailure::Cancelled),
    };
    let _ = tx.send(Action::GatewayDone {
        dialog,
        generation,
        result,
    });
}

/// One poll of the watched files: the watcher's tick, which headless tests drive themselves.
pub fn poll_files(ctx: &EffectCtx) -> Option<Action> {
    let changed = ctx.files.poll();
    (!changed.is_empty()).then_some(Action::FilesChanged(changed))
}

/// Headless driver: applies `action` and then every effect it causes, synchronously, until
/// nothing is left. Returns the effects that were run (for assertions). No threads, no sleeps.
pub fn drive(state: &mut AppState, ctx: &EffectCtx, action: Action) -> Vec<String> {
    drive_collect(state, ctx, action).0
}

/// Like [`drive`], and also hands back the async effects (generation) unrun, so a test can
/// run them ([`run_generation`]) or answer them with actions of its own.
pub fn drive_collect(
    state: &mut AppState,
    ctx: &EffectCtx,
    action: Action,
) -> (Vec<String>, Vec<Effect>) {
    let mut ran = Vec::new();
    let mut pending = Vec::new();
    let mut queue: VecDeque<Action> = VecDeque::from([action]);
    while let Some(a) = queue.pop_front() {
        for e in update(state, a) {
            ran.push(format!("{e:?}"));
            if e.is_async() {
                pending.push(e);
            } else if let Some(next) = run_blocking(e, ctx) {
                queue.push_back(next);
            }
        }
    }
    (ran, pending)
}
