//! `clawtop check`: the session list's problems graded by the operator's sets, within
//! `--timeout`.

use super::args::*;
use super::host::*;
use crate::commands::out;
use crate::report::check;

/// `check` within its `--timeout`: the whole read runs on a worker thread, so no slow request
/// or file can hold the answer past the deadline. The worker only reads; the process exits
/// right after the answer, abandoning it.
pub(crate) fn cmd_check(g: &Global, a: &CheckArgs) -> i32 {
    let limit = std::time::Duration::from_secs_f64(a.timeout);
    let (tx, rx) = std::sync::mpsc::channel();
    let (g2, a2) = (g.clone(), a.clone());
    let worker = std::thread::Builder::new()
        .name("clawtop-check".into())
        .spawn(move || {
            let _ = tx.send(check_report(&g2, &a2));
        });
    let answer = match worker {
        Ok(_) => rx.recv_timeout(limit).ok(),
        Err(e) => Some((
            format!("UNKNOWN: cannot start the check: {e}\n"),
            check::UNKNOWN,
        )),
    };
    let (text, code) = answer.unwrap_or_else(|| {
        (
            format!(
                "UNKNOWN: no answer within {} s (--timeout); the host or its gateway is too slow\n",
                a.timeout
            ),
            check::UNKNOWN,
        )
    });
    out(&text);
    code
}

pub(crate) fn check_report(g: &Global, a: &CheckArgs) -> (String, i32) {
    let r = match list_report(g, &a.logs) {
        Ok(r) => r,
        Err(e) => {
            return (
                format!("UNKNOWN: {}\n", crate::sanitize::one_line(&e.to_string())),
                check::UNKNOWN,
            );
        }
    };
    let answer = check::run(&r, &a.warn, &a.crit, a.max_cost_per_hour);
    // The process exits once the answer is printed ([`cmd_check`]).
    std::mem::forget(r);
    answer
}
