//! `anthropic-messages`: request body and response assembly (SSE and plain JSON).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::client::{Assembler, ProtoError, Step, output_budget};
use super::{ChatRequest, ChatResponse, ModelEndpoint};

pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `{base}/v1/messages`, without doubling a `/v1` the base already has.
pub(crate) fn url(base: &str) -> String {
    super::secret::with_path(base, |path| {
        if path.ends_with("/v1") {
            format!("{path}/messages")
        } else {
            format!("{path}/v1/messages")
        }
    })
}

pub(crate) fn body(ep: &ModelEndpoint, req: &ChatRequest) -> Value {
    let (max_tokens, thinking) = output_budget(ep, req);
    let mut body = json!({
        "model": ep.model,
        "max_tokens": max_tokens,
    });
    // The API rejects an empty system text block; an empty prompt means "none".
    if !req.system.is_empty() {
        body["system"] = json!(req.system);
    }
    body["messages"] = json!([{ "role": "user", "content": req.user }]);
    if let Some(budget) = thinking {
        body["thinking"] = json!({ "type": "enabled", "budget_tokens": budget });
    }
    body["stream"] = json!(true);
    body
}

/// Builds the answer from Messages API stream events.
#[derive(Default)]
pub(crate) struct Stream {
    /// Text blocks in arrival order; the answer joins them with "\n".
    blocks: Vec<String>,
    /// Content-block index → position in `blocks` (text blocks only).
    by_index: HashMap<u64, usize>,
    chars: usize,
    stop_reason: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    stopped: bool,
}

impl Stream {
    fn text_block(&mut self, index: u64) -> &mut String {
        let pos = *self.by_index.entry(index).or_insert_with(|| {
            self.blocks.push(String::new());
            self.blocks.len() - 1
        });
        &mut self.blocks[pos]
    }

    fn take_usage(&mut self, usage: Option<&Value>) {
        let Some(u) = usage else { return };
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        // Prompt size = fresh input + cache reads + cache writes.
        if let Some(input) = n("input_tokens") {
            let cached = n("cache_read_input_tokens").unwrap_or(0)
                + n("cache_creation_input_tokens").unwrap_or(0);
            self.input_tokens = Some(input + cached);
        }
        if let Some(out) = n("output_tokens") {
            self.output_tokens = Some(out);
        }
    }

    fn response(&self) -> ChatResponse {
        ChatResponse {
            text: self.blocks.join("\n"),
            stop_reason: self.stop_reason.clone(),
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
        }
    }
}

impl Assembler for Stream {
    fn on_event(&mut self, event: &str, data: &str) -> Result<Step, ProtoError> {
        if event == "ping" {
            return Ok(Step::Continue);
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ProtoError::Bad(format!("`{event}` event data is not JSON: {e}")))?;
        // `type` in the data is authoritative; some proxies drop the `event:` lines.
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event);
        match kind {
            "message_start" => {
                self.take_usage(v.pointer("/message/usage"));
            }
            "content_block_start" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
                let block = v.get("content_block");
                if block.and_then(|b| b.get("type")).and_then(Value::as_str) == Some("text") {
                    let initial = block
                        .and_then(|b| b.get("text"))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    self.chars += initial.chars().count();
                    self.text_block(index).push_str(&initial);
                }
            }
            "content_block_delta" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
                let delta = v.get("delta");
                // thinking_delta, signature_delta, input_json_delta: not part of the answer.
                if delta.and_then(|d| d.get("type")).and_then(Value::as_str) == Some("text_delta") {
                    let text = delta
                        .and_then(|d| d.get("text"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    self.chars += text.chars().count();
                    self.text_block(index).push_str(text);
                }
            }
            "message_delta" => {
                if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_string());
                }
                self.take_usage(v.get("usage"));
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(Step::Done);
            }
            "error" => return Err(error_of(&v)),
            // content_block_stop and future event types carry nothing we need.
            _ => {}
        }
        Ok(Step::Continue)
    }

    fn chars(&self) -> usize {
        self.chars
    }

    fn output_tokens(&self) -> Option<u64> {
        self.output_tokens
    }

    fn finish(&self) -> Result<ChatResponse, super::client::EndedEarly> {
        // message_delta always precedes message_stop and carries the stop reason; with it,
        // all content has arrived even if the final event was lost.
        if self.stopped || self.stop_reason.is_some() {
            Ok(self.response())
        } else {
            Err(super::client::EndedEarly("`message_stop`"))
        }
    }

    fn parse_json(&mut self, v: &Value) -> Result<ChatResponse, ProtoError> {
        if v.get("type").and_then(Value::as_str) == Some("error") {
            return Err(error_of(v));
        }
        let content = v
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| ProtoError::Bad("JSON response has no `content` array".to_string()))?;
        let texts: Vec<&str> = content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        self.blocks = texts.iter().map(|t| t.to_string()).collect();
        self.chars = self.blocks.iter().map(|b| b.chars().count()).sum();
        self.stop_reason = v
            .get("stop_reason")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.take_usage(v.get("usage"));
        Ok(self.response())
    }
}

/// `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`.
fn error_of(v: &Value) -> ProtoError {
    let kind = v
        .pointer("/error/type")
        .and_then(Value::as_str)
        .unwrap_or("error");
    let message = v
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("(no message)");
    ProtoError::Provider {
        message: format!("{kind}: {message}"),
        // The in-stream twins of HTTP 529 and 500.
        retryable: matches!(kind, "overloaded_error" | "api_error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_does_not_double_v1() {
        assert_eq!(
            url("https://api.anthropic.com"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            url("https://api.anthropic.com/"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            url("http://proxy/anthropic/v1/"),
            "http://proxy/anthropic/v1/messages"
        );
    }

    #[test]
    fn assembles_blocks_and_drops_thinking() {
        let mut s = Stream::default();
        let events = [
            (
                "message_start",
                r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"World"}}"#,
            ),
            ("ping", r#"{"type":"ping"}"#),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}"#,
            ),
        ];
        for (e, d) in events {
            assert!(matches!(s.on_event(e, d), Ok(Step::Continue)));
        }
        assert!(matches!(
            s.on_event("message_stop", r#"{"type":"message_stop"}"#),
            Ok(Step::Done)
        ));
        let r = s.finish().unwrap();
        assert_eq!(r.text, "Hello\nWorld");
        assert_eq!(r.stop_reason.as_deref(), Some("end_turn"));
        assert_eq!((r.input_tokens, r.output_tokens), (Some(15), Some(7)));
    }

    #[test]
    fn error_event_is_classified() {
        let mut s = Stream::default();
        let e = s.on_event(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert!(matches!(
            e,
            Err(ProtoError::Provider {
                retryable: true,
                ..
            })
        ));
        let e = s.on_event(
            "error",
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
        );
        assert!(matches!(
            e,
            Err(ProtoError::Provider {
                retryable: false,
                ..
            })
        ));
    }

    #[test]
    fn unterminated_stream_is_incomplete() {
        let mut s = Stream::default();
        s.on_event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"par"}}"#).unwrap();
        assert!(s.finish().is_err());
    }
}
