//! Command line (docs/interface.md §1): parsing, dispatch, exit codes.
//!
//! Exit codes ([`crate::usecase::Exit`]): 0 ok, 1 failed, 2 usage (clap errors too), 3
//! refused for safety (era B, a busy lock, a transcript or store row that changed
//! since the preview). Errors go to stderr as one line naming the file or cause; results go
//! to stdout. This module only parses, resolves the session and renders: `compact` and
//! `flush` write through the use cases ([`crate::usecase`], called by [`crate::commands`]).

use crate::numbers::Numbers;
use crate::report::check::{self, Problem};
use crate::report::{compact, json, list, metrics, show};
use crate::source::lookup::Lookup;
use crate::source::transcript_file::TranscriptFile;
use crate::source::{Session, SessionHandle, SessionSource, SourceHandle};
use crate::store::{self, Host, Launch, StoreError};
use crate::thresholds::{Settings, Source};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::commands::{JSON_ERRORS, json_error, out, report_error};
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

#[derive(Debug, Args, Clone, Default)]
pub struct Global {
    /// OpenClaw state dir (default: OPENCLAW_STATE_DIR, $OPENCLAW_HOME/.openclaw, ~/.openclaw, ~/.clawdbot).
    #[arg(long, global = true, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// OpenClaw config file (default: OPENCLAW_CONFIG_PATH, <state>/openclaw.json).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Use the profile state dir ~/.openclaw-NAME.
    #[arg(long, global = true, value_name = "NAME", value_parser = parse_profile)]
    pub profile: Option<String>,
    /// Only this agent.
    #[arg(long, global = true, value_name = "ID")]
    pub agent: Option<String>,
    /// Use the built-in demo host: a private temporary copy (removed on exit) where compact
    /// and flush write with an offline demo summarizer (no network).
    #[arg(long, global = true)]
    pub demo: bool,
    /// Talk to this OpenClaw gateway (ws://HOST:PORT, e.g. the local end of an ssh tunnel)
    /// instead of the local host; the token comes from OPENCLAW_GATEWAY_TOKEN or
    /// --gateway-token-file, never from a flag.
    #[arg(long, global = true, value_name = "ws://HOST:PORT")]
    pub gateway: Option<String>,
    /// File holding the gateway token (one line).
    #[arg(long, global = true, value_name = "FILE")]
    pub gateway_token_file: Option<PathBuf>,
    /// Accept a plain ws:// gateway address that is not loopback (token and transcripts travel
    /// unencrypted; an ssh tunnel to 127.0.0.1 is the safe way).
    #[arg(long, global = true)]
    pub allow_insecure_gateway: bool,
    /// TUI on a SQLite host: do not connect to the host's own gateway for live updates (the
    /// database is polled every second instead; the first connection pairs clawtop's device).
    #[arg(long, global = true)]
    pub no_live: bool,
    /// Every host of a hosts file (default $XDG_CONFIG_HOME/clawtop/hosts.toml): `list`,
    /// `check`, `metrics` and the TUI span them, read over ssh, a gateway or locally.
    #[arg(long, global = true, value_name = "FILE", num_args = 0..=1)]
    pub hosts: Option<Option<PathBuf>>,
    /// With --hosts: how many hosts are read at once (default 32).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// TUI: an OpenClaw gateway log file (verbose) whose `memoryFlush triggered` lines the
    /// History pane counts as flushes, as `clawtop history KEY --log FILE` does. Repeat for
    /// several files; give it before any command.
    #[arg(long = "log", value_name = "FILE")]
    pub logs: Vec<PathBuf>,
}

fn parse_profile(s: &str) -> Result<String, String> {
    if store::resolve::valid_profile(s) {
        Ok(s.to_string())
    } else {
        Err("profile names are letters, digits, '-' and '_'".into())
    }
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// List sessions with their thresholds.
    List {
        /// Machine-readable output (one object; key order is stable).
        #[arg(long)]
        json: bool,
        /// Print every per-session warning (e.g. each missing transcript), not just counts.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Exit 0/1/2/3 (ok/warning/critical/unknown) with one line per problem, for cron and Nagios.
    Check(CheckArgs),
    /// Prometheus text exposition of every session's figures (node_exporter textfile collector).
    Metrics,
    /// One session (KEY or SESSION_ID) or a transcript FILE: numbers, sources, entries.
    Show {
        /// The session (a KEY, see `clawtop --help`) or a transcript file.
        #[arg(value_name = "KEY|FILE")]
        target: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Also print the transcript entries (active branch as text; all entries in JSON).
        #[arg(long)]
        entries: bool,
        /// Context window for a bare FILE (default 200000).
        #[arg(long, value_name = "N")]
        window: Option<u64>,
    },
    /// Compaction: plan (--dry-run), generate and preview a summary, commit with --yes.
    Compact(CompactArgs),
    /// Memory flush: the model drafts notes for memory/<date>.md; preview, then commit with --yes.
    Flush(FlushArgs),
    /// What each compaction on the session's branch lost: identifiers, messages dropped unsummarized.
    Audit {
        /// The session (a KEY, see `clawtop --help`) or a transcript file.
        #[arg(value_name = "KEY|FILE")]
        target: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// A session's compactions and flushes over time, their warnings, and the forecast.
    History {
        /// The session (a KEY, see `clawtop --help`) or a transcript file.
        #[arg(value_name = "KEY|FILE")]
        target: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// An OpenClaw gateway log file (verbose) to read flush evidence from: its
        /// `memoryFlush triggered` lines for this session. Repeat for several files.
        #[arg(long = "log", value_name = "FILE")]
        logs: Vec<PathBuf>,
    },
    /// Open a bare transcript in the TUI.
    Open {
        /// The transcript to open.
        #[arg(value_name = "FILE.jsonl")]
        file: PathBuf,
    },
}

#[derive(Debug, Args, Clone)]
pub struct CheckArgs {
    /// Problems graded WARNING (exit 1), comma-separated. Problems: over, stuck, compact-due,
    /// flush-due, busy, busy-stale-lock, no-transcript, unknown, compaction-loop,
    /// no-flush-before-compaction (these two read the transcripts of compacted sessions),
    /// lossy-compaction (the latest compaction lost identifiers or dropped messages
    /// unsummarized; reads every transcript).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = Problem::parse,
          default_value = "flush-due,compact-due,compaction-loop,no-flush-before-compaction,lossy-compaction")]
    pub warn: Vec<Problem>,
    /// Problems graded CRITICAL (exit 2), comma-separated; wins over --warn.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = Problem::parse,
          default_value = "over,stuck,busy-stale-lock")]
    pub crit: Vec<Problem>,
    /// Answer UNKNOWN (exit 3) if the check has not finished after this many seconds (a slow
    /// gateway or disk; a monitoring system must not wait for ever).
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = positive_secs)]
    pub timeout: f64,
    /// An OpenClaw gateway log file (verbose): its `memoryFlush triggered` lines count as
    /// flushes for no-flush-before-compaction, as in `history --log`; read once for all
    /// sessions. One that cannot be read makes the answer UNKNOWN. Repeatable.
    #[arg(long = "log", value_name = "FILE")]
    pub logs: Vec<PathBuf>,
}

fn positive_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err("a number of seconds above 0 (at most 86400)".into()),
    }
}

#[derive(Debug, Args, Clone, Default)]
pub struct ModelFlags {
    /// Model provider (default: the session's, else the config's default model).
    #[arg(long)]
    pub provider: Option<String>,
    /// Model id at that provider.
    #[arg(long)]
    pub model: Option<String>,
    /// API base URL of the provider (default: from the config or models.json).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Wire protocol of the endpoint.
    #[arg(long, value_parser = ["anthropic-messages", "openai-completions"])]
    pub api: Option<String>,
    /// Environment variable holding the API key (its value is never printed).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
}

#[derive(Debug, Args, Clone)]
pub struct CompactArgs {
    /// The session (a KEY, see `clawtop --help`) or a transcript file.
    #[arg(value_name = "KEY|FILE")]
    pub target: String,
    /// Extra instructions for the summary (default: compaction.customInstructions).
    #[arg(long, conflicts_with = "instructions_file")]
    pub instructions: Option<String>,
    /// Read the instructions from this file.
    #[arg(long, value_name = "F")]
    pub instructions_file: Option<PathBuf>,
    /// Tokens of recent history kept verbatim (default: config keepRecentTokens, else 20000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_recent_tokens: Option<u64>,
    /// Print the plan; call no model, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Commit (without it the summary is only previewed).
    #[arg(long)]
    pub yes: bool,
    /// Commit this (edited) summary instead of generating one; needs --expect-leaf. One final
    /// newline is dropped (the one a saved preview or an editor ends the file with).
    #[arg(long, value_name = "F", requires = "expect_leaf", conflicts_with_all = ["instructions", "instructions_file"])]
    pub summary_file: Option<PathBuf>,
    /// The leafId printed with the preview; refused if the transcript moved since.
    #[arg(long, value_name = "ID", requires = "summary_file")]
    pub expect_leaf: Option<String>,
    /// The firstKeptEntryId printed with the preview; refused if the cut moved since
    /// (e.g. another --keep-recent-tokens or config).
    #[arg(long, value_name = "ID", requires = "summary_file")]
    pub expect_first_kept: Option<String>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// File-backed host with a running gateway (2026.5 … 2026.7.1): compact through that
    /// gateway (found from the host's config) instead of writing the transcript; OpenClaw writes
    /// the summary. Refused while OpenClaw's transcript lock is held.
    #[arg(long, conflicts_with = "dry_run")]
    pub via_gateway: bool,
    #[command(flatten)]
    pub model: ModelFlags,
}

#[derive(Debug, Args, Clone)]
pub struct FlushArgs {
    /// The session (a KEY, see `clawtop --help`).
    #[arg(value_name = "KEY")]
    pub target: String,
    /// Extra instructions for the notes.
    #[arg(long, conflicts_with = "instructions_file")]
    pub instructions: Option<String>,
    /// Read the instructions from this file.
    #[arg(long, value_name = "F")]
    pub instructions_file: Option<PathBuf>,
    /// Show why a flush is (not) due, the prompts and the target; call no model.
    #[arg(long)]
    pub dry_run: bool,
    /// Commit (without it the notes are only previewed).
    #[arg(long)]
    pub yes: bool,
    /// Commit these (edited) notes instead of generating them.
    #[arg(long, value_name = "F", conflicts_with_all = ["instructions", "instructions_file"])]
    pub notes_file: Option<PathBuf>,
    /// Workspace whose memory/ receives the notes (default: from the config).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub model: ModelFlags,
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

fn cmd_name(c: &Cmd) -> &'static str {
    match c {
        Cmd::List { .. } => "list",
        Cmd::Check(_) => "check",
        Cmd::Metrics => "metrics",
        Cmd::Show { .. } => "show",
        Cmd::Compact(_) => "compact",
        Cmd::Flush(_) => "flush",
        Cmd::Open { .. } => "open",
        Cmd::History { .. } => "history",
        Cmd::Audit { .. } => "audit",
    }
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

/// Reports a failure (exit 1): any error or message.
fn fail(msg: impl std::fmt::Display) -> i32 {
    let msg = msg.to_string();
    tracing::warn!("{msg}");
    report_error(&msg, Exit::FAILED);
    Exit::FAILED
}

fn refuse(msg: impl std::fmt::Display) -> i32 {
    report_error(&format!("refused: {msg}"), Exit::REFUSED);
    Exit::REFUSED
}

fn warn_all(ws: &[String]) {
    for w in ws {
        eprintln!("warning: {}", crate::sanitize::one_line(w));
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

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

fn open_host(g: &Global) -> Result<Host, StoreError> {
    if g.demo {
        return Host::demo();
    }
    let opts = store::Options {
        state_dir: g.state_dir.clone(),
        config: g.config.clone(),
        profile: g.profile.clone(),
    };
    Host::open(&opts, &store::Env::from_process())
}

/// A session of a host, or a bare transcript file.
enum Target {
    Session {
        source: SourceHandle,
        session: Box<Session>,
        /// The port a running gateway of this host was seen on (file-backed hosts probe it).
        seen_gateway: Option<u16>,
    },
    File(Arc<TranscriptFile>),
}

impl Target {
    /// The session the use cases act on.
    fn handle(&self) -> SessionHandle {
        match self {
            Target::Session {
                source, session, ..
            } => SessionHandle::new(source.clone(), session.reference.clone()),
            Target::File(f) => SessionHandle::new(f.clone(), f.reference()),
        }
    }
}

/// KEY | SESSION_ID | FILE: an existing file wins, a `.jsonl` name that does not exist is an
/// error, anything else is looked up as a session key, then as a sessionId.
/// `unreadable_code` is the exit code when the host's sessions cannot be read (era B).
fn resolve_target(g: &Global, target: &str, unreadable_code: i32) -> Result<Target, i32> {
    if Path::new(target).is_file() {
        return Ok(Target::File(Arc::new(TranscriptFile::new(target))));
    }
    if target.ends_with(".jsonl") {
        return Err(fail(format!("transcript file {target} not found")));
    }
    let source = match source_for(g) {
        Ok(s) => s,
        Err(e) => return Err(fail(e.to_string())),
    };
    if let Some(msg) = source.unreadable() {
        return Err(if unreadable_code == Exit::REFUSED {
            refuse(&msg)
        } else {
            fail(&msg)
        });
    }
    if let Some(a) = &g.agent {
        if !source.has_agent(a) {
            return Err(fail(format!("no agent {a:?} in {}", source.label())));
        }
    }
    let loaded = source.listing_for(g.agent.as_deref(), target);
    if let Some(gw) = &loaded.running_gateway {
        eprintln!("warning: {}", gw.notice());
    }
    match loaded.find(target) {
        Ok(session) => {
            let session = session.clone();
            Ok(Target::Session {
                source,
                session: Box::new(session),
                seen_gateway: loaded.running_gateway.as_ref().map(|g| g.port),
            })
        }
        Err(Lookup::NotFound) => {
            if let Some(e) = loaded.errors.first() {
                return Err(fail(e));
            }
            if let Some(why) = loaded.why_skipped(target) {
                return Err(fail(why));
            }
            Err(fail(format!(
                "no session with key, key without agent:<id>:, sessionId or sessionId prefix {target:?} in {} ({} sessions; see `clawtop list`)",
                source.label(),
                loaded.sessions.len()
            )))
        }
        Err(Lookup::Ambiguous(candidates)) => Err(fail(format!(
            "ambiguous: {target:?} matches {}; give the full key{}",
            candidates.join(", "),
            if g.agent.is_none() {
                " or --agent ID"
            } else {
                ""
            }
        ))),
    }
}

// ---------------------------------------------------------------- commands

/// The columns `list` lays out: None when stdout is not a terminal (whole keys).
fn list_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let cols = crossterm::terminal::size().ok().map(|(w, _)| w as usize);
    Some(
        cols.or_else(|| std::env::var("COLUMNS").ok()?.parse().ok())
            .unwrap_or(80),
    )
}

/// Why the host the flags name cannot be opened.
#[derive(Debug, thiserror::Error)]
enum OpenError {
    #[error(transparent)]
    Gateway(#[from] crate::gateway::GatewayError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The source of the host the flags name: its Gateway with `--gateway URL` (a remote host,
/// nothing local read), else the local host through [`crate::source::for_host`]. The one
/// place the CLI picks between them.
fn source_for(g: &Global) -> Result<SourceHandle, OpenError> {
    match &g.gateway {
        Some(_) => {
            let overrides = crate::gateway::Overrides {
                url: g.gateway.clone(),
                token_file: g.gateway_token_file.clone(),
                allow_insecure: g.allow_insecure_gateway,
            };
            let target = crate::gateway::target::resolve(
                &serde_json::Value::Object(Default::default()),
                &crate::gateway::GatewayEnv::from_process(),
                &overrides,
            )?;
            Ok(crate::source::for_gateway(target)?)
        }
        None => Ok(crate::source::for_host(open_host(g)?)),
    }
}

/// The `list` report of the host: what `list`, `check` and `metrics` all read.
fn list_report(g: &Global) -> Result<(SourceHandle, list::ListReport), OpenError> {
    let source = source_for(g)?;
    let r = list::build(source.as_ref(), g.agent.as_deref());
    Ok((source, r))
}

fn cmd_list(g: &Global, as_json: bool, verbose: bool) -> i32 {
    let r = match list_report(g) {
        Ok((_, r)) => r,
        Err(e) => return fail(e.to_string()),
    };
    if as_json {
        out(&json::to_string(&r));
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
    if r.errors.is_empty() {
        Exit::OK
    } else {
        Exit::FAILED
    }
}

/// `check` within its `--timeout`: the whole read runs on a worker thread, so no slow request
/// or file can hold the answer past the deadline. The worker only reads; the process exits
/// right after the answer, abandoning it.
fn cmd_check(g: &Global, a: &CheckArgs) -> i32 {
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

fn check_report(g: &Global, a: &CheckArgs) -> (String, i32) {
    let (source, mut r) = match list_report(g) {
        Ok(x) => x,
        Err(e) => {
            return (
                format!("UNKNOWN: {}\n", crate::sanitize::one_line(&e.to_string())),
                check::UNKNOWN,
            );
        }
    };
    if let Some(why) = source.unreadable() {
        return (
            format!("UNKNOWN: {}\n", crate::sanitize::one_line(&why)),
            check::UNKNOWN,
        );
    }
    let wants_lock = a
        .warn
        .iter()
        .chain(&a.crit)
        .any(|p| matches!(p, Problem::Busy | Problem::BusyStaleLock));
    let locks: Vec<_> = if wants_lock {
        r.refs.iter().map(|s| source.lock(s)).collect()
    } else {
        Vec::new()
    };
    let histories = if a
        .warn
        .iter()
        .chain(&a.crit)
        .any(|p| check::needs_history(*p))
    {
        let (h, unread_logs) =
            check::history_checks(source.as_ref(), g.agent.as_deref(), &r.refs, &a.logs);
        r.errors.extend(unread_logs);
        h
    } else {
        Vec::new()
    };
    let losses = if a
        .warn
        .iter()
        .chain(&a.crit)
        .any(|p| *p == Problem::LossyCompaction)
    {
        crate::usecase::audit::latest_losses(source.as_ref(), &r.refs)
    } else {
        Vec::new()
    };
    check::run(&r, &locks, &histories, &losses, &a.warn, &a.crit)
}

fn cmd_metrics(g: &Global) -> i32 {
    let (source, r) = match list_report(g) {
        Ok(x) => x,
        Err(e) => return fail(e.to_string()),
    };
    let losses = crate::usecase::audit::latest_losses(source.as_ref(), &r.refs);
    out(&(metrics::render(&r) + &metrics::render_compaction_losses(&r, &losses)));
    for e in &r.errors {
        eprintln!("clawtop: {}", crate::sanitize::one_line(e));
    }
    Exit::OK
}

/// `--hosts`: every host of the hosts file ([`crate::commands::fleet`]), or the fleet TUI.
fn cmd_fleet(g: &Global, cmd: Option<Cmd>, has_target: bool) -> i32 {
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
    let o = fleet::run(kind, &hosts, home.as_deref(), now_ms(), list_width(), jobs);
    out(&o.stdout);
    for l in &o.stderr {
        eprintln!("{l}");
    }
    o.code
}

fn cmd_show(
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

fn cmd_audit(g: &Global, target: &str, as_json: bool) -> i32 {
    let t = match resolve_target(g, target, Exit::FAILED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let a = match crate::usecase::audit::run(&t.handle()) {
        Ok(a) => a,
        Err(p) => return fail(p.to_string()),
    };
    if as_json {
        out(&json::to_string(&a));
    } else {
        out(&crate::report::audit::render(&a));
        warn_all(&a.warnings);
    }
    Exit::OK
}

fn cmd_history(g: &Global, target: &str, as_json: bool, logs: &[PathBuf]) -> i32 {
    let t = match resolve_target(g, target, Exit::FAILED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let rep = match &t {
        Target::File(f) => {
            let session = Session {
                reference: f.reference(),
                entry: Default::default(),
                transcript: Some(f.path().display().to_string()),
                transcript_how: "the file given",
                transcript_unread: None,
                entry_from: None,
                warnings: Vec::new(),
            };
            crate::report::history::build(&mut Numbers::new(f.as_ref()), &session)
        }
        Target::Session {
            source, session, ..
        } => crate::report::history::build(&mut Numbers::new(source.as_ref()), session),
    };
    let mut rep = rep;
    crate::usecase::history::add_logs(&mut rep.history, &rep.session_key, logs);
    if as_json {
        out(&json::to_string(&rep));
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

/// keepRecentTokens: flag, else config `agents.defaults.compaction.keepRecentTokens`, else 20000.
fn keep_recent(flag: Option<u64>, source: &dyn SessionSource) -> (u64, Source) {
    let s = Settings::from_config(source.config()).keep_recent(flag);
    (s.value, s.source)
}

fn cmd_compact(g: &Global, a: &CompactArgs) -> i32 {
    use crate::usecase::route::{self, Door, Route};
    if g.gateway.is_some() {
        return compact_on_gateway_url(g, a);
    }
    let target = match resolve_target(g, &a.target, Exit::REFUSED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let door = match (&target, a.via_gateway) {
        (_, false) => Door::Default,
        (Target::File(_), true) => {
            return usage(
                "--via-gateway compacts a session of a host; a bare transcript file has no gateway",
            );
        }
        (Target::Session { seen_gateway, .. }, true) => Door::HostGateway {
            seen_port: *seen_gateway,
        },
    };
    let handle = target.handle();
    // A file-backed host's gateway does not report runs: OpenClaw's transcript lock is checked
    // first, whatever the route (a busy session is refused before anything else is said).
    if a.via_gateway {
        if let Err(e) = crate::usecase::refuse_if_busy(&handle) {
            return refuse(e.to_string());
        }
    }
    // The use cases' router is the one place that decides where this compaction goes; the
    // dry run starts from the same answer as the commit, so it refuses what the commit
    // refuses, with the same exit code and reason.
    match route::route(&handle, crate::source::Operation::Compact, door) {
        // Why the session has no transcript (a FIFO, a link out of the sessions dir) was
        // found while listing: said with the refusal.
        Route::ReadOnly(why) => match &target {
            Target::Session { session, .. }
                if session.transcript.is_none() && !session.warnings.is_empty() =>
            {
                refuse(format!("{why}: {}", session.warnings.join("; ")))
            }
            _ => refuse(&why),
        },
        // A local SQLite host: the dry run shows clawtop's reading of the transcript; the
        // commit is OpenClaw's (it plans and summarizes with its own model).
        Route::Gateway(r) if a.dry_run && !a.via_gateway => {
            eprintln!(
                "note: this session is compacted through {}: OpenClaw plans and writes the summary; the plan below is clawtop's reading of the transcript",
                crate::sanitize::one_line(&r.via)
            );
            compact_dry_run(&target, a, None)
        }
        Route::Gateway(r) => {
            let key = match &target {
                Target::Session { session, .. } => session.key().to_string(),
                Target::File(_) => a.target.clone(),
            };
            let host = (a.yes || r.vouch_idle).then(|| handle.clone());
            compact_through_gateway(a, *r, key, host, false)
        }
        Route::Local(_) if a.dry_run => {
            // Its transcript and diagnosis are reused (the file is read and diagnosed once).
            let opts = crate::usecase::compact::Options {
                keep_recent_tokens: a.keep_recent_tokens,
                model: crate::usecase::ModelChoice::default(),
            };
            match crate::usecase::compact::prepare(&handle, &opts) {
                Ok(p) => compact_dry_run(&target, a, Some(p)),
                Err(p) if p.exit_code() == Exit::REFUSED => {
                    report_error(&p.to_string(), p.exit_code());
                    p.exit_code()
                }
                // No plan: the dry run still shows the figures and what to do instead.
                Err(_) => compact_dry_run(&target, a, None),
            }
        }
        Route::Local(_) => compact_commit(&target, a),
    }
}

/// `compact --dry-run`: the plan and the diagnosis, from the use case's prepared transcript
/// when there is one.
fn compact_dry_run(
    target: &Target,
    a: &CompactArgs,
    prepared: Option<crate::usecase::compact::Prepared>,
) -> i32 {
    let (source, reference, key): (&dyn SessionSource, _, _) = match target {
        Target::File(f) => (f.as_ref(), f.reference(), None),
        Target::Session {
            source, session, ..
        } => {
            if session.transcript.is_none() {
                return fail(format!(
                    "session {} has no transcript: {}",
                    session.key(),
                    session.warnings.join("; ")
                ));
            }
            (
                source.as_ref(),
                session.reference.clone(),
                Some(session.key()),
            )
        }
    };
    let opened;
    let t: &crate::transcript::Transcript = match &prepared {
        Some(p) => p.transcript(),
        None => {
            opened = match source.open_transcript(&reference) {
                Ok(t) => t,
                Err(e) => return fail(e.to_string()),
            };
            &opened
        }
    };
    let mut warnings = Vec::new();
    crate::numbers::push_transcript_warnings(t, &mut warnings);
    let keep = keep_recent(a.keep_recent_tokens, source);
    let session = match target {
        Target::Session { session, .. } => Some(session.as_ref()),
        Target::File(_) => None,
    };
    let (diag, busy) = match prepared.as_ref().and_then(|p| p.outlook.clone()) {
        Some(d) => (*d, crate::diagnosis::busy(t.path())),
        None => {
            let (d, b, _) = crate::diagnosis::gather::for_target(source, session, t, keep.0);
            (d, b)
        }
    };
    // The use case already planned on this transcript; the plan is a function of the
    // transcript and keepRecentTokens, so it is reused rather than made (and its files read)
    // again.
    let planned = prepared
        .as_ref()
        .map(|p| &p.prepared.plan)
        .filter(|p| p.keep_recent_tokens == keep.0);
    let report = match planned {
        Some(p) => Ok(compact::from_plan(t, key, keep.1, p)),
        None => compact::build(t, key, keep).map(|(r, _)| r),
    };
    match report {
        Ok(r) => {
            if a.json {
                out(&json::to_string(&compact::DryRun {
                    plan: r,
                    busy,
                    diagnosis: diag,
                }));
            } else {
                out(&compact::render(&r));
                out(&compact::render_diagnosis(&diag, busy.as_ref()));
            }
            warn_all(&warnings);
            Exit::OK
        }
        Err(why) => {
            warn_all(&warnings);
            // No plan, but the operator still gets the figures and what to do instead.
            eprint!("{}", compact::render_diagnosis(&diag, busy.as_ref()));
            fail(format!("{}: {why}", t.path().display()))
        }
    }
}

/// The model flags and the process environment.
fn model_choice(m: &ModelFlags) -> Result<crate::usecase::ModelChoice, crate::llm::LlmError> {
    let api = match m.api.as_deref() {
        Some(a) => Some(a.parse::<crate::llm::Api>()?),
        None => None,
    };
    Ok(crate::usecase::ModelChoice {
        overrides: crate::llm::ModelOverrides {
            provider: m.provider.clone(),
            model: m.model.clone(),
            base_url: m.base_url.clone(),
            api,
            api_key_env: m.api_key_env.clone(),
        },
        env: crate::usecase::process_env(),
    })
}

/// `--instructions-file` that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read instructions file {}: {source}", .path.display())]
struct InstructionsFileError {
    path: PathBuf,
    source: std::io::Error,
}

fn read_instructions(
    text: &Option<String>,
    file: &Option<PathBuf>,
) -> Result<Option<String>, InstructionsFileError> {
    match (text, file) {
        (Some(t), _) => Ok(Some(t.clone())),
        // The operator names this file: a pipe (`--instructions-file /dev/stdin`) is meant.
        (None, Some(f)) => {
            std::fs::read_to_string(f)
                .map(Some)
                .map_err(|source| InstructionsFileError {
                    path: f.clone(),
                    source,
                })
        }
        (None, None) => Ok(None),
    }
}

/// `compact --gateway URL KEY`: a host reached only through its Gateway (a tunnel); no local
/// state is needed. The key is sent as given (the gateway finds the session); the router
/// still decides, on a session named by that key.
fn compact_on_gateway_url(g: &Global, a: &CompactArgs) -> i32 {
    use crate::usecase::route::{self, Door, Route};
    if a.via_gateway {
        return usage(
            "--via-gateway uses the host's own gateway; --gateway names one: give one of them",
        );
    }
    let source = match source_for(g) {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    let reference = crate::source::SessionRef {
        source: source.label(),
        agent_id: crate::source::gateway::agent_of(&a.target),
        key: a.target.clone(),
        session_id: String::new(),
    };
    let handle = SessionHandle::new(source, reference);
    match route::route(&handle, crate::source::Operation::Compact, Door::Default) {
        Route::Gateway(r) => {
            // Where clawtop reads back what OpenClaw wrote: a local state dir, when there is
            // one, matched by key (see `GatewayCompactJob::host_by_key_only`).
            let host = (!a.dry_run && a.yes)
                .then(|| open_host(g).ok())
                .flatten()
                .and_then(|h| session_by_key(crate::source::for_host(h), &a.target));
            compact_through_gateway(a, *r, a.target.clone(), host, true)
        }
        Route::ReadOnly(why) => refuse(&why),
        Route::Local(_) => fail("a gateway source answered with a local writer"),
    }
}

/// A compaction OpenClaw's Gateway performs: the flags that only a local compaction takes are
/// refused, and the job runs (where `route.vouch_idle`, the caller checked the transcript lock).
fn compact_through_gateway(
    a: &CompactArgs,
    route: crate::usecase::route::GatewayRoute,
    key: String,
    host: Option<SessionHandle>,
    host_by_key_only: bool,
) -> i32 {
    use crate::commands::gateway_compact::{self, GatewayCompactJob};
    let local_only = [
        (a.dry_run, "--dry-run"),
        (a.summary_file.is_some(), "--summary-file"),
        (a.expect_leaf.is_some(), "--expect-leaf"),
        (a.expect_first_kept.is_some(), "--expect-first-kept"),
        (a.keep_recent_tokens.is_some(), "--keep-recent-tokens"),
        (
            a.model.provider.is_some()
                || a.model.model.is_some()
                || a.model.base_url.is_some()
                || a.model.api.is_some()
                || a.model.api_key_env.is_some(),
            "model flags",
        ),
    ];
    if let Some((_, flag)) = local_only.iter().find(|(set, _)| *set) {
        return usage(&format!(
            "{flag} does not apply through the gateway: OpenClaw plans and writes the summary with its own model \
             (use --instructions to give it focus text)"
        ));
    }
    let instructions = match read_instructions(&a.instructions, &a.instructions_file) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    gateway_compact::run(GatewayCompactJob {
        target: route.target,
        key,
        instructions,
        yes: a.yes,
        json: a.json,
        wait: crate::gateway::ops::COMPACT_WAIT,
        vouch_idle: route.vouch_idle,
        host_by_key_only,
        host,
    })
}

/// The session `key` of a local host, to read back what its gateway wrote.
fn session_by_key(
    source: crate::source::SourceHandle,
    key: &str,
) -> Option<crate::source::SessionHandle> {
    let found = source
        .listing_for(None, key)
        .sessions
        .into_iter()
        .find(|s| s.key() == key)?;
    Some(crate::source::SessionHandle::new(source, found.reference))
}

/// The write path of `compact`: generate, preview, and commit with `--yes`.
fn compact_commit(target: &Target, a: &CompactArgs) -> i32 {
    let model = match model_choice(&a.model) {
        Ok(m) => m,
        Err(e) => return usage(&e.to_string()),
    };
    let instructions = match read_instructions(&a.instructions, &a.instructions_file) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    crate::commands::compact::run(crate::commands::compact::CompactJob {
        session: target.handle(),
        keep_recent_tokens: a.keep_recent_tokens,
        instructions,
        summary_file: a.summary_file.clone(),
        expect_leaf: a.expect_leaf.clone(),
        expect_first_kept: a.expect_first_kept.clone(),
        yes: a.yes,
        json: a.json,
        model,
    })
}

fn usage(msg: &str) -> i32 {
    report_error(msg, Exit::USAGE);
    Exit::USAGE
}

fn cmd_flush(g: &Global, a: &FlushArgs) -> i32 {
    let target = match resolve_target(g, &a.target, Exit::REFUSED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    flush_run(&target, a)
}

/// The flush path: draft notes with the model, preview, commit with `--yes`.
fn flush_run(target: &Target, a: &FlushArgs) -> i32 {
    let model = match model_choice(&a.model) {
        Ok(m) => m,
        Err(e) => return usage(&e.to_string()),
    };
    let instructions = match read_instructions(&a.instructions, &a.instructions_file) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    crate::commands::flush::run(crate::commands::flush::FlushJob {
        session: target.handle(),
        workspace: a.workspace.clone(),
        instructions,
        notes_file: a.notes_file.clone(),
        dry_run: a.dry_run,
        yes: a.yes,
        json: a.json,
        model,
    })
}

// ---------------------------------------------------------------- TUI

fn open_file(g: &Global, file: &Path) -> i32 {
    if !file.is_file() {
        return fail(format!("transcript file {} not found", file.display()));
    }
    run_tui(
        g,
        Launch {
            host: None,
            file: Some(file.to_path_buf()),
            agent: g.agent.clone(),
        },
        None,
    )
}

const SUBCOMMANDS: [&str; 7] = [
    "list", "check", "metrics", "show", "compact", "flush", "open",
];

/// The subcommand `word` is probably a typo of (`lsit` → `list`).
fn suggest_subcommand(word: &str) -> Option<&'static str> {
    SUBCOMMANDS
        .iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= 2 && *d < c.len())
        .min()
        .map(|(_, c)| c)
}

/// `clawtop KEY` (or `clawtop FILE.jsonl`): the TUI opened on that session. A word that names
/// no session but looks like a mistyped subcommand is a usage error with the suggestion.
fn open_target(g: &Global, target: &str) -> i32 {
    if Path::new(target).is_file() || target.ends_with(".jsonl") {
        return open_file(g, Path::new(target));
    }
    let typo = |why: &str| -> i32 {
        match suggest_subcommand(target) {
            Some(c) => usage(&format!(
                "unrecognized subcommand {target:?}; did you mean `clawtop {c}`? (`clawtop --help` lists the commands; a KEY opens a session)"
            )),
            None => fail(why),
        }
    };
    let host = match open_host(g) {
        Ok(h) => h,
        Err(e) => return typo(&e.to_string()),
    };
    let source = crate::source::for_host(host);
    if let Some(why) = source.unreadable() {
        return typo(&why);
    }
    let loaded = source.listing_for(g.agent.as_deref(), target);
    let open = match loaded.find(target) {
        Ok(s) => (s.agent_id().to_string(), s.key().to_string()),
        Err(Lookup::NotFound) => {
            return typo(&format!(
                "no session with key, key without agent:<id>:, sessionId or sessionId prefix {target:?} in {}, and no file of that name",
                source.label()
            ));
        }
        Err(Lookup::Ambiguous(c)) => {
            return fail(format!(
                "ambiguous: {target:?} matches {}; give the full key or --agent ID",
                c.join(", ")
            ));
        }
    };
    drop(loaded);
    let host = match open_host(g) {
        Ok(h) => h,
        Err(e) => return fail(e.to_string()),
    };
    run_tui(
        g,
        Launch {
            host: Some(host),
            file: None,
            agent: g.agent.clone(),
        },
        Some(open),
    )
}

/// No subcommand: the TUI on the resolved host; the demo when no state dir exists at all.
fn tui_default(g: &Global) -> i32 {
    let mut notice = None;
    let host = match open_host(g) {
        Ok(h) => h,
        Err(StoreError::NoStateDir { looked, .. }) => {
            let places: Vec<String> = looked.iter().map(ToString::to_string).collect();
            tracing::info!("no state dir ({}); using the demo", places.join(", "));
            notice = Some(first_run_notice(&places));
            match Host::demo() {
                Ok(h) => h,
                Err(e) => return fail(e.to_string()),
            }
        }
        Err(e) => return fail(e.to_string()),
    };
    run_tui_with(
        g,
        Launch {
            host: Some(host),
            file: None,
            agent: g.agent.clone(),
        },
        None,
        notice,
    )
}

/// The TUI on a host reached through its gateway (`clawtop --gateway URL [KEY]`).
fn tui_gateway(g: &Global, target: Option<&str>) -> i32 {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "clawtop: the TUI needs a terminal (stdin/stdout is not a tty); for scripts use `clawtop list --gateway URL` or `clawtop show --gateway URL KEY`"
        );
        return Exit::FAILED;
    }
    let source = match source_for(g) {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    let open = match target {
        None => None,
        Some(t) => match resolve_target(g, t, Exit::FAILED) {
            Ok(Target::Session { session, .. }) => {
                Some((session.agent_id().to_string(), session.key().to_string()))
            }
            Ok(Target::File(_)) => {
                return usage("a transcript file is local; drop --gateway to open it");
            }
            Err(code) => return code,
        },
    };
    let mut launch = crate::tui::TuiLaunch::from_store(Launch {
        host: None,
        file: None,
        agent: g.agent.clone(),
    });
    launch.loader = Some(crate::tui::store_adapter::host_loader(
        source.clone(),
        g.agent.clone(),
    ));
    // Live updates: the gateway's session events, pushed (the TUI subscribes).
    launch.live = Some(source);
    launch.open = open;
    launch.logs = g.logs.clone();
    match crate::tui::run(launch) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("clawtop: {e:#}");
            Exit::FAILED
        }
    }
}

/// What a first run without OpenClaw state says: where clawtop looked, that this is the demo,
/// and how to point it at a real host.
pub fn first_run_notice(looked: &[String]) -> String {
    format!(
        "DEMO data: no OpenClaw state found. Real host: clawtop --state-dir DIR (or OPENCLAW_STATE_DIR). Looked at {}.",
        looked.join(", ")
    )
}

/// Hands over to the TUI (a terminal is required; scripts use `list` and `show`); `open`:
/// (agent, key) of the session to open once listed.
fn run_tui(g: &Global, launch: Launch, open: Option<(String, String)>) -> i32 {
    run_tui_with(g, launch, open, None)
}

fn run_tui_with(
    g: &Global,
    launch: Launch,
    open: Option<(String, String)>,
    notice: Option<String>,
) -> i32 {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "clawtop: the TUI needs a terminal (stdin/stdout is not a tty); for scripts use `clawtop list` or `clawtop show`"
        );
        return Exit::FAILED;
    }
    let mut launch = crate::tui::TuiLaunch::from_store(launch);
    if let (Some((agent, key)), Some(source)) = (&open, &launch.live) {
        launch.named_loader = Some(crate::tui::store_adapter::named_loader(
            source.clone(),
            agent.clone(),
            key.clone(),
        ));
    }
    launch.open = open;
    launch.notice = notice;
    launch.logs = g.logs.clone();
    if g.no_live {
        launch.live = None;
    }
    match crate::tui::run(launch) {
        Ok(()) => 0,
        Err(e)
            if e.downcast_ref::<crate::tui::terminal::EndedBySignal>()
                .is_some() =>
        {
            let sig = e
                .downcast_ref::<crate::tui::terminal::EndedBySignal>()
                .map_or(0, |s| s.0);
            tracing::info!("{e}");
            128 + sig
        }
        Err(e) => {
            eprintln!("clawtop: {e:#}");
            Exit::FAILED
        }
    }
}
