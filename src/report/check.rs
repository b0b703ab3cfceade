//! `clawtop check`: the problems of a [`ListReport`] (the same rows `list` prints), graded
//! warning or critical by the operator's sets, as a monitoring plugin reports them.
//!
//! Exit codes follow the Nagios plugin convention (also used by Icinga, Sensu, Zabbix
//! agents): 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (the host could not be read). One line per
//! problem on stdout, worst first; with no problem, one `OK` line.

use super::SessionRow;
use super::list::ListReport;

pub use crate::diagnosis::problem::{ALL, DEFAULT_CRIT, DEFAULT_WARN, Finding, Problem};

pub const OK: i32 = 0;
pub const WARNING: i32 = 1;
pub const CRITICAL: i32 = 2;
pub const UNKNOWN: i32 = 3;

/// The level of `p` in the operator's sets (critical wins), None when neither names it.
fn level(p: Problem, warn: &[Problem], crit: &[Problem]) -> Option<i32> {
    if crit.contains(&p) {
        Some(CRITICAL)
    } else if warn.contains(&p) {
        Some(WARNING)
    } else {
        None
    }
}

/// The report: lines (worst first) and the exit code. Every problem is the row's own
/// ([`SessionRow::problems`], computed by the session list), graded by the operator's sets;
/// a host read over ssh is graded from the problems its own clawtop computed. `burn`, the one
/// problem that depends on the operator's limit (`--max-cost-per-hour`), is graded here from
/// the row's cost: WARNING, CRITICAL when `--crit` names it.
pub fn run(
    r: &ListReport,
    warn: &[Problem],
    crit: &[Problem],
    max_cost_per_hour: Option<f64>,
) -> (String, i32) {
    // What could not be read comes first and is never skipped silently.
    let mut unread = String::new();
    for e in r.unreadable.iter().chain(&r.errors).chain(&r.skipped) {
        unread.push_str(&format!("UNKNOWN: {}\n", crate::sanitize::one_line(e)));
    }
    if r.unreadable.is_some() {
        return (unread, UNKNOWN);
    }
    let lossy_asked = [warn, crit]
        .iter()
        .any(|set| set.contains(&Problem::LossyCompaction));
    // A session whose transcript (or history) could not be read has unknown figures, not good
    // ones; a latest compaction whose span could not be read lost an unknown amount.
    for s in &r.sessions {
        let key = crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-"));
        if let Some(why) = s.unknown.get(crate::thresholds::TRANSCRIPT_UNREAD) {
            unread.push_str(&format!(
                "UNKNOWN: {key}: {}; its figures are unknown\n",
                crate::sanitize::one_line(why)
            ));
        } else if let Some(why) = s.unknown.get(crate::usecase::list::HISTORY_UNREAD) {
            unread.push_str(&format!(
                "UNKNOWN: {key}: {}; its history is unknown\n",
                crate::sanitize::one_line(why)
            ));
        }
        let loss_unknown = s
            .latest_compaction_loss
            .as_ref()
            .and_then(|l| l.unknown.as_deref());
        if let Some(why) = loss_unknown.filter(|_| lossy_asked) {
            unread.push_str(&format!(
                "UNKNOWN: {key}: lossy-compaction: {}\n",
                crate::sanitize::one_line(why)
            ));
        }
    }
    let mut lines: Vec<(i32, String)> = Vec::new();
    for s in &r.sessions {
        for (p, f) in s.known_problems() {
            if let Some(level) = level(p, warn, crit) {
                lines.push((level, line(level, p, s, &f.text)));
            }
        }
        if let Some(text) = max_cost_per_hour.and_then(|max| burn(s, max)) {
            let level = if crit.contains(&Problem::Burn) {
                CRITICAL
            } else {
                WARNING
            };
            lines.push((level, line(level, Problem::Burn, s, &text)));
        }
    }
    // Worst first; within a level the order of `list`.
    lines.sort_by_key(|(l, _)| std::cmp::Reverse(*l));
    let code = lines.first().map_or(OK, |(l, _)| *l);
    if !unread.is_empty() {
        // A part of the host could not be read: UNKNOWN, unless what was read is CRITICAL
        // already (the worse news for the operator paged).
        let out: String = unread + &lines.into_iter().map(|(_, l)| l + "\n").collect::<String>();
        return (out, if code == CRITICAL { CRITICAL } else { UNKNOWN });
    }
    if lines.is_empty() {
        return (
            format!(
                "OK: {} in {}, no problem\n",
                match r.sessions.len() {
                    1 => "1 session".to_string(),
                    n => format!("{n} sessions"),
                },
                crate::sanitize::one_line(&r.state_dir)
            ),
            OK,
        );
    }
    let out: String = lines.into_iter().map(|(_, l)| l + "\n").collect();
    (out, code)
}

fn line(level: i32, p: Problem, s: &SessionRow, text: &str) -> String {
    let tag = if level == CRITICAL {
        "CRITICAL"
    } else {
        "WARNING"
    };
    format!(
        "{tag} {} {}: {}",
        p.name(),
        crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-")),
        crate::sanitize::one_line(text)
    )
}

/// Why a row burns: its calls of the last hour cost more than `max` dollars.
fn burn(s: &SessionRow, max: f64) -> Option<String> {
    let c = s.cost.as_ref()?;
    if c.per_hour_usd.partial_cmp(&max) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    Some(format!(
        "{} in the last hour, over {}/h (spend {})",
        c.per_hour_label().trim_end_matches("/h"),
        crate::cost::usd_text(max),
        c.spend_label()
    ))
}
