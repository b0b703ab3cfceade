//! The plain-text lines of a session's diagnosis ([`crate::diagnosis`]) for `show` and
//! `compact --dry-run`; the diagnosis is gathered in [`crate::diagnosis::gather`].

use crate::diagnosis::{Diagnosis, breakdown::Breakdown};
use crate::format::thousands;

fn opt(n: Option<u64>) -> String {
    n.map(thousands).unwrap_or_else(|| "unknown".into())
}

/// Key/value lines (values sanitized where they carry transcript or file text).
pub fn lines(d: &Diagnosis) -> Vec<(String, String)> {
    let clean = crate::sanitize::one_line;
    let tc = &d.transcript_context;
    let mut out = vec![
        (
            "transcript context".to_string(),
            match tc.basis {
                crate::used::Basis::Usage => format!(
                    "{}  = the last call's prompt and reply {}{} + {} after it (pi's estimate of the next prompt)",
                    thousands(tc.tokens),
                    thousands(tc.usage_tokens),
                    tc.entry_id
                        .as_deref()
                        .map(|e| format!(" ({})", clean(e)))
                        .unwrap_or_default(),
                    thousands(tc.trailing_tokens)
                ),
                crate::used::Basis::AfterCompaction => format!(
                    "≈{}  = overhead {} + summary and kept messages {} (no model call since the last compaction)",
                    thousands(tc.tokens),
                    opt(tc.overhead_tokens),
                    thousands(tc.trailing_tokens)
                ),
                crate::used::Basis::None => "unknown (no usage and no compaction)".into(),
            },
        ),
        (
            "used check".to_string(),
            format!("{}: {}", d.used_check.name(), clean(&d.used_check_reason)),
        ),
    ];
    let oh = match &d.overhead {
        Some(o) => {
            let parts: Vec<String> = o
                .parts
                .iter()
                .map(|p| format!("{} {}", clean(&p.name), thousands(p.tokens)))
                .collect();
            format!(
                "{}  = last call's prompt {} - messages {}; {} [files: {}]",
                thousands(o.tokens),
                thousands(o.prompt_tokens),
                thousands(o.messages_tokens),
                parts.join(", "),
                o.files_from
            )
        }
        None => "unknown (no model call measured a prompt)".into(),
    };
    out.push(("overhead".into(), oh));
    let at = d.compaction_at_keep.as_ref();
    out.push((
        "expected after".into(),
        match (d.expected_tokens_after, at) {
            (Some(e), Some(a)) => format!(
                "≈{}  = overhead {} + kept {} + summary allowance {} ({}) at keepRecentTokens {}",
                thousands(e),
                opt(d.overhead_tokens),
                thousands(a.kept_tokens),
                thousands(d.summary_allowance.tokens),
                d.summary_allowance.reason,
                thousands(a.keep_recent_tokens)
            ),
            _ => "unknown".into(),
        },
    ));
    if let Some(e) = &d.economics {
        out.push(("economics".into(), e.line()));
    }
    out.push(("verdict".into(), d.verdict.clone()));
    for (i, a) in d.advice.iter().enumerate() {
        out.push((
            if i == 0 { "advice" } else { "" }.into(),
            format!("- {}", clean(a)),
        ));
    }
    let b = &d.context_breakdown;
    out.push(("context".into(), used_against_lines(b)));
    out.push((String::new(), parts_caption(b)));
    for p in &b.parts {
        out.push((
            String::new(),
            format!(
                "  {:<8} {:<24} {:>8}",
                p.group,
                clean(&p.name),
                thousands(p.tokens)
            ),
        ));
    }
    out
}

/// The session's one context figure against the lines: "used 29,144 of window 48,000; to
/// compaction line 36,000: 6,856 free; to flush line 30,000: 856 free; to the window: 18,856
/// free". The room is
/// measured from `used`, as the list, the gauges and `check` measure it.
pub fn used_against_lines(b: &Breakdown) -> String {
    let room = |r: Option<i64>| r.map(signed).unwrap_or_else(|| "unknown".into());
    format!(
        "used {} of window {}; to compaction line {}: {}; to flush line {}: {}; to the window: {}",
        opt(b.used),
        thousands(b.window),
        thousands(b.compact_at),
        room(b.free_to_compaction),
        opt(b.flush_at),
        match b.flush_at {
            Some(_) => room(b.free_to_flush),
            None => "-".into(),
        },
        room(b.free_to_window)
    )
}

/// What the parts below add up to, named: the transcript's context (the next prompt as pi
/// estimates it, which may differ from `used`) or plain estimates.
pub fn parts_caption(b: &Breakdown) -> String {
    match b.breaks_down {
        "transcriptContext" => format!(
            "its parts: the transcript's context {} (pi's estimate of the next prompt) =",
            thousands(b.total_tokens)
        ),
        _ => format!(
            "its parts, estimated from the transcript: {} in all =",
            thousands(b.total_tokens)
        ),
    }
}

/// "+1,234 free" / "4,000 over".
pub fn signed(n: i64) -> String {
    if n >= 0 {
        format!("{} free", thousands(n as u64))
    } else {
        format!("{} over", thousands(n.unsigned_abs()))
    }
}
