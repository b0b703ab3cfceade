//! The conversation as the summarizing model reads it: pi's `convertToLlm` followed by
//! `serializeConversation` (docs/pi-compaction.md §2).

use crate::jsjson::{stringify, utf16_len};
use serde_json::Value;

/// Tool results longer than this (UTF-16 units) are cut in the serialized conversation.
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

fn text_blocks(content: Option<&Value>, sep: &str) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(sep),
        _ => String::new(),
    }
}

fn s<'a>(m: &'a Value, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

/// `convertToLlm` for one message: user-visible text of the non-native roles, or the message
/// unchanged. `None` drops it (bash runs excluded from context).
pub fn to_llm(m: &Value) -> Option<Value> {
    let user = |text: String| serde_json::json!({"role": "user", "content": [{"type": "text", "text": text}]});
    match s(m, "role") {
        "bashExecution" => {
            if m.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            let output = s(m, "output");
            let mut t = format!("Ran `{}`\n", s(m, "command"));
            if output.is_empty() {
                t.push_str("(no output)");
            } else {
                t.push_str(&format!("```\n{output}\n```"));
            }
            if m.get("cancelled").and_then(Value::as_bool) == Some(true) {
                t.push_str("\n\n(command cancelled)");
            } else if let Some(code) = m
                .get("exitCode")
                .and_then(Value::as_i64)
                .filter(|c| *c != 0)
            {
                t.push_str(&format!("\n\nCommand exited with code {code}"));
            }
            if m.get("truncated").and_then(Value::as_bool) == Some(true) {
                if let Some(p) = m
                    .get("fullOutputPath")
                    .and_then(Value::as_str)
                    .filter(|p| !p.is_empty())
                {
                    t.push_str(&format!("\n\n[Output truncated. Full output: {p}]"));
                }
            }
            Some(user(t))
        }
        "custom" => Some(match m.get("content") {
            Some(Value::String(c)) => user(c.clone()),
            Some(c) => serde_json::json!({"role": "user", "content": c}),
            None => user(String::new()),
        }),
        "branchSummary" => Some(user(format!(
            "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n{}</summary>",
            s(m, "summary")
        ))),
        "compactionSummary" => Some(user(format!(
            "The conversation history before this point was compacted into the following summary:\n\n<summary>\n{}\n</summary>",
            s(m, "summary")
        ))),
        _ => Some(m.clone()),
    }
}

/// Cuts at a UTF-16 boundary like JavaScript's `slice(0, n)` (which may split a pair; a
/// split pair's lone high surrogate cannot exist in a Rust string, so it is dropped).
fn js_prefix(s: &str, n: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        let l = c.len_utf16();
        if units + l > n {
            return &s[..i];
        }
        units += l;
    }
    s
}

/// `serializeConversation(convertToLlm(messages))`.
pub fn serialize(messages: &[Value]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for raw in messages {
        let Some(m) = to_llm(raw) else { continue };
        match s(&m, "role") {
            "user" => {
                let t = text_blocks(m.get("content"), "");
                if !t.is_empty() {
                    parts.push(format!("[User]: {t}"));
                }
            }
            "assistant" => {
                let (mut thinking, mut text, mut calls) = (Vec::new(), Vec::new(), Vec::new());
                for b in m
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match b.get("type").and_then(Value::as_str) {
                        Some("thinking") => thinking.push(s(b, "thinking").to_string()),
                        Some("text") => text.push(s(b, "text").to_string()),
                        Some("toolCall") => {
                            let args = match b.get("arguments") {
                                Some(Value::Object(a)) => a
                                    .iter()
                                    .map(|(k, v)| format!("{k}={}", stringify(v)))
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                _ => String::new(),
                            };
                            calls.push(format!("{}({args})", s(b, "name")));
                        }
                        _ => {}
                    }
                }
                if !thinking.is_empty() {
                    parts.push(format!("[Assistant thinking]: {}", thinking.join("\n")));
                }
                if !text.is_empty() {
                    parts.push(format!("[Assistant]: {}", text.join("\n")));
                }
                if !calls.is_empty() {
                    parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            "toolResult" => {
                let t = text_blocks(m.get("content"), "");
                if t.is_empty() {
                    continue;
                }
                let len = utf16_len(&t);
                if len > TOOL_RESULT_MAX_CHARS {
                    parts.push(format!(
                        "[Tool result]: {}\n\n[... {} more characters truncated]",
                        js_prefix(&t, TOOL_RESULT_MAX_CHARS),
                        len - TOOL_RESULT_MAX_CHARS
                    ));
                } else {
                    parts.push(format!("[Tool result]: {t}"));
                }
            }
            _ => {}
        }
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_pi_serialization_vector() {
        let msgs = vec![
            json!({"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"b"}]}),
            json!({"role":"assistant","content":[
                {"type":"thinking","thinking":"think1"},{"type":"text","text":"t1"},
                {"type":"toolCall","id":"1","name":"read","arguments":{"path":"foo.ts","offset":10}},
                {"type":"thinking","thinking":"think2"},{"type":"text","text":"t2"},
                {"type":"toolCall","id":"2","name":"bash","arguments":{"command":"ls \"x\""}}]}),
            json!({"role":"toolResult","content":[{"type":"text","text":"r1"},{"type":"text","text":"r2"}]}),
            json!({"role":"toolResult","content":[{"type":"image","data":"x","mimeType":"image/png"}]}),
            json!({"role":"user","content":""}),
        ];
        assert_eq!(
            serialize(&msgs),
            "[User]: ab\n\n[Assistant thinking]: think1\nthink2\n\n[Assistant]: t1\nt2\n\n[Assistant tool calls]: read(path=\"foo.ts\", offset=10); bash(command=\"ls \\\"x\\\"\")\n\n[Tool result]: r1r2"
        );
    }

    #[test]
    fn long_tool_results_are_cut() {
        let r = json!({"role":"toolResult","content":[{"type":"text","text":"x".repeat(5000)}]});
        let out = serialize(&[r]);
        assert_eq!(
            out,
            format!(
                "[Tool result]: {}\n\n[... 3000 more characters truncated]",
                "x".repeat(2000)
            )
        );
        assert_eq!(out.len(), 2053);
        let r = json!({"role":"toolResult","content":[{"type":"text","text":"x".repeat(1500)}]});
        assert_eq!(
            serialize(&[r]),
            format!("[Tool result]: {}", "x".repeat(1500))
        );
        let u = json!({"role":"user","content":"y".repeat(5000)});
        assert_eq!(serialize(&[u]).len(), 5000 + 8);
    }
}
