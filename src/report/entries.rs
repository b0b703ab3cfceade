//! Transcript entries for `show --entries`: readable text of each entry and its JSON form.

use crate::sanitize::for_terminal;
use crate::tokens::{self, MessageView};
use crate::transcript::{EntryKind, Transcript};
use serde::Serialize;
use serde_json::Value;

/// One entry in `show --json --entries`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryJson {
    pub index: u32,
    pub id: Option<String>,
    pub parent_id: Option<String>,
    pub line: u32,
    #[serde(rename = "type")]
    pub kind: String,
    pub role: Option<String>,
    pub estimate: u64,
    pub on_active_branch: bool,
    pub silent_flush_turn: bool,
    pub entry: Option<Value>,
    pub error: Option<String>,
}

fn type_and_role(t: &Transcript, idx: u32, v: Option<&Value>) -> (String, Option<String>) {
    let meta = &t.entries[idx as usize];
    let ty = v
        .and_then(|v| v.get("type"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let role = v
        .and_then(|v| v.pointer("/message/role"))
        .and_then(Value::as_str)
        .map(str::to_string);
    match meta.kind {
        EntryKind::Message(_) => (
            ty.unwrap_or_else(|| "message".into()),
            role.or_else(|| Some(meta.kind.name().into())),
        ),
        EntryKind::Unknown => (
            ty.or_else(|| meta.raw_type().map(str::to_string))
                .unwrap_or_else(|| "unknown".into()),
            role,
        ),
        k => (ty.unwrap_or_else(|| k.name().into()), None),
    }
}

/// True for an assistant message whose text is only `NO_REPLY`.
pub fn silent_turn(v: &Value) -> bool {
    v.get("message")
        .is_some_and(crate::transcript::content::is_silent_reply)
}

/// Text of a `content` field (string or blocks). With `all`, thinking and tool calls too.
fn content_text(c: Option<&Value>, all: bool) -> String {
    crate::transcript::content::text(c, "\n", &|ty, b| {
        if !all {
            return None;
        }
        Some(match ty {
            "thinking" => format!(
                "(thinking) {}",
                b.get("thinking").and_then(Value::as_str).unwrap_or("")
            ),
            "toolCall" => format!(
                "(tool call) {} {}",
                b.get("name").and_then(Value::as_str).unwrap_or("?"),
                b.get("arguments").map(Value::to_string).unwrap_or_default()
            ),
            "image" => format!(
                "(image {})",
                b.get("mimeType").and_then(Value::as_str).unwrap_or("")
            ),
            other => format!("({other} block)"),
        })
    })
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Readable body of an entry (not yet sanitized).
pub fn entry_body(t: &Transcript, idx: u32, v: &Value) -> String {
    match t.entries[idx as usize].kind {
        EntryKind::Message(_) => {
            let m = v.get("message").cloned().unwrap_or(Value::Null);
            match m.get("role").and_then(Value::as_str).unwrap_or("") {
                "toolResult" => {
                    let err = if m.get("isError").and_then(Value::as_bool) == Some(true) {
                        ", error"
                    } else {
                        ""
                    };
                    format!(
                        "(result of {}{err}) {}",
                        s(&m, "toolName"),
                        content_text(m.get("content"), true)
                    )
                }
                "bashExecution" => {
                    let code = m
                        .get("exitCode")
                        .map(Value::to_string)
                        .unwrap_or_else(|| "?".into());
                    format!("$ {}\n{}\n(exit {code})", s(&m, "command"), s(&m, "output"))
                }
                "branchSummary" | "compactionSummary" => s(&m, "summary").to_string(),
                "assistant" if crate::tokens::is_gateway_notice(&m) => format!(
                    "(gateway /compact status notice, not a model reply; its zero usage is not a measurement) {}",
                    content_text(m.get("content"), true)
                ),
                _ => content_text(m.get("content"), true),
            }
        }
        EntryKind::Compaction => s(v, "summary").to_string(),
        EntryKind::BranchSummary => s(v, "summary").to_string(),
        EntryKind::CustomMessage => format!(
            "({}) {}",
            s(v, "customType"),
            content_text(v.get("content"), true)
        ),
        EntryKind::Custom => format!(
            "({}) {}",
            s(v, "customType"),
            v.get("data").map(Value::to_string).unwrap_or_default()
        ),
        EntryKind::ModelChange => format!("model -> {}/{}", s(v, "provider"), s(v, "modelId")),
        EntryKind::ThinkingLevelChange => format!("thinking level -> {}", s(v, "thinkingLevel")),
        EntryKind::Label => format!("label {:?} on {}", s(v, "label"), s(v, "targetId")),
        EntryKind::SessionInfo => format!("session name {:?}", s(v, "name")),
        EntryKind::Unknown => t
            .raw_line(idx)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|e| e.to_string()),
    }
}

/// Text blocks for the active branch.
pub fn render_text(t: &Transcript) -> String {
    let mut out = Vec::new();
    let _ = write_text(t, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`render_text`] written entry by entry, so memory is bounded by one entry, not the file.
pub fn write_text(t: &Transcript, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    for idx in t.active_branch() {
        let meta = &t.entries[idx as usize];
        let v = t.entry_json(idx);
        let (ty, role) = type_and_role(t, idx, v.as_ref().ok());
        let what = match role {
            Some(r) => format!("{ty}/{r}"),
            None => ty,
        };
        let est = tokens::estimate_entry(t, idx, MessageView::Context);
        let mut head = format!(
            "[{idx}] {} {} ~{est} tok (line {})",
            t.display_id(idx),
            what,
            meta.line
        );
        let body = match &v {
            Ok(v) => {
                if meta.kind == EntryKind::Compaction {
                    let fk = v
                        .get("firstKeptEntryId")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .or_else(|| t.first_kept_of(idx, v).map(|i| t.display_id(i)));
                    head.push_str(&format!(
                        "  tokensBefore {}  firstKeptEntryId {}",
                        v.get("tokensBefore")
                            .map(Value::to_string)
                            .unwrap_or_else(|| "?".into()),
                        fk.unwrap_or_else(|| "?".into())
                    ));
                }
                if silent_turn(v) {
                    head.push_str("  [silent flush turn: NO_REPLY]");
                }
                entry_body(t, idx, v)
            }
            Err(e) => format!("(cannot decode: {e})"),
        };
        let mut block = for_terminal(&head, false);
        block.push('\n');
        for l in for_terminal(&body, true).lines() {
            block.push_str("    ");
            block.push_str(l);
            block.push('\n');
        }
        block.push('\n');
        w.write_all(block.as_bytes())?;
    }
    Ok(())
}

/// Every entry with its active-branch flag, for JSON.
pub fn to_json(t: &Transcript) -> Vec<EntryJson> {
    let on = active_flags(t);
    (0..t.len() as u32)
        .map(|idx| entry_to_json(t, idx, &on))
        .collect()
}

fn active_flags(t: &Transcript) -> Vec<bool> {
    let mut on = vec![false; t.len()];
    for i in t.active_branch() {
        on[i as usize] = true;
    }
    on
}

fn entry_to_json(t: &Transcript, idx: u32, on: &[bool]) -> EntryJson {
    let meta = &t.entries[idx as usize];
    let v = t.entry_json(idx);
    let (kind, role) = type_and_role(t, idx, v.as_ref().ok());
    let parent_id = t.written_parent_id(idx).map(String::from).or_else(|| {
        if t.version < 2 {
            meta.parent().map(|p| t.display_id(p))
        } else {
            None
        }
    });
    let (entry, error) = match v {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e.to_string())),
    };
    EntryJson {
        index: idx,
        id: t.entry_id(idx).map(String::from),
        parent_id,
        line: meta.line,
        kind,
        role,
        estimate: tokens::estimate_entry(t, idx, MessageView::Context),
        on_active_branch: on[idx as usize],
        silent_flush_turn: entry.as_ref().is_some_and(silent_turn),
        entry,
        error,
    }
}

/// The JSON array of [`to_json`], written one entry at a time at `indent` (the array's own
/// indentation inside pretty-printed JSON), byte-identical to pretty-printing the whole array.
pub fn write_json_array(
    t: &Transcript,
    indent: &str,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if t.is_empty() {
        return w.write_all(b"[]");
    }
    let on = active_flags(t);
    w.write_all(b"[\n")?;
    let inner = format!("{indent}  ");
    for idx in 0..t.len() as u32 {
        let e = entry_to_json(t, idx, &on);
        let text = super::json::to_string(&e);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        if idx > 0 {
            w.write_all(b",\n")?;
        }
        for (k, line) in text.split('\n').enumerate() {
            if k > 0 {
                w.write_all(b"\n")?;
            }
            w.write_all(inner.as_bytes())?;
            w.write_all(line.as_bytes())?;
        }
    }
    w.write_all(b"\n")?;
    w.write_all(indent.as_bytes())?;
    w.write_all(b"]")
}

#[cfg(test)]
mod tests {
    #[test]
    fn silent() {
        // One NO_REPLY check for the transcript and the flush (crate::flush::is_no_reply).
        let is_silent_reply = crate::flush::is_no_reply;
        assert!(is_silent_reply("NO_REPLY"));
        assert!(is_silent_reply("  no_reply NO_REPLY. "));
        assert!(!is_silent_reply(""));
        assert!(!is_silent_reply("NO_REPLY but more"));
    }
}
