//! What the context is made of (the `/context` view operators know from Claude Code): the
//! overhead by source, the compaction summary, and the messages by kind, against the window
//! and the flush and compaction lines. Message parts are pi's estimates (`ceil(chars/4)` per
//! kind, so the kinds can sum a few tokens above the per-message estimate).

use super::overhead::Overhead;
use crate::context::{self, SessionContext};
use crate::jsjson::{ceil_div4, stringify_len, utf16_len};
use crate::tokens;
use crate::transcript::Transcript;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// "overhead" | "summary" | "messages".
    pub group: &'static str,
    pub name: String,
    pub tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    pub parts: Vec<Part>,
    pub total_tokens: u64,
    pub window: u64,
    pub flush_at: Option<u64>,
    pub compact_at: u64,
    /// Room left to each line; negative when the context is past it.
    pub free_to_flush: Option<i64>,
    pub free_to_compaction: i64,
    pub free_to_window: i64,
}

pub const KINDS: [&str; 6] = [
    "user",
    "assistant text",
    "thinking",
    "tool calls",
    "tool results",
    "other messages",
];

fn str_chars(v: Option<&Value>) -> usize {
    v.and_then(Value::as_str).map(utf16_len).unwrap_or(0)
}

/// Characters of one message by kind (index into [`KINDS`]).
fn kind_chars(m: &Value, acc: &mut [usize; 6]) {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    match role {
        "assistant" => {
            if let Some(Value::Array(blocks)) = m.get("content") {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => acc[1] += str_chars(b.get("text")),
                        Some("thinking") => acc[2] += str_chars(b.get("thinking")),
                        Some("toolCall") => {
                            acc[3] += str_chars(b.get("name"))
                                + b.get("arguments").map(stringify_len).unwrap_or(0)
                        }
                        _ => {}
                    }
                }
            }
        }
        // One estimate per message for the others (pi's rules, images included).
        "user" => acc[0] += 4 * tokens::estimate_message(m) as usize,
        "toolResult" => acc[4] += 4 * tokens::estimate_message(m) as usize,
        _ => acc[5] += 4 * tokens::estimate_message(m) as usize,
    }
}

pub fn breakdown(
    t: &Transcript,
    overhead: Option<&Overhead>,
    window: u64,
    flush_at: Option<u64>,
    compact_at: u64,
) -> Breakdown {
    let ctx: SessionContext = context::build(t, t.leaf());
    let mut parts = Vec::new();
    if let Some(o) = overhead {
        for p in &o.parts {
            parts.push(Part {
                group: "overhead",
                name: p.name.clone(),
                tokens: p.tokens,
            });
        }
    }
    let mut acc = [0usize; 6];
    let mut summary = 0u64;
    for &slot in &ctx.slots {
        let Some(m) = context::slot_message(t, slot) else {
            continue;
        };
        if slot.as_summary {
            summary += tokens::estimate_message(&m);
        } else {
            kind_chars(&m, &mut acc);
        }
    }
    if ctx.compaction.is_some() {
        parts.push(Part {
            group: "summary",
            name: "compaction summary".into(),
            tokens: summary,
        });
    }
    for (k, name) in KINDS.iter().enumerate() {
        if acc[k] > 0 || k < 5 {
            parts.push(Part {
                group: "messages",
                name: name.to_string(),
                tokens: ceil_div4(acc[k]),
            });
        }
    }
    let total: u64 = parts.iter().map(|p| p.tokens).sum();
    let free = |line: u64| line as i64 - total as i64;
    Breakdown {
        total_tokens: total,
        window,
        flush_at,
        compact_at,
        free_to_flush: flush_at.map(free),
        free_to_compaction: free(compact_at),
        free_to_window: free(window),
        parts,
    }
}
