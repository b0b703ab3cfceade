//! `clawtop audit KEY|FILE`: what each compaction lost.

use super::args::*;
use super::host::*;
use crate::commands::{out, out_json};
use crate::usecase::Exit;

pub(crate) fn cmd_audit(g: &Global, target: &str, as_json: bool) -> i32 {
    let t = match resolve_target(g, target, Exit::FAILED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let a = match crate::usecase::audit::run(&t.handle()) {
        Ok(a) => a,
        Err(p) => return fail(p.to_string()),
    };
    if as_json {
        out_json(&a);
    } else {
        out(&crate::report::audit::render(&a));
        warn_all(&a.warnings);
    }
    Exit::OK
}
