//! A scripted fake model server for tests: speaks `anthropic-messages`
//! (`POST …/messages`) and `openai-completions` (`POST …/chat/completions`), streamed
//! (SSE) or as plain JSON, on 127.0.0.1 with an ephemeral port.
//!
//! ```ignore
//! let fake = FakeModel::start().await;
//! fake.push(Reply::status(529, "overloaded"));
//! fake.push(Reply::text("the summary"));
//! let ep = fake.endpoint(Api::AnthropicMessages);
//! // … call clawtop::llm::complete(&ep, …) …
//! assert_eq!(fake.requests().len(), 2);
//! ```
//!
//! Each request takes the next scripted [`Reply`]; with none left it gets the fallback reply
//! if one is set, else a 500 that
//! says so. Every request is recorded. A minimal HTTP/1.1 responder (one request per
//! connection, `connection: close`) is enough here and keeps the fake free of server
//! dependencies. Dropping the [`FakeModel`] stops the server and all its connections.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawtop::llm::{Api, MaxTokensField, ModelEndpoint, Secret};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};

/// The key [`FakeModel::endpoint`] puts in endpoints; tests assert it never leaks.
pub const FAKE_KEY: &str = "sk-fake-SECRET-key-0123456789";

const MAX_CONNECTIONS: usize = 32;
const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 16 * 1024 * 1024;

/// One request as the fake saw it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Lower-cased names, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Value::Null` if it was not JSON).
    pub body: Value,
    pub raw_body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The wire dialect of a request, from its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Anthropic,
    OpenAi,
}

#[derive(Clone, Debug)]
enum Kind {
    /// Streamed answer (SSE) in the request's dialect.
    Stream {
        text: String,
        thinking: Option<String>,
        stop: Option<String>,
        usage: (u64, u64),
    },
    /// Non-streamed JSON answer in the request's dialect, whatever `stream` said.
    Json {
        text: String,
        stop: Option<String>,
        content_type: &'static str,
    },
    /// An error status with the dialect's error JSON.
    Error {
        status: u16,
        kind: String,
        message: String,
    },
    /// Any status with a literal body.
    Raw {
        status: u16,
        content_type: Option<String>,
        body: String,
    },
    /// Start streaming the answer, then drop the connection mid-body.
    CutOff { text: String },
    /// Literal SSE frames (each already ending in a blank line), one per chunk.
    Frames(Vec<String>),
}

/// A scripted reply; see the constructors. Delays and headers are added with builders.
#[derive(Clone, Debug)]
pub struct Reply {
    kind: Kind,
    first_byte_delay: Duration,
    chunk_delay: Duration,
    headers: Vec<(String, String)>,
}

impl Reply {
    fn new(kind: Kind) -> Self {
        Reply {
            kind,
            first_byte_delay: Duration::ZERO,
            chunk_delay: Duration::ZERO,
            headers: vec![],
        }
    }
    /// A streamed answer: text split into word deltas, normal stop, usage 100 in / 20 out.
    pub fn text(text: &str) -> Self {
        Self::new(Kind::Stream {
            text: text.into(),
            thinking: None,
            stop: None,
            usage: (100, 20),
        })
    }
    /// A plain JSON answer with `content-type: application/json`.
    pub fn json(text: &str) -> Self {
        Self::new(Kind::Json {
            text: text.into(),
            stop: None,
            content_type: "application/json",
        })
    }
    /// A plain JSON answer without a content type (the client must sniff it).
    pub fn json_untyped(text: &str) -> Self {
        Self::new(Kind::Json {
            text: text.into(),
            stop: None,
            content_type: "",
        })
    }
    /// An error status with the dialect's error JSON, e.g. `Reply::error(401, "authentication_error", "invalid x-api-key")`.
    pub fn error(status: u16, kind: &str, message: &str) -> Self {
        Self::new(Kind::Error {
            status,
            kind: kind.into(),
            message: message.into(),
        })
    }
    /// A status with a literal body (`text/plain`).
    pub fn status(status: u16, body: &str) -> Self {
        Self::new(Kind::Raw {
            status,
            content_type: Some("text/plain".into()),
            body: body.into(),
        })
    }
    /// Any status, content type (None = no header) and body.
    pub fn raw(status: u16, content_type: Option<&str>, body: &str) -> Self {
        Self::new(Kind::Raw {
            status,
            content_type: content_type.map(str::to_string),
            body: body.into(),
        })
    }
    /// 200 `text/event-stream` whose body is not an event stream.
    pub fn garbage() -> Self {
        Self::raw(
            200,
            Some("text/event-stream"),
            "<html>\r\nthis is not\0 an event stream {{{\n\n\u{1}\u{2}\n",
        )
    }
    /// Streams the first half of the answer's events, then closes the connection.
    pub fn cut_off(text: &str) -> Self {
        Self::new(Kind::CutOff { text: text.into() })
    }
    /// Literal SSE frames, e.g. `"event: error\ndata: {…}\n\n"`.
    pub fn frames(frames: &[&str]) -> Self {
        Self::new(Kind::Frames(frames.iter().map(|f| f.to_string()).collect()))
    }
    /// Wait this long before sending anything.
    pub fn delay_first(mut self, d: Duration) -> Self {
        self.first_byte_delay = d;
        self
    }
    /// Wait this long between streamed chunks.
    pub fn delay_chunks(mut self, d: Duration) -> Self {
        self.chunk_delay = d;
        self
    }
    /// Extra response header (e.g. `retry-after`).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
    /// Stop reason to report (default: `end_turn` / `stop`).
    pub fn stop(mut self, reason: &str) -> Self {
        match &mut self.kind {
            Kind::Stream { stop, .. } | Kind::Json { stop, .. } => *stop = Some(reason.into()),
            _ => {}
        }
        self
    }
    /// Thinking text streamed before the answer.
    pub fn thinking(mut self, t: &str) -> Self {
        if let Kind::Stream { thinking, .. } = &mut self.kind {
            *thinking = Some(t.into());
        }
        self
    }
    /// Reported usage (input, output).
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        if let Kind::Stream { usage, .. } = &mut self.kind {
            *usage = (input, output);
        }
        self
    }
}

#[derive(Default)]
struct State {
    script: Mutex<VecDeque<Reply>>,
    /// Answers every request once the script is empty (see [`FakeModel::set_fallback`]).
    fallback: Mutex<Option<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
}

/// The running fake. Stops when dropped.
pub struct FakeModel {
    addr: SocketAddr,
    state: Arc<State>,
    server: JoinHandle<()>,
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        // Aborting the accept task drops its JoinSet, which aborts every connection.
        self.server.abort();
    }
}

impl FakeModel {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind fake model server");
        let addr = listener.local_addr().expect("fake server address");
        let state = Arc::new(State::default());
        let server = tokio::spawn(serve(listener, state.clone()));
        FakeModel {
            addr,
            state,
            server,
        }
    }

    /// `http://127.0.0.1:<port>`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queue a reply for the next unanswered request.
    pub fn push(&self, reply: Reply) -> &Self {
        self.state.script.lock().unwrap().push_back(reply);
        self
    }

    /// The reply for every request that finds the script empty (instead of a 500). For
    /// servers like a real OpenClaw gateway that decide themselves how many calls to make.
    pub fn set_fallback(&self, reply: Reply) -> &Self {
        *self.state.fallback.lock().unwrap() = Some(reply);
        self
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests.lock().unwrap().clone()
    }

    /// An endpoint for this server with key [`FAKE_KEY`] (base URL with `/v1` for
    /// OpenAI, as OpenAI-compatible configs write it).
    pub fn endpoint(&self, api: Api) -> ModelEndpoint {
        let base_url = match api {
            Api::AnthropicMessages => self.base_url(),
            Api::OpenAiCompletions => format!("{}/v1", self.base_url()),
        };
        ModelEndpoint {
            provider: "fake".into(),
            model: "fake-model-1".into(),
            api,
            base_url,
            api_key: Some(Secret::new(FAKE_KEY)),
            headers: vec![],
            reasoning: false,
            context_window: Some(200_000),
            max_tokens: None,
            max_tokens_field: MaxTokensField::MaxTokens,
            key_source: "test".into(),
        }
    }
}

async fn serve(listener: TcpListener, state: Arc<State>) {
    let limit = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut connections = JoinSet::new();
    loop {
        let Ok(permit) = limit.clone().acquire_owned().await else {
            return;
        };
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = state.clone();
        connections.spawn(async move {
            let _permit = permit;
            let _ = handle(stream, state).await;
        });
        // Reap finished connections so the set stays small.
        while connections.try_join_next().is_some() {}
    }
}

async fn handle(mut stream: TcpStream, state: Arc<State>) -> std::io::Result<()> {
    let Some(req) = read_request(&mut stream).await? else {
        return Ok(());
    };
    // A proxy's `?key=…` query does not change the dialect.
    let path = req.path.split('?').next().unwrap_or("");
    let dialect = if path.ends_with("/messages") {
        Some(Dialect::Anthropic)
    } else if path.ends_with("/chat/completions") {
        Some(Dialect::OpenAi)
    } else {
        None
    };
    let model = req
        .body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("fake")
        .to_string();
    state.requests.lock().unwrap().push(req);
    let Some(dialect) = dialect else {
        return write_plain(
            &mut stream,
            404,
            Some("text/plain"),
            &[],
            "fake model: unknown path",
        )
        .await;
    };
    let scripted = state.script.lock().unwrap().pop_front();
    let reply = scripted.or_else(|| state.fallback.lock().unwrap().clone());
    let Some(reply) = reply else {
        return write_plain(
            &mut stream,
            500,
            Some("text/plain"),
            &[],
            "fake model: no reply scripted",
        )
        .await;
    };
    tokio::time::sleep(reply.first_byte_delay).await;
    match &reply.kind {
        Kind::Stream {
            text,
            thinking,
            stop,
            usage,
        } => {
            let frames = stream_frames(
                dialect,
                &model,
                text,
                thinking.as_deref(),
                stop.as_deref(),
                *usage,
            );
            write_stream(&mut stream, &reply, &frames, true).await
        }
        Kind::CutOff { text } => {
            let frames = stream_frames(dialect, &model, text, None, None, (100, 20));
            let half = &frames[..(frames.len() / 2).max(2)];
            write_stream(&mut stream, &reply, half, false).await
        }
        Kind::Frames(frames) => write_stream(&mut stream, &reply, frames, true).await,
        Kind::Json {
            text,
            stop,
            content_type,
        } => {
            let body = json_body(dialect, &model, text, stop.as_deref()).to_string();
            let ct = (!content_type.is_empty()).then_some(*content_type);
            write_plain(&mut stream, 200, ct, &reply.headers, &body).await
        }
        Kind::Error {
            status,
            kind,
            message,
        } => {
            let body = match dialect {
                Dialect::Anthropic => {
                    json!({"type": "error", "error": {"type": kind, "message": message}})
                }
                Dialect::OpenAi => {
                    json!({"error": {"message": message, "type": kind, "code": null}})
                }
            };
            write_plain(
                &mut stream,
                *status,
                Some("application/json"),
                &reply.headers,
                &body.to_string(),
            )
            .await
        }
        Kind::Raw {
            status,
            content_type,
            body,
        } => {
            write_plain(
                &mut stream,
                *status,
                content_type.as_deref(),
                &reply.headers,
                body,
            )
            .await
        }
    }
}

/// Read one request (head + content-length body). `None` if the peer sent nothing usable.
async fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<RecordedRequest>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let method = first.next().unwrap_or("").to_string();
    let path = first.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_BODY);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    Ok(Some(RecordedRequest {
        method,
        path,
        headers,
        body,
        raw_body,
    }))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

async fn write_plain(
    stream: &mut TcpStream,
    status: u16,
    content_type: Option<&str>,
    extra: &[(String, String)],
    body: &str,
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    if let Some(ct) = content_type {
        head.push_str(&format!("content-type: {ct}\r\n"));
    }
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.flush().await?;
    stream.shutdown().await
}

/// Chunked `text/event-stream`, one frame per chunk. Without `complete` the connection is
/// dropped before the terminating chunk (a cut-off).
async fn write_stream(
    stream: &mut TcpStream,
    reply: &Reply,
    frames: &[String],
    complete: bool,
) -> std::io::Result<()> {
    let mut head =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
            .to_string();
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("transfer-encoding: chunked\r\nconnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await?;
    for (i, frame) in frames.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(reply.chunk_delay).await;
        }
        stream
            .write_all(format!("{:x}\r\n{frame}\r\n", frame.len()).as_bytes())
            .await?;
        stream.flush().await?;
    }
    if complete {
        stream.write_all(b"0\r\n\r\n").await?;
        stream.flush().await?;
        stream.shutdown().await?;
    }
    Ok(())
}

/// Split into word-sized deltas (each keeps its trailing whitespace).
fn pieces(text: &str) -> Vec<&str> {
    let v: Vec<&str> = text.split_inclusive(' ').collect();
    if v.is_empty() { vec![""] } else { v }
}

fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

fn stream_frames(
    dialect: Dialect,
    model: &str,
    text: &str,
    thinking: Option<&str>,
    stop: Option<&str>,
    (input, output): (u64, u64),
) -> Vec<String> {
    let mut f = Vec::new();
    match dialect {
        Dialect::Anthropic => {
            let stop = stop.unwrap_or("end_turn");
            f.push(sse(Some("message_start"), &json!({"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":model,"content":[],"stop_reason":null,"usage":{"input_tokens":input,"output_tokens":1}}})));
            let mut index = 0;
            if let Some(t) = thinking {
                f.push(sse(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"thinking","thinking":""}})));
                f.push(sse(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"thinking_delta","thinking":t}})));
                f.push(sse(
                    Some("content_block_stop"),
                    &json!({"type":"content_block_stop","index":index}),
                ));
                index += 1;
            }
            f.push(sse(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"text","text":""}})));
            f.push(sse(Some("ping"), &json!({"type":"ping"})));
            for p in pieces(text) {
                f.push(sse(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"text_delta","text":p}})));
            }
            f.push(sse(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            f.push(sse(Some("message_delta"), &json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},"usage":{"output_tokens":output}})));
            f.push(sse(Some("message_stop"), &json!({"type":"message_stop"})));
        }
        Dialect::OpenAi => {
            let stop = stop.unwrap_or("stop");
            let chunk = |delta: Value, finish: Option<&str>| {
                sse(
                    None,
                    &json!({"id":"chatcmpl-fake","object":"chat.completion.chunk","model":model,"choices":[{"index":0,"delta":delta,"finish_reason":finish}]}),
                )
            };
            f.push(chunk(json!({"role":"assistant","content":""}), None));
            if let Some(t) = thinking {
                f.push(chunk(json!({"reasoning_content":t}), None));
            }
            for p in pieces(text) {
                f.push(chunk(json!({"content":p}), None));
            }
            f.push(chunk(json!({}), Some(stop)));
            f.push(sse(None, &json!({"id":"chatcmpl-fake","object":"chat.completion.chunk","model":model,"choices":[],"usage":{"prompt_tokens":input,"completion_tokens":output,"total_tokens":input+output}})));
            f.push("data: [DONE]\n\n".to_string());
        }
    }
    f
}

fn json_body(dialect: Dialect, model: &str, text: &str, stop: Option<&str>) -> Value {
    match dialect {
        Dialect::Anthropic => json!({
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop.unwrap_or("end_turn"),
            "usage": {"input_tokens": 100, "output_tokens": 20}
        }),
        Dialect::OpenAi => json!({
            "id": "chatcmpl-fake", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": stop.unwrap_or("stop")}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        }),
    }
}
