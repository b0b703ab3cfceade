//! Drafting the notes: the request the flush model gets ([`build_request`], pure) and one
//! streamed, cancellable model call ([`generate`]) whose answer becomes a [`FlushDraft`].
//!
//! The request is one system prompt (the flush system prompt) and one user message:
//!
//! ```text
//! [a note when older messages had to be left out]
//! <conversation>
//! [User]: …            (the session's context as its model sees it, pi's serialization)
//! </conversation>
//!
//! <flush prompt>
//!
//! Additional instructions from the operator: …   (only when given)
//! ```
//!
//! The conversation is the context of the session's active branch (`context::build` at the
//! leaf: compaction summary first, then the kept entries, then everything after). When it
//! does not fit the model's window (answer budget and prompts taken out, estimates with a
//! 1.2 safety factor), the oldest messages are left out and both the request and the draft
//! say so.

use super::FlushError;
use super::prompts::{FlushPrompts, is_no_reply};
use super::workspace::target_path;
use crate::context;
use crate::jsjson::{ceil_div4, utf16_len};
use crate::llm::{self, CancellationToken, ChatRequest, ClientOptions, ModelEndpoint, Progress};
use crate::summary::serialize::serialize;
use crate::transcript::Transcript;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Output tokens asked for the notes (the client caps it at the model's `maxTokens`).
pub const NOTES_MAX_TOKENS: u64 = 4096;
/// Window assumed when neither the caller nor the endpoint knows one (OpenClaw's default).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;
/// Estimates are multiplied by this before they are compared with the window.
pub const SAFETY_MARGIN: f64 = 1.2;
/// Tokens kept free for the framing text and the model's message overhead.
pub const FRAMING_TOKENS: u64 = 512;
/// The preview shows at most this much of an existing target file (its end).
pub const EXISTING_PREVIEW_MAX_BYTES: u64 = 1024 * 1024;

/// The request text and how much of the conversation it carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushRequest {
    pub system: String,
    pub user: String,
    pub max_tokens: u64,
    /// Context messages of the session.
    pub total_messages: usize,
    /// How many of them (the most recent) are in `user`.
    pub included_messages: usize,
    /// Estimated tokens of the conversation text included.
    pub conversation_tokens: u64,
}

impl FlushRequest {
    pub fn omitted_messages(&self) -> usize {
        self.total_messages - self.included_messages
    }

    /// The request as the model layer takes it (no reasoning: notes need none).
    pub fn chat(&self) -> ChatRequest {
        ChatRequest {
            system: self.system.clone(),
            user: self.user.clone(),
            max_tokens: self.max_tokens,
            reasoning: false,
        }
    }
}

/// What a flush is asked to do, fixed before the model is called.
#[derive(Debug, Clone)]
pub struct FlushSpec {
    pub session_key: String,
    pub workspace: PathBuf,
    /// `YYYY-MM-DD` (see [`super::today`]).
    pub date: String,
    pub prompts: FlushPrompts,
    /// Operator's custom instructions (blank = none).
    pub instructions: Option<String>,
    /// Window of the flush model; `None` = the endpoint's `context_window`, else 200000.
    pub context_window: Option<u64>,
}

impl FlushSpec {
    /// `<workspace>/memory/<date>.md`.
    pub fn target(&self) -> PathBuf {
        target_path(&self.workspace, &self.date)
    }
}

/// A drafted flush: what was asked, what the model answered, what would be appended.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushDraft {
    pub session_key: String,
    pub target: PathBuf,
    pub date: String,
    pub prompts: FlushPrompts,
    pub instructions: Option<String>,
    pub request: FlushRequest,
    /// The model's answer as received.
    pub reply: String,
    /// The notes to append (the editable preview); empty when `no_reply`.
    pub notes: String,
    pub no_reply: bool,
    pub provider: String,
    pub model: String,
    /// Current content of the target file (`""` when it does not exist yet; only its last
    /// [`EXISTING_PREVIEW_MAX_BYTES`] when larger, with a warning). Lossy UTF-8.
    pub existing: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Things the operator must know before committing (cut conversation, answer hit the
    /// output limit, …). Plain text, not yet sanitized for a terminal.
    pub warnings: Vec<String>,
}

/// The session's context as its model sees it: active branch, compaction summary first.
pub fn context_messages(t: &Transcript) -> Vec<Value> {
    let ctx = context::build(t, t.leaf());
    context::messages(t, &ctx)
}

fn estimate_text(s: &str) -> u64 {
    ceil_div4(utf16_len(s))
}

fn clean_instructions(instructions: Option<&str>) -> Option<String> {
    crate::instructions::Instructions::from_opt(instructions).map(String::from)
}

/// Builds the flush request (pure). `context_window` is the flush model's window;
/// `max_tokens` the answer budget.
pub fn build_request(
    messages: &[Value],
    prompts: &FlushPrompts,
    instructions: Option<&str>,
    context_window: u64,
    max_tokens: u64,
) -> FlushRequest {
    let instructions = clean_instructions(instructions);
    let instructions = instructions.as_deref();
    // serialize() joins the parts of all messages with "\n\n"; serializing one message at a
    // time and joining the non-empty results the same way gives the same text.
    let parts: Vec<String> = messages
        .iter()
        .map(|m| serialize(std::slice::from_ref(m)))
        .collect();
    let overhead = estimate_text(&prompts.system)
        + estimate_text(&prompts.prompt)
        + instructions.map(estimate_text).unwrap_or(0)
        + FRAMING_TOKENS;
    let available = context_window
        .saturating_sub(max_tokens)
        .saturating_sub(overhead);
    let budget = (available as f64 / SAFETY_MARGIN).floor() as u64;

    let mut start = messages.len();
    let mut used = 0u64;
    for (i, p) in parts.iter().enumerate().rev() {
        let t = if p.is_empty() {
            0
        } else {
            estimate_text(p) + 1
        };
        if used + t > budget {
            break;
        }
        used += t;
        start = i;
    }
    let conversation = parts[start..]
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n\n");

    let mut user = String::new();
    let omitted = start;
    if omitted > 0 {
        user.push_str(&format!(
            "Note: the conversation below is cut to its most recent {} of {} messages to fit the context window; the {omitted} earlier messages are not shown.\n\n",
            messages.len() - omitted,
            messages.len()
        ));
    }
    user.push_str("<conversation>\n");
    user.push_str(&conversation);
    user.push_str("\n</conversation>\n\n");
    user.push_str(&prompts.prompt);
    if let Some(i) = instructions {
        user.push_str("\n\nAdditional instructions from the operator: ");
        user.push_str(i);
    }
    FlushRequest {
        system: prompts.system.clone(),
        user,
        max_tokens,
        total_messages: messages.len(),
        included_messages: messages.len() - omitted,
        conversation_tokens: used,
    }
}

/// Strips one code fence wrapping the whole answer (```` ```markdown … ``` ````).
fn unwrap_fence(s: &str) -> Option<&str> {
    let t = s.trim();
    let rest = t.strip_prefix("```")?;
    let (info, body) = rest.split_once('\n')?;
    if !info
        .trim()
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    let body = body.strip_suffix("```")?;
    if body.contains("\n```") {
        return None; // more than one fence: not a single wrapper
    }
    Some(body)
}

/// Turns the model's answer into `(notes, no_reply, warnings)` (pure). A silent answer
/// (see [`is_no_reply`]) or an empty one gives no notes. Otherwise: one code fence
/// wrapping the whole answer is removed, leading blank lines and trailing whitespace are
/// trimmed; nothing else changes.
pub fn interpret_reply(reply: &str) -> (String, bool, Vec<String>) {
    let mut warnings = Vec::new();
    if is_no_reply(reply) {
        return (String::new(), true, warnings);
    }
    let mut body = reply;
    if let Some(inner) = unwrap_fence(reply) {
        warnings.push("removed a code fence that wrapped the whole answer".to_string());
        body = inner;
    }
    let body = body.trim_end();
    let start = body
        .char_indices()
        .find(|&(_, c)| !c.is_whitespace())
        .map_or(body.len(), |(i, _)| i);
    let start = body[..start].rfind('\n').map_or(0, |n| n + 1);
    let notes = body[start..].to_string();
    if notes.is_empty() {
        warnings.push("the model answered with nothing; treated as NO_REPLY".to_string());
        return (notes, true, warnings);
    }
    if notes
        .trim_start()
        .get(..8)
        .is_some_and(|p| p.eq_ignore_ascii_case("NO_REPLY"))
    {
        warnings.push(
            "the answer starts with NO_REPLY but says more; review it before committing"
                .to_string(),
        );
    }
    (notes, false, warnings)
}

/// Current content of the target for the preview: `""` when it does not exist; the last
/// [`EXISTING_PREVIEW_MAX_BYTES`] when larger (with a warning). Never fails: problems
/// become warnings (the commit checks the file again).
pub fn read_existing(target: &Path, warnings: &mut Vec<String>) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return String::new(),
        Err(e) => {
            warnings.push(format!("{}: cannot read: {e}", target.display()));
            return String::new();
        }
    };
    if !meta.file_type().is_file() {
        warnings.push(format!(
            "{}: {}, not a regular file; the commit will refuse to write it",
            target.display(),
            crate::regular_file::describe(meta.file_type())
        ));
        return String::new();
    }
    if std::os::unix::fs::MetadataExt::nlink(&meta) > 1 {
        warnings.push(format!(
            "{}: has {} hard links; the commit will refuse to write it",
            target.display(),
            std::os::unix::fs::MetadataExt::nlink(&meta)
        ));
    }
    let mut read = || -> std::io::Result<String> {
        let mut f = crate::regular_file::open(target)?;
        let len = f.metadata()?.len();
        if len > EXISTING_PREVIEW_MAX_BYTES {
            f.seek(SeekFrom::Start(len - EXISTING_PREVIEW_MAX_BYTES))?;
        }
        let mut buf = Vec::new();
        f.take(EXISTING_PREVIEW_MAX_BYTES).read_to_end(&mut buf)?;
        if len > EXISTING_PREVIEW_MAX_BYTES {
            warnings.push(format!(
                "{} is {len} bytes; the preview shows its last {EXISTING_PREVIEW_MAX_BYTES}",
                target.display()
            ));
        }
        Ok(String::from_utf8_lossy(&buf).into_owned())
    };
    match read() {
        Ok(s) => s,
        Err(e) => {
            warnings.push(format!("{}: cannot read: {e}", target.display()));
            String::new()
        }
    }
}

/// Asks the model for the notes: one streamed request ([`llm::complete`], with retries,
/// `progress` and `cancel`). Writes nothing. A model failure or cancellation is an error
/// ([`FlushError::Model`]); hitting the output limit is a warning on the draft.
pub async fn generate(
    spec: &FlushSpec,
    messages: &[Value],
    ep: &ModelEndpoint,
    opts: &ClientOptions,
    cancel: CancellationToken,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<FlushDraft, FlushError> {
    let window = spec
        .context_window
        .or(ep.context_window)
        .filter(|w| *w > 0)
        .unwrap_or(DEFAULT_CONTEXT_WINDOW);
    let max_tokens = ep
        .max_tokens
        .filter(|m| *m > 0)
        .map_or(NOTES_MAX_TOKENS, |m| m.min(NOTES_MAX_TOKENS));
    let request = build_request(
        messages,
        &spec.prompts,
        spec.instructions.as_deref(),
        window,
        max_tokens,
    );
    let mut warnings = Vec::new();
    if request.omitted_messages() > 0 {
        warnings.push(format!(
            "the conversation did not fit the model's window ({window} tokens): the model saw only the most recent {} of {} messages",
            request.included_messages, request.total_messages
        ));
    }
    if request.included_messages == 0 && request.total_messages > 0 {
        warnings.push(
            "not even the last message fit the model's window; the model saw no conversation"
                .to_string(),
        );
    }
    let target = spec.target();
    let existing = read_existing(&target, &mut warnings);

    let resp = llm::complete(ep, &request.chat(), opts, cancel, progress).await?;
    if resp.hit_max_tokens() {
        warnings.push(format!(
            "the model stopped at its output limit ({max_tokens} tokens): the notes are probably cut off; edit them or generate again"
        ));
    }
    let (notes, no_reply, more) = interpret_reply(&resp.text);
    warnings.extend(more);
    Ok(FlushDraft {
        session_key: spec.session_key.clone(),
        target,
        date: spec.date.clone(),
        prompts: spec.prompts.clone(),
        instructions: clean_instructions(spec.instructions.as_deref()),
        request,
        reply: resp.text,
        notes,
        no_reply,
        provider: ep.provider.clone(),
        model: ep.model.clone(),
        existing,
        input_tokens: resp.input_tokens,
        output_tokens: resp.output_tokens,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flush::prompts::resolve_prompts;
    use serde_json::json;

    fn msgs(n: usize, len: usize) -> Vec<Value> {
        (0..n)
            .map(|i| json!({"role": "user", "content": format!("m{i} {}", "x".repeat(len))}))
            .collect()
    }

    #[test]
    fn request_layout() {
        let p = resolve_prompts(&json!({}), "2026-11-21");
        let m = vec![
            json!({"role": "compactionSummary", "summary": "S"}),
            json!({"role": "user", "content": "hello"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "hi"}]}),
        ];
        let r = build_request(&m, &p, Some("  keep PR numbers  "), 200_000, 4096);
        assert_eq!(r.system, p.system);
        assert_eq!(r.total_messages, 3);
        assert_eq!(r.included_messages, 3);
        let expected = format!(
            "<conversation>\n{}\n</conversation>\n\n{}\n\nAdditional instructions from the operator: keep PR numbers",
            serialize(&m),
            p.prompt
        );
        assert_eq!(r.user, expected);
        assert!(r.user.contains("<summary>\nS\n</summary>"));
        let r = build_request(&m, &p, Some("   "), 200_000, 4096);
        assert!(!r.user.contains("Additional instructions"));
    }

    #[test]
    fn long_conversations_keep_the_most_recent_messages() {
        let p = resolve_prompts(&json!({}), "2026-11-21");
        let m = msgs(100, 4000); // ~1000 tokens each
        let r = build_request(&m, &p, None, 20_000, 4096);
        assert!(
            r.included_messages > 0 && r.included_messages < 100,
            "{}",
            r.included_messages
        );
        assert!(r.user.starts_with(&format!(
            "Note: the conversation below is cut to its most recent {} of 100 messages",
            r.included_messages
        )));
        assert!(r.user.contains("[User]: m99 "));
        assert!(!r.user.contains("[User]: m0 "));
        assert!(((r.conversation_tokens as f64) * SAFETY_MARGIN) as u64 <= 20_000);
        // Nothing fits: no messages, still a valid request.
        let r = build_request(&m, &p, None, 1000, 4096);
        assert_eq!(r.included_messages, 0);
        assert!(r.user.contains("<conversation>\n\n</conversation>"));
    }

    #[test]
    fn replies() {
        assert_eq!(
            interpret_reply(" NO_REPLY. "),
            (String::new(), true, vec![])
        );
        let (n, nr, w) = interpret_reply("\n\n  - fact one\n- fact two\n\n");
        assert_eq!(
            (n.as_str(), nr, w.len()),
            ("  - fact one\n- fact two", false, 0)
        );
        let (n, nr, w) = interpret_reply("```markdown\n## Notes\n- a\n```\n");
        assert_eq!((n.as_str(), nr, w.len()), ("## Notes\n- a", false, 1));
        let (n, nr, _) = interpret_reply("```\n- a\n```\ntext\n```\nb\n```");
        assert!(!nr && n.starts_with("```"));
        let (n, nr, w) = interpret_reply("   \n");
        assert_eq!((n.as_str(), nr, w.len()), ("", true, 1));
        let (_, nr, w) = interpret_reply("NO_REPLY but here is a note");
        assert!(!nr && w.len() == 1);
    }
}
