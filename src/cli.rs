//! Command line (docs/interface.md §1): parsing, dispatch, exit codes.
//!
//! Exit codes ([`crate::usecase::Exit`]): 0 ok, 1 failed, 2 usage (clap errors too), 3
//! refused for safety (era B, a busy lock, a transcript or store row that changed
//! since the preview). Errors go to stderr as one line naming the file or cause; results go
//! to stdout. This module only parses and dispatches: each verb is `commands/<verb>.rs`
//! ([`crate::commands`]), its arguments are [`crate::commands::args`].

use crate::commands::args::cmd_name;
pub use crate::commands::args::{CheckArgs, Cmd, CompactArgs, FlushArgs, Global, ModelFlags};
use crate::commands::host::usage;
pub use crate::commands::open::first_run_notice;
use crate::commands::{
    audit::cmd_audit,
    check::cmd_check,
    compact::cmd_compact,
    fleet::cmd_fleet,
    flush::cmd_flush,
    history::cmd_history,
    list::cmd_list,
    metrics::cmd_metrics,
    open::{open_file, open_target, tui_default, tui_gateway},
    show::cmd_show,
};

use clap::Parser;
use std::path::{Path, PathBuf};

use crate::commands::{JSON_ERRORS, json_error};
use crate::usecase::Exit;

const AFTER_HELP: &str = "\
A KEY names a session. Any of these work (the first that matches wins):
  agent:main:telegram:direct:12345   the full session key, as `clawtop list` prints it
  telegram:direct:12345              the key without agent:<id>: (add --agent ID if two agents have it)
  9e08b9f6-5a80-4ffe-82e5-668220e4656a  a sessionId
  9e08b9f6                           an unambiguous prefix of a sessionId

Examples:
  clawtop                            the TUI on ~/.openclaw (the demo when there is none)
  clawtop main --agent ops           the TUI, opened on agent ops's main session
  clawtop list                       every session and how close it is to flush and compaction
  clawtop check --crit over,stuck    one line per problem; Nagios exit codes 0/1/2/3
  clawtop metrics > /var/lib/node_exporter/clawtop.prom";

#[derive(Debug, Parser)]
#[command(
    name = "clawtop",
    version,
    about = "Inspect and maintain OpenClaw agent sessions: thresholds, transcripts, compaction, memory flush",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    /// A session KEY to open in the TUI (see below), or a pi transcript FILE.jsonl.
    #[arg(value_name = "KEY|FILE.jsonl")]
    pub target: Option<String>,
    #[command(subcommand)]
    pub cmd: Option<Cmd>,
}

/// Process entry: parse, dispatch, return the exit code.
pub fn main() -> i32 {
    init_logging();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            if code != 0 && std::env::args().any(|a| a == "--json") {
                json_error(&e.kind().to_string(), Exit::USAGE);
            }
            let _ = e.print();
            return if code == 0 { Exit::OK } else { Exit::USAGE };
        }
    };
    tracing::info!(cmd = ?cli.cmd.as_ref().map(cmd_name), "start");
    if cli.global.hosts.is_none()
        && matches!(
            &cli.cmd,
            Some(Cmd::List { .. } | Cmd::Check(_) | Cmd::Metrics)
        )
    {
        huge_pages(true);
    }
    JSON_ERRORS.store(
        matches!(
            &cli.cmd,
            Some(
                Cmd::List { json: true, .. }
                    | Cmd::Show { json: true, .. }
                    | Cmd::History { json: true, .. }
                    | Cmd::Audit { json: true, .. }
            )
        ) || matches!(&cli.cmd, Some(Cmd::Compact(a)) if a.json)
            || matches!(&cli.cmd, Some(Cmd::Flush(a)) if a.json),
        std::sync::atomic::Ordering::Relaxed,
    );
    run(cli)
}

/// Whether this process may have transparent huge pages: mimalloc asks the kernel for them
/// for its memory (where the host allows them, as Debian's `madvise` default does). `main`
/// says no first thing; once the command is known, yes for `list`, `check` and `metrics` of
/// one host.
///
/// Those run from cron and node_exporter every minute and exit after one answer, and with
/// huge pages a warm `list --json` of 2,004 sessions took about a quarter less CPU (6,600
/// page faults became 440) for 6-10 MB more resident memory (issue 31). Everything else (the
/// TUI, a fleet, `show` of a million rows) keeps the page-at-a-time memory its ceilings were
/// set with, but for what the Rust runtime touched before `main` ran: one huge page, about
/// 2.5 MB more.
pub fn huge_pages(allowed: bool) {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::thread::disable_transparent_huge_pages(!allowed) {
        tracing::debug!(error = %e, "transparent huge pages left as the host has them");
    }
    #[cfg(not(target_os = "linux"))]
    let _ = allowed;
}

pub fn run(cli: Cli) -> i32 {
    let g = cli.global;
    if g.gateway.is_some() && matches!(cli.cmd, Some(Cmd::Flush(_)) | Some(Cmd::Open { .. })) {
        return usage(if matches!(cli.cmd, Some(Cmd::Flush(_))) {
            "flush does not work through --gateway: a flush writes notes into the agent's workspace, which a tunnel does not reach, and OpenClaw has no flush request"
        } else {
            "`open FILE` reads a local transcript; it does not take --gateway"
        });
    }
    if g.gateway_token_file.is_some() && g.gateway.is_none() {
        return usage("--gateway-token-file goes with --gateway URL");
    }
    if !g.logs.is_empty() {
        if g.hosts.is_some() {
            return usage("--log reads one host's gateway log; it does not go with --hosts");
        }
        if matches!(&cli.cmd, Some(c) if !matches!(c, Cmd::History { .. })) {
            return usage(
                "--log before a command is for the TUI and `history`; `history KEY --log FILE` also works",
            );
        }
    }
    if g.jobs.is_some() && g.hosts.is_none() {
        return usage("--jobs N says how many hosts are read at once; it goes with --hosts");
    }
    if g.hosts.is_some() {
        return cmd_fleet(&g, cli.cmd, cli.target.is_some());
    }
    match cli.cmd {
        None if g.gateway.is_some() => tui_gateway(&g, cli.target.as_deref()),
        None => match cli.target {
            Some(t) => open_target(&g, &t),
            None => tui_default(&g),
        },
        Some(_) if cli.target.is_some() => {
            usage("give either a KEY or FILE.jsonl, or a subcommand, not both")
        }
        Some(Cmd::Open { file }) => open_file(&g, &file),
        Some(Cmd::List { json, verbose }) => cmd_list(&g, json, verbose),
        Some(Cmd::Check(a)) => cmd_check(&g, &a),
        Some(Cmd::Metrics) => cmd_metrics(&g),
        Some(Cmd::Show {
            target,
            json,
            entries,
            window,
        }) => cmd_show(&g, &target, json, entries, window),
        Some(Cmd::Compact(a)) => cmd_compact(&g, &a),
        Some(Cmd::History { target, json, logs }) => {
            let logs: Vec<PathBuf> = g.logs.iter().chain(&logs).cloned().collect();
            cmd_history(&g, &target, json, &logs)
        }
        Some(Cmd::Audit { target, json }) => cmd_audit(&g, &target, json),
        Some(Cmd::Flush(a)) => cmd_flush(&g, &a),
    }
}

// ---------------------------------------------------------------- output helpers

/// `<dir>/clawtop.log`, private to the user: the directory is created 0700 and the file
/// 0600, and an existing log or directory of ours that is readable by others is narrowed to
/// that (the log names hosts, sessions and workspaces).
pub fn open_private_log(dir: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).ok()?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(_) => return None,
    }
    let uid = rustix::process::geteuid().as_raw();
    let meta = std::fs::symlink_metadata(dir).ok()?;
    if !meta.is_dir() {
        return None;
    }
    if meta.uid() == uid && meta.mode() & 0o077 != 0 {
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC).bits() as i32)
        .open(dir.join("clawtop.log"))
        .ok()?;
    let m = file.metadata().ok()?;
    if m.uid() == uid && m.mode() & 0o077 != 0 {
        let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
    }
    Some(file)
}

fn init_logging() {
    let Some(dir) = crate::paths::state_dir() else {
        return;
    };
    let Some(file) = open_private_log(&dir) else {
        return;
    };
    use tracing_subscriber::prelude::*;
    let filter = tracing_subscriber::EnvFilter::try_from_env("CLAWTOP_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // The operator's filter, then the cap no directive lifts (crate::logging).
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .with_filter(filter)
        .with_filter(crate::logging::transport_cap());
    let _ = tracing_subscriber::registry().with(layer).try_init();
}

// ---------------------------------------------------------------- host and targets

// ---------------------------------------------------------------- commands

// ---------------------------------------------------------------- TUI

#[cfg(test)]
mod tests {
    /// `huge_pages` says to the kernel what it is told, read back from the kernel (the process
    /// flag is put back as it was: other tests share this process).
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_reach_the_kernel_the_right_way_round() {
        let before = rustix::thread::transparent_huge_pages_are_disabled().unwrap();
        super::huge_pages(false);
        let off = rustix::thread::transparent_huge_pages_are_disabled().unwrap();
        super::huge_pages(true);
        let on = rustix::thread::transparent_huge_pages_are_disabled().unwrap();
        super::huge_pages(!before);
        assert!(off, "huge_pages(false) left them allowed");
        assert!(!on, "huge_pages(true) left them disabled");
    }
}
