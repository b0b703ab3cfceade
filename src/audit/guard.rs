//! What OpenClaw 2026.9's compaction quality guard would say about a summary
//! (docs/openclaw-2026.9.md §12): the five required headings, each on a line of its own; the
//! first 12 identifiers of the last 10 summarized messages, each included in the summary; the
//! 16,000-character cap of a summary artifact. Its latest-user-ask check needs the run's
//! request state and is not reproduced; the verdict says so.

use serde::Serialize;

/// `REQUIRED_SUMMARY_SECTIONS`, in order.
pub const REQUIRED_SECTIONS: [&str; 5] = [
    "## Decisions",
    "## Open TODOs",
    "## Constraints/Rules",
    "## Pending user asks",
    "## Exact identifiers",
];

/// `MAX_COMPACTION_SUMMARY_CHARS` (UTF-16 code units, JavaScript's `length`).
pub const SUMMARY_CAP: usize = 16_000;
/// The guard checks the identifiers of this many of the newest summarized messages ...
pub const GUARD_MESSAGES: usize = 10;
/// ... and at most this many of them.
pub const GUARD_IDENTIFIERS: usize = 12;

/// The headings of [`REQUIRED_SECTIONS`] that no trimmed line of `summary` equals.
pub fn missing_sections(summary: &str) -> Vec<String> {
    let lines: std::collections::HashSet<&str> = summary
        .split('\n')
        .map(|l| l.trim_matches(super::extract::is_js_space))
        .collect();
    REQUIRED_SECTIONS
        .iter()
        .filter(|h| !lines.contains(*h))
        .map(|h| h.to_string())
        .collect()
}

/// A summary's length as JavaScript counts it.
pub fn chars(summary: &str) -> usize {
    summary.encode_utf16().count()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Pass,
    Fail,
    /// The summary could not be read.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardVerdict {
    pub verdict: Verdict,
    /// OpenClaw's reason codes: `missing_section:<heading>`, `missing_identifiers:<first 3>`.
    pub reasons: Vec<String>,
    /// The identifiers the guard would have checked.
    pub identifiers_checked: Vec<String>,
    /// Checks of the guard this verdict does not reproduce.
    pub not_checked: Vec<&'static str>,
}

impl GuardVerdict {
    pub fn unknown() -> GuardVerdict {
        GuardVerdict {
            verdict: Verdict::Unknown,
            reasons: Vec::new(),
            identifiers_checked: Vec::new(),
            not_checked: vec!["latest_user_ask"],
        }
    }
}

/// The verdict on `summary`, given the texts of the summarized messages (oldest first, as
/// OpenClaw's `extractMessageText` reads them).
pub fn verdict<S: AsRef<str>>(summary: &str, message_texts: &[S]) -> GuardVerdict {
    let from = message_texts.len().saturating_sub(GUARD_MESSAGES);
    let mut checked: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    'texts: for t in &message_texts[from..] {
        let mut full = false;
        super::extract::each(t.as_ref(), |v| {
            if !full && seen.insert(v.to_string()) {
                checked.push(v.to_string());
                full = checked.len() >= GUARD_IDENTIFIERS;
            }
        });
        if full {
            break 'texts;
        }
    }
    let mut reasons: Vec<String> = missing_sections(summary)
        .into_iter()
        .map(|h| format!("missing_section:{h}"))
        .collect();
    let missing: Vec<&str> = checked
        .iter()
        .filter(|id| !super::extract::includes(summary, id))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        reasons.push(format!(
            "missing_identifiers:{}",
            missing[..missing.len().min(3)].join(",")
        ));
    }
    GuardVerdict {
        verdict: if reasons.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
        reasons,
        identifiers_checked: checked,
        not_checked: vec!["latest_user_ask"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_identifiers() {
        let all = REQUIRED_SECTIONS.join("\n\nx\n");
        assert!(missing_sections(&format!("  {all}  ")).is_empty());
        assert_eq!(missing_sections("## Decisions\n### Open TODOs").len(), 4);
        let v = verdict(&all, &["see /srv/a/b and DEADBEEF99"]);
        assert_eq!(v.verdict, Verdict::Fail);
        assert_eq!(v.reasons, ["missing_identifiers:/srv/a/b,DEADBEEF99"]);
        let v = verdict(
            &format!("{all}\n/srv/a/b deadbeef99"),
            &["/srv/a/b DEADBEEF99"],
        );
        assert_eq!(v.verdict, Verdict::Pass);
        assert_eq!(chars("é😀"), 3);
    }
}
