//! `clawtop metrics`: the rows of a [`ListReport`] in the Prometheus text exposition format
//! (version 0.0.4), for node_exporter's textfile collector or any scraper.
//!
//! Names follow the Prometheus conventions: a `clawtop_` prefix, snake_case, the base unit
//! as suffix (`_tokens`), no `_total` on gauges. Sessions are identified by `agent`,
//! `session_key` and `session_id` labels; where `used` came from is the `provenance` label
//! of `clawtop_session_used_tokens` only, so the other series keep a stable identity when it
//! changes. A figure that is unknown is left out (no sample), never written as 0.

use super::list::ListReport;
use crate::thresholds::Status;
use std::fmt::Write;

const STATUSES: [Status; 6] = [
    Status::Ok,
    Status::FlushDue,
    Status::Flushed,
    Status::CompactDue,
    Status::Over,
    Status::Unknown,
];

/// Label value escaping of the text format (`\\`, `\"`, `\n`). Other characters unsafe on a
/// terminal ([`crate::sanitize::is_unsafe_for_terminal`]) are replaced: they are legal there.
pub(crate) fn label_value(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n"),
            c if crate::sanitize::is_unsafe_for_terminal(c) => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

pub fn render(r: &ListReport) -> String {
    render_hosts(&[(None, r)])
}

/// The cost series (SPEC §10), from each row's `cost` (absent where no transcript was read).
fn cost_gauges(out: &mut String, hosts: &[(Option<&str>, &ListReport)]) {
    type Get = fn(&crate::cost::SessionCost) -> Option<f64>;
    let gauges: [(&str, &str, Get); 4] = [
        (
            "clawtop_session_cost_usd",
            "Dollars the session's calls cost, abandoned branches included (unpriced calls not in it: see clawtop_session_unpriced_calls)",
            |c| Some(c.spend_usd),
        ),
        (
            "clawtop_session_cost_per_hour_usd",
            "Dollars of the session's calls of the last 60 minutes",
            |c| Some(c.per_hour_usd),
        ),
        (
            "clawtop_session_cache_hit_ratio",
            "cacheRead over the prompt tokens of the last 20 calls of the active branch (absent without cache fields)",
            |c| c.cache_hit_ratio,
        ),
        (
            "clawtop_session_unpriced_calls",
            "Calls no price table prices (no recorded cost, model unknown)",
            |c| Some(c.unpriced_calls as f64),
        ),
    ];
    for (name, help, get) in gauges {
        let _ = writeln!(out, "# HELP {name} {help}.");
        let _ = writeln!(out, "# TYPE {name} gauge");
        for (s, h) in hosts
            .iter()
            .flat_map(|(h, r)| r.sessions.iter().map(move |s| (s, *h)))
        {
            let Some(v) = s.cost.as_ref().and_then(get).filter(|v| v.is_finite()) else {
                continue;
            };
            let host = match h {
                Some(h) => format!("host=\"{}\",", label_value(h)),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "{name}{{{host}agent=\"{}\",session_key=\"{}\",session_id=\"{}\"}} {v}",
                label_value(s.agent_id.as_deref().unwrap_or("")),
                label_value(s.session_key.as_deref().unwrap_or("")),
                label_value(s.session_id.as_deref().unwrap_or("")),
            );
        }
    }
}

/// Several hosts' reports in one exposition (each metric family once); a `Some` host name
/// becomes the first label of each of its series.
pub fn render_hosts(hosts: &[(Option<&str>, &ListReport)]) -> String {
    let host_label = |h: Option<&str>, more: bool| match h {
        Some(h) => format!("host=\"{}\"{}", label_value(h), if more { "," } else { "" }),
        None => String::new(),
    };
    let mut out = String::new();
    type Get = fn(&super::SessionRow) -> Option<u64>;
    let gauges: [(&str, &str, Get); 12] = [
        (
            "clawtop_session_used_tokens",
            "Tokens in the session's context now, the figure list and check use (provenance: fresh, legacy, transcript, estimated)",
            |s| s.used,
        ),
        (
            "clawtop_session_store_total_tokens",
            "The store's own totalTokens (what OpenClaw up to 2026.7 decides its flush on; differs from used for a run-sum or a stale store)",
            |s| s.total_tokens.as_ref().and_then(serde_json::Value::as_u64),
        ),
        (
            "clawtop_session_window_tokens",
            "Context window of the session's model",
            |s| Some(s.window),
        ),
        (
            "clawtop_session_flush_line_tokens",
            "Used tokens at which OpenClaw runs the memory flush (absent when flush is off)",
            |s| s.flush_at,
        ),
        (
            "clawtop_session_compaction_line_tokens",
            "Used tokens at which OpenClaw compacts",
            |s| Some(s.compact_at),
        ),
        (
            "clawtop_session_compactions",
            "compactionCount of the store entry",
            |s| s.compaction_count,
        ),
        (
            "clawtop_session_flushed_this_cycle",
            "1 when the memory flush ran in the current compaction cycle",
            |s| Some(s.flushed_this_cycle as u64),
        ),
        (
            "clawtop_session_turns_to_compaction",
            "Turns left until the compaction line at the median growth of the last 10 turns (absent when not growing or unknown)",
            |s| s.forecast.as_ref().and_then(|f| f.turns_to_compaction),
        ),
        (
            "clawtop_session_busy",
            "1 when a live process holds the session's transcript lock (a turn or a commit is running)",
            |s| Some(s.busy.is_some() as u64),
        ),
        (
            "clawtop_session_stale_lock",
            "1 when the session's transcript lock is stale (its holder is dead or older than OpenClaw's staleMs)",
            |s| Some(s.stale_lock.is_some() as u64),
        ),
        (
            "clawtop_compaction_identifiers_lost",
            "Identifiers the session's latest compaction lost (clawtop audit)",
            |s| {
                s.latest_compaction_loss
                    .as_ref()
                    .and_then(|l| l.identifiers_lost.map(|n| n as u64))
            },
        ),
        (
            "clawtop_compaction_messages_dropped_unsummarized",
            "Messages the previous compaction kept that the latest one neither summarized nor kept",
            |s| {
                s.latest_compaction_loss
                    .as_ref()
                    .map(|l| l.messages_dropped_unsummarized as u64)
            },
        ),
    ];
    for (name, help, get) in gauges {
        let _ = writeln!(out, "# HELP {name} {help}.");
        let _ = writeln!(out, "# TYPE {name} gauge");
        for (s, h) in hosts
            .iter()
            .flat_map(|(h, r)| r.sessions.iter().map(move |s| (s, *h)))
        {
            let Some(v) = get(s) else { continue };
            let mut labels = format!(
                "{}agent=\"{}\",session_key=\"{}\",session_id=\"{}\"",
                host_label(h, true),
                label_value(s.agent_id.as_deref().unwrap_or("")),
                label_value(s.session_key.as_deref().unwrap_or("")),
                label_value(s.session_id.as_deref().unwrap_or("")),
            );
            if name == "clawtop_session_used_tokens" {
                let _ = write!(labels, ",provenance=\"{}\"", s.used_source.name());
            }
            let _ = writeln!(out, "{name}{{{labels}}} {v}");
        }
    }
    cost_gauges(&mut out, hosts);
    let _ = writeln!(
        out,
        "# HELP clawtop_sessions Sessions by status (ok, flush-due, flushed, compact-due, over, unknown)."
    );
    let _ = writeln!(out, "# TYPE clawtop_sessions gauge");
    for (h, r) in hosts {
        for st in STATUSES {
            let n = r.sessions.iter().filter(|s| s.status == st).count();
            let host = host_label(*h, true);
            let _ = writeln!(
                out,
                "clawtop_sessions{{{host}status=\"{}\"}} {n}",
                st.name()
            );
        }
    }
    let _ = writeln!(
        out,
        "# HELP clawtop_store_errors Session stores that could not be read."
    );
    let _ = writeln!(out, "# TYPE clawtop_store_errors gauge");
    for (h, r) in hosts {
        match h {
            Some(_) => {
                let host = host_label(*h, false);
                let _ = writeln!(out, "clawtop_store_errors{{{host}}} {}", r.errors.len());
            }
            None => {
                let _ = writeln!(out, "clawtop_store_errors {}", r.errors.len());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn label_values_escaped() {
        assert_eq!(
            super::label_value("a\"b\\c\nd\u{1b}e"),
            "a\\\"b\\\\c\\nd\u{fffd}e"
        );
    }
}
