//! The context view of the Session screen (key `i`): what the context is made of, as a
//! stacked bar against the window with the flush and compaction lines, then the figures
//! reconciled and the advice. Plain text, so it scrolls in the entry popup; built in
//! `update` from the diagnosis the transcript load computed (no I/O here).

use crate::diagnosis::{Busy, Diagnosis};
use crate::format::thousands;
use crate::sanitize::one_line;

/// Glyphs of the bar, by part group.
fn glyph(group: &str) -> char {
    match group {
        "overhead" => '▓',
        "summary" => '▒',
        _ => '█',
    }
}

/// The stacked bar (`width` cells for max(window, total)) and a marker line under it.
pub fn bar(d: &Diagnosis, width: usize) -> [String; 2] {
    let b = &d.context_breakdown;
    let scale = b.window.max(b.total_tokens).max(1) as f64 / width.max(1) as f64;
    let cells = |n: u64| (n as f64 / scale).round() as usize;
    let mut bar = String::new();
    let mut at = 0u64;
    for group in ["overhead", "summary", "messages"] {
        let n: u64 = b
            .parts
            .iter()
            .filter(|p| p.group == group)
            .map(|p| p.tokens)
            .sum();
        at += n;
        let upto = cells(at).min(width);
        let have = bar.chars().count();
        bar.extend(std::iter::repeat_n(glyph(group), upto.saturating_sub(have)));
    }
    let have = bar.chars().count();
    let window_cells = cells(b.window).min(width);
    bar.extend(std::iter::repeat_n('░', window_cells.saturating_sub(have)));
    let mut marks: Vec<char> = vec![' '; width + 1];
    if let Some(f) = b.flush_at {
        marks[cells(f).min(width)] = '│';
    }
    marks[cells(b.compact_at).min(width)] = '┃';
    marks[window_cells.min(width)] = '▕';
    [
        bar,
        marks.into_iter().collect::<String>().trim_end().to_string(),
    ]
}

pub fn body(d: &Diagnosis, busy: Option<&Busy>, width: usize) -> String {
    let b = &d.context_breakdown;
    let mut out = Vec::new();
    if let Some(bz) = busy {
        out.push(format!("BUSY: {}", one_line(&bz.describe())));
        out.push(String::new());
    }
    let [bar, marks] = bar(d, width.saturating_sub(2).clamp(10, 100));
    out.push(bar);
    out.push(marks);
    out.push(
        "the bar: its parts below  ▓ overhead  ▒ compaction summary  █ messages  ░ free"
            .to_string(),
    );
    out.push(format!(
        "│ flush line {}  ┃ compaction line {}  ▕ window {}",
        b.flush_at.map(thousands).unwrap_or_else(|| "off".into()),
        thousands(b.compact_at),
        thousands(b.window)
    ));
    out.push(crate::report::diagnosis::used_against_lines(b));
    // The verdict and the advice first: on a 24-row terminal they are what must be seen
    // without scrolling; the parts and the figures follow.
    out.push(format!("verdict: {}", one_line(&d.verdict)));
    for a in &d.advice {
        out.push(format!("- {}", one_line(a)));
    }
    out.push(String::new());
    out.push(crate::report::diagnosis::parts_caption(b));
    for p in &b.parts {
        let pct = if b.window > 0 {
            p.tokens as f64 * 100.0 / b.window as f64
        } else {
            0.0
        };
        out.push(format!(
            "  {:<9} {:<24} {:>8}  {pct:>5.1}%",
            p.group,
            one_line(&p.name),
            thousands(p.tokens)
        ));
    }
    out.push(String::new());
    for (k, v) in crate::report::diagnosis::lines(d)
        .into_iter()
        .take_while(|(k, _)| k != "context")
        .filter(|(k, _)| k != "verdict" && k != "advice" && !k.is_empty())
    {
        if k.is_empty() {
            out.push(format!("  {v}"));
        } else {
            out.push(format!("{k}: {v}"));
        }
    }
    out.join("\n")
}
