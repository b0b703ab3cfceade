//! The compaction summary written by a real model: [`LlmSummarizer`] answers the summary
//! engine's requests through `llm::complete`, reporting progress and honouring cancel.

use crate::llm::{self, CancellationToken, ChatRequest, ClientOptions, ModelEndpoint, Progress};
use crate::summary::{
    self, Budget, Summarizer, SummaryError, SummaryInput, SummaryOutput, SummaryRequest,
};
use std::future::Future;

/// What generation is doing now (for a progress line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenProgress {
    /// Request `call` (1-based) started: "history", "history, part 1 of 2", "merge", ...
    Call { call: usize, label: String },
    /// Characters of the current answer received so far, and output tokens when reported.
    Delta { chars: usize, tokens: Option<u64> },
    Retrying {
        attempt: u32,
        after_ms: u64,
        reason: String,
    },
}

impl GenProgress {
    /// The one mapping of the model client's progress (`Started` carries nothing an operator
    /// needs: a [`GenProgress::Call`] is reported by the caller itself).
    pub fn from_client(p: Progress) -> Option<GenProgress> {
        match p {
            Progress::Delta {
                chars_so_far,
                output_tokens_so_far,
            } => Some(GenProgress::Delta {
                chars: chars_so_far,
                tokens: output_tokens_so_far,
            }),
            Progress::Retrying {
                attempt,
                after_ms,
                reason,
            } => Some(GenProgress::Retrying {
                attempt,
                after_ms,
                reason,
            }),
            Progress::Started { .. } => None,
        }
    }
}

pub struct LlmSummarizer<'a> {
    pub endpoint: &'a ModelEndpoint,
    pub options: ClientOptions,
    pub cancel: CancellationToken,
    pub on_progress: Box<dyn FnMut(GenProgress) + Send + 'a>,
    /// Notes for the operator (an answer cut at the output limit, ...).
    pub warnings: Vec<String>,
    calls: usize,
}

impl<'a> LlmSummarizer<'a> {
    pub fn new(
        endpoint: &'a ModelEndpoint,
        options: ClientOptions,
        cancel: CancellationToken,
        on_progress: Box<dyn FnMut(GenProgress) + Send + 'a>,
    ) -> Self {
        LlmSummarizer {
            endpoint,
            options,
            cancel,
            on_progress,
            warnings: Vec::new(),
            calls: 0,
        }
    }
}

impl Summarizer for LlmSummarizer<'_> {
    #[allow(clippy::manual_async_fn)] // the trait promises a Send future; `async fn` cannot say so
    fn complete(
        &mut self,
        req: SummaryRequest,
    ) -> impl Future<Output = Result<String, SummaryError>> + Send {
        async move {
            self.calls += 1;
            (self.on_progress)(GenProgress::Call {
                call: self.calls,
                label: req.label.clone(),
            });
            let chat = ChatRequest {
                system: req.system,
                user: req.user,
                max_tokens: req.max_tokens,
                reasoning: req.reasoning,
            };
            let on_progress = &mut self.on_progress;
            let mut progress = |p: Progress| {
                if let Some(g) = GenProgress::from_client(p) {
                    (on_progress)(g)
                }
            };
            match llm::complete(
                self.endpoint,
                &chat,
                &self.options,
                self.cancel.clone(),
                &mut progress,
            )
            .await
            {
                Ok(r) => {
                    if r.hit_max_tokens() {
                        self.warnings.push(format!("{}: the answer stopped at the output limit ({} tokens); read the end of the summary before committing", req.label, req.max_tokens));
                    }
                    Ok(r.text)
                }
                Err(llm::LlmError::Cancelled) => Err(SummaryError::Cancelled),
                Err(e) => Err(SummaryError::Model {
                    label: req.label,
                    message: e.to_string(),
                }),
            }
        }
    }
}

/// Generates the summary text for a prepared compaction.
pub async fn generate(
    summarizer: &mut LlmSummarizer<'_>,
    budget: Budget,
    input: &SummaryInput,
) -> Result<SummaryOutput, SummaryError> {
    summary::summarize(summarizer, budget, input).await
}
