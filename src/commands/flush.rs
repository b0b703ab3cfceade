//! `clawtop flush KEY`: the model drafts memory notes from the session's context; the preview
//! is printed and nothing is written; `--yes` appends them to `<workspace>/memory/<date>.md`
//! and records the flush in the store; `--notes-file F --yes` commits edited notes.

use super::{Exit, ModelSetup};
use crate::commit::StoreRow;
use crate::flush::{self, FlushGate, FlushSpec};
use crate::llm::{CancellationToken, ClientOptions, Progress};
use crate::sanitize;
use crate::source::{SessionRef, SourceHandle};
use serde_json::json;
use std::path::PathBuf;

pub struct FlushJob {
    pub session: StoreRow,
    pub source: SourceHandle,
    pub reference: SessionRef,
    pub has_transcript: bool,
    pub workspace: PathBuf,
    pub workspace_source: String,
    pub config: serde_json::Value,
    pub instructions: Option<String>,
    pub notes_file: Option<PathBuf>,
    pub dry_run: bool,
    pub yes: bool,
    pub json: bool,
    pub window: u64,
    pub gate: FlushGate,
    pub model: ModelSetup,
}

pub fn run(job: FlushJob) -> i32 {
    match run_inner(&job) {
        Ok(()) => Exit::OK,
        Err((code, msg)) => {
            eprintln!("clawtop: {}", sanitize::one_line(&msg));
            code
        }
    }
}

fn run_inner(job: &FlushJob) -> Result<(), (i32, String)> {
    let date = flush::today();
    let prompts = flush::resolve_prompts(&job.config, &date);
    let target = flush::target_path(&job.workspace, &date);
    let mut warnings: Vec<String> = Vec::new();

    if job.dry_run {
        if job.json {
            let v = json!({
                "sessionKey": job.session.session_key, "target": target, "workspaceSource": job.workspace_source,
                "due": job.gate.due, "reasons": job.gate.reasons(),
                "systemPrompt": prompts.system, "systemPromptSource": prompts.system_source.name(),
                "prompt": prompts.prompt, "promptSource": prompts.prompt_source.name(),
            });
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        } else {
            println!(
                "Memory flush for {} (dry run: no model called, nothing written)",
                sanitize::one_line(&job.session.session_key)
            );
            for r in job.gate.reasons() {
                println!("  {}", sanitize::one_line(&r));
            }
            println!(
                "  target: {} (workspace from {})",
                target.display(),
                job.workspace_source
            );
            println!(
                "\nSystem prompt ({}):\n{}\n\nPrompt ({}):\n{}",
                prompts.system_source.name(),
                prompts.system,
                prompts.prompt_source.name(),
                prompts.prompt
            );
        }
        return Ok(());
    }

    let (notes, no_reply, provider, model) = if let Some(f) = &job.notes_file {
        let text = std::fs::read_to_string(f).map_err(|e| {
            (
                Exit::FAILED,
                format!("cannot read notes file {}: {e}", f.display()),
            )
        })?;
        // Only an explicit NO_REPLY records a flush without notes: an empty file is far
        // more likely a mistake, and recording it would switch off OpenClaw's own flush.
        if text.trim().is_empty() {
            return Err((
                Exit::FAILED,
                format!(
                    "notes file {} is empty (write NO_REPLY to record a flush without notes)",
                    f.display()
                ),
            ));
        }
        let no_reply = flush::is_no_reply(&text);
        (
            if no_reply { String::new() } else { text },
            no_reply,
            None,
            None,
        )
    } else {
        if !job.has_transcript {
            return Err((
                Exit::FAILED,
                format!(
                    "session {} has no transcript to draft notes from",
                    job.session.session_key
                ),
            ));
        }
        let t = job
            .source
            .open_transcript(&job.reference)
            .map_err(|e| (Exit::FAILED, e.to_string()))?;
        let messages = flush::context_messages(&t);
        let ep = job.model.endpoint().map_err(|e| (Exit::FAILED, e))?;
        let spec = FlushSpec {
            session_key: job.session.session_key.clone(),
            workspace: job.workspace.clone(),
            date: date.clone(),
            prompts: prompts.clone(),
            instructions: job.instructions.clone(),
            context_window: Some(ep.context_window.unwrap_or(job.window)),
        };
        let show = !job.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
        let mut printer = super::progress_printer(show);
        printer(crate::compaction::model::GenProgress::Call {
            call: 1,
            label: "memory notes".into(),
        });
        let mut progress = move |p: Progress| match p {
            Progress::Delta {
                chars_so_far,
                output_tokens_so_far,
            } => printer(crate::compaction::model::GenProgress::Delta {
                chars: chars_so_far,
                tokens: output_tokens_so_far,
            }),
            Progress::Retrying {
                attempt,
                after_ms,
                reason,
            } => printer(crate::compaction::model::GenProgress::Retrying {
                attempt,
                after_ms,
                reason,
            }),
            Progress::Started { .. } => {}
        };
        let cancel = CancellationToken::new();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| (Exit::FAILED, e.to_string()))?;
        let draft = rt.block_on(async {
            let c2 = cancel.clone();
            let ctrl_c = tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    c2.cancel();
                }
            });
            let r = flush::generate(
                &spec,
                &messages,
                &ep,
                &ClientOptions::default(),
                cancel.clone(),
                &mut progress,
            )
            .await;
            ctrl_c.abort();
            r
        });
        if show {
            eprintln!();
        }
        let draft = draft.map_err(|e| {
            (
                e.exit_code(),
                format!("memory flush failed, nothing written: {e}"),
            )
        })?;
        warnings.extend(draft.warnings.clone());
        (
            draft.notes.clone(),
            draft.no_reply,
            Some(ep.provider.clone()),
            Some(ep.model.clone()),
        )
    };
    for w in &warnings {
        eprintln!("clawtop: warning: {}", sanitize::one_line(w));
    }

    let committed = if job.yes {
        Some(
            flush::commit_flush_for_cycle(
                &job.workspace,
                &date,
                &notes,
                no_reply,
                Some(&job.session),
                Some(job.gate.compaction_count),
            )
            .map_err(|e| (e.exit_code(), e.to_string()))?,
        )
    } else {
        None
    };
    if job.json {
        let v = json!({
            "sessionKey": job.session.session_key,
            "target": committed.as_ref().map(|c| c.target.clone()).unwrap_or(target.clone()),
            "notes": notes,
            "noReply": no_reply,
            "committed": committed.is_some(),
            "memoryFlushAt": committed.as_ref().and_then(|c| c.memory_flush_at),
            "memoryFlushCompactionCount": committed.as_ref().and_then(|c| c.memory_flush_compaction_count),
            "provider": provider,
            "model": model,
            "warnings": warnings,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        if no_reply {
            eprintln!("NO_REPLY: the model found nothing worth keeping.");
        } else {
            super::print_text(&notes);
        }
        match &committed {
            Some(c) => eprintln!(
                "Committed: {} bytes appended to {}; memoryFlushAt {} and memoryFlushCompactionCount {} recorded for {}.",
                c.appended_bytes,
                c.target.display(),
                c.memory_flush_at
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "-".into()),
                c.memory_flush_compaction_count
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "-".into()),
                sanitize::one_line(&job.session.session_key)
            ),
            // The footer goes to stderr so `> notes.md` captures only the notes.
            None => eprintln!(
                "Preview only: nothing written. Target {}.\n\
                 To commit exactly these notes, save them (stdout) to FILE, edit them if you like, and run:\n  \
                 clawtop flush {} --notes-file FILE --yes\n\
                 (--yes without --notes-file asks the model again and commits that new answer.)",
                target.display(),
                sanitize::one_line(&job.session.session_key)
            ),
        }
    }
    Ok(())
}
