//! A memory flush: [`prepare`] (gate from the session's numbers, prompts, workspace, target
//! and its current content, the model), [`generate`] (the notes, nothing written),
//! [`commit`] (exactly the given notes, and the flush recorded on the store row).

use super::route::Route;
use super::{ModelChoice, ModelInfo, Problem, Subject};
use crate::commit::StoreRow;
use crate::compaction::model::GenProgress;
use crate::flush::{self, FlushCommitted, FlushGate, FlushPrompts, FlushSpec};
use crate::llm::{CancellationToken, ClientOptions, LlmError};
use crate::source::{Operation, SessionHandle};
use std::path::PathBuf;

/// A prepared flush: what a preview shows, and what generation and commit need.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub session: SessionHandle,
    pub gate: FlushGate,
    pub prompts: FlushPrompts,
    pub workspace: PathBuf,
    pub workspace_source: String,
    pub target: PathBuf,
    /// Current content of the target (raw; sanitize before showing); None when it does not exist.
    pub current: Option<String>,
    pub current_len: u64,
    /// Last bytes of the target (the separator before the notes depends on them).
    pub current_tail: Vec<u8>,
    pub date: String,
    pub window: u64,
    /// `Err` says why no model can be called.
    pub model: Result<ModelInfo, super::NoModel>,
    /// The store row the flush is recorded in.
    pub store: Option<StoreRow>,
    /// Mode bits of the store file now (a commit rewrites it 0600).
    pub store_mode: Option<u32>,
    /// Why nothing can be committed here (a read-only host); a dry run still explains.
    pub read_only: Option<String>,
    /// Set when the notes can be appended but the flush cannot be recorded on the session
    /// (a SQLite host); says why, and that OpenClaw's own flush stays armed.
    pub unrecorded: Option<String>,
    /// The session has a transcript to draft from.
    pub has_transcript: bool,
    /// Its path: a live holder of `<transcript>.lock` (a running turn) blocks the commit.
    pub transcript: Option<PathBuf>,
    pub warnings: Vec<String>,
    /// The part of `warnings` about the target file itself (not a regular file, too large
    /// to preview): a dry run says these, as the commit would refuse or shorten on them.
    pub target_warnings: Vec<String>,
}

/// What to prepare with.
#[derive(Clone, Default)]
pub struct Options {
    /// `--workspace DIR` (else the source's workspace for the agent).
    pub workspace: Option<PathBuf>,
    pub model: ModelChoice,
}

/// Length and last two bytes of the target (the separator before the notes depends on them).
fn tail_of(target: &std::path::Path) -> (u64, Vec<u8>) {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = crate::regular_file::open(target) else {
        return (0, Vec::new());
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut tail = Vec::new();
    if len > 0 && f.seek(SeekFrom::Start(len.saturating_sub(2))).is_ok() {
        let _ = f.take(2).read_to_end(&mut tail);
    }
    (len, tail)
}

/// Plans the flush of `session` (disk I/O: store row, transcript estimate, target file).
pub fn prepare(session: &SessionHandle, opts: &Options) -> Result<Prepared, Problem> {
    let route = super::route::route(session, Operation::Flush, Default::default());
    let (store, read_only, transcript, unrecorded) = match route {
        Route::Local(w) => match (w.store, w.unrecorded) {
            (Some(s), _) => (Some(s), None, w.transcript, None),
            (None, Some(why)) => (None, None, w.transcript, Some(why)),
            (None, None) => (
                None,
                Some("no session store row to record the flush in".to_string()),
                w.transcript,
                None,
            ),
        },
        other @ (Route::ReadOnly(_) | Route::Gateway(_)) => {
            (None, other.refusal(Operation::Flush), None, None)
        }
    };
    let subject = Subject::read(session, true)?;
    let Some(listed) = subject.session.as_ref() else {
        return Err(Problem::Usage(
            "flush needs a session KEY: a bare transcript has no workspace or store".into(),
        ));
    };
    let source = session.source.as_ref();
    let agent = listed.agent_id();
    let (workspace, workspace_source) = match (&opts.workspace, source.workspace(agent)) {
        (Some(w), _) => (w.clone(), flush::workspace::SOURCE_FLAG.to_string()),
        (None, Some(w)) => w,
        (None, None) => {
            return Err(Problem::Failed(format!(
                "no workspace known for agent {agent}; use --workspace DIR"
            )));
        }
    };
    let date = flush::today();
    let prompts = flush::prompts::resolve_prompts_for(source.config(), &date, source.rules().0);
    let target = flush::target_path(&workspace, &date);
    let mut warnings = subject.warnings.clone();
    if !workspace.is_dir() {
        warnings.push(format!(
            "workspace {} (from {workspace_source}) is not an existing directory: a commit will be refused; set agents.list[].workspace or agents.defaults.workspace",
            workspace.display()
        ));
    }
    let mut target_warnings = Vec::new();
    let current = if std::fs::symlink_metadata(&target).is_ok() {
        Some(flush::read_existing(&target, &mut target_warnings))
    } else {
        None
    };
    warnings.extend(target_warnings.iter().cloned());
    let (current_len, current_tail) = tail_of(&target);
    let e = &listed.entry;
    let model = super::resolve_model(
        &subject,
        e.model_provider.as_deref(),
        e.model.as_deref(),
        &opts.model,
    );
    Ok(Prepared {
        session: session.clone(),
        gate: FlushGate::from_thresholds(&subject.numbers),
        prompts,
        workspace,
        workspace_source,
        target,
        current,
        current_len,
        current_tail,
        date,
        window: subject.numbers.window,
        model,
        store_mode: store
            .as_ref()
            .and_then(|s| crate::commit::store_mode(&s.store_path)),
        store,
        read_only,
        unrecorded,
        has_transcript: listed.transcript.is_some(),
        transcript,
        warnings,
        target_warnings,
    })
}

/// What committing `text` writes: `(notes, no_reply)`. Empty (or blank) notes are refused
/// in every front-end: recording a flush without notes switches off OpenClaw's own flush
/// for this cycle, and an emptied preview is far more likely a mistake than a decision. The
/// operator writes `NO_REPLY` to record a flush without notes.
pub fn notes_to_commit(text: &str) -> Result<(String, bool), Problem> {
    if text.trim().is_empty() {
        return Err(Problem::Failed(
            "the notes are empty (write NO_REPLY to record a flush without notes)".into(),
        ));
    }
    if flush::is_no_reply(text) {
        Ok((String::new(), true))
    } else {
        Ok((text.to_string(), false))
    }
}

/// A drafted flush.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The notes to preview: the model's notes, or `NO_REPLY` when it found nothing worth
    /// keeping (so committing the preview as it stands records the flush).
    pub text: String,
    pub no_reply: bool,
    pub warnings: Vec<String>,
    /// The target's content as the draft read it (fresher than the plan's).
    pub existing: String,
    pub provider: String,
    pub model: String,
}

/// One streamed call for the notes (the transcript is read on a blocking thread). Writes
/// nothing.
pub async fn generate(
    p: &Prepared,
    model: &ModelInfo,
    instructions: Option<String>,
    options: ClientOptions,
    cancel: CancellationToken,
    mut on_progress: Box<dyn FnMut(GenProgress) + Send + '_>,
) -> Result<Draft, Problem> {
    if !p.has_transcript {
        return Err(Problem::Failed(format!(
            "session {} has no transcript to draft notes from",
            p.session
        )));
    }
    // A running OpenClaw turn: refused before the model drafts notes it would miss. On a
    // SQLite host this asks the gateway (network, bounded): off the async workers.
    let session = p.session.clone();
    let run_note = tokio::task::spawn_blocking(move || super::refuse_if_busy(&session))
        .await
        .map_err(|e| Problem::Failed(format!("checking for a running turn failed: {e}")))??;
    let session = p.session.clone();
    let messages = tokio::task::spawn_blocking(move || {
        session
            .open_transcript()
            .map(|t| flush::context_messages(&t))
    })
    .await
    .map_err(|e| Problem::Failed(format!("reading the transcript failed: {e}")))?
    .map_err(|e| Problem::Failed(e.to_string()))?;
    let spec = FlushSpec {
        session_key: p.session.session.key.clone(),
        workspace: p.workspace.clone(),
        date: p.date.clone(),
        prompts: p.prompts.clone(),
        instructions,
        context_window: Some(model.endpoint.context_window.unwrap_or(p.window)),
    };
    on_progress(GenProgress::Call {
        call: 1,
        label: "memory notes".into(),
    });
    let mut progress = |e| {
        if let Some(g) = super::progress(e) {
            on_progress(g)
        }
    };
    let r = flush::generate(
        &spec,
        &messages,
        &model.endpoint,
        &options,
        cancel.clone(),
        &mut progress,
    )
    .await;
    if cancel.is_cancelled() {
        return Err(Problem::Cancelled);
    }
    match r {
        Ok(d) => Ok(Draft {
            text: if d.no_reply {
                flush::prompts::SILENT_TOKEN.to_string()
            } else {
                d.notes
            },
            no_reply: d.no_reply,
            warnings: d.warnings.into_iter().chain(run_note).collect(),
            existing: d.existing,
            provider: d.provider,
            model: d.model,
        }),
        Err(flush::FlushError::Model(LlmError::Cancelled)) => Err(Problem::Cancelled),
        Err(e) => Err(Problem::from_verdict(
            e.verdict(),
            format!("memory flush failed, nothing written: {e}"),
        )),
    }
}

/// Appends exactly `text` (unless it is `NO_REPLY`) and records the flush on the store row,
/// refused when the row's compaction cycle moved since [`prepare`], or while a turn holds the
/// transcript's lock (which the commit holds itself until it is done).
pub fn commit(p: &Prepared, text: &str) -> Result<FlushCommitted, Problem> {
    if let Some(why) = &p.read_only {
        return Err(Problem::Refused(why.clone()));
    }
    let text = crate::sanitize::committable(text);
    let (notes, no_reply) = notes_to_commit(&text)?;
    if let (true, Some(why)) = (no_reply, &p.unrecorded) {
        return Err(Problem::Refused(format!(
            "NO_REPLY only records a flush without notes, and here {why}: nothing to write"
        )));
    }
    // No transcript lock guards this append on a SQLite host: ask the gateway again, now.
    if p.unrecorded.is_some() {
        super::refuse_if_busy(&p.session)?;
    }
    flush::commit_flush_beside(
        p.transcript.as_deref(),
        &p.workspace,
        &p.date,
        &notes,
        no_reply,
        p.store.as_ref(),
        Some(p.gate.compaction_count),
    )
    .map_err(|e| match e {
        flush::FlushError::StoreAfterAppend {
            rolled_back: false, ..
        } => Problem::PartlyWritten(e.to_string()),
        e => Problem::from_verdict(e.verdict(), e.to_string()),
    })
}
