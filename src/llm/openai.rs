//! `openai-completions`: request body and response assembly (SSE chunks and plain JSON).

use serde_json::{Value, json};

use super::client::{Assembler, ProtoError, RETRY_STATUSES, Step, output_budget};
use super::{ChatRequest, ChatResponse, MaxTokensField, ModelEndpoint};

/// `{base}/chat/completions` (a base that already ends there is used as is).
pub(crate) fn url(base: &str) -> String {
    super::secret::with_path(base, |path| {
        if path.ends_with("/chat/completions") {
            path.to_string()
        } else {
            format!("{path}/chat/completions")
        }
    })
}

pub(crate) fn body(ep: &ModelEndpoint, req: &ChatRequest) -> Value {
    let (max_tokens, reasoning) = output_budget(ep, req);
    let mut messages = Vec::new();
    if !req.system.is_empty() {
        messages.push(json!({ "role": "system", "content": req.system }));
    }
    messages.push(json!({ "role": "user", "content": req.user }));
    let mut body = json!({ "model": ep.model, "messages": messages });
    let field = match ep.max_tokens_field {
        MaxTokensField::MaxTokens => "max_tokens",
        MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
    };
    body[field] = json!(max_tokens);
    if reasoning.is_some() {
        body["reasoning_effort"] = json!("high");
    }
    body["stream"] = json!(true);
    body["stream_options"] = json!({ "include_usage": true });
    body
}

/// Builds the answer from `chat.completion.chunk` objects.
#[derive(Default)]
pub(crate) struct Stream {
    text: String,
    chars: usize,
    stop_reason: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    done: bool,
}

impl Stream {
    fn take_usage(&mut self, usage: Option<&Value>) {
        let Some(u) = usage.filter(|u| u.is_object()) else {
            return;
        };
        if let Some(n) = u.get("prompt_tokens").and_then(Value::as_u64) {
            self.input_tokens = Some(n);
        }
        if let Some(n) = u.get("completion_tokens").and_then(Value::as_u64) {
            self.output_tokens = Some(n);
        }
    }

    fn response(&self) -> ChatResponse {
        ChatResponse {
            text: self.text.clone(),
            stop_reason: self.stop_reason.clone(),
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
        }
    }
}

impl Assembler for Stream {
    fn on_event(&mut self, event: &str, data: &str) -> Result<Step, ProtoError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Step::Done);
        }
        let v = match serde_json::from_str::<Value>(data) {
            Ok(v) => v,
            // Some servers send `event: error` with plain text.
            Err(_) if event == "error" => {
                return Err(ProtoError::Provider {
                    message: data.to_string(),
                    retryable: false,
                });
            }
            Err(e) => return Err(ProtoError::Bad(format!("stream chunk is not JSON: {e}"))),
        };
        if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
            return Err(error_of(err));
        }
        if let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            // `reasoning_content` / `reasoning` deltas are thinking: not part of the answer.
            if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str) {
                self.chars += text.chars().count();
                self.text.push_str(text);
            }
            if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
                self.stop_reason = Some(r.to_string());
            }
        }
        self.take_usage(v.get("usage"));
        Ok(Step::Continue)
    }

    fn chars(&self) -> usize {
        self.chars
    }

    fn output_tokens(&self) -> Option<u64> {
        self.output_tokens
    }

    fn finish(&self) -> Result<ChatResponse, super::client::EndedEarly> {
        // A finish_reason means the model finished; only the usage chunk and [DONE]
        // can be missing then, and some servers never send [DONE].
        if self.done || self.stop_reason.is_some() {
            Ok(self.response())
        } else {
            Err(super::client::EndedEarly("a finish_reason or [DONE]"))
        }
    }

    fn parse_json(&mut self, v: &Value) -> Result<ChatResponse, ProtoError> {
        if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
            return Err(error_of(err));
        }
        let choice = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .ok_or_else(|| ProtoError::Bad("JSON response has no `choices`".to_string()))?;
        let content = choice.pointer("/message/content");
        self.text = match content {
            Some(Value::String(s)) => s.clone(),
            // Content-part arrays: keep the text parts.
            Some(Value::Array(parts)) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
            Some(Value::Null) | None => String::new(),
            Some(_) => return Err(ProtoError::Bad("`message.content` is not text".to_string())),
        };
        self.chars = self.text.chars().count();
        self.stop_reason = choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.take_usage(v.get("usage"));
        Ok(self.response())
    }
}

/// `{"message": "...", "type": "...", "code": ...}` or a plain string.
fn error_of(err: &Value) -> ProtoError {
    let message = match err {
        Value::String(s) => s.clone(),
        _ => {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)");
            match err.get("type").and_then(Value::as_str) {
                Some(t) => format!("{t}: {msg}"),
                None => msg.to_string(),
            }
        }
    };
    // OpenRouter forwards upstream HTTP statuses as numeric codes inside the stream.
    let retryable = err
        .get("code")
        .and_then(Value::as_u64)
        .is_some_and(|c| u16::try_from(c).is_ok_and(|c| RETRY_STATUSES.contains(&c)));
    ProtoError::Provider { message, retryable }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_forms() {
        assert_eq!(
            url("https://api.openai.com/v1"),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(url("http://h/v1/"), "http://h/v1/chat/completions");
        assert_eq!(
            url("http://h/v1/chat/completions"),
            "http://h/v1/chat/completions"
        );
    }

    #[test]
    fn assembles_chunks() {
        let mut s = Stream::default();
        for d in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#,
        ] {
            assert!(matches!(s.on_event("message", d), Ok(Step::Continue)));
        }
        assert!(matches!(s.on_event("message", "[DONE]"), Ok(Step::Done)));
        let r = s.finish().unwrap();
        assert_eq!(r.text, "Hello");
        assert_eq!(r.stop_reason.as_deref(), Some("stop"));
        assert_eq!((r.input_tokens, r.output_tokens), (Some(12), Some(3)));
    }

    #[test]
    fn in_stream_error() {
        let mut s = Stream::default();
        let e = s.on_event(
            "message",
            r#"{"error":{"message":"upstream down","code":502}}"#,
        );
        assert!(matches!(
            e,
            Err(ProtoError::Provider {
                retryable: true,
                ..
            })
        ));
    }

    #[test]
    fn json_body() {
        let mut s = Stream::default();
        let v = serde_json::json!({"choices":[{"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}});
        let r = s.parse_json(&v).unwrap();
        assert_eq!(r.text, "Hi");
        assert!(s.parse_json(&serde_json::json!({"nope":1})).is_err());
    }
}
