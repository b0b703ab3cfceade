//! Turning a compaction plan into summary text: one request when the messages fit, staged
//! summarization (split by token share, summarize each part, merge) when they do not
//! (docs/pi-compaction.md §6, §7). The model is behind [`Summarizer`],
//! so this module does no I/O and is tested with a scripted fake.

use super::prompts;
use super::sections;
use super::serialize::serialize;
use crate::tokens::estimate_message;
use serde_json::Value;
use std::future::Future;

/// Room left for the prompt around each chunk (OpenClaw's SUMMARIZATION_OVERHEAD_TOKENS).
pub const OVERHEAD_TOKENS: u64 = 4096;
pub const BASE_CHUNK_RATIO: f64 = 0.4;
pub const MIN_CHUNK_RATIO: f64 = 0.15;
pub const SAFETY_MARGIN: f64 = 1.2;
/// Fewer messages than this are never split into parts.
pub const MIN_MESSAGES_FOR_SPLIT: usize = 4;

/// One model call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRequest {
    pub system: String,
    pub user: String,
    pub max_tokens: u64,
    pub reasoning: bool,
    /// What this call is, for progress display ("history, part 1 of 2", "merge", ...).
    pub label: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error("{label}: {message}")]
    Model { label: String, message: String },
    #[error("cancelled")]
    Cancelled,
    #[error("the model returned an empty summary ({0})")]
    Empty(String),
}

/// Something that answers one summarization request with text.
pub trait Summarizer {
    fn complete(
        &mut self,
        req: SummaryRequest,
    ) -> impl Future<Output = Result<String, SummaryError>> + Send;
}

/// Sizes the summarization works within.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Context window of the summarizing model.
    pub context_window: u64,
    /// Compaction reserve; output limits are 0.8× (summary) and 0.5× (turn prefix) of it.
    pub reserve_tokens: u64,
    /// Ask for extended reasoning on the main summary (reasoning-capable models only).
    pub reasoning: bool,
}

/// Inputs of one compaction summary.
#[derive(Debug, Clone, Default)]
pub struct SummaryInput {
    pub messages_to_summarize: Vec<Value>,
    pub turn_prefix_messages: Vec<Value>,
    pub is_split_turn: bool,
    pub previous_summary: Option<String>,
    pub instructions: Option<String>,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryOutput {
    pub summary: String,
    pub calls: usize,
    /// Every request made, in order, and whether it carried the operator's instructions.
    pub requests: Vec<RequestNote>,
}

impl SummaryOutput {
    /// How many requests carried the operator's instructions.
    pub fn requests_with_instructions(&self) -> usize {
        self.requests
            .iter()
            .filter(|r| r.carried_instructions)
            .count()
    }
}

/// One summarization request as the preview reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestNote {
    /// "history", "history, part 1 of 2", "history, merge", "turn prefix", ...
    pub label: String,
    /// The operator's instructions were in the request text (false when there were none).
    pub carried_instructions: bool,
}

fn estimate(msgs: &[Value]) -> u64 {
    msgs.iter().map(estimate_message).sum()
}

/// `computeAdaptiveChunkRatio`: smaller chunks when messages are large.
pub fn adaptive_chunk_ratio(msgs: &[Value], context_window: u64) -> f64 {
    if msgs.is_empty() || context_window == 0 {
        return BASE_CHUNK_RATIO;
    }
    let avg = estimate(msgs) as f64 / msgs.len() as f64;
    let avg_ratio = avg * SAFETY_MARGIN / context_window as f64;
    if avg_ratio > 0.1 {
        MIN_CHUNK_RATIO
            .max(BASE_CHUNK_RATIO - (2.0 * avg_ratio).min(BASE_CHUNK_RATIO - MIN_CHUNK_RATIO))
    } else {
        BASE_CHUNK_RATIO
    }
}

/// Largest chunk (in estimated tokens) one request may carry.
pub fn max_chunk_tokens(msgs: &[Value], context_window: u64) -> u64 {
    let ratio = adaptive_chunk_ratio(msgs, context_window);
    ((context_window as f64 * ratio).floor() as u64)
        .saturating_sub(OVERHEAD_TOKENS)
        .max(1)
}

/// `splitMessagesByTokenShare(msgs, parts)`.
pub fn split_by_token_share(msgs: &[Value], parts: usize) -> Vec<Vec<Value>> {
    if msgs.is_empty() {
        return Vec::new();
    }
    let parts = parts.clamp(1, msgs.len());
    if parts <= 1 {
        return vec![msgs.to_vec()];
    }
    let target = estimate(msgs) as f64 / parts as f64;
    let mut chunks = Vec::new();
    let mut cur: Vec<Value> = Vec::new();
    let mut cur_tokens = 0u64;
    for m in msgs {
        let t = estimate_message(m);
        if chunks.len() < parts - 1 && !cur.is_empty() && (cur_tokens + t) as f64 > target {
            chunks.push(std::mem::take(&mut cur));
            cur_tokens = 0;
        }
        cur.push(m.clone());
        cur_tokens += t;
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    chunks
}

/// `chunkMessagesByMaxTokens` with the safety margin applied.
pub fn chunk_by_max_tokens(msgs: &[Value], max_tokens: u64) -> Vec<Vec<Value>> {
    let eff = ((max_tokens as f64 / SAFETY_MARGIN).floor() as u64).max(1);
    let mut chunks = Vec::new();
    let mut cur: Vec<Value> = Vec::new();
    let mut cur_tokens = 0u64;
    for m in msgs {
        let t = estimate_message(m);
        if !cur.is_empty() && cur_tokens + t > eff {
            chunks.push(std::mem::take(&mut cur));
            cur_tokens = 0;
        }
        cur.push(m.clone());
        cur_tokens += t;
        if t > eff {
            chunks.push(std::mem::take(&mut cur));
            cur_tokens = 0;
        }
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    chunks
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    History,
    TurnPrefix,
}

struct Run<'a, S: Summarizer> {
    model: &'a mut S,
    budget: Budget,
    calls: usize,
    requests: Vec<RequestNote>,
    /// The operator's instructions (trimmed, non-empty), checked against every request.
    operator_instructions: Option<String>,
}

impl<S: Summarizer> Run<'_, S> {
    async fn call(
        &mut self,
        msgs: &[Value],
        previous: Option<&str>,
        instructions: Option<&str>,
        mode: Mode,
        label: String,
    ) -> Result<String, SummaryError> {
        let serialized = serialize(msgs);
        let (base, max_tokens, reasoning) = match mode {
            Mode::History if previous.is_some() => (
                prompts::UPDATE,
                self.budget.reserve_tokens * 8 / 10,
                self.budget.reasoning,
            ),
            Mode::History => (
                prompts::INITIAL,
                self.budget.reserve_tokens * 8 / 10,
                self.budget.reasoning,
            ),
            Mode::TurnPrefix => (prompts::TURN_PREFIX, self.budget.reserve_tokens / 2, false),
        };
        let req = SummaryRequest {
            system: prompts::SYSTEM.to_string(),
            user: prompts::user_text(&serialized, previous, base, instructions),
            max_tokens: max_tokens.max(1),
            reasoning,
            label: label.clone(),
        };
        self.calls += 1;
        self.requests.push(RequestNote {
            label: label.clone(),
            carried_instructions: self
                .operator_instructions
                .as_deref()
                .is_some_and(|i| req.user.contains(i)),
        });
        let text = self.model.complete(req).await?;
        if text.trim().is_empty() {
            return Err(SummaryError::Empty(label));
        }
        Ok(text)
    }

    /// Summarize chunk after chunk, each call updating the running summary.
    async fn chunks(
        &mut self,
        msgs: &[Value],
        max_chunk: u64,
        previous: Option<String>,
        instructions: Option<&str>,
        mode: Mode,
        what: &str,
    ) -> Result<String, SummaryError> {
        let chunks = chunk_by_max_tokens(msgs, max_chunk);
        let n = chunks.len();
        let mut summary = previous;
        for (i, c) in chunks.iter().enumerate() {
            let label = if n > 1 {
                format!("{what}, chunk {} of {n}", i + 1)
            } else {
                what.to_string()
            };
            summary = Some(
                self.call(c, summary.as_deref(), instructions, mode, label)
                    .await?,
            );
        }
        Ok(summary.unwrap_or_else(|| prompts::NO_PRIOR_HISTORY.to_string()))
    }

    /// One request when the messages fit; otherwise two parts summarized separately, merged.
    async fn stages(
        &mut self,
        msgs: &[Value],
        previous: Option<String>,
        instructions: Option<&str>,
        mode: Mode,
        what: &str,
    ) -> Result<String, SummaryError> {
        if msgs.is_empty() {
            return Ok(previous.unwrap_or_else(|| prompts::NO_PRIOR_HISTORY.to_string()));
        }
        // A single message bigger than half the window cannot be summarized in one request;
        // it is named in a note instead (OpenClaw does this only after a failed attempt).
        let limit = self.budget.context_window as f64 * 0.5;
        let (small, big): (Vec<&Value>, Vec<&Value>) = msgs
            .iter()
            .partition(|m| (estimate_message(m) as f64) * SAFETY_MARGIN <= limit);
        let notes: Vec<String> = big
            .iter()
            .map(|m| {
                let role = m.get("role").and_then(Value::as_str).unwrap_or("message");
                format!(
                    "[Large {role} (~{}K tokens) omitted from summary]",
                    (estimate_message(m) as f64 / 1000.0).round()
                )
            })
            .collect();
        let msgs: Vec<Value> = small.into_iter().cloned().collect();
        let max_chunk = max_chunk_tokens(&msgs, self.budget.context_window);
        let total = estimate(&msgs);
        let text = if msgs.is_empty() {
            previous.unwrap_or_else(|| prompts::NO_PRIOR_HISTORY.to_string())
        } else if msgs.len() < MIN_MESSAGES_FOR_SPLIT || total <= max_chunk {
            self.chunks(&msgs, max_chunk, previous, instructions, mode, what)
                .await?
        } else {
            let parts = split_by_token_share(&msgs, 2);
            let n = parts.len();
            let mut partials = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                let label = format!("{what}, part {} of {n}", i + 1);
                partials.push(
                    self.chunks(p, max_chunk, None, instructions, mode, &label)
                        .await?,
                );
            }
            if partials.len() == 1 {
                partials.remove(0)
            } else {
                let merge_msgs: Vec<Value> = partials
                    .into_iter()
                    .map(|p| serde_json::json!({"role": "user", "content": p}))
                    .collect();
                let merge_instr = match crate::instructions::Instructions::from_opt(instructions) {
                    Some(i) => format!("{}\n\n{i}", prompts::MERGE),
                    None => prompts::MERGE.to_string(),
                };
                self.chunks(
                    &merge_msgs,
                    max_chunk,
                    previous,
                    Some(&merge_instr),
                    mode,
                    &format!("{what}, merge"),
                )
                .await?
            }
        };
        Ok(if notes.is_empty() {
            text
        } else {
            format!("{text}\n\n{}", notes.join("\n"))
        })
    }
}

/// The full compaction summary: history (staged when needed), the split-turn prefix, tool
/// failures and file lists.
pub async fn summarize<S: Summarizer>(
    model: &mut S,
    budget: Budget,
    input: &SummaryInput,
) -> Result<SummaryOutput, SummaryError> {
    let instr = input
        .instructions
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let mut run = Run {
        model,
        budget,
        calls: 0,
        requests: Vec::new(),
        operator_instructions: instr.map(str::to_string),
    };
    // With nothing older than the split turn, the previous summary is carried over as is
    // (pi would drop it; OpenClaw keeps it, and losing it would lose history).
    let history = run
        .stages(
            &input.messages_to_summarize,
            input.previous_summary.clone(),
            instr,
            Mode::History,
            "history",
        )
        .await?;
    let mut summary = history;
    if input.is_split_turn && !input.turn_prefix_messages.is_empty() {
        // The operator's instructions go to the turn-prefix request too (pi and OpenClaw send
        // them only with the history): on a plan that is only a split turn, this is the one
        // request the model sees.
        let prefix = run
            .stages(
                &input.turn_prefix_messages,
                None,
                instr,
                Mode::TurnPrefix,
                "turn prefix",
            )
            .await?;
        let nothing_before =
            input.messages_to_summarize.is_empty() && input.previous_summary.is_none();
        if nothing_before {
            // No "No prior history." placeholder in front of the only summary there is.
            summary = prompts::TURN_CONTEXT_JOIN.trim_start().to_string();
        } else {
            summary.push_str(prompts::TURN_CONTEXT_JOIN);
        }
        summary.push_str(&prefix);
    }
    let all: Vec<Value> = input
        .messages_to_summarize
        .iter()
        .chain(&input.turn_prefix_messages)
        .cloned()
        .collect();
    summary.push_str(&sections::tool_failures_section(&sections::tool_failures(
        &all,
    )));
    summary.push_str(&sections::file_operations_section(
        &input.read_files,
        &input.modified_files,
    ));
    Ok(SummaryOutput {
        summary,
        calls: run.calls,
        requests: run.requests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Answers every request with "S<n>" and records it.
    struct Fake {
        seen: Vec<SummaryRequest>,
        fail_at: Option<usize>,
    }

    impl Summarizer for Fake {
        fn complete(
            &mut self,
            req: SummaryRequest,
        ) -> impl Future<Output = Result<String, SummaryError>> + Send {
            self.seen.push(req.clone());
            let n = self.seen.len();
            let fail = self.fail_at == Some(n);
            async move {
                if fail {
                    Err(SummaryError::Model {
                        label: req.label,
                        message: "HTTP 500".into(),
                    })
                } else {
                    Ok(format!("S{n}"))
                }
            }
        }
    }

    fn user(n: usize, chars: usize) -> Value {
        json!({"role": "user", "content": format!("{n}:{}", "x".repeat(chars))})
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn token_share_and_chunk_vectors() {
        // docs/pi-compaction.md §9: 4 users of 1000 tokens, 2 parts → [[1,2],[3,4]].
        let msgs: Vec<Value> = (1..=4)
            .map(|i| json!({"role":"user","content":"x".repeat(4000),"timestamp":i}))
            .collect();
        let parts = split_by_token_share(&msgs, 2);
        assert_eq!(parts.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 2]);
        // [100,100,500,100] tokens, max 200 → effective 166 → every message alone.
        let sizes = [100, 100, 500, 100];
        let msgs: Vec<Value> = sizes
            .iter()
            .map(|t| json!({"role":"user","content":"x".repeat(t * 4)}))
            .collect();
        assert_eq!(chunk_by_max_tokens(&msgs, 200).len(), 4);
        // Adaptive ratio vectors, window 200000.
        let one = |t: usize| vec![json!({"role":"user","content":"x".repeat(t * 4)})];
        assert_eq!(adaptive_chunk_ratio(&one(10000), 200000), 0.4);
        assert_eq!(
            adaptive_chunk_ratio(&one(20000), 200000),
            0.16000000000000003
        );
        assert_eq!(
            adaptive_chunk_ratio(&one(25000), 200000),
            0.15000000000000002
        );
    }

    #[test]
    fn small_history_is_one_request_with_instructions_and_previous_summary() {
        let mut fake = Fake {
            seen: vec![],
            fail_at: None,
        };
        let input = SummaryInput {
            messages_to_summarize: vec![
                user(1, 10),
                json!({"role":"assistant","content":[{"type":"text","text":"ok"}]}),
            ],
            previous_summary: Some("## Goal\nold".into()),
            instructions: Some("keep PR numbers".into()),
            read_files: vec!["a.rs".into()],
            ..Default::default()
        };
        let out = block_on(summarize(
            &mut fake,
            Budget {
                context_window: 200000,
                reserve_tokens: 20000,
                reasoning: false,
            },
            &input,
        ))
        .unwrap();
        assert_eq!(out.calls, 1);
        assert_eq!(out.summary, "S1\n\n<read-files>\na.rs\n</read-files>");
        let req = &fake.seen[0];
        assert!(req.user.starts_with("<conversation>\n[User]: 1:xxxxxxxxxx\n\n[Assistant]: ok\n</conversation>\n\n<previous-summary>\n## Goal\nold\n</previous-summary>\n\n"));
        assert!(req.user.contains(prompts::UPDATE));
        assert!(req.user.ends_with("\n\nAdditional focus: keep PR numbers"));
        assert_eq!(req.max_tokens, 16000);
    }

    #[test]
    fn split_turn_adds_prefix_section() {
        let mut fake = Fake {
            seen: vec![],
            fail_at: None,
        };
        let input = SummaryInput {
            messages_to_summarize: vec![user(1, 10)],
            turn_prefix_messages: vec![user(2, 10)],
            is_split_turn: true,
            ..Default::default()
        };
        let out = block_on(summarize(
            &mut fake,
            Budget {
                context_window: 200000,
                reserve_tokens: 16384,
                reasoning: true,
            },
            &input,
        ))
        .unwrap();
        assert_eq!(
            out.summary,
            "S1\n\n---\n\n**Turn Context (split turn):**\n\nS2"
        );
        assert!(fake.seen[1].user.contains(prompts::TURN_PREFIX));
        assert!(
            !fake.seen[1].reasoning,
            "turn prefix never asks for reasoning"
        );
        assert!(fake.seen[0].reasoning);
        assert_eq!(fake.seen[1].max_tokens, 8192);
    }

    #[test]
    fn oversized_history_is_staged_then_merged() {
        // Window 20000: max chunk = 20000*ratio - 4096; 8 messages of 2000 tokens do not fit.
        let mut fake = Fake {
            seen: vec![],
            fail_at: None,
        };
        let input = SummaryInput {
            messages_to_summarize: (0..8).map(|i| user(i, 8000)).collect(),
            ..Default::default()
        };
        let out = block_on(summarize(
            &mut fake,
            Budget {
                context_window: 20000,
                reserve_tokens: 4000,
                reasoning: false,
            },
            &input,
        ))
        .unwrap();
        assert!(out.calls >= 3, "parts + merge, got {}", out.calls);
        let last = fake.seen.last().unwrap();
        assert!(last.label.contains("merge"));
        assert!(last.user.contains(prompts::MERGE));
        assert!(fake.seen.iter().all(|r| r.user.len() < 20000 * 4));
    }

    #[test]
    fn model_failure_is_an_error_not_a_summary() {
        let mut fake = Fake {
            seen: vec![],
            fail_at: Some(1),
        };
        let input = SummaryInput {
            messages_to_summarize: vec![user(1, 10)],
            ..Default::default()
        };
        let err = block_on(summarize(
            &mut fake,
            Budget {
                context_window: 200000,
                reserve_tokens: 16384,
                reasoning: false,
            },
            &input,
        ))
        .unwrap_err();
        assert!(err.to_string().contains("HTTP 500"));
    }
}
