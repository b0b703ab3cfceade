//! `clawtop history KEY|FILE`: one session's compactions, flushes and warnings.

use super::args::*;
use super::host::*;
use crate::commands::{out, out_json};
use crate::numbers::Numbers;
use crate::usecase::Exit;
use std::path::PathBuf;

pub(crate) fn cmd_history(g: &Global, target: &str, as_json: bool, logs: &[PathBuf]) -> i32 {
    let t = match resolve_target(g, target, Exit::FAILED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let rep = match &t {
        Target::File(f) => {
            crate::report::history::build(&mut Numbers::new(f.as_ref()), &f.session())
        }
        Target::Session {
            source, session, ..
        } => crate::report::history::build(&mut Numbers::new(source.as_ref()), session),
    };
    let mut rep = rep;
    crate::usecase::history::add_logs(&mut rep.history, &rep.session_key, logs);
    if as_json {
        out_json(&rep);
    } else {
        out(&crate::report::history::render(&rep));
        warn_all(&rep.read_warnings);
    }
    // A history whose transcript could not be read is not a history with nothing in it.
    match &rep.history.transcript_unread {
        Some(why) => fail(format!(
            "the transcript of {} could not be read: {why}",
            rep.session_key
        )),
        None => Exit::OK,
    }
}
