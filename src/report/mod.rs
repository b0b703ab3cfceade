//! `list`, `show` and `compact --dry-run` as data (serde, camelCase, stable key order) and as
//! plain text. Shared by the CLI; the TUI can reuse [`Numbers`] and [`SessionRow`].

pub mod compact;
pub mod entries;
pub mod json;
pub mod list;
pub mod show;
pub mod text;

use crate::store::{Host, Session};
use crate::thresholds::{
    self, Catalog, Counters, Settings, Source, Status, Thresholds, UsedSource,
};
use crate::tokens::ContextEstimate;
use crate::transcript::{EntryKind, Transcript, Warning};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Computes the numbers (docs/numbers.md) for the sessions of one host, caching config and model
/// catalogs.
pub struct Numbers<'h> {
    pub host: &'h Host,
    pub settings: Settings,
    config_label: String,
    models_json: HashMap<String, Option<(String, Value)>>,
    /// Estimates per transcript path: sessions can share a transcript (forks, copies).
    estimates: HashMap<std::path::PathBuf, (Option<ContextEstimate>, Vec<String>)>,
}

impl<'h> Numbers<'h> {
    pub fn new(host: &'h Host) -> Numbers<'h> {
        let config_label = host
            .config_path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "config".into());
        Numbers {
            host,
            settings: Settings::from_config(&host.config),
            config_label,
            models_json: HashMap::new(),
            estimates: HashMap::new(),
        }
    }

    /// Numbers of a session. The transcript is opened only when `used` has to be estimated;
    /// its problems are added to `warnings`.
    pub fn session(
        &mut self,
        s: &Session,
        warnings: &mut Vec<String>,
    ) -> (Thresholds, Option<ContextEstimate>) {
        let mut est = None;
        let mut cache = std::mem::take(&mut self.estimates);
        let t = self.session_with(s, || {
            let path = s.transcript.as_deref()?;
            let (e, ws) = cache.entry(path.to_path_buf()).or_insert_with(|| {
                let mut ws = Vec::new();
                let e =
                    open_transcript(path, &mut ws).and_then(|t| crate::context::current_tokens(&t));
                (e, ws)
            });
            warnings.extend(ws.iter().cloned());
            est = *e;
            est.map(|e| e.tokens)
        });
        self.estimates = cache;
        (t, est)
    }

    /// Numbers of a session with a caller-supplied estimator (called only when needed).
    pub fn session_with(
        &mut self,
        s: &Session,
        estimate: impl FnOnce() -> Option<u64>,
    ) -> Thresholds {
        let host = self.host;
        let mj = self
            .models_json
            .entry(s.agent_id.clone())
            .or_insert_with(|| {
                host.models_json(&s.agent_id)
                    .map(|(p, v)| (p.display().to_string(), v))
            });
        let mut catalogs = Vec::new();
        if let Some(m) = host.config.get("models") {
            catalogs.push(Catalog {
                value: m,
                label: &self.config_label,
            });
        }
        if let Some((label, v)) = mj.as_ref() {
            catalogs.push(Catalog { value: v, label });
        }
        let e = &s.entry;
        let window = thresholds::resolve_window(
            e.context_tokens(),
            &self.settings,
            &catalogs,
            e.model_provider.as_deref(),
            e.model.as_deref(),
        );
        let counters = Counters::from_entry(e);
        let used = thresholds::resolve_used(&counters, estimate);
        thresholds::compute(window, used, &self.settings, &counters)
    }
}

/// Opens a transcript, turning its problems into warnings naming the file (and line).
pub fn open_transcript(path: &Path, warnings: &mut Vec<String>) -> Option<Transcript> {
    match Transcript::open(path) {
        Ok(t) => {
            push_transcript_warnings(&t, warnings);
            Some(t)
        }
        Err(e) => {
            warnings.push(crate::sanitize::one_line(&e.to_string()));
            None
        }
    }
}

pub fn push_transcript_warnings(t: &Transcript, warnings: &mut Vec<String>) {
    let mut ws = t.all_warnings();
    if t.is_empty() && ws.is_empty() {
        ws.push(Warning {
            line: 0,
            message: "transcript has no entries".into(),
        });
    }
    for e in t.entries.iter() {
        if e.kind == EntryKind::Unknown {
            let ty = e.raw_type.as_deref().unwrap_or("?");
            ws.push(Warning {
                line: e.line,
                message: format!(
                    "unknown entry type {ty:?}; shown raw, not part of the model context"
                ),
            });
        }
    }
    ws.sort_by_key(|w| w.line);
    for w in ws {
        warnings.push(crate::sanitize::one_line(&format!(
            "{}: {w}",
            t.path().display()
        )));
    }
}

/// One session as `list --json` prints it (key order is part of the interface).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    pub agent_id: Option<String>,
    pub session_key: Option<String>,
    pub session_id: Option<String>,
    pub transcript: Option<String>,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub window: u64,
    pub window_source: Source,
    pub used: Option<u64>,
    pub used_source: UsedSource,
    pub reserve: u64,
    pub compact_at: u64,
    pub flush_at: Option<u64>,
    pub compaction_count: Option<u64>,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
    pub flushed_this_cycle: bool,
    pub status: Status,
    pub flush_reason: String,
    pub total_tokens: Option<Value>,
    pub total_tokens_fresh: Option<Value>,
    pub context_tokens: Option<Value>,
    pub updated_at: Option<i64>,
    pub warnings: Vec<String>,
}

impl SessionRow {
    pub fn from_session(s: &Session, t: &Thresholds, warnings: Vec<String>) -> SessionRow {
        let e = &s.entry;
        SessionRow {
            agent_id: Some(s.agent_id.clone()),
            session_key: Some(s.key.clone()),
            session_id: Some(e.session_id.clone()),
            transcript: s.transcript.as_ref().map(|p| p.display().to_string()),
            model: e.model.clone(),
            model_provider: e.model_provider.clone(),
            total_tokens: e.total_tokens_raw.clone(),
            total_tokens_fresh: e.total_tokens_fresh_raw.clone(),
            context_tokens: e.context_tokens_raw.clone(),
            updated_at: e.updated_at,
            warnings,
            ..Self::numbers(t)
        }
    }

    /// The numeric part; identity fields empty.
    pub fn numbers(t: &Thresholds) -> SessionRow {
        SessionRow {
            agent_id: None,
            session_key: None,
            session_id: None,
            transcript: None,
            model: None,
            model_provider: None,
            window: t.window,
            window_source: t.window_source,
            used: t.used,
            used_source: t.used_source,
            reserve: t.reserve,
            compact_at: t.compact_at,
            flush_at: t.flush_at,
            compaction_count: t.compaction_count,
            memory_flush_at: t.memory_flush_at,
            memory_flush_compaction_count: t.memory_flush_compaction_count,
            flushed_this_cycle: t.flushed_this_cycle,
            status: t.status,
            flush_reason: t.flush_reason.clone(),
            total_tokens: None,
            total_tokens_fresh: None,
            context_tokens: None,
            updated_at: None,
            warnings: Vec::new(),
        }
    }
}
