//! The marks next to a figure, one set for every surface: `list` (text), the TUI's Sessions
//! and Session screens, their legends and the help table all take them from here, so a mark
//! means one thing wherever an operator meets it (issue 33 item 4: the CLI once marked an
//! estimate `*` and the TUI `≈`; an empty CMP read `—` and an empty ETA `-`).
//!
//! The CLI's tables are plain ASCII, so the marks both print are ASCII. The TUI adds the
//! store's two kinds of figure (`●` fresh, `○` no freshness flag), which `list` prints bare,
//! and its row marks (busy, stale lock, …), which `list` says in its LOCK column.

use crate::thresholds::UsedSource;

/// A used figure from the transcript (its last usage plus the messages after it).
pub const TRANSCRIPT: &str = "~";
/// A figure estimated after a compaction (no model call since).
pub const ESTIMATED: &str = "*";
/// A figure that could not be known.
pub const UNKNOWN: &str = "?";
/// An empty cell: nothing to show (no compaction count recorded, no forecast, no model).
pub const NONE: &str = "-";
/// The store's fresh `totalTokens` (TUI; `list` prints it bare).
pub const FRESH: &str = "●";
/// The store's `totalTokens` without a freshness flag (TUI; `list` prints it bare).
pub const LEGACY: &str = "○";

/// Each mark with its word in a legend and its meaning in the help table, in legend order.
pub const USED: [(&str, &str, &str); 6] = [
    (FRESH, "fresh", "used: the store's fresh totalTokens"),
    (
        LEGACY,
        "legacy",
        "used: store totalTokens, no freshness flag",
    ),
    (
        TRANSCRIPT,
        "transcript",
        "used: transcript's last usage + later messages",
    ),
    (ESTIMATED, "estimated", "used: estimate after a compaction"),
    (UNKNOWN, "unknown", "no figure (unknown)"),
    (NONE, "none", "empty: nothing recorded (CMP, ETA, MODEL)"),
];

/// The mark after a used figure on the TUI (every source has one).
pub fn used(source: UsedSource) -> &'static str {
    match source {
        UsedSource::Fresh => FRESH,
        UsedSource::Legacy => LEGACY,
        UsedSource::Transcript => TRANSCRIPT,
        UsedSource::Estimated => ESTIMATED,
        UsedSource::Unknown => UNKNOWN,
    }
}

/// The mark in front of a used figure in `list` (ASCII; the store's figures bare).
pub fn used_ascii(source: UsedSource) -> &'static str {
    match source {
        UsedSource::Fresh | UsedSource::Legacy => "",
        s => used(s),
    }
}

/// `mark word` pairs joined by spaces: the legend's words for `marks`, one place.
pub fn legend(marks: &[&str]) -> String {
    USED.iter()
        .filter(|(m, _, _)| marks.contains(m))
        .map(|(m, w, _)| format!("{m} {w}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Turns to the compaction line as a cell: `>999` past 999, [`NONE`] without a forecast.
pub fn eta(turns: Option<u64>) -> String {
    match turns {
        Some(n) if n > 999 => ">999".into(),
        Some(n) => n.to_string(),
        None => NONE.into(),
    }
}

/// The compaction count as a cell: [`UNKNOWN`] when the source cannot read it, [`NONE`] when
/// nothing is recorded.
pub fn compaction_count(n: Option<u64>, unknown: bool) -> String {
    match n {
        Some(n) => n.to_string(),
        None if unknown => UNKNOWN.into(),
        None => NONE.into(),
    }
}

/// A row's lock as `list` says it (its LOCK column) and the TUI's mark for it: a stale
/// `<transcript>.lock` (what `check` grades CRITICAL busy-stale-lock) or a live turn.
pub fn lock(row: &crate::usecase::list::SessionRow) -> Option<(&'static str, &'static str)> {
    if row.stale_lock.is_some() {
        Some((STALE_LOCK, "stale"))
    } else if row.busy.is_some() {
        Some((BUSY, "busy"))
    } else {
        None
    }
}

/// A stale transcript lock (TUI mark; `list`: LOCK `stale`).
pub const STALE_LOCK: &str = "✖";
/// A live turn holding the transcript lock (TUI mark; `list`: LOCK `busy`).
pub const BUSY: &str = "◐";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marks_both_surfaces_print_are_ascii_and_distinct() {
        for m in [TRANSCRIPT, ESTIMATED, UNKNOWN, NONE] {
            assert!(m.is_ascii(), "{m}");
        }
        let all: std::collections::BTreeSet<_> = USED.iter().map(|(m, _, _)| *m).collect();
        assert_eq!(all.len(), USED.len(), "one meaning per mark");
        assert_eq!(
            used(UsedSource::Estimated),
            used_ascii(UsedSource::Estimated)
        );
        assert_eq!(used_ascii(UsedSource::Fresh), "");
        assert_eq!(eta(None), compaction_count(None, false));
        assert_eq!(eta(Some(1000)), ">999");
        assert_eq!(legend(&[ESTIMATED, NONE]), "* estimated - none");
    }
}
