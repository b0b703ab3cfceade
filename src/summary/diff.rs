//! What a compaction changed in the summary: a line diff of two consecutive summaries (the
//! earlier one is the `<previous-summary>` the later one was asked to update), so an operator
//! sees what was dropped and what was added. The diff itself is the `similar` crate's
//! (Myers' algorithm, the one insta already uses), line by line.

use similar::{ChangeTag, TextDiff};

/// One line of the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Kept,
    Dropped,
    Added,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryDiff {
    pub lines: Vec<(Change, String)>,
    pub dropped: usize,
    pub added: usize,
}

/// The lines of `before` and `after` (newlines dropped), in order.
pub fn line_diff(before: &str, after: &str) -> SummaryDiff {
    // Lines compare without their ending: a last line with or without `\n`, or with `\r\n`,
    // is the same line (counting it would report a change nobody made).
    let (before, after) = (lines_of(before), lines_of(after));
    let diff = TextDiff::from_lines(&before, &after);
    let mut out = SummaryDiff {
        lines: Vec::new(),
        dropped: 0,
        added: 0,
    };
    for c in diff.iter_all_changes() {
        let change = match c.tag() {
            ChangeTag::Equal => Change::Kept,
            ChangeTag::Delete => {
                out.dropped += 1;
                Change::Dropped
            }
            ChangeTag::Insert => {
                out.added += 1;
                Change::Added
            }
        };
        let text = c.value().trim_end_matches(['\n', '\r']).to_string();
        out.lines.push((change, text));
    }
    out
}

/// `text` with `\n` endings on every line, the last one included.
fn lines_of(text: &str) -> String {
    let mut out = text.replace("\r\n", "\n");
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_and_added_lines_in_order() {
        let d = line_diff(
            "## Goal\nship v2\n## Done\n- PR 12\n",
            "## Goal\nship v2\n## Done\n- PR 12 merged\n- PR 13\n",
        );
        assert_eq!((d.dropped, d.added), (1, 2));
        assert_eq!(
            d.lines,
            vec![
                (Change::Kept, "## Goal".to_string()),
                (Change::Kept, "ship v2".into()),
                (Change::Kept, "## Done".into()),
                (Change::Dropped, "- PR 12".into()),
                (Change::Added, "- PR 12 merged".into()),
                (Change::Added, "- PR 13".into()),
            ]
        );
        // No trailing newline on one side, or CRLF endings, is no change of its own.
        for (a, b) in [
            ("a\nb", "a\nb\n"),
            ("a\r\nb\r\n", "a\nb"),
            ("a\nb\n", "a\nb"),
        ] {
            let d = line_diff(a, b);
            assert_eq!((d.dropped, d.added), (0, 0), "{a:?} {b:?}: {d:?}");
            assert!(d.lines.iter().all(|(c, _)| *c == Change::Kept), "{d:?}");
        }
        let d = line_diff("a\nb", "a\nc\n");
        assert_eq!((d.dropped, d.added), (1, 1), "{d:?}");
    }
}
