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
    let mut seen = Layout::new(width);
    for s in &r.sessions {
        seen.see(s);
    }
    let layout = seen.done();
    out.push_str(&layout.header());
    for s in &r.sessions {
        out.push_str(&layout.line(s, now_ms));
    }
    out.push_str(&layout.footer(r.totals.as_ref()));
    out
}

/// The table's columns, sized by one look at every row ([`Layout::see`]) and then laid out
/// ([`Layout::done`]): the rows need not all be held at once, so the fleet lays out a
/// remote's rows from their kept text one at a time with the code `list` uses.
#[derive(Debug, Clone)]
pub struct Layout {
    width: Option<usize>,
    agent_w: Option<usize>,
    key_need: usize,
    model_need: usize,
    with_lock: bool,
    any_cost: bool,
    key_w: usize,
    model_w: usize,
    with_cost: bool,
}

// Fixed columns: age 4, used/window 11, % 5, status 11, compactions 3, ETA 4, 8 gaps.
const AGE_W: usize = 4;
const USED_W: usize = 11;
const PCT_W: usize = 5;
const STATUS_W: usize = 11;
const COMP_W: usize = 3;
const ETA_W: usize = 4;
const FIXED: usize = AGE_W + USED_W + PCT_W + STATUS_W + COMP_W + ETA_W + 8;
// LOCK, only when a row has one (a stale lock is what check grades CRITICAL).
const LOCK_W: usize = 5;
// Spend and $/h, where the width leaves keys and models [`COST_ROOM`] columns.
const SPEND_W: usize = 9;
const HOUR_W: usize = 11;

impl Layout {
    /// Before any row is seen; `width` as for [`render`].
    pub fn new(width: Option<usize>) -> Layout {
        Layout {
            width,
            agent_w: None,
            key_need: 3,
            model_need: 5,
            with_lock: false,
            any_cost: false,
            key_w: 0,
            model_w: 0,
            with_cost: false,
        }
    }

    /// One row's part in the columns' widths.
    pub fn see(&mut self, s: &super::SessionRow) {
        let a = s.agent_id.as_deref().map_or(1, |a| a.len());
        self.agent_w = Some(self.agent_w.map_or(a, |w| w.max(a)));
        let key = ascii(s.session_key.as_deref().unwrap_or("-")).len();
        self.key_need = self.key_need.max(key);
        let model = ascii(s.model.as_deref().unwrap_or("-")).len();
        self.model_need = self.model_need.max(model);
        self.with_lock |= super::marks::lock(s).is_some();
        self.any_cost |= s.cost.is_some();
    }

    /// Every row seen: the widths.
    pub fn done(mut self) -> Layout {
        let agent_w = self.agent_w.unwrap_or(5).max(5);
        let fixed = if self.with_lock {
            FIXED + LOCK_W + 1
        } else {
            FIXED
        };
        self.with_cost = self.any_cost
            && self.width.is_none_or(|w| {
                w.max(MIN_WIDTH) >= fixed + agent_w.min(10) + SPEND_W + HOUR_W + 2 + COST_ROOM
            });
        let fixed = if self.with_cost {
            fixed + SPEND_W + HOUR_W + 2
        } else {
            fixed
        };
        let (agent_w, key_w, model_w) = match self.width {
            None => (
                agent_w.min(PAD_MAX),
                self.key_need.min(PAD_MAX),
                self.model_need.min(PAD_MAX),
            ),
            Some(w) => {
                let agent_w = agent_w.min(10);
                let room = w.max(MIN_WIDTH) - fixed - agent_w;
                // Both whole when they fit; else models get up to a third of the room (at
                // least 12) and keys the rest, any room a short column leaves going to the
                // other.
                let (key_need, model_need) = (self.key_need, self.model_need);
                let mut model_w = model_need.min((room / 3).max(12));
                let key_w = key_need.min(room - model_w);
                model_w = model_need.min(room - key_w);
                (agent_w, key_w, model_w)
            }
        };
        self.agent_w = Some(agent_w);
        self.key_w = key_w;
        self.model_w = model_w;
        self
    }

    /// Shortened to fit a terminal; whole (past PAD_MAX, unpadded) when there is none.
    fn cell(&self, s: &str, w: usize) -> String {
        match self.width {
            Some(_) => cell(s, w),
            None => super::text::pad(s, w),
        }
    }

    fn row(&self, cols: [String; 9], lock: String, cost: [String; 2]) -> String {
        let mut cols = cols.to_vec();
        if self.with_lock {
            // After STATUS.
            cols.insert(7, lock);
        }
        if self.with_cost {
            cols.extend(cost);
        }
        format!("{}\n", cols.join(" ").trim_end())
    }

    fn agent_w(&self) -> usize {
        self.agent_w.unwrap_or(5)
    }

    /// The header line.
    pub fn header(&self) -> String {
        self.row(
            [
                self.cell("AGENT", self.agent_w()),
                self.cell("KEY", self.key_w),
                self.cell("MODEL", self.model_w),
                rcell("AGE", AGE_W),
                rcell("USED/WINDOW", USED_W),
                rcell("%", PCT_W),
                self.cell("STATUS", STATUS_W),
                rcell("CMP", COMP_W),
                rcell("ETA", ETA_W),
            ],
            self.cell("LOCK", LOCK_W),
            [rcell("SPEND", SPEND_W), rcell("$/H", HOUR_W)],
        )
    }

    /// One session's line.
    pub fn line(&self, s: &super::SessionRow, now_ms: i64) -> String {
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
        self.row(
            [
                self.cell(&ascii(s.agent_id.as_deref().unwrap_or("-")), self.agent_w()),
                self.cell(&ascii(s.session_key.as_deref().unwrap_or("-")), self.key_w),
                self.cell(&ascii(s.model.as_deref().unwrap_or("-")), self.model_w),
                rcell(&age(s.updated_at, now_ms), AGE_W),
                rcell(&format!("{used}/{}", compact_number(s.window)), USED_W),
                rcell(&pct, PCT_W),
                self.cell(s.status.name(), STATUS_W),
                rcell(
                    &super::marks::compaction_count(
                        s.compaction_count,
                        s.unknown.contains_key("compactionCount"),
                    ),
                    COMP_W,
                ),
                rcell(&eta(s), ETA_W),
            ],
            self.cell(
                super::marks::lock(s).map_or(super::marks::NONE, |(_, w)| w),
                LOCK_W,
            ),
            [
                rcell(
                    &s.cost.as_ref().map_or("-".into(), |c| c.spend_label()),
                    SPEND_W,
                ),
                rcell(
                    &s.cost.as_ref().map_or("-".into(), |c| c.per_hour_label()),
                    HOUR_W,
                ),
            ],
        )
    }

    /// Under the table: the host's spend (when a row has a cost) and the legend.
    pub fn footer(&self, totals: Option<&crate::cost::host::HostTotals>) -> String {
        let mut out = String::new();
        if let Some(t) = totals.filter(|_| self.any_cost) {
            out.push_str(&format!("spend: {}\n", ascii(&t.line())));
        }
        out.push_str(&legend());
        out.push('\n');
        if self.with_lock {
            out.push_str(LOCK_LEGEND);
            out.push('\n');
        }
        out
    }
}

/// Turns to the compaction line at the forecast's rate; `-` when not growing or unknown.
fn eta(s: &super::SessionRow) -> String {
    super::marks::eta(s.forecast.as_ref().and_then(|f| f.turns_to_compaction))
}
