//! Whether a compaction can bring a session under its compaction line, before anyone calls a
//! model: expected size after = overhead (outside the transcript, unchanged by compaction) +
//! the messages kept verbatim + an allowance for the new summary. And the largest
//! keepRecentTokens with which a compaction both summarizes something and lands under the line.

use super::overhead::{Overhead, REST};
use crate::format::thousands;
use crate::plan::{self, CompactionPlan};
use crate::tokens::{self, MessageView};
use crate::transcript::{EntryKind, Transcript};
use serde::Serialize;
use serde_json::json;

/// The smallest allowance made for a new summary (a structured summary with a few bullets).
pub const MIN_SUMMARY_ALLOWANCE: u64 = 1_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryAllowance {
    pub tokens: u64,
    pub reason: String,
}

/// What a compaction at one keepRecentTokens would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AtKeep {
    pub keep_recent_tokens: u64,
    pub messages_to_summarize: usize,
    pub turn_prefix_messages: usize,
    /// Id (or position) of the first entry kept verbatim.
    pub first_kept: Option<String>,
    pub kept_tokens: u64,
    /// None when the overhead is unknown.
    pub expected_tokens_after: Option<u64>,
}

impl AtKeep {
    pub fn summarizes(&self) -> bool {
        self.messages_to_summarize + self.turn_prefix_messages > 0
    }
}

/// The messages kept verbatim by a plan (pure estimates: kept usages predate the compaction).
pub fn kept_tokens(t: &Transcript, p: &CompactionPlan) -> u64 {
    p.path[p.cut.first_kept..]
        .iter()
        .filter(|&&i| t.entries[i as usize].kind != EntryKind::Compaction)
        .map(|&i| tokens::estimate_entry(t, i, MessageView::Context))
        .sum()
}

/// The allowance for the new summary: the previous summary's size (an updated summary is
/// about as long), at least [`MIN_SUMMARY_ALLOWANCE`].
pub fn summary_allowance(previous_summary: Option<&str>) -> SummaryAllowance {
    match previous_summary {
        Some(s) => {
            let prev =
                tokens::estimate_message(&json!({"role": "compactionSummary", "summary": s}));
            if prev >= MIN_SUMMARY_ALLOWANCE {
                SummaryAllowance {
                    tokens: prev,
                    reason: "the previous summary's size: an updated summary is about as long"
                        .into(),
                }
            } else {
                SummaryAllowance {
                    tokens: MIN_SUMMARY_ALLOWANCE,
                    reason: format!(
                        "the minimum allowance; the previous summary is only {} tokens",
                        thousands(prev)
                    ),
                }
            }
        }
        None => SummaryAllowance {
            tokens: MIN_SUMMARY_ALLOWANCE,
            reason:
                "the minimum allowance (no previous summary): a structured summary of a few bullets"
                    .into(),
        },
    }
}

pub fn at_keep(t: &Transcript, keep: u64, overhead: Option<u64>, allowance: u64) -> Option<AtKeep> {
    let p = plan::prepare_cut(t, keep).ok()?;
    let kept = kept_tokens(t, &p);
    Some(AtKeep {
        keep_recent_tokens: keep,
        messages_to_summarize: p.messages_to_summarize.len(),
        turn_prefix_messages: p.turn_prefix_messages.len(),
        first_kept: Some(t.display_id(p.first_kept_entry)),
        kept_tokens: kept,
        expected_tokens_after: overhead.map(|o| o + kept + allowance),
    })
}

/// The keepRecentTokens values at which the cut moves: the running sums of the messages of the
/// plan's range, newest first (`findCutPoint` stops where the sum reaches keep), up to
/// the first one past `limit`: a compaction keeping more than the compaction line cannot land
/// under it, so older messages need not be decoded (a long session costs its tail, not its
/// length).
fn cut_steps(t: &Transcript, limit: u64) -> Vec<u64> {
    let path = t.active_branch();
    // The plan's own range (it starts where the previous compaction's kept messages do).
    let start = plan::range_start_of(t, &path);
    let mut acc = 0u64;
    let mut steps = Vec::new();
    for &i in path[start..].iter().rev() {
        if !t.entries[i as usize].kind.is_message() {
            continue;
        }
        acc += tokens::estimate_entry(t, i, MessageView::Compaction);
        if acc > 0 && steps.last() != Some(&acc) {
            steps.push(acc);
        }
        if acc > limit {
            break;
        }
    }
    steps
}

/// The largest keepRecentTokens with which a compaction summarizes something and lands under
/// `line`. Both conditions only get harder as keep grows (the cut moves earlier), so the
/// values that work are a prefix of the cut steps: binary search.
pub fn suggested_keep(t: &Transcript, overhead: u64, allowance: u64, line: u64) -> Option<AtKeep> {
    let steps = cut_steps(t, line);
    let ok = |k: u64| {
        at_keep(t, k, Some(overhead), allowance)
            .filter(|a| a.summarizes() && a.expected_tokens_after.is_some_and(|e| e < line))
    };
    let (mut lo, mut hi) = (0usize, steps.len());
    let mut best = None;
    while lo < hi {
        let mid = (lo + hi) / 2;
        match ok(steps[mid]) {
            Some(a) => {
                best = Some(a);
                lo = mid + 1;
            }
            None => hi = mid,
        }
    }
    best
}

/// The smallest window (rounded up to 1,000) whose compaction line sits above `expected`.
pub fn window_that_fits(expected: u64, reserve: u64) -> u64 {
    (expected + reserve + 1).div_ceil(1000) * 1000
}

/// Everything needed to word the advice.
pub struct AdviceInputs<'a> {
    pub session: Option<&'a str>,
    pub keep: u64,
    pub current: Option<&'a AtKeep>,
    pub can_help: bool,
    pub suggested: Option<&'a AtKeep>,
    /// The smallest cut (keepRecentTokens 1), when no keepRecentTokens works.
    pub smallest: Option<&'a AtKeep>,
    pub overhead: Option<&'a Overhead>,
    pub compact_at: u64,
    pub reserve: u64,
    pub window: u64,
}

/// What the verdict is made of.
pub struct VerdictInputs<'a> {
    /// Used below the first line that matters: (used, line, "flush" | "compaction").
    pub below: Option<(u64, u64, &'static str)>,
    pub keep: u64,
    pub current: Option<&'a AtKeep>,
    pub can_help: bool,
    pub suggested: Option<&'a AtKeep>,
    pub compact_at: u64,
}

/// The verdict in one line, true of the numbers it names.
pub fn verdict(v: &VerdictInputs<'_>) -> String {
    if let Some((used, line, name)) = v.below {
        return format!(
            "nothing to do: {} used is below the {name} line {}",
            thousands(used),
            thousands(line)
        );
    }
    let line = thousands(v.compact_at);
    let keep = thousands(v.keep);
    let about = |a: &AtKeep| {
        a.expected_tokens_after
            .map(|e| format!("≈{}", thousands(e)))
            .unwrap_or_else(|| "an unknown size (no call measured the overhead)".into())
    };
    let first = match v.current {
        None => format!("no compaction plan at keepRecentTokens {keep}"),
        Some(c) if v.can_help => {
            return format!(
                "compaction can help: at keepRecentTokens {keep} it lands at {}, under the compaction line {line}",
                about(c)
            );
        }
        Some(c) if !c.summarizes() => format!(
            "a compaction at keepRecentTokens {keep} has nothing to summarize (all {} tokens since the last compaction are kept)",
            thousands(c.kept_tokens)
        ),
        Some(c) => format!(
            "a compaction at keepRecentTokens {keep} would leave {}, not under the compaction line {line}",
            about(c)
        ),
    };
    match v.suggested {
        Some(s) => format!(
            "{first}; keepRecentTokens {} or less lands at {}",
            thousands(s.keep_recent_tokens),
            about(s)
        ),
        None => format!("{first}; no keepRecentTokens brings it under {line}"),
    }
}

/// Concrete next steps, with numbers.
pub fn advice(a: &AdviceInputs<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let line = thousands(a.compact_at);
    let cmd = |k: u64| match a.session {
        Some(s) => format!(
            " (clawtop compact {} --keep-recent-tokens {k})",
            crate::sanitize::one_line(s)
        ),
        None => String::new(),
    };
    match (a.current, a.can_help) {
        (Some(c), true) => out.push(format!(
            "A compaction at keepRecentTokens {} would bring the context to about {}, under the compaction line {}.",
            thousands(a.keep),
            thousands(c.expected_tokens_after.unwrap_or(0)),
            line
        )),
        (Some(c), false) if !c.summarizes() => out.push(format!(
            "At keepRecentTokens {} a compaction has nothing to summarize: every message since the last compaction ({} tokens) is kept.",
            thousands(a.keep),
            thousands(c.kept_tokens)
        )),
        (Some(c), false) => {
            if let Some(e) = c.expected_tokens_after {
                out.push(format!(
                    "At keepRecentTokens {} a compaction would leave about {} (overhead + {} kept + summary), not under the compaction line {}: OpenClaw would compact again and again.",
                    thousands(a.keep),
                    thousands(e),
                    thousands(c.kept_tokens),
                    line
                ));
            }
        }
        (None, _) => out.push(format!(
            "No compaction plan at keepRecentTokens {} (nothing since the last compaction).",
            thousands(a.keep)
        )),
    }
    if !a.can_help {
        match a.suggested {
            Some(s) => out.push(format!(
                "Set keepRecentTokens to {} or less{}: the cut then falls at entry {} ({} messages summarized{}), and the context lands at about {}.",
                thousands(s.keep_recent_tokens),
                cmd(s.keep_recent_tokens),
                s.first_kept.as_deref().map(crate::sanitize::one_line).unwrap_or_else(|| "-".into()),
                s.messages_to_summarize,
                if s.turn_prefix_messages > 0 {
                    format!(" + {} of a split turn", s.turn_prefix_messages)
                } else {
                    String::new()
                },
                thousands(s.expected_tokens_after.unwrap_or(0))
            )),
            None => match (a.overhead, a.smallest) {
                (Some(o), _) if o.tokens >= a.compact_at => out.push(format!(
                    "No keepRecentTokens brings this session under its compaction line {}: the overhead alone is {} of every call.",
                    line,
                    thousands(o.tokens)
                )),
                (Some(o), Some(s)) => {
                    if let Some(e) = s.expected_tokens_after {
                        out.push(format!(
                            "No keepRecentTokens brings this session under its compaction line {}: even the smallest cut leaves about {} (overhead {} + kept {} + summary allowance).",
                            line,
                            thousands(e),
                            thousands(o.tokens),
                            thousands(s.kept_tokens)
                        ));
                    }
                }
                _ => {}
            },
        }
    }
    if let Some(o) = a.overhead {
        let mut files: Vec<_> = o.parts.iter().filter(|p| p.name != REST).collect();
        files.sort_by_key(|p| std::cmp::Reverse(p.tokens));
        let total: u64 = files.iter().map(|p| p.tokens).sum();
        // Unknown or nothing measurable: no sentence about them.
        if o.files_from != "unknown" && total > 0 {
            let top: Vec<String> = files
                .iter()
                .take(3)
                .map(|p| format!("{} {}", p.name, thousands(p.tokens)))
                .collect();
            out.push(format!(
                "Workspace files cost about {} tokens of every call ({}): trimming them lowers every call.",
                thousands(total),
                top.join(", ")
            ));
        }
        if let Some(rest) = o.parts.iter().find(|p| p.name == REST) {
            out.push(format!(
                "The system prompt and tool schemas take about {} tokens of every call.",
                thousands(rest.tokens)
            ));
        }
    }
    let smallest = a
        .suggested
        .or(a.current)
        .and_then(|c| c.expected_tokens_after);
    if let Some(e) = smallest {
        let w = window_that_fits(e, a.reserve);
        if w > a.window {
            out.push(format!(
                "A window of at least {} (now {}) would fit the context after compaction with its reserve of {}.",
                thousands(w),
                thousands(a.window),
                thousands(a.reserve)
            ));
        }
    }
    out
}
