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
        max_cost_per_hour: Option<f64>,
    },
    Metrics,
}

pub struct Output {
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
    stdout: &mut dyn std::io::Write,
) -> Output {
    let mut results = crate::fleet::read_all(hosts, home, jobs);
    if !matches!(kind, Kind::List { .. }) {
        // check and metrics grade every row as a report: a remote's rows are read here.
        for h in &mut results {
            if let Ok(l) = &mut h.outcome {
                l.materialize();
            }
        }
    }
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
            // A stdout that is closed (the reader stopped) ends the answer, as `out` does.
            let _ = if json {
                // Written as it is made, never held whole.
                crate::report::json::to_writer(&crate::fleet::to_json(&results), &mut *stdout)
            } else {
                crate::fleet::report::write_list(&results, now_ms, width, &mut *stdout)
            };
            // The error rows are in the output; stderr says it too, for scripts reading it.
            stderr.extend(errors);
            Output { stderr, code }
        }
        Kind::Check {
            warn,
            crit,
            max_cost_per_hour,
        } => {
            let (text, code) =
                crate::fleet::report::run_check(&results, warn, crit, max_cost_per_hour);
            let _ = stdout.write_all(text.as_bytes());
            Output {
                stderr: Vec::new(),
                code,
            }
        }
        // Like `metrics` on one host: the exposition is the answer (clawtop_host_up says who
        // is down); the causes go to stderr.
        Kind::Metrics => {
            let _ = stdout.write_all(crate::fleet::report::render_metrics(&results).as_bytes());
            Output {
                stderr: errors,
                code: Exit::OK,
            }
        }
    }
}

// ---------------------------------------------------------------- the verb, from the command line

use super::args::*;
use super::host::*;

/// `--hosts`: every host of the hosts file ([`crate::commands::fleet`]), or the fleet TUI.
pub(crate) fn cmd_fleet(g: &Global, cmd: Option<Cmd>, has_target: bool) -> i32 {
    if g.state_dir.is_some() || g.gateway.is_some() || g.demo || g.profile.is_some() {
        return usage(
            "--hosts names every host; it does not combine with --state-dir, --gateway, --profile or --demo",
        );
    }
    if g.agent.is_some() || g.config.is_some() || has_target {
        return usage("--hosts lists whole hosts; --agent, --config and a KEY go with one host");
    }
    use crate::commands::fleet::{self, Kind};
    let kind = match &cmd {
        Some(Cmd::List { json, .. }) => Some(Kind::List { json: *json }),
        Some(Cmd::Check(a)) if !a.logs.is_empty() => {
            return usage("check --log reads one host's gateway log; it does not go with --hosts");
        }
        Some(Cmd::Check(a)) => Some(Kind::Check {
            warn: &a.warn,
            crit: &a.crit,
            max_cost_per_hour: a.max_cost_per_hour,
        }),
        Some(Cmd::Metrics) => Some(Kind::Metrics),
        None => None,
        Some(c) => {
            return usage(&format!(
                "`{0}` acts on one host: run it there (`ssh -t DEST clawtop {0} …`) or give --state-dir/--gateway instead of --hosts",
                cmd_name(c)
            ));
        }
    };
    let home = crate::paths::home();
    let hosts = match fleet::load(g.hosts.clone().flatten().as_deref(), home.as_deref()) {
        Ok(h) => h,
        Err(e) => return fail(e.to_string()),
    };
    let jobs = g.jobs.map_or(crate::fleet::DEFAULT_JOBS, usize::from);
    crate::fleet::set_jobs(jobs);
    // Whatever ssh is still running when this ends is killed (its own process group would
    // outlive clawtop); the commands without a terminal also on SIGINT, SIGTERM and SIGHUP.
    let _reaper = crate::fleet::ssh::Reaper::new(kind.is_some());
    let Some(kind) = kind else {
        return match crate::tui::fleet::run(hosts, home) {
            Ok(()) => Exit::OK,
            Err(e) => match e.downcast_ref::<crate::tui::terminal::EndedBySignal>() {
                Some(s) => 128 + s.0,
                None => fail(format!("{e:#}")),
            },
        };
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout());
    let o = fleet::run(
        kind,
        &hosts,
        home.as_deref(),
        now_ms(),
        list_width(),
        jobs,
        &mut stdout,
    );
    let _ = std::io::Write::flush(&mut stdout);
    drop(stdout);
    for l in &o.stderr {
        eprintln!("{l}");
    }
    o.code
}
