//! The HTTP side of [`complete`]: one request per attempt, retries with backoff,
//! idle timeouts, cancellation, SSE or plain-JSON bodies.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::error::tidy_message;
use super::{Api, ChatRequest, ChatResponse, ClientOptions, LlmError, ModelEndpoint, Progress};
use super::{anthropic, openai};

/// Statuses worth another try: rate limit, server errors, Anthropic's "overloaded".
pub(crate) const RETRY_STATUSES: [u16; 6] = [429, 500, 502, 503, 504, 529];

/// Thinking budget on top of the requested answer length ("high" effort).
const THINKING_BUDGET: u64 = 16_384;
/// Anthropic's minimum `budget_tokens`.
const MIN_THINKING_BUDGET: u64 = 1_024;
/// Longest provider error text quoted in an error.
const ERROR_TEXT_MAX: usize = 400;
/// Error bodies are read up to this size (the rest is irrelevant).
const ERROR_BODY_MAX: usize = 64 * 1024;
/// A model answer never legitimately exceeds this; beyond it the server is broken.
const RESPONSE_MAX: usize = 32 * 1024 * 1024;

/// Result of one SSE event for an [`Assembler`].
pub(crate) enum Step {
    Continue,
    /// The terminal event arrived.
    Done,
}

/// What went wrong inside a response body.
#[derive(Debug)]
pub(crate) enum ProtoError {
    /// The provider reported an error (its text, unscrubbed).
    Provider { message: String, retryable: bool },
    /// The body does not follow the protocol.
    Bad(String),
}

/// A streamed answer whose body ended before the event that says it is complete (named).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the stream ended before {0}")]
pub(crate) struct EndedEarly(pub &'static str);

/// Per-API answer assembly; see `anthropic::Stream` and `openai::Stream`.
pub(crate) trait Assembler: Send {
    fn on_event(&mut self, event: &str, data: &str) -> Result<Step, ProtoError>;
    /// Answer characters so far.
    fn chars(&self) -> usize;
    fn output_tokens(&self) -> Option<u64>;
    /// The answer once the body ended.
    fn finish(&self) -> Result<ChatResponse, EndedEarly>;
    /// The answer from a non-streamed JSON body.
    fn parse_json(&mut self, v: &Value) -> Result<ChatResponse, ProtoError>;
}

/// Output limit to send and the thinking budget inside it (None = no reasoning).
/// The answer keeps its requested length; thinking gets up to [`THINKING_BUDGET`] on
/// top, within the model's own output limit.
pub(crate) fn output_budget(ep: &ModelEndpoint, req: &ChatRequest) -> (u64, Option<u64>) {
    let cap = ep.max_tokens.unwrap_or(u64::MAX);
    let answer = req.max_tokens.clamp(1, cap.max(1));
    if !(ep.reasoning && req.reasoning) {
        return (answer, None);
    }
    let total = answer.saturating_add(THINKING_BUDGET).min(cap);
    let budget = (total - answer).min(THINKING_BUDGET);
    if budget < MIN_THINKING_BUDGET {
        (answer, None)
    } else {
        (total, Some(budget))
    }
}

/// Why one attempt failed, and whether another may help.
struct Failure {
    error: LlmError,
    retry: Option<Option<Duration>>, // Some(server's retry-after, if any) = retryable
}

impl Failure {
    fn fatal(error: LlmError) -> Self {
        Failure { error, retry: None }
    }
    fn retryable(error: LlmError, after: Option<Duration>) -> Self {
        Failure {
            error,
            retry: Some(after),
        }
    }
}

struct Prepared {
    /// The URL requested; may carry credentials (userinfo, query) from the base URL.
    url: String,
    /// The URL as errors and logs show it ([`super::secret::redact_url`]).
    shown_url: String,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// Send `req` to `ep` and return the whole answer. See the [module docs](super).
///
/// Retries (up to `opts.max_attempts` in total) on HTTP 429/500/502/503/504/529, on
/// connection failures before a response, and on Anthropic `overloaded_error`/`api_error`
/// stream events. Everything else fails at once. Cancelling `cancel` returns
/// [`LlmError::Cancelled`] at the next await point, mid-stream included.
pub async fn complete(
    ep: &ModelEndpoint,
    req: &ChatRequest,
    opts: &ClientOptions,
    cancel: CancellationToken,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<ChatResponse, LlmError> {
    if cancel.is_cancelled() {
        return Err(LlmError::Cancelled);
    }
    let prepared = prepare(ep, req)?;
    let client = build_client(ep, opts, &prepared.url)?;
    let max_attempts = opts.max_attempts.max(1);
    let mut attempt = 0;
    let deadline = tokio::time::Instant::now() + opts.generation_deadline;
    let past_deadline = || LlmError::Deadline {
        url: prepared.shown_url.clone(),
        after: opts.generation_deadline,
    };
    loop {
        attempt += 1;
        progress(Progress::Started { attempt });
        tracing::debug!(provider = %ep.provider, model = %ep.model, url = %prepared.shown_url, attempt, "model request");
        let outcome = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            _ = tokio::time::sleep_until(deadline) => return Err(past_deadline()),
            r = one_attempt(&client, &prepared, ep, opts, &mut *progress) => r,
        };
        let failure = match outcome {
            Ok(resp) => {
                tracing::debug!(
                    provider = %ep.provider, model = %ep.model, attempt,
                    chars = resp.text.chars().count(), stop_reason = ?resp.stop_reason,
                    input_tokens = ?resp.input_tokens, output_tokens = ?resp.output_tokens,
                    "model answered"
                );
                return Ok(resp);
            }
            Err(f) => f,
        };
        let Some(retry_after) = failure.retry else {
            return Err(failure.error.with_attempts(attempt));
        };
        if attempt >= max_attempts {
            return Err(failure.error.with_attempts(attempt));
        }
        let delay = match retry_after {
            Some(after) if after > opts.max_retry_after => {
                let mut error = failure.error.with_attempts(attempt);
                if let LlmError::Status { message, .. } = &mut error {
                    message.push_str(&format!(
                        " (server asked to retry after {}s; not waiting that long)",
                        after.as_secs()
                    ));
                }
                return Err(error);
            }
            Some(after) => after,
            None => backoff(opts, attempt),
        };
        let reason = failure.error.to_string();
        tracing::warn!(provider = %ep.provider, model = %ep.model, attempt, delay_ms = delay.as_millis() as u64, %reason, "model request failed; retrying");
        progress(Progress::Retrying {
            attempt,
            after_ms: delay.as_millis().try_into().unwrap_or(u64::MAX),
            reason,
        });
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            _ = tokio::time::sleep_until(deadline) => return Err(past_deadline()),
            _ = tokio::time::sleep(delay) => {}
        }
    }
}

fn prepare(ep: &ModelEndpoint, req: &ChatRequest) -> Result<Prepared, LlmError> {
    let invalid = |reason: String| LlmError::InvalidEndpoint {
        provider: ep.provider.clone(),
        reason,
    };
    let (url, body) = match ep.api {
        Api::AnthropicMessages => (anthropic::url(&ep.base_url), anthropic::body(ep, req)),
        Api::OpenAiCompletions => (openai::url(&ep.base_url), openai::body(ep, req)),
    };
    let mut headers = HeaderMap::new();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert(
        "accept",
        HeaderValue::from_static("text/event-stream, application/json;q=0.9"),
    );
    let key_value = |prefix: &str| -> Result<Option<HeaderValue>, LlmError> {
        let Some(key) = &ep.api_key else {
            return Ok(None);
        };
        let mut v = HeaderValue::from_str(&format!("{prefix}{}", key.expose())).map_err(|_| {
            invalid(format!(
                "the API key from {} has characters not allowed in an HTTP header",
                ep.key_source
            ))
        })?;
        v.set_sensitive(true);
        Ok(Some(v))
    };
    match ep.api {
        Api::AnthropicMessages => {
            headers.insert(
                "anthropic-version",
                HeaderValue::from_static(anthropic::ANTHROPIC_VERSION),
            );
            if let Some(v) = key_value("")? {
                headers.insert("x-api-key", v);
            }
        }
        Api::OpenAiCompletions => {
            if let Some(v) = key_value("Bearer ")? {
                headers.insert("authorization", v);
            }
        }
    }
    // Config headers last: they may add betas or route through a proxy.
    for (name, value) in &ep.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid(format!("header `{name}` is not a valid header name")))?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| invalid(format!("header `{name}` has an invalid value")))?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    let body =
        serde_json::to_vec(&body).map_err(|e| invalid(format!("cannot encode request: {e}")))?;
    let shown_url = super::secret::redact_url(&url);
    Ok(Prepared {
        url,
        shown_url,
        headers,
        body,
    })
}

/// Clients are shared per (runtime, connect timeout, proxy use): building one loads the
/// TLS roots (~50 ms), and sharing lets parallel requests reuse connections. Pooled
/// connections belong to the runtime that opened them, hence the runtime in the key.
fn build_client(
    ep: &ModelEndpoint,
    opts: &ClientOptions,
    url: &str,
) -> Result<reqwest::Client, LlmError> {
    type Cache = Mutex<
        Vec<(
            (Option<tokio::runtime::Id>, Duration, bool),
            reqwest::Client,
        )>,
    >;
    const CACHE_MAX: usize = 8;
    static CLIENTS: OnceLock<Cache> = OnceLock::new();
    // A local model server is never behind the operator's HTTP proxy.
    let local = reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .is_some_and(|h| is_local_host(&h));
    let runtime = tokio::runtime::Handle::try_current().ok().map(|h| h.id());
    let key = (runtime, opts.connect_timeout, local);
    let cache = CLIENTS.get_or_init(|| Mutex::new(Vec::new()));
    // A poisoned lock only means another thread panicked mid-push; the data is fine.
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(c.clone());
    }
    let mut builder = reqwest::Client::builder()
        .connect_timeout(opts.connect_timeout)
        .user_agent(concat!("clawtop/", env!("CARGO_PKG_VERSION")));
    if local {
        builder = builder.no_proxy();
    }
    let client = builder.build().map_err(|e| LlmError::InvalidEndpoint {
        provider: ep.provider.clone(),
        reason: format!("cannot set up the HTTP client: {}", chain(&e)),
    })?;
    if cache.len() >= CACHE_MAX {
        cache.remove(0);
    }
    cache.push((key, client.clone()));
    Ok(client)
}

fn is_local_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// `base * 2^(attempt-1)`, capped, then scaled into [50 %, 100 %] so that clients
/// failing together don't retry together.
fn backoff(opts: &ClientOptions, attempt: u32) -> Duration {
    let exp = opts
        .base_backoff
        .saturating_mul(1u32 << (attempt - 1).min(20))
        .min(opts.max_backoff);
    // Checked: a huge configured max_backoff must not panic the conversion.
    Duration::try_from_secs_f64(exp.as_secs_f64() * (0.5 + 0.5 * random_unit())).unwrap_or(exp)
}

/// A random number in [0, 1) without a PRNG dependency: std's `RandomState` is seeded
/// randomly per instance, which is plenty for jitter.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x636c_6177);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

async fn one_attempt(
    client: &reqwest::Client,
    p: &Prepared,
    ep: &ModelEndpoint,
    opts: &ClientOptions,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<ChatResponse, Failure> {
    let url = &p.shown_url;
    let send = client
        .post(&p.url)
        .headers(p.headers.clone())
        .body(p.body.clone())
        .send();
    let resp = match tokio::time::timeout(opts.idle_timeout, send).await {
        Err(_) => {
            return Err(Failure::fatal(LlmError::Timeout {
                url: url.clone(),
                phase: "waiting for the response",
                after: opts.idle_timeout,
            }));
        }
        // No response at all: refused, DNS, TLS, connect timeout, reset before headers.
        // Nothing was generated, so another attempt is safe.
        Ok(Err(e)) if e.is_builder() => {
            // A malformed URL or header: retrying cannot help.
            return Err(Failure::fatal(LlmError::InvalidEndpoint {
                provider: ep.provider.clone(),
                reason: scrub(ep, &chain(&e)),
            }));
        }
        Ok(Err(e)) => {
            let reason = scrub(ep, &chain(&e));
            return Err(Failure::retryable(
                LlmError::Connect {
                    url: url.clone(),
                    reason,
                    attempts: 1,
                },
                None,
            ));
        }
        Ok(Ok(r)) => r,
    };

    let status = resp.status().as_u16();
    if !resp.status().is_success() {
        let retry_after = retry_after(resp.headers());
        let body = read_error_body(resp, opts.idle_timeout).await;
        let message = scrub(ep, &error_text(&body, status));
        let error = LlmError::Status {
            status,
            url: url.clone(),
            message,
            attempts: 1,
        };
        return Err(if RETRY_STATUSES.contains(&status) {
            Failure::retryable(error, retry_after)
        } else {
            Failure::fatal(error)
        });
    }

    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut asm: Box<dyn Assembler> = match ep.api {
        Api::AnthropicMessages => Box::new(anthropic::Stream::default()),
        Api::OpenAiCompletions => Box::new(openai::Stream::default()),
    };
    let mut chunks = Box::pin(guarded(resp.bytes_stream(), opts.idle_timeout));

    // Servers that ignore `stream: true` answer with plain JSON; without a content type,
    // sniff the first chunk.
    let (as_json, first) = if content_type.starts_with("text/event-stream") {
        (false, None)
    } else if content_type.contains("json") {
        (true, None)
    } else {
        match chunks.next().await {
            None => (false, None),
            Some(Err(e)) => return Err(Failure::fatal(chunk_error(ep, url, e, opts))),
            Some(Ok(b)) => {
                let json = b
                    .as_ref()
                    .iter()
                    .find(|c| !c.is_ascii_whitespace())
                    .is_some_and(|c| *c == b'{');
                (json, Some(b))
            }
        }
    };
    let chunks = futures::stream::iter(first.map(Ok)).chain(chunks);

    if as_json {
        return read_json(ep, url, chunks, asm.as_mut(), opts, progress).await;
    }

    // Raw chunks seen so far: when the content timer below and the per-chunk timer of
    // `guarded` run out together, this tells which one describes what happened.
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let chunks = chunks.inspect(move |c| {
        if c.is_ok() {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    });
    let mut events = chunks.eventsource();
    let mut last = (0usize, None);
    // Only events with content count as progress: a server that sends nothing but
    // keep-alive comments (which never surface as events) or pings hits the idle limit
    // although its chunks keep the transport busy.
    let mut quiet_until = tokio::time::Instant::now() + opts.idle_timeout;
    let mut seen_at_content = 0;
    loop {
        let item = match tokio::time::timeout_at(quiet_until, events.next()).await {
            Err(_) => {
                let phase = if seen.load(Ordering::Relaxed) == seen_at_content {
                    "between stream chunks"
                } else {
                    "with no content (only keep-alive comments or pings arrived)"
                };
                return Err(Failure::fatal(LlmError::Timeout {
                    url: url.clone(),
                    phase,
                    after: opts.idle_timeout,
                }));
            }
            Ok(None) => break,
            Ok(Some(item)) => item,
        };
        let event = match item {
            Ok(ev) => ev,
            Err(EventStreamError::Transport(e)) => {
                return Err(Failure::fatal(chunk_error(ep, url, e, opts)));
            }
            Err(EventStreamError::Utf8(e)) => {
                return Err(Failure::fatal(LlmError::BadResponse {
                    url: url.clone(),
                    reason: format!("stream is not UTF-8: {e}"),
                }));
            }
            Err(EventStreamError::Parser(e)) => {
                let reason = scrub(
                    ep,
                    &tidy_message(&format!("not an event stream: {e}"), ERROR_TEXT_MAX),
                );
                return Err(Failure::fatal(LlmError::BadResponse {
                    url: url.clone(),
                    reason,
                }));
            }
        };
        if event.event != "ping" && !event.data.trim().is_empty() {
            quiet_until = tokio::time::Instant::now() + opts.idle_timeout;
            seen_at_content = seen.load(Ordering::Relaxed);
        }
        match asm.on_event(&event.event, &event.data) {
            Ok(Step::Done) => break,
            Ok(Step::Continue) => {}
            Err(e) => return Err(proto_failure(ep, url, e)),
        }
        // Report growth of the answer, or a new token count from the server.
        let now = (asm.chars(), asm.output_tokens());
        if now != last && now.0 + now.1.unwrap_or(0) as usize > 0 {
            last = now;
            progress(Progress::Delta {
                chars_so_far: now.0,
                output_tokens_so_far: now.1,
            });
        }
    }
    let resp = asm.finish().map_err(|early| {
        Failure::fatal(LlmError::Incomplete {
            url: url.clone(),
            reason: early.to_string(),
        })
    })?;
    check_stop(ep, url, resp)
}

async fn read_json<B: AsRef<[u8]>>(
    ep: &ModelEndpoint,
    url: &str,
    chunks: impl Stream<Item = Result<B, ChunkError>>,
    asm: &mut dyn Assembler,
    opts: &ClientOptions,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<ChatResponse, Failure> {
    let mut chunks = std::pin::pin!(chunks);
    let mut body = Vec::new();
    while let Some(chunk) = chunks.next().await {
        match chunk {
            Ok(b) => body.extend_from_slice(b.as_ref()),
            Err(e) => return Err(Failure::fatal(chunk_error(ep, url, e, opts))),
        }
    }
    let value: Value = serde_json::from_slice(&body).map_err(|e| {
        let start = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
        Failure::fatal(LlmError::BadResponse {
            url: url.to_string(),
            reason: scrub(
                ep,
                &tidy_message(&format!("body is not JSON ({e}): {start}"), ERROR_TEXT_MAX),
            ),
        })
    })?;
    let resp = asm
        .parse_json(&value)
        .map_err(|e| proto_failure(ep, url, e))?;
    progress(Progress::Delta {
        chars_so_far: asm.chars(),
        output_tokens_so_far: resp.output_tokens,
    });
    check_stop(ep, url, resp)
}

/// Stop reasons that mean "no usable answer" become errors; `max_tokens`/`length` stay
/// answers and are flagged by [`ChatResponse::hit_max_tokens`].
fn check_stop(ep: &ModelEndpoint, url: &str, resp: ChatResponse) -> Result<ChatResponse, Failure> {
    match resp.stop_reason.as_deref() {
        Some(r @ ("error" | "refusal" | "content_filter")) => {
            let said = tidy_message(&resp.text, ERROR_TEXT_MAX);
            let message = if said.is_empty() {
                format!("the model stopped with `{r}`")
            } else {
                format!("the model stopped with `{r}`: {}", scrub(ep, &said))
            };
            Err(Failure::fatal(LlmError::Provider {
                url: url.to_string(),
                message,
                attempts: 1,
            }))
        }
        _ => Ok(resp),
    }
}

fn proto_failure(ep: &ModelEndpoint, url: &str, e: ProtoError) -> Failure {
    match e {
        ProtoError::Provider { message, retryable } => {
            let error = LlmError::Provider {
                url: url.to_string(),
                message: scrub(ep, &tidy_message(&message, ERROR_TEXT_MAX)),
                attempts: 1,
            };
            if retryable {
                Failure::retryable(error, None)
            } else {
                Failure::fatal(error)
            }
        }
        ProtoError::Bad(reason) => Failure::fatal(LlmError::BadResponse {
            url: url.to_string(),
            reason: scrub(ep, &tidy_message(&reason, ERROR_TEXT_MAX)),
        }),
    }
}

/// Failure while reading the body.
enum ChunkError {
    Idle(Duration),
    TooLarge,
    Transport(String),
}

fn chunk_error(ep: &ModelEndpoint, url: &str, e: ChunkError, _opts: &ClientOptions) -> LlmError {
    let url = url.to_string();
    match e {
        ChunkError::Idle(after) => LlmError::Timeout {
            url,
            phase: "between stream chunks",
            after,
        },
        ChunkError::TooLarge => LlmError::BadResponse {
            url,
            reason: format!("response exceeds {} MiB", RESPONSE_MAX / (1024 * 1024)),
        },
        ChunkError::Transport(reason) => LlmError::Incomplete {
            url,
            reason: scrub(ep, &reason),
        },
    }
}

/// The body as chunks, each awaited at most `idle`, the total capped at [`RESPONSE_MAX`].
/// Timing raw chunks (not SSE events) lets keep-alive comments count as life.
fn guarded<B: AsRef<[u8]> + Send + 'static>(
    inner: impl Stream<Item = reqwest::Result<B>> + Send + 'static,
    idle: Duration,
) -> impl Stream<Item = Result<B, ChunkError>> + Send {
    futures::stream::unfold(
        (Box::pin(inner), 0usize, false),
        move |(mut inner, total, ended)| async move {
            if ended {
                return None;
            }
            match tokio::time::timeout(idle, inner.next()).await {
                Err(_) => Some((Err(ChunkError::Idle(idle)), (inner, total, true))),
                Ok(None) => None,
                Ok(Some(Err(e))) => {
                    Some((Err(ChunkError::Transport(chain(&e))), (inner, total, true)))
                }
                Ok(Some(Ok(b))) => {
                    let total = total + b.as_ref().len();
                    if total > RESPONSE_MAX {
                        Some((Err(ChunkError::TooLarge), (inner, total, true)))
                    } else {
                        Some((Ok(b), (inner, total, false)))
                    }
                }
            }
        },
    )
}

/// Up to [`ERROR_BODY_MAX`] bytes of an error response; whatever arrived if it breaks.
async fn read_error_body(resp: reqwest::Response, idle: Duration) -> String {
    let mut body = Vec::new();
    let mut stream = Box::pin(guarded(resp.bytes_stream(), idle));
    while let Some(Ok(chunk)) = stream.next().await {
        body.extend_from_slice(chunk.as_ref());
        if body.len() >= ERROR_BODY_MAX {
            body.truncate(ERROR_BODY_MAX);
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// The provider's message from an error body (Anthropic, OpenAI and common proxy
/// shapes), else the body text; trimmed and capped.
fn error_text(body: &str, status: u16) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let err = v.get("error").unwrap_or(&v);
        if let Some(s) = err.as_str() {
            return Some(s.to_string());
        }
        let msg = err
            .get("message")
            .or_else(|| err.get("detail"))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))
            .and_then(Value::as_str)?;
        Some(match err.get("type").and_then(Value::as_str) {
            Some(t) if t != "error" => format!("{t}: {msg}"),
            _ => msg.to_string(),
        })
    });
    let text = tidy_message(from_json.as_deref().unwrap_or(body), ERROR_TEXT_MAX);
    if text.is_empty() {
        format!("(empty body; HTTP {status})")
    } else {
        text
    }
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds; HTTP dates are ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    let valid = |x: f64| (0.0..1.0e9).contains(&x);
    if let Some(ms) = get("retry-after-ms").filter(|x| valid(*x)) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    get("retry-after")
        .filter(|x| valid(*x))
        .map(Duration::from_secs_f64)
}

/// `text` without the key, any configured header value, or the base URL's credentials.
fn scrub(ep: &ModelEndpoint, text: &str) -> String {
    super::secret::scrub_endpoint(ep, text)
}

/// An error with its causes ("error sending request: connection refused").
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !out.contains(&s_text) {
            out.push_str(": ");
            out.push_str(&s_text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{MaxTokensField, Secret};

    fn ep(reasoning: bool, max_tokens: Option<u64>) -> ModelEndpoint {
        ModelEndpoint {
            provider: "p".into(),
            model: "m".into(),
            api: Api::AnthropicMessages,
            base_url: "http://127.0.0.1:1".into(),
            api_key: Some(Secret::new("sk-test-secret")),
            headers: vec![],
            reasoning,
            context_window: None,
            max_tokens,
            max_tokens_field: MaxTokensField::MaxTokens,
            key_source: "test".into(),
        }
    }

    fn req(max_tokens: u64, reasoning: bool) -> ChatRequest {
        ChatRequest {
            system: "s".into(),
            user: "u".into(),
            max_tokens,
            reasoning,
        }
    }

    #[test]
    fn budget_rules() {
        // Not reasoning-capable, or not asked: no thinking, capped to the model limit.
        assert_eq!(
            output_budget(&ep(false, None), &req(13107, true)),
            (13107, None)
        );
        assert_eq!(
            output_budget(&ep(true, None), &req(13107, false)),
            (13107, None)
        );
        assert_eq!(
            output_budget(&ep(false, Some(4096)), &req(13107, false)),
            (4096, None)
        );
        // Thinking on top of the answer.
        assert_eq!(
            output_budget(&ep(true, None), &req(13107, true)),
            (13107 + 16384, Some(16384))
        );
        // Model limit squeezes the budget.
        assert_eq!(
            output_budget(&ep(true, Some(20000)), &req(13107, true)),
            (20000, Some(20000 - 13107))
        );
        // Too little room left: no thinking.
        assert_eq!(
            output_budget(&ep(true, Some(13500)), &req(13107, true)),
            (13107, None)
        );
        assert_eq!(output_budget(&ep(false, None), &req(0, false)), (1, None));
    }

    #[test]
    fn backoff_grows_and_caps() {
        let opts = ClientOptions {
            base_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
            ..ClientOptions::default()
        };
        for _ in 0..20 {
            let d1 = backoff(&opts, 1);
            assert!(
                d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100),
                "{d1:?}"
            );
            let d3 = backoff(&opts, 3);
            assert!(
                d3 >= Duration::from_millis(200) && d3 <= Duration::from_millis(400),
                "{d3:?}"
            );
            let d9 = backoff(&opts, 40);
            assert!(
                d9 >= Duration::from_millis(500) && d9 <= Duration::from_millis(1000),
                "{d9:?}"
            );
        }
    }

    #[test]
    fn error_text_shapes() {
        assert_eq!(
            error_text(
                r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
                401
            ),
            "authentication_error: invalid x-api-key"
        );
        assert_eq!(
            error_text(
                r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
                401
            ),
            "invalid_request_error: Incorrect API key"
        );
        assert_eq!(error_text(r#"{"detail":"Not Found"}"#, 404), "Not Found");
        assert_eq!(
            error_text(r#"{"error":"model not found"}"#, 404),
            "model not found"
        );
        assert_eq!(
            error_text("<html>\n bad gateway </html>", 502),
            "<html> bad gateway </html>"
        );
        assert_eq!(error_text("", 500), "(empty body; HTTP 500)");
        assert_eq!(
            error_text(&"x".repeat(5000), 500).chars().count(),
            ERROR_TEXT_MAX + 1
        );
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn prepared_headers_hide_key() {
        let p = prepare(&ep(false, None), &req(10, false)).unwrap();
        assert_eq!(p.url, "http://127.0.0.1:1/v1/messages");
        assert!(p.headers.get("x-api-key").unwrap().is_sensitive());
        assert!(!format!("{:?}", p.headers).contains("sk-test-secret"));
    }
}
