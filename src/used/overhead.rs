//! The part of every model call that is not in the transcript: the system prompt, tool
//! schemas and the workspace files OpenClaw injects. Measured as the last call's prompt
//! (`input + cacheRead + cacheWrite` of the last assistant usage) minus pi's estimate of the
//! context messages that call was sent; attributed, where knowable, to the bootstrap files
//! (as on disk now, truncated at `bootstrapMaxChars`) or to the entry's `systemPromptReport`
//! (what the last run actually injected), the rest to "system prompt and tools".

use super::check::prompt_tokens;
use crate::context;
use crate::jsjson::utf16_len;
use crate::tokens;
use crate::transcript::{EntryKind, Role, Transcript};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// The workspace files OpenClaw injects into the system prompt, in its order.
pub const BOOTSTRAP_FILES: [&str; 7] = [
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
];

/// OpenClaw's default `agents.defaults.bootstrapMaxChars` (per file).
pub const DEFAULT_BOOTSTRAP_MAX_CHARS: u64 = 20_000;

/// One part of the overhead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OverheadPart {
    /// A file name ("AGENTS.md") or "system prompt and tools".
    pub name: String,
    pub tokens: u64,
    /// Characters injected (files), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars: Option<u64>,
    /// True when a file was cut at bootstrapMaxChars.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Overhead {
    pub tokens: u64,
    /// The call it was measured on.
    pub entry_id: Option<String>,
    pub prompt_tokens: u64,
    /// pi's estimate of the messages that call was sent.
    pub messages_tokens: u64,
    /// "workspace files on disk" | "systemPromptReport" | "unknown".
    pub files_from: &'static str,
    pub parts: Vec<OverheadPart>,
}

/// The last assistant call on the active branch with a usage that measured a prompt.
fn last_measured_call(t: &Transcript) -> Option<(usize, u32, u64)> {
    let path = t.active_branch();
    for (pos, &i) in path.iter().enumerate().rev() {
        if t.entries[i as usize].kind != EntryKind::Message(Role::Assistant) {
            continue;
        }
        let Ok(v) = t.entry_json(i) else { continue };
        let Some(u) = v.get("message").and_then(tokens::valid_usage) else {
            continue;
        };
        let p = prompt_tokens(u);
        if p > 0 {
            return Some((pos, i, p));
        }
    }
    None
}

/// Files as on disk in `workspace`, each truncated at `max_chars`; None without a workspace.
pub fn workspace_files(workspace: &Path, max_chars: u64) -> Vec<OverheadPart> {
    let mut out = Vec::new();
    for name in BOOTSTRAP_FILES {
        let Ok(text) = crate::regular_file::read_to_string(&workspace.join(name)) else {
            continue;
        };
        // JavaScript string lengths (UTF-16 units), as OpenClaw counts bootstrapMaxChars.
        let chars = utf16_len(&text) as u64;
        let injected = chars.min(max_chars);
        out.push(OverheadPart {
            name: name.to_string(),
            tokens: crate::jsjson::ceil_div4(injected as usize),
            chars: Some(injected),
            truncated: chars > max_chars,
        });
    }
    out
}

/// Files from a `systemPromptReport` (`injectedWorkspaceFiles[].injectedChars`).
pub fn report_files(report: &Value) -> Option<Vec<OverheadPart>> {
    let files = report.get("injectedWorkspaceFiles")?.as_array()?;
    Some(
        files
            .iter()
            .filter(|f| f.get("missing").and_then(Value::as_bool) != Some(true))
            .filter_map(|f| {
                let name = f.get("name")?.as_str()?;
                let chars = f.get("injectedChars").and_then(Value::as_u64)?;
                Some(OverheadPart {
                    name: crate::sanitize::one_line(name),
                    tokens: crate::jsjson::ceil_div4(chars as usize),
                    chars: Some(chars),
                    truncated: f.get("truncated").and_then(Value::as_bool) == Some(true),
                })
            })
            .collect(),
    )
}

pub const REST: &str = "system prompt and tools";

/// The overhead of the last call and where it comes from; None when no call measured a prompt.
pub fn measure(
    t: &Transcript,
    workspace: Option<&Path>,
    prompt_report: Option<&Value>,
    bootstrap_max_chars: u64,
) -> Option<Overhead> {
    let (pos, entry, prompt) = last_measured_call(t)?;
    let path = t.active_branch();
    // The context as it stood when the call was made: the branch up to its parent.
    let messages_tokens = if pos == 0 {
        0
    } else {
        // Summed slot by slot: the messages are never all held at once.
        let before = context::build(t, Some(path[pos - 1]));
        context::prefill(t, &before.slots);
        before
            .slots
            .iter()
            .map(|&s| context::slot_tokens(t, s))
            .sum()
    };
    let tokens = prompt.saturating_sub(messages_tokens);
    let (files_from, mut parts) = match (prompt_report.and_then(report_files), workspace) {
        (Some(p), _) => ("systemPromptReport", p),
        (None, Some(w)) if w.is_dir() => (
            "workspace files on disk",
            workspace_files(w, bootstrap_max_chars),
        ),
        _ => ("unknown", Vec::new()),
    };
    // Files cannot cost more than the overhead they are part of.
    let mut left = tokens;
    for p in parts.iter_mut() {
        p.tokens = p.tokens.min(left);
        left -= p.tokens;
    }
    parts.push(OverheadPart {
        name: REST.into(),
        tokens: left,
        chars: None,
        truncated: false,
    });
    Some(Overhead {
        tokens,
        entry_id: t.entry_id(entry).map(String::from),
        prompt_tokens: prompt,
        messages_tokens,
        files_from,
        parts,
    })
}

/// `bootstrapMaxChars` from the config (`agents.defaults.bootstrapMaxChars`), else the default.
pub fn bootstrap_max_chars(config: &Value) -> u64 {
    config
        .pointer("/agents/defaults/bootstrapMaxChars")
        .and_then(crate::store_entry::non_negative)
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_BOOTSTRAP_MAX_CHARS)
}

/// The `systemPromptReport` of one store entry, read from the store file (only `show` and the
/// compaction preview need it, so the listing's streaming parse does not keep it).
pub fn read_prompt_report(store_path: &Path, key: &str) -> Option<Value> {
    let bytes = crate::regular_file::read(store_path).ok()?;
    let entries: std::collections::HashMap<String, &serde_json::value::RawValue> =
        serde_json::from_slice(&bytes).ok()?;
    let entry: serde_json::Map<String, Value> =
        serde_json::from_str(entries.get(key)?.get()).ok()?;
    entry
        .get("systemPromptReport")
        .filter(|v| v.is_object())
        .cloned()
}
