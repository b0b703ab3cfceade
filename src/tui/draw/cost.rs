//! The Cost pane of the Session screen (`$`): what the session spends, its $/h over the last
//! day as bars (ratatui's `Sparkline`), the prompt cache's hit ratio and warmth, its busts,
//! and what a compaction would cost and save. Every figure is the domain's
//! ([`crate::cost::SessionCost`], priced by the loader with the diagnosis from the transcript
//! it already read); this only lays them out. The cache's warmth is taken at the screen's
//! clock, so it cools while the pane is open.

use super::theme::Theme;
use crate::cost::economics::Economics;
use crate::cost::{SessionCost, usd_text};
use crate::format::thousands;
use crate::sanitize::one_line;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Sparkline, Widget};

/// Hours the $/h bars cover.
pub const SPARK_HOURS: usize = 24;

pub struct CostPane<'a> {
    /// None until the loader priced the transcript (or there is none).
    pub cost: Option<&'a SessionCost>,
    /// The loader is still pricing it (the first screen came before): not "no cost".
    pub pending: bool,
    pub economics: Option<&'a Economics>,
    pub now_ms: i64,
    pub theme: Theme,
}

/// `12m05s`, `1h00m`, `45s`.
fn duration(secs: u64) -> String {
    match secs {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

impl CostPane<'_> {
    /// The pane's text lines (above the bars, then below them), for the width `w`.
    pub fn lines(&self) -> (Vec<String>, Vec<String>) {
        let Some(c) = self.cost else {
            let why = if self.pending {
                "cost: still measuring (every call of the transcript is priced)…"
            } else {
                "no cost: the transcript is not read yet"
            };
            return (vec![why.into()], vec![]);
        };
        let mut top = vec![
            format!(
                "spend {} · {} · {} call{}{}",
                c.spend_label(),
                c.per_hour_label(),
                c.calls,
                if c.calls == 1 { "" } else { "s" },
                if c.unpriced_calls > 0 {
                    format!(" ({} unpriced)", c.unpriced_calls)
                } else {
                    String::new()
                }
            ),
            format!(
                "tokens in {} · out {} · cache read {} · cache write {}",
                thousands(c.tokens.input),
                thousands(c.tokens.output),
                thousands(c.tokens.cache_read),
                thousands(c.tokens.cache_write)
            ),
        ];
        let ratio = c
            .cache_hit_ratio
            .map_or("no cache fields".to_string(), |r| {
                format!("{:.0}% of the prompt read from it", r * 100.0)
            });
        let warm = match c.cache_left_seconds(self.now_ms) {
            Some(s) => format!("warm, {} left", duration(s)),
            None => "cold".into(),
        };
        top.push(format!(
            "cache: {ratio} (last {} calls) · {warm} (TTL {})",
            crate::cost::HIT_RATIO_CALLS,
            duration(c.cache_ttl_seconds)
        ));
        let mut below = Vec::new();
        if c.cache_busts.is_empty() {
            below.push("busts: none".into());
        } else {
            let list: Vec<String> = c
                .cache_busts
                .iter()
                .map(|b| format!("{} {}", one_line(&b.entry_id), b.cause.name()))
                .collect();
            below.push(format!(
                "busts ({}): {}",
                c.cache_busts.len(),
                list.join(" · ")
            ));
        }
        if let Some(e) = self.economics {
            below.push(format!("compaction: {}", e.line()));
        }
        for n in &c.notes {
            below.push(format!("note: {}", one_line(n)));
        }
        (top, below)
    }
}

impl Widget for CostPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Span::styled(" Cost ", t.title()))
            .title_bottom(Span::styled(" $ or Esc closes ", t.dim()));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let (top, below) = self.lines();
        let w = inner.width as usize;
        let mut y = inner.y;
        let put = |buf: &mut Buffer, y: u16, s: &str, style| {
            let s: String = s.chars().take(w).collect();
            buf.set_line(inner.x, y, &Line::styled(s, style), inner.width);
        };
        for l in &top {
            if y >= inner.bottom() {
                return;
            }
            put(buf, y, l, t.plain());
            y += 1;
        }
        // The bars take what the text below leaves, 3 to 8 rows.
        let rest = inner.bottom().saturating_sub(y + 1);
        let bars_h = rest.saturating_sub(below.len() as u16).clamp(0, 8);
        if let (Some(c), true) = (self.cost, bars_h >= 3) {
            let hourly = c.hourly(self.now_ms, SPARK_HOURS);
            let top_usd = hourly.iter().copied().fold(0.0, f64::max);
            put(
                buf,
                y,
                &format!(
                    "$/h, last {SPARK_HOURS} hours (oldest left; top {}):",
                    usd_text(top_usd)
                ),
                t.dim(),
            );
            y += 1;
            // Micro-dollars: the bars need whole numbers.
            let data: Vec<u64> = hourly.iter().map(|u| (u * 1e6).round() as u64).collect();
            let bars = Rect {
                x: inner.x,
                y,
                width: (SPARK_HOURS as u16).min(inner.width),
                height: bars_h,
            };
            Sparkline::default()
                .data(&data)
                .style(t.plain())
                .render(bars, buf);
            y += bars_h;
        }
        for l in &below {
            if y >= inner.bottom() {
                return;
            }
            put(buf, y, l, t.plain());
            y += 1;
        }
    }
}
