//! `list`, `check` and `metrics` with `--hosts`: the hosts file found and read, every host
//! read in parallel ([`crate::fleet::read_all`]), then the fleet form of the report
//! ([`crate::fleet::report`]). Returns what to print; the CLI prints it.

use crate::fleet::hosts::{self, HostSpec};
use crate::report::check::Problem;
use crate::usecase::Exit;
use std::path::Path;

pub enum Kind<'a> {
    List {
        json: bool,
    },
    Check {
        warn: &'a [Problem],
        crit: &'a [Problem],
    },
    Metrics,
}

pub struct Output {
    pub stdout: String,
    /// Lines for stderr, each already one neutral line.
    pub stderr: Vec<String>,
    pub code: i32,
}

/// `--hosts FILE`, or the default `hosts.toml` in clawtop's config dir
/// ([`crate::paths::Env::hosts_file`]), read and checked.
pub fn load(flag: Option<&Path>, home: Option<&Path>) -> Result<Vec<HostSpec>, hosts::HostsError> {
    let path = match flag {
        Some(p) => p.to_path_buf(),
        None => crate::paths::Env::from_process()
            .hosts_file()
            .ok_or(hosts::HostsError::NoPath)?,
    };
    hosts::load(&path, home)
}

pub fn run(
    kind: Kind,
    hosts: &[HostSpec],
    home: Option<&Path>,
    now_ms: i64,
    width: Option<usize>,
    jobs: usize,
) -> Output {
    let results = crate::fleet::read_all(hosts, home, jobs);
    let errors: Vec<String> = results
        .iter()
        .flat_map(|h| h.errors())
        .map(|e| format!("clawtop: {}", crate::sanitize::one_line(&e)))
        .collect();
    let code = if errors.is_empty() {
        Exit::OK
    } else {
        Exit::FAILED
    };
    match kind {
        Kind::List { json } => {
            let mut stderr: Vec<String> = results
                .iter()
                .filter_map(|h| h.outcome.as_ref().ok().map(|l| (h, l)))
                .flat_map(|(h, l)| {
                    l.report.warnings.iter().map(move |w| {
                        format!(
                            "warning: {}",
                            crate::sanitize::one_line(&format!("{}: {w}", h.name))
                        )
                    })
                })
                .collect();
            let stdout = if json {
                crate::report::json::to_string(&crate::fleet::to_json(&results))
            } else {
                crate::fleet::report::render_list(&results, now_ms, width)
            };
            // The error rows are in the output; stderr says it too, for scripts reading it.
            stderr.extend(errors);
            Output {
                stdout,
                stderr,
                code,
            }
        }
        Kind::Check { warn, crit } => {
            let (stdout, code) = crate::fleet::report::run_check(&results, warn, crit);
            Output {
                stdout,
                stderr: Vec::new(),
                code,
            }
        }
        // Like `metrics` on one host: the exposition is the answer (clawtop_host_up says who
        // is down); the causes go to stderr.
        Kind::Metrics => Output {
            stdout: crate::fleet::report::render_metrics(&results),
            stderr: errors,
            code: Exit::OK,
        },
    }
}
