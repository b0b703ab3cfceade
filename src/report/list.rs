//! `clawtop list` as text: the rows of [`crate::usecase::list`] laid out as a table.

use super::text::{age, ascii, cell, compact_number, rcell};

pub use crate::usecase::list::ListReport;

/// What the marks next to a figure mean ([`super::marks`], the TUI's legend words; a used
/// figure without a mark is the store's, with one the store's figure is older, a run-sum or
/// missing, and `show` says which). Each line fits 80 columns.
pub fn legend() -> String {
    use super::marks::*;
    format!(
        "marks: {} (show KEY says why)\nCMP = compactionCount; ETA = turns to the compaction line\nSPEND: ~ from repaired usage, ? some calls unpriced (see show --json)",
        super::marks::legend(&[TRANSCRIPT, ESTIMATED, UNKNOWN, NONE])
    )
}

/// The LOCK column's words (shown when a row has one): what `check` grades busy-stale-lock
/// and busy.
pub const LOCK_LEGEND: &str =
    "LOCK: stale = a stale transcript lock (check: busy-stale-lock); busy = a live turn";

/// Columns keys and models keep before the spend and $/h columns are shown.
pub const COST_ROOM: usize = 40;

/// The narrowest table `render` lays out (a terminal narrower than this still gets 80).
pub const MIN_WIDTH: usize = 80;

/// Whole keys and models (no terminal) pad their column to at most this many characters: a
/// longer one is printed whole and only its own line is wider (one 60 MB key would otherwise
/// pad every line, the header too, to 60 MB).
pub const PAD_MAX: usize = 64;

/// The aligned text table, plain ASCII. `width`: the terminal's columns, keys and models
/// shortened in the middle to fit; None (stdout is a pipe or a file): whole keys and models,
/// so every printed key can be given back to `show`, `compact` and `flush`.
pub fn render(r: &ListReport, now_ms: i64, width: Option<usize>) -> String {
    let mut out = String::new();
    if r.sessions.is_empty() {
        out.push_str(&format!("no sessions in {}\n", ascii(&r.state_dir)));
        return out;
    }
    let keys: Vec<String> = r
        .sessions
        .iter()
        .map(|s| ascii(s.session_key.as_deref().unwrap_or("-")))
        .collect();
    let models: Vec<String> = r
        .sessions
        .iter()
        .map(|s| ascii(s.model.as_deref().unwrap_or("-")))
        .collect();
    let longest = |v: &[String], min: usize| v.iter().map(String::len).max().unwrap_or(0).max(min);
    let agent_w = r
        .sessions
        .iter()
        .map(|s| s.agent_id.as_deref().map_or(1, |a| a.len()))
        .max()
        .unwrap_or(5)
        .max(5);
    // Fixed columns: age 4, used/window 11, % 5, status 11, compactions 3, ETA 4, 8 gaps.
    let (age_w, used_w, pct_w, status_w, comp_w, eta_w) = (4, 11, 5, 11, 3, 4);
    let fixed = age_w + used_w + pct_w + status_w + comp_w + eta_w + 8;
    // LOCK, only when a row has one (a stale lock is what check grades CRITICAL).
    let lock_w = 5;
    let with_lock = r.sessions.iter().any(|s| super::marks::lock(s).is_some());
    let fixed = if with_lock { fixed + lock_w + 1 } else { fixed };
    // Spend and $/h, where the width leaves keys and models [`COST_ROOM`] columns.
    let (spend_w, hour_w) = (9, 11);
    let any_cost = r.sessions.iter().any(|s| s.cost.is_some());
    let with_cost = any_cost
        && width.is_none_or(|w| {
            w.max(MIN_WIDTH) >= fixed + agent_w.min(10) + spend_w + hour_w + 2 + COST_ROOM
        });
    let fixed = if with_cost {
        fixed + spend_w + hour_w + 2
    } else {
        fixed
    };
    let (agent_w, key_w, model_w) = match width {
        None => (
            agent_w.min(PAD_MAX),
            longest(&keys, 3).min(PAD_MAX),
            longest(&models, 5).min(PAD_MAX),
        ),
        Some(w) => {
            let agent_w = agent_w.min(10);
            let room = w.max(MIN_WIDTH) - fixed - agent_w;
            // Both whole when they fit; else models get up to a third of the room (at least
            // 12) and keys the rest, any room a short column leaves going to the other.
            let (key_need, model_need) = (longest(&keys, 3), longest(&models, 5));
            let mut model_w = model_need.min((room / 3).max(12));
            let key_w = key_need.min(room - model_w);
            model_w = model_need.min(room - key_w);
            (agent_w, key_w, model_w)
        }
    };
    // Shortened to fit a terminal; whole (past PAD_MAX, unpadded) when there is none.
    let cell = |s: &str, w: usize| match width {
        Some(_) => cell(s, w),
        None => super::text::pad(s, w),
    };
    let row = |cols: [String; 9], lock: String, cost: [String; 2]| -> String {
        let mut cols = cols.to_vec();
        if with_lock {
            // After STATUS.
            cols.insert(7, lock);
        }
        if with_cost {
            cols.extend(cost);
        }
        format!("{}\n", cols.join(" ").trim_end())
    };
    out.push_str(&row(
        [
            cell("AGENT", agent_w),
            cell("KEY", key_w),
            cell("MODEL", model_w),
            rcell("AGE", age_w),
            rcell("USED/WINDOW", used_w),
            rcell("%", pct_w),
            cell("STATUS", status_w),
            rcell("CMP", comp_w),
            rcell("ETA", eta_w),
        ],
        cell("LOCK", lock_w),
        [rcell("SPEND", spend_w), rcell("$/H", hour_w)],
    ));
    for (i, s) in r.sessions.iter().enumerate() {
        let used = match s.used {
            None => super::marks::UNKNOWN.to_string(),
            Some(u) => format!(
                "{}{}",
                super::marks::used_ascii(s.used_source),
                compact_number(u)
            ),
        };
        let pct = match crate::format::percent(s.used, s.window) {
            Some(p) => format!("{p}%"),
            None => "?".into(),
        };
        out.push_str(&row(
            [
                cell(&ascii(s.agent_id.as_deref().unwrap_or("-")), agent_w),
                cell(&keys[i], key_w),
                cell(&models[i], model_w),
                rcell(&age(s.updated_at, now_ms), age_w),
                rcell(&format!("{used}/{}", compact_number(s.window)), used_w),
                rcell(&pct, pct_w),
                cell(s.status.name(), status_w),
                rcell(
                    &super::marks::compaction_count(
                        s.compaction_count,
                        s.unknown.contains_key("compactionCount"),
                    ),
                    comp_w,
                ),
                rcell(&eta(s), eta_w),
            ],
            cell(
                super::marks::lock(s).map_or(super::marks::NONE, |(_, w)| w),
                lock_w,
            ),
            [
                rcell(
                    &s.cost.as_ref().map_or("-".into(), |c| c.spend_label()),
                    spend_w,
                ),
                rcell(
                    &s.cost.as_ref().map_or("-".into(), |c| c.per_hour_label()),
                    hour_w,
                ),
            ],
        ));
    }
    out.push_str(&footer(r, with_lock));
    out
}

/// Under the table: the host's spend (when a row has a cost) and the legend.
fn footer(r: &ListReport, with_lock: bool) -> String {
    let mut out = String::new();
    if let Some(t) = r
        .totals
        .as_ref()
        .filter(|_| r.sessions.iter().any(|s| s.cost.is_some()))
    {
        out.push_str(&format!("spend: {}\n", ascii(&t.line())));
    }
    out.push_str(&legend());
    out.push('\n');
    if with_lock {
        out.push_str(LOCK_LEGEND);
        out.push('\n');
    }
    out
}

/// Turns to the compaction line at the forecast's rate; `-` when not growing or unknown.
fn eta(s: &super::SessionRow) -> String {
    super::marks::eta(s.forecast.as_ref().and_then(|f| f.turns_to_compaction))
}
