//! The text of a message's `content`, extracted one way for every reader (the transcript
//! screens, `show --entries`, the NO_REPLY check). `content` is a string, or an array of
//! blocks (`text`, `thinking`, `toolCall`, `image`, ...).

use serde_json::Value;

/// A string as it is; in an array, each `text` block's text, and for every other block what
/// `other(type, block)` renders (None: left out), joined by `sep`. Null or absent content is
/// empty; any other JSON value is shown as JSON.
pub fn text(
    content: Option<&Value>,
    sep: &str,
    other: &dyn Fn(&str, &Value) -> Option<String>,
) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(
                |b| match b.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => Some(
                        b.get("text")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    ),
                    ty => other(ty, b),
                },
            )
            .collect::<Vec<_>>()
            .join(sep),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

/// Only the text: the `text` blocks, one per line.
pub fn plain(content: Option<&Value>) -> String {
    text(content, "\n", &|_, _| None)
}

/// An assistant message that says only `NO_REPLY` (OpenClaw's silent reply, see
/// [`crate::flush::is_no_reply`], the one check): a silent memory-flush turn.
pub fn is_silent_reply(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("assistant")
        && crate::flush::is_no_reply(&plain(message.get("content")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_extraction_and_one_no_reply_check() {
        let m = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "**NO_REPLY**"}]});
        assert_eq!(plain(m.get("content")), "**NO_REPLY**");
        assert!(is_silent_reply(&m));
        assert!(is_silent_reply(
            &json!({"role": "assistant", "content": " no_reply. "})
        ));
        assert!(!is_silent_reply(
            &json!({"role": "user", "content": "NO_REPLY"})
        ));
        assert!(!is_silent_reply(
            &json!({"role": "assistant", "content": "NO_REPLY but more"})
        ));
        let c = json!(["x", {"type": "text", "text": "a"}, {"type": "image"}]);
        let shown = text(Some(&c), " ", &|ty, _| Some(format!("[{ty}]")));
        assert_eq!(shown, "[] a [image]");
        assert_eq!(plain(Some(&json!(42))), "42");
    }
}
