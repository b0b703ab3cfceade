//! The effects `update` asks for, as data: what to load, decode, generate or commit. The
//! runtime ([`crate::tui::runtime::effects`]) runs them; `update` only builds them, so it never
//! touches a disk or a terminal.

use crate::llm::CancellationToken;
use crate::source::SessionHandle;
use crate::transcript::Transcript;
use crate::tui::model::dialog::{DialogKind, ModelInfo};
use crate::usecase;
use std::path::PathBuf;
use std::sync::Arc;

pub enum Effect {
    LoadSessions,
    /// The row of the session the TUI was launched on, alone
    /// ([`EffectCtx::named_loader`](crate::tui::runtime::effects::EffectCtx::named_loader)).
    LoadNamed,
    OpenTranscript {
        session: SessionHandle,
        generation: u64,
        keep_recent_tokens: u64,
    },
    /// The details of a transcript already on screen (diagnosis, history, audits: passes
    /// over the whole transcript), made with the numbers of its header (`basis`).
    LoadTranscriptDetails {
        session: SessionHandle,
        generation: u64,
        transcript: Arc<Transcript>,
        keep_recent_tokens: u64,
        basis: Arc<crate::diagnosis::gather::Basis>,
    },
    DecodeRows {
        transcript: Arc<Transcript>,
        generation: u64,
        indices: Vec<u32>,
    },
    DecodeDetail {
        transcript: Arc<Transcript>,
        generation: u64,
        idx: u32,
    },
    /// Replace the set of files the watcher polls.
    Watch(Vec<PathBuf>),
    /// Look for the next (or previous) entry matching `find`, from `from` (exclusive),
    /// wrapping around; a pass over the transcript, so never on the render path.
    Find {
        transcript: Arc<Transcript>,
        generation: u64,
        from: u32,
        forward: bool,
        find: crate::tui::model::rows::Find,
    },
    /// Plan a compaction or a flush for a dialog (disk: transcript, config, workspace file).
    Prepare(Box<PrepareRequest>),
    /// Ask the model (async, network). Not run by
    /// [`run_blocking`](crate::tui::runtime::effects::run_blocking): the app spawns
    /// [`run_generation`](crate::tui::runtime::effects::run_generation) in a tokio task; headless
    /// tests feed its actions themselves or run
    /// [`run_generation`](crate::tui::runtime::effects::run_generation) against the fake model.
    Generate {
        dialog: u64,
        generation: u64,
        model: Box<ModelInfo>,
        cancel: CancellationToken,
        job: Box<GenJob>,
    },
    /// Compact through OpenClaw's Gateway
    /// ([`run_gateway_compaction`](crate::tui::runtime::effects::run_gateway_compaction) in a tokio
    /// task): progress and the result come back as `GenProgress` / `GenDone` of that dialog.
    GatewayCompact {
        dialog: u64,
        generation: u64,
        cancel: CancellationToken,
        job: Box<GatewayJob>,
    },
    /// Audit the edited draft of a compaction (reads the transcript: never on the render path).
    AuditDraft {
        dialog: u64,
        seq: u64,
        prep: Box<crate::usecase::compact::Prepared>,
        text: String,
    },
    /// Write exactly the previewed text (disk, `spawn_blocking` in the app).
    Commit {
        dialog: u64,
        job: Box<CommitJob>,
    },
    /// Cancel a running generation.
    Cancel(CancellationToken),
    /// Open `text` in the operator's editor and read it back
    /// ([`external_edit`](crate::tui::runtime::effects::external_edit)). The app suspends the TUI
    /// around it (the editor owns the terminal meanwhile); headless,
    /// [`run_blocking`](crate::tui::runtime::effects::run_blocking) runs the editor directly.
    ExternalEdit {
        dialog: u64,
        target: crate::tui::model::dialog::EditTarget,
        text: String,
    },
    /// Write a compaction's summary (read raw from its entry) after `header` to `path`.
    ExportSummary {
        transcript: Arc<Transcript>,
        idx: u32,
        path: PathBuf,
        overwrite: bool,
        header: String,
    },
}

/// What a dialog needs planned.
#[derive(Debug, Clone)]
pub struct PrepareRequest {
    pub dialog: u64,
    /// Sequence number in the dialog; the answer carries it back.
    pub seq: u64,
    pub kind: DialogKind,
    pub session: SessionHandle,
    /// The Session screen's `keepRecentTokens` (0: the config's).
    pub keep_recent_tokens: u64,
    /// The model picked in the dialog (default: the session's own).
    pub model: crate::llm::ModelOverrides,
}

/// What to generate.
#[derive(Debug, Clone)]
pub enum GenJob {
    Compact {
        prep: Box<usecase::compact::Prepared>,
        instructions: Option<String>,
    },
    Flush {
        prep: Box<usecase::flush::Prepared>,
        instructions: Option<String>,
    },
}

/// A compaction for OpenClaw's Gateway to run.
#[derive(Debug, Clone)]
pub struct GatewayJob {
    pub target: crate::gateway::GatewayTarget,
    pub session: SessionHandle,
    /// clawtop's device identity (its config dir).
    pub identity_dir: PathBuf,
    /// Checked against OpenClaw's cap already; None: `sessions.compact`.
    pub instructions: Option<String>,
    /// Check OpenClaw's transcript lock here first, and let that stand where the gateway does
    /// not report runs (a file-backed host's own gateway).
    pub vouch_idle: bool,
}

/// What to commit (the text is the preview at the moment of confirming).
#[derive(Debug, Clone)]
pub enum CommitJob {
    Compact {
        prep: Box<usecase::compact::Prepared>,
        text: String,
    },
    Flush {
        prep: Box<usecase::flush::Prepared>,
        text: String,
    },
}

impl Effect {
    /// Effects that run as async tasks (the app spawns them;
    /// [`run_blocking`](crate::tui::runtime::effects::run_blocking) skips them).
    pub fn is_async(&self) -> bool {
        matches!(
            self,
            Effect::Generate { .. } | Effect::GatewayCompact { .. }
        )
    }
}

impl std::fmt::Debug for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Effect::LoadSessions => write!(f, "LoadSessions"),
            Effect::LoadNamed => write!(f, "LoadNamed"),
            Effect::OpenTranscript {
                session,
                generation,
                ..
            } => write!(f, "OpenTranscript({session}, gen {generation})"),
            Effect::LoadTranscriptDetails {
                session,
                generation,
                ..
            } => write!(f, "LoadTranscriptDetails({session}, gen {generation})"),
            Effect::DecodeRows {
                generation,
                indices,
                ..
            } => write!(f, "DecodeRows(gen {generation}, {} rows)", indices.len()),
            Effect::DecodeDetail {
                generation, idx, ..
            } => write!(f, "DecodeDetail(gen {generation}, #{idx})"),
            Effect::Watch(p) => write!(f, "Watch({} files)", p.len()),
            Effect::Find {
                generation,
                from,
                forward,
                find,
                ..
            } => write!(
                f,
                "Find({}, from #{from}, {}, gen {generation})",
                find.name(),
                if *forward { "forward" } else { "back" }
            ),
            Effect::Prepare(r) => write!(f, "Prepare({:?}, {})", r.kind, r.session),
            Effect::GatewayCompact {
                dialog,
                generation,
                job,
                ..
            } => write!(
                f,
                "GatewayCompact(dialog {dialog}, gen {generation}, {})",
                if job.instructions.is_some() {
                    "/compact with instructions"
                } else {
                    "sessions.compact"
                }
            ),
            Effect::Generate {
                dialog,
                generation,
                job,
                ..
            } => {
                let kind = match job.as_ref() {
                    GenJob::Compact { .. } => "compact",
                    GenJob::Flush { .. } => "flush",
                };
                write!(f, "Generate({kind}, dialog {dialog}, gen {generation})")
            }
            Effect::AuditDraft {
                dialog, seq, text, ..
            } => write!(
                f,
                "AuditDraft(dialog {dialog}, edit {seq}, {} bytes)",
                text.len()
            ),
            Effect::Commit { dialog, job } => match job.as_ref() {
                CommitJob::Compact { text, .. } => {
                    write!(f, "Commit(compact, dialog {dialog}, {} bytes)", text.len())
                }
                CommitJob::Flush { text, .. } => {
                    write!(f, "Commit(flush, dialog {dialog}, {} bytes)", text.len())
                }
            },
            Effect::Cancel(_) => write!(f, "Cancel"),
            Effect::ExternalEdit { target, text, .. } => {
                write!(f, "ExternalEdit({target:?}, {} bytes)", text.len())
            }
            Effect::ExportSummary {
                idx,
                path,
                overwrite,
                ..
            } => write!(
                f,
                "ExportSummary(#{idx} to {}{})",
                path.display(),
                if *overwrite { ", overwrite" } else { "" }
            ),
        }
    }
}

/// Why the external editor left the text as it was.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EditError {
    #[error("cannot create a temporary file for the editor: {0}")]
    TempFile(std::sync::Arc<std::io::Error>),
    #[error("cannot write the temporary file for the editor: {0}")]
    WriteTemp(std::sync::Arc<std::io::Error>),
    #[error("cannot run the editor `{editor}` (through sh): {source}")]
    Spawn {
        editor: String,
        source: std::sync::Arc<std::io::Error>,
    },
    #[error("editor `{0}` not found (set VISUAL or EDITOR)")]
    NotFound(String),
    #[error("editor `{0}` cannot be run (not executable)")]
    NotExecutable(String),
    #[error("editor `{editor}` exited with status {code}")]
    Exited { editor: String, code: i32 },
    #[error("editor `{0}` was killed by a signal")]
    Killed(String),
    #[error("cannot read back the editor's file: {0}")]
    ReadBack(std::sync::Arc<std::io::Error>),
    #[error("the editor left text that is not UTF-8")]
    NotUtf8,
}
