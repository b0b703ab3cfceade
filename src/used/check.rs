//! The model calls of the last run the store-versus-transcript check (`usedCheck`, the type in
//! `crate::thresholds`) reasons with. The check itself is made in [`crate::used`]:
//! OpenClaw 2026.2.x stores the prompts of *all calls of the last run added up* (`run-sum`;
//! 2026.9 fixed this, see docs/numbers.md), or one side was written before a compaction or a
//! newer call (`stale`).

use crate::tokens;
use crate::transcript::{EntryKind, Role, Transcript};
use serde_json::Value;

/// One model call of the last run: the assistant entry and the prompt it was sent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Call {
    pub entry: u32,
    /// `input + cacheRead + cacheWrite`: what the call was sent.
    pub prompt_tokens: u64,
    /// `message.timestamp` (ms) when present.
    pub at_ms: Option<i64>,
}

fn n(v: Option<&Value>) -> u64 {
    v.and_then(crate::store_entry::non_negative).unwrap_or(0)
}

/// The prompt a call was sent, from its usage.
pub fn prompt_tokens(usage: &Value) -> u64 {
    n(usage.get("input")) + n(usage.get("cacheRead")) + n(usage.get("cacheWrite"))
}

/// The assistant calls after the last user message of the active branch (the last run).
pub fn last_run_calls(t: &Transcript) -> Vec<Call> {
    last_run_calls_with(t, |i| t.entry_json(i).ok().map(std::sync::Arc::new))
}

/// [`last_run_calls`], each entry decoded by `entry` (`used::facts` decodes the entries it
/// reads once, for all its figures).
pub fn last_run_calls_with(
    t: &Transcript,
    mut entry: impl FnMut(u32) -> Option<std::sync::Arc<Value>>,
) -> Vec<Call> {
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
        let Some(v) = entry(i) else { continue };
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
