//! The context per turn, and the forecast made from it (SPEC §3 "forecast").
//!
//! Both the full history ([`super::build`]) and the cheap tail read behind `list`
//! ([`super::tail`]) turn entries into [`Step`]s and hand them to [`turns`], so a turn and its
//! figure are defined once: a turn starts at a user message and is measured by the last model
//! call in it that pi accepts as a measurement ([`crate::tokens::valid_usage`]). The figure is
//! the one `used` follows for the host's release ([`measure`]), so the forecast can start from
//! `used` and step by the growth of the same quantity.

use crate::thresholds::Rules;
use serde::Serialize;
use serde_json::Value;

pub use crate::transcript::tail::FORECAST_TURNS;

/// The prefix of OpenClaw's flush prompt (2026.2.x and 2026.9 alike): a user message that
/// starts with it opens a memory-flush turn.
const FLUSH_PROMPT: &str = "Pre-compaction memory flush";
// A user message's head captured by the scan keeps the start of its text: long enough to
// test for the prompt (`crate::transcript::Captured`).
const _: () = assert!(FLUSH_PROMPT.len() <= crate::transcript::LEAD_MAX);

/// What an entry means for the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A user message: a new turn (`flush`: OpenClaw's memory-flush prompt).
    User {
        flush: bool,
    },
    /// A model call that measured the context.
    Call(u64),
    Compaction,
}

/// The context figure of one model call: pi's `calculateContextTokens` up to 2026.7.1 (what
/// `used` follows there), the prompt (`input + cacheRead + cacheWrite`) from 2026.9 (what
/// `totalTokens` records there). None for a call that measured nothing.
pub fn measure(rules: Rules, usage: &Value) -> Option<u64> {
    measure_of(rules, |k| usage.get(k))
}

/// [`measure`] of a usage whose fields `field` gives ([`crate::tokens::UsageFields`]).
pub fn measure_of<'a>(rules: Rules, field: impl Fn(&str) -> Option<&'a Value>) -> Option<u64> {
    let n = match rules {
        Rules::V2026_2 => crate::tokens::context_tokens_of(field),
        Rules::V2026_9 => {
            let f = |k: &str| {
                field(k)
                    .and_then(crate::store_entry::non_negative)
                    .unwrap_or(0)
            };
            f("input")
                .saturating_add(f("cacheRead"))
                .saturating_add(f("cacheWrite"))
        }
    };
    (n > 0).then_some(n)
}

/// The step of one decoded entry (None: it neither opens a turn nor measures anything).
pub fn step_of(rules: Rules, entry: &Value) -> Option<Step> {
    match entry.get("type").and_then(Value::as_str)? {
        "compaction" => Some(Step::Compaction),
        "message" => {
            let m = entry.get("message")?;
            match m.get("role").and_then(Value::as_str)? {
                "user" => Some(Step::User {
                    flush: is_flush_prompt(m),
                }),
                "assistant" => {
                    let u = crate::tokens::valid_usage(m)?;
                    measure(rules, u).map(Step::Call)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The step of a user message or reply as the scan captured it
/// ([`crate::transcript::Captured`]): what [`step_of`] gives of the line's head, without
/// making the head. None when the capture holds no message, or the line's decode refuses
/// it (a `usage` it cannot read); the entry is then read as before.
pub fn step_of_captured(rules: Rules, c: &crate::transcript::Captured<'_>) -> Option<Option<Step>> {
    use crate::transcript::Captured;
    match *c {
        Captured::Unreadable | Captured::Entry(_) => None,
        Captured::User { lead, .. } => Some(Some(Step::User {
            flush: is_flush_text(lead),
        })),
        Captured::Assistant {
            stop_reason,
            provider,
            model,
            usage,
            ..
        } => {
            // The decode reads `usage` with the rest of the line: refused, it refuses the line.
            let usage = match usage {
                Some(u) => Some(crate::tokens::UsageFields::parse(u)?),
                None => None,
            };
            let measured = !crate::tokens::is_gateway_model(provider, model)
                && !crate::tokens::measured_nothing(stop_reason);
            Some(
                usage
                    .filter(|u| measured && u.object)
                    .and_then(|u| measure_of(rules, |k| u.get(k)))
                    .map(Step::Call),
            )
        }
    }
}

/// A user message carrying OpenClaw's memory-flush prompt.
pub fn is_flush_prompt(message: &Value) -> bool {
    is_flush_text(&crate::transcript::content::plain(message.get("content")))
}

/// [`is_flush_prompt`] of a user message whose text (`content::plain`) starts with `text`,
/// at least [`crate::transcript::LEAD_MAX`] bytes of it.
pub fn is_flush_text(text: &str) -> bool {
    text.trim_start().starts_with(FLUSH_PROMPT)
}

/// One turn of the series.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// 1-based, counting the user messages of the branch read (calls before the first user
    /// message form turn 0).
    pub turn: u32,
    /// The entry that opened it (the user message), as a reader cites it.
    pub id: Option<String>,
    pub timestamp: Option<String>,
    /// The context the turn's last measuring call reported; None when no call measured it.
    pub tokens: Option<u64>,
    /// Compactions before this turn (on the branch read): turns of one cycle share it.
    pub cycle: u32,
    /// OpenClaw's memory-flush turn.
    pub flush: bool,
}

/// Where a step sits: the entry's id and time, carried into the turn it opens.
#[derive(Debug, Clone, Default)]
pub struct At {
    pub id: Option<String>,
    pub timestamp: Option<String>,
}

/// The turns of a branch, oldest first.
pub fn turns(steps: impl IntoIterator<Item = (Step, At)>) -> Vec<Turn> {
    let mut turns = Turns::default();
    for (step, at) in steps {
        turns.push(step, || at);
    }
    turns.finish()
}

/// [`turns`] one step at a time: a branch of a million entries is folded as it is read, and
/// a step's place (`at`) is made only when it opens a turn.
#[derive(Default)]
pub struct Turns {
    out: Vec<Turn>,
    cycle: u32,
}

impl Turns {
    pub fn push(&mut self, step: Step, at: impl FnOnce() -> At) {
        let (out, cycle) = (&mut self.out, self.cycle);
        match step {
            Step::User { flush } => {
                let at = at();
                out.push(Turn {
                    turn: out.last().map_or(1, |t| t.turn + 1),
                    id: at.id,
                    timestamp: at.timestamp,
                    tokens: None,
                    cycle,
                    flush,
                })
            }
            Step::Call(n) => match out.last_mut() {
                // A call before a compaction of the same turn (pi compacts and retries within
                // a turn) measured the old context; the retry after it opens no user message,
                // so the figure goes to a turn of the new cycle.
                Some(t) if t.cycle == cycle => t.tokens = Some(n),
                _ => {
                    let at = at();
                    out.push(Turn {
                        turn: out.last().map_or(0, |t| t.turn),
                        id: at.id,
                        timestamp: at.timestamp,
                        tokens: Some(n),
                        cycle,
                        flush: false,
                    })
                }
            },
            Step::Compaction => self.cycle += 1,
        }
    }

    pub fn finish(self) -> Vec<Turn> {
        self.out
    }
}

/// Tokens per turn and turns left to each line. `null` in JSON where unknown or not growing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Forecast {
    pub tokens_per_turn: Option<u64>,
    pub turns_to_flush: Option<u64>,
    pub turns_to_compaction: Option<u64>,
    /// Why the figures are null, in words (None when they are not).
    #[serde(default, skip_serializing_if = "crate::packed::none")]
    pub note: Option<String>,
}

/// The median growth of the context over the last [`FORECAST_TURNS`] growths between measured
/// turns (a growth across a compaction is left out: the drop it causes is not the workload's
/// growth, and the rate before it still tells how fast the new cycle will fill), and the turns
/// from `used` to the flush and compaction lines at that rate, rounded up (0 when the line is
/// already reached). The lines are the session's [`crate::thresholds::Thresholds`]; `used` is
/// its one `used` figure.
pub fn forecast(
    turns: &[Turn],
    used: Option<u64>,
    flush_at: Option<u64>,
    compact_at: u64,
) -> Forecast {
    let measured: Vec<(u32, u64)> = turns
        .iter()
        .filter_map(|t| t.tokens.map(|n| (t.cycle, n)))
        .collect();
    if measured.is_empty() {
        return Forecast::unknown("no model call in the transcript measured the context");
    }
    let recent = &measured[measured.len().saturating_sub(FORECAST_TURNS + 1)..];
    let mut growth: Vec<i128> = recent
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| w[1].1 as i128 - w[0].1 as i128)
        .collect();
    if growth.len() < 2 {
        return Forecast::unknown(&format!(
            "{} growth(s) between measured turns of one cycle in the last {} turns; at least 2 are needed",
            growth.len(),
            recent.len()
        ));
    }
    growth.sort_unstable();
    let mid = growth.len() / 2;
    let median = if growth.len() % 2 == 1 {
        growth[mid]
    } else {
        (growth[mid - 1] + growth[mid]).div_euclid(2)
    };
    if median <= 0 {
        return Forecast::unknown(&format!(
            "not growing (median change {median} tokens per turn over the last {} turns)",
            growth.len()
        ));
    }
    let rate = median as u64;
    let to = |line: u64| used.map(|u| line.saturating_sub(u).div_ceil(rate));
    Forecast {
        tokens_per_turn: Some(rate),
        turns_to_flush: flush_at.and_then(to),
        turns_to_compaction: to(compact_at),
        note: used
            .is_none()
            .then(|| "used is unknown: no starting point for the turns left".to_string()),
    }
}

impl Forecast {
    /// No figures, and why.
    pub fn unknown(why: &str) -> Forecast {
        Forecast {
            note: Some(why.to_string()),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(tokens: &[u64]) -> Vec<Turn> {
        turns(tokens.iter().flat_map(|&n| {
            [
                (Step::User { flush: false }, At::default()),
                (Step::Call(n), At::default()),
            ]
        }))
    }

    #[test]
    fn a_fixed_growth_gives_that_rate_and_the_turns_to_each_line() {
        let s = series(&(0..15).map(|i| 10_000 + i * 1_500).collect::<Vec<_>>());
        let used = 10_000 + 14 * 1_500; // 31,000
        let f = forecast(&s, Some(used), Some(40_000), 46_000);
        assert_eq!(f.tokens_per_turn, Some(1_500));
        assert_eq!(f.turns_to_flush, Some(6)); // 9,000 / 1,500
        assert_eq!(f.turns_to_compaction, Some(10)); // 15,000 / 1,500
        assert_eq!(f.note, None);
    }

    #[test]
    fn flat_shrinking_or_short_series_have_no_rate() {
        let flat = forecast(&series(&[5_000; 12]), Some(5_000), Some(9_000), 10_000);
        assert_eq!(flat.tokens_per_turn, None);
        assert_eq!(flat.turns_to_compaction, None);
        assert!(flat.note.unwrap().contains("not growing"));
        let down = forecast(&series(&[9_000, 8_000, 7_000]), Some(7_000), None, 10_000);
        assert_eq!(down.tokens_per_turn, None);
        let short = forecast(&series(&[1_000, 2_000]), Some(2_000), None, 10_000);
        assert!(short.note.unwrap().contains("1 growth(s)"));
        let none = forecast(&[], None, None, 10_000);
        assert_eq!(none, Forecast::unknown(&none.note.clone().unwrap()));
    }

    #[test]
    fn a_compactions_drop_is_not_growth() {
        let mut steps: Vec<(Step, At)> = Vec::new();
        for n in [20_000, 22_000] {
            steps.push((Step::User { flush: false }, At::default()));
            steps.push((Step::Call(n), At::default()));
        }
        steps.push((Step::Compaction, At::default()));
        for n in [12_000, 14_000] {
            steps.push((Step::User { flush: false }, At::default()));
            steps.push((Step::Call(n), At::default()));
        }
        let s = turns(steps);
        assert_eq!(s.iter().filter(|t| t.cycle == 1).count(), 2);
        let f = forecast(&s, Some(14_000), Some(17_000), 20_000);
        assert_eq!(f.tokens_per_turn, Some(2_000));
        assert_eq!(f.turns_to_flush, Some(2)); // 3,000 / 2,000, rounded up
        assert_eq!(f.turns_to_compaction, Some(3));
        // Past a line: zero turns left, never a negative or a division by zero.
        let f = forecast(&s, Some(25_000), Some(17_000), 20_000);
        assert_eq!(
            (f.turns_to_flush, f.turns_to_compaction),
            (Some(0), Some(0))
        );
        let f = forecast(&s, None, Some(17_000), 20_000);
        assert_eq!(f.tokens_per_turn, Some(2_000));
        assert_eq!(f.turns_to_compaction, None);
        // One growth on each side of a compaction is not enough to tell a rate.
        let short = turns([
            (Step::User { flush: false }, At::default()),
            (Step::Call(30_000), At::default()),
            (Step::Compaction, At::default()),
            (Step::User { flush: false }, At::default()),
            (Step::Call(12_000), At::default()),
            (Step::User { flush: false }, At::default()),
            (Step::Call(13_000), At::default()),
        ]);
        assert_eq!(
            forecast(&short, Some(13_000), None, 20_000).tokens_per_turn,
            None
        );
    }

    #[test]
    fn only_the_last_ten_growths_count() {
        // Ten early turns growing 5,000, then eleven growing 100: the median is 100.
        let mut v: Vec<u64> = (0..10).map(|i| i * 5_000).collect();
        let base = 45_000;
        v.extend((1..=11).map(|i| base + i * 100));
        let f = forecast(&series(&v), Some(46_100), None, 50_000);
        assert_eq!(f.tokens_per_turn, Some(100));
    }

    #[test]
    fn measures_follow_the_release() {
        let u = serde_json::json!({"input": 100, "output": 20, "cacheRead": 5, "cacheWrite": 1, "totalTokens": 126});
        assert_eq!(measure(Rules::V2026_2, &u), Some(126));
        assert_eq!(measure(Rules::V2026_9, &u), Some(106));
        assert_eq!(measure(Rules::V2026_9, &serde_json::json!({})), None);
    }
}
