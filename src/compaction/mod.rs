//! A compaction from plan to committed entry, shared by the CLI and the TUI:
//! [`prepare`] (plan + the file state the preview was made on), [`summary_input`] (what the
//! model is asked), then [`commit`] of exactly the previewed text (docs/commit-protocol.md §2).

pub mod model;

use crate::commit::{self, CommitError, Expect, LockOptions, StoreRow};
use crate::jsjson;
use crate::plan::{self, CompactionPlan, NoPlan};
use crate::summary::SummaryInput;
use crate::tokens::{self, MessageView};
use crate::transcript::{EntryKind, Transcript, TranscriptError};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// A plan plus the exact file state it was computed on.
pub struct Prepared {
    pub transcript: Transcript,
    pub plan: CompactionPlan,
    pub expect: Expect,
}

#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    #[error(transparent)]
    Commit(#[from] CommitError),
    #[error("{path}: {reason}")]
    NoPlan { path: PathBuf, reason: NoPlan },
    #[error("{path}: {reason}")]
    Unsupported { path: PathBuf, reason: String },
}

impl PrepareError {
    pub fn verdict(&self) -> crate::commit::Verdict {
        match self {
            PrepareError::Commit(e) => e.verdict(),
            PrepareError::Unsupported { .. } => crate::commit::Verdict::Refused,
            _ => crate::commit::Verdict::Failed,
        }
    }
}

/// Opens the transcript and plans the compaction, recording length and leaf for the commit check.
pub fn prepare(path: &Path, keep_recent_tokens: u64) -> Result<Prepared, PrepareError> {
    // Capture first: if the file grows between the capture and the read, the lengths differ
    // and the commit refuses instead of trusting a plan made on other bytes.
    let expect = Expect::capture(path)?;
    // The plan and its outlook sum every context entry's figures: computed while indexing.
    let transcript = tokens::open_with_figures(path)?;
    if transcript.file_len != expect.len {
        return Err(CommitError::Changed {
            path: path.to_path_buf(),
            reason: "the file grew while it was being read".into(),
        }
        .into());
    }
    if transcript.header.is_none() {
        return Err(PrepareError::Unsupported {
            path: path.to_path_buf(),
            reason:
                "no session header: pi treats this file as invalid, so clawtop will not compact it"
                    .into(),
        });
    }
    let plan =
        plan::prepare(&transcript, keep_recent_tokens).map_err(|reason| PrepareError::NoPlan {
            path: path.to_path_buf(),
            reason,
        })?;
    if transcript.version >= 2 && transcript.entry_id(plan.leaf).is_none() {
        return Err(PrepareError::Unsupported {
            path: path.to_path_buf(),
            reason: "the last entry has no id, so a compaction cannot name its parent".into(),
        });
    }
    // An entry too large to decode cannot be sent to a model; summarizing around it would
    // silently drop it from the history.
    if let Some(&big) = plan
        .messages_to_summarize
        .iter()
        .chain(&plan.turn_prefix_messages)
        .find(|&&i| transcript.entries[i as usize].too_large().is_some())
    {
        let e = &transcript.entries[big as usize];
        return Err(PrepareError::Unsupported {
            path: path.to_path_buf(),
            reason: format!(
                "the entry on line {} ({} bytes) is too large to summarize; clawtop will not compact around it",
                e.line,
                e.too_large().map_or(0, |b| b.len)
            ),
        });
    }
    if plan.messages_to_summarize.is_empty() && plan.turn_prefix_messages.is_empty() {
        return Err(PrepareError::NoPlan {
            path: path.to_path_buf(),
            reason: NoPlan::TooSmall,
        });
    }
    Ok(Prepared {
        transcript,
        plan,
        expect,
    })
}

/// Decodes the messages the model will summarize.
pub fn summary_input(
    t: &Transcript,
    plan: &CompactionPlan,
    instructions: Option<String>,
) -> SummaryInput {
    let msgs = |idx: &[u32]| -> Vec<Value> {
        idx.iter()
            .filter_map(|&i| t.entry_json(i).ok())
            .filter_map(|v| tokens::message_of_entry(&v, MessageView::Compaction))
            .collect()
    };
    SummaryInput {
        messages_to_summarize: msgs(&plan.messages_to_summarize),
        turn_prefix_messages: msgs(&plan.turn_prefix_messages),
        is_split_turn: plan.cut.is_split_turn,
        previous_summary: plan.previous_summary.clone(),
        instructions,
        read_files: plan.read_files.clone(),
        modified_files: plan.modified_files.clone(),
    }
}

/// The estimate of the summary message a compaction entry becomes.
pub fn summary_tokens(summary: &str) -> u64 {
    tokens::estimate_message(&json!({"role": "compactionSummary", "summary": summary}))
}

/// The messages a plan keeps, from its first kept entry on (pure estimates: kept usage figures
/// predate the compaction).
pub fn kept_tokens(t: &Transcript, plan: &CompactionPlan) -> u64 {
    plan.path[plan.cut.first_kept..]
        .iter()
        .filter(|&&i| t.entries[i as usize].kind != EntryKind::Compaction)
        .map(|&i| tokens::estimate_entry(t, i, MessageView::Context))
        .sum()
}

/// Expected context once the compaction is in place, what the next call carries: the
/// overhead measured on the last call + the summary + the kept messages
/// ([`crate::used::expected_after`], the one definition). Written as the store's
/// `totalTokens`, so the store agrees with what clawtop estimates after the compaction.
pub fn tokens_after(t: &Transcript, plan: &CompactionPlan, summary: &str) -> u64 {
    crate::used::expected_after(
        crate::used::overhead_tokens(t),
        summary_tokens(summary),
        kept_tokens(t, plan),
    )
}

/// A fresh 8-hex entry id not used in the file (pi's `generateId`).
pub fn new_entry_id(t: &Transcript) -> String {
    for _ in 0..100 {
        let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
        if t.index_of_id(&id).is_none()
            && !(0..t.len() as u32).any(|i| t.written_id(i).as_deref() == Some(id.as_str()))
        {
            return id;
        }
    }
    uuid::Uuid::new_v4().to_string()
}

pub fn iso_now() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// The compaction line, in pi's key order. v1 files (no ids) get the legacy
/// `firstKeptEntryIndex` form, which pi's migration resolves when it loads the file.
pub fn entry_line(
    t: &Transcript,
    plan: &CompactionPlan,
    id: &str,
    timestamp: &str,
    summary: &str,
) -> Vec<u8> {
    entry_line_with(t, plan, id, timestamp, summary, None)
}

/// The flush of the cycle a compaction closes, as the store row showed it when the entry was
/// written (`memoryFlushCompactionCount == compactionCount`): recorded in the entry, so its
/// history knows the flush came first even where the store's count cannot be lined up with
/// the compactions on the branch.
pub fn flush_seen(entry: &Map<String, Value>) -> Option<Value> {
    let count = |k: &str| entry.get(k).and_then(crate::store_entry::non_negative);
    flush_record(
        count("compactionCount").unwrap_or(0),
        count("memoryFlushCompactionCount"),
        entry.get("memoryFlushAt").and_then(Value::as_i64),
    )
}

/// The record of the cycle's flush from the row's counters: `compactionCount` (0 when
/// absent), `memoryFlushCompactionCount`, `memoryFlushAt`; None when this cycle had none.
pub fn flush_record(
    compaction_count: u64,
    flushed_at_count: Option<u64>,
    at: Option<i64>,
) -> Option<Value> {
    (flushed_at_count == Some(compaction_count)).then(|| {
        json!({
            "memoryFlushCompactionCount": compaction_count,
            "memoryFlushAt": at,
        })
    })
}

/// [`entry_line`] whose record carries the flush of its cycle ([`flush_seen`]).
pub fn entry_line_with(
    t: &Transcript,
    plan: &CompactionPlan,
    id: &str,
    timestamp: &str,
    summary: &str,
    flush: Option<Value>,
) -> Vec<u8> {
    let mut m = Map::new();
    m.insert("type".into(), "compaction".into());
    // pi's two lists first, then clawtop's record of how the entry was planned (the audit's
    // boundary for it; pi and OpenClaw ignore the extra key).
    let mut record = plan::record(plan);
    if let (Some(f), Some(r)) = (flush, record.as_object_mut()) {
        r.insert("flush".into(), f);
    }
    let details = json!({
        "readFiles": plan.read_files,
        "modifiedFiles": plan.modified_files,
        plan::RECORD_KEY: record,
    });
    if t.version >= 2 {
        m.insert("id".into(), id.into());
        m.insert(
            "parentId".into(),
            t.entry_id(plan.leaf)
                .as_deref()
                .map(Value::from)
                .unwrap_or(Value::Null),
        );
        m.insert("timestamp".into(), timestamp.into());
        m.insert("summary".into(), summary.into());
        m.insert(
            "firstKeptEntryId".into(),
            t.entry_id(plan.first_kept_entry)
                .as_deref()
                .map(Value::from)
                .unwrap_or(Value::Null),
        );
    } else {
        m.insert("timestamp".into(), timestamp.into());
        m.insert("summary".into(), summary.into());
        // The legacy index counts the header as entry 0.
        m.insert(
            "firstKeptEntryIndex".into(),
            (plan.first_kept_entry as u64 + 1).into(),
        );
    }
    m.insert("tokensBefore".into(), plan.tokens_before.into());
    m.insert("details".into(), details);
    // Written like pi's own compactions, so the next compaction carries these file lists on.
    m.insert("fromHook".into(), false.into());
    jsjson::stringify(&Value::Object(m)).into_bytes()
}

#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Committed {
    /// Id of the new entry (None for v1 files, whose ids pi assigns on load).
    pub entry_id: Option<String>,
    pub tokens_after: u64,
    pub store_updated: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum CompactCommitError {
    /// Refused or failed before anything reached the transcript (or the append was undone).
    #[error(transparent)]
    Transcript(CommitError),
    /// The transcript got the compaction but the store write failed afterwards; the append
    /// was undone when the file still ended with exactly our bytes (`rolled_back`).
    #[error("{}", store_message(.transcript, .entry, *.rolled_back, .source))]
    Store {
        transcript: PathBuf,
        entry: String,
        rolled_back: bool,
        #[source]
        source: CommitError,
    },
}

fn store_message(
    transcript: &Path,
    entry: &str,
    rolled_back: bool,
    source: &CommitError,
) -> String {
    if rolled_back {
        format!(
            "the session store could not be updated ({source}); the compaction entry was removed again from {}, nothing changed",
            transcript.display()
        )
    } else {
        format!(
            "compaction appended to {} (entry {entry}), but the session store was not updated: {source}",
            transcript.display()
        )
    }
}

impl CompactCommitError {
    pub fn verdict(&self) -> crate::commit::Verdict {
        match self {
            CompactCommitError::Transcript(e) => e.verdict(),
            CompactCommitError::Store {
                rolled_back: true,
                source,
                ..
            } => source.verdict(),
            CompactCommitError::Store { .. } => crate::commit::Verdict::Failed,
        }
    }
}

/// Appends the compaction entry carrying exactly `summary`, then updates the store row.
///
/// With a store, everything happens under `sessions.json.lock`: the row is checked first
/// (same sessionId, patch computable), then the transcript is appended, then the store is
/// written. So a store problem found up front writes nothing, and a store write that fails
/// after the append removes the appended line again when nobody wrote after it.
pub fn commit(
    p: &Prepared,
    summary: &str,
    session: Option<&StoreRow>,
) -> Result<Committed, CompactCommitError> {
    let t = &p.transcript;
    let id = new_entry_id(t);
    let timestamp = iso_now();
    let tokens_after = tokens_after(t, &p.plan, summary);
    let entry_id = if t.version >= 2 {
        Some(id.clone())
    } else {
        None
    };
    let Some(s) = session else {
        let line = entry_line(t, &p.plan, &id, &timestamp, summary);
        commit::append_line(t.path(), &p.expect, &line).map_err(CompactCommitError::Transcript)?;
        return Ok(Committed {
            entry_id,
            tokens_after,
            store_updated: false,
        });
    };
    let now = chrono::Utc::now().timestamp_millis();
    let store_lock = commit::StoreLock::acquire(&s.store_path, &Default::default())
        .map_err(CompactCommitError::Transcript)?;
    let mut appended: Option<commit::HeldAppend> = None;
    let mut append_error: Option<CommitError> = None;
    let result = store_lock.patch_entry(&s.session_key, |e| {
        commit::require_string_field(&s.store_path, e, "sessionId", &s.session_id)?;
        let ops = commit::compaction_patch(&s.store_path, e, tokens_after, now)?;
        // The row as it is under the lock says whether this cycle was flushed.
        let line = entry_line_with(t, &p.plan, &id, &timestamp, summary, flush_seen(e));
        match commit::append_line_held(t.path(), &p.expect, &line, &LockOptions::transcript()) {
            Ok(o) => appended = Some(o),
            Err(err) => {
                append_error = Some(err);
                return Err(CommitError::Refused {
                    reason: "transcript append failed".into(),
                });
            }
        }
        Ok(ops)
    });
    // Both locks are still held here: whatever happens to the appended line happens before
    // OpenClaw may append after it.
    let out = match result {
        Ok(_) => {
            if let Some(a) = appended {
                a.keep();
            }
            Ok(Committed {
                entry_id,
                tokens_after,
                store_updated: true,
            })
        }
        Err(source) => {
            if let Some(err) = append_error {
                Err(CompactCommitError::Transcript(err))
            } else {
                match appended {
                    None => Err(CompactCommitError::Transcript(source)),
                    Some(a) => Err(CompactCommitError::Store {
                        transcript: t.path().to_path_buf(),
                        entry: id,
                        rolled_back: a.undo(),
                        source,
                    }),
                }
            }
        }
    };
    store_lock.release();
    out
}
