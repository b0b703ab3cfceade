//! A host reached only through its OpenClaw Gateway (`clawtop --gateway ws://…`, typically the
//! local end of an ssh tunnel): sessions from `sessions.list`, transcripts from `chat.history`,
//! changes pushed by `sessions.changed` ([`crate::gateway::live`]), compaction by the gateway.
//!
//! Order, and why:
//! - The source owns a small tokio runtime; [`SessionSource::list`] and
//!   [`SessionSource::open_transcript`] (the only methods allowed to do I/O) run their request
//!   on it and wait for the answer, so they work the same from a CLI command and from the
//!   TUI's blocking tasks. One connection is kept and reused; a closed one is replaced on the
//!   next call. Every wait is bounded by the client's timeouts: a gateway that never answers
//!   becomes an error, not a hang.
//! - Everything else answers from what the last `list` saw (never blocks the render path).
//! - What the gateway does not expose (docs/openclaw-2026.9.md §8–§9: `compactionCount`,
//!   `memoryFlush`, the text of compaction summaries, the host's config and workspace) is
//!   left unknown and [`SessionSource::not_exposed`] says why; nothing is guessed.

use super::{
    Change, Changes, Listing, Operation, Session, SessionRef, SessionSource, SourceError,
    SourceKind, Watch, Writer,
};
use crate::gateway::{
    DeviceIdentity, GatewayClient, GatewayError, GatewayTarget, SessionRow, Timeouts, identity,
};
use crate::store::StoreEntry;
use crate::thresholds::Rules;
use crate::transcript::Transcript;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

/// Why a figure is unknown through a gateway.
pub const NOT_EXPOSED: &str = "not exposed by the gateway";

/// How many messages one `chat.history` call is asked for (OpenClaw's cap per call).
pub const HISTORY_LIMIT: u32 = 1000;
/// How many messages a transcript read through the gateway holds at most (the newest); the
/// rest is said to be left out. Bounds memory on a huge session.
pub const HISTORY_MAX: usize = 50_000;

pub struct GatewaySource {
    target: GatewayTarget,
    timeouts: Timeouts,
    /// Always `Some` until drop, which shuts it down without blocking (a source may be
    /// dropped on an async thread, where dropping a runtime would panic).
    rt: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
    client: Arc<tokio::sync::Mutex<Option<Arc<GatewayClient>>>>,
    identity: Mutex<Option<Arc<DeviceIdentity>>>,
    /// The rows of the last `list`, by key (writer, changes and lookups answer from these).
    rows: Mutex<HashMap<String, SessionRow>>,
    /// The server version from the last handshake (decides the arithmetic).
    version: Mutex<Option<String>>,
    cancel: tokio_util::sync::CancellationToken,
}

impl GatewaySource {
    pub fn new(target: GatewayTarget) -> Result<GatewaySource, GatewayError> {
        Self::with_timeouts(target, Timeouts::default())
    }

    pub fn with_timeouts(
        target: GatewayTarget,
        timeouts: Timeouts,
    ) -> Result<GatewaySource, GatewayError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("clawtop-gateway")
            .enable_all()
            .build()
            .map_err(GatewayError::Runtime)?;
        Ok(GatewaySource {
            target,
            timeouts,
            handle: rt.handle().clone(),
            rt: Some(rt),
            client: Arc::new(tokio::sync::Mutex::new(None)),
            identity: Mutex::new(None),
            rows: Mutex::new(HashMap::new()),
            version: Mutex::new(None),
            cancel: tokio_util::sync::CancellationToken::new(),
        })
    }

    /// With a given identity (tests; a caller that already loaded it).
    pub fn with_identity(
        target: GatewayTarget,
        timeouts: Timeouts,
        identity: Arc<DeviceIdentity>,
    ) -> Result<GatewaySource, GatewayError> {
        let s = Self::with_timeouts(target, timeouts)?;
        *s.identity.lock().unwrap_or_else(|e| e.into_inner()) = Some(identity);
        Ok(s)
    }

    fn identity(&self) -> Result<Arc<DeviceIdentity>, GatewayError> {
        let mut id = self.identity.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = &*id {
            return Ok(i.clone());
        }
        let dir = identity::config_dir().ok_or(GatewayError::NoConfigDir)?;
        let i = Arc::new(DeviceIdentity::load_or_create(&dir)?);
        *id = Some(i.clone());
        Ok(i)
    }

    /// Runs `f` with a connected client on the source's runtime and waits for it. Works from
    /// any thread that is not one of this runtime's own workers.
    fn call<T, F, Fut>(&self, f: F) -> Result<T, GatewayError>
    where
        T: Send + 'static,
        F: FnOnce(Arc<GatewayClient>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, GatewayError>> + Send,
    {
        let identity = self.identity()?;
        let (tx, rx) = std::sync::mpsc::channel();
        let target = self.target.clone();
        let timeouts = self.timeouts;
        let slot = self.client.clone();
        self.handle.spawn(async move {
            let r = async {
                let client = {
                    let mut guard = slot.lock().await;
                    match &*guard {
                        Some(c) if c.closed_reason().is_none() => c.clone(),
                        _ => {
                            let c = Arc::new(
                                GatewayClient::connect(&target, &identity, timeouts).await?,
                            );
                            *guard = Some(c.clone());
                            c
                        }
                    }
                };
                let version = client.hello().server_version.clone();
                f(client).await.map(|v| (v, version))
            }
            .await;
            let _ = tx.send(r);
        });
        match rx.recv() {
            Ok(Ok((v, version))) => {
                *self.version.lock().unwrap_or_else(|e| e.into_inner()) = version;
                Ok(v)
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(GatewayError::TaskEnded {
                url: self.target.url.clone(),
            }),
        }
    }

    fn reference(&self, r: &SessionRow) -> SessionRef {
        SessionRef {
            source: self.label(),
            agent_id: r.agent_id.clone().unwrap_or_else(|| agent_of(&r.key)),
            key: r.key.clone(),
            session_id: r.session_id.clone().unwrap_or_default(),
        }
    }

    fn session(&self, r: &SessionRow) -> Session {
        let entry = StoreEntry {
            session_id: r.session_id.clone().unwrap_or_default(),
            updated_at: r.updated_at,
            model: r.model.clone(),
            total_tokens_raw: r.total_tokens.map(Value::from),
            total_tokens_fresh_raw: r.total_tokens_fresh.map(Value::from),
            context_tokens_raw: r.context_tokens.map(Value::from),
            // compactionCount and memoryFlush: not sent by the gateway; left unknown.
            ..StoreEntry::default()
        };
        let mut warnings = Vec::new();
        if r.session_id.is_none() {
            warnings.push("the gateway sent no sessionId for this session".to_string());
        }
        Session {
            reference: self.reference(r),
            entry,
            transcript: Some(format!("{} chat.history {}", self.target.url, r.key)),
            transcript_how: "chat.history through the gateway (compaction summaries not included)",
            transcript_unread: None,
            entry_from: Some(format!("{} sessions.list", self.target.url)),
            warnings,
        }
    }
}

impl Drop for GatewaySource {
    fn drop(&mut self) {
        self.cancel.cancel();
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// `agent:<id>:…` → `<id>` (the gateway always sends `agentId`; this is the fallback).
pub(crate) fn agent_of(key: &str) -> String {
    let mut parts = key.splitn(3, ':');
    match (parts.next(), parts.next()) {
        (Some("agent"), Some(id)) => id.to_string(),
        _ => String::new(),
    }
}

/// The `chat.history` messages as transcript entries, oldest first, each linked to the one
/// before. A compaction marker becomes a `compaction` entry without a summary (the gateway
/// does not send it).
pub fn history_entries(session_id: &str, messages: &[Value]) -> Vec<String> {
    let iso = |ms: Option<i64>| {
        ms.and_then(chrono::DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
    };
    let first_ts = messages
        .first()
        .and_then(|m| m.get("timestamp"))
        .and_then(Value::as_i64);
    let mut out = vec![
        json!({"type":"session","version":3,"id":session_id,"timestamp":iso(first_ts)}).to_string(),
    ];
    let mut parent: Option<String> = None;
    for (i, m) in messages.iter().enumerate() {
        let meta = m.get("__openclaw").cloned().unwrap_or(Value::Null);
        let id = meta
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("gateway-{}", i + 1));
        let ts = iso(m.get("timestamp").and_then(Value::as_i64));
        let entry = if meta.get("kind").and_then(Value::as_str) == Some("compaction") {
            let mut e = json!({"type":"compaction","id":id,"parentId":parent,"timestamp":ts});
            for k in ["tokensBefore", "tokensAfter"] {
                if let Some(v) = meta.get(k) {
                    e[k] = v.clone();
                }
            }
            e
        } else {
            let mut msg = m.clone();
            if let Some(o) = msg.as_object_mut() {
                o.remove("__openclaw");
            }
            json!({"type":"message","id":id,"parentId":parent,"timestamp":ts,"message":msg})
        };
        out.push(entry.to_string());
        parent = Some(id);
    }
    out
}

impl SessionSource for GatewaySource {
    fn kind(&self) -> SourceKind {
        SourceKind::Gateway
    }

    fn label(&self) -> String {
        self.target.url.clone()
    }

    fn warnings(&self) -> Vec<String> {
        vec![format!(
            "through the gateway at {}: compaction counts, memory-flush state and compaction summaries are {NOT_EXPOSED} (shown as unknown); the host's config is not readable, so reserve and flush lines use OpenClaw's defaults",
            self.target.url
        )]
    }

    fn not_exposed(&self) -> Vec<(&'static str, String)> {
        vec![
            ("compactionCount", NOT_EXPOSED.to_string()),
            ("memoryFlush", NOT_EXPOSED.to_string()),
            ("compactionSummary", NOT_EXPOSED.to_string()),
            (
                "flushAt",
                format!("the host's memoryFlush settings (softThresholdTokens) are {NOT_EXPOSED}"),
            ),
        ]
    }

    fn has_agent(&self, agent: &str) -> bool {
        if self
            .rows
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
        {
            // Not listed yet: list (network) so an unknown agent is an error, not an empty list.
            let listed = self.list(None);
            if !listed.errors.is_empty() {
                // Unreachable or refused: let the command's own list call report that.
                return true;
            }
        }
        let known = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        known.values().any(|r| self.reference(r).agent_id == agent)
    }

    fn list(&self, agent: Option<&str>) -> Listing {
        let rows = match self.call(|c| async move { c.sessions_list().await }) {
            Ok(rows) => rows,
            Err(e) => {
                return Listing {
                    errors: vec![crate::sanitize::one_line(&e.to_string())],
                    ..Listing::default()
                };
            }
        };
        let mut out = Listing::default();
        {
            let mut known = self.rows.lock().unwrap_or_else(|e| e.into_inner());
            known.clear();
            for r in &rows {
                known.insert(r.key.clone(), r.clone());
            }
        }
        for r in &rows {
            let s = self.session(r);
            if agent.is_some_and(|a| a != s.reference.agent_id) {
                continue;
            }
            out.sessions.push(s);
        }
        out
    }

    fn open_transcript(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        let key = r.key.clone();
        let h = self
            .call(
                move |c| async move { c.chat_history_all(&key, HISTORY_LIMIT, HISTORY_MAX).await },
            )
            .map_err(|e| SourceError::Unavailable(crate::sanitize::one_line(&e.to_string())))?;
        let sid = h.session_id.clone().unwrap_or_else(|| r.session_id.clone());
        let label = format!("{} chat.history {}", self.target.url, r.key);
        let mut t = Transcript::from_entries(label, history_entries(&sid, &h.messages));
        if h.has_more {
            t.warnings.push(crate::transcript::Warning {
                line: 0,
                message: format!(
                    "only the newest {} of {} messages are shown (clawtop reads at most {HISTORY_MAX} messages and {} MiB through the gateway)",
                    h.messages.len(),
                    h.total_messages
                        .map_or_else(|| "more".to_string(), |n| n.to_string()),
                    crate::gateway::ops::PAGED_MAX_BYTES / (1024 * 1024)
                ),
            });
        }
        Ok(t)
    }

    fn changes(&self, _what: Watch<'_>) -> Changes {
        Changes::Pushed
    }

    fn subscribe(&self, on_change: Box<dyn Fn(Change) + Send + Sync>) -> bool {
        let Ok(identity) = self.identity() else {
            return false;
        };
        let source = self.label();
        let target = self.target.clone();
        let timeouts = self.timeouts;
        let cancel = self.cancel.child_token();
        let rows: HashMap<String, SessionRow> =
            self.rows.lock().unwrap_or_else(|e| e.into_inner()).clone();
        self.handle.spawn(async move {
            use crate::gateway::live::{self, Backoff, LiveEvent};
            let mut rx = live::watch(target, identity, timeouts, Backoff::default(), cancel);
            while let Some(ev) = rx.recv().await {
                match &ev {
                    LiveEvent::Connected { .. } => on_change(Change::Live(true)),
                    LiveEvent::Disconnected { .. } | LiveEvent::Failed { .. } => {
                        on_change(Change::Live(false))
                    }
                    LiveEvent::SessionChanged { .. } => {}
                }
                if let LiveEvent::SessionChanged { key, .. } = ev {
                    on_change(Change::Sessions);
                    if let Some(k) = key {
                        let r = rows.get(&k);
                        on_change(Change::Transcript(SessionRef {
                            source: source.clone(),
                            agent_id: r
                                .and_then(|r| r.agent_id.clone())
                                .unwrap_or_else(|| agent_of(&k)),
                            session_id: r.and_then(|r| r.session_id.clone()).unwrap_or_default(),
                            key: k,
                        }));
                    }
                }
            }
        });
        true
    }

    fn writer(&self, _r: &SessionRef, op: Operation) -> Writer {
        match op {
            Operation::Compact => Writer::Remote(Box::new(super::RemoteWriter {
                via: format!("the gateway at {}", self.target.url),
                note: "OpenClaw writes the summary with its own model (your instructions become its focus text); there is no preview to edit".into(),
                target: self.target.clone(),
            })),
            Operation::Flush => Writer::ReadOnly(format!(
                "no memory flush through the gateway at {}: a flush writes notes into the agent's workspace, which is not reachable over a tunnel, and OpenClaw has no flush request",
                self.target.url
            )),
        }
    }

    fn config(&self) -> &Value {
        &Value::Null
    }

    fn config_label(&self) -> String {
        format!("config ({NOT_EXPOSED})")
    }

    fn models_json(&self, _agent: &str) -> Option<(String, Value)> {
        None
    }

    fn transcripts_decide_used(&self) -> bool {
        false
    }

    fn rules(&self) -> (Rules, Option<String>) {
        let v = self
            .version
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        crate::thresholds::Rules::for_sqlite_host(v.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_becomes_linked_entries_and_compaction_has_no_summary() {
        let msgs = vec![
            json!({"role":"user","content":"hi","timestamp":1795457032000i64,"__openclaw":{"id":"u1","seq":1}}),
            json!({"role":"system","content":[{"type":"text","text":"Compaction"}],"timestamp":1795457032079i64,
                   "__openclaw":{"kind":"compaction","id":"c1","tokensBefore":37946,"tokensAfter":15042,"seq":2}}),
            json!({"role":"assistant","content":[{"type":"text","text":"ok"}],"__openclaw":{"id":"a1","seq":3}}),
        ];
        let e: Vec<Value> = history_entries("sid", &msgs)
            .iter()
            .map(|s| serde_json::from_str(s).unwrap())
            .collect();
        assert_eq!(e[0]["type"], "session");
        assert_eq!(e[1]["type"], "message");
        assert_eq!(e[1]["message"]["content"], "hi");
        assert!(e[1]["message"].get("__openclaw").is_none());
        assert_eq!(e[2]["type"], "compaction");
        assert_eq!(e[2]["parentId"], "u1");
        assert_eq!(e[2]["tokensBefore"], 37946);
        assert!(e[2].get("summary").is_none());
        assert_eq!(e[3]["parentId"], "c1");
        let t = Transcript::from_entries("x", history_entries("sid", &msgs));
        assert!(t.header.is_some(), "the session line is the header");
        assert_eq!(t.entries.len(), 3);
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn agent_from_key() {
        assert_eq!(agent_of("agent:ops:main"), "ops");
        assert_eq!(agent_of("main"), "");
    }
}
