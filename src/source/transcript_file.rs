//! One bare pi transcript (`clawtop FILE.jsonl`): no store, no config, no workspace. A
//! compaction appends to the file only; a flush has nowhere to record itself.

use super::{
    Changes, Listing, LocalWriter, Operation, Session, SessionRef, SessionSource, SourceError,
    SourceKind, Watch, Writer,
};
use crate::transcript::Transcript;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub struct TranscriptFile {
    path: PathBuf,
}

impl TranscriptFile {
    pub fn new(path: impl Into<PathBuf>) -> TranscriptFile {
        TranscriptFile { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The reference of the file's session: no agent, the file name as its key.
    pub fn reference(&self) -> SessionRef {
        SessionRef {
            source: self.label(),
            agent_id: String::new(),
            key: self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            session_id: String::new(),
        }
    }

    /// The file's one session, as `history FILE` reads it: no store entry, the file itself
    /// as its transcript.
    pub fn session(&self) -> Session {
        Session {
            reference: self.reference(),
            entry: Default::default(),
            transcript: Some(self.path.display().to_string()),
            transcript_how: "the file given",
            transcript_unread: None,
            entry_from: None,
            warnings: Vec::new(),
        }
    }

    fn owns(&self, r: &SessionRef) -> bool {
        r.source == self.label()
    }

    fn its_own(&self, r: &SessionRef) -> Result<(), SourceError> {
        if self.owns(r) {
            return Ok(());
        }
        Err(SourceError::Unavailable(format!(
            "{} is not a session of {}",
            r,
            self.label()
        )))
    }
}

impl SessionSource for TranscriptFile {
    fn kind(&self) -> SourceKind {
        SourceKind::Transcript
    }

    fn label(&self) -> String {
        self.path.display().to_string()
    }

    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    fn has_agent(&self, _agent: &str) -> bool {
        false
    }

    /// A bare file has no store, so nothing is listed; its one session is [`Self::reference`].
    fn list(&self, _agent: Option<&str>) -> Listing {
        Listing::default()
    }

    fn open_transcript(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        self.its_own(r)?;
        Ok(Transcript::open(&self.path)?)
    }

    fn open_transcript_for_history(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        self.its_own(r)?;
        Ok(Transcript::open_for_history(&self.path)?)
    }

    fn changes(&self, what: Watch<'_>) -> Changes {
        match what {
            Watch::Sessions { .. } => Changes::Poll(Vec::new()),
            Watch::Transcript(_) => Changes::Poll(vec![self.path.clone()]),
        }
    }

    fn writer(&self, r: &SessionRef, op: Operation) -> Writer {
        if !self.owns(r) {
            return Writer::ReadOnly(format!("{r} is not a session of {}", self.label()));
        }
        match op {
            Operation::Compact => Writer::Local(LocalWriter {
                transcript: Some(self.path.clone()),
                store: None,
                unrecorded: None,
            }),
            Operation::Flush => Writer::ReadOnly(
                "a bare transcript has no session store and no workspace: nothing to flush into"
                    .into(),
            ),
        }
    }

    fn config(&self) -> &Value {
        &Value::Null
    }

    fn config_label(&self) -> String {
        "config".into()
    }

    fn models_json(&self, _agent: &str) -> Option<(String, Value)> {
        None
    }
}
