//! A compaction: [`prepare`] (the plan on the session's transcript, the model, the default
//! instructions), [`generate`] (the summary, nothing written), [`commit`] (exactly the given
//! text, refused when the transcript moved since [`prepare`]).

use super::route::Route;
use super::{ModelChoice, ModelInfo, Problem, Subject};
use crate::commit::StoreRow;
use crate::compaction::model::{GenProgress, LlmSummarizer};
use crate::compaction::{self, PrepareError};
use crate::instructions::Instructions;
use crate::llm::{CancellationToken, ClientOptions};
use crate::source::{Operation, SessionHandle};
use crate::summary::SummaryError;
use crate::thresholds::Sourced;
use crate::transcript::{EntryKind, Role, Transcript};
use serde_json::Value;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// A planned compaction: what a preview shows, and what generation and commit need.
#[derive(Clone)]
pub struct Prepared {
    pub session: SessionHandle,
    pub prepared: Arc<compaction::Prepared>,
    /// The transcript the entry is appended to.
    pub transcript: PathBuf,
    /// The store row updated with it (None: a bare transcript).
    pub store: Option<StoreRow>,
    pub messages: usize,
    pub turn_prefix: usize,
    pub split_turn: bool,
    pub leaf_id: String,
    pub first_kept_id: String,
    pub kept_entries: usize,
    pub kept_messages: usize,
    /// Estimate of everything kept (without the summary).
    pub kept_tokens: u64,
    pub tokens_before: u64,
    /// First line of the previous summary (raw; sanitize before showing).
    pub previous_summary: Option<String>,
    pub read_files: usize,
    pub modified_files: usize,
    pub keep_recent_tokens: u64,
    pub keep: Sourced<u64>,
    /// `Err` says why no model can be called (generation refuses; the plan still shows).
    pub model: Result<ModelInfo, super::NoModel>,
    /// `compaction.customInstructions` when set and not blank.
    pub default_instructions: Option<String>,
    pub compaction_count: Option<u64>,
    /// Mode bits of the store file now (a commit rewrites it 0600).
    pub store_mode: Option<u32>,
    /// Whether this compaction can bring the session under its compaction line, with the
    /// expected size after and the advice (docs: issue 8); computed at this keepRecentTokens.
    pub outlook: Option<Box<crate::diagnosis::Diagnosis>>,
    /// The session's flush gate now: when it is due (flush enabled, at or past the flush line,
    /// nothing flushed this cycle), OpenClaw would flush before compacting ([`flush_first`]).
    pub flush_gate: Option<crate::flush::FlushGate>,
    pub warnings: Vec<String>,
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("compact::Prepared")
            .field("session", &self.session)
            .field("leaf_id", &self.leaf_id)
            .field("first_kept_id", &self.first_kept_id)
            .field("messages", &self.messages)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    pub fn transcript(&self) -> &Transcript {
        &self.prepared.transcript
    }

    /// The session's compaction line (from the outlook's breakdown; 0 when unknown).
    pub fn compact_line(&self) -> u64 {
        self.outlook
            .as_ref()
            .map(|d| d.context_breakdown.compact_at)
            .unwrap_or(0)
    }
}

/// What to prepare with.
#[derive(Clone, Default)]
pub struct Options {
    /// `keepRecentTokens` given by the operator (None or 0: the config's).
    pub keep_recent_tokens: Option<u64>,
    pub model: ModelChoice,
}

/// `compaction.customInstructions`, unless blank.
pub fn default_instructions(config: &Value) -> Option<String> {
    config
        .pointer("/agents/defaults/compaction/customInstructions")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

/// The instructions a summary is asked with. `given` is what the operator gave (the CLI's
/// `--instructions`, the TUI editor's text, which starts as the default): when they gave
/// nothing, the config's default applies. Blank text is no instructions on both sides: a
/// blank `customInstructions` never reaches the model, and giving blank text asks for none.
pub fn instructions(given: Option<String>, default: Option<&str>) -> Option<String> {
    Instructions::given_or_default(given.as_deref(), default).map(String::from)
}

fn prepare_problem(e: PrepareError) -> Problem {
    match e {
        PrepareError::NoPlan { path, reason } => Problem::NoPlan {
            transcript: path,
            reason,
        },
        e => Problem::from_verdict(e.verdict(), e.to_string()),
    }
}

/// Plans the compaction of `session` (disk I/O: store row, transcript).
pub fn prepare(session: &SessionHandle, opts: &Options) -> Result<Prepared, Problem> {
    let route = super::route::route(session, Operation::Compact, Default::default());
    let writer = match route {
        Route::Local(w) => w,
        other => {
            let why = other.refusal(Operation::Compact).unwrap_or_default();
            return Err(Problem::Refused(why));
        }
    };
    let Some(path) = writer.transcript.clone() else {
        return Err(Problem::Failed(format!(
            "session {} has no transcript file",
            session.session
        )));
    };
    // `used` is estimated when the store has no fresh figure: the flush gate needs it.
    let subject = Subject::read(session, true)?;
    let keep = subject.keep_recent_tokens(opts.keep_recent_tokens);
    let p = compaction::prepare(&path, keep.value).map_err(prepare_problem)?;
    let t = &p.transcript;
    let plan = &p.plan;
    let kept = &plan.path[plan.cut.first_kept..];
    let kept_messages = kept
        .iter()
        .filter(|&&i| matches!(t.entries[i as usize].kind, EntryKind::Message(_)))
        .count();
    let kept_tokens = compaction::kept_tokens(t, plan);
    // The entry's model; a bare transcript names its model in its last assistant message.
    let entry = subject.session.as_ref().map(|s| &s.entry);
    let (provider, model) = match entry.map(|e| (&e.model_provider, &e.model)) {
        Some((p, m)) if p.is_some() || m.is_some() => (p.clone(), m.clone()),
        _ if writer.store.is_none() => transcript_model(t, &plan.path),
        _ => (None, None),
    };
    let model = super::resolve_model(&subject, provider.as_deref(), model.as_deref(), &opts.model);
    Ok(Prepared {
        session: session.clone(),
        transcript: path,
        store: writer.store.clone(),
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
        keep_recent_tokens: keep.value,
        keep,
        model,
        default_instructions: default_instructions(session.source.config()),
        compaction_count: entry.and_then(|e| e.compaction_count),
        outlook: Some(Box::new(
            crate::diagnosis::gather::for_target(
                session.source.as_ref(),
                subject.session.as_ref(),
                t,
                keep.value,
            )
            .0,
        )),
        flush_gate: subject
            .session
            .as_ref()
            .map(|_| crate::flush::FlushGate::from_thresholds(&subject.numbers)),
        store_mode: writer
            .store
            .as_ref()
            .and_then(|s| crate::commit::store_mode(&s.store_path)),
        warnings: subject.warnings,
        prepared: Arc::new(p),
    })
}

/// What the operator said about flushing before this compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlushChoice {
    /// Nothing yet: a due flush refuses the compaction until the operator chooses.
    #[default]
    Unsaid,
    /// Flush first (`--flush-first`; the TUI's flush step), then compact.
    FlushFirst,
    /// Compact without flushing (`--no-flush`; the TUI's explicit skip).
    Skip,
}

/// What to do before the summary is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlushStep {
    /// No flush is due (or the operator skipped it): compact.
    Compact,
    /// Flush through the flush use case, then plan the compaction again and compact.
    FlushThenCompact,
}

/// Why a flush is due before this compaction (None: it is not). OpenClaw flushes before it
/// compacts once a session is past its flush line; compacting first would close the cycle
/// without the flush, what `check` reports as no-flush-before-compaction.
pub fn flush_due(p: &Prepared) -> Option<String> {
    let g = p.flush_gate.as_ref().filter(|g| g.due)?;
    let n = crate::format::thousands;
    Some(format!(
        "a memory flush is due before compacting: used {} ({}) ≥ flush line {} and nothing was flushed this cycle (compactionCount {}, memoryFlushCompactionCount {}); OpenClaw flushes before it compacts",
        g.used.map(n).unwrap_or_else(|| "?".into()),
        g.used_source,
        g.flush_line.map(n).unwrap_or_else(|| "?".into()),
        g.compaction_count,
        g.memory_flush_compaction_count
            .map(|c| c.to_string())
            .unwrap_or_else(|| "none".into()),
    ))
}

/// The one decision about flushing before a compaction, for the CLI and the TUI: a due flush
/// comes first unless the operator skips it explicitly; unsaid, the compaction is refused
/// (exit 3) with the reason and the two ways on.
pub fn flush_first(p: &Prepared, choice: FlushChoice) -> Result<FlushStep, Problem> {
    match (flush_due(p), choice) {
        (None, _) | (Some(_), FlushChoice::Skip) => Ok(FlushStep::Compact),
        (Some(_), FlushChoice::FlushFirst) => Ok(FlushStep::FlushThenCompact),
        (Some(why), FlushChoice::Unsaid) => Err(Problem::Refused(format!(
            "{why}. Flush first with --flush-first (flush, then compact), or compact without it with --no-flush"
        ))),
    }
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

/// A generated summary.
#[derive(Debug, Clone)]
pub struct Generated {
    pub text: String,
    pub calls: usize,
    /// Every request made and whether it carried the operator's instructions.
    pub requests: Vec<crate::summary::RequestNote>,
    /// Notes for the operator (an answer cut at the output limit, ...).
    pub warnings: Vec<String>,
}

/// Asks the model for the summary (network; the transcript is read on a blocking thread).
/// Writes nothing.
pub async fn generate(
    p: &Prepared,
    model: &ModelInfo,
    instructions: Option<String>,
    options: ClientOptions,
    cancel: CancellationToken,
    on_progress: Box<dyn FnMut(GenProgress) + Send + '_>,
) -> Result<Generated, Problem> {
    // A running OpenClaw turn: refused before the model is paid (the commit checks again).
    super::refuse_if_busy(&p.session)?;
    let prepared = p.prepared.clone();
    let input = tokio::task::spawn_blocking(move || {
        compaction::summary_input(&prepared.transcript, &prepared.plan, instructions)
    })
    .await
    .map_err(|e| Problem::Failed(format!("reading the transcript failed: {e}")))?;
    let mut s = LlmSummarizer::new(&model.endpoint, options, cancel.clone(), on_progress);
    let r = compaction::model::generate(&mut s, model.budget, &input).await;
    let warnings = std::mem::take(&mut s.warnings);
    if cancel.is_cancelled() {
        return Err(Problem::Cancelled);
    }
    match r {
        Ok(o) => Ok(Generated {
            text: o.summary,
            calls: o.calls,
            requests: o.requests,
            warnings,
        }),
        Err(SummaryError::Cancelled) => Err(Problem::Cancelled),
        Err(e) => Err(Problem::Failed(format!(
            "summary failed, nothing written: {e}"
        ))),
    }
}

/// What committing `text` writes, figure for figure: the confirmation states these, and the
/// commit writes them (the same functions: [`compaction::tokens_after`] is the store's
/// `totalTokens`, [`compaction::entry_line_with`] the appended line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Bytes appended to the transcript (the line and its newline).
    pub bytes: u64,
    /// The store's new `totalTokens` (and, on a bare file, the context expected after).
    pub tokens_after: u64,
    /// The store's `compactionCount` before and after.
    pub compaction_count: (u64, u64),
}

pub fn written(p: &Prepared, text: &str) -> Written {
    let text = crate::sanitize::committable(text);
    let t = p.transcript();
    let plan = &p.prepared.plan;
    // The cycle's flush the commit records, as the row shows it now (the commit reads the
    // row again under its lock; ids and timestamps have fixed widths).
    let flush = p.store.as_ref().and(p.flush_gate.as_ref()).and_then(|g| {
        compaction::flush_record(
            g.compaction_count,
            g.memory_flush_compaction_count,
            g.memory_flush_at,
        )
    });
    let line =
        compaction::entry_line_with(t, plan, "00000000", &compaction::iso_now(), &text, flush);
    let cc = p.compaction_count.unwrap_or(0);
    Written {
        bytes: line.len() as u64 + 1,
        tokens_after: compaction::tokens_after(t, plan, &text),
        compaction_count: (cc, cc + 1),
    }
}

/// Appends the compaction entry carrying exactly `text` and updates the store row.
pub fn commit(p: &Prepared, text: &str) -> Result<compaction::Committed, Problem> {
    // Every front-end's text is cleaned the same way here, the one door to the commit.
    let text = crate::sanitize::committable(text);
    compaction::commit(&p.prepared, &text, p.store.as_ref()).map_err(|e| match e {
        compaction::CompactCommitError::Store {
            rolled_back: false, ..
        } => Problem::PartlyWritten(e.to_string()),
        e => Problem::from_verdict(e.verdict(), e.to_string()),
    })
}

/// What the draft `text` would lose of the span the plan replaces, the previous summary
/// included (SPEC §6a), before it is committed: the preview's audit, for the CLI and the TUI.
pub fn audit_draft(p: &Prepared, text: &str) -> crate::audit::CompactionAudit {
    crate::audit::audit_draft(
        &p.prepared.transcript,
        &p.prepared.plan,
        text,
        &crate::audit::HostFacts::of(p.session.source.as_ref()),
    )
}

/// The operator's instructions with "Keep these exact identifiers: …" appended for the
/// identifiers a draft lost (the TUI's regenerate key; editable before it is sent).
pub fn keep_identifiers_instructions(
    instructions: Option<&str>,
    audit: &crate::audit::CompactionAudit,
) -> Option<String> {
    let lost: Vec<&str> = audit
        .identifiers
        .as_ref()
        .map(|i| i.lost.iter().map(|h| h.value.as_str()).collect())
        .unwrap_or_default();
    let base = Instructions::from_opt(instructions);
    if lost.is_empty() {
        return base.map(String::from);
    }
    let keep = format!("Keep these exact identifiers: {}", lost.join(", "));
    Some(match base {
        Some(b) => b.then(&keep).into(),
        None => keep,
    })
}
