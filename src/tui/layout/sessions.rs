//! The Sessions screen's chrome: its legend, wrapped to whole entries (never cut mid-word,
//! as "≈ esti" once was at 80 columns), and so the number of rows the table gets, which
//! `update` pages by and `draw` fills.

use crate::report::marks;
use unicode_width::UnicodeWidthStr;

/// The legend's groups, in order: the gauge's marks, the figures' marks (the ones `list`
/// prints, [`crate::report::marks`]), the row marks. Each entry is `(mark, word)`.
pub fn legend_groups() -> [Vec<(&'static str, &'static str)>; 3] {
    [
        // The fill (`█`) reads without a word; the help table explains it with the rest.
        vec![
            ("│", "flush"),
            ("┃", "compact"),
            ("▶", "over"),
            ("╱", "unknown"),
        ],
        marks::USED.iter().map(|(m, w, _)| (*m, *w)).collect(),
        vec![
            (marks::BUSY, "busy"),
            (marks::STALE_LOCK, "stale lock"),
            ("∅", "no transcript"),
            ("!", "store behind"),
        ],
    ]
}

/// At most this many legend lines; what does not fit is in the help table (`?`).
pub const LEGEND_MAX_LINES: usize = 2;

/// One legend entry placed on a line: `sep` is what goes before it (`""`, `" "` or `" · "`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub sep: &'static str,
    pub mark: &'static str,
    pub word: &'static str,
}

/// The legend laid out in lines of at most `width` columns: whole entries only, at most
/// [`LEGEND_MAX_LINES`] lines (entries past them are left to the help table).
pub fn legend_lines(width: usize) -> Vec<Vec<Placed>> {
    let mut lines: Vec<Vec<Placed>> = vec![Vec::new()];
    let mut used = 0;
    'groups: for (g, group) in legend_groups().into_iter().enumerate() {
        for (i, (mark, word)) in group.into_iter().enumerate() {
            let entry = mark.width() + 1 + word.width();
            let sep = match (used, i) {
                (0, _) => "",
                (_, 0) if g > 0 => " · ",
                _ => " ",
            };
            let sep = if used + sep.width() + entry <= width {
                sep
            } else if lines.len() < LEGEND_MAX_LINES && entry <= width {
                lines.push(Vec::new());
                used = 0;
                ""
            } else {
                break 'groups;
            };
            used += sep.width() + entry;
            lines
                .last_mut()
                .expect("one line at least")
                .push(Placed { sep, mark, word });
        }
    }
    lines
}

/// The legend as text (the lines `draw` styles).
pub fn legend_text(width: usize) -> Vec<String> {
    legend_lines(width)
        .into_iter()
        .map(|l| {
            l.iter()
                .map(|p| format!("{}{} {}", p.sep, p.mark, p.word))
                .collect()
        })
        .collect()
}

/// Lines above the rows: the title, the legend, the table's header.
pub fn chrome(width: u16) -> u16 {
    2 + legend_lines(width as usize).len() as u16
}

/// Rows of sessions a terminal of `size` shows (the status line below them).
pub fn sessions_rows(size: (u16, u16)) -> usize {
    size.1.saturating_sub(chrome(size.0) + 1).max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_is_whole_in_two_lines_at_80_columns() {
        let lines = legend_text(80);
        assert_eq!(lines.len(), 2, "{lines:?}");
        for l in &lines {
            assert!(l.width() <= 80, "{l}");
        }
        let all: String = lines.join(" ");
        for group in legend_groups() {
            for (m, w) in group {
                assert!(all.contains(&format!("{m} {w}")), "{m} {w} missing: {all}");
            }
        }
        // Wide terminals keep it on one line.
        assert_eq!(legend_text(200).len(), 1);
        assert_eq!(sessions_rows((200, 24)), 24 - 4);
        assert_eq!(sessions_rows((80, 24)), 24 - 5);
    }

    #[test]
    fn a_narrow_legend_drops_whole_entries() {
        for l in legend_text(30) {
            assert!(l.width() <= 30, "{l}");
            assert!(!l.ends_with(' '), "{l:?}");
        }
        assert_eq!(legend_text(30).len(), LEGEND_MAX_LINES);
    }
}
