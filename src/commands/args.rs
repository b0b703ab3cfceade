//! The command line's arguments (clap): the global flags and each subcommand's. Parsed in
//! [`crate::cli`], read by every `commands/<verb>.rs`.

use crate::report::check::Problem;
use crate::store;
use clap::{Args, Subcommand};
use std::path::PathBuf;

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
    /// Read every transcript again instead of reusing the rows remembered in
    /// $XDG_CACHE_HOME/clawtop for sessions that did not change (the output is the same
    /// either way; docs/cache.md). Nothing is written to the cache either.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// With --hosts: how many hosts are read at once (default 32).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// TUI: an OpenClaw gateway log file (verbose) whose `memoryFlush triggered` lines the
    /// History pane counts as flushes, as `clawtop history KEY --log FILE` does. Repeat for
    /// several files; give it before any command.
    #[arg(long = "log", value_name = "FILE")]
    pub logs: Vec<PathBuf>,
    /// TUI opened on a KEY: leaving that session (q, Esc) ends clawtop instead of showing the
    /// Sessions list (the fleet TUI opens a remote session so, and is back in one step).
    #[arg(long)]
    pub session_only: bool,
}

impl Global {
    /// Where `list`, `check` and `metrics` remember rows (None: `--no-cache`, or no home).
    pub(crate) fn cache_dir(&self) -> Option<PathBuf> {
        (!self.no_cache).then(crate::paths::cache_dir).flatten()
    }
}

pub(crate) fn positive_usd(s: &str) -> Result<f64, String> {
    match s.trim_start_matches('$').parse::<f64>() {
        Ok(v) if (0.0..=1e9).contains(&v) => Ok(v),
        _ => Err("a number of dollars, 0 or more".into()),
    }
}

pub(crate) fn parse_profile(s: &str) -> Result<String, String> {
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
    /// Report `burn` (WARNING; CRITICAL when --crit names burn) for a session whose calls
    /// of the last 60 minutes cost more than USD dollars. Off without this flag.
    #[arg(long, value_name = "USD", value_parser = positive_usd)]
    pub max_cost_per_hour: Option<f64>,
}

pub(crate) fn positive_secs(s: &str) -> Result<f64, String> {
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
    /// When a memory flush is due (flush enabled, at or past the flush line, nothing flushed
    /// this cycle): flush first, as OpenClaw does, then compact. Without --yes both are
    /// only previewed.
    #[arg(long, conflicts_with_all = ["no_flush", "dry_run"])]
    pub flush_first: bool,
    /// Compact without the flush that is due (the flush line is passed but OpenClaw's order
    /// is skipped on purpose).
    #[arg(long)]
    pub no_flush: bool,
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

/// The subcommand's name, as the command line spells it.
pub(crate) fn cmd_name(c: &Cmd) -> &'static str {
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
