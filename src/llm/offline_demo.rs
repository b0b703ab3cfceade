//! The demo's summarizer: a model endpoint answered offline, for the embedded demo host
//! (`clawtop --demo`, or no OpenClaw state at all). A new user tries compaction and flush end
//! to end without an API key and without any network traffic.
//!
//! It sits behind the one model seam, [`super::complete`]: the compaction summarizer
//! (`compaction::model::LlmSummarizer`) and the flush draft call that function for every
//! model, and it answers this endpoint here instead of over HTTP. Nothing above it (use
//! cases, CLI, TUI) treats the demo specially; the use cases only pick this endpoint for a
//! demo source (`usecase::resolve_model`). Its base URL has a scheme no HTTP client speaks, so
//! even a path that missed this dispatch could not send a request.
//!
//! The text is deterministic (no clock, no randomness: the same request gives the same
//! text), built from the request itself: the conversation being summarized (counts of each
//! kind of message, the first line of the user's messages) and what the summarizer was asked
//! (the first line of the prompt after the conversation, the operator's instructions). Its
//! first line says who wrote it, so a demo summary is never mistaken for a model's.

use super::{Api, ChatRequest, ChatResponse, LlmError, MaxTokensField, ModelEndpoint, Progress};
use tokio_util::sync::CancellationToken;

pub const PROVIDER: &str = "clawtop-demo";
pub const MODEL: &str = "offline-summarizer";
/// Not an HTTP URL on purpose (see the module doc).
pub const BASE_URL: &str = "offline-demo:no-network";

/// The first line of every demo answer.
pub const LABEL: &str = "DEMO SUMMARY written by clawtop's offline demo summarizer, not by a model (no network; the same messages give the same text).";

/// User messages quoted at most.
const QUOTED: usize = 8;
/// Characters of a quoted line at most.
const LINE: usize = 100;

/// The endpoint the use cases pick for a demo host.
pub fn endpoint() -> ModelEndpoint {
    ModelEndpoint {
        provider: PROVIDER.into(),
        model: MODEL.into(),
        api: Api::OpenAiCompletions,
        base_url: BASE_URL.into(),
        api_key: None,
        headers: Vec::new(),
        reasoning: false,
        context_window: None,
        max_tokens: None,
        max_tokens_field: MaxTokensField::MaxTokens,
        key_source: "none: clawtop's offline demo summarizer (no network)".into(),
    }
}

pub fn is_offline_demo(ep: &ModelEndpoint) -> bool {
    ep.base_url == BASE_URL
}

/// Answers `req` offline.
pub fn complete(
    req: &ChatRequest,
    cancel: &CancellationToken,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<ChatResponse, LlmError> {
    if cancel.is_cancelled() {
        return Err(LlmError::Cancelled);
    }
    progress(Progress::Started { attempt: 1 });
    let text = answer(req);
    progress(Progress::Delta {
        chars_so_far: text.chars().count(),
        output_tokens_so_far: None,
    });
    Ok(ChatResponse {
        text,
        stop_reason: Some("stop".into()),
        input_tokens: None,
        output_tokens: None,
    })
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<(&'a str, &'a str)> {
    let start = text.find(open)? + open.len();
    let end = start + text[start..].find(close)?;
    Some((&text[start..end], &text[end + close.len()..]))
}

fn short(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= LINE {
        line.to_string()
    } else {
        let cut: String = line.chars().take(LINE - 1).collect();
        format!("{cut}…")
    }
}

/// The demo text for one request.
pub fn answer(req: &ChatRequest) -> String {
    let (conversation, rest) =
        between(&req.user, "<conversation>", "</conversation>").unwrap_or(("", &req.user));
    let (mut users, mut replies, mut calls, mut results) = (0, 0, 0, 0);
    let mut asked = Vec::new();
    for line in conversation.lines() {
        if let Some(text) = line.strip_prefix("[User]: ") {
            users += 1;
            asked.push(short(text));
        } else if line.starts_with("[Assistant]: ") {
            replies += 1;
        } else if let Some(list) = line.strip_prefix("[Assistant tool calls]: ") {
            calls += list.split("; ").count();
        } else if line.starts_with("[Tool result]: ") {
            results += 1;
        }
    }
    let previous = between(rest, "<previous-summary>", "</previous-summary>")
        .map(|(p, _)| p.lines().filter(|l| !l.trim().is_empty()).count());
    // What the summarizer was asked: the first line of the prompt after the conversation
    // (and after a previous summary), and the operator's instructions when there are any.
    let after = match between(rest, "<previous-summary>", "</previous-summary>") {
        Some((_, after)) => after,
        None => rest,
    };
    let prompt = after
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('<'))
        .map(short);
    // The operator's instructions, as the compaction prompt ("Additional focus: …") and the
    // flush prompt ("Additional instructions from the operator: …") attach them.
    let instructions = after
        .lines()
        .rev()
        .find_map(|l| {
            l.strip_prefix(crate::summary::prompts::FOCUS_PREFIX.trim_start())
                .or_else(|| l.strip_prefix("Additional instructions from the operator: "))
        })
        .filter(|s| !s.trim().is_empty())
        .map(short);

    let mut out = format!("{LABEL}\n\n## Goal\n");
    match asked.first() {
        Some(first) => out.push_str(&format!("(demo) {first}\n")),
        None => out.push_str("(demo) no user message in this part of the conversation\n"),
    }
    out.push_str("\n## Progress\n### Done\n");
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    out.push_str(&format!(
        "- [x] Read the conversation: {}, {}, {}, {}\n",
        n(users, "user message", "user messages"),
        n(replies, "assistant reply", "assistant replies"),
        n(calls, "tool call", "tool calls"),
        n(results, "tool result", "tool results"),
    ));
    if let Some(n) = previous {
        out.push_str(&format!(
            "- [x] Carried over the previous summary ({n} lines; a model would merge it)\n"
        ));
    }
    if !asked.is_empty() {
        out.push_str("\n## What the user asked (first lines, latest last)\n");
        let skip = asked.len().saturating_sub(QUOTED);
        if skip > 0 {
            out.push_str(&format!("- … {skip} earlier messages\n"));
        }
        for a in &asked[skip..] {
            out.push_str(&format!("- {a}\n"));
        }
    }
    out.push_str("\n## Asked of the summarizer\n");
    match &prompt {
        Some(p) => out.push_str(&format!("- {p}\n")),
        None => out.push_str("- (no prompt after the conversation)\n"),
    }
    if let Some(i) = instructions {
        out.push_str(&format!("- Operator's instructions: {i}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(user: &str) -> ChatRequest {
        ChatRequest {
            system: "s".into(),
            user: user.into(),
            max_tokens: 100,
            reasoning: false,
        }
    }

    #[test]
    fn labelled_deterministic_and_built_from_the_messages() {
        let r = req(
            "<conversation>\n[User]: Deploy the billing service\nplease\n\n[Assistant]: ok\n\n[Assistant tool calls]: bash(command=\"ls\"); read(path=\"a\")\n\n[Tool result]: a b\n\n[User]: Now roll back\n</conversation>\n\nSummarize the conversation above.\n\nAdditional instructions from the operator: keep PR numbers",
        );
        let a = answer(&r);
        assert_eq!(a, answer(&r), "deterministic");
        assert!(a.starts_with(LABEL), "{a}");
        assert!(a.contains("(demo) Deploy the billing service\n"), "{a}");
        assert!(
            a.contains(
                "Read the conversation: 2 user messages, 1 assistant reply, 2 tool calls, 1 tool result"
            ),
            "{a}"
        );
        assert!(a.contains("- Now roll back\n"), "{a}");
        assert!(a.contains("- Summarize the conversation above.\n"), "{a}");
        assert!(
            a.contains("Operator's instructions: keep PR numbers"),
            "{a}"
        );
        let other = answer(&req(
            "<conversation>\n[User]: something else\n</conversation>",
        ));
        assert_ne!(a, other);
    }

    #[test]
    fn cancelled_before_it_starts() {
        let c = CancellationToken::new();
        c.cancel();
        let mut p = |_| {};
        assert!(matches!(
            complete(&req(""), &c, &mut p),
            Err(LlmError::Cancelled)
        ));
    }
}
