//! Model layer: find the endpoint for a session's model and ask it for one completion.
//!
//! Two steps, both usable on their own:
//!
//! 1. [`resolve_endpoint`] (pure; the environment comes in as a lookup closure) turns
//!    OpenClaw's config, the agent's `models.json`, the session's `modelProvider`/`model`
//!    and the operator's flags into a [`ModelEndpoint`] (docs/models.md).
//! 2. [`complete`] sends one system prompt + one user text message to that endpoint,
//!    streamed, and returns the assembled text ([`ChatResponse`]). It reports
//!    [`Progress`] through a callback, retries transient failures, honours a
//!    [`CancellationToken`], and never returns a cut-off answer as if it were whole.
//!
//! ```text
//! pub fn resolve_endpoint(config: &Value, agent_models: Option<&Value>,
//!     session_provider: Option<&str>, session_model: Option<&str>,
//!     ov: &ModelOverrides, env: &dyn Fn(&str) -> Option<String>)
//!     -> Result<ModelEndpoint, LlmError>;
//! pub async fn complete(ep: &ModelEndpoint, req: &ChatRequest, opts: &ClientOptions,
//!     cancel: CancellationToken, progress: &mut (dyn FnMut(Progress) + Send))
//!     -> Result<ChatResponse, LlmError>;
//! ```
//!
//! Supported wire APIs: [`Api::AnthropicMessages`] (`POST {base}/v1/messages`) and
//! [`Api::OpenAiCompletions`] (`POST {base}/chat/completions`, which also covers
//! OpenRouter, Ollama, vLLM, llama.cpp and LiteLLM).
//!
//! Decisions (the why is next to the code):
//! - API key references: `apiKey: "${VAR}"`, an env SecretRef object
//!   `{"source":"env","id":"VAR"}`, or an all-caps identifier (`[A-Z_][A-Z0-9_]*`) that
//!   names a *set* environment variable are read from the environment; anything else
//!   is a literal key (so `"EMPTY"`/`"ollama"` placeholders for local servers still work).
//!   Then `<PROVIDER>_API_KEY`; `--api-key-env VAR` overrides all of them.
//! - No key at all is accepted only when the base URL is loopback (local servers).
//! - OpenAI-compatible requests send `max_completion_tokens` to api.openai.com (which
//!   rejects `max_tokens` for reasoning models) and `max_tokens` elsewhere (what every
//!   compatible server accepts); a model's `compat.maxTokensField` overrides.
//! - Reasoning is requested only when the model is marked `reasoning` in the catalog
//!   *and* the request asks for it: Anthropic gets `thinking` (`budget_tokens` 16384),
//!   OpenAI-compatible servers get `reasoning_effort: "high"`. Either way the output limit
//!   sent is the requested answer length plus that budget (capped by the model's
//!   `maxTokens`), so thinking cannot starve the answer. Thinking/reasoning text never
//!   reaches [`ChatResponse::text`].
//! - Timeouts: `idle_timeout` bounds the wait for response headers and every gap
//!   between body chunks (SSE keep-alive comments count as activity). Timeouts, cut-off
//!   streams and garbage are not retried (the model may have done the work already; the
//!   operator decides); connect failures, 429/5xx/529 and Anthropic `overloaded_error`
//!   events are.
//! - A stream that ends without its terminal event, an in-stream error, or a stop reason
//!   of `error`/`refusal`/`content_filter` is an error. Hitting `max_tokens` is not an
//!   error but is reported: see [`ChatResponse::hit_max_tokens`].
//! - A key never appears in `Debug`/`Display` output, errors or tracing logs: it lives
//!   in [`Secret`], header values are redacted in `Debug`, and provider error text is
//!   scrubbed of the key before it is put into an error.

mod anthropic;
mod client;
mod error;
pub mod offline_demo;
mod openai;
mod resolve;
mod secret;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Sends `req` to `ep` (see the module doc); the demo's offline endpoint is answered
/// in-process ([`offline_demo`]), every other one over HTTP.
pub async fn complete(
    ep: &ModelEndpoint,
    req: &ChatRequest,
    opts: &ClientOptions,
    cancel: CancellationToken,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<ChatResponse, LlmError> {
    if offline_demo::is_offline_demo(ep) {
        return offline_demo::complete(req, &cancel, progress);
    }
    client::complete(ep, req, opts, cancel, progress).await
}
pub use error::LlmError;
pub use resolve::{
    ListedModel, ModelOverrides, base_url_disagreement, endpoint_disagreements, listed_models,
    resolve_endpoint,
};
pub use secret::{Secret, redact_url, scrub_endpoint};
pub use tokio_util::sync::CancellationToken;

/// Wire protocol of an endpoint (OpenClaw's `api` value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `anthropic-messages`
    AnthropicMessages,
    /// `openai-completions`
    OpenAiCompletions,
}

impl Api {
    /// The name OpenClaw's config uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::AnthropicMessages => "anthropic-messages",
            Api::OpenAiCompletions => "openai-completions",
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Api {
    type Err = LlmError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "anthropic-messages" => Ok(Api::AnthropicMessages),
            "openai-completions" => Ok(Api::OpenAiCompletions),
            other => Err(LlmError::UnsupportedApi {
                provider: None,
                api: other.to_string(),
            }),
        }
    }
}

/// Which request field carries the output limit on `openai-completions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_tokens`: understood by every OpenAI-compatible server.
    MaxTokens,
    /// `max_completion_tokens`: required by OpenAI's reasoning models.
    MaxCompletionTokens,
}

/// Everything needed to call one model. Built by [`resolve_endpoint`]; fields are
/// public so callers can display them (the key shows as `***`).
#[derive(Clone)]
pub struct ModelEndpoint {
    pub provider: String,
    pub model: String,
    pub api: Api,
    /// Base URL as configured, without the API path (`/v1/messages`, `/chat/completions`).
    pub base_url: String,
    pub api_key: Option<Secret>,
    /// Extra request headers from config (provider, then model). Values may be secrets
    /// (proxy tokens), so `Debug` prints only their names.
    pub headers: Vec<(String, String)>,
    /// The catalog marks the model reasoning-capable.
    pub reasoning: bool,
    pub context_window: Option<u64>,
    /// The model's output limit from the catalog; requests are capped to it.
    pub max_tokens: Option<u64>,
    /// Output-limit field for `openai-completions` (ignored for Anthropic).
    pub max_tokens_field: MaxTokensField,
    /// Where the key came from, for display: e.g. `config models.providers.x.apiKey`,
    /// `env OPENAI_API_KEY`, `none (loopback server)`. Never the key itself.
    pub key_source: String,
}

impl ModelEndpoint {
    /// The base URL as it may be shown or logged: userinfo and query values as `***`.
    pub fn shown_base_url(&self) -> String {
        redact_url(&self.base_url)
    }
}

impl fmt::Debug for ModelEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<String> = self
            .headers
            .iter()
            .map(|(k, _)| format!("{k}: ***"))
            .collect();
        f.debug_struct("ModelEndpoint")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("api", &self.api)
            .field("base_url", &self.shown_base_url())
            .field("api_key", &self.api_key)
            .field("headers", &header_names)
            .field("reasoning", &self.reasoning)
            .field("context_window", &self.context_window)
            .field("max_tokens", &self.max_tokens)
            .field("max_tokens_field", &self.max_tokens_field)
            .field("key_source", &self.key_source)
            .finish()
    }
}

/// One completion request: a system prompt and one user text message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatRequest {
    pub system: String,
    pub user: String,
    /// Output tokens wanted for the answer (thinking budget comes on top, see module doc).
    pub max_tokens: u64,
    /// Ask for reasoning/thinking; only honoured when the endpoint's model is reasoning-capable.
    pub reasoning: bool,
}

/// Progress reports from [`complete`], for a spinner or a gauge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// An HTTP attempt begins (1-based).
    Started { attempt: u32 },
    /// Answer text arrived. `chars_so_far` counts answer characters (not thinking) of the
    /// current attempt; `output_tokens_so_far` is known only when the server reports it.
    Delta {
        chars_so_far: usize,
        output_tokens_so_far: Option<u64>,
    },
    /// Attempt `attempt` failed transiently; the next one starts after `after_ms`.
    Retrying {
        attempt: u32,
        after_ms: u64,
        reason: String,
    },
}

/// The assembled answer.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ChatResponse {
    /// Answer text; Anthropic text blocks are joined with `"\n"`, thinking is dropped.
    pub text: String,
    /// Provider's stop reason as sent (`end_turn`, `max_tokens`, `stop`, `length`, ...).
    pub stop_reason: Option<String>,
    /// Prompt tokens (Anthropic: input + cache read + cache write).
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
}

impl ChatResponse {
    /// True when the model stopped because it ran out of output tokens: the text is
    /// probably incomplete, and callers must tell the operator so.
    pub fn hit_max_tokens(&self) -> bool {
        matches!(self.stop_reason.as_deref(), Some("max_tokens" | "length"))
    }
}

/// Network behaviour of [`complete`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    /// TCP/TLS connect limit per attempt.
    pub connect_timeout: Duration,
    /// Idle limit: longest wait for response headers, between body chunks, and between
    /// stream events that carry content (keep-alive comments and pings are not progress).
    pub idle_timeout: Duration,
    /// Generation deadline: the most one [`complete`] may take in total, retries included,
    /// however steadily the server keeps streaming. Default 15 min, or
    /// `CLAWTOP_GENERATION_DEADLINE_SECS`.
    pub generation_deadline: Duration,
    /// Attempts in total (1 = no retry).
    pub max_attempts: u32,
    /// First retry delay; doubles each retry, with jitter, capped at `max_backoff`.
    pub base_backoff: Duration,
    pub max_backoff: Duration,
    /// A server's `retry-after` up to this long is honoured; a longer one ends the
    /// retries at once (waiting minutes in a TUI helps nobody).
    pub max_retry_after: Duration,
}

/// Default generation deadline: long enough for a 16k-token answer at ~20 tokens/s.
pub const DEFAULT_GENERATION_DEADLINE: Duration = Duration::from_secs(15 * 60);
/// Environment variable that overrides [`DEFAULT_GENERATION_DEADLINE`] (whole seconds > 0).
pub const GENERATION_DEADLINE_ENV: &str = "CLAWTOP_GENERATION_DEADLINE_SECS";

fn generation_deadline_from_env() -> Duration {
    std::env::var(GENERATION_DEADLINE_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| *s > 0)
        .map(Duration::from_secs)
        .unwrap_or(DEFAULT_GENERATION_DEADLINE)
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            max_attempts: 4,
            base_backoff: Duration::from_millis(1000),
            max_backoff: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
            generation_deadline: generation_deadline_from_env(),
        }
    }
}
