//! Sessions screen: one row per session across agents.
//!
//! ```text
//! clawtop · 6 sessions · sort act first · 1 over · 1 compact-due · /srv/op…/.openclaw
//! │ flush ┃ compact ▶ over ╱ unknown · ● fresh ○ legacy ~ transcript * estimated
//! ? unknown - none · ◐ busy ✖ stale lock ∅ no transcript ! store behind
//!   AGENT    KEY             USED/WINDOW GAUGE          % STATE       HEADROOM  ETA
//! › main     main              41k/200k ● ▕██░░░░│┃░▏  21% ok             −135k    -
//! ```
//!
//! Columns by value (issue 33 item 3): each column has a rank, and a terminal shows the
//! columns of the best ranks that fit, in display order ([`columns`]). What an operator acts
//! on comes first (used, state, %, agent, ETA, the headroom's figure, a readable key); then
//! the spend and the headroom's words, $/h, age, CMP, model and the trend. The column the
//! list is sorted by is always shown. The gauge is never dropped.

use super::gauge::{self, ThresholdGauge};
use super::theme::Theme;
use super::{age, compact_num, pad, rpad, shorten_middle};
use crate::report::marks;
use crate::sanitize::one_line;
use crate::tui::model::state::{AppState, SortKey};
use crate::tui::model::view::SessionRow;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    /// Markers: `∅` no transcript, `◐` busy (a live lock holder), `✖` stale lock, `!` the
    /// store's figures are older than the transcript's last entry.
    Mark,
    Agent,
    Key,
    Model,
    Age,
    Used,
    Gauge,
    Pct,
    Cmp,
    State,
    /// The headroom to the next line: its figure (`−2.5k`), with its words (`to compact`)
    /// where the width allows ([`HEADROOM_WORDS`]).
    Headroom,
    /// Turns to the compaction line (the forecast).
    Eta,
    /// The context of the last turns (a sparkline, full height at the compaction line).
    Trend,
    /// What the session spent ([`crate::cost::SessionCost::spend_label`], as `list` shows it).
    Spend,
    /// Its spend over the last hour ([`crate::cost::SessionCost::per_hour_label`]).
    PerHour,
}

/// Display order, left to right.
const ORDER: [Col; 15] = [
    Col::Mark,
    Col::Agent,
    Col::Key,
    Col::Model,
    Col::Age,
    Col::Used,
    Col::Gauge,
    Col::Pct,
    Col::Cmp,
    Col::State,
    Col::Headroom,
    Col::Eta,
    Col::Trend,
    Col::Spend,
    Col::PerHour,
];

/// The headroom column's width with its words (`+5.0k over compact`); without them it is
/// [`Col::min`] wide (the figure; the state beside it says which line).
pub const HEADROOM_WORDS: usize = 18;

/// Width the key grows to before the lower-ranked columns are added.
const KEY_READABLE: usize = 16;

impl Col {
    fn title(self) -> &'static str {
        match self {
            Col::Mark => " ",
            Col::Agent => "AGENT",
            Col::Key => "KEY",
            Col::Model => "MODEL",
            Col::Age => "AGE",
            Col::Used => "USED/WINDOW",
            Col::Gauge => "GAUGE",
            Col::Pct => "%",
            Col::Cmp => "CMP",
            Col::State => "STATE",
            Col::Headroom => "HEADROOM",
            Col::Eta => "ETA",
            Col::Trend => "TREND",
            Col::Spend => "SPEND",
            Col::PerHour => "$/H",
        }
    }

    /// Minimum width.
    fn min(self) -> usize {
        match self {
            Col::Mark => 1,
            Col::Agent => 8,
            Col::Key => 8,
            Col::Model => 14,
            Col::Age => 4,
            Col::Used => 12,
            Col::Gauge => 10,
            Col::Pct => 4,
            Col::Cmp => 3,
            Col::State => 11,
            Col::Headroom => 8,
            Col::Eta => 4,
            Col::Trend => crate::usecase::list::TREND_TURNS,
            // `~$0.0042?` and `~$0.0042?/h`.
            Col::Spend => 9,
            Col::PerHour => 11,
        }
    }

    fn right_aligned(self) -> bool {
        matches!(
            self,
            Col::Pct | Col::Cmp | Col::Used | Col::Headroom | Col::Eta | Col::Spend | Col::PerHour
        )
    }
}

/// One step of the ranking: a column added, or one widened to a width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Add(Col),
    Widen(Col, usize),
}

/// The ranking, best first, after the columns always shown (mark, key, gauge).
const RANK: [Step; 14] = [
    Step::Add(Col::Used),
    Step::Add(Col::State),
    Step::Add(Col::Pct),
    Step::Add(Col::Agent),
    Step::Add(Col::Eta),
    Step::Add(Col::Headroom),
    Step::Widen(Col::Key, KEY_READABLE),
    Step::Add(Col::Spend),
    Step::Widen(Col::Headroom, HEADROOM_WORDS),
    Step::Add(Col::PerHour),
    Step::Add(Col::Age),
    Step::Add(Col::Cmp),
    Step::Add(Col::Model),
    Step::Add(Col::Trend),
];

/// The columns a sort key orders by: shown whatever the width ranks them.
pub fn sorted_by(sort: SortKey) -> &'static [Col] {
    match sort {
        SortKey::Urgency => &[Col::State, Col::Headroom],
        SortKey::Updated => &[Col::Age],
        SortKey::Name => &[Col::Agent],
        SortKey::Eta => &[Col::Eta],
    }
}

/// Columns in display order with their widths for a table `width` columns wide, sorted by
/// `sort`; SPEND and $/H only when some row has a `cost` (else they would be columns of
/// `-`). The ranking is walked until a step does not fit; the space left then widens the
/// key, the gauge, the model and the agent.
pub fn columns(width: usize, sort: SortKey, costs: bool) -> Vec<(Col, usize)> {
    let mut widths: Vec<(Col, usize)> = [Col::Mark, Col::Key, Col::Gauge]
        .iter()
        .map(|&c| (c, c.min()))
        .collect();
    // The leading selection mark, then one space between columns.
    let need = |w: &[(Col, usize)]| 1 + w.iter().map(|(_, n)| n).sum::<usize>() + w.len() - 1;
    let forced = sorted_by(sort).iter().map(|&c| Step::Add(c));
    for step in forced.chain(RANK) {
        let mut next = widths.clone();
        match step {
            Step::Add(c) if next.iter().any(|(x, _)| *x == c) => continue,
            Step::Add(Col::Spend | Col::PerHour) if !costs => continue,
            Step::Add(c) => next.push((c, c.min())),
            Step::Widen(c, to) => match next.iter_mut().find(|(x, _)| *x == c) {
                Some(w) => w.1 = w.1.max(to),
                None => continue,
            },
        }
        let forced = matches!(step, Step::Add(c) if sorted_by(sort).contains(&c));
        if need(&next) > width && !forced {
            break;
        }
        widths = next;
    }
    widths.sort_by_key(|(c, _)| ORDER.iter().position(|o| o == c));
    let mut spare = width.saturating_sub(need(&widths));
    for (col, cap) in [
        (Col::Key, 36usize),
        (Col::Gauge, 20),
        (Col::Model, 20),
        (Col::Agent, 12),
        (Col::Gauge, 60),
        (Col::Key, 60),
    ] {
        if let Some(w) = widths.iter_mut().find(|(c, _)| *c == col) {
            let add = spare.min(cap.saturating_sub(w.1));
            w.1 += add;
            spare -= add;
        }
    }
    if let Some(g) = widths.iter_mut().find(|(c, _)| *c == Col::Gauge) {
        // A very narrow terminal still gets a (clipped) gauge.
        g.1 = g.1.min(width.saturating_sub(2)).max(5);
    }
    widths
}

/// The title: what is shown and where it was read. The state dir (the label) is kept,
/// shortened in the middle, before the status counts are: the counts are dropped from the
/// least urgent until the label has [`LABEL_ROOM`] columns (or all it needs).
fn title(state: &AppState, width: usize, t: Theme) -> Line<'static> {
    let s = &state.sessions;
    let mut head = vec![
        Span::styled("clawtop", t.title()),
        Span::raw(format!(
            " · {} · sort {}",
            super::plural(s.rows.len(), "session"),
            s.sort.name()
        )),
    ];
    let mut counts: Vec<Span> = Vec::new();
    for (st, n) in state.status_counts() {
        counts.push(Span::styled(format!(" · {n} {}", st.name()), t.status(st)));
    }
    let mut tail: Vec<Span> = Vec::new();
    if !s.filter.is_empty() {
        tail.push(Span::raw(format!(" · filter \"{}\"", one_line(&s.filter))));
    }
    if let Some(port) = s.running_gateway {
        tail.push(Span::styled(
            format!(" · gateway running :{port}"),
            t.error(),
        ));
    }
    match s.live {
        Some(true) => tail.push(Span::styled(" · ● live", t.bold())),
        Some(false) => tail.push(Span::styled(" · live: reconnecting", t.error())),
        None => {}
    }
    // The read time goes first when the state dir needs the room.
    let read = s
        .refreshed_ms
        .map(|ms| Span::styled(format!(" · read {}", clock(ms)), t.dim()));
    if let Some(ms) = s.reload_failed_ms {
        tail.push(Span::styled(
            format!(" · reload FAILED {}", clock(ms)),
            t.error(),
        ));
    }
    let label = one_line(&s.label);
    let banner = if state.demo { DEMO_BANNER.width() } else { 0 };
    let room = width.saturating_sub(banner);
    let w = |v: &[Span]| v.iter().map(|x| x.content.width()).sum::<usize>();
    let mut read: Vec<Span> = read.into_iter().collect();
    if !label.is_empty() {
        let want = label.width().min(LABEL_ROOM) + 3;
        let fits = |counts: &[Span], read: &[Span]| {
            w(&head) + w(counts) + w(read) + w(&tail) + want <= room
        };
        if !fits(&counts, &read) {
            read.clear();
        }
        while !counts.is_empty() && !fits(&counts, &read) {
            counts.pop();
        }
        let left = room.saturating_sub(w(&head) + w(&counts) + w(&read) + w(&tail) + 3);
        tail.push(Span::styled(
            format!(" · {}", shorten_middle(&label, left.max(8))),
            t.dim(),
        ));
    }
    head.extend(counts);
    head.extend(read);
    head.extend(tail);
    Line::from(head)
}

/// Columns the title keeps for the state dir (shortened with `…` past them).
pub const LABEL_ROOM: usize = 24;

const DEMO_BANNER: &str = " DEMO DATA ";

/// The legend, on the lines [`crate::tui::layout::sessions`] lays out.
fn legend(width: usize, t: Theme) -> Vec<Line<'static>> {
    use crate::tui::model::view::Status;
    crate::tui::layout::sessions::legend_lines(width)
        .into_iter()
        .map(|line| {
            let mut spans = Vec::new();
            for p in line {
                let style = match p.mark {
                    gauge::FLUSH_TICK | gauge::COMPACT_TICK => t.bold(),
                    gauge::OVER => t.status(Status::Over),
                    gauge::HATCH => t.dim(),
                    _ => t.plain(),
                };
                spans.push(Span::raw(p.sep));
                spans.push(Span::styled(p.mark, style));
                spans.push(Span::raw(format!(" {}", p.word)));
            }
            Line::from(spans)
        })
        .collect()
}

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let s = &state.sessions;
    let buf = frame.buffer_mut();
    let width = area.width as usize;
    let y = area.y;
    buf.set_line(area.x, y, &title(state, width, t), area.width);
    if state.demo {
        let x = area.x + area.width.saturating_sub(DEMO_BANNER.len() as u16);
        buf.set_string(x, y, DEMO_BANNER, t.banner());
    }
    let mut y = y + 1;
    for line in legend(width, t) {
        if y >= area.y + area.height {
            return;
        }
        buf.set_line(area.x, y, &line, area.width);
        y += 1;
    }
    if y >= area.y + area.height {
        return;
    }
    let cols = columns(width, s.sort, s.rows.iter().any(|r| r.cost.is_some()));
    let mut head = String::from(" ");
    for (i, (c, w)) in cols.iter().enumerate() {
        if i > 0 {
            head.push(' ');
        }
        head.push_str(&if c.right_aligned() {
            rpad(c.title(), *w)
        } else {
            pad(c.title(), *w)
        });
    }
    buf.set_string(area.x, y, pad(&head, width), t.header());
    let y = y + 1;
    let visible = s.visible();
    let rows_h = crate::tui::layout::sessions_rows(state.size)
        .min((area.y + area.height).saturating_sub(y) as usize);
    if visible.is_empty() {
        let msg = if !s.loaded {
            "Loading sessions…"
        } else if s.reload_failed_ms.is_some() {
            // A failed read is never "no sessions": the cause is on the status line.
            "The sessions could not be read (the status line says why); r retries."
        } else if !s.filter.is_empty() {
            "No session matches the filter (Esc clears it)."
        } else {
            "No sessions found."
        };
        buf.set_string(area.x + 1, y, msg, t.dim());
        return;
    }
    for (line, &ri) in visible.iter().skip(s.offset).take(rows_h).enumerate() {
        let row = &s.rows[ri];
        let selected = s.offset + line == s.selected;
        draw_row(
            frame,
            Rect {
                x: area.x,
                y: y + line as u16,
                width: area.width,
                height: 1,
            },
            row,
            &cols,
            state.now_ms,
            selected,
            t,
        );
    }
}

/// `−1.2k to flush`, `+3.4k over compact`, `?`.
pub fn headroom(r: &SessionRow) -> String {
    match r.headroom() {
        None => "?".into(),
        Some((h, line)) if h < 0 => format!("−{} to {line}", compact_num(h.unsigned_abs())),
        Some((h, line)) => format!("+{} over {line}", compact_num(h as u64)),
    }
}

/// The headroom's figure alone: `−1.2k`, `+3.4k`, `?` (the state says which line).
pub fn headroom_figure(r: &SessionRow) -> String {
    match r.headroom() {
        None => marks::UNKNOWN.into(),
        Some((h, _)) if h < 0 => format!("−{}", compact_num(h.unsigned_abs())),
        Some((h, _)) => format!("+{}", compact_num(h as u64)),
    }
}

/// `14:03:27` (UTC) of an epoch-ms time.
pub(crate) fn clock(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|d| d.format("%H:%M:%S").to_string())
        .unwrap_or_else(|| "?".into())
}

fn draw_row(
    frame: &mut Frame,
    area: Rect,
    r: &SessionRow,
    cols: &[(Col, usize)],
    now_ms: i64,
    selected: bool,
    t: Theme,
) {
    let buf = frame.buffer_mut();
    let mut x = area.x + 1;
    let agent_shown = cols.iter().any(|(c, _)| *c == Col::Agent);
    buf.set_string(area.x, area.y, if selected { "›" } else { " " }, t.bold());
    for (i, &(c, w)) in cols.iter().enumerate() {
        if i > 0 {
            x += 1;
        }
        let cell = Rect {
            x,
            y: area.y,
            width: w as u16,
            height: 1,
        };
        let (text, style) = match c {
            Col::Mark => {
                use crate::commit::LockStatus;
                let (m, st) = match (&r.lock, r.transcript.is_some()) {
                    (Some(LockStatus::Stale(..)), _) => (marks::STALE_LOCK, t.error()),
                    (Some(LockStatus::Held(_)), _) => (marks::BUSY, t.marker()),
                    (_, false) => ("∅", t.dim()),
                    _ if r.stale.is_some() => ("!", t.marker()),
                    _ => (" ", t.plain()),
                };
                (m.to_string(), st)
            }
            Col::Headroom => (
                rpad(
                    &if w >= HEADROOM_WORDS {
                        headroom(r)
                    } else {
                        headroom_figure(r)
                    },
                    w,
                ),
                t.status(r.status),
            ),
            Col::Agent => (pad(&one_line(r.agent()), w), t.plain()),
            Col::Key => {
                // With the agent column shown, "agent:<id>:" in front of the key is repetition.
                let prefix = format!("agent:{}:", r.agent());
                let key = match r.key().strip_prefix(&prefix) {
                    Some(rest) if agent_shown && !rest.is_empty() => rest,
                    _ => r.key(),
                };
                (pad(&shorten_middle(&one_line(key), w), w), t.bold())
            }
            Col::Model => (
                pad(
                    &one_line(r.provider_model().as_deref().unwrap_or(marks::NONE)),
                    w,
                ),
                t.dim(),
            ),
            Col::Age => (rpad(&age(now_ms, r.updated_at), w), t.dim()),
            Col::Used => {
                let used = r.used.map(compact_num).unwrap_or_else(|| "?".into());
                (
                    rpad(
                        &format!(
                            "{used}/{} {}",
                            compact_num(r.window),
                            crate::tui::model::view::provenance_marker(r.used_source)
                        ),
                        w,
                    ),
                    t.plain(),
                )
            }
            Col::Gauge => {
                frame.render_widget(ThresholdGauge { row: r, theme: t }, cell);
                x += w as u16;
                continue;
            }
            Col::Pct => (rpad(gauge::percent(r).trim(), w), t.status(r.status)),
            Col::Cmp => (
                rpad(
                    &marks::compaction_count(
                        r.compaction_count,
                        r.unknown.contains_key("compactionCount"),
                    ),
                    w,
                ),
                t.plain(),
            ),
            Col::State => (pad(r.status.name(), w), t.status(r.status)),
            Col::Eta => (
                rpad(
                    &marks::eta(r.forecast.as_ref().and_then(|f| f.turns_to_compaction)),
                    w,
                ),
                t.plain(),
            ),
            Col::Spend => (
                rpad(
                    &r.cost
                        .as_ref()
                        .map_or(marks::NONE.into(), |c| c.spend_label()),
                    w,
                ),
                t.plain(),
            ),
            Col::PerHour => (
                rpad(
                    &r.cost
                        .as_ref()
                        .map_or(marks::NONE.into(), |c| c.per_hour_label()),
                    w,
                ),
                t.dim(),
            ),
            Col::Trend => {
                frame.render_widget(
                    ratatui::widgets::Sparkline::default()
                        .data(&r.recent_context)
                        .max(r.compact_at.max(1))
                        .style(t.dim()),
                    cell,
                );
                x += w as u16;
                continue;
            }
        };
        frame.buffer_mut().set_string(x, area.y, text, style);
        x += w as u16;
    }
    if selected {
        frame.buffer_mut().set_style(area, t.selected());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(cols: &[(Col, usize)], c: Col) -> bool {
        cols.iter().any(|(x, _)| *x == c)
    }

    fn width_of(cols: &[(Col, usize)], c: Col) -> usize {
        cols.iter().find(|(x, _)| *x == c).map_or(0, |(_, w)| *w)
    }

    /// Issue 33 item 3: at 80 columns the key and the ETA come before the headroom's words.
    #[test]
    fn at_80_columns_key_and_eta_before_the_headrooms_words() {
        for costs in [false, true] {
            let c = columns(80, SortKey::Urgency, costs);
            assert!(has(&c, Col::Eta), "{c:?}");
            assert!(width_of(&c, Col::Key) >= 13, "{c:?}");
            assert!(width_of(&c, Col::Headroom) < HEADROOM_WORDS, "{c:?}");
            assert!(has(&c, Col::State) && has(&c, Col::Agent), "{c:?}");
        }
    }

    #[test]
    fn the_spend_comes_where_width_allows_and_only_with_costs() {
        let c = columns(100, SortKey::Urgency, true);
        assert!(has(&c, Col::Spend) && !has(&c, Col::PerHour), "{c:?}");
        let c = columns(120, SortKey::Urgency, true);
        assert!(has(&c, Col::Spend) && has(&c, Col::PerHour), "{c:?}");
        assert_eq!(width_of(&c, Col::Headroom), HEADROOM_WORDS, "{c:?}");
        let c = columns(200, SortKey::Urgency, false);
        assert!(!has(&c, Col::Spend) && !has(&c, Col::PerHour), "{c:?}");
        assert!(has(&c, Col::Trend) && has(&c, Col::Model), "{c:?}");
    }

    /// Sorting by a column shows it, however narrow (the gauge stays too).
    #[test]
    fn the_sorted_column_is_shown() {
        for width in [50, 80, 100] {
            let c = columns(width, SortKey::Eta, true);
            assert!(has(&c, Col::Eta), "{width}: {c:?}");
            let c = columns(width, SortKey::Updated, true);
            assert!(has(&c, Col::Age), "{width}: {c:?}");
            let c = columns(width, SortKey::Name, true);
            assert!(has(&c, Col::Agent), "{width}: {c:?}");
            assert!(has(&c, Col::Gauge), "{width}: {c:?}");
        }
    }

    #[test]
    fn the_columns_fit_the_width_in_display_order() {
        for width in 60..260 {
            for sort in [SortKey::Urgency, SortKey::Eta, SortKey::Updated] {
                for costs in [false, true] {
                    let c = columns(width, sort, costs);
                    let used = 1 + c.iter().map(|(_, w)| w).sum::<usize>() + c.len() - 1;
                    assert!(used <= width, "{width} {sort:?}: {used} {c:?}");
                    let pos: Vec<usize> = c
                        .iter()
                        .map(|(x, _)| ORDER.iter().position(|o| o == x).unwrap())
                        .collect();
                    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{c:?}");
                }
            }
        }
        // Everything on a wide terminal.
        assert_eq!(columns(200, SortKey::Urgency, true).len(), ORDER.len());
    }
}
