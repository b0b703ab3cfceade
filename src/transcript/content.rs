//! The text of a message's `content`, extracted one way for every reader (the transcript
//! screens, `show --entries`, the NO_REPLY check). `content` is a string, or an array of
//! blocks (`text`, `thinking`, `toolCall`, `image`, ...).
//!
//! The silent-reply test lives here, not in `flush`, because reading a transcript needs it
//! (a silent flush turn) and the transcript sits below the flush; `flush` re-exports it.

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
/// [`is_no_reply`], the one check): a silent memory-flush turn.
pub fn is_silent_reply(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("assistant")
        && is_no_reply(&plain(message.get("content")))
}

/// The silent token (OpenClaw `SILENT_REPLY_TOKEN`).
pub const SILENT_TOKEN: &str = "NO_REPLY";

/// Characters stripped from both ends before the silent-token test (OpenClaw strips edge
/// punctuation): ASCII punctuation and the common Unicode quotes, dashes and ellipses.
fn is_edge_punct(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            c,
            '…' | '“'
                | '”'
                | '‘'
                | '’'
                | '«'
                | '»'
                | '‹'
                | '›'
                | '—'
                | '–'
                | '¡'
                | '¿'
                | '。'
                | '、'
                | '！'
                | '？'
                | '．'
                | '，'
        )
}

fn only_silent_tokens(s: &str) -> bool {
    let mut n = 0;
    for w in s.split_whitespace() {
        if !w.eq_ignore_ascii_case(SILENT_TOKEN) {
            return false;
        }
        n += 1;
    }
    n > 0
}

/// True when the whole reply is the silent token (docs/memory-flush.md §3): it matches
/// `^\s*NO_REPLY(?:\s+NO_REPLY)*\s*$` case-insensitively, also after stripping edge
/// punctuation (so `` `NO_REPLY` ``, `**NO_REPLY**`, ` no_reply. ` count), or is the JSON
/// envelope `{"action":"NO_REPLY"}`. `NO_REPLY but …` does not count.
pub fn is_no_reply(text: &str) -> bool {
    let t = text.trim();
    if only_silent_tokens(t) {
        return true;
    }
    let stripped = t.trim_matches(|c: char| c.is_whitespace() || is_edge_punct(c));
    if only_silent_tokens(stripped) {
        return true;
    }
    if t.starts_with('{') {
        if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(t) {
            if let Some(a) = m.get("action").and_then(Value::as_str) {
                return a.trim().eq_ignore_ascii_case(SILENT_TOKEN);
            }
        }
    }
    false
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
