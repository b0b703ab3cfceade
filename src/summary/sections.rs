//! The sections appended after the model's summary, in the shape OpenClaw's safeguard
//! writes them (docs/pi-compaction.md §5, §8): tool failures, then the
//! `<read-files>` / `<modified-files>` blocks.

use crate::jsjson::utf16_len;
use serde_json::Value;
use std::collections::HashSet;

pub const MAX_TOOL_FAILURES: usize = 8;
pub const MAX_TOOL_FAILURE_CHARS: usize = 240;

/// One failed tool call as listed in the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFailure {
    pub tool: String,
    pub meta: String,
    pub summary: String,
}

fn cut_utf16(s: &str, units: usize) -> String {
    let mut n = 0;
    let mut out = String::new();
    for c in s.chars() {
        n += c.len_utf16();
        if n > units {
            break;
        }
        out.push(c);
    }
    out
}

/// Failed tool results (`isError: true`), first occurrence of each toolCallId.
pub fn tool_failures(messages: &[Value]) -> Vec<ToolFailure> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for m in messages {
        if m.get("role").and_then(Value::as_str) != Some("toolResult")
            || m.get("isError") != Some(&Value::Bool(true))
        {
            continue;
        }
        let Some(id) = m
            .get("toolCallId")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            continue;
        };
        if !seen.insert(id.to_string()) {
            continue;
        }
        let tool = m
            .get("toolName")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("tool")
            .to_string();
        let text = match m.get("content") {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let details = m.get("details");
        let mut meta = Vec::new();
        if let Some(s) = details
            .and_then(|d| d.get("status"))
            .and_then(Value::as_str)
        {
            meta.push(format!("status={s}"));
        }
        if let Some(c) = details
            .and_then(|d| d.get("exitCode"))
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite())
        {
            meta.push(format!("exitCode={}", crate::jsjson::js_number(c)));
        }
        let meta = meta.join(" ");
        let mut summary = if !text.is_empty() {
            text
        } else if !meta.is_empty() {
            "failed".to_string()
        } else {
            "failed (no output)".to_string()
        };
        if utf16_len(&summary) > MAX_TOOL_FAILURE_CHARS {
            summary = format!("{}...", cut_utf16(&summary, MAX_TOOL_FAILURE_CHARS - 3));
        }
        out.push(ToolFailure {
            tool,
            meta,
            summary,
        });
    }
    out
}

/// `\n\n## Tool Failures\n- tool (meta): summary ...` or "" when there are none.
pub fn tool_failures_section(failures: &[ToolFailure]) -> String {
    if failures.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = failures
        .iter()
        .take(MAX_TOOL_FAILURES)
        .map(|f| {
            if f.meta.is_empty() {
                format!("- {}: {}", f.tool, f.summary)
            } else {
                format!("- {} ({}): {}", f.tool, f.meta, f.summary)
            }
        })
        .collect();
    if failures.len() > MAX_TOOL_FAILURES {
        lines.push(format!(
            "- ...and {} more",
            failures.len() - MAX_TOOL_FAILURES
        ));
    }
    format!("\n\n## Tool Failures\n{}", lines.join("\n"))
}

/// `formatFileOperations(readFiles, modifiedFiles)`.
pub fn file_operations_section(read: &[String], modified: &[String]) -> String {
    let mut sections = Vec::new();
    if !read.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", read.join("\n")));
    }
    if !modified.is_empty() {
        sections.push(format!(
            "<modified-files>\n{}\n</modified-files>",
            modified.join("\n")
        ));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.join("\n\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fail(id: &str, text: &str) -> Value {
        json!({"role":"toolResult","toolCallId":id,"toolName":"exec","isError":true,"content":[{"type":"text","text":text}],"details":{"exitCode":1}})
    }

    #[test]
    fn nine_failures_list_eight_and_more() {
        let msgs: Vec<Value> = (0..9)
            .map(|i| fail(&format!("c{i}"), &format!("boom {i}")))
            .collect();
        let s = tool_failures_section(&tool_failures(&msgs));
        assert_eq!(
            s.lines()
                .filter(|l| l.starts_with("- exec (exitCode=1): boom"))
                .count(),
            8
        );
        assert!(s.ends_with("- ...and 1 more"));
        assert_eq!(tool_failures_section(&[]), "");
    }

    #[test]
    fn failures_are_capped_and_deduplicated() {
        let long = "x ".repeat(400);
        let msgs = vec![
            fail("a", &long),
            fail("a", "again"),
            json!({"role":"toolResult","toolCallId":"b","isError":false,"content":[]}),
        ];
        let f = tool_failures(&msgs);
        assert_eq!(f.len(), 1);
        assert_eq!(utf16_len(&f[0].summary), 240);
        assert!(f[0].summary.ends_with("..."));
    }

    #[test]
    fn file_sections() {
        assert_eq!(file_operations_section(&[], &[]), "");
        assert_eq!(
            file_operations_section(&["a".into()], &["b".into(), "c".into()]),
            "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nb\nc\n</modified-files>"
        );
    }
}
