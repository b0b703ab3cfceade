//! One WebSocket connection to an OpenClaw gateway: the challenge/connect handshake, then
//! request/response by id and a stream of events (docs/openclaw-2026.9.md §7).
//!
//! Order of a connection, and why:
//! 1. TCP + WebSocket upgrade, bounded by `Timeouts::connect`.
//! 2. The server speaks first (`connect.challenge` with a nonce and its clock `ts`). clawtop
//!    signs the v3 payload with its own device key, using the server's `ts` as `signedAt`, so a
//!    skewed local clock does not matter; the whole handshake is bounded by
//!    `Timeouts::handshake`, and a close, a malformed frame or silence each end it with an error
//!    that says what to do.
//! 3. After `hello-ok`, one reader task owns the read half: responses go to the waiting request
//!    (matched by id; a second response with the same id, which `agent` sends, is dropped),
//!    events go to every [`GatewayClient::events`] receiver. A malformed frame or 2 × the
//!    server's tick interval of silence closes the connection, and every waiting request fails
//!    at once with the reason instead of waiting for its own timeout.
//!
//! The token is sent only inside the `connect` frame; it is kept as a [`Secret`] and scrubbed
//! from every message built from server text.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{broadcast, oneshot, watch};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::error::{GatewayError, from_error_object, untrusted};
use super::identity::{DeviceIdentity, v3_payload};
use super::target::GatewayTarget;
use crate::llm::Secret;

/// The gateway protocol clawtop speaks (2026.9.6 accepts 4..4 and rejects 3..3).
pub const PROTOCOL: u32 = 4;
/// The largest single frame or message clawtop accepts from a gateway. OpenClaw's own
/// `policy.maxPayload` is 25 MiB; a larger reply is refused by the WebSocket layer as it
/// arrives, before it is held whole.
pub const REPLY_MAX_BYTES: usize = 32 * 1024 * 1024;

/// `client.id` / `client.mode`: a device-bearing `cli` client keeps the operator scopes it asks
/// for on loopback with the shared token (reference §7).
pub const CLIENT_ID: &str = "cli";
pub const CLIENT_MODE: &str = "cli";
pub const ROLE: &str = "operator";
/// read: lists and history; write: `/compact` through `chat.send`; admin: `sessions.compact`.
pub const SCOPES: [&str; 3] = ["operator.read", "operator.write", "operator.admin"];

type Ws = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    pub handshake: Duration,
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            handshake: Duration::from_secs(15),
            request: Duration::from_secs(60),
        }
    }
}

/// What `hello-ok` told us.
#[derive(Debug, Clone)]
pub struct Hello {
    pub protocol: u64,
    pub server_version: Option<String>,
    pub scopes: Vec<String>,
    pub methods: Vec<String>,
    pub tick_interval: Duration,
    /// `snapshot.stateDir` / `configPath`: which host this gateway serves.
    pub state_dir: Option<String>,
    pub config_path: Option<String>,
}

/// A server-pushed event.
#[derive(Debug, Clone)]
pub struct GatewayEvent {
    pub event: String,
    pub payload: Value,
}

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>;

pub struct GatewayClient {
    url: String,
    token: Option<Secret>,
    device_id: String,
    hello: Hello,
    timeouts: Timeouts,
    sink: tokio::sync::Mutex<SplitSink<Ws, Message>>,
    pending: Pending,
    events: broadcast::Sender<GatewayEvent>,
    closed: watch::Receiver<Option<String>>,
    next_id: AtomicU64,
    reader: JoinHandle<()>,
    /// Bytes of text frames read since the handshake: what a paged read bounds itself by.
    received: Arc<AtomicU64>,
    /// The caller has seen for itself that no run is active (OpenClaw's transcript lock is
    /// free on a file-backed host); used only where the gateway does not say.
    idle_vouched: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for GatewayClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayClient")
            .field("url", &self.url)
            .field("device_id", &self.device_id)
            .finish_non_exhaustive()
    }
}

impl Drop for GatewayClient {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl GatewayClient {
    /// Connects, answers the challenge and returns a ready client.
    pub async fn connect(
        target: &GatewayTarget,
        identity: &DeviceIdentity,
        timeouts: Timeouts,
    ) -> Result<GatewayClient, GatewayError> {
        let url = target.url.clone();
        let token = target.token.clone();
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(REPLY_MAX_BYTES))
            .max_frame_size(Some(REPLY_MAX_BYTES));
        let connecting = tokio_tungstenite::connect_async_with_config(&url, Some(config), false);
        let (ws, _response) = match tokio::time::timeout(timeouts.connect, connecting).await {
            Err(_) => {
                return Err(GatewayError::Timeout {
                    url,
                    what: "accept the WebSocket connection".into(),
                    after: timeouts.connect,
                });
            }
            Ok(Err(e)) => {
                return Err(GatewayError::Unreachable {
                    url,
                    cause: connect_cause(&e),
                });
            }
            Ok(Ok(ok)) => ok,
        };
        let (mut sink, mut stream) = ws.split();
        let handshake = handshake(&mut sink, &mut stream, &url, token.as_ref(), identity);
        let hello = match tokio::time::timeout(timeouts.handshake, handshake).await {
            Err(_) => {
                return Err(GatewayError::Timeout {
                    url,
                    what: "complete the handshake".into(),
                    after: timeouts.handshake,
                });
            }
            Ok(r) => r?,
        };
        let pending: Pending = Arc::default();
        let (events, _) = broadcast::channel(1024);
        let (closed_tx, closed) = watch::channel(None);
        // The server ticks every tickIntervalMs; two missed ticks mean it is gone.
        let silence = hello.tick_interval * 2 + Duration::from_secs(5);
        let received = Arc::new(AtomicU64::new(0));
        let reader = tokio::spawn(read_loop(
            stream,
            pending.clone(),
            events.clone(),
            closed_tx,
            silence,
            token.clone(),
            received.clone(),
        ));
        tracing::debug!(url = %url, device = %identity.device_id(), server = ?hello.server_version, "gateway connected");
        Ok(GatewayClient {
            url,
            token,
            device_id: identity.device_id().to_string(),
            hello,
            timeouts,
            sink: tokio::sync::Mutex::new(sink),
            pending,
            events,
            closed,
            next_id: AtomicU64::new(1),
            idle_vouched: std::sync::atomic::AtomicBool::new(false),
            received,
            reader,
        })
    }

    /// Says that the caller itself saw no active run on the sessions it will compact (a
    /// file-backed host whose OpenClaw transcript lock is free): used when the gateway does not
    /// report runs (before 2026.9). A gateway that does report them is still asked.
    pub fn vouch_idle(&self) {
        self.idle_vouched
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn idle_vouched(&self) -> bool {
        self.idle_vouched.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Bytes of text frames received since the handshake (responses and events).
    pub fn received_bytes(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }

    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// A new receiver of every event from now on.
    pub fn events(&self) -> broadcast::Receiver<GatewayEvent> {
        self.events.subscribe()
    }

    /// `Some(reason)` once the connection is gone.
    pub fn closed_reason(&self) -> Option<String> {
        self.closed.borrow().clone()
    }

    /// Resolves when the connection is gone, with the reason.
    pub async fn closed(&self) -> String {
        let mut rx = self.closed.clone();
        loop {
            if let Some(r) = rx.borrow_and_update().clone() {
                return r;
            }
            if rx.changed().await.is_err() {
                return "the connection ended".into();
            }
        }
    }

    /// Sends `method` and waits for its response (bounded by `Timeouts::request`).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, GatewayError> {
        self.request_with_timeout(method, params, self.timeouts.request)
            .await
    }

    pub async fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, GatewayError> {
        if let Some(reason) = self.closed_reason() {
            return Err(GatewayError::Disconnected { reason });
        }
        let id = format!("ct-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id.clone(), tx);
        let frame = json!({"type": "req", "id": id, "method": method, "params": params});
        let sent = self
            .sink
            .lock()
            .await
            .send(Message::text(frame.to_string()))
            .await;
        if let Err(e) = sent {
            self.pending.lock().unwrap().remove(&id);
            return Err(GatewayError::Disconnected {
                reason: format!(
                    "sending {method} failed: {}",
                    untrusted(&e.to_string(), None)
                ),
            });
        }
        let res = match tokio::time::timeout(timeout, rx).await {
            Err(_) => {
                self.pending.lock().unwrap().remove(&id);
                return Err(GatewayError::Timeout {
                    url: self.url.clone(),
                    what: format!("answer {method}"),
                    after: timeout,
                });
            }
            Ok(Err(_)) => {
                return Err(GatewayError::Disconnected {
                    reason: self
                        .closed_reason()
                        .unwrap_or_else(|| "the connection ended".into()),
                });
            }
            Ok(Ok(res)) => res,
        };
        if res.get("ok").and_then(Value::as_bool) == Some(true) {
            Ok(res.get("payload").cloned().unwrap_or(Value::Null))
        } else {
            let err = res.get("error").cloned().unwrap_or(Value::Null);
            Err(from_error_object(
                &err,
                method,
                &self.device_id,
                self.token.as_ref(),
            ))
        }
    }

    /// Closes the connection politely.
    pub async fn close(&self) {
        let _ = self.sink.lock().await.close().await;
    }
}

fn connect_cause(e: &tokio_tungstenite::tungstenite::Error) -> String {
    use tokio_tungstenite::tungstenite::Error as E;
    match e {
        E::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused".into()
        }
        E::Io(io) => untrusted(&io.to_string(), None),
        E::Http(resp) => format!("not a WebSocket endpoint (HTTP {})", resp.status().as_u16()),
        other => untrusted(&other.to_string(), None),
    }
}

async fn handshake(
    sink: &mut SplitSink<Ws, Message>,
    stream: &mut SplitStream<Ws>,
    url: &str,
    token: Option<&Secret>,
    identity: &DeviceIdentity,
) -> Result<Hello, GatewayError> {
    let malformed = |detail: String| GatewayError::Malformed {
        url: url.to_string(),
        detail,
    };
    // 1. The challenge. Other events before it are ignored.
    let (nonce, ts) = loop {
        let frame = next_frame(stream, url, token).await?;
        if frame.get("type").and_then(Value::as_str) != Some("event") {
            continue;
        }
        if frame.get("event").and_then(Value::as_str) != Some("connect.challenge") {
            continue;
        }
        let p = frame.get("payload").cloned().unwrap_or(Value::Null);
        let nonce = p
            .get("nonce")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| malformed("connect.challenge without a nonce".into()))?
            .to_string();
        let ts = p
            .get("ts")
            .and_then(Value::as_i64)
            .filter(|t| *t >= 0)
            .ok_or_else(|| {
                malformed("connect.challenge without a non-negative integer ts".into())
            })?;
        break (nonce, ts);
    };
    // 2. connect, signed over the v3 payload.
    let scopes: Vec<String> = SCOPES.iter().map(|s| s.to_string()).collect();
    let platform = std::env::consts::OS;
    let payload = v3_payload(
        identity.device_id(),
        CLIENT_ID,
        CLIENT_MODE,
        ROLE,
        &scopes,
        ts,
        token.map(Secret::expose).unwrap_or(""),
        &nonce,
        platform,
        "",
    );
    let mut params = json!({
        "minProtocol": PROTOCOL,
        "maxProtocol": PROTOCOL,
        "client": {
            "id": CLIENT_ID,
            "version": env!("CARGO_PKG_VERSION"),
            "platform": platform,
            "mode": CLIENT_MODE,
            "displayName": "clawtop",
        },
        "role": ROLE,
        "scopes": scopes,
        "caps": [],
        "device": {
            "id": identity.device_id(),
            "publicKey": identity.public_key_b64url(),
            "signature": identity.sign(&payload),
            "signedAt": ts,
            "nonce": nonce,
        },
        "locale": "en-US",
        "userAgent": concat!("clawtop/", env!("CARGO_PKG_VERSION")),
    });
    if let Some(t) = token {
        params["auth"] = json!({"token": t.expose()});
    }
    let req = json!({"type": "req", "id": "connect", "method": "connect", "params": params});
    sink.send(Message::text(req.to_string()))
        .await
        .map_err(|e| GatewayError::ClosedDuringHandshake {
            url: url.to_string(),
            code: None,
            reason: untrusted(&e.to_string(), token),
        })?;
    // 3. hello-ok or the reason why not.
    let res = loop {
        let frame = next_frame(stream, url, token).await?;
        if frame.get("type").and_then(Value::as_str) == Some("res")
            && frame.get("id").and_then(Value::as_str) == Some("connect")
        {
            break frame;
        }
    };
    if res.get("ok").and_then(Value::as_bool) != Some(true) {
        let err = res.get("error").cloned().unwrap_or(Value::Null);
        return Err(from_error_object(
            &err,
            "connect",
            identity.device_id(),
            token,
        ));
    }
    let p = res.get("payload").cloned().unwrap_or(Value::Null);
    if p.get("type").and_then(Value::as_str) != Some("hello-ok") {
        return Err(malformed("connect answered without hello-ok".into()));
    }
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let tick_ms = p
        .pointer("/policy/tickIntervalMs")
        .and_then(Value::as_u64)
        .filter(|t| (1_000..=600_000).contains(t))
        .unwrap_or(30_000);
    let text = |ptr: &str| {
        p.pointer(ptr)
            .and_then(Value::as_str)
            .map(|s| untrusted(s, token))
    };
    Ok(Hello {
        protocol: p.get("protocol").and_then(Value::as_u64).unwrap_or(0),
        server_version: text("/server/version"),
        scopes: strings(p.pointer("/auth/scopes")),
        methods: strings(p.pointer("/features/methods")),
        tick_interval: Duration::from_millis(tick_ms),
        state_dir: text("/snapshot/stateDir"),
        config_path: text("/snapshot/configPath"),
    })
}

/// The next JSON text frame during the handshake.
async fn next_frame(
    stream: &mut SplitStream<Ws>,
    url: &str,
    token: Option<&Secret>,
) -> Result<Value, GatewayError> {
    loop {
        let msg = match stream.next().await {
            None => {
                return Err(GatewayError::ClosedDuringHandshake {
                    url: url.to_string(),
                    code: None,
                    reason: String::new(),
                });
            }
            Some(Err(e)) => {
                return Err(GatewayError::ClosedDuringHandshake {
                    url: url.to_string(),
                    code: None,
                    reason: untrusted(&e.to_string(), token),
                });
            }
            Some(Ok(m)) => m,
        };
        match msg {
            Message::Text(t) => {
                return parse_frame(t.as_str()).map_err(|e| GatewayError::Malformed {
                    url: url.to_string(),
                    detail: e.to_string(),
                });
            }
            Message::Close(frame) => {
                let (code, reason) = match frame {
                    Some(f) => (Some(u16::from(f.code)), untrusted(f.reason.as_str(), token)),
                    None => (None, String::new()),
                };
                return Err(GatewayError::ClosedDuringHandshake {
                    url: url.to_string(),
                    code,
                    reason,
                });
            }
            Message::Binary(_) => {
                return Err(GatewayError::Malformed {
                    url: url.to_string(),
                    detail: "a binary frame where JSON text was expected".into(),
                });
            }
            // Pings are answered by tungstenite itself.
            _ => continue,
        }
    }
}

/// Why a frame from the gateway cannot be read. Its texts are neutralised (a frame is
/// untrusted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum FrameError {
    #[error("not JSON: {error}; it starts with {head:?}")]
    NotJson { error: String, head: String },
    #[error("unknown frame type {0:?}")]
    UnknownType(String),
    #[error("a JSON frame without a type")]
    NoType,
    #[error("a response without an id")]
    ResponseWithoutId,
}

/// A frame must be a JSON object with a string `type`.
fn parse_frame(text: &str) -> Result<Value, FrameError> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        let head: String = text.chars().take(40).collect();
        FrameError::NotJson {
            error: e.to_string(),
            head: crate::sanitize::one_line(&head),
        }
    })?;
    match v.get("type").and_then(Value::as_str) {
        Some("req" | "res" | "event") => {}
        Some(other) => return Err(FrameError::UnknownType(crate::sanitize::one_line(other))),
        None => return Err(FrameError::NoType),
    }
    if v.get("type").and_then(Value::as_str) == Some("res")
        && !v.get("id").is_some_and(Value::is_string)
    {
        return Err(FrameError::ResponseWithoutId);
    }
    Ok(v)
}

async fn read_loop(
    mut stream: SplitStream<Ws>,
    pending: Pending,
    events: broadcast::Sender<GatewayEvent>,
    closed: watch::Sender<Option<String>>,
    silence: Duration,
    token: Option<Secret>,
    received: Arc<AtomicU64>,
) {
    use tokio_tungstenite::tungstenite::Error as WsError;
    use tokio_tungstenite::tungstenite::error::CapacityError;
    let reason = loop {
        let msg = match tokio::time::timeout(silence, stream.next()).await {
            Err(_) => break format!("the gateway sent nothing for {}s", silence.as_secs()),
            Ok(None) => break "the gateway closed the connection".to_string(),
            Ok(Some(Err(WsError::Capacity(CapacityError::MessageTooLong { size, .. })))) => {
                break format!(
                    "the gateway sent a message of {size} bytes, over clawtop's limit of {} MiB for one reply",
                    REPLY_MAX_BYTES / (1024 * 1024)
                );
            }
            Ok(Some(Err(e))) => break untrusted(&e.to_string(), token.as_ref()),
            Ok(Some(Ok(m))) => m,
        };
        let text = match msg {
            Message::Text(t) => {
                received.fetch_add(t.len() as u64, Ordering::Relaxed);
                t
            }
            Message::Close(f) => {
                break match f {
                    Some(f) => format!(
                        "the gateway closed the connection ({}{})",
                        u16::from(f.code),
                        if f.reason.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", untrusted(f.reason.as_str(), token.as_ref()))
                        }
                    ),
                    None => "the gateway closed the connection".to_string(),
                };
            }
            Message::Binary(_) => {
                break "the gateway sent a binary frame where JSON text was expected".into();
            }
            _ => continue,
        };
        let frame = match parse_frame(text.as_str()) {
            Ok(f) => f,
            Err(detail) => {
                break format!("the gateway sent a frame clawtop cannot read ({detail})");
            }
        };
        match frame.get("type").and_then(Value::as_str) {
            Some("res") => {
                let id = frame.get("id").and_then(Value::as_str).unwrap_or("");
                if let Some(tx) = pending.lock().unwrap().remove(id) {
                    let _ = tx.send(frame);
                }
            }
            Some("event") => {
                let event = frame
                    .get("event")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let payload = frame.get("payload").cloned().unwrap_or(Value::Null);
                let _ = events.send(GatewayEvent { event, payload });
            }
            _ => {}
        }
    };
    tracing::debug!(%reason, "gateway connection ended");
    let _ = closed.send(Some(reason));
    // Dropping the senders fails every waiting request at once.
    pending.lock().unwrap().clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_checked() {
        assert!(parse_frame("{\"type\":\"event\",\"event\":\"tick\"}").is_ok());
        assert!(matches!(
            parse_frame("nope"),
            Err(FrameError::NotJson { head, .. }) if head == "nope"
        ));
        assert_eq!(parse_frame("[1]"), Err(FrameError::NoType));
        assert_eq!(
            parse_frame("{\"type\":\"res\",\"ok\":true}"),
            Err(FrameError::ResponseWithoutId)
        );
        assert!(
            parse_frame("{\"type\":\"\u{1b}[31m\"}")
                .unwrap_err()
                .to_string()
                .contains('␛')
        );
    }
}
