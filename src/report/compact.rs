//! `clawtop compact --dry-run`: the compaction plan, no model call, nothing written.

use crate::format::thousands;
use crate::plan::{self, CompactionPlan};
use crate::thresholds::Source;
use crate::transcript::Transcript;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanReport {
    pub session_key: Option<String>,
    pub transcript: String,
    pub leaf_id: Option<String>,
    pub first_kept_entry_id: Option<String>,
    pub first_kept_entry_index: u32,
    pub leaf_index: u32,
    pub tokens_before: u64,
    pub messages_to_summarize: usize,
    pub turn_prefix_messages: usize,
    pub is_split_turn: bool,
    pub has_previous_summary: bool,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
    pub keep_recent_tokens: u64,
    pub keep_recent_tokens_source: Source,
}

/// `compact --dry-run --json`: the plan, whether a turn is running, and the diagnosis.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DryRun {
    #[serde(flatten)]
    pub plan: PlanReport,
    pub busy: Option<crate::diagnosis::Busy>,
    #[serde(flatten)]
    pub diagnosis: crate::diagnosis::Diagnosis,
}

/// The diagnosis under the plan, in the plan's two-space style.
pub fn render_diagnosis(
    d: &crate::diagnosis::Diagnosis,
    busy: Option<&crate::diagnosis::Busy>,
) -> String {
    let mut lines = super::diagnosis::lines(d);
    if let Some(b) = busy {
        lines.push((
            "busy".into(),
            format!(
                "an OpenClaw turn is running (pid {}); compact and flush refuse until it ends",
                b.pid.map(|p| p.to_string()).unwrap_or_else(|| "-".into())
            ),
        ));
    }
    let kw = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 1;
    let mut out = String::new();
    for (k, v) in lines {
        let k = if k.is_empty() { k } else { format!("{k}:") };
        out.push_str(&format!("  {k:<kw$}  {v}\n"));
    }
    out
}

/// Plans a compaction of `t` (ids are null for v1 files, whose ids pi regenerates).
pub fn build(
    t: &Transcript,
    session_key: Option<&str>,
    keep: (u64, Source),
) -> Result<(PlanReport, CompactionPlan), plan::NoPlan> {
    let p = plan::prepare(t, keep.0)?;
    Ok((from_plan(t, session_key, keep.1, &p), p))
}

/// The report of a plan already made on `t`.
pub fn from_plan(
    t: &Transcript,
    session_key: Option<&str>,
    keep_source: Source,
    p: &CompactionPlan,
) -> PlanReport {
    PlanReport {
        session_key: session_key.map(str::to_string),
        transcript: t.path().display().to_string(),
        leaf_id: t.entry_id(p.leaf).map(String::from),
        first_kept_entry_id: t.entry_id(p.first_kept_entry).map(String::from),
        first_kept_entry_index: p.first_kept_entry,
        leaf_index: p.leaf,
        tokens_before: p.tokens_before,
        messages_to_summarize: p.messages_to_summarize.len(),
        turn_prefix_messages: p.turn_prefix_messages.len(),
        is_split_turn: p.cut.is_split_turn,
        has_previous_summary: p.previous_summary.is_some(),
        read_files: p.read_files.clone(),
        modified_files: p.modified_files.clone(),
        keep_recent_tokens: p.keep_recent_tokens,
        keep_recent_tokens_source: keep_source,
    }
}

pub fn render(r: &PlanReport) -> String {
    let clean = crate::sanitize::one_line;
    let id = |id: &Option<String>, idx: u32| match id {
        Some(id) => format!("{} (entry {idx})", clean(id)),
        None => format!("entry {idx} (no ids: v1 file)"),
    };
    let mut out = String::new();
    let who = r
        .session_key
        .as_deref()
        .map(clean)
        .unwrap_or_else(|| "bare transcript".into());
    out.push_str(&format!(
        "Compaction plan for {who} (dry run: no model called, nothing written)\n"
    ));
    out.push_str(&format!(
        "  transcript:            {}\n",
        clean(&r.transcript)
    ));
    out.push_str(&format!(
        "  leaf:                  {}\n",
        id(&r.leaf_id, r.leaf_index)
    ));
    out.push_str(&format!(
        "  first kept entry:      {}\n",
        id(&r.first_kept_entry_id, r.first_kept_entry_index)
    ));
    out.push_str(&format!(
        "  tokens before:         {}\n",
        thousands(r.tokens_before)
    ));
    out.push_str(&format!(
        "  messages to summarize: {}\n",
        r.messages_to_summarize
    ));
    let split = if r.is_split_turn {
        " (the cut splits a turn; its prefix is summarized separately)"
    } else {
        ""
    };
    out.push_str(&format!(
        "  turn prefix messages:  {}{split}\n",
        r.turn_prefix_messages
    ));
    out.push_str(&format!(
        "  previous summary:      {}\n",
        if r.has_previous_summary {
            "yes (the new summary updates it)"
        } else {
            "no"
        }
    ));
    out.push_str(&format!(
        "  keepRecentTokens:      {} [{}]\n",
        thousands(r.keep_recent_tokens),
        r.keep_recent_tokens_source.name()
    ));
    for (label, files) in [
        ("read files", &r.read_files),
        ("modified files", &r.modified_files),
    ] {
        out.push_str(&format!("  {label} ({}):\n", files.len()));
        for f in files {
            out.push_str(&format!("    {}\n", clean(f)));
        }
    }
    out
}
