//! `ThresholdGauge`: one line showing how full a context window is, with the flush line (`│`)
//! and the compaction line (`┃`) as ticks. Over 100 % fills to the end and ends in `▶`;
//! unknown is hatched with `?`, never drawn as empty.
//!
//! ```text
//! ▕██████████│███░░░┃░░▏   fill up to used/window, ticks at flush_at and compact_at
//! ▕██████████│███████┃█▶   over the window
//! ▕╱╱╱╱╱╱╱╱╱?│╱╱╱╱╱╱┃╱╱▏   unknown
//! ```

use crate::tui::draw::theme::Theme;
use crate::tui::model::view::{SessionRow, Status};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

pub const FILL: &str = "█";
pub const EMPTY: &str = "░";
pub const FLUSH_TICK: &str = "│";
pub const COMPACT_TICK: &str = "┃";
pub const OVER: &str = "▶";
pub const HATCH: &str = "╱";

pub struct ThresholdGauge<'a> {
    pub row: &'a SessionRow,
    pub theme: Theme,
}

/// Cell index of `value` on a bar of `n` cells for `window`.
fn cell(value: u64, window: u64, n: usize) -> usize {
    if window == 0 || n == 0 {
        return 0;
    }
    let c = (value as u128 * n as u128 / window as u128) as usize;
    c.min(n - 1)
}

impl Widget for ThresholdGauge<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < 5 || area.height == 0 {
            return;
        }
        let r = self.row;
        let t = self.theme;
        let n = area.width as usize - 2;
        let fill_style = t.status(r.status);
        let compact = cell(r.compact_at, r.window, n);
        // Distinct cells even when the lines are close.
        let flush = r
            .flush_at
            .map(|f| cell(f, r.window, n))
            .map(|f| if f == compact { f.saturating_sub(1) } else { f });
        let filled = r.used.map(|u| {
            if u >= r.window {
                n
            } else {
                ((u as u128 * n as u128 + r.window as u128 / 2) / r.window.max(1) as u128) as usize
            }
        });
        let over = r.status == Status::Over || r.used.is_some_and(|u| u >= r.window);
        let mut spans = Vec::with_capacity(n + 2);
        spans.push(Span::styled("▕", t.dim()));
        for i in 0..n {
            let tick = if i == compact {
                Some(COMPACT_TICK)
            } else if Some(i) == flush {
                Some(FLUSH_TICK)
            } else {
                None
            };
            let span = match filled {
                None => match tick {
                    Some(g) => Span::styled(g, t.bold()),
                    None if i == n / 2 => Span::styled("?", t.bold()),
                    None => Span::styled(HATCH, t.dim()),
                },
                Some(_) if over && i == n - 1 => {
                    Span::styled(OVER, fill_style.add_modifier(Modifier::BOLD))
                }
                Some(f) if i < f => match tick {
                    // A tick inside the fill shows as a notch in reverse video.
                    Some(g) => Span::styled(g, fill_style.add_modifier(Modifier::REVERSED)),
                    None => Span::styled(FILL, fill_style),
                },
                Some(_) => match tick {
                    Some(g) => Span::styled(g, t.bold()),
                    None => Span::styled(EMPTY, t.dim()),
                },
            };
            spans.push(span);
        }
        spans.push(Span::styled("▏", t.dim()));
        Line::from(spans).render(area, buf);
    }
}

/// `87%`, `158%` (OpenClaw's rounding, [`crate::format::percent`]), or `?` for unknown,
/// right-aligned in 4 cells.
pub fn percent(r: &SessionRow) -> String {
    match crate::format::percent(r.used, r.window) {
        Some(p) => format!("{p:>3}%"),
        None => "   ?".into(),
    }
}

pub use crate::tui::layout::help::MARKS;

// The legend: `crate::tui::layout::sessions::legend_lines`, drawn by `draw::sessions`.

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::model::view::Provenance;

    fn draw(row: &SessionRow, width: u16) -> String {
        let area = Rect::new(0, 0, width, 1);
        let mut buf = Buffer::empty(area);
        ThresholdGauge {
            row,
            theme: Theme::new(true),
        }
        .render(area, &mut buf);
        (0..width)
            .map(|x| buf[(x, 0)].symbol().to_string())
            .collect()
    }

    #[test]
    fn fill_ticks_over_and_unknown() {
        let half = SessionRow::with_counters(
            "a",
            "k",
            200_000,
            Some(100_000),
            Provenance::Fresh,
            &Default::default(),
        );
        assert_eq!(draw(&half, 22), "▕██████████░░░░░░░│┃░▏");
        let over = SessionRow::with_counters(
            "a",
            "k",
            200_000,
            Some(250_000),
            Provenance::Fresh,
            &Default::default(),
        );
        let s = draw(&over, 22);
        assert!(s.ends_with("▶▏") && !s.contains(EMPTY), "{s}");
        let unknown = SessionRow::with_counters(
            "a",
            "k",
            200_000,
            None,
            Provenance::Unknown,
            &Default::default(),
        );
        let s = draw(&unknown, 22);
        assert!(
            s.contains('?') && s.contains(HATCH) && !s.contains(FILL) && !s.contains(EMPTY),
            "{s}"
        );
        assert_eq!(percent(&over), "125%");
        assert_eq!(percent(&unknown).trim(), "?");
    }
}
