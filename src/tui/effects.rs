//! Effects: the disk work `update` asks for. Each runs off the render path (a blocking tokio
//! task in the app; inline in tests via [`run_blocking`] / [`drive`]) and reports back as an
//! [`Action`].

use crate::compaction::model::GenProgress;
use crate::llm::{CancellationToken, ClientOptions};
use crate::source::SessionHandle;
use crate::transcript::Transcript;
use crate::tui::action::Action;
use crate::tui::dialog::{DialogKind, GenFailure, Generated, ModelInfo, Prep};
use crate::tui::rows;
use crate::tui::state::AppState;
use crate::tui::update::update;
use crate::tui::view::SessionLoader;
use crate::usecase::{self, Problem};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

pub enum Effect {
    LoadSessions,
    /// The row of the session the TUI was launched on, alone ([`EffectCtx::named_loader`]).
    LoadNamed,
    OpenTranscript {
        session: SessionHandle,
        generation: u64,
        keep_recent_tokens: u64,
    },
    DecodeRows {
        transcript: Arc<Transcript>,
        generation: u64,
        indices: Vec<u32>,
    },
    DecodeDetail {
        transcript: Arc<Transcript>,
        generation: u64,
        idx: u32,
    },
    /// Replace the set of files the watcher polls.
    Watch(Vec<PathBuf>),
    /// Look for the next (or previous) entry matching `find`, from `from` (exclusive),
    /// wrapping around; a pass over the transcript, so never on the render path.
    Find {
        transcript: Arc<Transcript>,
        generation: u64,
        from: u32,
        forward: bool,
        find: crate::tui::state::Find,
    },
    /// Plan a compaction or a flush for a dialog (disk: transcript, config, workspace file).
    Prepare(Box<PrepareRequest>),
    /// Ask the model (async, network). Not run by [`run_blocking`]: the app spawns
    /// [`run_generation`] in a tokio task; headless tests feed its actions themselves or
    /// run [`run_generation`] against the fake model.
    Generate {
        dialog: u64,
        generation: u64,
        model: Box<ModelInfo>,
        cancel: CancellationToken,
        job: Box<GenJob>,
    },
    /// Compact through OpenClaw's Gateway ([`run_gateway_compaction`] in a tokio task):
    /// progress and the result come back as `GenProgress` / `GenDone` of that dialog.
    GatewayCompact {
        dialog: u64,
        generation: u64,
        cancel: CancellationToken,
        job: Box<GatewayJob>,
    },
    /// Write exactly the previewed text (disk, `spawn_blocking` in the app).
    Commit {
        dialog: u64,
        job: Box<CommitJob>,
    },
    /// Cancel a running generation.
    Cancel(CancellationToken),
    /// Open `text` in the operator's editor and read it back ([`external_edit`]). The app
    /// suspends the TUI around it (the editor owns the terminal meanwhile); headless,
    /// [`run_blocking`] runs the editor directly.
    ExternalEdit {
        dialog: u64,
        target: crate::tui::dialog::EditTarget,
        text: String,
    },
    /// Write a compaction's summary (read raw from its entry) after `header` to `path`.
    ExportSummary {
        transcript: Arc<Transcript>,
        idx: u32,
        path: PathBuf,
        overwrite: bool,
        header: String,
    },
}

/// What a dialog needs planned.
#[derive(Debug, Clone)]
pub struct PrepareRequest {
    pub dialog: u64,
    /// Sequence number in the dialog; the answer carries it back.
    pub seq: u64,
    pub kind: DialogKind,
    pub session: SessionHandle,
    /// The Session screen's `keepRecentTokens` (0: the config's).
    pub keep_recent_tokens: u64,
    /// The model picked in the dialog (default: the session's own).
    pub model: crate::llm::ModelOverrides,
}

/// What to generate.
#[derive(Debug, Clone)]
pub enum GenJob {
    Compact {
        prep: Box<usecase::compact::Prepared>,
        instructions: Option<String>,
    },
    Flush {
        prep: Box<usecase::flush::Prepared>,
        instructions: Option<String>,
    },
}

/// A compaction for OpenClaw's Gateway to run.
#[derive(Debug, Clone)]
pub struct GatewayJob {
    pub target: crate::gateway::GatewayTarget,
    pub session: SessionHandle,
    /// clawtop's device identity (its config dir).
    pub identity_dir: PathBuf,
    /// Checked against OpenClaw's cap already; None: `sessions.compact`.
    pub instructions: Option<String>,
    /// Check OpenClaw's transcript lock here first, and let that stand where the gateway does
    /// not report runs (a file-backed host's own gateway).
    pub vouch_idle: bool,
}

/// What to commit (the text is the preview at the moment of confirming).
#[derive(Debug, Clone)]
pub enum CommitJob {
    Compact {
        prep: Box<usecase::compact::Prepared>,
        text: String,
    },
    Flush {
        prep: Box<usecase::flush::Prepared>,
        text: String,
    },
}

impl Effect {
    /// Effects that run as async tasks (the app spawns them; [`run_blocking`] skips them).
    pub fn is_async(&self) -> bool {
        matches!(
            self,
            Effect::Generate { .. } | Effect::GatewayCompact { .. }
        )
    }
}

impl std::fmt::Debug for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Effect::LoadSessions => write!(f, "LoadSessions"),
            Effect::LoadNamed => write!(f, "LoadNamed"),
            Effect::OpenTranscript {
                session,
                generation,
                ..
            } => write!(f, "OpenTranscript({session}, gen {generation})"),
            Effect::DecodeRows {
                generation,
                indices,
                ..
            } => write!(f, "DecodeRows(gen {generation}, {} rows)", indices.len()),
            Effect::DecodeDetail {
                generation, idx, ..
            } => write!(f, "DecodeDetail(gen {generation}, #{idx})"),
            Effect::Watch(p) => write!(f, "Watch({} files)", p.len()),
            Effect::Find {
                generation,
                from,
                forward,
                find,
                ..
            } => write!(
                f,
                "Find({}, from #{from}, {}, gen {generation})",
                find.name(),
                if *forward { "forward" } else { "back" }
            ),
            Effect::Prepare(r) => write!(f, "Prepare({:?}, {})", r.kind, r.session),
            Effect::GatewayCompact {
                dialog,
                generation,
                job,
                ..
            } => write!(
                f,
                "GatewayCompact(dialog {dialog}, gen {generation}, {})",
                if job.instructions.is_some() {
                    "/compact with instructions"
                } else {
                    "sessions.compact"
                }
            ),
            Effect::Generate {
                dialog,
                generation,
                job,
                ..
            } => {
                let kind = match job.as_ref() {
                    GenJob::Compact { .. } => "compact",
                    GenJob::Flush { .. } => "flush",
                };
                write!(f, "Generate({kind}, dialog {dialog}, gen {generation})")
            }
            Effect::Commit { dialog, job } => match job.as_ref() {
                CommitJob::Compact { text, .. } => {
                    write!(f, "Commit(compact, dialog {dialog}, {} bytes)", text.len())
                }
                CommitJob::Flush { text, .. } => {
                    write!(f, "Commit(flush, dialog {dialog}, {} bytes)", text.len())
                }
            },
            Effect::Cancel(_) => write!(f, "Cancel"),
            Effect::ExternalEdit { target, text, .. } => {
                write!(f, "ExternalEdit({target:?}, {} bytes)", text.len())
            }
            Effect::ExportSummary {
                idx,
                path,
                overwrite,
                ..
            } => write!(
                f,
                "ExportSummary(#{idx} to {}{})",
                path.display(),
                if *overwrite { ", overwrite" } else { "" }
            ),
        }
    }
}

/// What effects need from outside the state.
#[derive(Clone, Default)]
pub struct EffectCtx {
    /// None in bare-file mode and demo mode without a store.
    pub loader: Option<SessionLoader>,
    /// The launch's [`crate::tui::TuiLaunch::named_loader`].
    pub named_loader: Option<crate::tui::view::NamedLoader>,
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
    pub files: crate::tui::watch::FileWatch,
    /// The launch's [`crate::tui::TuiLaunch::logs`], read with each transcript load.
    pub logs: std::sync::Arc<Vec<std::path::PathBuf>>,
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

/// Runs one effect to completion on the current thread. `Watch` only replaces the polled
/// files and yields nothing.
pub fn run_blocking(effect: Effect, ctx: &EffectCtx) -> Option<Action> {
    match effect {
        Effect::LoadSessions => {
            // The built-in rows only when nobody supplied a loader (the store's demo host is a
            // real loader with real transcripts).
            if ctx.demo && ctx.loader.is_none() {
                return Some(Action::SessionsLoaded(Ok(
                    crate::tui::view::SessionsSnapshot {
                        rows: crate::tui::view::demo_rows(ctx.demo_now_ms),
                        label: "demo data".into(),
                        ..Default::default()
                    },
                )));
            }
            let loader = ctx.loader.as_ref()?;
            // A panicking loader must not take the UI down with it.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader()))
                .unwrap_or(Err(crate::tui::view::ReloadError::Panicked));
            if let Ok(snap) = &result {
                ctx.files.seed(&snap.stamps);
            }
            Some(Action::SessionsLoaded(result))
        }
        Effect::LoadNamed => {
            let loader = ctx.named_loader.as_ref()?;
            // Only a shortcut: a panic here leaves the open to the whole list's load.
            let snap = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader()))
                .ok()
                .flatten()?;
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
        } => {
            // Stamped before the read: a line appended while it reads is seen by the poller.
            let stamps = crate::tui::watch::stamps(&session.transcript_watch());
            let result = rows::load_transcript(&session, keep_recent_tokens, &ctx.logs)
                .map(Box::new)
                .map_err(std::sync::Arc::new);
            ctx.files.seed(&stamps);
            Some(Action::TranscriptLoaded { generation, result })
        }
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
        } => {
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
            Some(Action::Exported { path, result })
        }
        Effect::Generate { .. } | Effect::GatewayCompact { .. } => None,
    }
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

/// Why the external editor left the text as it was.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EditError {
    #[error("cannot create a temporary file for the editor: {0}")]
    TempFile(std::sync::Arc<std::io::Error>),
    #[error("cannot write the temporary file for the editor: {0}")]
    WriteTemp(std::sync::Arc<std::io::Error>),
    #[error("cannot run the editor `{editor}` (through sh): {source}")]
    Spawn {
        editor: String,
        source: std::sync::Arc<std::io::Error>,
    },
    #[error("editor `{0}` not found (set VISUAL or EDITOR)")]
    NotFound(String),
    #[error("editor `{0}` cannot be run (not executable)")]
    NotExecutable(String),
    #[error("editor `{editor}` exited with status {code}")]
    Exited { editor: String, code: i32 },
    #[error("editor `{0}` was killed by a signal")]
    Killed(String),
    #[error("cannot read back the editor's file: {0}")]
    ReadBack(std::sync::Arc<std::io::Error>),
    #[error("the editor left text that is not UTF-8")]
    NotUtf8,
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
                crate::tui::view::thousands(c.tokens_after)
            ))
        }
        CommitJob::Flush { prep, text } => crate::tui::flush_ui::commit(&prep, &text),
    }
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
/// active run, compact, read the figures back ([`usecase::gateway_compact::compact`]), then
/// read what OpenClaw wrote back from the host through the session's source
/// ([`usecase::gateway_compact::read_back`]; `/compact` does not return the summary). Esc
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
    let step = |call: usize, label: &str| {
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
    step(1, "connecting, checking for an active run");
    // A file-backed host: OpenClaw's transcript lock is the run check clawtop can see itself.
    if vouch_idle {
        let s = session.clone();
        let busy = tokio::task::spawn_blocking(move || usecase::refuse_if_busy(&s))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|p| p.to_string()));
        if let Err(why) = busy {
            let _ = tx.send(Action::GatewayDone {
                dialog,
                generation,
                result: Err(GenFailure::Failed(why)),
            });
            return;
        }
    }
    // The host's view before sending: tells OpenClaw's new compaction entry from older ones.
    let before = {
        let s = session.clone();
        tokio::task::spawn_blocking(move || usecase::gateway_compact::mark(&s))
            .await
            .unwrap_or_default()
    };
    let sent = || {
        step(
            2,
            "OpenClaw is compacting (its own model writes the summary)",
        )
    };
    let work = usecase::gateway_compact::compact_as(
        &identity_dir,
        &target,
        &session.session.key,
        instructions.as_deref(),
        crate::gateway::ops::COMPACT_WAIT,
        vouch_idle,
        sent,
    );
    let result = tokio::select! {
        r = work => Some(r),
        _ = cancel.cancelled() => None,
    };
    let result = match result {
        None => Err(GenFailure::Cancelled),
        Some(Err(e)) => Err(GenFailure::Failed(e.to_string())),
        Some(Ok(c)) => match &c.outcome {
            crate::gateway::CompactOutcome::NotCompacted { reason } => Err(GenFailure::Failed(
                format!("OpenClaw did not compact the session: {reason}"),
            )),
            crate::gateway::CompactOutcome::Compacted { .. } => {
                step(3, "reading what OpenClaw wrote back from the host");
                let s = session.clone();
                let written = tokio::task::spawn_blocking(move || {
                    let w = usecase::gateway_compact::read_back(Some(&s), &before, &c);
                    (w, c)
                })
                .await;
                match written {
                    Ok((written, compaction)) => {
                        Ok(Box::new(usecase::gateway_compact::GatewayReport {
                            compaction,
                            written,
                        }))
                    }
                    Err(e) => Err(GenFailure::Failed(format!(
                        "OpenClaw compacted the session, but reading it back failed: {e}"
                    ))),
                }
            }
        },
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
