//! A host clawtop cannot read: it lists nothing, says why, and writes nothing. Today that
//! is a SQLite host (OpenClaw ≥ 2026.7.2) until its own source exists.

use super::{
    Changes, Listing, Operation, SessionRef, SessionSource, SourceError, SourceKind, Watch, Writer,
};
use crate::store::Host;
use crate::transcript::Transcript;
use serde_json::Value;

pub struct Unreadable {
    host: Host,
    why: String,
}

impl Unreadable {
    /// An era-B host (sessions in SQLite).
    pub fn era_b(host: Host) -> Unreadable {
        let why = host.era_message();
        Unreadable { host, why }
    }
}

impl SessionSource for Unreadable {
    fn kind(&self) -> SourceKind {
        SourceKind::of_era(self.host.era)
    }

    fn label(&self) -> String {
        self.host.state_dir.display().to_string()
    }

    fn warnings(&self) -> Vec<String> {
        let mut w = vec![self.why.clone()];
        w.extend(self.host.warnings.iter().cloned());
        w
    }

    fn unreadable(&self) -> Option<String> {
        Some(self.why.clone())
    }

    fn has_agent(&self, agent: &str) -> bool {
        self.host.agent(agent).is_some()
    }

    fn list(&self, _agent: Option<&str>) -> Listing {
        Listing::default()
    }

    fn open_transcript(&self, _r: &SessionRef) -> Result<Transcript, SourceError> {
        Err(SourceError::Unavailable(self.why.clone()))
    }

    fn changes(&self, _what: Watch<'_>) -> Changes {
        Changes::Poll(Vec::new())
    }

    fn writer(&self, _r: &SessionRef, _op: Operation) -> Writer {
        Writer::ReadOnly(self.why.clone())
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
}
