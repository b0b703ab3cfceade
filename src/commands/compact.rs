//! `clawtop compact KEY|FILE` without `--dry-run`: generate a summary with the model and print
//! the preview (nothing written); `--yes` commits it; `--summary-file F --expect-leaf ID --yes`
//! commits an edited preview, refused when the transcript moved.

use super::{Exit, ModelSetup};
use crate::commit::StoreRow;
use crate::compaction::{self, model::LlmSummarizer};
use crate::llm::{CancellationToken, ClientOptions};
use crate::report::compact as plan_report;
use crate::sanitize;
use crate::summary::{Budget, SummaryError};
use crate::thresholds::Source;
use serde_json::{Value, json};
use std::path::PathBuf;

pub struct CompactJob {
    pub transcript: PathBuf,
    pub session: Option<StoreRow>,
    pub keep: (u64, Source),
    pub instructions: Option<String>,
    pub summary_file: Option<PathBuf>,
    pub expect_leaf: Option<String>,
    pub expect_first_kept: Option<String>,
    pub yes: bool,
    pub json: bool,
    /// Window and reserve of the session (the summarizer's budget when the catalog is silent).
    pub window: u64,
    pub reserve: u64,
    pub model: ModelSetup,
}

pub fn run(job: CompactJob) -> i32 {
    match run_inner(&job) {
        Ok(()) => Exit::OK,
        Err((code, msg)) => {
            eprintln!("clawtop: {}", crate::sanitize::one_line(&msg));
            code
        }
    }
}

fn run_inner(job: &CompactJob) -> Result<(), (i32, String)> {
    let prepared = compaction::prepare(&job.transcript, job.keep.0)
        .map_err(|e| (e.exit_code(), e.to_string()))?;
    let t = &prepared.transcript;
    let report = plan_report::from_plan(
        t,
        job.session.as_ref().map(|s| s.session_key.as_str()),
        job.keep.1,
        &prepared.plan,
    );
    let leaf_display = t.display_id(prepared.plan.leaf);

    let (summary, provider, model, warnings) = if let Some(f) = &job.summary_file {
        // An edited preview: only valid on the transcript state it was made for.
        let Some(expected) = &job.expect_leaf else {
            return Err((
                Exit::USAGE,
                "--summary-file needs --expect-leaf ID (the leafId printed with the preview)"
                    .into(),
            ));
        };
        if expected != &leaf_display && Some(expected.as_str()) != t.entry_id(prepared.plan.leaf) {
            return Err((
                Exit::REFUSED,
                format!(
                    "transcript changed since preview: leaf is {leaf_display}, the preview was made at {expected}"
                ),
            ));
        }
        let kept_display = t.display_id(prepared.plan.first_kept_entry);
        if let Some(fk) = &job.expect_first_kept {
            if fk != &kept_display
                && Some(fk.as_str()) != t.entry_id(prepared.plan.first_kept_entry)
            {
                return Err((
                    Exit::REFUSED,
                    format!(
                        "the cut moved since the preview: it now keeps from {kept_display}, the summary was made for a cut at {fk} (check --keep-recent-tokens)"
                    ),
                ));
            }
        }
        let text = std::fs::read_to_string(f).map_err(|e| {
            (
                Exit::FAILED,
                format!("cannot read summary file {}: {e}", f.display()),
            )
        })?;
        // Saving the preview (or an editor) ends the file with a newline the summary lacks.
        let text = text.strip_suffix('\n').map(str::to_string).unwrap_or(text);
        if text.trim().is_empty() {
            return Err((
                Exit::FAILED,
                format!("summary file {} is empty", f.display()),
            ));
        }
        (text, None, None, Vec::new())
    } else {
        let ep = job.model.endpoint().map_err(|e| (Exit::FAILED, e))?;
        let input = compaction::summary_input(t, &prepared.plan, job.instructions.clone());
        let budget = Budget {
            context_window: ep.context_window.unwrap_or(job.window),
            reserve_tokens: job.reserve,
            reasoning: ep.reasoning,
        };
        let cancel = CancellationToken::new();
        let show_progress = !job.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| (Exit::FAILED, e.to_string()))?;
        let out = rt.block_on(async {
            let c2 = cancel.clone();
            let ctrl_c = tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    c2.cancel();
                }
            });
            let mut s = LlmSummarizer::new(
                &ep,
                ClientOptions::default(),
                cancel.clone(),
                super::progress_printer(show_progress),
            );
            let r = compaction::model::generate(&mut s, budget, &input).await;
            ctrl_c.abort();
            r.map(|o| (o, std::mem::take(&mut s.warnings)))
        });
        if show_progress {
            eprintln!();
        }
        let (out, warnings) = out.map_err(|e| match e {
            SummaryError::Cancelled => (Exit::FAILED, "cancelled; nothing written".to_string()),
            e => (
                Exit::FAILED,
                format!("summary failed, nothing written: {e}"),
            ),
        })?;
        (
            out.summary,
            Some(ep.provider.clone()),
            Some(ep.model.clone()),
            warnings,
        )
    };
    for w in &warnings {
        eprintln!("clawtop: warning: {w}");
    }

    let mut committed = None;
    if job.yes {
        let c = compaction::commit(&prepared, &summary, job.session.as_ref())
            .map_err(|e| (e.exit_code(), e.to_string()))?;
        committed = Some(c);
    }
    let tokens_after = committed
        .as_ref()
        .map(|c| c.tokens_after)
        .unwrap_or_else(|| compaction::tokens_after(t, &prepared.plan, &summary));
    if job.json {
        let mut v = serde_json::to_value(&report).unwrap_or(Value::Null);
        if let Some(m) = v.as_object_mut() {
            m.insert("summary".into(), json!(summary));
            m.insert("provider".into(), json!(provider));
            m.insert("model".into(), json!(model));
            m.insert("committed".into(), json!(committed.is_some()));
            m.insert(
                "entryId".into(),
                json!(committed.as_ref().and_then(|c| c.entry_id.clone())),
            );
            m.insert("tokensAfter".into(), json!(tokens_after));
            m.insert(
                "storeUpdated".into(),
                json!(committed.as_ref().map(|c| c.store_updated).unwrap_or(false)),
            );
            m.insert("warnings".into(), json!(warnings));
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        let who = job
            .session
            .as_ref()
            .map(|s| s.session_key.clone())
            .unwrap_or_else(|| job.transcript.display().to_string());
        super::print_text(&summary);
        match &committed {
            Some(c) => println!(
                "Committed: compaction entry {} appended to {}{}; context now ≈{} tokens (was {}).",
                c.entry_id
                    .clone()
                    .unwrap_or_else(|| "(v1: id assigned by pi on load)".into()),
                sanitize::one_line(&job.transcript.display().to_string()),
                if c.store_updated {
                    format!(", sessions.json entry {} updated", sanitize::one_line(&who))
                } else {
                    String::new()
                },
                tokens_after,
                report.tokens_before
            ),
            None => {
                // The footer goes to stderr so `> summary.md` captures only the summary.
                eprintln!(
                    "Preview only: nothing written. Summarizes {} messages (+{} turn-prefix), keeps from {}; context would be ≈{} tokens (now {}).\n\
                     To commit exactly this text, save it (stdout) to FILE, edit it if you like, and run:\n  \
                     clawtop compact {} --summary-file FILE --expect-leaf {} --expect-first-kept {} --keep-recent-tokens {} --yes\n\
                     (--yes without --summary-file asks the model again and commits that new answer.)",
                    report.messages_to_summarize,
                    report.turn_prefix_messages,
                    sanitize::one_line(&t.display_id(prepared.plan.first_kept_entry)),
                    tokens_after,
                    report.tokens_before,
                    sanitize::one_line(&who),
                    sanitize::one_line(&leaf_display),
                    sanitize::one_line(&t.display_id(prepared.plan.first_kept_entry)),
                    job.keep.0,
                );
            }
        }
    }
    Ok(())
}
