//! A compaction's economics for the diagnosis (`economics` on `compact --dry-run --json`, the
//! preview and the Compact dialog): the plan's token figures at the keepRecentTokens in
//! effect, priced by [`crate::cost::economics::of_plan`], the one place the formulas live.

use crate::cost::SessionCost;
use crate::cost::economics::{self, Economics, PlanTokens};
use crate::cost::prices::Rates;
use crate::tokens::{self, MessageView};
use crate::transcript::Transcript;
use serde_json::json;

/// The token figures of the plan at `keep`: what the context weighs before, what it is
/// expected to weigh after (the outlook's), what the summary requests send (the messages
/// summarized, the turn prefix and the previous summary) and the expected summary.
pub fn plan_tokens(t: &Transcript, keep: u64, d: &super::Diagnosis) -> Option<PlanTokens> {
    // The cut and sizes alone: the summary requests' figures need no file lists, and reading
    // every summarized reply again for them was a tenth of a dry run on 100 MB.
    let p = crate::plan::prepare_cut(t, keep).ok()?;
    let messages: u64 = p
        .messages_to_summarize
        .iter()
        .chain(&p.turn_prefix_messages)
        .map(|&i| tokens::estimate_entry(t, i, MessageView::Compaction))
        .sum();
    let previous = p.previous_summary.as_deref().map_or(0, |s| {
        tokens::estimate_message(&json!({"role": "compactionSummary", "summary": s}))
    });
    Some(PlanTokens {
        tokens_before: p.tokens_before,
        expected_tokens_after: d.expected_tokens_after,
        summary_input_tokens: messages + previous,
        summary_output_tokens: d.summary_allowance.tokens,
    })
}

/// The economics of compacting `t` at `keep`, from the session's cost and its model's rates.
pub fn of(
    t: &Transcript,
    keep: u64,
    d: &super::Diagnosis,
    cost: &SessionCost,
    rates: Option<(Rates, String)>,
) -> Option<Economics> {
    plan_tokens(t, keep, d).map(|p| economics::of_plan(cost, p, rates))
}
