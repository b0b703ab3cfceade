//! The History pane of the Session screen (`H`): the context per turn as bars (ratatui's
//! `Sparkline`), the compaction line (`━`) and the flush line (`┄`) across them, and under the
//! bars each turn that follows a compaction (`C`) and each memory-flush turn (`F`)
//! ([`HistoryChart`]); under the chart, what `clawtop history` lists: warnings, compactions,
//! flushes ([`HistoryEvents`], docs/history.md §5).
//!
//! The turns are computed with the transcript, off the render path
//! ([`crate::history::branch_turns`] in the loader); this only lays them out. The top of the
//! chart is the window (or the largest turn, when a turn went over it), so the lines sit at
//! their true height. With more turns than columns, the latest turns are shown.

use super::theme::Theme;
use crate::format::thousands;
use crate::history::Turn;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Sparkline, Widget};

/// What the pane shows: the turns and the session's lines (from its numbers).
pub struct HistoryChart<'a> {
    pub turns: &'a [Turn],
    /// The loader is still reading the history (the first screen came before it).
    pub pending: bool,
    pub window: u64,
    pub compact_at: u64,
    pub flush_at: Option<u64>,
    pub used: Option<u64>,
    pub theme: Theme,
}

const Y_LABEL_W: u16 = 7;

fn short(n: u64) -> String {
    crate::format::tokens(n)
}

/// A threshold line across the plot: its value, the plot row it is drawn on, glyph, style.
type ThresholdLine = (u64, u16, &'static str, Style);

impl Widget for HistoryChart<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Span::styled(" History: context per turn ", t.title()))
            .title_bottom(Span::styled(" H or Esc closes ", t.dim()));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        if inner.height < 6 || inner.width < Y_LABEL_W + 8 {
            buf.set_string(inner.x, inner.y, "too small for the chart", t.dim());
            return;
        }
        if self.pending {
            buf.set_string(
                inner.x,
                inner.y,
                "still reading the history (the whole transcript)…",
                t.dim(),
            );
            return;
        }
        self.legend(inner, buf);
        // Plot: rows between the legend and the two axis rows.
        let plot_h = inner.height - 4;
        let plot = Rect {
            x: inner.x + Y_LABEL_W,
            y: inner.y + 2,
            width: inner.width - Y_LABEL_W,
            height: plot_h,
        };
        let shown = &self.turns[self.turns.len().saturating_sub(plot.width as usize)..];
        let top = shown
            .iter()
            .filter_map(|t| t.tokens)
            .chain([self.window, self.compact_at])
            .max()
            .unwrap_or(1)
            .max(1);
        let lines = self.threshold_lines(plot_h, top);
        for (_, row, glyph, style) in &lines {
            let y = plot.y + row;
            for x in plot.x..plot.right() {
                buf[(x, y)].set_symbol(glyph).set_style(*style);
            }
        }
        bars(shown, top, plot, buf, t);
        // Y labels: the top, each line, zero.
        let mut labels: Vec<(u16, String)> = vec![(0, short(top)), (plot_h - 1, "0".into())];
        for (v, row, _, _) in &lines {
            labels.push((*row, short(*v)));
        }
        for (row, text) in labels {
            buf.set_string(
                inner.x,
                plot.y + row,
                format!("{text:>w$} ┤", w = Y_LABEL_W as usize - 2),
                t.dim(),
            );
        }
        self.x_axis(shown, inner, plot, buf);
    }
}

impl HistoryChart<'_> {
    /// The legend, then the forecast at the rate the turns show (the first two inner rows).
    fn legend(&self, inner: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let mut legend = vec![
            Span::styled("━", t.compaction()),
            Span::raw(format!(" compaction {}  ", thousands(self.compact_at))),
        ];
        match self.flush_at {
            Some(f) => {
                legend.push(Span::styled("┄", t.marker()));
                legend.push(Span::raw(format!(" flush {}  ", thousands(f))));
            }
            None => legend.push(Span::raw("no flush line  ")),
        }
        legend.push(Span::styled("C", t.compaction()));
        legend.push(Span::raw(" compacted  "));
        legend.push(Span::styled("F", t.marker()));
        legend.push(Span::raw(" flush"));
        buf.set_line(inner.x, inner.y, &Line::from(legend), inner.width);
        let f = crate::history::forecast(self.turns, self.used, self.flush_at, self.compact_at);
        let outlook = match f.tokens_per_turn {
            Some(r) => format!(
                "+{}/turn · flush in {} · compaction in {} turn(s)",
                thousands(r),
                f.turns_to_flush
                    .map_or_else(|| "-".to_string(), |n| n.to_string()),
                f.turns_to_compaction
                    .map_or_else(|| "?".to_string(), |n| n.to_string()),
            ),
            None => format!(
                "forecast unknown: {}",
                crate::sanitize::one_line(f.note.as_deref().unwrap_or("-"))
            ),
        };
        buf.set_stringn(
            inner.x,
            inner.y + 1,
            &outlook,
            inner.width as usize,
            t.dim(),
        );
    }

    /// The flush and compaction lines on a plot `plot_h` rows high whose top is `top`. A
    /// flush line that would share the compaction line's row (a short chart) goes one row
    /// lower, so both stay visible.
    fn threshold_lines(&self, plot_h: u16, top: u64) -> Vec<ThresholdLine> {
        let t = self.theme;
        // The row (from the plot's top) a value falls in, as the bars fill cells.
        let row_of = |v: u64| -> u16 {
            let from_bottom = ((v as u128 * plot_h as u128) / top as u128) as u16;
            plot_h - 1 - from_bottom.min(plot_h - 1)
        };
        let compact_row = row_of(self.compact_at);
        let mut lines: Vec<ThresholdLine> = Vec::new();
        if let Some(f) = self.flush_at {
            let mut row = row_of(f);
            if row == compact_row && f < self.compact_at && row + 1 < plot_h - 1 {
                row += 1;
            }
            lines.push((f, row, "┄", t.marker()));
        }
        lines.push((self.compact_at, compact_row, "━", t.compaction()));
        lines
    }

    /// The axis under the plot: `F` under flush turns, `C` under the first turn after a
    /// compaction, then the first and last turn numbers.
    fn x_axis(&self, shown: &[Turn], inner: Rect, plot: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let axis_y = plot.bottom();
        for x in plot.x..plot.right() {
            buf[(x, axis_y)].set_symbol("─").set_style(t.dim());
        }
        buf.set_string(inner.x + Y_LABEL_W - 1, axis_y, "└", t.dim());
        for (k, turn) in shown.iter().enumerate() {
            let prev_cycle = if k > 0 {
                Some(shown[k - 1].cycle)
            } else {
                let all = self.turns.len() - shown.len();
                all.checked_sub(1).map(|p| self.turns[p].cycle)
            };
            let x = plot.x + k as u16;
            if turn.flush {
                buf[(x, axis_y)].set_symbol("F").set_style(t.marker());
            } else if prev_cycle.is_some_and(|c| c != turn.cycle)
                || (prev_cycle.is_none() && turn.cycle > 0)
            {
                buf[(x, axis_y)].set_symbol("C").set_style(t.compaction());
            }
        }
        if let (Some(first), Some(last)) = (shown.first(), shown.last()) {
            buf.set_stringn(
                plot.x,
                axis_y + 1,
                format!("turns {} to {}, one column each", first.turn, last.turn),
                plot.width as usize,
                t.dim(),
            );
        } else {
            buf.set_string(
                plot.x,
                plot.y,
                "no model call measured the context",
                t.dim(),
            );
        }
    }
}

/// One bar per turn, drawn over the threshold lines: a turn above a line hides it in its own
/// column only.
fn bars(shown: &[Turn], top: u64, plot: Rect, buf: &mut Buffer, t: Theme) {
    let data: Vec<u64> = shown.iter().map(|t| t.tokens.unwrap_or(0)).collect();
    let bars = Rect {
        width: (data.len() as u16).min(plot.width),
        ..plot
    };
    let mut above = Buffer::empty(bars);
    Sparkline::default()
        .data(&data)
        .max(top)
        .style(t.plain())
        .render(bars, &mut above);
    for y in bars.y..bars.bottom() {
        for x in bars.x..bars.right() {
            let c = &above[(x, y)];
            if c.symbol() != " " {
                buf[(x, y)].set_symbol(c.symbol()).set_style(t.plain());
            }
        }
    }
}

/// The lower part of the History pane: what `clawtop history` lists, from the same
/// [`crate::history::History`] (computed in the loader with the screen's own numbers):
/// the compactions on the branch oldest first, the flush evidence, then the warnings. When
/// they do not fit, the oldest compactions go first, so the newest and the warnings stay.
pub struct HistoryEvents<'a> {
    history: &'a crate::history::History,
    theme: Theme,
    /// Laid out once, at the width it is drawn at (its height is asked before it is drawn).
    lines: EventLines,
}

/// The three groups of lines, in the order they are drawn and each with its style.
struct EventLines {
    /// Each warning wrapped, and cut to one line (used when the wrapped ones leave no room).
    warnings: Vec<(Vec<String>, String)>,
    warn_style: Style,
    /// The style of the line that counts the compactions left out.
    dim_style: Style,
    compactions: Vec<(String, Style)>,
    flushes: Vec<(String, Style)>,
}

impl EventLines {
    fn wrapped_len(&self) -> usize {
        self.warnings.iter().map(|(w, _)| w.len()).sum()
    }

    fn len(&self) -> usize {
        self.wrapped_len() + self.compactions.len() + self.flushes.len()
    }

    /// What fits in `rows`: the warnings first (they are what `check` grades; one line each
    /// when wrapped they would crowd out the compactions), then the compactions with the
    /// oldest left out first (a line says how many), then the flushes.
    fn fit(self, rows: usize) -> Vec<(String, Style)> {
        let wrap = self.len() <= rows;
        let style = self.warn_style;
        let mut out: Vec<(String, Style)> = self
            .warnings
            .into_iter()
            .flat_map(|(wrapped, cut)| if wrap { wrapped } else { vec![cut] })
            .map(|l| (l, style))
            .take(rows)
            .collect();
        let room = rows - out.len();
        let (c, f) = (self.compactions.len(), self.flushes.len());
        if c + f <= room {
            out.extend(self.compactions);
            out.extend(self.flushes);
        } else if c <= room {
            out.extend(self.compactions);
            out.extend(self.flushes.into_iter().take(room - c));
        } else if room > 0 {
            let left_out = c - (room - 1);
            out.push((
                format!("… {left_out} older compaction(s): clawtop history lists them all"),
                self.dim_style,
            ));
            out.extend(self.compactions.into_iter().skip(left_out));
        }
        out
    }
}

impl<'a> HistoryEvents<'a> {
    /// The part for a pane `width` columns wide (borders included).
    pub fn new(history: &'a crate::history::History, theme: Theme, width: u16) -> Self {
        let lines = Self::lines(history, theme, width.saturating_sub(2).max(1) as usize);
        HistoryEvents {
            history,
            theme,
            lines,
        }
    }

    /// The lines at `width` columns (warnings wrapped, the rest cut).
    fn lines(h: &crate::history::History, t: Theme, width: usize) -> EventLines {
        let warn = t.status(crate::thresholds::Status::FlushDue);
        let cut = |s: String| super::truncate(&s, width);
        let mut warnings = Vec::new();
        for w in &h.warnings {
            let text = crate::sanitize::one_line(&format!("! [{}] {}", w.code, w.message));
            warnings.push((super::wrap(&text, width), super::truncate(&text, width)));
        }
        let mut compactions = Vec::new();
        if h.compactions.is_empty() {
            compactions.push(("no compaction on the active branch".into(), t.dim()));
        }
        for c in &h.compactions {
            let after = match (c.tokens_after, c.tokens_after_source) {
                (Some(a), Some("next-call")) => format!("{} (next call)", thousands(a)),
                (Some(a), _) => format!("{} (entry's estimate)", thousands(a)),
                (None, _) => "unknown".into(),
            };
            let when: String = c
                .timestamp
                .as_deref()
                .map(crate::sanitize::one_line)
                .unwrap_or_else(|| "time unknown".into())
                .chars()
                .take(19)
                .collect();
            let style = if c.flush_before == "no" {
                warn
            } else {
                t.plain()
            };
            compactions.push((
                cut(format!(
                    "#{} {} {} · flush before: {} · {} → {} · summary ~{} tok · trigger {}",
                    c.number,
                    // As the transcript list shows ids: their first 8 characters.
                    crate::sanitize::one_line(&c.id)
                        .chars()
                        .take(8)
                        .collect::<String>(),
                    when,
                    c.flush_before,
                    c.tokens_before.map_or_else(|| "unknown".into(), thousands),
                    after,
                    thousands(c.summary_tokens),
                    c.trigger,
                )),
                style,
            ));
        }
        let mut flushes = Vec::new();
        if h.flushes.is_empty() {
            flushes.push(("flushes: none recorded".into(), t.dim()));
        }
        for f in &h.flushes {
            flushes.push((
                cut(format!(
                    "flush ({}) {} at compactionCount {}{}",
                    f.source,
                    f.timestamp
                        .as_deref()
                        .map_or_else(|| "time unknown".into(), crate::sanitize::one_line),
                    f.compaction_count
                        .map_or_else(|| "unknown".into(), |n| n.to_string()),
                    f.kind
                        .as_deref()
                        .map(|k| format!(" ({})", crate::sanitize::one_line(k)))
                        .unwrap_or_default()
                )),
                t.marker(),
            ));
        }
        if let Some(m) = &h.memory {
            let dups: usize = m.files.iter().map(|f| f.duplicates.len()).sum();
            flushes.push((
                cut(format!(
                    "memory notes: {} dated file(s), {} duplicate block(s){}",
                    m.files.len(),
                    dups,
                    if m.note.is_some() {
                        " (see clawtop history)"
                    } else {
                        ""
                    }
                )),
                t.dim(),
            ));
        }
        EventLines {
            warnings,
            warn_style: warn,
            dim_style: t.dim(),
            compactions,
            flushes,
        }
    }

    /// Rows this part would take to show everything (borders included).
    pub fn height_wanted(&self) -> u16 {
        u16::try_from(self.lines.len())
            .unwrap_or(u16::MAX)
            .saturating_add(2)
    }
}

impl Widget for HistoryEvents<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let h = self.history;
        Clear.render(area, buf);
        let title = format!(
            " {} compaction(s) on the branch · compactionCount {} · {} warning(s) ",
            h.compactions.len(),
            h.compaction_count
                .map_or_else(|| "unknown".into(), |n| n.to_string()),
            h.warnings.len()
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Span::styled(title, t.title()));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let shown = self.lines.fit(inner.height as usize);
        for (y, (text, style)) in (inner.y..).zip(shown) {
            buf.set_stringn(inner.x, y, text, inner.width as usize, style);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::series::{At, Step, turns};

    fn session() -> Vec<Turn> {
        // Grows 2,400 a turn from 14,000, a flush turn at 24,500, compaction after 28,500
        // brings it to 12,000, then it grows again.
        fn push(s: &mut Vec<(Step, At)>, n: u64, flush: bool) {
            s.push((Step::User { flush }, At::default()));
            s.push((Step::Call(n), At::default()));
        }
        let mut s: Vec<(Step, At)> = Vec::new();
        for k in 0..5 {
            push(&mut s, 14_000 + k * 2_400, false);
        }
        push(&mut s, 24_500, true);
        push(&mut s, 28_500, false);
        s.push((Step::Compaction, At::default()));
        for k in 0..5 {
            push(&mut s, 12_000 + k * 2_400, false);
        }
        turns(s)
    }

    #[test]
    fn chart_with_both_lines_a_flush_and_a_compaction_marked() {
        let turns = session();
        let chart = HistoryChart {
            turns: &turns,
            pending: false,
            window: 48_000,
            compact_at: 28_000,
            flush_at: Some(24_000),
            used: Some(21_600),
            theme: Theme::new(true),
        };
        let area = Rect::new(0, 0, 60, 16);
        let mut buf = Buffer::empty(area);
        chart.render(area, &mut buf);
        let text: String = (0..area.height)
            .map(|y| {
                let line: String = (0..area.width).map(|x| buf[(x, y)].symbol()).collect();
                line.trim_end().to_string() + "\n"
            })
            .collect();
        assert!(text.contains('━') && text.contains('┄'), "{text}");
        assert!(text.contains("C") && text.contains("F"));
        insta::assert_snapshot!("history_chart_60x16", text);
    }

    #[test]
    fn tiny_areas_and_no_turns_draw_without_panicking() {
        for (w, h) in [(1, 1), (10, 5), (20, 7), (40, 8)] {
            let area = Rect::new(0, 0, w, h);
            let mut buf = Buffer::empty(area);
            HistoryChart {
                turns: &[],
                pending: false,
                window: 0,
                compact_at: 0,
                flush_at: None,
                used: None,
                theme: Theme::new(false),
            }
            .render(area, &mut buf);
        }
    }

    /// A long history in a short pane: the warning stays whole on one line, the newest
    /// compactions are shown, and one line counts the older ones left out. Untrusted ids
    /// and times are neutralised.
    #[test]
    fn events_keep_the_warnings_and_the_newest_compactions() {
        use crate::history::{CompactionRecord, History, HistoryWarning};
        let compactions = (1..=30)
            .map(|n| CompactionRecord {
                id: format!("\u{1b}c{n:02}-long-id"),
                timestamp: Some(format!("2026-11-{n:02}T10:00:00.000Z")),
                number: n,
                tokens_before: Some(30_000 + u64::from(n)),
                tokens_after: Some(12_000),
                tokens_after_source: Some("next-call"),
                first_kept_entry_id: None,
                summary_chars: 400,
                summary_tokens: 100,
                trigger: "openclaw",
                flush_before: if n % 2 == 0 { "yes" } else { "no" },
                flush_evidence: String::new(),
            })
            .collect();
        let h = History {
            compaction_count: Some(31),
            compaction_entries: 30,
            compactions,
            flushes: Vec::new(),
            memory: None,
            window: 48_000,
            flush_at: Some(24_000),
            compact_at: 28_000,
            used: Some(20_000),
            forecast: Default::default(),
            turns: Vec::new(),
            warnings: vec![HistoryWarning {
                code: "compaction-count-mismatch",
                message: "compactionCount is 31 but the transcript holds 30 compaction entries"
                    .into(),
                compaction: None,
            }],
            transcript_unread: None,
        };
        let area = Rect::new(0, 0, 100, 8);
        let mut buf = Buffer::empty(area);
        let events = HistoryEvents::new(&h, Theme::new(true), area.width);
        assert_eq!(events.height_wanted(), 30 + 1 + 1 + 2);
        events.render(area, &mut buf);
        let rows: Vec<String> = (0..area.height)
            .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect())
            .collect();
        let text = rows.join("\n");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(
            rows[1].contains("! [compaction-count-mismatch] compactionCount is 31"),
            "{text}"
        );
        assert!(rows[2].contains("… 26 older compaction(s)"), "{text}");
        assert!(
            rows[3].contains("#27 ␛c27-lon ") && rows[3].contains("flush before: no"),
            "{text}"
        );
        assert!(
            rows[6].contains("#30 ␛c30-lon ") && rows[6].contains("flush before: yes"),
            "{text}"
        );
        assert!(
            rows[0].contains("30 compaction(s) on the branch · compactionCount 31"),
            "{text}"
        );
    }
}
