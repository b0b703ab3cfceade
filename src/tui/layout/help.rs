//! The help popup's lines, generated from the keymap table: drawn by `draw::help` and paged
//! by `update` (which must know how many there are, and never imports `draw`).

use super::pad;
use crate::report::marks;
use crate::tui::model::keymap::{self, Mode};

/// Every mark the Sessions screen draws and what it means: the help overlay lists them all
/// (the header's legend is their short form). The figures' marks are the ones `list` prints
/// ([`crate::report::marks`]).
pub const MARKS: &[(&str, &str)] = &[
    ("█", "used part of the window (gauge)"),
    ("│", "the memory-flush line"),
    ("┃", "the compaction line"),
    ("▶", "over the window"),
    ("╱", "used unknown"),
    (marks::USED[0].0, marks::USED[0].2),
    (marks::USED[1].0, marks::USED[1].2),
    (marks::USED[2].0, marks::USED[2].2),
    (marks::USED[3].0, marks::USED[3].2),
    (marks::USED[4].0, marks::USED[4].2),
    (marks::USED[5].0, marks::USED[5].2),
    (
        marks::BUSY,
        "busy: a live turn holds the lock (list: LOCK busy)",
    ),
    (
        marks::STALE_LOCK,
        "stale transcript lock (list: LOCK stale)",
    ),
    ("∅", "no transcript; Session: a silent flush turn"),
    ("!", "store behind the transcript; Session: error"),
    ("SPEND ~ ?", "~ from repaired usage, ? some calls unpriced"),
];

/// Every help line: a title per mode, then "keys  description" per binding.
pub fn help_lines() -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        let bs: Vec<_> = keymap::bindings()
            .iter()
            .filter(|b| b.mode == mode)
            .collect();
        if bs.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push((false, String::new()));
        }
        out.push((true, mode.title().to_string()));
        for b in bs {
            out.push((false, format!("  {} {}", pad(&b.keys_label(), 20), b.help)));
        }
        if mode == Mode::Sessions {
            out.push((false, String::new()));
            out.push((true, "Marks".to_string()));
            for (m, what) in MARKS {
                out.push((false, format!("  {} {}", pad(m, 20), what)));
            }
        }
        if mode == Mode::Filter {
            out.push((
                false,
                format!(
                    "  {} {}",
                    pad("(any character)", 20),
                    "type into the filter"
                ),
            ));
        }
    }
    out
}
