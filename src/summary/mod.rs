//! Compaction summaries: the conversation as the summarizer reads it, the prompts, staged
//! summarization and the sections OpenClaw appends (tool failures, file lists).

pub mod serialize;
