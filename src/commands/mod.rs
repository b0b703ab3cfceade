//! The CLI's verbs, one file each (`commands/<verb>.rs`): each resolves what the command line
//! names ([`host`]), calls the use cases the TUI calls too ([`crate::usecase`]) or the reports,
//! and renders: progress on stderr, results on stdout (text or JSON). [`crate::cli`] keeps clap
//! and the dispatch.
//!
//! The CLI's output helpers live here too (stdout, the error line and its `--json` object):
//! the commands print failures themselves, and `cli` sits above them, so they are defined
//! at the lower of the two.

pub mod args;
pub mod audit;
pub mod check;
pub mod compact;
pub mod fleet;
pub mod flush;
pub mod gateway_compact;
pub mod history;
pub mod host;
pub mod list;
pub mod metrics;
pub mod open;
pub mod show;

use crate::compaction::model::GenProgress;
use std::io::Write;

/// The CLI's stdout: written whole and flushed.
pub(crate) fn out(s: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(s.as_bytes());
    let _ = o.flush();
}

/// A `--json` answer on stdout, written as it is made through one buffer: a host's list of
/// thousands of rows is never held whole as text nor checked again as UTF-8 (issue 31, warm).
pub(crate) fn out_json<T: serde::Serialize>(v: &T) {
    let mut o = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let _ = crate::report::json::to_writer(v, &mut o);
    let _ = o.flush();
}

/// Set for a `--json` command: its failures also print a JSON error object on stdout.
pub(crate) static JSON_ERRORS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// `{"error": …, "exitCode": …}` on stdout, so `… --json | jq` reads something on failure too.
pub(crate) fn json_error(msg: &str, code: i32) {
    out(&crate::report::json::to_string(
        &serde_json::json!({"error": crate::sanitize::one_line(msg), "exitCode": code}),
    ));
}

/// One failure line on stderr (and the JSON error object on stdout under `--json`).
pub(crate) fn report_error(msg: &str, code: i32) {
    eprintln!("clawtop: {}", crate::sanitize::one_line(msg));
    if JSON_ERRORS.load(std::sync::atomic::Ordering::Relaxed) {
        json_error(msg, code);
    }
}

/// A progress callback that redraws one status line on stderr (only when it is a terminal).
pub fn progress_printer(enabled: bool) -> Box<dyn FnMut(GenProgress) + Send> {
    let start = std::time::Instant::now();
    let mut label = String::new();
    let mut last = std::time::Instant::now() - std::time::Duration::from_secs(1);
    Box::new(move |p| {
        if !enabled {
            return;
        }
        let line = match p {
            GenProgress::Call { call, label: l } => {
                label = format!("call {call}: {l}");
                format!("{label} …")
            }
            GenProgress::Delta { chars, tokens } => {
                if last.elapsed().as_millis() < 100 {
                    return;
                }
                let tok = tokens.unwrap_or_else(|| crate::jsjson::ceil_div4(chars));
                format!(
                    "{label} · ≈{tok} tokens · {:.1}s",
                    start.elapsed().as_secs_f32()
                )
            }
            GenProgress::Retrying {
                attempt,
                after_ms,
                reason,
            } => {
                format!(
                    "{label} · attempt {attempt} failed ({}), retrying in {:.1}s",
                    crate::sanitize::one_line(&reason),
                    after_ms as f32 / 1000.0
                )
            }
        };
        last = std::time::Instant::now();
        let mut e = std::io::stderr();
        let _ = write!(e, "\r\x1b[2K{line} (Ctrl-C cancels)");
        let _ = e.flush();
    })
}

/// Prints a preview (summary or notes) to stdout: neutralised when stdout is a terminal,
/// byte-exact when it is redirected, so a saved preview is exactly what `--summary-file` /
/// `--notes-file` will commit.
pub fn print_text(text: &str) {
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        println!("{}", crate::sanitize::for_terminal(text, true));
    } else {
        print!("{text}");
        if !text.ends_with('\n') {
            println!();
        }
    }
}
