//! The diagnosis of a session ([`crate::diagnosis`]) for `show` and `compact --dry-run`:
//! gathering its inputs from a source, and its plain-text lines.

use crate::diagnosis::{self, Diagnosis, Inputs, StoreFigure, overhead};
use crate::source::{LocalWriter, Operation, Session, SessionSource, Writer};
use crate::thresholds::{Thresholds, thousands};
use crate::transcript::Transcript;

/// The diagnosis of a listed session: store figure, workspace and prompt report from its source.
pub fn for_session(
    source: &dyn SessionSource,
    s: &Session,
    t: &Transcript,
    th: &Thresholds,
    keep: u64,
) -> Diagnosis {
    let workspace = source.workspace(s.agent_id()).map(|w| w.0);
    let store_path = match source.writer(&s.reference, Operation::Flush) {
        Writer::Local(LocalWriter { store, .. }) => store.map(|r| r.store_path),
        _ => None,
    };
    let report = store_path.and_then(|p| overhead::read_prompt_report(&p, s.key()));
    diagnosis::diagnose(
        t,
        &Inputs {
            session_key: Some(s.key()),
            store: StoreFigure {
                total_tokens: s.entry.total_tokens(),
                total_tokens_fresh: s.entry.total_tokens_fresh(),
                updated_at: s.entry.updated_at,
            },
            thresholds: th,
            keep_recent_tokens: keep,
            workspace: workspace.as_deref(),
            prompt_report: report.as_ref(),
            bootstrap_max_chars: overhead::bootstrap_max_chars(source.config()),
        },
    )
}

/// The diagnosis of a session or (without one) a bare transcript, at `keep`, whether a turn
/// is running, and the numbers it was made with (the same as `list`'s for that session).
pub fn for_target(
    source: &dyn SessionSource,
    session: Option<&Session>,
    t: &Transcript,
    keep: u64,
) -> (Diagnosis, Option<diagnosis::Busy>, Thresholds) {
    match session {
        Some(s) => {
            let mut numbers = crate::numbers::Numbers::new(source);
            let th = numbers.session_with_transcript(s, Some(t));
            (
                for_session(source, s, t, &th, keep),
                diagnosis::busy::of_session(source, s),
                th,
            )
        }
        None => {
            let (th, _) = super::show::bare_thresholds(Some(t), None);
            (for_file(t, &th, keep), diagnosis::busy(t.path()), th)
        }
    }
}

/// The diagnosis of a session named by its handle (the TUI): its listed entry when it has
/// one, else as a bare transcript, with the numbers it was made with. Disk I/O (the store
/// listing, workspace files, the lock).
pub fn for_handle(
    h: &crate::source::SessionHandle,
    t: &Transcript,
    keep: u64,
) -> (Option<Diagnosis>, Option<diagnosis::Busy>, Thresholds) {
    let source = h.source.as_ref();
    let r = &h.session;
    let listed = if r.agent_id.is_empty() {
        None
    } else {
        source
            .list(Some(&r.agent_id))
            .sessions
            .into_iter()
            .find(|s| s.reference == *r)
    };
    let (d, busy, th) = for_target(source, listed.as_ref(), t, keep);
    (Some(d), busy, th)
}

/// A bare transcript: no store, no workspace.
pub fn for_file(t: &Transcript, th: &Thresholds, keep: u64) -> Diagnosis {
    diagnosis::diagnose(
        t,
        &Inputs {
            session_key: None,
            store: StoreFigure::default(),
            thresholds: th,
            keep_recent_tokens: keep,
            workspace: None,
            prompt_report: None,
            bootstrap_max_chars: overhead::DEFAULT_BOOTSTRAP_MAX_CHARS,
        },
    )
}

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
                    "{}  = last usage {}{} + {} after it (pi's estimate of the active branch)",
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
    out.push(("verdict".into(), d.verdict.clone()));
    for (i, a) in d.advice.iter().enumerate() {
        out.push((
            if i == 0 { "advice" } else { "" }.into(),
            format!("- {}", clean(a)),
        ));
    }
    let b = &d.context_breakdown;
    out.push((
        "context".into(),
        format!(
            "{} of window {}; to compaction line {}: {}; to flush line {}: {}",
            thousands(b.total_tokens),
            thousands(b.window),
            thousands(b.compact_at),
            signed(b.free_to_compaction),
            opt(b.flush_at),
            b.free_to_flush.map(signed).unwrap_or_else(|| "-".into())
        ),
    ));
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

/// "+1,234 free" / "4,000 over".
pub fn signed(n: i64) -> String {
    if n >= 0 {
        format!("{} free", thousands(n as u64))
    } else {
        format!("{} over", thousands(n.unsigned_abs()))
    }
}
