//! Compaction summaries: the conversation as the summarizer reads it (`serialize`), clawtop's
//! prompts (`prompts`), staged summarization over a model seam (`staged`) and the sections
//! OpenClaw appends after the summary (`sections`); what changed between two summaries (`diff`)
//! and a summary written to a file (`export`).

pub mod diff;
pub mod export;
pub mod prompts;
pub mod sections;
pub mod serialize;
pub mod staged;

pub use staged::{
    Budget, RequestNote, Summarizer, SummaryError, SummaryInput, SummaryOutput, SummaryRequest,
    summarize,
};
