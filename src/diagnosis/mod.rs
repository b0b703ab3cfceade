//! What an operator needs to act on a session, computed once for every front-end (`show`,
//! `compact --dry-run`, the TUI): the "now" figures reconciled ([`used_check`]), the
//! overhead outside the transcript ([`overhead`]) (both measured in `crate::used`, which
//! decides the used figure from them, and re-exported here), whether compaction can help and what to do
//! instead ([`outlook`]), what the context is made of ([`breakdown`]), and whether a turn is
//! running ([`busy`]). No terminal code, no model calls; the only I/O is reading the
//! transcript, the workspace's bootstrap files and the lock file.
//!
//! The rules are in docs/diagnosis.md. Order matters: the overhead needs the transcript's last call; the outlook needs the
//! overhead (it does not shrink with compaction); the advice needs both.

pub mod breakdown;
pub mod busy;
pub mod economics;
pub mod gather;
pub mod outlook;
pub mod problem;

use crate::thresholds::Thresholds;
use crate::transcript::Transcript;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

pub use crate::format::duration_words;
pub use crate::used::StoreSide as StoreFigure;
pub use crate::used::TranscriptContext;
pub use crate::used::overhead;
pub use crate::used::{UsedCheck, check as used_check};
pub use busy::{Busy, busy};

/// The session-level figures `show --json` and `compact --dry-run --json` carry (camelCase,
/// flattened into those documents).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// The three figures of the check live on the row (`list` and `show` alike carry them);
    /// kept here for the text and TUI views.
    #[serde(skip)]
    pub transcript_context: TranscriptContext,
    #[serde(skip)]
    pub used_check: UsedCheck,
    #[serde(skip)]
    pub used_check_reason: String,
    pub overhead_tokens: Option<u64>,
    pub overhead: Option<overhead::Overhead>,
    pub summary_allowance: outlook::SummaryAllowance,
    /// At the keepRecentTokens in effect.
    pub compaction_at_keep: Option<outlook::AtKeep>,
    pub expected_tokens_after: Option<u64>,
    pub compaction_can_help: bool,
    /// The verdict in words with its numbers, the same on every surface: nothing to do below
    /// the flush line (or the compaction line without one), else whether a compaction at the
    /// keepRecentTokens in effect lands under the compaction line.
    pub verdict: String,
    pub suggested_keep_recent_tokens: Option<u64>,
    pub suggested: Option<outlook::AtKeep>,
    pub advice: Vec<String>,
    pub context_breakdown: breakdown::Breakdown,
    /// What a compaction at the keepRecentTokens in effect costs and saves (SPEC §10); null
    /// when there is no plan.
    pub economics: Option<crate::cost::economics::Economics>,
    /// The session's cost, with every call (the TUI's Cost pane draws it; `show` prints
    /// it as the row's `cost`): computed once with the economics.
    #[serde(skip)]
    pub cost: Option<crate::cost::SessionCost>,
}

/// What the diagnosis is computed from, besides the transcript.
pub struct Inputs<'a> {
    pub session_key: Option<&'a str>,
    pub store: StoreFigure,
    pub thresholds: &'a Thresholds,
    pub keep_recent_tokens: u64,
    pub workspace: Option<&'a Path>,
    /// The store entry's `systemPromptReport`, when it has one.
    pub prompt_report: Option<&'a Value>,
    pub bootstrap_max_chars: u64,
}

pub fn diagnose(t: &Transcript, i: &Inputs<'_>) -> Diagnosis {
    let th = i.thresholds;
    // The check was made with `used` ([`crate::used::resolve`]); a source that decides `used`
    // without transcripts (a Gateway) still gets the comparison here, from the same rules.
    let (tc, used_check, used_check_reason) = match &th.transcript_context {
        Some(tc) => (tc.clone(), th.used_check, th.used_check_reason.clone()),
        None => {
            let f = crate::used::facts(t);
            let u = crate::used::resolve(i.store, Some(&f), th.rules);
            (f.context, u.check, u.check_reason)
        }
    };
    let oh = overhead::measure(t, i.workspace, i.prompt_report, i.bootstrap_max_chars);
    let prev_summary = crate::plan::prepare_cut(t, i.keep_recent_tokens)
        .ok()
        .and_then(|p| p.previous_summary);
    let allowance = outlook::summary_allowance(prev_summary.as_deref());
    let oh_tokens = oh.as_ref().map(|o| o.tokens);
    let current = outlook::at_keep(t, i.keep_recent_tokens, oh_tokens, allowance.tokens);
    let expected = current.as_ref().and_then(|c| c.expected_tokens_after);
    let can_help = current
        .as_ref()
        .is_some_and(|c| c.summarizes() && expected.is_some_and(|e| e < th.compact_at));
    let suggested =
        oh_tokens.and_then(|o| outlook::suggested_keep(t, o, allowance.tokens, th.compact_at));
    // With no keepRecentTokens that works, the smallest cut says by how much it misses.
    let smallest = match (&suggested, can_help) {
        (None, false) => outlook::at_keep(t, 1, oh_tokens, allowance.tokens),
        _ => None,
    };
    // Below the first line that matters there is nothing to advise.
    let (first_line, first_name) = match th.flush_at {
        Some(f) => (f, "flush"),
        None => (th.compact_at, "compaction"),
    };
    let below = th.used.filter(|&u| u < first_line);
    let advice = match below {
        Some(_) => Vec::new(),
        None => outlook::advice(&outlook::AdviceInputs {
            session: i.session_key,
            keep: i.keep_recent_tokens,
            current: current.as_ref(),
            can_help,
            suggested: suggested.as_ref(),
            smallest: smallest.as_ref(),
            overhead: oh.as_ref(),
            compact_at: th.compact_at,
            reserve: th.reserve,
            window: th.window,
        }),
    };
    let verdict = outlook::verdict(&outlook::VerdictInputs {
        below: below.map(|u| (u, first_line, first_name)),
        keep: i.keep_recent_tokens,
        current: current.as_ref(),
        can_help,
        suggested: suggested.as_ref(),
        compact_at: th.compact_at,
    });
    // The breakdown breaks down the transcript's figure when the overhead was measured on the
    // same call (the last usage): its parts then sum to it.
    let of = (tc.basis == crate::used::Basis::Usage && oh.is_some()).then_some(tc.tokens);
    let context_breakdown = breakdown::breakdown(
        t,
        oh.as_ref(),
        of,
        breakdown::Against {
            used: th.used,
            window: th.window,
            flush_at: th.flush_at,
            compact_at: th.compact_at,
        },
    );
    Diagnosis {
        transcript_context: tc,
        used_check,
        used_check_reason,
        overhead_tokens: oh_tokens,
        overhead: oh,
        summary_allowance: allowance,
        compaction_at_keep: current,
        expected_tokens_after: expected,
        compaction_can_help: can_help,
        verdict,
        suggested_keep_recent_tokens: suggested.as_ref().map(|s| s.keep_recent_tokens),
        suggested,
        advice,
        context_breakdown,
        economics: None,
        cost: None,
    }
}
