//! Compaction through OpenClaw's Gateway, for a host whose sessions only the gateway may change
//! (a SQLite host, or one reached with `--gateway` through a tunnel).
//!
//! Order, and why:
//! 1. The instructions are checked against OpenClaw's 800-character cap before connecting
//!    (OpenClaw would cut longer text silently).
//! 2. Connect with clawtop's own device identity; read the session's row (`sessions.list`) for
//!    the "before" figures (an unknown key stops here).
//! 3. Refuse while a run is active, sending nothing ([`crate::gateway::ops`] checks; `/compact`
//!    would abort the operator's turn).
//! 4. `sessions.compact` without instructions, `/compact <instructions>` with them; wait for the
//!    result, bounded (on timeout the error says OpenClaw may still finish).
//! 5. Read the row again: the "after" figures are the host's, not computed here.
//! 6. Read back what OpenClaw wrote ([`read_back`], blocking: the caller runs it off the async
//!    path): the new compaction entry of the session's transcript (its summary, tokensBefore,
//!    tokensAfter) and the store's compactionCount, when clawtop can read the host; otherwise
//!    what the gateway answered, and why the rest is unknown. [`mark`] taken before sending
//!    tells OpenClaw's new entry from an older one.
//!
//! There is no preview or edited-text commit: OpenClaw writes the summary with its own model.
//! [`run`] is the one door: the busy check a caller vouches for (a file-backed host's transcript
//! lock), the mark, the request, a refusal by OpenClaw, the read-back and the session-id filter
//! all happen there; the CLI and the TUI only call it and render the one [`GatewayReport`] it
//! returns.

use std::time::Duration;

use crate::source::SessionHandle;

use crate::gateway::{
    CompactOutcome, DeviceIdentity, GatewayClient, GatewayError, GatewayTarget, SessionRow,
    Timeouts, identity, ops,
};

/// What a compaction through the gateway did, with the host's figures before and after.
#[derive(Debug, Clone)]
pub struct GatewayCompaction {
    pub before: SessionRow,
    pub after: SessionRow,
    pub outcome: CompactOutcome,
}

#[derive(Debug, thiserror::Error)]
pub enum GatewayCompactError {
    #[error(transparent)]
    Gateway(#[from] GatewayError),
    #[error("no config dir for clawtop's device identity: set HOME or CLAWTOP_CONFIG_DIR")]
    NoConfigDir,
    /// Nothing was sent: the session is busy (its transcript lock is held, or a run is active).
    #[error("{0}")]
    Busy(String),
    /// OpenClaw answered that it did not compact the session.
    #[error("OpenClaw did not compact the session: {reason}")]
    NotCompacted { reason: String },
    /// OpenClaw compacted, and reading back what it wrote failed unexpectedly.
    #[error("OpenClaw compacted the session, but reading it back failed: {0}")]
    ReadBack(String),
}

impl GatewayCompactError {
    /// Exit code: refused (3) for an active run, usage (2) for bad instructions or address.
    pub fn exit_code(&self) -> i32 {
        use super::Exit;
        match self {
            GatewayCompactError::Gateway(
                GatewayError::ActiveRun { .. } | GatewayError::RunStateUnknown { .. },
            )
            | GatewayCompactError::Busy(_) => Exit::REFUSED,
            GatewayCompactError::Gateway(
                GatewayError::InstructionsTooLong { .. } | GatewayError::BadUrl { .. },
            ) => Exit::USAGE,
            _ => Exit::FAILED,
        }
    }
}

/// Trimmed instructions within the cap; `None` when blank (then `sessions.compact` is used).
pub fn instructions(text: Option<&str>) -> Result<Option<String>, GatewayCompactError> {
    match text {
        Some(t) => Ok(Some(ops::check_instructions(t)?.to_string()).filter(|t| !t.is_empty())),
        None => Ok(None),
    }
}

/// A compaction to ask of a Gateway ([`run`]).
#[derive(Debug, Clone)]
pub struct Request {
    pub target: GatewayTarget,
    pub key: String,
    /// Checked by [`instructions`]; None: `sessions.compact`.
    pub instructions: Option<String>,
    /// How long to wait for OpenClaw's summary.
    pub wait: Duration,
    /// The route found OpenClaw's transcript lock to be the run check (a file-backed host's
    /// own gateway, which reports no runs): [`run`] checks it before sending.
    pub vouch_idle: bool,
    /// The session as clawtop reads the host, to check its lock and read back what OpenClaw
    /// wrote (None: the host is reached only through its gateway).
    pub host: Option<SessionHandle>,
    /// `host` was found by key on a local state dir while the gateway was named by address:
    /// it is read back only if the gateway's row has the same sessionId (the same session).
    pub host_by_key_only: bool,
    /// Where clawtop's device identity is kept (None: its usual config dir).
    pub identity_dir: Option<std::path::PathBuf>,
}

/// Where [`run`] is, for a progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Connecting, checking for an active run.
    Checking,
    /// The request is sent: OpenClaw is compacting.
    Sent,
    /// Reading what OpenClaw wrote back from the host.
    ReadingBack,
}

/// The whole compaction through the gateway, in order: the lock check the route vouches for,
/// [`mark`], [`compact_as`], a refusal by OpenClaw as an error, [`read_back`] (blocking work
/// off the async path). `on_step` is told each step as it starts.
pub async fn run(
    req: Request,
    on_step: impl Fn(Step),
) -> Result<GatewayReport, GatewayCompactError> {
    on_step(Step::Checking);
    let host = req.host.clone();
    if req.vouch_idle {
        if let Some(h) = host.clone() {
            let busy = tokio::task::spawn_blocking(move || super::refuse_if_busy(&h))
                .await
                .map_err(|e| GatewayCompactError::Busy(e.to_string()))?;
            if let Err(p) = busy {
                return Err(GatewayCompactError::Busy(p.to_string()));
            }
        }
    }
    // The host's view before sending: tells OpenClaw's new compaction entry from older ones.
    let before = match host.clone() {
        Some(h) => tokio::task::spawn_blocking(move || mark(&h))
            .await
            .unwrap_or_default(),
        None => Mark::default(),
    };
    let dir = match req.identity_dir.clone() {
        Some(d) => d,
        None => identity::config_dir().ok_or(GatewayCompactError::NoConfigDir)?,
    };
    let c = compact_as(
        &dir,
        &req.target,
        &req.key,
        req.instructions.as_deref(),
        req.wait,
        req.vouch_idle,
        || on_step(Step::Sent),
    )
    .await?;
    if let CompactOutcome::NotCompacted { reason } = &c.outcome {
        return Err(GatewayCompactError::NotCompacted {
            reason: reason.clone(),
        });
    }
    on_step(Step::ReadingBack);
    // A session found by key on a local state dir is read back only if it is the one the
    // gateway compacted.
    let host = host.filter(|h| {
        !req.host_by_key_only
            || c.before.session_id.as_deref() == Some(h.session.session_id.as_str())
    });
    tokio::task::spawn_blocking(move || {
        let written = read_back(host.as_ref(), &before, &c);
        GatewayReport {
            compaction: c,
            written,
        }
    })
    .await
    .map_err(|e| GatewayCompactError::ReadBack(e.to_string()))
}

/// Steps 2–5 (call [`instructions`] first) with the device identity kept in `identity_dir`. `vouch_idle`: the caller saw
/// for itself that no OpenClaw run holds the session (a file-backed host's transcript lock is
/// free), which stands where the gateway does not report runs (before 2026.9).
async fn compact_as(
    identity_dir: &std::path::Path,
    target: &GatewayTarget,
    key: &str,
    instructions: Option<&str>,
    wait: Duration,
    vouch_idle: bool,
    on_started: impl FnOnce(),
) -> Result<GatewayCompaction, GatewayCompactError> {
    let id = DeviceIdentity::load_or_create(identity_dir)?;
    let client = GatewayClient::connect(target, &id, Timeouts::default()).await?;
    if vouch_idle {
        client.vouch_idle();
    }
    let before = row(&client, key).await?;
    // `/compact` answers with a notice only: its figures are on the compaction marker of
    // `chat.history` (the newest one, if it is not the one that was there before).
    let marker_before = match instructions {
        Some(_) => last_marker(&client, key).await,
        None => None,
    };
    on_started();
    let outcome = match instructions {
        Some(t) => client.compact_with_instructions(key, t, wait).await?,
        None => client.compact(key).await?,
    };
    let outcome = match outcome {
        CompactOutcome::Compacted {
            summary,
            tokens_before: None,
            tokens_after: None,
            notice,
        } if instructions.is_some() => {
            let (tokens_before, tokens_after) = match last_marker(&client, key).await {
                Some(m) if Some(&m.0) != marker_before.as_ref().map(|b| &b.0) => (m.1, m.2),
                _ => (None, None),
            };
            CompactOutcome::Compacted {
                summary,
                tokens_before,
                tokens_after,
                notice,
            }
        }
        other => other,
    };
    let after = row(&client, key).await?;
    client.close().await;
    Ok(GatewayCompaction {
        before,
        after,
        outcome,
    })
}

/// The session as the host showed it before the compaction was sent: what tells OpenClaw's new
/// compaction entry from an older one, and the compactionCount it starts from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mark {
    /// The id of the transcript's last compaction entry (None: none, or unreadable).
    pub last_compaction: Option<String>,
    /// How many compaction entries the transcript had.
    pub compactions: usize,
    pub compaction_count: Option<u64>,
}

/// What OpenClaw wrote, read back after it compacted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// OpenClaw's summary (None: unknown; `summary_from` says why).
    pub summary: Option<String>,
    /// Where the summary was read, or why it is unknown, in words.
    pub summary_from: String,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    pub compaction_count_before: Option<u64>,
    /// The store's compactionCount after (None: this host does not expose it).
    pub compaction_count: Option<u64>,
}

/// A compaction OpenClaw ran, with what it wrote: the one record the CLI and the TUI render.
#[derive(Debug, Clone)]
pub struct GatewayReport {
    pub compaction: GatewayCompaction,
    pub written: Written,
}

/// A compaction entry: its id (None in a v1 transcript) and its JSON.
type CompactionEntry = (Option<String>, serde_json::Value);

/// The last compaction entry of the session's transcript, and how many compaction entries
/// there are. None when the transcript cannot be read.
fn last_compaction(session: &SessionHandle) -> Option<(usize, Option<CompactionEntry>)> {
    let t = session.open_transcript().ok()?;
    let kind = crate::transcript::EntryKind::Compaction;
    let count = t.entries.iter().filter(|e| e.kind == kind).count();
    let last = t
        .entries
        .iter()
        .rposition(|e| e.kind == kind)
        .and_then(|i| {
            let id = t.written_id(i as u32).map(String::from);
            t.entry_json(i as u32).ok().map(|v| (id, v))
        });
    Some((count, last))
}

/// The store's compactionCount of the session (None: not listed, or not exposed).
fn compaction_count(session: &SessionHandle) -> Option<u64> {
    let s = &session.session;
    let agent = (!s.agent_id.is_empty()).then_some(s.agent_id.as_str());
    session
        .source
        .list(agent)
        .sessions
        .into_iter()
        .find(|x| x.key() == s.key)
        .and_then(|x| x.entry.compaction_count)
}

/// Step 6's "before": read the host's view of the session (blocking I/O).
fn mark(session: &SessionHandle) -> Mark {
    let (compactions, last) = last_compaction(session).unwrap_or((0, None));
    Mark {
        last_compaction: last.and_then(|(id, _)| id),
        compactions,
        compaction_count: compaction_count(session),
    }
}

/// Step 6: what OpenClaw wrote. `host` is the session as clawtop reads the host (None: a
/// host reached only through its gateway); `before` is [`mark`] taken before sending.
/// Blocking I/O.
fn read_back(host: Option<&SessionHandle>, before: &Mark, c: &GatewayCompaction) -> Written {
    let (answer_summary, answer_before, answer_after) = match &c.outcome {
        CompactOutcome::Compacted {
            summary,
            tokens_before,
            tokens_after,
            ..
        } => (summary.clone(), *tokens_before, *tokens_after),
        CompactOutcome::NotCompacted { .. } => (None, None, None),
    };
    let num = |v: &serde_json::Value, k: &str| v.get(k).and_then(serde_json::Value::as_u64);
    // A compaction entry that was not there before is OpenClaw's new one.
    let new_entry = host.and_then(last_compaction).and_then(|(n, last)| {
        let (id, v) = last?;
        let new = n > before.compactions || (id.is_some() && id != before.last_compaction);
        new.then_some(v)
    });
    let compaction_count = host.and_then(compaction_count);
    let mut w = Written {
        compaction_count_before: before.compaction_count,
        compaction_count,
        ..Written::default()
    };
    match new_entry {
        Some(v) => {
            w.summary = v
                .get("summary")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string);
            w.summary_from = "read back from the session's new compaction entry on the host".into();
            w.tokens_before = num(&v, "tokensBefore").or(answer_before);
            w.tokens_after = num(&v, "tokensAfter").or(answer_after);
            if w.summary.is_none() {
                w.summary = answer_summary;
                w.summary_from = "from OpenClaw's answer (the new entry has no summary)".into();
            }
        }
        None => {
            w.tokens_before = answer_before;
            w.tokens_after = answer_after;
            w.summary_from = match (&answer_summary, host) {
                (Some(_), _) => "from OpenClaw's sessions.compact answer".into(),
                (None, Some(_)) => "unknown: no new compaction entry is readable on the host yet; OpenClaw keeps it in the session's transcript".into(),
                (None, None) => "unknown: OpenClaw's gateway returns no summary for /compact, and this host is reached only through its gateway (the summary is in the session's transcript on the host)".into(),
            };
            w.summary = answer_summary;
        }
    }
    w
}

/// The gateway row's used figure in words: `29,144`, `29,144 (not fresh)`, `unknown`.
pub fn row_used(r: &SessionRow) -> String {
    use crate::format::thousands;
    match (r.total_tokens, r.total_tokens_fresh) {
        (Some(t), Some(false)) => format!("{} (not fresh)", thousands(t)),
        (Some(t), _) => thousands(t),
        (None, _) => "unknown".into(),
    }
}

/// A count read back, or `unknown`.
pub fn or_unknown(n: Option<u64>) -> String {
    n.map(crate::format::thousands)
        .unwrap_or_else(|| "unknown".into())
}

/// The newest compaction marker of the session's `chat.history`: (its id, tokensBefore,
/// tokensAfter). Best effort: None when the gateway does not answer with one.
async fn last_marker(
    client: &GatewayClient,
    key: &str,
) -> Option<(String, Option<u64>, Option<u64>)> {
    let h = client.chat_history(key, 20).await.ok()?;
    h.messages.iter().rev().find_map(|m| {
        let o = m.get("__openclaw")?;
        if o.get("kind").and_then(serde_json::Value::as_str) != Some("compaction") {
            return None;
        }
        let n = |k: &str| o.get(k).and_then(serde_json::Value::as_u64);
        Some((
            o.get("id")?.as_str()?.to_string(),
            n("tokensBefore"),
            n("tokensAfter"),
        ))
    })
}

async fn row(client: &GatewayClient, key: &str) -> Result<SessionRow, GatewayError> {
    client
        .sessions_list()
        .await?
        .into_iter()
        .find(|r| r.key == key)
        .ok_or_else(|| GatewayError::UnknownSession {
            key: key.to_string(),
        })
}
