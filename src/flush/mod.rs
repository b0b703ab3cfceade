//! Memory flush on demand (docs/memory-flush.md).
//!
//! OpenClaw's own flush is a silent agentic turn in which the model writes
//! `memory/<date>.md` with its tools. clawtop's flush gets the same outcome under the
//! operator's eye, in three steps shared by the CLI and the TUI:
//!
//! 1. **Gate and prompts** (pure): [`FlushGate`] says why a flush is or is not due;
//!    [`resolve_prompts`] gives the prompts (config, else OpenClaw 2026.2.26's defaults,
//!    `YYYY-MM-DD` filled in); [`workspace_for`] finds the workspace.
//! 2. **Draft** ([`generate`], one streamed, cancellable model call; [`build_request`] is
//!    the pure part): the model reads the session's context (compaction summary, kept
//!    entries, later entries) and answers with the notes, or `NO_REPLY`
//!    ([`is_no_reply`]). Nothing is written. The [`FlushDraft`] carries the notes for the
//!    editable preview and the target's current content.
//! 3. **Commit** ([`commit_flush`]) of exactly the previewed notes: append to
//!    `<workspace>/memory/<date>.md`, then `memoryFlushAt`/`memoryFlushCompactionCount`
//!    on the store entry under the store lock. See [`commit`] for the order and the
//!    separator rule.
//!
//! No terminal code: text in drafts and errors (notes, existing file content, paths)
//! must go through [`crate::sanitize`] before it is shown.

pub mod commit;
pub mod draft;
pub mod prompts;
pub mod workspace;

use serde::Serialize;
use serde_json::Value;
use std::io;
use std::path::PathBuf;

pub use commit::{
    FlushCommitted, append_bytes, commit_flush, commit_flush_beside, commit_flush_for_cycle,
    separator,
};
pub use draft::{
    FlushDraft, FlushRequest, FlushSpec, NOTES_MAX_TOKENS, build_request, context_messages,
    generate, interpret_reply, read_existing,
};
pub use prompts::{
    DEFAULT_PROMPT_2026_2_26, DEFAULT_SYSTEM_PROMPT_2026_2_26, FlushPrompts, PromptSource,
    is_no_reply, resolve_prompts,
};
pub use workspace::{is_valid_date, target_path, today, workspace_for};

use crate::commit::CommitError;
use crate::llm::LlmError;
use crate::transcript::TranscriptError;

/// Errors of the flush. Each names the file or the cause.
#[derive(Debug, thiserror::Error)]
pub enum FlushError {
    #[error(
        "workspace {} does not exist (config agents.list[].workspace / agents.defaults.workspace, or --workspace DIR); nothing written",
        .path.display()
    )]
    WorkspaceMissing { path: PathBuf },

    #[error("workspace {} is not a directory; nothing written", .path.display())]
    WorkspaceNotDir { path: PathBuf },

    #[error("{} is not writable ({source}); nothing written", .path.display())]
    WorkspaceReadOnly {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// `memory/` or the target file is something clawtop will not write (not a
    /// directory / not a regular file / a symlink).
    #[error("{}: {reason}; nothing written", .path.display())]
    Target { path: PathBuf, reason: String },

    #[error("invalid flush date {0:?} (expected YYYY-MM-DD)")]
    InvalidDate(String),

    #[error("refused: {reason}")]
    Refused { reason: String },

    #[error("{}: {op}: {source}", .path.display())]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: io::Error,
    },

    /// The store could not be updated; no notes were written.
    #[error("{0}; nothing written")]
    Store(#[source] CommitError),

    /// The notes were appended, then the store update failed.
    #[error(
        "session store not updated ({source}); {}",
        if *.rolled_back { format!("the notes appended to {} were removed again, nothing changed", .target.display()) }
        else { format!("the notes remain appended to {} (the file changed meanwhile, so they were not removed)", .target.display()) }
    )]
    StoreAfterAppend {
        target: PathBuf,
        rolled_back: bool,
        source: CommitError,
    },

    #[error("model: {0}")]
    Model(#[from] LlmError),

    #[error(transparent)]
    Transcript(#[from] TranscriptError),
}

impl FlushError {
    /// Refused for safety (busy store lock, entry changed since the preview, unsafe
    /// target), usage (a bad date), or failed.
    pub fn verdict(&self) -> crate::commit::Verdict {
        use crate::commit::Verdict;
        match self {
            FlushError::Store(e) => e.verdict(),
            FlushError::StoreAfterAppend {
                rolled_back: true,
                source,
                ..
            } => source.verdict(),
            FlushError::Target { .. } | FlushError::Refused { .. } => Verdict::Refused,
            FlushError::InvalidDate(_) => Verdict::Usage,
            _ => Verdict::Failed,
        }
    }
}

/// Why a flush is or is not due, for the Flush dialog and `--json`. The flush line and the
/// used figure come from the thresholds (docs/numbers.md); this adds the once-per-cycle rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushGate {
    /// `memoryFlush.enabled` is not `false`.
    pub enabled: bool,
    /// `None` when there is no flush line (disabled) or it is unknown.
    pub flush_line: Option<u64>,
    pub used: Option<u64>,
    /// Provenance of `used` (`fresh`, `legacy`, `estimated`, `unknown`).
    pub used_source: String,
    /// `compactionCount ?? 0`.
    pub compaction_count: u64,
    pub memory_flush_compaction_count: Option<u64>,
    pub memory_flush_at: Option<i64>,
    /// `memoryFlushCompactionCount == (compactionCount ?? 0)`.
    pub flushed_this_cycle: bool,
    /// What OpenClaw would do on the next turn: enabled, used ≥ flush line, not flushed this cycle.
    pub due: bool,
}

fn as_count(v: Option<&Value>) -> Option<u64> {
    v.and_then(|v| {
        v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        })
    })
}

impl FlushGate {
    /// `entry` is the session's store entry as JSON; `flush_line`, `used`, `used_source` as
    /// the thresholds computed them. Prefer [`FlushGate::from_thresholds`].
    pub fn new(
        config: &Value,
        entry: &Value,
        flush_line: Option<u64>,
        used: Option<u64>,
        used_source: &str,
    ) -> Self {
        let enabled = config
            .pointer("/agents/defaults/compaction/memoryFlush/enabled")
            .and_then(Value::as_bool)
            != Some(false);
        let counters = crate::thresholds::Counters {
            compaction_count: as_count(entry.get("compactionCount")),
            memory_flush_compaction_count: as_count(entry.get("memoryFlushCompactionCount")),
            memory_flush_at: entry.get("memoryFlushAt").and_then(Value::as_i64),
            ..Default::default()
        };
        Self::from_counters(enabled, flush_line, used, used_source, &counters)
    }

    /// The gate of a session's numbers: the typed counters, the flush line and `used` as
    /// [`crate::thresholds::compute`] gave them.
    pub fn from_thresholds(t: &crate::thresholds::Thresholds) -> Self {
        let counters = crate::thresholds::Counters {
            compaction_count: t.compaction_count,
            memory_flush_compaction_count: t.memory_flush_compaction_count,
            memory_flush_at: t.memory_flush_at,
            ..Default::default()
        };
        Self::from_counters(
            t.flush_enabled.value,
            t.flush_at,
            t.used,
            t.used_source.name(),
            &counters,
        )
    }

    /// The once-per-cycle rule over typed counters.
    pub fn from_counters(
        enabled: bool,
        flush_line: Option<u64>,
        used: Option<u64>,
        used_source: &str,
        c: &crate::thresholds::Counters,
    ) -> Self {
        let compaction_count = c.compaction_count.unwrap_or(0);
        let mfcc = c.memory_flush_compaction_count;
        let flushed_this_cycle = mfcc == Some(compaction_count);
        let flush_line = if enabled { flush_line } else { None };
        let over = matches!((used, flush_line), (Some(u), Some(l)) if u >= l);
        FlushGate {
            enabled,
            flush_line,
            used,
            used_source: used_source.to_string(),
            compaction_count,
            memory_flush_compaction_count: mfcc,
            memory_flush_at: c.memory_flush_at,
            flushed_this_cycle,
            due: enabled && over && !flushed_this_cycle,
        }
    }

    /// One line per fact, in the order an operator reads them.
    pub fn reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.enabled {
            out.push("memoryFlush.enabled is false: OpenClaw never flushes this agent (a flush on demand still works)".into());
        }
        // Every number formatted as everywhere else (thousands separators).
        let n = crate::format::thousands;
        match (self.used, self.flush_line) {
            (Some(u), Some(l)) if u >= l => out.push(format!(
                "used {} ({}) ≥ flush line {}",
                n(u),
                self.used_source,
                n(l)
            )),
            (Some(u), Some(l)) => out.push(format!(
                "used {} ({}) < flush line {}: not near compaction yet",
                n(u),
                self.used_source,
                n(l)
            )),
            (None, _) => out.push(format!(
                "used tokens unknown ({}): OpenClaw would estimate them on the next turn",
                self.used_source
            )),
            (Some(u), None) => out.push(format!(
                "used {} ({}), no flush line",
                n(u),
                self.used_source
            )),
        }
        match self.memory_flush_compaction_count {
            Some(m) if self.flushed_this_cycle => out.push(format!(
                "memoryFlushCompactionCount {m} = compactionCount {}: already flushed this compaction cycle",
                self.compaction_count
            )),
            Some(m) => out.push(format!(
                "memoryFlushCompactionCount {m} ≠ compactionCount {}: not flushed this cycle",
                self.compaction_count
            )),
            None => out.push(format!("never flushed (no memoryFlushCompactionCount); compactionCount {}", self.compaction_count)),
        }
        out.push(if self.due {
            "flush due".into()
        } else {
            "flush not due".into()
        });
        out
    }
}

/// The `clawtop flush --json` object: `{"sessionKey", "target", "notes", "noReply",
/// "committed", "memoryFlushAt", "memoryFlushCompactionCount"}` (plus `warnings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushReport {
    pub session_key: String,
    pub target: PathBuf,
    pub notes: String,
    pub no_reply: bool,
    pub committed: bool,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
    pub warnings: Vec<String>,
}

impl FlushReport {
    /// A preview (nothing written). `notes`/`no_reply` are what would be committed
    /// (the draft's, or the operator's edited notes).
    pub fn preview(draft: &FlushDraft, notes: &str, no_reply: bool) -> Self {
        FlushReport {
            session_key: draft.session_key.clone(),
            target: draft.target.clone(),
            notes: notes.to_string(),
            no_reply,
            committed: false,
            memory_flush_at: None,
            memory_flush_compaction_count: None,
            warnings: draft.warnings.clone(),
        }
    }

    /// After [`commit_flush`].
    pub fn committed(draft: &FlushDraft, notes: &str, no_reply: bool, c: &FlushCommitted) -> Self {
        FlushReport {
            committed: true,
            target: c.target.clone(),
            memory_flush_at: c.memory_flush_at,
            memory_flush_compaction_count: c.memory_flush_compaction_count,
            ..Self::preview(draft, notes, no_reply)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gate_follows_the_cycle_rule() {
        let cfg = json!({});
        let e = json!({"compactionCount": 12, "memoryFlushCompactionCount": 11});
        let g = FlushGate::new(&cfg, &e, Some(24_000), Some(75_943), "fresh");
        assert!(g.due && !g.flushed_this_cycle);
        let e =
            json!({"compactionCount": 12, "memoryFlushCompactionCount": 12, "memoryFlushAt": 5});
        let g = FlushGate::new(&cfg, &e, Some(24_000), Some(75_943), "fresh");
        assert!(!g.due && g.flushed_this_cycle && g.memory_flush_at == Some(5));
        assert!(g.reasons().iter().any(|r| r.contains("already flushed")));
        // compactionCount absent counts as 0.
        let g = FlushGate::new(
            &cfg,
            &json!({"memoryFlushCompactionCount": 0}),
            Some(10),
            Some(5),
            "legacy",
        );
        assert!(g.flushed_this_cycle && !g.due);
        let g = FlushGate::new(&cfg, &json!({}), Some(10), None, "unknown");
        assert!(!g.flushed_this_cycle && !g.due);
        let off =
            json!({"agents": {"defaults": {"compaction": {"memoryFlush": {"enabled": false}}}}});
        let g = FlushGate::new(&off, &json!({}), Some(10), Some(50), "fresh");
        assert!(!g.enabled && !g.due && g.flush_line.is_none());
    }

    #[test]
    fn verdicts() {
        use crate::commit::Verdict;
        assert_eq!(
            FlushError::WorkspaceMissing { path: "/x".into() }.verdict(),
            Verdict::Failed
        );
        assert_eq!(
            FlushError::Refused { reason: "r".into() }.verdict(),
            Verdict::Refused
        );
        let busy = CommitError::Busy {
            pid: Some(1),
            lock_path: "/x.lock".into(),
        };
        assert_eq!(FlushError::Store(busy).verdict(), Verdict::Refused);
        assert_eq!(
            FlushError::Model(LlmError::Cancelled).verdict(),
            Verdict::Failed
        );
    }
}
