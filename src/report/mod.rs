//! `list`, `show` and `compact --dry-run` as data (serde, camelCase, stable key order) and as
//! plain text, over the numbers of [`crate::numbers`].

pub mod audit;
pub mod check;
pub mod compact;
pub mod diagnosis;
pub mod entries;
pub mod history;
pub mod json;
pub mod list;
pub mod metrics;
pub mod show;
pub mod text;

use crate::source::Session;
use crate::thresholds::{Rules, Source, Status, Thresholds, UsedSource};
use serde::Serialize;
use serde_json::Value;

/// One session as `list --json` prints it (key order is part of the interface).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    pub agent_id: Option<String>,
    pub session_key: Option<String>,
    pub session_id: Option<String>,
    pub transcript: Option<String>,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub window: u64,
    pub window_source: Source,
    pub used: Option<u64>,
    pub used_source: UsedSource,
    pub reserve: u64,
    pub compact_at: u64,
    pub flush_at: Option<u64>,
    pub compaction_count: Option<u64>,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
    pub flushed_this_cycle: bool,
    pub status: Status,
    pub flush_reason: String,
    /// The transcript's view of the context now (null: no transcript was read).
    pub transcript_context: Option<crate::used::TranscriptContext>,
    /// The store's `totalTokens` against the transcript ([`crate::used`]).
    pub used_check: crate::used::UsedCheck,
    pub used_check_reason: String,
    /// A live OpenClaw turn holding `<transcript>.lock`, or null.
    pub busy: Option<crate::diagnosis::Busy>,
    /// A stale `<transcript>.lock` left behind, in words ([`crate::diagnosis::busy::stale_lock_words`]).
    pub stale_lock: Option<String>,
    pub total_tokens: Option<Value>,
    pub total_tokens_fresh: Option<Value>,
    pub context_tokens: Option<Value>,
    pub updated_at: Option<i64>,
    pub warnings: Vec<String>,
    /// Whose arithmetic made the numbers: `"2026.2"` (file-backed releases) or `"2026.9"`.
    pub rules: Rules,
    /// 2026.9 `memoryFlush.kind` of the last flush (`succeeded`, `failed`).
    pub memory_flush_kind: Option<String>,
    /// 2026.9 `totalTokensVersion` (1: `totalTokens` is the last call's prompt).
    pub total_tokens_version: Option<u64>,
    /// Where this session's data came from.
    pub data_source: Option<DataSource>,
    /// Figures the source cannot read (`compactionCount`, `memoryFlush`, `compactionSummary`)
    /// and why: their fields above are null because they are unknown, not zero.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub unknown: std::collections::BTreeMap<String, String>,
    /// Tokens per turn and turns left to each line (SPEC §3), from the transcript's tail.
    pub forecast: Option<crate::history::Forecast>,
}

/// Where a session's entry and transcript were read.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DataSource {
    /// `file`, `sqlite`, `transcript` (the source's kind).
    pub kind: &'static str,
    /// The store entry: a `sessions.json` path, or `<database>#session_nodes/<key>`.
    pub entry: Option<String>,
    /// The transcript: a JSONL path, or `<database>#<sessionId>` (its `transcript_events` rows).
    pub transcript: Option<String>,
}

impl SessionRow {
    pub fn from_session(
        kind: &'static str,
        s: &Session,
        t: &Thresholds,
        warnings: Vec<String>,
    ) -> SessionRow {
        let e = &s.entry;
        SessionRow {
            data_source: Some(DataSource {
                kind,
                entry: s.entry_from.clone(),
                transcript: s.transcript.clone(),
            }),
            agent_id: Some(s.agent_id().to_string()),
            session_key: Some(s.key().to_string()),
            session_id: Some(e.session_id.clone()),
            transcript: s.transcript.clone(),
            model: e.model.clone(),
            model_provider: e.model_provider.clone(),
            total_tokens: e.total_tokens_raw.clone(),
            total_tokens_fresh: e.total_tokens_fresh_raw.clone(),
            context_tokens: e.context_tokens_raw.clone(),
            updated_at: e.updated_at,
            warnings,
            ..Self::numbers(t)
        }
    }

    /// The numeric part; identity fields empty.
    pub fn numbers(t: &Thresholds) -> SessionRow {
        SessionRow {
            agent_id: None,
            session_key: None,
            session_id: None,
            transcript: None,
            model: None,
            model_provider: None,
            window: t.window,
            window_source: t.window_source,
            used: t.used,
            used_source: t.used_source,
            reserve: t.reserve,
            compact_at: t.compact_at,
            flush_at: t.flush_at,
            compaction_count: t.compaction_count,
            memory_flush_at: t.memory_flush_at,
            memory_flush_compaction_count: t.memory_flush_compaction_count,
            flushed_this_cycle: t.flushed_this_cycle,
            status: t.status,
            flush_reason: t.flush_reason.clone(),
            transcript_context: t.transcript_context.clone(),
            used_check: t.used_check,
            used_check_reason: t.used_check_reason.clone(),
            busy: None,
            stale_lock: None,
            total_tokens: None,
            total_tokens_fresh: None,
            context_tokens: None,
            updated_at: None,
            warnings: Vec::new(),
            rules: t.rules,
            memory_flush_kind: t.memory_flush_kind.clone(),
            total_tokens_version: t.total_tokens_version,
            data_source: None,
            unknown: t
                .unknown
                .iter()
                .map(|(f, why)| (f.to_string(), why.clone()))
                .collect(),
            forecast: None,
        }
    }
}
