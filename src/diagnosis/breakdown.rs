//! What the context is made of (the `/context` view operators know from Claude Code): the
//! overhead by source, the compaction summary, and the messages by kind, against the window
//! and the flush and compaction lines. Message parts are pi's estimates (`ceil(chars/4)` per
//! kind, so the kinds can sum a few tokens above the per-message estimate).

use super::overhead::Overhead;
use crate::context::{self, SessionContext};
use crate::jsjson::ceil_div4;
use crate::tokens;
use crate::transcript::{MessageClass, MessageFigures, Transcript};
use serde::Serialize;

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
    /// The sum of the parts: the transcript's context when `breaksDown` says so.
    pub total_tokens: u64,
    /// What `totalTokens` is: "transcriptContext" when the parts were reconciled with the
    /// transcript's context (the overhead was measured on its last call), else "estimates"
    /// (the parts as estimated, reconciled with nothing).
    pub breaks_down: &'static str,
    /// The session's one context figure (SPEC §3 "used"), which the room to each line is
    /// measured from, as on every other surface; None when it is unknown.
    pub used: Option<u64>,
    pub window: u64,
    pub flush_at: Option<u64>,
    pub compact_at: u64,
    /// Room left from `used` to each line ([`crate::thresholds::room`]); negative when used
    /// is past it; None when used is unknown.
    pub free_to_flush: Option<i64>,
    pub free_to_compaction: Option<i64>,
    pub free_to_window: Option<i64>,
}

/// The lines a breakdown is set against, and the figure measured against them.
#[derive(Debug, Clone, Copy)]
pub struct Against {
    pub used: Option<u64>,
    pub window: u64,
    pub flush_at: Option<u64>,
    pub compact_at: u64,
}

pub const KINDS: [&str; 6] = [
    "user",
    "assistant text",
    "thinking",
    "tool calls",
    "tool results",
    "other messages",
];

/// Adds one context slot's characters by kind (index into [`KINDS`]): an assistant's by
/// block kind, any other message's as one estimate (pi's rules, images included).
fn kind_chars(f: &MessageFigures, acc: &mut [usize; 6]) {
    let as_chars = 4 * f.tokens as usize;
    match f.class {
        MessageClass::Assistant => {
            acc[1] += f.text as usize;
            acc[2] += f.thinking as usize;
            acc[3] += f.tool as usize;
        }
        MessageClass::User => acc[0] += as_chars,
        MessageClass::ToolResult => acc[4] += as_chars,
        MessageClass::Other | MessageClass::None => acc[5] += as_chars,
    }
}

/// `of`: the figure this breaks down (the transcript's context when the overhead was measured
/// on its last call). The messages' parts are estimated per kind of content, which rounds
/// each kind once where pi's estimate (and so the overhead, the last prompt minus it) rounds
/// each message: the few tokens between them are a part of their own, so the parts sum to
/// the figure.
pub fn breakdown(
    t: &Transcript,
    overhead: Option<&Overhead>,
    of: Option<u64>,
    against: Against,
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
    // In the context view a compaction yields no message of its own.
    let mut add = |f: MessageFigures| {
        if !f.compaction {
            kind_chars(&f, &mut acc);
        }
    };
    // An entry too large to decode has no message to break down.
    let messages = ctx
        .slots
        .iter()
        .filter(|s| !s.as_summary && t.entries[s.entry as usize].too_large().is_none());
    for &slot in ctx.slots.iter().filter(|s| s.as_summary) {
        summary += context::summary_tokens(t, slot.entry);
    }
    let idxs: Vec<u32> = messages.map(|s| s.entry).collect();
    tokens::each_figures(t, &idxs, |_, f| add(f));
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
    let mut total: u64 = parts.iter().map(|p| p.tokens).sum();
    if let Some(rest) = of.and_then(|f| f.checked_sub(total)).filter(|&r| r > 0) {
        parts.push(Part {
            group: "messages",
            name: "per-message rounding".into(),
            tokens: rest,
        });
        total += rest;
    }
    let Against {
        used,
        window,
        flush_at,
        compact_at,
    } = against;
    let room = |line: u64| used.map(|u| crate::thresholds::room(u, line));
    Breakdown {
        total_tokens: total,
        breaks_down: if of.is_some() {
            "transcriptContext"
        } else {
            "estimates"
        },
        used,
        window,
        flush_at,
        compact_at,
        free_to_flush: flush_at.and_then(room),
        free_to_compaction: room(compact_at),
        free_to_window: room(window),
        parts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: Against = Against {
        used: Some(160_000),
        window: 200_000,
        flush_at: Some(150_000),
        compact_at: 180_000,
    };

    /// A transcript too long to keep a figures table is broken down from its entries read in
    /// passes, and one opened with its figures computed while indexing from those: the same
    /// parts as with the table filled on demand, on every fixture transcript.
    #[test]
    fn without_the_figures_table_the_breakdown_is_the_same() {
        let files = crate::transcript::fixture_transcripts();
        let mut with_messages = 0;
        let mut fused_entries = 0;
        for f in &files {
            let with = Transcript::open(f).unwrap();
            let without = Transcript::open(f).unwrap().without_figures_table();
            // The figures computed while indexing (what the compaction plan opens with).
            let fused = tokens::open_with_figures(f).unwrap();
            assert!(with.keeps_figures() && !without.keeps_figures());
            fused_entries += (0..fused.len() as u32)
                .filter(|&i| fused.has_figures(i))
                .count();
            let a = breakdown(&with, None, None, LINES);
            let b = breakdown(&without, None, None, LINES);
            let c = breakdown(&fused, None, None, LINES);
            assert_eq!(a, b, "{}", f.display());
            assert_eq!(a, c, "{} (fused)", f.display());
            with_messages += usize::from(a.total_tokens > 0);
        }
        assert!(with_messages >= 10);
        assert!(
            fused_entries > 500,
            "{fused_entries} entries computed while indexing"
        );
    }
}
