//! `clawtop show KEY|FILE`: one session's numbers, diagnosis and (with `--entries`) its
//! transcript.

use super::args::*;
use super::host::*;
use crate::numbers::Numbers;
use crate::report::{json, show};
use crate::usecase::Exit;
use std::io::Write;

pub(crate) fn cmd_show(
    g: &Global,
    target: &str,
    as_json: bool,
    with_entries: bool,
    window: Option<u64>,
) -> i32 {
    let t = match resolve_target(g, target, Exit::FAILED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    // Entries are streamed to stdout, never collected: a transcript may be gigabytes.
    let (rep, transcript) = match &t {
        Target::File(f) => match show::for_file(f, window, false) {
            Ok((r, t)) => (r, Some(t)),
            Err(e) => return fail(&e),
        },
        Target::Session {
            source, session, ..
        } => {
            let mut numbers = Numbers::new(source.as_ref());
            show::for_session(&mut numbers, session, false)
        }
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if as_json {
        if with_entries {
            show::write_json(&rep, transcript.as_ref(), &mut stdout)
        } else {
            stdout.write_all(json::to_string(&rep).as_bytes())
        }
    } else {
        show::write_text(&rep, transcript.as_ref(), with_entries, &mut stdout)
    };
    if let Err(e) = written.and_then(|()| stdout.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return fail(format!("writing output: {e}"));
        }
    }
    drop(stdout);
    if !as_json {
        warn_all(&rep.row.warnings);
    }
    Exit::OK
}
