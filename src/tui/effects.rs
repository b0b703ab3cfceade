//! Effects: the disk work `update` asks for. Each runs off the render path (a blocking tokio
//! task in the app; inline in tests via [`run_blocking`] / [`drive`]) and reports back as an
//! [`Action`].

use crate::commit::StoreRow;
use crate::compaction::Prepared;
use crate::compaction::model::{GenProgress, LlmSummarizer};
use crate::llm::{CancellationToken, ClientOptions};
use crate::source::{LocalWriter, SessionHandle, SessionSource};
use crate::summary::{Budget, SummaryError};
use crate::transcript::{EntryKind, Role, Transcript};
use crate::tui::action::Action;
use crate::tui::dialog::{
    CompactPrep, DialogKind, FlushPrep, GenFailure, Generated, ModelInfo, Prep, Shared,
};
use crate::tui::model::{SessionLoader, SessionRow};
use crate::tui::rows;
use crate::tui::state::AppState;
use crate::tui::update::update;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

pub enum Effect {
    LoadSessions,
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
    /// Write exactly the previewed text (disk, `spawn_blocking` in the app).
    Commit {
        dialog: u64,
        job: Box<CommitJob>,
    },
    /// Cancel a running generation.
    Cancel(CancellationToken),
}

/// What a dialog needs planned.
#[derive(Debug, Clone)]
pub struct PrepareRequest {
    pub dialog: u64,
    pub kind: DialogKind,
    pub session: SessionHandle,
    pub row: SessionRow,
    /// What the source offered to write with (asked when the dialog opened).
    pub writer: LocalWriter,
}

/// What to generate.
#[derive(Debug, Clone)]
pub enum GenJob {
    Compact {
        prepared: Shared<Prepared>,
        instructions: Option<String>,
    },
    Flush {
        prep: Box<FlushPrep>,
        instructions: Option<String>,
    },
}

/// What to commit (the text is the preview at the moment of confirming).
#[derive(Debug, Clone)]
pub enum CommitJob {
    Compact {
        prepared: Shared<Prepared>,
        text: String,
        store: Option<StoreRow>,
    },
    Flush {
        prep: Box<FlushPrep>,
        text: String,
    },
}

impl Effect {
    /// Effects that run as async tasks (the app spawns them; [`run_blocking`] skips them).
    pub fn is_async(&self) -> bool {
        matches!(self, Effect::Generate { .. })
    }
}

impl std::fmt::Debug for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Effect::LoadSessions => write!(f, "LoadSessions"),
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
            Effect::Prepare(r) => write!(f, "Prepare({:?}, {})", r.kind, r.session),
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
        }
    }
}

/// What effects need from outside the state.
#[derive(Clone, Default)]
pub struct EffectCtx {
    /// None in bare-file mode and demo mode without a store.
    pub loader: Option<SessionLoader>,
    /// Demo: the loader is replaced by fixed rows.
    pub demo: bool,
    /// "Now" for the demo rows' ages.
    pub demo_now_ms: i64,
    /// Network behaviour of generation (tests shorten the retries).
    pub client: ClientOptions,
    /// Environment lookup for API keys (tests inject one; the app reads the process env).
    pub env: Option<EnvLookup>,
}

/// `name -> value` lookup of environment variables (API keys, never displayed).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Runs one effect to completion on the current thread. `Watch` is the app loop's business
/// (it owns the watcher) and yields nothing here.
pub fn run_blocking(effect: Effect, ctx: &EffectCtx) -> Option<Action> {
    match effect {
        Effect::LoadSessions => {
            // The built-in rows only when nobody supplied a loader (the store's demo host is a
            // real loader with real transcripts).
            if ctx.demo && ctx.loader.is_none() {
                return Some(Action::SessionsLoaded(Ok(
                    crate::tui::model::SessionsSnapshot {
                        rows: crate::tui::model::demo_rows(ctx.demo_now_ms),
                        label: "demo data".into(),
                        ..Default::default()
                    },
                )));
            }
            let loader = ctx.loader.as_ref()?;
            // A panicking loader must not take the UI down with it.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader()))
                .unwrap_or_else(|_| Err(anyhow::anyhow!("session loader panicked")));
            Some(Action::SessionsLoaded(result.map_err(|e| format!("{e:#}"))))
        }
        Effect::OpenTranscript {
            session,
            generation,
            keep_recent_tokens,
        } => {
            let result = rows::load_transcript(&session, keep_recent_tokens).map(Box::new);
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
        Effect::Watch(_) | Effect::Generate { .. } => None,
    }
}

/// Resolves the endpoint of the session's model (SPEC §8) and the summarizer budget:
/// context window = the model's catalog window, else the session window; reserve = the
/// session's effective reserve.
pub fn resolve_model(
    ctx: &EffectCtx,
    source: &dyn SessionSource,
    agent_id: &str,
    provider: Option<&str>,
    model: Option<&str>,
    window: u64,
    reserve: u64,
) -> Result<ModelInfo, String> {
    let config = source.config();
    let agent_models = source.models_json(agent_id).map(|(_, v)| v);
    let env = |k: &str| match &ctx.env {
        Some(f) => f(k),
        None => std::env::var(k).ok(),
    };
    let ep = crate::llm::resolve_endpoint(
        config,
        agent_models.as_ref(),
        provider,
        model,
        &crate::llm::ModelOverrides::default(),
        &env,
    )
    .map_err(|e| e.to_string())?;
    let budget = Budget {
        context_window: ep.context_window.unwrap_or(window),
        reserve_tokens: reserve,
        reasoning: ep.reasoning,
    };
    Ok(ModelInfo {
        endpoint: ep,
        budget,
    })
}

/// Provider and model of the last assistant message (bare transcripts have no store row).
fn transcript_model(t: &Transcript, path: &[u32]) -> (Option<String>, Option<String>) {
    for &i in path.iter().rev().take(200) {
        if t.entries[i as usize].kind != EntryKind::Message(Role::Assistant) {
            continue;
        }
        if let Ok(v) = t.entry_json(i) {
            let m = &v["message"];
            let p = m["provider"].as_str().map(str::to_string);
            let id = m["model"].as_str().map(str::to_string);
            if p.is_some() || id.is_some() {
                return (p, id);
            }
        }
    }
    (None, None)
}

fn prepare(req: &PrepareRequest, ctx: &EffectCtx) -> Action {
    let result = match req.kind {
        DialogKind::Compact => {
            prepare_compact(req, ctx).map(|c| Box::new(Prep::Compact(Box::new(c))))
        }
        DialogKind::Flush => {
            crate::tui::flush_ui::prepare(req, ctx).map(|f| Box::new(Prep::Flush(Box::new(f))))
        }
    };
    Action::DialogPrepared {
        dialog: req.dialog,
        result,
    }
}

fn prepare_compact(req: &PrepareRequest, ctx: &EffectCtx) -> Result<CompactPrep, String> {
    let row = &req.row;
    let keep = if row.keep_recent_tokens == 0 {
        crate::plan::DEFAULT_KEEP_RECENT_TOKENS
    } else {
        row.keep_recent_tokens
    };
    let Some(path) = req.writer.transcript.as_ref() else {
        return Err(format!(
            "No transcript file to compact for {}.",
            req.session
        ));
    };
    let p = crate::compaction::prepare(path, keep).map_err(|e| match e {
        crate::compaction::PrepareError::NoPlan { reason, .. } => {
            let r = reason.to_string();
            // NoPlan's wording already starts with "nothing to compact" for some reasons.
            if r.starts_with("nothing to compact") {
                format!("N{}.", &r[1..])
            } else {
                format!("Nothing to compact: {r}.")
            }
        }
        e => format!("Cannot plan a compaction: {e}"),
    })?;
    let t = &p.transcript;
    let plan = &p.plan;
    let kept = &plan.path[plan.cut.first_kept..];
    let kept_messages = kept
        .iter()
        .filter(|&&i| matches!(t.entries[i as usize].kind, EntryKind::Message(_)))
        .count();
    let kept_tokens = crate::compaction::tokens_after(t, plan, "").saturating_sub(
        crate::tokens::estimate_message(
            &serde_json::json!({"role": "compactionSummary", "summary": ""}),
        ),
    );
    let (provider, model) = match (&row.model_provider, &row.model_id) {
        (None, None) if req.writer.store.is_none() => transcript_model(t, &plan.path),
        (p, m) => (p.clone(), m.clone()),
    };
    let model = resolve_model(
        ctx,
        req.session.source.as_ref(),
        &row.agent_id,
        provider.as_deref(),
        model.as_deref(),
        row.window,
        row.reserve,
    );
    let custom_instructions = req
        .session
        .source
        .config()
        .pointer("/agents/defaults/compaction/customInstructions")
        .and_then(|v| v.as_str())
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string);
    // Same id and timestamp widths as the real commit, so the byte count is exact.
    let line_overhead =
        crate::compaction::entry_line(t, plan, "00000000", &crate::compaction::iso_now(), "").len();
    Ok(CompactPrep {
        transcript: path.clone(),
        messages: plan.messages_to_summarize.len(),
        turn_prefix: plan.turn_prefix_messages.len(),
        split_turn: plan.cut.is_split_turn,
        leaf_id: t.display_id(plan.leaf),
        first_kept_id: t.display_id(plan.first_kept_entry),
        kept_entries: kept.len(),
        kept_messages,
        kept_tokens,
        tokens_before: plan.tokens_before,
        previous_summary: plan.previous_summary.as_deref().map(|s| {
            s.lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .to_string()
        }),
        read_files: plan.read_files.len(),
        modified_files: plan.modified_files.len(),
        keep_recent_tokens: keep,
        model,
        custom_instructions,
        store: req.writer.store.clone(),
        compaction_count: row.compaction_count,
        line_overhead,
        prepared: Shared(Arc::new(p)),
    })
}

fn commit(job: CommitJob) -> Result<String, String> {
    match job {
        CommitJob::Compact {
            prepared,
            text,
            store,
        } => {
            let p = &prepared;
            match crate::compaction::commit(p, &text, store.as_ref()) {
                Ok(c) => {
                    let id = c
                        .entry_id
                        .clone()
                        .unwrap_or_else(|| "(v1 file: pi assigns the id)".into());
                    let store = match (&store, c.store_updated) {
                        (Some(s), true) => {
                            format!("; {} updated", crate::sanitize::one_line(&s.session_key))
                        }
                        _ => String::new(),
                    };
                    Ok(format!(
                        "Committed compaction {id} ({} bytes of summary){store}; context now ≈{} tokens.",
                        text.len(),
                        crate::tui::model::thousands(c.tokens_after)
                    ))
                }
                Err(e) if e.exit_code() == 3 => {
                    Err(format!("Commit refused, nothing written: {e}"))
                }
                Err(
                    e @ crate::compaction::CompactCommitError::Store {
                        rolled_back: false, ..
                    },
                ) => Err(format!("Partly committed: {e}")),
                Err(e) => Err(format!("Commit failed, nothing written: {e}")),
            }
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
    let result = match job {
        GenJob::Compact {
            prepared,
            instructions,
        } => {
            // Decoding the messages reads the transcript: off the async threads.
            let p = prepared.clone();
            let input = tokio::task::spawn_blocking(move || {
                crate::compaction::summary_input(&p.transcript, &p.plan, instructions)
            })
            .await;
            match input {
                Err(e) => Err(GenFailure::Failed(format!(
                    "reading the transcript failed: {e}"
                ))),
                Ok(input) => {
                    let mut s = LlmSummarizer::new(
                        &model.endpoint,
                        options,
                        cancel.clone(),
                        Box::new(on_progress),
                    );
                    let r = crate::compaction::model::generate(&mut s, model.budget, &input).await;
                    let warnings = std::mem::take(&mut s.warnings);
                    match r {
                        Ok(o) => Ok(Generated {
                            text: o.summary,
                            calls: o.calls,
                            warnings,
                            no_reply: false,
                            current: None,
                        }),
                        Err(SummaryError::Cancelled) => Err(GenFailure::Cancelled),
                        Err(e) => Err(GenFailure::Failed(e.to_string())),
                    }
                }
            }
        }
        GenJob::Flush { prep, instructions } => {
            crate::tui::flush_ui::generate(
                &prep,
                instructions,
                &model,
                options,
                cancel.clone(),
                Box::new(on_progress),
            )
            .await
        }
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
