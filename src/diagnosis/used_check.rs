//! The "now" figures reconciled. OpenClaw decides flush and compaction on the store's
//! `totalTokens` (`used`); the transcript says what the last model call actually carried
//! (pi's context estimate of the active branch). They differ for known reasons, named here:
//! OpenClaw 2026.2.x stores the prompts of *all calls of the last run added up* (`run-sum`;
//! 2026.9 fixed this, see docs/numbers.md), or the store was written before a compaction or
//! a newer call (`stale`).

use crate::context;
use crate::thresholds::{UsedSource, thousands};
use crate::tokens;
use crate::transcript::{EntryKind, Role, Transcript};
use serde::Serialize;
use serde_json::Value;

/// pi's context estimate of the active branch (`estimateContextTokens(buildSessionContext())`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptContext {
    pub tokens: u64,
    /// The last valid assistant usage in the context (`calculateContextTokens`).
    pub usage_tokens: u64,
    /// Estimate of the messages after that assistant message.
    pub trailing_tokens: u64,
    /// Id of the entry whose usage was taken (None: no usage, or a v1 file without ids).
    pub entry_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UsedCheck {
    Equal,
    RunSum,
    Stale,
    Differs,
    Unknown,
}

impl UsedCheck {
    pub fn name(self) -> &'static str {
        match self {
            UsedCheck::Equal => "equal",
            UsedCheck::RunSum => "run-sum",
            UsedCheck::Stale => "stale",
            UsedCheck::Differs => "differs",
            UsedCheck::Unknown => "unknown",
        }
    }
}

/// One model call of the last run: the assistant entry and the prompt it was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub entry: u32,
    /// `input + cacheRead + cacheWrite`: what the call was sent.
    pub prompt_tokens: u64,
    /// `message.timestamp` (ms) when present.
    pub at_ms: Option<i64>,
}

pub fn transcript_context(t: &Transcript) -> TranscriptContext {
    let ctx = context::build(t, t.leaf());
    let e = context::estimate(t, &ctx);
    let entry_id = e
        .last_usage_index
        .and_then(|k| ctx.slots.get(k))
        .and_then(|s| t.entry_id(s.entry))
        .map(str::to_string);
    TranscriptContext {
        tokens: e.tokens,
        usage_tokens: e.usage_tokens,
        trailing_tokens: e.trailing_tokens,
        entry_id,
    }
}

fn n(v: Option<&Value>) -> u64 {
    v.and_then(crate::store::sessions::non_negative)
        .unwrap_or(0)
}

/// The prompt a call was sent, from its usage.
pub fn prompt_tokens(usage: &Value) -> u64 {
    n(usage.get("input")) + n(usage.get("cacheRead")) + n(usage.get("cacheWrite"))
}

/// The assistant calls after the last user message of the active branch (the last run).
pub fn last_run_calls(t: &Transcript) -> Vec<Call> {
    let path = t.active_branch();
    let start = path
        .iter()
        .rposition(|&i| t.entries[i as usize].kind == EntryKind::Message(Role::User))
        .map(|p| p + 1)
        .unwrap_or(0);
    let mut calls = Vec::new();
    for &i in &path[start..] {
        if t.entries[i as usize].kind != EntryKind::Message(Role::Assistant) {
            continue;
        }
        let Ok(v) = t.entry_json(i) else { continue };
        let Some(m) = v.get("message") else { continue };
        let Some(u) = tokens::valid_usage(m) else {
            continue;
        };
        calls.push(Call {
            entry: i,
            prompt_tokens: prompt_tokens(u),
            at_ms: m.get("timestamp").and_then(Value::as_i64),
        });
    }
    calls
}

fn entry_time_ms(t: &Transcript, i: u32) -> Option<i64> {
    let v = t.entry_json(i).ok()?;
    let from_iso = v
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.timestamp_millis());
    from_iso.or_else(|| {
        v.get("message")
            .and_then(|m| m.get("timestamp"))
            .and_then(Value::as_i64)
    })
}

/// What the store said, for the check.
#[derive(Debug, Clone, Copy)]
pub struct StoreFigure {
    pub used: Option<u64>,
    pub source: UsedSource,
    pub updated_at: Option<i64>,
}

/// Compares the store's figure with the transcript's and says why they differ.
pub fn check(t: &Transcript, tc: &TranscriptContext, store: StoreFigure) -> (UsedCheck, String) {
    let used = match (store.used, store.source) {
        (Some(u), UsedSource::Fresh | UsedSource::Legacy) => u,
        (_, UsedSource::Estimated) => {
            return (
                UsedCheck::Unknown,
                "the store has no fresh totalTokens; used is the transcript's own figure".into(),
            );
        }
        _ => {
            return (
                UsedCheck::Unknown,
                "neither the store nor the transcript has a figure to compare".into(),
            );
        }
    };
    if tc.usage_tokens == 0 && tc.trailing_tokens == 0 {
        return (
            UsedCheck::Unknown,
            format!(
                "the store says {}, the transcript has nothing to compare it with",
                thousands(used)
            ),
        );
    }
    if used == tc.tokens {
        return (
            UsedCheck::Equal,
            format!(
                "the store's {} equals the transcript's context estimate",
                thousands(used)
            ),
        );
    }
    let path = t.active_branch();
    if let Some(updated) = store.updated_at {
        let last_compaction = path
            .iter()
            .rev()
            .find(|&&i| t.entries[i as usize].kind == EntryKind::Compaction);
        if let Some(&c) = last_compaction {
            if let Some(at) = entry_time_ms(t, c).filter(|&at| at > updated) {
                return (
                    UsedCheck::Stale,
                    format!(
                        "the store's {} was written {} before the last compaction (entry {}); the transcript now says {}",
                        thousands(used),
                        crate::diagnosis::duration_words(at - updated),
                        t.display_id(c),
                        thousands(tc.tokens)
                    ),
                );
            }
        }
        let newest_call = path.iter().rev().find_map(|&i| {
            if t.entries[i as usize].kind != EntryKind::Message(Role::Assistant) {
                return None;
            }
            let at = entry_time_ms(t, i)?;
            Some((i, at))
        });
        if let Some((i, at)) = newest_call.filter(|&(_, at)| at > updated) {
            return (
                UsedCheck::Stale,
                format!(
                    "the store's {} was written {} before the newest model call (entry {}); the transcript now says {}",
                    thousands(used),
                    crate::diagnosis::duration_words(at - updated),
                    t.display_id(i),
                    thousands(tc.tokens)
                ),
            );
        }
    }
    let calls = last_run_calls(t);
    let sum: u64 = calls.iter().map(|c| c.prompt_tokens).sum();
    if calls.len() > 1 && sum == used {
        let parts: Vec<String> = calls
            .iter()
            .map(|c| format!("{} ({})", thousands(c.prompt_tokens), t.display_id(c.entry)))
            .collect();
        return (
            UsedCheck::RunSum,
            format!(
                "the store's {} is the sum of the last run's {} model calls, {} (OpenClaw before 2026.9 adds them up); the last call's context was {}",
                thousands(used),
                calls.len(),
                parts.join(" + "),
                thousands(tc.tokens)
            ),
        );
    }
    (
        UsedCheck::Differs,
        format!(
            "the store says {}, the transcript {}; neither the last run's calls ({} over {} call{}) nor a later write explains the difference",
            thousands(used),
            thousands(tc.tokens),
            thousands(sum),
            calls.len(),
            if calls.len() == 1 { "" } else { "s" }
        ),
    )
}
