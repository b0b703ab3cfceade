//! `clawtop list`.

use super::SessionRow;
use super::text::{age, ascii, cell, compact_number, rcell};
use crate::numbers::Numbers;
use crate::source::SessionSource;
use crate::thresholds::UsedSource;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListReport {
    pub state_dir: String,
    pub era: &'static str,
    pub sessions: Vec<SessionRow>,
    pub warnings: Vec<String>,
    /// Stores that could not be read (the command exits 1 when there are any).
    #[serde(skip)]
    pub errors: Vec<String>,
}

/// Reads every store (or one agent's) and computes the numbers of each session.
pub fn build(source: &dyn SessionSource, agent: Option<&str>) -> ListReport {
    let mut report = ListReport {
        state_dir: source.label(),
        era: source.kind(),
        sessions: Vec::new(),
        warnings: source.warnings(),
        errors: Vec::new(),
    };
    if source.unreadable().is_some() {
        return report;
    }
    if let Some(a) = agent {
        if !source.has_agent(a) {
            report.errors.push(format!(
                "no agent {:?} in {}",
                crate::sanitize::one_line(a),
                source.label()
            ));
            return report;
        }
    }
    let t0 = std::time::Instant::now();
    let loaded = source.list(agent);
    tracing::debug!(
        sessions = loaded.sessions.len(),
        ms = t0.elapsed().as_millis() as u64,
        "stores read"
    );
    report.warnings.extend(loaded.warnings);
    report.errors.extend(loaded.errors);
    let mut numbers = Numbers::new(source);
    for s in &loaded.sessions {
        let mut warnings = s.warnings.clone();
        let (t, _) = numbers.session(s, &mut warnings);
        report
            .sessions
            .push(SessionRow::from_session(source.kind(), s, &t, warnings));
    }
    tracing::debug!(ms = t0.elapsed().as_millis() as u64, "numbers computed");
    report
}

const WIDTH: usize = 80;

/// The aligned text table: plain ASCII, at most 80 columns.
pub fn render(r: &ListReport, now_ms: i64) -> String {
    let mut out = String::new();
    if r.sessions.is_empty() {
        out.push_str(&format!("no sessions in {}\n", ascii(&r.state_dir)));
        return out;
    }
    let agent_w = r
        .sessions
        .iter()
        .map(|s| s.agent_id.as_deref().map_or(1, |a| a.len()))
        .max()
        .unwrap_or(5)
        .clamp(5, 10);
    // Fixed columns: model 12, age 4, used/window 11, % 5, status 11, compactions 3, 7 gaps.
    let (model_w, age_w, used_w, pct_w, status_w, comp_w) = (12, 4, 11, 5, 11, 3);
    let key_w = WIDTH - agent_w - model_w - age_w - used_w - pct_w - status_w - comp_w - 7;
    let row = |cols: [String; 8]| -> String { format!("{}\n", cols.join(" ").trim_end()) };
    out.push_str(&row([
        cell("AGENT", agent_w),
        cell("KEY", key_w),
        cell("MODEL", model_w),
        rcell("AGE", age_w),
        rcell("USED/WINDOW", used_w),
        rcell("%", pct_w),
        cell("STATUS", status_w),
        rcell("CMP", comp_w),
    ]));
    for s in &r.sessions {
        let used = match (s.used, s.used_source) {
            (None, _) => "?".to_string(),
            (Some(u), UsedSource::Estimated) => format!("~{}", compact_number(u)),
            (Some(u), _) => compact_number(u),
        };
        let pct = match crate::format::percent(s.used, s.window) {
            Some(p) => format!("{p}%"),
            None => "?".into(),
        };
        out.push_str(&row([
            cell(&ascii(s.agent_id.as_deref().unwrap_or("-")), agent_w),
            cell(&ascii(s.session_key.as_deref().unwrap_or("-")), key_w),
            cell(&ascii(s.model.as_deref().unwrap_or("-")), model_w),
            rcell(&age(s.updated_at, now_ms), age_w),
            rcell(&format!("{used}/{}", compact_number(s.window)), used_w),
            rcell(&pct, pct_w),
            cell(s.status.name(), status_w),
            rcell(
                &s.compaction_count.map_or("-".into(), |c| c.to_string()),
                comp_w,
            ),
        ]));
    }
    out.push_str("~ estimated from the transcript, ? unknown; CMP = compactionCount\n");
    out
}
