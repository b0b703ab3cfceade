//! What a compaction costs and what it saves (SPEC §10), before it is made.
//!
//! Savings: every later call sends `tokensBefore − expectedTokensAfter` fewer prompt tokens,
//! each at the session's effective prompt price `p_eff` (the input-side dollars over the
//! prompt tokens of the branch's last ten priced calls: cache hits make it far below the list
//! input price). Cost: the summary requests (their prompt at the cache-write price where the
//! model has one, else input; the expected summary at the output price) and, while the cache
//! is warm, the premium of writing the new, shorter prompt to the cache again instead of
//! reading the old one. Payback: the calls after which the savings cover the cost.

use super::SessionCost;
use super::prices::Rates;
use serde::{Deserialize, Serialize};

/// Priced calls of the branch `p_eff` is taken over.
pub const P_EFF_CALLS: usize = 10;

/// What the economics need from the plan.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlanTokens {
    pub tokens_before: u64,
    /// None when the overhead is unknown (then nothing is said about savings).
    pub expected_tokens_after: Option<u64>,
    /// The summary requests' prompt: the messages summarized, the turn prefix and the
    /// previous summary.
    pub summary_input_tokens: u64,
    /// The expected summary (the outlook's allowance).
    pub summary_output_tokens: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Economics {
    /// $ per prompt token over the branch's last priced calls (null without one).
    pub p_eff: Option<f64>,
    pub savings_per_call_usd: Option<f64>,
    /// The summary requests, plus the cache rewrite premium while the cache is warm.
    pub compaction_cost_usd: Option<f64>,
    /// The same without the premium (the cache gone cold first).
    pub compaction_cost_cold_usd: Option<f64>,
    pub cache_warm: bool,
    /// ceil(cost / savings); null when nothing is saved or a figure is unknown.
    pub payback_calls: Option<u64>,
    pub payback_calls_cold: Option<u64>,
    /// The model whose prices the summary is charged at, and where they came from.
    pub priced_as: Option<String>,
    /// Its $ per million tokens (input, output, cacheRead, cacheWrite).
    pub rates: Option<[f64; 4]>,
    /// The figures the formulas were given: tokensBefore − expectedTokensAfter, the summary
    /// requests' prompt and the expected summary.
    pub tokens_saved_per_call: Option<u64>,
    pub summary_input_tokens: u64,
    pub summary_output_tokens: u64,
    /// Why a figure is missing.
    pub notes: Vec<String>,
}

/// `p_eff`: Σ (cost.input + cost.cacheRead + cost.cacheWrite) / Σ (input + cacheRead +
/// cacheWrite) over the last [`P_EFF_CALLS`] priced calls of the active branch.
pub fn p_eff(cost: &SessionCost) -> Option<f64> {
    let (usd, tokens) = cost
        .branch_prompts
        .iter()
        .rev()
        .take(P_EFF_CALLS)
        .fold((0.0, 0u64), |(u, t), (pu, pt)| (u + pu, t + pt));
    (tokens > 0).then(|| usd / tokens as f64)
}

/// A compaction's economics: `rates` are the session model's prices (None: unpriced model).
pub fn of_plan(cost: &SessionCost, plan: PlanTokens, rates: Option<(Rates, String)>) -> Economics {
    let mut e = Economics {
        cache_warm: cost.cache_warm,
        p_eff: p_eff(cost),
        summary_input_tokens: plan.summary_input_tokens,
        summary_output_tokens: plan.summary_output_tokens,
        ..Default::default()
    };
    if e.p_eff.is_none() {
        e.notes
            .push("no priced call on the branch: the prompt's price is unknown".into());
    }
    match plan.expected_tokens_after {
        Some(after) => {
            let saved = plan.tokens_before.saturating_sub(after);
            e.tokens_saved_per_call = Some(saved);
            e.savings_per_call_usd = e.p_eff.map(|p| saved as f64 * p);
        }
        None => e
            .notes
            .push("the size after compaction is unknown (no measured overhead)".into()),
    }
    match rates {
        Some((r, name)) => {
            let prompt_price = if r.cache_write > 0.0 {
                r.cache_write
            } else {
                r.input
            };
            let summary = (plan.summary_input_tokens as f64 * prompt_price
                + plan.summary_output_tokens as f64 * r.output)
                / 1_000_000.0;
            let premium = plan.expected_tokens_after.unwrap_or(0) as f64
                * (r.cache_write - r.cache_read).max(0.0)
                / 1_000_000.0;
            e.compaction_cost_cold_usd = Some(summary);
            e.compaction_cost_usd = Some(if e.cache_warm {
                summary + premium
            } else {
                summary
            });
            e.priced_as = Some(name);
            e.rates = Some([r.input, r.output, r.cache_read, r.cache_write]);
        }
        None => e
            .notes
            .push("the session's model is in no price table: the summary's cost is unknown".into()),
    }
    let payback = |cost: Option<f64>| match (cost, e.savings_per_call_usd) {
        (Some(c), Some(s)) if s > 0.0 && c.is_finite() => Some((c / s).ceil().max(0.0) as u64),
        _ => None,
    };
    e.payback_calls = payback(e.compaction_cost_usd);
    e.payback_calls_cold = payback(e.compaction_cost_cold_usd);
    e
}

impl Economics {
    /// The Compact dialog's plan line, e.g. "costs ≈$0.11, saves ≈$0.016 a call: pays back
    /// after 7 calls (cache warm; cold: 4)".
    pub fn line(&self) -> String {
        if self.compaction_cost_usd.is_none() && self.savings_per_call_usd.is_none() {
            return "unknown: the session's model has no price (prices.toml can add one)".into();
        }
        let money =
            |v: Option<f64>| v.map_or("?".to_string(), |u| format!("≈{}", super::usd_text(u)));
        let mut s = format!(
            "costs {}, saves {} a call",
            money(self.compaction_cost_usd),
            money(self.savings_per_call_usd)
        );
        match self.payback_calls {
            Some(n) => {
                s.push_str(&format!(
                    ": pays back after {n} call{}",
                    if n == 1 { "" } else { "s" }
                ));
                if self.cache_warm {
                    match self.payback_calls_cold {
                        Some(c) if c != n => s.push_str(&format!(" (cache warm; cold: {c})")),
                        _ => s.push_str(" (cache warm)"),
                    }
                } else {
                    s.push_str(" (cache cold)");
                }
            }
            None if self.savings_per_call_usd.is_some_and(|v| v <= 0.0) => {
                s.push_str(": saves nothing, never pays back")
            }
            None => s.push_str(": payback unknown"),
        }
        s
    }
}
