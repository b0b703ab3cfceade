//! Drawing: pure functions of `&AppState` (no I/O, no clock, no mutation).

pub mod cost;
pub mod dialog;
pub mod fleet;
pub mod gauge;
pub mod help;
pub mod history;
pub mod session;
pub mod sessions;
pub mod status;
pub mod summaries;
pub mod theme;

pub use crate::tui::layout::wrap;

pub use crate::tui::layout::{pad, truncate};
use crate::tui::model::state::{AppState, Screen};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use theme::Theme;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Draws the whole frame.
///
/// ```text
/// ┌──────────────────────────────────────────────────────────────┐
/// │ screen (top of the stack):                                   │
/// │   Sessions   title · legend · table of rows with gauges      │
/// │   Session    title · numbers + sources · reason · gauge      │
/// │              ┌ transcript list (viewport) ───────────────┐   │
/// │              │ entry rows, compaction cards, markers      │   │
/// │              └────────────────────────────────────────────┘   │
/// │   Summaries  title · compaction list · selected summary     │
/// ├──────────────────────────────────────────────────────────────┤
/// │ status line: error │ info │ filter input │ keymap hints      │
/// └──────────────────────────────────────────────────────────────┘
///   overlays (drawn last): Compact/Flush dialog (+ its confirmation), entry detail popup,
///   help (from the keymap)
/// ```
pub fn draw(frame: &mut Frame, state: &AppState) {
    let theme = Theme::new(state.no_color);
    let [body, status_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(frame.area());
    match state.screen() {
        Screen::Sessions => sessions::draw(frame, body, state, theme),
        Screen::Session => session::draw(frame, body, state, theme),
        Screen::Summaries => summaries::draw(frame, body, state, theme),
    }
    if state.dialog.is_some() {
        dialog::draw(frame, body, state, theme);
    }
    status::draw(frame, status_area, state, theme);
    if state.help.is_some() {
        help::draw(frame, frame.area(), state, theme);
    }
}

/// "1 compaction", "3 compactions".
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Like [`plural`], "no …s" when unknown or zero.
pub fn plural_or(n: Option<u64>, word: &str) -> String {
    match n {
        None | Some(0) => format!("no {word}s"),
        Some(n) => plural(n as usize, word),
    }
}

/// A token count as OpenClaw writes it ([`crate::format::tokens`]).
pub fn compact_num(n: u64) -> String {
    crate::format::tokens(n)
}

/// Age of `then` relative to `now` (both ms, [`crate::format::age`]); the empty mark
/// ([`crate::report::marks::NONE`]) when unknown.
pub fn age(now_ms: i64, then_ms: Option<i64>) -> String {
    crate::format::age(now_ms, then_ms).unwrap_or_else(|| crate::report::marks::NONE.into())
}

/// Right-aligned in `width` columns.
pub fn rpad(s: &str, width: usize) -> String {
    let t = truncate(s, width);
    let w = t.width();
    format!("{}{t}", " ".repeat(width.saturating_sub(w)))
}

/// Shortens from the middle: `agent:main:tele…:55512345`, keeping both ends readable.
pub fn shorten_middle(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    if width < 3 {
        return truncate(s, width);
    }
    let keep = width - 1;
    let tail_w = keep / 2;
    let head_w = keep - tail_w;
    let mut head = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw > head_w {
            break;
        }
        head.push(c);
        w += cw;
    }
    let mut tail: Vec<char> = Vec::new();
    let mut w = 0;
    for c in s.chars().rev() {
        let cw = c.width().unwrap_or(0);
        if w + cw > tail_w {
            break;
        }
        tail.push(c);
        w += cw;
    }
    tail.reverse();
    format!("{head}…{}", tail.into_iter().collect::<String>())
}

/// A centered rectangle of at most `w`×`h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(
            compact_num(181_500),
            "182k",
            "OpenClaw's rounding (was 181.5k)"
        );
        assert_eq!(compact_num(200_000), "200k");
        assert_eq!(compact_num(950), "950");
        assert_eq!(age(100_000, Some(40_000)), "1m");
        assert_eq!(age(0, None), "-");
        assert_eq!(
            shorten_middle("agent:main:telegram:direct:55512345", 20),
            "agent:main…:55512345"
        );
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(wrap("aaa bbb ccc", 7), vec!["aaa ", "bbb ccc"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
    }
}
