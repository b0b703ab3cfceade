//! Sessions screen: one row per session across agents.
//!
//! ```text
//! clawtop · 6 sessions · 1 over · 1 compact-due · sort pressure        DEMO DATA
//! █ used │ flush line ┃ compaction line ▶ over ╱ unknown · ● fresh ○ legacy …
//! AGENT    KEY               MODEL   AGE USED/WINDOW   GAUGE           %  CMP STATE
//! main     agent:main:main   sonnet   42s 41.2k/200k ● ▕██░░░░░│┃░▏   20%   0 ok
//! ```
//! Narrow terminals drop columns (model first), never the gauge.

use super::gauge::{self, ThresholdGauge};
use super::theme::Theme;
use super::{age, compact_num, pad, rpad, shorten_middle};
use crate::sanitize::one_line;
use crate::tui::model::state::{AppState, layout};
use crate::tui::model::view::SessionRow;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

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
    Headroom,
    /// Turns to the compaction line (the forecast).
    Eta,
    /// The context of the last turns (a sparkline, full height at the compaction line).
    Trend,
}

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
        }
    }

    /// Minimum width.
    fn min(self) -> usize {
        match self {
            Col::Mark => 1,
            Col::Agent => 8,
            // Keys are shortened from the middle; at 80 columns the state column matters more.
            Col::Key => 8,
            Col::Model => 14,
            Col::Age => 4,
            Col::Used => 12,
            Col::Gauge => 10,
            Col::Pct => 4,
            Col::Cmp => 3,
            Col::State => 11,
            Col::Headroom => 18,
            Col::Eta => 4,
            Col::Trend => crate::usecase::list::TREND_TURNS,
        }
    }
}

/// From this width on, the ETA and trend columns are added at the end (narrower terminals keep
/// the columns they had).
pub const FORECAST_MIN_WIDTH: usize = 140;

/// Columns in display order with widths for `width` columns. Columns are dropped in this
/// order when space runs out; the gauge never is.
pub fn columns(width: usize) -> Vec<(Col, usize)> {
    if width >= FORECAST_MIN_WIDTH {
        let extra = [Col::Eta, Col::Trend];
        let room: usize = extra.iter().map(|c| c.min() + 1).sum();
        let mut v = base_columns(width - room);
        v.extend(extra.iter().map(|&c| (c, c.min())));
        return v;
    }
    base_columns(width)
}

fn base_columns(width: usize) -> Vec<(Col, usize)> {
    const ORDER: [Col; 11] = [
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
    ];
    // The headroom says what to do next (and, coloured, the state): it outlives age and state.
    const DROP: [Col; 8] = [
        Col::Model,
        Col::Cmp,
        Col::Age,
        Col::State,
        Col::Agent,
        Col::Pct,
        Col::Headroom,
        Col::Used,
    ];
    let mut cols: Vec<Col> = ORDER.to_vec();
    let need = |cols: &[Col]| cols.iter().map(|c| c.min()).sum::<usize>() + cols.len() - 1 + 1;
    for d in DROP {
        if need(&cols) <= width {
            break;
        }
        cols.retain(|&c| c != d);
    }
    let mut widths: Vec<(Col, usize)> = cols.iter().map(|&c| (c, c.min())).collect();
    let mut spare = width.saturating_sub(need(&cols));
    // Spare space: key up to 40, model up to 20, agent up to 12, then the gauge.
    for (col, cap) in [
        (Col::Key, 18usize),
        (Col::Gauge, 20),
        (Col::Key, 36),
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

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let s = &state.sessions;
    let buf = frame.buffer_mut();
    let width = area.width as usize;
    // Title line.
    let mut title = vec![
        Span::styled("clawtop", t.title()),
        Span::raw(format!(
            " · {} · sort {}",
            super::plural(s.rows.len(), "session"),
            s.sort.name()
        )),
    ];
    for (st, n) in state.status_counts() {
        title.push(Span::raw(" · "));
        title.push(Span::styled(format!("{n} {}", st.name()), t.status(st)));
    }
    if !s.filter.is_empty() {
        title.push(Span::raw(format!(" · filter \"{}\"", one_line(&s.filter))));
    }
    if let Some(port) = s.running_gateway {
        title.push(Span::styled(
            format!(" · gateway running :{port}"),
            t.error(),
        ));
    }
    match s.live {
        Some(true) => title.push(Span::styled(" · ● live", t.bold())),
        Some(false) => title.push(Span::styled(" · live: reconnecting", t.error())),
        None => {}
    }
    if let Some(ms) = s.refreshed_ms {
        title.push(Span::styled(format!(" · read {}", clock(ms)), t.dim()));
    }
    if let Some(ms) = s.reload_failed_ms {
        title.push(Span::styled(
            format!(" · reload FAILED {}", clock(ms)),
            t.error(),
        ));
    }
    if !s.label.is_empty() {
        title.push(Span::styled(format!(" · {}", one_line(&s.label)), t.dim()));
    }
    let y = area.y;
    buf.set_line(area.x, y, &Line::from(title), area.width);
    if state.demo {
        let banner = " DEMO DATA ";
        let x = area.x + area.width.saturating_sub(banner.len() as u16);
        buf.set_string(x, y, banner, t.banner());
    }
    if area.height < 2 {
        return;
    }
    buf.set_line(area.x, y + 1, &gauge::legend(t), area.width);
    if area.height < 3 {
        return;
    }
    let cols = columns(width);
    let mut head = String::from(" ");
    for (i, (c, w)) in cols.iter().enumerate() {
        if i > 0 {
            head.push(' ');
        }
        head.push_str(
            &if matches!(c, Col::Pct | Col::Cmp | Col::Used | Col::Headroom) {
                rpad(c.title(), *w)
            } else {
                pad(c.title(), *w)
            },
        );
    }
    buf.set_string(area.x, y + 2, pad(&head, width), t.header());
    let visible = s.visible();
    let rows_h = layout::sessions_rows(state.size).min(area.height.saturating_sub(3) as usize);
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
        buf.set_string(area.x + 1, y + 3, msg, t.dim());
        return;
    }
    for (line, &ri) in visible.iter().skip(s.offset).take(rows_h).enumerate() {
        let row = &s.rows[ri];
        let selected = s.offset + line == s.selected;
        draw_row(
            frame,
            Rect {
                x: area.x,
                y: y + 3 + line as u16,
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
                    (Some(LockStatus::Stale(..)), _) => ("✖", t.error()),
                    (Some(LockStatus::Held(_)), _) => ("◐", t.marker()),
                    (_, false) => ("∅", t.dim()),
                    _ if r.stale.is_some() => ("!", t.marker()),
                    _ => (" ", t.plain()),
                };
                (m.to_string(), st)
            }
            Col::Headroom => (rpad(&headroom(r), w), t.status(r.status)),
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
                pad(&one_line(r.provider_model().as_deref().unwrap_or("—")), w),
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
                    &r.compaction_count
                        .map(|n| n.to_string())
                        .unwrap_or_else(|| "—".into()),
                    w,
                ),
                t.plain(),
            ),
            Col::State => (pad(r.status.name(), w), t.status(r.status)),
            Col::Eta => (
                rpad(
                    &match r.forecast.as_ref().and_then(|f| f.turns_to_compaction) {
                        Some(n) if n > 999 => ">999".to_string(),
                        Some(n) => n.to_string(),
                        None => "-".to_string(),
                    },
                    w,
                ),
                t.plain(),
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
