//! What every verb of the CLI shares: the failure lines and their exit codes, the host the
//! flags name ([`source_for`]), the session or file a KEY names ([`resolve_target`]), and the
//! session list every report reads ([`list_report`]).

use super::args::*;
use crate::commands::report_error;
use crate::report::list;
use crate::source::lookup::Lookup;
use crate::source::transcript_file::TranscriptFile;
use crate::source::{Session, SessionHandle, SessionSource, SourceHandle};
use crate::store::{self, Host, StoreError};
use crate::thresholds::{Settings, Source};
use crate::usecase::Exit;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Reports a failure (exit 1): any error or message.
pub(crate) fn fail(msg: impl std::fmt::Display) -> i32 {
    let msg = msg.to_string();
    tracing::warn!("{msg}");
    report_error(&msg, Exit::FAILED);
    Exit::FAILED
}

pub(crate) fn refuse(msg: impl std::fmt::Display) -> i32 {
    report_error(&format!("refused: {msg}"), Exit::REFUSED);
    Exit::REFUSED
}

pub(crate) fn warn_all(ws: &[String]) {
    for w in ws {
        eprintln!("warning: {}", crate::sanitize::one_line(w));
    }
}

pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

pub(crate) fn open_host(g: &Global) -> Result<Host, StoreError> {
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
pub(crate) enum Target {
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
    pub(crate) fn handle(&self) -> SessionHandle {
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
pub(crate) fn resolve_target(
    g: &Global,
    target: &str,
    unreadable_code: i32,
) -> Result<Target, i32> {
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
            Err(fail(Lookup::NotFound.words(
                target,
                &source.label(),
                loaded.sessions.len(),
                "",
                g.agent.is_some(),
            )))
        }
        Err(l) => Err(fail(l.words(
            target,
            &source.label(),
            loaded.sessions.len(),
            "",
            g.agent.is_some(),
        ))),
    }
}

/// The columns `list` lays out: None when stdout is not a terminal (whole keys).
pub(crate) fn list_width() -> Option<usize> {
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
pub(crate) enum OpenError {
    #[error(transparent)]
    Gateway(#[from] crate::gateway::GatewayError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The source of the host the flags name: its Gateway with `--gateway URL` (a remote host,
/// nothing local read), else the local host through [`crate::source::for_host`]. The one
/// place the CLI picks between them.
pub(crate) fn source_for(g: &Global) -> Result<SourceHandle, OpenError> {
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

/// The `list` report of the host: what `list`, `check` (with its gateway `logs`) and
/// `metrics` all read. For a command that exits once it has printed it: what the list held,
/// and the source, are left to the exit ([`list::Held::leave_to_exit`]).
pub(crate) fn list_report(g: &Global, logs: &[PathBuf]) -> Result<list::ListReport, OpenError> {
    let source = source_for(g)?;
    source.reads_once();
    let cache = g.cache_dir();
    let opts = crate::usecase::list::Options {
        agent: g.agent.as_deref(),
        logs,
        cache: cache.as_deref(),
    };
    let (r, held) = crate::usecase::list::build_held(source.as_ref(), &opts);
    held.leave_to_exit();
    leave_to_exit(source);
    Ok(r)
}

/// The source of a command that exits next, not freed (it remembers what it read of the
/// stores: a SQLite host's thousands of session rows). Files it made go at the exit all the
/// same (`main`: the demo copy, private database copies). A gateway's connection is closed
/// as it would be.
fn leave_to_exit(source: SourceHandle) {
    if source.kind() == crate::source::SourceKind::Gateway {
        drop(source);
    } else {
        std::mem::forget(source);
    }
}

/// keepRecentTokens: flag, else config `agents.defaults.compaction.keepRecentTokens`, else 20000.
pub(crate) fn keep_recent(flag: Option<u64>, source: &dyn SessionSource) -> (u64, Source) {
    let s = Settings::from_config(source.config()).keep_recent(flag);
    (s.value, s.source)
}

/// The model flags and the process environment.
pub(crate) fn model_choice(
    m: &ModelFlags,
) -> Result<crate::usecase::ModelChoice, crate::llm::LlmError> {
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
pub(crate) struct InstructionsFileError {
    path: PathBuf,
    source: std::io::Error,
}

/// The model flags and the instructions of `compact` and `flush`, or the exit code of the
/// failure line already printed (a bad model flag is usage, an unreadable file a failure).
pub(crate) fn model_and_instructions(
    m: &ModelFlags,
    text: &Option<String>,
    file: &Option<PathBuf>,
) -> Result<(crate::usecase::ModelChoice, Option<String>), i32> {
    let model = model_choice(m).map_err(|e| usage(&e.to_string()))?;
    let instructions = read_instructions(text, file).map_err(|e| fail(&e))?;
    Ok((model, instructions))
}

pub(crate) fn read_instructions(
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

pub(crate) fn usage(msg: &str) -> i32 {
    report_error(msg, Exit::USAGE);
    Exit::USAGE
}
