//! What the model sees: pi's `buildSessionContext` (docs/pi-compaction.md §1)
//! and the "current context tokens" of a session (docs/pi-compaction.md §3, docs/numbers.md §2).

use crate::tokens::{self, ContextEstimate, MessageView};
use crate::transcript::{EntryKind, Role, Transcript};
use serde_json::Value;

/// One message of the context, named by the entry it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub entry: u32,
    /// The compaction entry's summary (emitted first), rather than the entry itself.
    pub as_summary: bool,
}

#[derive(Debug, Clone, Default)]
pub struct SessionContext {
    pub slots: Vec<Slot>,
    pub thinking_level: String,
    /// (provider, modelId) of the latest model_change or assistant on the path.
    pub model: Option<(String, String)>,
    /// The compaction that shapes the context (the last one on the path).
    pub compaction: Option<u32>,
    /// Index on the branch path of that compaction's first kept entry, if it is on the path.
    pub first_kept: Option<u32>,
}

/// `buildSessionContext(entries, leaf)`: the slots in order, plus model and thinking level.
pub fn build(t: &Transcript, leaf: Option<u32>) -> SessionContext {
    let path = t.branch(leaf);
    let mut ctx = SessionContext {
        thinking_level: "off".into(),
        ..Default::default()
    };
    // Each thinking-level and model change overrides the one before, so only the last that
    // decodes counts: found from the end, so a long branch's hundreds of changes are not all
    // read. Only the fields read are decoded ([`Transcript::entry_fields`]).
    let text = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).unwrap_or("").to_string();
    if let Some([level]) = newest(t, &path, EntryKind::ThinkingLevelChange, ["thinkingLevel"]) {
        ctx.thinking_level = text(&level);
    }
    if let Some([p, m]) = newest(t, &path, EntryKind::ModelChange, ["provider", "modelId"]) {
        ctx.model = Some((text(&p), text(&m)));
    }
    let compaction_pos = path
        .iter()
        .rposition(|&i| t.entries[i as usize].kind == EntryKind::Compaction);
    // The model also follows the last assistant message; scanning from the end avoids
    // decoding every assistant of a long branch.
    let last_model_change = path
        .iter()
        .rposition(|&i| t.entries[i as usize].kind == EntryKind::ModelChange);
    if let Some(pos) = path
        .iter()
        .rposition(|&i| t.entries[i as usize].kind == EntryKind::Message(Role::Assistant))
    {
        if last_model_change.is_none_or(|m| pos > m) {
            if let Some(model) = reply_model(t, path[pos]) {
                ctx.model = Some(model);
            }
        }
    }
    let push = |ctx: &mut SessionContext, i: u32| {
        if tokens::kind_yields_message(t.entries[i as usize].kind, MessageView::Context) {
            ctx.slots.push(Slot {
                entry: i,
                as_summary: false,
            });
        }
    };
    match compaction_pos {
        None => {
            for &i in &path {
                push(&mut ctx, i);
            }
        }
        Some(cpos) => {
            let c = path[cpos];
            ctx.compaction = Some(c);
            ctx.slots.push(Slot {
                entry: c,
                as_summary: true,
            });
            let first_kept = t.first_kept(c);
            let start = first_kept.and_then(|fk| path[..cpos].iter().position(|&i| i == fk));
            ctx.first_kept = start.map(|s| path[s]);
            if let Some(s) = start {
                for &i in &path[s..cpos] {
                    push(&mut ctx, i);
                }
            }
            for &i in &path[cpos + 1..] {
                push(&mut ctx, i);
            }
        }
    }
    ctx
}

/// Fields `names` of the newest entry of `kind` on `path` that decodes.
fn newest<const N: usize>(
    t: &Transcript,
    path: &[u32],
    kind: EntryKind,
    names: [&str; N],
) -> Option<[Option<Value>; N]> {
    path.iter()
        .rev()
        .filter(|&&i| t.entries[i as usize].kind == kind)
        .find_map(|&i| t.entry_fields(i, names).ok())
}

/// A reply's `message.provider` and `message.model` (a missing or non-string one reads as ""),
/// None when the entry does not decode. Read from the entry's head ([`Transcript::slim`], which
/// the estimate and the forecast read too), since a reply's content is most of its bytes; a
/// line that shape does not take (a repeated key, a field of another type) is decoded whole.
fn reply_model(t: &Transcript, i: u32) -> Option<(String, String)> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let of = |v: &Value| {
        let m = v.get("message");
        (
            text(m.and_then(|m| m.get("provider"))),
            text(m.and_then(|m| m.get("model"))),
        )
    };
    match t.slim(i) {
        Some(head) => Some(of(&head)),
        None => t.entry_json(i).ok().map(|v| of(&v)),
    }
}

/// The AgentMessage for a slot.
pub fn slot_message(t: &Transcript, slot: Slot) -> Option<Value> {
    let v = t.entry_json(slot.entry).ok()?;
    if slot.as_summary {
        Some(tokens::compaction_summary_message(&v))
    } else {
        tokens::message_of_entry(&v, MessageView::Context)
    }
}

/// The token estimate of one slot's message (from the transcript's memo).
pub fn slot_tokens(t: &Transcript, slot: Slot) -> u64 {
    if slot.as_summary {
        summary_tokens(t, slot.entry)
    } else {
        tokens::estimate_entry(t, slot.entry, MessageView::Context)
    }
}

/// The estimate of the `compactionSummary` message compaction entry `c` becomes.
pub fn summary_tokens(t: &Transcript, c: u32) -> u64 {
    let f = tokens::entry_figures(t, c);
    if f.compaction {
        return u64::from(f.tokens);
    }
    // Not a compaction by its own `type`, or unreadable: as the decoded message says.
    slot_message(
        t,
        Slot {
            entry: c,
            as_summary: true,
        },
    )
    .map_or(0, |m| tokens::estimate_message(&m))
}

/// The figures of the messages of `slots`, each entry read once (in one pass), for figures
/// that sum the whole context.
pub fn prefill(t: &Transcript, slots: &[Slot]) {
    let idxs: Vec<u32> = slots.iter().map(|s| s.entry).collect();
    tokens::prefill_figures(t, &idxs);
}

/// All messages of the context (decodes every slot; use for prompts, not for figures).
pub fn messages(t: &Transcript, ctx: &SessionContext) -> Vec<Value> {
    ctx.slots
        .iter()
        .filter_map(|&s| slot_message(t, s))
        .collect()
}

/// `estimateContextTokens` over the context, decoding only the tail after the last usage.
pub fn estimate(t: &Transcript, ctx: &SessionContext) -> ContextEstimate {
    let mut trailing = 0u64;
    for (k, &slot) in ctx.slots.iter().enumerate().rev() {
        match read_slot(t, slot) {
            SlotFigure::Usage(usage_tokens) => {
                return ContextEstimate {
                    tokens: usage_tokens + trailing,
                    usage_tokens,
                    trailing_tokens: trailing,
                    last_usage_index: Some(k),
                };
            }
            SlotFigure::Estimate(n) => trailing += n,
        }
    }
    ContextEstimate {
        tokens: trailing,
        usage_tokens: 0,
        trailing_tokens: trailing,
        last_usage_index: None,
    }
}

/// What one slot adds to [`estimate`] read from the end.
enum SlotFigure {
    /// A measured call: its usage is the context up to here.
    Usage(u64),
    /// pi's estimate of the message (0 for an entry that gives none).
    Estimate(u64),
}

fn read_slot(t: &Transcript, slot: Slot) -> SlotFigure {
    if let Some(big) = t.entries[slot.entry as usize].too_large() {
        return SlotFigure::Estimate(big.est_tokens);
    }
    // Only an assistant's usage measures the context: any other message is counted from its
    // figures without being decoded (the same figure: `slot_tokens`).
    let may_measure = !slot.as_summary
        && matches!(
            t.entries[slot.entry as usize].kind,
            EntryKind::Message(Role::Assistant | Role::Other)
        );
    if !may_measure {
        return SlotFigure::Estimate(slot_tokens(t, slot));
    }
    // The fields that decide a measurement, without the content (the bulk of a reply); a
    // line that shape does not take is decoded whole.
    let head = t.slim(slot.entry);
    if let Some(m) = head.as_ref().and_then(|v| v.get("message")) {
        return match tokens::valid_usage(m) {
            Some(u) => SlotFigure::Usage(tokens::context_tokens_from_usage(u)),
            None => SlotFigure::Estimate(slot_tokens(t, slot)),
        };
    }
    match slot_message(t, slot) {
        Some(m) => match tokens::valid_usage(&m) {
            Some(u) => SlotFigure::Usage(tokens::context_tokens_from_usage(u)),
            None => SlotFigure::Estimate(tokens::estimate_message(&m)),
        },
        None => SlotFigure::Estimate(0),
    }
}

/// Context size as pi's footer computes it, with clawtop's stricter rule (docs/numbers.md §2): a
/// figure only when an assistant usage measured it; after a compaction that usage must be newer
/// than the compaction. None means unknown.
pub fn current_tokens(t: &Transcript) -> Option<ContextEstimate> {
    let path = t.active_branch();
    let start = path
        .iter()
        .rposition(|&i| t.entries[i as usize].kind == EntryKind::Compaction)
        .map(|p| p + 1)
        .unwrap_or(0);
    let mut measured = false;
    for &i in path[start..].iter().rev() {
        if t.entries[i as usize].kind != EntryKind::Message(Role::Assistant) {
            continue;
        }
        let Ok(v) = t.entry_json(i) else { continue };
        let Some(m) = v.get("message") else { continue };
        if tokens::is_gateway_notice(m) {
            continue;
        }
        if matches!(
            m.get("stopReason").and_then(Value::as_str),
            Some("aborted") | Some("error")
        ) {
            continue;
        }
        measured = m
            .get("usage")
            .map(tokens::context_tokens_from_usage)
            .unwrap_or(0)
            > 0;
        break;
    }
    if !measured {
        return None;
    }
    let ctx = build(t, t.leaf());
    Some(estimate(t, &ctx))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`estimate`] reads replies by their head and other messages by their figures; pi's
    /// `estimateContextTokens` over the decoded messages must give the same figures.
    fn agrees_with_the_decoded_messages(t: &Transcript, what: &str) -> bool {
        let ctx = build(t, t.leaf());
        let mut messages = Vec::new();
        let mut slot_of = Vec::new();
        for (k, &s) in ctx.slots.iter().enumerate() {
            if let Some(m) = slot_message(t, s) {
                messages.push(m);
                slot_of.push(k);
            }
        }
        let want = tokens::estimate_context(&messages);
        let got = estimate(t, &ctx);
        assert_eq!(
            (got.tokens, got.usage_tokens, got.trailing_tokens),
            (want.tokens, want.usage_tokens, want.trailing_tokens),
            "{what}"
        );
        assert_eq!(
            got.last_usage_index,
            want.last_usage_index.map(|m| slot_of[m]),
            "{what}"
        );
        got.last_usage_index.is_some()
    }

    #[test]
    fn the_estimate_is_pis_over_the_decoded_messages() {
        let usage = |n: u64| {
            format!(
                r#"{{"input":{n},"output":7,"cacheRead":3,"cacheWrite":2,"totalTokens":{}}}"#,
                n + 12
            )
        };
        let line = |id: usize, message: String| {
            let parent = if id == 1 {
                "null".to_string()
            } else {
                format!("\"e{}\"", id - 1)
            };
            format!(
                r#"{{"type":"message","id":"e{id}","parentId":{parent},"timestamp":"2026-11-01T00:00:{id:02}Z","message":{message}}}"#
            )
        };
        let messages = [
            r#"{"role":"user","content":"hello there, a question"}"#.to_string(),
            format!(r#"{{"role":"assistant","content":[{{"type":"text","text":"an answer"}}],"provider":"p","model":"m","usage":{},"stopReason":"stop"}}"#, usage(1000)),
            r#"{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"file text \u00e9\ud83d\ude00"}]}"#.to_string(),
            // Repeated keys: the head does not take it, the decoded message keeps the last.
            format!(r#"{{"role":"assistant","content":[{{"type":"text","text":"twice"}}],"usage":{},"usage":{},"stopReason":"stop"}}"#, usage(5), usage(2000)),
            format!(r#"{{"role":"assistant","content":[{{"type":"text","text":"cut"}}],"usage":{},"stopReason":"aborted"}}"#, usage(3000)),
            format!(r#"{{"role":"assistant","content":[{{"type":"text","text":"⚙️ Compacted"}}],"provider":"openclaw","model":"gateway-injected","usage":{},"stopReason":"stop"}}"#, usage(0)),
            format!(r#"{{"role":"narrator","content":"an odd role","usage":{}}}"#, usage(4000)),
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"bash","arguments":{"cmd":"ls -la","n":1.50}}],"usage":"not an object","stopReason":"toolUse"}"#.to_string(),
            r#"{"role":"user","content":[{"type":"text","text":"more"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}"#.to_string(),
        ];
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00Z","cwd":"/w"}"#;
        let mut measured = 0;
        // Every prefix, so the walk from the end stops at each kind of message in turn.
        for n in 1..=messages.len() {
            let mut text = format!("{header}\n");
            for (i, m) in messages[..n].iter().enumerate() {
                text.push_str(&line(i + 1, m.clone()));
                text.push('\n');
            }
            let t = Transcript::from_bytes("generated.jsonl", text.into_bytes());
            measured += usize::from(agrees_with_the_decoded_messages(&t, &format!("first {n}")));
        }
        assert!(measured >= 5);
        for p in crate::transcript::fixture_transcripts() {
            let t = Transcript::open(&p).unwrap();
            agrees_with_the_decoded_messages(&t, &p.display().to_string());
        }
    }

    /// The model `build` takes from the last reply is what the decoded entry says, whether
    /// the two fields are read alone or the line needs decoding whole (repeated keys, a
    /// `message` that is not an object, non-string fields, escapes); on every fixture too.
    #[test]
    fn the_reply_model_is_the_decoded_entrys() {
        let decoded = |t: &Transcript, i: u32| {
            let v = t.entry_json(i).ok()?;
            let m = v.get("message");
            let f = |k: &str| {
                m.and_then(|m| m.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            Some((f("provider"), f("model")))
        };
        let messages = [
            r#"{"role":"assistant","content":[{"type":"text","text":"a\nb"}],"provider":"p","model":"m"}"#,
            r#"{"role":"assistant","content":"x","provider":"p","provider":"q","model":"m"}"#,
            r#"{"role":"assistant","content":"x","provider":7,"model":null}"#,
            r#"{"role":"assistant","content":"x","provider":"caf\u00e9","model":"\ud83d\ude00"}"#,
            r#"{"role":"assistant","content":"x"}"#,
            r#""not an object""#,
            "null",
        ];
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00Z","cwd":"/w"}"#;
        for m in messages {
            let text = format!(
                "{header}\n{{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-11-01T00:00:01Z\",\"message\":{m}}}\n"
            );
            let t = Transcript::from_bytes("generated.jsonl", text.into_bytes());
            let i = (t.len() - 1) as u32;
            assert_eq!(reply_model(&t, i), decoded(&t, i), "{m}");
        }
        for p in crate::transcript::fixture_transcripts() {
            let t = Transcript::open(&p).unwrap();
            for i in 0..t.len() as u32 {
                if t.entries[i as usize].kind == EntryKind::Message(Role::Assistant) {
                    assert_eq!(
                        reply_model(&t, i),
                        decoded(&t, i),
                        "{} entry {i}",
                        p.display()
                    );
                }
            }
        }
    }
}
