//! `clawtop list`: the session list ([`crate::usecase::list`]) as a table or as JSON.

use super::args::*;
use super::host::*;
use crate::commands::{out, out_json};
use crate::report::list;
use crate::usecase::Exit;

pub(crate) fn cmd_list(g: &Global, as_json: bool, verbose: bool) -> i32 {
    let r = match list_report(g, &[]) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if as_json {
        out_json(&r);
    } else if r.sessions.is_empty() && !r.errors.is_empty() {
        // A failure is not "no sessions": stdout stays empty, the causes go to stderr below.
    } else {
        out(&list::render(&r, now_ms(), list_width()));
        warn_all(&r.warnings);
        // A missing transcript is common on a long-lived host (pruned files): counted once,
        // listed with --verbose. Other warnings are rare and each one matters.
        let mut missing = 0;
        for s in &r.sessions {
            let key = s.session_key.as_deref().unwrap_or("-");
            for w in &s.warnings {
                if s.transcript.is_none() && w.starts_with("transcript not found") {
                    missing += 1;
                    if !verbose {
                        continue;
                    }
                }
                warn_all(&[format!("{key}: {w}")]);
            }
        }
        if missing > 0 && !verbose {
            let s = if missing == 1 { "" } else { "s" };
            eprintln!(
                "warning: {missing} transcript{s} not found (`clawtop list --verbose` lists them)"
            );
        }
    }
    for e in &r.errors {
        eprintln!("clawtop: {}", crate::sanitize::one_line(e));
    }
    let code = if r.errors.is_empty() {
        Exit::OK
    } else {
        Exit::FAILED
    };
    // The process exits next (`main`): a host's thousands of rows are not freed one string
    // at a time first, which was a twentieth of a warm `list` (issue 31).
    std::mem::forget(r);
    code
}
