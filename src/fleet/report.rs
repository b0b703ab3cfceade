//! `list`, `check` and `metrics` over a fleet ([`crate::fleet`]): the single-host reports
//! with the host added, never a second way of grading a session.
//!
//! `list` lays the whole fleet out as one table by [`crate::report::list::render`] and puts a HOST
//! column in front of it; `check` runs [`crate::report::check::run`] host by host and prefixes each
//! line with the host; `metrics` is [`crate::report::metrics::render_hosts`] with a `host` label.

use super::HostResult;
use crate::report::check::{self, Problem};
use crate::report::list::{self, ListReport};
use crate::report::text::ascii;

/// The fleet as one `list` table with a HOST column, then one error row per host (or store)
/// that could not be read. The table is laid out by [`list::Layout`], as `list` lays out one
/// host, over every host's rows; a remote's rows are read from their kept text one at a time
/// (a host of 400,000 sessions is never held as rows, issue 33).
pub fn render_list(results: Vec<HostResult>, now_ms: i64, width: Option<usize>) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_list(&results, now_ms, width, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`render_list`] written to `w` line by line, never held whole (a stdout that stops taking
/// it ends it).
pub fn write_list(
    results: &[HostResult],
    now_ms: i64,
    width: Option<usize>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    // Each host that answered with rows, its name once.
    let runs: Vec<(String, &super::HostList)> = results
        .iter()
        .filter_map(|h| {
            let l = h.outcome.as_ref().ok()?;
            (!l.is_empty()).then(|| (ascii(&h.name), l))
        })
        .collect();
    let errors: Vec<(String, String)> = results
        .iter()
        .flat_map(|h| {
            h.errors()
                .into_iter()
                .map(|e| (ascii(&h.name), crate::sanitize::one_line(&e)))
        })
        .collect();
    let host_w = runs
        .iter()
        .map(|(h, _)| h)
        .chain(errors.iter().map(|(h, _)| h))
        .map(String::len)
        .max()
        .unwrap_or(0)
        .clamp(4, list::PAD_MAX);
    let mut out = String::new();
    if runs.is_empty() {
        out.push_str("no sessions on any host\n");
        push_errors(&mut out, &errors, host_w);
        return w.write_all(out.as_bytes());
    }
    let mut seen =
        list::Layout::new(width.map(|w| w.saturating_sub(host_w + 1).max(list::MIN_WIDTH)));
    for (_, l) in &runs {
        l.each_row(|r| seen.see(r));
    }
    let layout = seen.done();
    let pad = |h: &str| crate::report::text::pad(h, host_w);
    w.write_all(format!("{} {}", pad("HOST"), layout.header()).as_bytes())?;
    let mut failed = None;
    for (h, l) in &runs {
        let h = pad(h);
        l.each_row(|r| {
            if failed.is_none() {
                let line = format!("{h} {}", layout.line(r, now_ms));
                failed = w.write_all(line.as_bytes()).err();
            }
        });
    }
    if let Some(e) = failed {
        return Err(e);
    }
    push_errors(&mut out, &errors, host_w);
    push_totals(&mut out, results, host_w);
    // The fleet's spend is in the lines above, host by host.
    out.push_str(&layout.footer(None));
    w.write_all(out.as_bytes())
}

/// One `spend:` line per host that reported its totals (SPEC §10: today, $/h, by kind, top),
/// then the fleet's ([`super::fleet_spend`], which the Fleet screen's title shows).
fn push_totals(out: &mut String, results: &[HostResult], host_w: usize) {
    for h in results {
        if let Ok(l) = &h.outcome {
            if let Some(t) = &l.report.totals {
                out.push_str(&format!(
                    "{} spend: {}\n",
                    crate::report::text::pad(&ascii(&h.name), host_w),
                    ascii(&t.line())
                ));
            }
        }
    }
    let fleet = super::fleet_spend(results);
    if fleet.hosts > 1 {
        out.push_str(&format!(
            "{} spend: today {} | {} ({} hosts)\n",
            crate::report::text::pad("*", host_w),
            fleet.today_text(),
            fleet.per_hour_text(),
            fleet.hosts
        ));
    }
}

fn push_errors(out: &mut String, errors: &[(String, String)], host_w: usize) {
    for (h, e) in errors {
        out.push_str(&format!(
            "{} ERROR {e}\n",
            crate::report::text::pad(h, host_w)
        ));
    }
}

/// Nagios severity, worst last: an unreadable host (UNKNOWN) is worse than a warning and
/// not as bad as a critical session elsewhere.
fn rank(code: i32) -> u8 {
    match code {
        check::OK => 0,
        check::WARNING => 1,
        check::UNKNOWN => 2,
        _ => 3,
    }
}

/// `check` host by host: every line prefixed with `HOST: `, the worst host first; the exit
/// code is the worst of the hosts' (CRITICAL > UNKNOWN > WARNING > OK). Every host's rows carry
/// their own problems (a remote's, as its clawtop computed them), so a host is graded here
/// exactly as `check` on it grades it.
pub fn run_check(
    results: &[HostResult],
    warn: &[Problem],
    crit: &[Problem],
    max_cost_per_hour: Option<f64>,
) -> (String, i32) {
    let mut per_host: Vec<(i32, String)> = Vec::new();
    for h in results {
        let host = crate::sanitize::one_line(&h.name);
        let (text, code) = match &h.outcome {
            Err(e) => (
                format!("UNKNOWN: {}\n", crate::sanitize::one_line(&e.to_string())),
                check::UNKNOWN,
            ),
            Ok(l) => check::run(&l.report, warn, crit, max_cost_per_hour),
        };
        let lines: String = text.lines().map(|l| format!("{host}: {l}\n")).collect();
        per_host.push((code, lines));
    }
    per_host.sort_by_key(|(c, _)| std::cmp::Reverse(rank(*c)));
    let code = per_host
        .iter()
        .map(|(c, _)| *c)
        .max_by_key(|c| rank(*c))
        .unwrap_or(check::UNKNOWN);
    (per_host.into_iter().map(|(_, t)| t).collect(), code)
}

/// `metrics` with a `host` label on every series, and `clawtop_host_up` per host. A host
/// that could not be read has no sample but `clawtop_host_up 0`: its figures are unknown,
/// not zero.
pub fn render_metrics(results: &[HostResult]) -> String {
    let hosts: Vec<(Option<&str>, &ListReport)> = results
        .iter()
        .filter_map(|h| match &h.outcome {
            Ok(l) => Some((Some(h.name.as_str()), &l.report)),
            Err(_) => None,
        })
        .collect();
    let mut out = crate::report::metrics::render_hosts(&hosts);
    out.push_str("# HELP clawtop_host_up 1 when clawtop could read the host.\n");
    out.push_str("# TYPE clawtop_host_up gauge\n");
    for h in results {
        out.push_str(&format!(
            "clawtop_host_up{{host=\"{}\"}} {}\n",
            crate::report::metrics::label_value(&h.name),
            h.outcome.is_ok() as u8
        ));
    }
    out
}
