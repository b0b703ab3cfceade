//! The use cases: prepare, generate and commit a compaction ([`compact`]) or a memory flush
//! ([`flush`]) for a session named by its [`SessionHandle`]. The CLI and the TUI call these
//! and render what comes back; neither assembles an operation itself, so both decide every
//! question the same way:
//!
//! - the session's numbers come from [`crate::numbers`] at prepare time, through the source;
//! - one endpoint resolution and one summarizer budget ([`resolve_model`]);
//! - one mapping of the client's progress to generation progress ([`progress`]);
//! - the flush gate is fed the typed counters of the numbers
//!   ([`crate::flush::FlushGate::from_thresholds`]);
//! - blank instructions (typed or `compaction.customInstructions`) mean none
//!   ([`compact::instructions`]);
//! - empty flush notes are refused; `NO_REPLY` records a flush without notes
//!   ([`flush::notes_to_commit`]);
//! - what went wrong is a typed [`Problem`] (usage, refused, failed, partly written,
//!   cancelled) with one exit code each ([`Exit`]), never a string matched again.
//!
//! Order of a use case, and why: prepare reads everything a preview needs (plan, gate,
//! target, model) and records the state it was made on; generate calls the model and writes
//! nothing; commit writes exactly the text it is given (the preview, possibly edited) and
//! refuses when the session moved since prepare. No terminal code here: texts in
//! [`Problem`]s and warnings are sanitized by the front-end that shows them.

pub mod audit;
pub mod compact;
pub mod flush;
pub mod gateway_compact;
pub mod history;
pub mod list;
pub mod route;
pub mod rows_cache;

use crate::compaction::model::GenProgress;
use crate::llm::{self, ModelEndpoint, ModelOverrides};
use crate::numbers::Numbers;
use crate::source::{Session, SessionHandle};
use crate::summary::Budget;
use crate::thresholds::{self, Counters, Settings, Thresholds};
use std::sync::Arc;

/// Process exit codes (docs/interface.md §1), defined once.
pub struct Exit;
impl Exit {
    pub const OK: i32 = 0;
    /// The operation failed.
    pub const FAILED: i32 = 1;
    /// The command line asked for something malformed.
    pub const USAGE: i32 = 2;
    /// Refused for safety, nothing written (read-only host, busy, changed since the preview).
    pub const REFUSED: i32 = 3;
}

/// Why a use case did not complete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("{0}")]
    Usage(String),
    /// Nothing was written.
    #[error("{0}")]
    Refused(String),
    /// Nothing was written (or it was undone).
    #[error("{0}")]
    Failed(String),
    /// Something was written and could not be undone; the message says what.
    #[error("{0}")]
    PartlyWritten(String),
    #[error("cancelled; nothing written")]
    Cancelled,
    /// The transcript leaves nothing to compact (nothing written). Front-ends match the
    /// reason (e.g. too small at the keepRecentTokens asked) rather than its words.
    #[error("{}: {reason}", .transcript.display())]
    NoPlan {
        transcript: std::path::PathBuf,
        reason: crate::plan::NoPlan,
    },
}

impl Problem {
    pub fn exit_code(&self) -> i32 {
        match self {
            Problem::Usage(_) => Exit::USAGE,
            Problem::Refused(_) => Exit::REFUSED,
            Problem::Failed(_)
            | Problem::PartlyWritten(_)
            | Problem::Cancelled
            | Problem::NoPlan { .. } => Exit::FAILED,
        }
    }

    /// From what a domain error says of the operation (`CommitError`, `FlushError`, ... each
    /// give a [`crate::commit::Verdict`]); the exit code follows from the problem.
    pub fn from_verdict(v: crate::commit::Verdict, message: String) -> Problem {
        use crate::commit::Verdict;
        match v {
            Verdict::Usage => Problem::Usage(message),
            Verdict::Refused => Problem::Refused(message),
            Verdict::Failed => Problem::Failed(message),
        }
    }
}

/// `name -> value` lookup of environment variables (API keys, never displayed).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The process environment.
pub fn process_env() -> EnvLookup {
    Arc::new(|k: &str| std::env::var(k).ok())
}

/// How to reach the model: the operator's overrides (CLI flags) and the environment.
#[derive(Clone)]
pub struct ModelChoice {
    pub overrides: ModelOverrides,
    pub env: EnvLookup,
}

impl Default for ModelChoice {
    fn default() -> Self {
        ModelChoice {
            overrides: ModelOverrides::default(),
            env: process_env(),
        }
    }
}

/// Why there is no model to call for an operation.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NoModel {
    /// The endpoint could not be resolved (no provider, no key, an unknown API): the
    /// resolver's own error, shared because a prepared operation is cloned.
    #[error("{0}")]
    Unresolved(Arc<llm::LlmError>),
    /// OpenClaw's Gateway compacts with its own model; clawtop calls none.
    #[error("OpenClaw compacts with its own model")]
    Gateway,
}

/// The model that will write the text, as resolved (never the key, only where it comes from).
#[derive(Debug, Clone)]
pub struct ModelInfo {
    pub endpoint: ModelEndpoint,
    pub budget: Budget,
    /// Set when `openclaw.json` and the agent's `models.json` name different base URLs for
    /// the provider: which one is used and why (said before any request is sent).
    pub endpoint_note: Option<String>,
}

impl ModelInfo {
    /// `provider/model @ base_url`.
    pub fn label(&self) -> String {
        format!(
            "{}/{} @ {}",
            self.endpoint.provider,
            self.endpoint.model,
            self.endpoint.shown_base_url()
        )
    }
}

/// Resolves the endpoint of the session's model (docs/models.md) and the summarizer budget: context
/// window = the model's catalog window, else the session's window; reserve = the session's
/// effective reserve.
pub fn resolve_model(
    subject: &Subject,
    provider: Option<&str>,
    model: Option<&str>,
    choice: &ModelChoice,
) -> Result<ModelInfo, NoModel> {
    let source = &subject.handle.source;
    // The demo host is a private copy with invented providers: its text comes from the
    // offline demo summarizer, never from a network model (docs/interface.md, "The demo").
    if source.is_demo() {
        return Ok(ModelInfo {
            endpoint: llm::offline_demo::endpoint(),
            budget: Budget {
                context_window: subject.numbers.window,
                reserve_tokens: subject.numbers.reserve,
                reasoning: false,
            },
            endpoint_note: Some(
                "demo: the offline demo summarizer writes the text (no network); writes go to a temporary copy removed on exit".into(),
            ),
        });
    }
    let agent_models = source
        .models_json(&subject.handle.session.agent_id)
        .map(|(_, v)| v);
    let env = |k: &str| (choice.env)(k);
    let ep = llm::resolve_endpoint(
        source.config(),
        agent_models.as_ref(),
        provider,
        model,
        &choice.overrides,
        &env,
    )
    .map_err(|e| NoModel::Unresolved(Arc::new(e)))?;
    let budget = Budget {
        context_window: ep.context_window.unwrap_or(subject.numbers.window),
        reserve_tokens: subject.numbers.reserve,
        reasoning: ep.reasoning,
    };
    let endpoint_note = llm::endpoint_disagreements(
        source.config(),
        agent_models.as_ref(),
        &ep,
        choice.overrides.base_url.is_some(),
    );
    Ok(ModelInfo {
        endpoint: ep,
        budget,
        endpoint_note,
    })
}

/// The one busy check before a model is paid (compact and flush, CLI and TUI): refused
/// (exit 3) while a live process holds the session's `<transcript>.lock`, i.e. an OpenClaw
/// turn is running; a summary or notes drafted now would miss what it is about to add. The
/// commits check again under that lock. On a SQLite host there is no lock to see: the host's
/// gateway is asked (`hasActiveRun`); when it cannot be asked, the answer is a note saying so
/// (`Ok(Some(note))`) for the caller to show, and the work goes on.
pub fn refuse_if_busy(session: &SessionHandle) -> Result<Option<String>, Problem> {
    if let Some(b) = crate::diagnosis::busy::of_handle(session) {
        return Err(Problem::Refused(b.describe()));
    }
    use crate::source::RunState;
    match session.source.active_run(&session.session) {
        Some(RunState::Active) => Err(Problem::Refused(format!(
            "the session is busy: OpenClaw's gateway reports an active run on {}; try again when it has finished (nothing was written)",
            crate::sanitize::one_line(&session.session.key)
        ))),
        Some(RunState::Idle) | None => Ok(None),
        Some(RunState::Unknown(note)) => Ok(Some(crate::sanitize::one_line(&note))),
    }
}

/// A model the operator can pick for one compaction or flush (the TUI dialogs' picker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCandidate {
    /// `provider/model @ base URL` (URL credentials redacted), or the session's own.
    pub label: String,
    /// Where it is listed: `openclaw.json`, `models.json` or both (empty: the session's).
    pub listed_in: String,
    /// What to resolve with; the default (nothing overridden) is the session's own model.
    pub overrides: ModelOverrides,
}

/// The session's own model first, then every model the host's config and the agent's
/// `models.json` list (a provider whose files name different base URLs once per URL). Reads
/// `models.json` (disk).
pub fn model_candidates(handle: &SessionHandle) -> Vec<ModelCandidate> {
    let source = &handle.source;
    let agent_models = source.models_json(&handle.session.agent_id).map(|(_, v)| v);
    let mut out = vec![ModelCandidate {
        label: "the session's model".into(),
        listed_in: String::new(),
        overrides: ModelOverrides::default(),
    }];
    // The demo's text always comes from the offline summarizer: nothing to pick.
    if source.is_demo() {
        return out;
    }
    for m in llm::listed_models(source.config(), agent_models.as_ref()) {
        out.push(ModelCandidate {
            label: format!(
                "{}/{} @ {}",
                m.provider,
                m.model,
                m.base_url
                    .as_deref()
                    .map(llm::redact_url)
                    .unwrap_or_else(|| "built-in URL".into())
            ),
            listed_in: m.listed_in.to_string(),
            overrides: ModelOverrides {
                provider: Some(m.provider),
                model: Some(m.model),
                base_url: m.base_url_override,
                ..Default::default()
            },
        });
    }
    out
}

/// The one mapping of the model client's progress to generation progress.
pub fn progress(p: llm::Progress) -> Option<GenProgress> {
    GenProgress::from_client(p)
}

/// A session as the use cases see it: its listed entry (None for a bare transcript) and its
/// numbers now.
#[derive(Debug, Clone)]
pub struct Subject {
    pub handle: SessionHandle,
    pub session: Option<Session>,
    pub numbers: Thresholds,
    /// Problems met computing the numbers (an unreadable transcript, ...).
    pub warnings: Vec<String>,
}

impl Subject {
    /// Reads the session's entry and computes its numbers. `estimate_used` opens the
    /// transcript when the store has no fresh figure (the flush gate needs it; a compaction
    /// only needs window and reserve).
    pub fn read(handle: &SessionHandle, estimate_used: bool) -> Result<Subject, Problem> {
        let source = handle.source.as_ref();
        let r = &handle.session;
        let mut warnings = Vec::new();
        let listed = if r.agent_id.is_empty() {
            None
        } else {
            let listing = source.list(Some(&r.agent_id));
            // A file-backed host's running gateway: said in every dialog and command that
            // prepares a write (the commit is refused while a run holds the transcript lock).
            if let Some(gw) = &listing.running_gateway {
                warnings.push(gw.notice());
            }
            let found = listing.sessions.into_iter().find(|s| s.reference == *r);
            if found.is_none() {
                return Err(Problem::Failed(match listing.errors.first() {
                    Some(e) => e.clone(),
                    None => format!("no session {r} in {} any more", source.label()),
                }));
            }
            found
        };
        let numbers = match &listed {
            Some(s) => {
                let mut n = Numbers::new(source);
                if estimate_used {
                    n.session(s, &mut warnings)
                } else {
                    n.session_with_transcript(s, None)
                }
            }
            // A bare transcript: no entry, no config, every setting its default.
            None => {
                let settings = Settings::from_config(source.config());
                let window = thresholds::resolve_window(None, &settings, &[], None, None);
                let used = thresholds::resolve_used(&Counters::default(), || None);
                thresholds::compute(window, used, &settings, &Counters::default())
            }
        };
        Ok(Subject {
            handle: handle.clone(),
            session: listed,
            numbers,
            warnings,
        })
    }

    /// `keepRecentTokens`: the operator's value (CLI flag, TUI row), else the config's.
    pub fn keep_recent_tokens(&self, given: Option<u64>) -> thresholds::Sourced<u64> {
        Settings::from_config(self.handle.source.config()).keep_recent(given)
    }
}
