//! `used`: the best measure of the context the model carries *now* (SPEC §3, docs/numbers.md
//! §2), decided here once for every surface — the list and its gauges, status and sort, `check`,
//! `metrics`, the TUI header, `show` and every `--json`.
//!
//! Order of preference, and why:
//! 1. the store's `totalTokens` when it is fresh, was written after the last compaction and
//!    after the newest model call, and is not a 2026.2.x run-sum: it is what OpenClaw itself
//!    measured (`fresh`, or `legacy` without the flag);
//! 2. else the transcript's last assistant usage plus pi's estimate of the messages after it,
//!    when that usage is newer than the last compaction (`transcript`);
//! 3. else, right after a compaction, what the next call will carry: overhead (system prompt,
//!    tools, workspace files, measured on the last call) + the summary + the kept messages
//!    (`estimated`; [`expected_after`] is the one definition of that sum, also used for a
//!    planned compaction's "expected after");
//! 4. `unknown`.
//!
//! The store's own figure stays beside the chosen one: OpenClaw ≤ 2026.7 decides its *flush* on
//! it, so "why did the flush (not) run" is answered with the figure OpenClaw used. The
//! comparison of the two (`usedCheck`) is made here as well, from the same facts.

use crate::context;
use crate::format::thousands;
use crate::thresholds::{Rules, UsedSource};
use crate::transcript::{EntryKind, Role, Transcript};
use serde_json::Value;

pub mod check;
pub mod overhead;

use check::Call;

pub use crate::thresholds::{Basis, TranscriptContext, UsedCheck};

/// What the store says.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreSide {
    pub total_tokens: Option<u64>,
    pub total_tokens_fresh: Option<bool>,
    /// `updatedAt` of the entry (ms).
    pub updated_at: Option<i64>,
}

/// The last compaction on the active branch.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LastCompaction {
    pub entry: u32,
    pub at_ms: Option<i64>,
    pub tokens_after: Option<u64>,
}

/// The measured call the transcript figure comes from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Measured {
    pub entry: u32,
    pub at_ms: Option<i64>,
    /// What the call was sent (`input + cacheRead + cacheWrite`).
    pub prompt_tokens: u64,
}

/// Everything `used` needs from a transcript, read once.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TranscriptFacts {
    pub context: TranscriptContext,
    pub last_compaction: Option<LastCompaction>,
    pub measured: Option<Measured>,
    /// The newest assistant reply on the branch (any, measured or not) with its time.
    pub newest_call_ms: Option<(u32, i64)>,
    /// The model calls of the last run (after the last user message).
    pub last_run: Vec<Call>,
    /// pi's own figure over the whole context, including a usage that predates the last
    /// compaction (what the store would say if it was written before the compaction).
    pub usage_before_compaction: Option<u64>,
    pub display: DisplayIds,
}

/// Entry ids for the words of the check, resolved while the transcript is open.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct DisplayIds {
    pub compaction: Option<String>,
    pub newest_call: Option<String>,
    pub last_run: Vec<String>,
}

/// The entries `facts` reads itself (the last compaction, the measured call, the newest
/// call: often one and the same reply), each decoded once.
struct Decoded<'t> {
    t: &'t Transcript,
    memo: std::collections::HashMap<u32, Option<std::sync::Arc<Value>>>,
}

impl<'t> Decoded<'t> {
    fn new(t: &'t Transcript) -> Decoded<'t> {
        Decoded {
            t,
            memo: Default::default(),
        }
    }

    fn get(&mut self, i: u32) -> Option<&std::sync::Arc<Value>> {
        let t = self.t;
        self.memo
            .entry(i)
            .or_insert_with(|| {
                // The head the context's model and the forecast read of the same reply
                // ([`Transcript::slim`], kept by the transcript): one parse for the three.
                // A line that shape refuses (a field of another type) is read in the
                // lenient shape below, and one that refuses too (a repeated key, text that
                // needs repair) is decoded whole.
                t.slim(i)
                    .or_else(|| {
                        t.raw_line(i)
                            .ok()
                            .and_then(|raw| slim(&raw))
                            .map(Into::into)
                    })
                    .or_else(|| t.entry_json(i).ok().map(Into::into))
            })
            .as_ref()
    }

    fn time_ms(&mut self, i: u32) -> Option<i64> {
        entry_time_ms(self.get(i)?)
    }
}

/// The fields of an entry [`facts`] reads, for a line [`Transcript::slim`] refuses: any
/// type is taken here, as a whole decode would give it. Its times, a compaction's
/// `tokensAfter`, and of a message what decides a measured call
/// ([`crate::tokens::valid_usage`]) and its usage. The
/// content (the bulk of an entry) is skipped without being built.
#[derive(serde::Deserialize)]
struct SlimEntry {
    timestamp: Option<Value>,
    #[serde(rename = "tokensAfter")]
    tokens_after: Option<Value>,
    message: Option<SlimMessage>,
}

#[derive(serde::Deserialize)]
struct SlimMessage {
    role: Option<Value>,
    #[serde(rename = "stopReason")]
    stop_reason: Option<Value>,
    provider: Option<Value>,
    model: Option<Value>,
    usage: Option<Value>,
    timestamp: Option<Value>,
}

fn slim(raw: &[u8]) -> Option<Value> {
    let e: SlimEntry = crate::transcript::parse::from_bytes(raw).ok()?;
    let object = |fields: Vec<(&str, Option<Value>)>| {
        Value::Object(
            fields
                .into_iter()
                .filter_map(|(k, v)| Some((k.to_string(), v?)))
                .collect(),
        )
    };
    let message = e.message.map(|m| {
        object(vec![
            ("role", m.role),
            ("stopReason", m.stop_reason),
            ("provider", m.provider),
            ("model", m.model),
            ("usage", m.usage),
            ("timestamp", m.timestamp),
        ])
    });
    Some(object(vec![
        ("timestamp", e.timestamp),
        ("tokensAfter", e.tokens_after),
        ("message", message),
    ]))
}

fn entry_time_ms(v: &Value) -> Option<i64> {
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

/// The expected context once a compaction is in place: what the next call carries. The one
/// definition behind "expected after" (plan, dialog, CLI) and the `estimated` used figure.
pub fn expected_after(overhead: Option<u64>, summary_tokens: u64, kept_tokens: u64) -> u64 {
    overhead.unwrap_or(0) + summary_tokens + kept_tokens
}

/// The overhead measured on the last call (prompt minus the messages it carried).
pub fn overhead_tokens(t: &Transcript) -> Option<u64> {
    overhead::measure(t, None, None, 0).map(|o| o.tokens)
}

/// pi's own `estimateContextTokens(buildSessionContext())` of the active branch, whether or
/// not its usage predates the last compaction (the interop tests compare it with pi's).
pub fn pi_estimate(t: &Transcript) -> TranscriptContext {
    let ctx = context::build(t, t.leaf());
    let e = context::estimate(t, &ctx);
    TranscriptContext {
        tokens: e.tokens,
        basis: if e.usage_tokens > 0 {
            Basis::Usage
        } else {
            Basis::None
        },
        usage_tokens: e.usage_tokens,
        trailing_tokens: e.trailing_tokens,
        entry_id: e
            .last_usage_index
            .and_then(|k| ctx.slots.get(k))
            .and_then(|s| t.entry_id(s.entry))
            .map(String::from),
        overhead_tokens: None,
    }
}

/// Reads the facts from an opened transcript.
pub fn facts(t: &Transcript) -> TranscriptFacts {
    let mut decoded = Decoded::new(t);
    let path = t.active_branch();
    let last_compaction = path
        .iter()
        .rposition(|&i| t.entries[i as usize].kind == EntryKind::Compaction)
        .map(|pos| {
            let i = path[pos];
            let tokens_after = decoded.get(i).and_then(|v| {
                v.get("tokensAfter")
                    .and_then(crate::store_entry::non_negative)
            });
            (
                pos,
                LastCompaction {
                    entry: i,
                    at_ms: decoded.time_ms(i),
                    tokens_after,
                },
            )
        });
    let ctx = context::build(t, t.leaf());
    let whole = context::estimate(t, &ctx);
    let usage_before_compaction = (whole.usage_tokens > 0).then_some(whole.tokens);
    // pi's usage counts only when it comes after the compaction that shaped the context.
    let after = last_compaction.as_ref().map_or(0, |(pos, _)| pos + 1);
    let usage_entry = whole
        .last_usage_index
        .and_then(|k| ctx.slots.get(k))
        .filter(|s| !s.as_summary)
        .map(|s| s.entry)
        .filter(|&e| path[after..].contains(&e));
    let measured = usage_entry.map(|e| {
        let prompt = decoded
            .get(e)
            .and_then(|v| {
                v.get("message")
                    .and_then(crate::tokens::valid_usage)
                    .map(check::prompt_tokens)
            })
            .unwrap_or(0);
        Measured {
            entry: e,
            at_ms: decoded.time_ms(e),
            prompt_tokens: prompt,
        }
    });
    let context = match (&measured, &last_compaction) {
        (Some(m), _) => TranscriptContext {
            tokens: whole.tokens,
            basis: Basis::Usage,
            usage_tokens: whole.usage_tokens,
            trailing_tokens: whole.trailing_tokens,
            entry_id: t.entry_id(m.entry).map(String::from),
            overhead_tokens: None,
        },
        (None, Some(_)) => {
            let messages: u64 = ctx.slots.iter().map(|&s| context::slot_tokens(t, s)).sum();
            let overhead = overhead_tokens(t);
            TranscriptContext {
                tokens: expected_after(overhead, 0, messages),
                basis: Basis::AfterCompaction,
                usage_tokens: 0,
                trailing_tokens: messages,
                entry_id: None,
                overhead_tokens: overhead,
            }
        }
        (None, None) => TranscriptContext {
            tokens: 0,
            basis: Basis::None,
            usage_tokens: 0,
            trailing_tokens: 0,
            entry_id: None,
            overhead_tokens: None,
        },
    };
    let newest_call_ms = path.iter().rev().find_map(|&i| {
        if t.entries[i as usize].kind != EntryKind::Message(Role::Assistant) {
            return None;
        }
        Some((i, decoded.time_ms(i)?))
    });
    let last_run = check::last_run_calls_with(t, |i| decoded.get(i).cloned());
    let display = DisplayIds {
        compaction: last_compaction.as_ref().map(|(_, c)| t.display_id(c.entry)),
        newest_call: newest_call_ms.map(|(i, _)| t.display_id(i)),
        last_run: last_run.iter().map(|c| t.display_id(c.entry)).collect(),
    };
    TranscriptFacts {
        context,
        last_compaction: last_compaction.map(|(_, c)| c),
        measured,
        newest_call_ms,
        last_run,
        usage_before_compaction,
        display,
    }
}

/// The decided figure and its comparison with the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Used {
    pub value: Option<u64>,
    pub source: UsedSource,
    /// The store's `totalTokens` when it is not the figure used (a run-sum, stale, not
    /// fresh): shown beside `value`.
    pub store_differs: Option<u64>,
    pub check: UsedCheck,
    pub check_reason: String,
}

/// Why the store's figure is not taken.
enum Distrust {
    PredatesCompaction { at: i64, updated: i64 },
    PredatesCall { at: i64, updated: i64 },
    RunSum { sum: u64 },
}

/// Decides `used` (module doc) from the store and, when the session has one, its transcript.
pub fn resolve(store: StoreSide, facts: Option<&TranscriptFacts>, rules: Rules) -> Used {
    let candidate = match (store.total_tokens, store.total_tokens_fresh) {
        (Some(n), Some(true)) => Some((n, UsedSource::Fresh)),
        (Some(n), None) => Some((n, UsedSource::Legacy)),
        _ => None,
    };
    let transcript = facts.and_then(|f| match f.context.basis {
        Basis::Usage => Some((f.context.tokens, UsedSource::Transcript)),
        Basis::AfterCompaction => Some((f.context.tokens, UsedSource::Estimated)),
        Basis::None => None,
    });
    let Some(f) = facts else {
        return match candidate {
            Some((n, src)) => Used {
                value: Some(n),
                source: src,
                store_differs: None,
                check: UsedCheck::Unknown,
                check_reason: format!(
                    "the store says {}; there is no transcript to compare it with",
                    thousands(n)
                ),
            },
            None => unknown(store),
        };
    };
    let Some((total, src)) = candidate else {
        return match transcript {
            Some((n, s)) => Used {
                value: Some(n),
                source: s,
                store_differs: store.total_tokens.filter(|&t| t != n),
                check: UsedCheck::Unknown,
                check_reason: match store.total_tokens {
                    Some(t) => format!(
                        "the store's {} is marked not fresh (totalTokensFresh false); used is the transcript's {}",
                        thousands(t),
                        thousands(n)
                    ),
                    None => format!(
                        "the store has no totalTokens; used is the transcript's {}",
                        thousands(n)
                    ),
                },
            },
            None => unknown(store),
        };
    };
    // OpenClaw 2026.9 writes a compaction's `tokensAfter` (the summary and kept messages, no
    // system prompt or tools) as `totalTokens`: until the next call that under-counts by the
    // whole overhead, so the estimate after the compaction (which adds it) is used, with the
    // store's figure beside it.
    if let (Basis::AfterCompaction, Some(oh), Some(c)) = (
        f.context.basis,
        f.context.overhead_tokens.filter(|&o| o > 0),
        f.last_compaction.as_ref(),
    ) {
        if c.tokens_after == Some(total) && total != f.context.tokens {
            return Used {
                value: Some(f.context.tokens),
                source: UsedSource::Estimated,
                store_differs: Some(total),
                check: UsedCheck::AfterCompaction,
                check_reason: format!(
                    "the store holds the compaction's tokensAfter {} (entry {}), which leaves out the overhead {} (system prompt, tools, workspace files); with it the next call carries about {}",
                    thousands(total),
                    f.display.compaction.as_deref().unwrap_or("?"),
                    thousands(oh),
                    thousands(f.context.tokens)
                ),
            };
        }
    }
    match distrust(total, store.updated_at, f, rules) {
        Some(why) => {
            let reason = distrust_words(&why, total, f, transcript);
            let check = match why {
                Distrust::RunSum { .. } => UsedCheck::RunSum,
                _ => UsedCheck::Stale,
            };
            match transcript {
                Some((n, s)) => Used {
                    value: Some(n),
                    source: s,
                    store_differs: Some(total).filter(|&t| t != n),
                    check,
                    check_reason: reason,
                },
                // Nothing better to show: the store's figure, with the doubt said.
                None => Used {
                    value: Some(total),
                    source: src,
                    store_differs: None,
                    check,
                    check_reason: reason,
                },
            }
        }
        None => {
            let (check, check_reason) = agreement(total, store.updated_at, f);
            Used {
                value: Some(total),
                source: src,
                store_differs: None,
                check,
                check_reason,
            }
        }
    }
}

/// `used` of a session whose transcript is there but could not be read (`why`): unknown. The
/// store's figure is shown beside it, never taken in its place: without the transcript it can
/// be neither checked nor corrected (a run-sum, a figure older than the last compaction), so
/// taking it would be a quiet fallback.
pub fn unread(store: StoreSide, why: &str) -> Used {
    Used {
        value: None,
        source: UsedSource::Unknown,
        store_differs: store.total_tokens,
        check: UsedCheck::Unknown,
        check_reason: match store.total_tokens {
            Some(n) => format!(
                "the transcript could not be read ({why}); the store's {} is not checked against it, so used is unknown",
                thousands(n)
            ),
            None => format!("the transcript could not be read ({why}); used is unknown"),
        },
    }
}

fn unknown(store: StoreSide) -> Used {
    Used {
        value: None,
        source: UsedSource::Unknown,
        store_differs: store.total_tokens,
        check: UsedCheck::Unknown,
        check_reason: "neither the store nor the transcript has a figure to compare".into(),
    }
}

fn distrust(
    total: u64,
    updated: Option<i64>,
    f: &TranscriptFacts,
    rules: Rules,
) -> Option<Distrust> {
    if let Some(updated) = updated {
        if let Some(at) = f
            .last_compaction
            .as_ref()
            .and_then(|c| c.at_ms)
            .filter(|&at| at > updated)
        {
            return Some(Distrust::PredatesCompaction { at, updated });
        }
        if let Some((_, at)) = f.newest_call_ms.filter(|&(_, at)| at > updated) {
            return Some(Distrust::PredatesCall { at, updated });
        }
    }
    // 2026.9 records the last call's prompt; only 2026.2.x added the calls of a run up.
    let sum: u64 = f.last_run.iter().map(|c| c.prompt_tokens).sum();
    if rules == Rules::V2026_2 && f.last_run.len() > 1 && sum == total {
        return Some(Distrust::RunSum { sum });
    }
    None
}

fn distrust_words(
    why: &Distrust,
    total: u64,
    f: &TranscriptFacts,
    transcript: Option<(u64, UsedSource)>,
) -> String {
    let now = match transcript {
        Some((n, UsedSource::Estimated)) => {
            format!("; the context after it is estimated at {}", thousands(n))
        }
        Some((n, _)) => format!("; the transcript now says {}", thousands(n)),
        None => "; the transcript has no newer figure, so the store's is shown".into(),
    };
    let ago = |later: i64, earlier: i64| crate::format::duration_words(later - earlier);
    match why {
        Distrust::PredatesCompaction { at, updated } => format!(
            "the store's {} was written {} before the last compaction (entry {}){now}",
            thousands(total),
            ago(*at, *updated),
            f.display.compaction.as_deref().unwrap_or("?"),
        ),
        Distrust::PredatesCall { at, updated } => format!(
            "the store's {} was written {} before the newest model call (entry {}){now}",
            thousands(total),
            ago(*at, *updated),
            f.display.newest_call.as_deref().unwrap_or("?"),
        ),
        Distrust::RunSum { sum } => {
            let parts: Vec<String> = f
                .last_run
                .iter()
                .zip(&f.display.last_run)
                .map(|(c, id)| format!("{} ({id})", thousands(c.prompt_tokens)))
                .collect();
            format!(
                "the store's {} is the sum of the last run's {} model calls, {} = {} (OpenClaw before 2026.9 adds them up){now}",
                thousands(total),
                f.last_run.len(),
                parts.join(" + "),
                thousands(*sum),
            )
        }
    }
}

/// The store's figure is used: say how the transcript relates to it.
fn agreement(total: u64, updated: Option<i64>, f: &TranscriptFacts) -> (UsedCheck, String) {
    let tc = &f.context;
    match tc.basis {
        Basis::None => (
            UsedCheck::Unknown,
            format!(
                "the store says {}, the transcript has nothing to compare it with",
                thousands(total)
            ),
        ),
        Basis::Usage => {
            if total == tc.tokens {
                return (
                    UsedCheck::Equal,
                    format!(
                        "the store's {} equals the transcript's context",
                        thousands(total)
                    ),
                );
            }
            if let Some(m) = f.measured.as_ref().filter(|m| m.prompt_tokens == total) {
                return (
                    UsedCheck::Equal,
                    format!(
                        "the store holds the last call's prompt {}; the transcript's {} adds that call's output and what came after ({})",
                        thousands(m.prompt_tokens),
                        thousands(tc.tokens),
                        thousands(tc.tokens.saturating_sub(m.prompt_tokens))
                    ),
                );
            }
            differs(total, f)
        }
        Basis::AfterCompaction => {
            let c = f.last_compaction.as_ref();
            if c.and_then(|c| c.tokens_after) == Some(total) || total == tc.tokens {
                return (
                    UsedCheck::Equal,
                    format!(
                        "the store's {} is the compaction's figure (entry {}); no model call since",
                        thousands(total),
                        f.display.compaction.as_deref().unwrap_or("?")
                    ),
                );
            }
            let newer = match (updated, c.and_then(|c| c.at_ms)) {
                (Some(u), Some(at)) => u >= at,
                _ => false,
            };
            if newer {
                (
                    UsedCheck::Stale,
                    format!(
                        "stale on the transcript's side: its last usage{} predates the compaction (entry {}); the store's {} was written after it (estimate after the compaction: {})",
                        f.usage_before_compaction
                            .map(|u| format!(" ({})", thousands(u)))
                            .unwrap_or_default(),
                        f.display.compaction.as_deref().unwrap_or("?"),
                        thousands(total),
                        thousands(tc.tokens)
                    ),
                )
            } else {
                differs(total, f)
            }
        }
    }
}

fn differs(total: u64, f: &TranscriptFacts) -> (UsedCheck, String) {
    let sum: u64 = f.last_run.iter().map(|c| c.prompt_tokens).sum();
    (
        UsedCheck::Differs,
        format!(
            "the store says {}, the transcript {}; neither the last run's calls ({} over {} call{}) nor a later write explains the difference",
            thousands(total),
            thousands(f.context.tokens),
            thousands(sum),
            f.last_run.len(),
            if f.last_run.len() == 1 { "" } else { "s" }
        ),
    )
}

/// Where a session's `used` came from, in the words `show` and the TUI both print.
pub fn describe(t: &crate::thresholds::Thresholds) -> String {
    let tc = t.transcript_context.as_ref();
    // The store's figure first: it is what OpenClaw decided on, and the reason it is not used.
    let store = t
        .store_used
        .map(|s| {
            format!(
                "the store says {} ({}); ",
                thousands(s),
                t.used_check.name()
            )
        })
        .unwrap_or_default();
    match t.used_source {
        UsedSource::Fresh if t.total_tokens_version == Some(1) => {
            "entry totalTokens (totalTokensFresh true; totalTokensVersion 1: the prompt of the last model call)".into()
        }
        UsedSource::Fresh => "entry totalTokens (totalTokensFresh true)".into(),
        UsedSource::Legacy => "entry totalTokens (no totalTokensFresh flag: legacy writer)".into(),
        UsedSource::Transcript => match tc {
            Some(c) => format!(
                "{store}last assistant usage {}{} + estimate {} of the messages after it",
                thousands(c.usage_tokens),
                c.entry_id
                    .as_deref()
                    .map(|e| format!(" ({})", crate::sanitize::one_line(e)))
                    .unwrap_or_default(),
                thousands(c.trailing_tokens)
            ),
            None => format!("{store}last assistant usage + the messages after it"),
        },
        UsedSource::Estimated => match tc {
            Some(c) => format!(
                "{store}estimated after the last compaction (no model call since): overhead {} + summary and kept messages {}",
                c.overhead_tokens
                    .map(thousands)
                    .unwrap_or_else(|| "unknown, counted as 0".into()),
                thousands(c.trailing_tokens)
            ),
            None => format!("{store}estimated after the last compaction"),
        },
        UsedSource::Unknown => {
            "no fresh totalTokens and no assistant usage since the last compaction".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_795_000_000_000;

    fn iso(ms: i64) -> String {
        chrono::DateTime::from_timestamp_millis(ms)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    fn user(id: &str, parent: Option<&str>, at: i64) -> String {
        let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{p},"timestamp":"{}","message":{{"role":"user","content":"go on","timestamp":{at}}}}}"#,
            iso(at)
        )
    }

    fn reply(id: &str, parent: &str, at: i64, input: u64, output: u64) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"{}","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"usage":{{"input":{input},"output":{output},"cacheRead":0,"cacheWrite":0,"totalTokens":{}}},"stopReason":"stop","timestamp":{at}}}}}"#,
            iso(at),
            input + output
        )
    }

    fn compaction(id: &str, parent: &str, first_kept: &str, at: i64, after: Option<u64>) -> String {
        let after = after.map_or(String::new(), |a| format!(r#","tokensAfter":{a}"#));
        format!(
            r#"{{"type":"compaction","id":"{id}","parentId":"{parent}","timestamp":"{}","summary":"Goal: ship it","firstKeptEntryId":"{first_kept}","tokensBefore":9000{after}}}"#,
            iso(at)
        )
    }

    fn transcript(lines: &[String]) -> Transcript {
        let mut text = String::from(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00.000Z"}"#,
        );
        for l in lines {
            text.push('\n');
            text.push_str(l);
        }
        text.push('\n');
        Transcript::from_bytes("t.jsonl", text.into_bytes())
    }

    fn store(total: u64, updated_at: i64) -> StoreSide {
        StoreSide {
            total_tokens: Some(total),
            total_tokens_fresh: Some(true),
            updated_at: Some(updated_at),
        }
    }

    #[test]
    fn a_run_sum_is_replaced_by_the_last_calls_context() {
        let t = transcript(&[
            user("u1", None, T0),
            reply("a1", "u1", T0 + 1_000, 30_000, 500),
            reply("a2", "a1", T0 + 2_000, 31_000, 700),
        ]);
        let f = facts(&t);
        let u = resolve(store(61_000, T0 + 3_000), Some(&f), Rules::V2026_2);
        assert_eq!(u.value, Some(31_700));
        assert_eq!(u.source, UsedSource::Transcript);
        assert_eq!(u.check, UsedCheck::RunSum);
        assert_eq!(u.store_differs, Some(61_000));
        // 2026.9 never adds calls up: the same figure there is "differs", and it is used.
        let u = resolve(store(61_000, T0 + 3_000), Some(&f), Rules::V2026_9);
        assert_eq!((u.value, u.check), (Some(61_000), UsedCheck::Differs));
    }

    #[test]
    fn the_last_prompt_in_the_store_is_agreement() {
        let t = transcript(&[
            user("u1", None, T0),
            reply("a1", "u1", T0 + 1_000, 30_000, 500),
        ]);
        let u = resolve(store(30_000, T0 + 2_000), Some(&facts(&t)), Rules::V2026_9);
        assert_eq!(
            (u.value, u.source, u.check),
            (Some(30_000), UsedSource::Fresh, UsedCheck::Equal)
        );
    }

    #[test]
    fn a_store_written_before_the_compaction_gives_way_to_the_estimate_after_it() {
        let t = transcript(&[
            user("u1", None, T0),
            reply("a1", "u1", T0 + 1_000, 30_000, 500),
            user("u2", Some("a1"), T0 + 2_000),
            reply("a2", "u2", T0 + 3_000, 31_000, 700),
            compaction("c1", "a2", "u2", T0 + 5_000, None),
        ]);
        let f = facts(&t);
        assert_eq!(f.context.basis, Basis::AfterCompaction);
        let u = resolve(store(31_000, T0 + 4_000), Some(&f), Rules::V2026_2);
        assert_eq!(u.source, UsedSource::Estimated);
        assert_eq!(u.check, UsedCheck::Stale);
        assert!(
            u.check_reason.contains("before the last compaction"),
            "{}",
            u.check_reason
        );
        // Overhead (prompt minus the messages it carried) + summary + kept messages.
        let oh = f.context.overhead_tokens.unwrap();
        assert_eq!(u.value, Some(oh + f.context.trailing_tokens));
        assert_eq!(u.store_differs, Some(31_000));
    }

    #[test]
    fn after_a_2026_9_compaction_the_transcript_is_the_stale_side() {
        let lines = |after| {
            vec![
                user("u1", None, T0),
                reply("a1", "u1", T0 + 1_000, 30_000, 500),
                compaction("c1", "a1", "u1", T0 + 5_000, after),
            ]
        };
        // The store was written after the compaction with another figure than its tokensAfter.
        let t = transcript(&lines(Some(4_000)));
        let u = resolve(store(6_000, T0 + 6_000), Some(&facts(&t)), Rules::V2026_9);
        assert_eq!((u.value, u.source), (Some(6_000), UsedSource::Fresh));
        assert_eq!(u.check, UsedCheck::Stale);
        assert!(
            u.check_reason.starts_with("stale on the transcript's side"),
            "{}",
            u.check_reason
        );
        // The store holding the compaction's own tokensAfter is not stale, but not the same
        // figure either: it leaves out the overhead, so used is the estimate after the
        // compaction and the check names the store's figure for what it is (issue 30 item 6).
        let f = facts(&t);
        let u = resolve(store(4_000, T0 + 6_000), Some(&f), Rules::V2026_9);
        assert_eq!(u.check, UsedCheck::AfterCompaction, "{}", u.check_reason);
        assert_eq!(u.check.name(), "after-compaction");
        assert_eq!(u.source, UsedSource::Estimated);
        assert_eq!(u.value, Some(f.context.tokens));
        assert_eq!(u.store_differs, Some(4_000));
        assert!(
            u.check_reason.contains("leaves out the overhead"),
            "{}",
            u.check_reason
        );
    }

    #[test]
    fn no_store_and_no_usage_is_unknown_never_zero() {
        let t = transcript(&[user("u1", None, T0)]);
        let u = resolve(StoreSide::default(), Some(&facts(&t)), Rules::V2026_2);
        assert_eq!((u.value, u.source), (None, UsedSource::Unknown));
        let u = resolve(StoreSide::default(), None, Rules::V2026_2);
        assert_eq!(u.value, None);
    }

    #[test]
    fn a_store_behind_a_newer_call_gives_way() {
        let t = transcript(&[
            user("u1", None, T0),
            reply("a1", "u1", T0 + 1_000, 30_000, 500),
            user("u2", Some("a1"), T0 + 5_000),
            reply("a2", "u2", T0 + 6_000, 40_000, 900),
        ]);
        let u = resolve(store(30_000, T0 + 2_000), Some(&facts(&t)), Rules::V2026_2);
        assert_eq!((u.value, u.check), (Some(40_900), UsedCheck::Stale));
        assert!(
            u.check_reason.contains("before the newest model call"),
            "{}",
            u.check_reason
        );
    }

    /// The head the context's model and the forecast read ([`Transcript::slim`]) is the one
    /// `facts` reads too; a reply that head refuses (a top-level `timestamp` that is not a
    /// string) is read in `facts`' own lenient shape, to the same figures.
    #[test]
    fn a_reply_the_shared_head_refuses_gives_the_same_figures() {
        let at = T0 + 1_000;
        let plain = reply("a1", "u1", at, 5_000, 100);
        let odd = plain.replacen(
            &format!(r#""timestamp":"{}""#, iso(at)),
            &format!(r#""timestamp":{at}"#),
            1,
        );
        assert_ne!(odd, plain);
        assert!(crate::transcript::tail::slim(odd.as_bytes()).is_none());
        let of = |line: String| {
            let f = facts(&transcript(&[user("u1", None, T0), line]));
            let m = f.measured.as_ref().map(|m| (m.prompt_tokens, m.at_ms));
            let run: Vec<_> = f
                .last_run
                .iter()
                .map(|c| (c.prompt_tokens, c.at_ms))
                .collect();
            (m, run, f.newest_call_ms.map(|(_, ms)| ms))
        };
        let want = (Some((5_000, Some(at))), vec![(5_000, Some(at))], Some(at));
        assert_eq!(of(plain), want);
        assert_eq!(of(odd), want);
    }
}
