//! Widths, heights and wrapping: what `update` (scrolling, paging, jumping) and `draw` must
//! agree on, computed once here so neither imports the other. `update` never imports `draw`.
//!
//! - [`wrap`] and the widths of the popups and bodies;
//! - the screen heights ([`crate::tui::model::state::layout`], re-exported here; the Sessions
//!   screen's, whose legend wraps, in [`sessions`]);
//! - the texts whose line count scrolling depends on: the Summaries body ([`summaries`]), the
//!   context diagnosis ([`context_view`]), the flush confirmation ([`flush_ui`]).

pub mod context_view;
pub mod flush_ui;
pub mod help;
pub mod sessions;
pub mod summaries;

pub use crate::tui::model::state::layout::*;
pub use sessions::sessions_rows;
pub use summaries::body_width;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Inner width of the detail popup for a terminal size (update wraps to the same width).
pub fn detail_width(size: (u16, u16)) -> usize {
    size.0.saturating_sub(2).max(1) as usize
}

/// Hard-wraps sanitized text to `width` columns (newlines kept). Used for the detail popup and
/// summaries so scrolling can count lines exactly and draw only the visible slice.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for line in text.split('\n') {
        if line.width() <= width {
            out.push(line.to_string());
            continue;
        }
        let mut cur = String::new();
        let mut w = 0;
        // Prefer breaking after a space when one is near the edge.
        for word in line.split_inclusive(' ') {
            let ww = word.width();
            if w + ww > width && w > 0 {
                out.push(std::mem::take(&mut cur));
                w = 0;
            }
            if ww > width {
                for c in word.chars() {
                    let cw = c.width().unwrap_or(0);
                    if w + cw > width {
                        out.push(std::mem::take(&mut cur));
                        w = 0;
                    }
                    cur.push(c);
                    w += cw;
                }
            } else {
                cur.push_str(word);
                w += ww;
            }
        }
        out.push(cur);
    }
    out
}

/// Cuts `s` to `width` columns, ending in `…` when cut.
pub fn truncate(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// Pads (or truncates) to exactly `width` columns, left-aligned.
pub fn pad(s: &str, width: usize) -> String {
    let t = truncate(s, width);
    let w = t.width();
    format!("{t}{}", " ".repeat(width.saturating_sub(w)))
}
