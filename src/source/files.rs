//! The file-backed host (OpenClaw ≤ 2026.7.1): `agents/<id>/sessions/sessions.json` and one
//! JSONL transcript per session, read through [`crate::store::Host`] (the streaming store
//! parse and the transcript path rules live there).

use super::{
    Changes, Listing, LocalWriter, Operation, Session, SessionRef, SessionSource, SourceError,
    SourceKind, Watch, Writer,
};
use crate::commit::StoreRow;
use crate::store::Host;
use crate::transcript::Transcript;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

pub struct FileStore {
    host: Host,
    /// Transcript path of every listed session, None for a listed session without a
    /// transcript file (so asking about it again does not read the store again: on a host
    /// whose store keeps entries after their transcripts are gone, that made `list`
    /// quadratic). Paths stay inside this source: the layers above hold only [`SessionRef`]s.
    transcripts: Mutex<HashMap<SessionRef, Option<PathBuf>>>,
}

impl FileStore {
    pub fn new(host: Host) -> FileStore {
        FileStore {
            host,
            transcripts: Mutex::new(HashMap::new()),
        }
    }

    pub fn host(&self) -> &Host {
        &self.host
    }

    fn reference(&self, agent_id: &str, key: &str, session_id: &str) -> SessionRef {
        SessionRef {
            source: self.label(),
            agent_id: agent_id.to_string(),
            key: key.to_string(),
            session_id: session_id.to_string(),
        }
    }

    /// The transcript path of a session: remembered from the last listing (which also
    /// remembers that a session has none), else the agent's store is read again (a reference
    /// from an earlier run, or a session listed since) without probing the gateway again.
    fn transcript_path(&self, r: &SessionRef) -> Option<PathBuf> {
        if let Some(known) = self.known(r) {
            return known;
        }
        let loaded = self.host.load_sessions(Some(&r.agent_id));
        self.remember(&loaded.sessions);
        self.cached(r)
    }

    /// What the last listing said of this session's transcript: Some(None) when it had none,
    /// None when the session was not listed.
    fn known(&self, r: &SessionRef) -> Option<Option<PathBuf>> {
        self.transcripts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(r)
            .cloned()
    }

    fn cached(&self, r: &SessionRef) -> Option<PathBuf> {
        self.known(r).flatten()
    }

    fn remember(&self, sessions: &[crate::store::Session]) {
        let mut paths = self.transcripts.lock().unwrap_or_else(|e| e.into_inner());
        for s in sessions {
            let reference = self.reference(&s.agent_id, &s.key, &s.entry.session_id);
            paths.insert(reference, s.transcript.clone());
        }
    }
}

impl SessionSource for FileStore {
    fn kind(&self) -> SourceKind {
        SourceKind::of_era(self.host.era)
    }

    fn label(&self) -> String {
        self.host.state_dir.display().to_string()
    }

    fn lock(&self, session: &SessionRef) -> Option<crate::commit::LockStatus> {
        // OpenClaw's own rule for a transcript lock: a live pid younger than
        // session.writeLock.staleMs (30 min by default) holds it; anything else is stale.
        let path = self.transcript_path(session)?;
        crate::commit::lock::status(&path, std::time::Duration::from_secs(1800)).ok()
    }

    fn warnings(&self) -> Vec<String> {
        self.host.warnings.clone()
    }

    fn is_demo(&self) -> bool {
        self.host.is_demo
    }

    fn has_agent(&self, agent: &str) -> bool {
        self.host.agent(agent).is_some()
    }

    /// A full key is rule 1 of [`super::lookup`], which wins whenever it matches: the sessions
    /// with that key name what the whole list names. The store is parsed whole (one JSON
    /// file) either way; what this spares is the rest: `clawtop KEY` opens its Session screen
    /// without waiting for every other session's transcript to be measured. None (the whole
    /// list answers) for any other name, or when an entry or a store could not be read.
    fn listing_named(&self, agent: Option<&str>, name: &str) -> Option<Listing> {
        let Listing {
            sessions,
            warnings,
            errors,
            skipped,
            running_gateway,
        } = self.list(agent);
        if !errors.is_empty() || !skipped.is_empty() {
            return None;
        }
        let key = name.trim();
        let sessions: Vec<Session> = sessions.into_iter().filter(|s| s.key() == key).collect();
        (!sessions.is_empty()).then_some(Listing {
            sessions,
            warnings,
            errors,
            skipped,
            running_gateway,
        })
    }

    fn list(&self, agent: Option<&str>) -> Listing {
        let loaded = self.host.load_sessions(agent);
        let mut out = Listing {
            warnings: loaded.warnings,
            skipped: loaded.skipped,
            errors: loaded
                .errors
                .iter()
                .map(|e| crate::sanitize::one_line(&e.to_string()))
                .collect(),
            ..Listing::default()
        };
        if !self.host.is_demo {
            let env_port = std::env::var("OPENCLAW_GATEWAY_PORT").ok();
            if let Some(gw) = crate::gateway::running::detect(
                &self.host.config,
                env_port.as_deref(),
                std::time::Duration::from_millis(300),
            ) {
                out.warnings.push(gw.notice());
                out.running_gateway = Some(gw);
            }
        }
        self.remember(&loaded.sessions);
        for mut s in loaded.sessions {
            s.warnings
                .extend(self.host.agent_file_warnings(&s.agent_id));
            let reference = self.reference(&s.agent_id, &s.key, &s.entry.session_id);
            out.sessions.push(Session {
                reference,
                transcript: s.transcript.as_ref().map(|p| p.display().to_string()),
                transcript_how: s.transcript_how.describe(),
                transcript_unread: s.transcript_refused,
                entry_from: self
                    .host
                    .agent(&s.agent_id)
                    .map(|a| a.store_path.display().to_string()),
                entry: s.entry,
                warnings: s.warnings,
            });
        }
        out
    }

    fn open_transcript(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        let path = self.transcript_path(r).ok_or_else(|| {
            SourceError::Unavailable(format!(
                "no transcript file for {} in {}",
                crate::sanitize::one_line(&r.key),
                self.label()
            ))
        })?;
        Ok(Transcript::open(&path)?)
    }

    fn transcript_stamp(&self, r: &SessionRef) -> Option<super::Stamp> {
        super::stamp::of_file(&self.transcript_path(r)?)
    }

    fn transcript_tip(&self, r: &SessionRef) -> Option<super::Stamp> {
        super::stamp::of_file_tip(&self.transcript_path(r)?)
    }

    fn transcript_tail(
        &self,
        r: &SessionRef,
        budget: u64,
    ) -> Result<crate::transcript::tail::Tail, SourceError> {
        let path = self.transcript_path(r).ok_or_else(|| {
            SourceError::Unavailable(format!(
                "no transcript file for {} in {}",
                crate::sanitize::one_line(&r.key),
                self.label()
            ))
        })?;
        crate::transcript::tail::read_file(&path, budget).map_err(|source| {
            SourceError::Transcript(crate::transcript::TranscriptError::Io { path, source })
        })
    }

    fn changes(&self, what: Watch<'_>) -> Changes {
        match what {
            Watch::Sessions { agent } => Changes::Poll(
                self.host
                    .agents
                    .iter()
                    .filter(|a| a.has_store && agent.is_none_or(|o| o == a.id))
                    .map(|a| a.store_path.clone())
                    .collect(),
            ),
            Watch::Transcript(r) => Changes::Poll(self.cached(r).into_iter().collect()),
        }
    }

    fn writer(&self, r: &SessionRef, op: Operation) -> Writer {
        let Some(agent) = self.host.agent(&r.agent_id) else {
            return Writer::ReadOnly(format!("no agent {:?} on this host", r.agent_id));
        };
        let transcript = self.cached(r);
        if op == Operation::Compact && transcript.is_none() {
            return Writer::ReadOnly(format!(
                "session {} has no transcript file",
                crate::sanitize::one_line(&r.key)
            ));
        }
        Writer::Local(LocalWriter {
            transcript,
            store: Some(StoreRow {
                store_path: agent.store_path.clone(),
                session_key: r.key.clone(),
                session_id: r.session_id.clone(),
            }),
            unrecorded: None,
        })
    }

    fn config(&self) -> &Value {
        &self.host.config
    }

    fn config_label(&self) -> String {
        self.host.config_label()
    }

    fn models_json(&self, agent: &str) -> Option<(String, Value)> {
        self.host.models_json_labelled(agent)
    }

    fn workspace(&self, agent: &str) -> Option<(PathBuf, String)> {
        let home = self.host.home.clone().unwrap_or_else(|| PathBuf::from("/"));
        let (w, src) =
            crate::flush::workspace_for(&self.host.config, &self.host.state_dir, agent, &home);
        Some((w, src.to_string()))
    }
}
