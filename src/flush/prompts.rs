//! The flush prompts (docs/memory-flush.md §2) and the silent-reply test (§3).
//!
//! The defaults are OpenClaw 2026.2.26's strings, quoted exactly. Config
//! `agents.defaults.compaction.memoryFlush.systemPrompt` / `.prompt` replace them when set
//! (non-blank strings). Then, like OpenClaw:
//! - `YYYY-MM-DD` is replaced with the flush date everywhere;
//! - a prompt that never mentions `NO_REPLY` gets a hint appended after a blank line
//!   (clawtop's own sentence, [`NO_REPLY_HINT`]).
//!
//! clawtop-specific: in OpenClaw the flush is an agentic turn where the model writes the
//! file with its tools. Here the model has no tools; its answer *is* the notes. The system
//! prompt therefore always ends with [`clawtop_note`], which says so.

use serde::Serialize;
use serde_json::Value;

pub use crate::transcript::content::{SILENT_TOKEN, is_no_reply};

/// OpenClaw 2026.2.26's default flush prompt (docs/memory-flush.md §2), verbatim.
pub const DEFAULT_PROMPT_2026_2_26: &str = "Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md; create memory/ if needed). IMPORTANT: If the file already exists, APPEND new content only and do not overwrite existing entries. If nothing to store, reply with NO_REPLY.";

/// OpenClaw 2026.2.26's default flush system prompt (docs/memory-flush.md §2), verbatim.
pub const DEFAULT_SYSTEM_PROMPT_2026_2_26: &str = "Pre-compaction memory flush turn. The session is near auto-compaction; capture durable memories to disk. You may reply, but usually NO_REPLY is correct.";

/// The date placeholder OpenClaw replaces.
pub const DATE_PLACEHOLDER: &str = "YYYY-MM-DD";

/// Appended (after a blank line) to a configured prompt that does not mention `NO_REPLY`.
/// clawtop's wording.
pub const NO_REPLY_HINT: &str =
    "If there is nothing worth storing, answer with exactly NO_REPLY and nothing else.";

/// Config paths, for display.
pub const CONFIG_PROMPT_PATH: &str = "agents.defaults.compaction.memoryFlush.prompt";
pub const CONFIG_SYSTEM_PROMPT_PATH: &str = "agents.defaults.compaction.memoryFlush.systemPrompt";

/// Where a prompt came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PromptSource {
    /// The config key (see [`CONFIG_PROMPT_PATH`], [`CONFIG_SYSTEM_PROMPT_PATH`]).
    Config,
    /// OpenClaw 2026.2.26's built-in default.
    Default,
}

impl PromptSource {
    /// Short label for the dialog and `--json` (`config` / `default`).
    pub fn name(self) -> &'static str {
        match self {
            PromptSource::Config => "config",
            PromptSource::Default => "default",
        }
    }
}

/// The prompts a flush request will use, final text (date filled in, hints appended).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushPrompts {
    pub system: String,
    pub prompt: String,
    pub system_source: PromptSource,
    pub prompt_source: PromptSource,
    /// The host's release: on OpenClaw 2026.9 the flush prompts are not configurable and its
    /// own are not clawtop's defaults, so the labels say whose text this is.
    #[serde(skip)]
    pub host_rules: crate::thresholds::Rules,
}

impl FlushPrompts {
    /// Human description of a source, e.g. `config agents.defaults.compaction.memoryFlush.prompt`
    /// or `OpenClaw 2026.2.26 default`.
    pub fn describe(source: PromptSource, system: bool) -> String {
        match (source, system) {
            (PromptSource::Config, true) => format!("config {CONFIG_SYSTEM_PROMPT_PATH}"),
            (PromptSource::Config, false) => format!("config {CONFIG_PROMPT_PATH}"),
            (PromptSource::Default, _) => "OpenClaw 2026.2.26 default".to_string(),
        }
    }

    /// [`Self::describe`] for this host: on an OpenClaw 2026.9 host the default is clawtop's
    /// (2026.2.26's text; 2026.9's own flush prompt is neither configurable nor this one).
    pub fn describe_for_host(&self, system: bool) -> String {
        let source = if system {
            self.system_source
        } else {
            self.prompt_source
        };
        match (source, self.host_rules) {
            (PromptSource::Default, crate::thresholds::Rules::V2026_9) => {
                "clawtop default (2026.2.26 text; 2026.9 host)".to_string()
            }
            _ => Self::describe(source, system),
        }
    }
}

/// clawtop's note to the model (appended to the system prompt after a blank line): no tools,
/// the answer is appended verbatim as Markdown to `memory/<date>.md`.
pub fn clawtop_note(date: &str) -> String {
    format!(
        "This flush runs without tools: you cannot read or write files. Your answer itself is the memory. \
         After the operator reviews it, it is appended verbatim, as Markdown, to memory/{date}.md in the agent workspace. \
         Answer with only the notes to append (no preamble, no closing remarks), or with exactly NO_REPLY if nothing is worth keeping."
    )
}

fn configured<'a>(config: &'a Value, pointer: &str) -> Option<&'a str> {
    config
        .pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// `ensureNoReplyHint`: append the hint after a blank line unless `NO_REPLY` already occurs.
fn ensure_no_reply_hint(text: String) -> String {
    if text.contains(SILENT_TOKEN) {
        text
    } else {
        format!("{}\n\n{NO_REPLY_HINT}", text.trim_end())
    }
}

/// The prompts for a flush on `date` (`YYYY-MM-DD`): config values when set, else OpenClaw
/// 2026.2.26's defaults; `YYYY-MM-DD` replaced everywhere; `NO_REPLY` hint ensured; the
/// system prompt followed by [`clawtop_note`].
pub fn resolve_prompts(config: &Value, date: &str) -> FlushPrompts {
    let pick = |pointer: &str, default: &str| match configured(config, pointer) {
        Some(s) => (s.to_string(), PromptSource::Config),
        None => (default.to_string(), PromptSource::Default),
    };
    let (system, system_source) = pick(
        "/agents/defaults/compaction/memoryFlush/systemPrompt",
        DEFAULT_SYSTEM_PROMPT_2026_2_26,
    );
    let (prompt, prompt_source) = pick(
        "/agents/defaults/compaction/memoryFlush/prompt",
        DEFAULT_PROMPT_2026_2_26,
    );
    let system = ensure_no_reply_hint(system.replace(DATE_PLACEHOLDER, date));
    let prompt = ensure_no_reply_hint(prompt.replace(DATE_PLACEHOLDER, date));
    let system = format!("{}\n\n{}", system.trim_end(), clawtop_note(date));
    FlushPrompts {
        system,
        prompt,
        system_source,
        prompt_source,
        host_rules: crate::thresholds::Rules::V2026_2,
    }
}

/// [`resolve_prompts`] for a host of release `rules` (the labels: [`FlushPrompts::describe_for_host`]).
pub fn resolve_prompts_for(
    config: &Value,
    date: &str,
    rules: crate::thresholds::Rules,
) -> FlushPrompts {
    FlushPrompts {
        host_rules: rules,
        ..resolve_prompts(config, date)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Issue 33 item 6: on a 2026.9 host the default is not labelled as that host's.
    #[test]
    fn the_default_on_a_2026_9_host_is_labelled_clawtops() {
        use crate::thresholds::Rules;
        let p = resolve_prompts_for(&json!({}), "2026-11-21", Rules::V2026_9);
        assert_eq!(
            p.describe_for_host(false),
            "clawtop default (2026.2.26 text; 2026.9 host)"
        );
        let p = resolve_prompts_for(&json!({}), "2026-11-21", Rules::V2026_2);
        assert_eq!(p.describe_for_host(true), "OpenClaw 2026.2.26 default");
    }

    #[test]
    fn defaults_are_the_2026_2_26_strings_with_the_date() {
        let p = resolve_prompts(&json!({}), "2026-11-21");
        assert_eq!(p.prompt_source, PromptSource::Default);
        assert_eq!(p.system_source, PromptSource::Default);
        assert_eq!(
            p.prompt,
            "Pre-compaction memory flush. Store durable memories now (use memory/2026-11-21.md; create memory/ if needed). IMPORTANT: If the file already exists, APPEND new content only and do not overwrite existing entries. If nothing to store, reply with NO_REPLY."
        );
        assert!(p.system.starts_with(
            "Pre-compaction memory flush turn. The session is near auto-compaction; capture durable memories to disk. You may reply, but usually NO_REPLY is correct.\n\n"
        ));
        assert!(p.system.ends_with(&clawtop_note("2026-11-21")));
        assert!(p.system.contains("memory/2026-11-21.md"));
        assert!(!p.system.contains(DATE_PLACEHOLDER) && !p.prompt.contains(DATE_PLACEHOLDER));
        // The defaults already carry NO_REPLY: no hint appended.
        assert!(!p.prompt.contains(NO_REPLY_HINT) && !p.system.contains(NO_REPLY_HINT));
    }

    #[test]
    fn config_overrides_with_date_everywhere_and_hint() {
        let cfg = json!({"agents": {"defaults": {"compaction": {"memoryFlush": {
            "prompt": "Write YYYY-MM-DD notes to memory/YYYY-MM-DD.md.",
            "systemPrompt": "Flush now. NO_REPLY if idle."
        }}}}});
        let p = resolve_prompts(&cfg, "2027-01-02");
        assert_eq!(p.prompt_source, PromptSource::Config);
        assert_eq!(p.system_source, PromptSource::Config);
        assert_eq!(
            p.prompt,
            format!("Write 2027-01-02 notes to memory/2027-01-02.md.\n\n{NO_REPLY_HINT}")
        );
        assert_eq!(
            p.system,
            format!(
                "Flush now. NO_REPLY if idle.\n\n{}",
                clawtop_note("2027-01-02")
            )
        );
        // Blank config values fall back to the defaults.
        let cfg = json!({"agents": {"defaults": {"compaction": {"memoryFlush": {"prompt": "  ", "systemPrompt": 7}}}}});
        let p = resolve_prompts(&cfg, "2027-01-02");
        assert_eq!(p.prompt_source, PromptSource::Default);
        assert_eq!(p.system_source, PromptSource::Default);
    }

    #[test]
    fn silent_reply_cases() {
        for yes in [
            "NO_REPLY",
            " no_reply. ",
            "NO_REPLY NO_REPLY",
            "\n NO_REPLY\n",
            "`NO_REPLY`",
            "**NO_REPLY**",
            "\"NO_REPLY\"",
            "No_Reply!",
            "{\"action\":\"NO_REPLY\"}",
        ] {
            assert!(is_no_reply(yes), "{yes:?}");
        }
        for no in [
            "NO_REPLY but here is a note",
            "NO_REPLY but...",
            "",
            "  ",
            "NO_REPLYX",
            "- fact\nNO_REPLY",
            "NO_REPLY. NO_REPLY",
            "{\"action\":\"reply\"}",
            "NO REPLY",
        ] {
            assert!(!is_no_reply(no), "{no:?}");
        }
    }
}
