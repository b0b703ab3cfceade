//! `clawtop flush KEY`: the model drafts memory notes from the session's context; the preview
//! is printed and nothing is written; `--yes` appends them to `<workspace>/memory/<date>.md`
//! and records the flush in the store; `--notes-file F --yes` commits edited notes. On a
//! SQLite host the notes are appended the same way but the flush cannot be recorded (only
//! OpenClaw writes its database): every output says so (`flushRecorded: false`).

use crate::llm::{CancellationToken, ClientOptions};
use crate::sanitize;
use crate::source::SessionHandle;
use crate::usecase::{self, Exit, ModelChoice, Problem};
use serde_json::json;
use std::path::PathBuf;

pub struct FlushJob {
    pub session: SessionHandle,
    /// `--workspace DIR` (None: the agent's workspace from the config).
    pub workspace: Option<PathBuf>,
    pub instructions: Option<String>,
    pub notes_file: Option<PathBuf>,
    pub dry_run: bool,
    pub yes: bool,
    pub json: bool,
    pub model: ModelChoice,
}

pub fn run(job: FlushJob) -> i32 {
    match run_inner(&job) {
        Ok(()) => Exit::OK,
        Err(p) => {
            super::report_error(&p.to_string(), p.exit_code());
            p.exit_code()
        }
    }
}

fn run_inner(job: &FlushJob) -> Result<(), Problem> {
    let p = usecase::flush::prepare(
        &job.session,
        &usecase::flush::Options {
            workspace: job.workspace.clone(),
            model: job.model.clone(),
        },
    )?;
    if let (Some(why), false) = (&p.read_only, job.dry_run) {
        return Err(Problem::Refused(format!("refused: {why}")));
    }
    if job.dry_run {
        print_dry_run(job, &p);
        return Ok(());
    }
    // A turn in progress: the commit would be refused, so asking the model first is waste.
    if job.yes {
        if let Some(note) = usecase::refuse_if_busy(&p.session)? {
            eprintln!("clawtop: note: {note}");
        }
    }
    let mut warnings: Vec<String> = Vec::new();
    let (text, provider, model) = match &job.notes_file {
        Some(f) => file_notes(f)?,
        None => generated_notes(job, &p, &mut warnings)?,
    };
    let (notes, no_reply) = usecase::flush::notes_to_commit(&text)?;
    for w in &warnings {
        eprintln!("clawtop: warning: {}", sanitize::one_line(w));
    }
    let committed = if job.yes {
        Some(usecase::flush::commit(&p, &text)?)
    } else {
        None
    };
    let key = &job.session.session.key;
    let target = p.target.clone();
    if job.json {
        let v = json!({
            "sessionKey": key,
            "target": committed.as_ref().map(|c| c.target.clone()).unwrap_or(target.clone()),
            "notes": notes,
            "noReply": no_reply,
            "committed": committed.is_some(),
            "memoryFlushAt": committed.as_ref().and_then(|c| c.memory_flush_at),
            "memoryFlushCompactionCount": committed.as_ref().and_then(|c| c.memory_flush_compaction_count),
            "flushRecorded": p.unrecorded.is_none(),
            "flushNotRecordedBecause": p.unrecorded,
            "provider": provider,
            "model": model,
            "warnings": warnings,
        });
        print!("{}", crate::report::json::to_string(&v));
    } else {
        if no_reply {
            eprintln!("NO_REPLY: the model found nothing worth keeping.");
        } else {
            super::print_text(&notes);
        }
        match &committed {
            Some(c) if p.unrecorded.is_some() => eprintln!(
                "Committed: {} bytes appended to {}. The flush is not recorded on {}: {}.",
                c.appended_bytes,
                sanitize::one_line(&c.target.display().to_string()),
                sanitize::one_line(key),
                p.unrecorded.as_deref().unwrap_or_default()
            ),
            Some(c) => eprintln!(
                "Committed: {} bytes appended to {}; memoryFlushAt {} and memoryFlushCompactionCount {} recorded for {}.",
                c.appended_bytes,
                sanitize::one_line(&c.target.display().to_string()),
                c.memory_flush_at
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "-".into()),
                c.memory_flush_compaction_count
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "-".into()),
                sanitize::one_line(key)
            ),
            // The footer goes to stderr so `> notes.md` captures only the notes.
            None => eprintln!(
                "Preview only: nothing written. Target {}.\n\
                 To commit exactly these notes, save them (stdout) to FILE, edit them if you like, and run:\n  \
                 clawtop flush {} --notes-file FILE --yes\n\
                 (--yes without --notes-file asks the model again and commits that new answer.){}",
                sanitize::one_line(&target.display().to_string()),
                sanitize::one_line(key),
                p.unrecorded
                    .as_deref()
                    .map(|why| format!("\nOn this host {why}."))
                    .unwrap_or_default()
            ),
        }
    }
    Ok(())
}

/// `--dry-run`: the gate's reasons, the target and the prompts; no model, nothing written.
fn print_dry_run(job: &FlushJob, p: &usecase::flush::Prepared) {
    let key = &job.session.session.key;
    let prompts = &p.prompts;
    let target = &p.target;
    if job.json {
        let v = json!({
            "sessionKey": key, "target": target, "workspaceSource": p.workspace_source,
            "due": p.gate.due, "reasons": p.gate.reasons(),
            "systemPrompt": prompts.system, "systemPromptSource": prompts.system_source.name(),
            "prompt": prompts.prompt, "promptSource": prompts.prompt_source.name(),
            "flushRecorded": p.unrecorded.is_none(),
            "flushNotRecordedBecause": p.unrecorded,
            "warnings": p.target_warnings,
        });
        print!("{}", crate::report::json::to_string(&v));
    } else {
        println!(
            "Memory flush for {} (dry run: no model called, nothing written)",
            sanitize::one_line(key)
        );
        for r in p.gate.reasons() {
            println!("  {}", sanitize::one_line(&r));
        }
        // Prompts and the workspace come from the config: untrusted on a terminal.
        println!(
            "  target: {} (workspace from {})",
            sanitize::one_line(&target.display().to_string()),
            p.workspace_source
        );
        if let Some(why) = &p.unrecorded {
            println!("  not recorded: {why}");
        }
        for w in &p.target_warnings {
            eprintln!("clawtop: warning: {}", sanitize::one_line(w));
        }
        println!(
            "\nSystem prompt ({}):\n{}\n\nPrompt ({}):\n{}",
            prompts.system_source.name(),
            sanitize::for_terminal(&prompts.system, true),
            prompts.prompt_source.name(),
            sanitize::for_terminal(&prompts.prompt, true)
        );
    }
}

/// Notes the operator wrote (`--notes-file`), checked by the use case's rule.
fn file_notes(f: &std::path::Path) -> Result<(String, Option<String>, Option<String>), Problem> {
    let text = std::fs::read_to_string(f)
        .map_err(|e| Problem::Failed(format!("cannot read notes file {}: {e}", f.display())))?;
    // The use case's rule (empty notes are refused), worded for a file.
    if usecase::flush::notes_to_commit(&text).is_err() {
        return Err(Problem::Failed(format!(
            "notes file {} is empty (write NO_REPLY to record a flush without notes)",
            f.display()
        )));
    }
    Ok((text, None, None))
}

/// Notes the model writes now (Ctrl-C cancels it).
fn generated_notes(
    job: &FlushJob,
    p: &usecase::flush::Prepared,
    warnings: &mut Vec<String>,
) -> Result<(String, Option<String>, Option<String>), Problem> {
    let model = p
        .model
        .clone()
        .map_err(|e| Problem::Failed(e.to_string()))?;
    let show = !job.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let cancel = CancellationToken::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Problem::Failed(e.to_string()))?;
    let draft = rt.block_on(async {
        let c2 = cancel.clone();
        let ctrl_c = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                c2.cancel();
            }
        });
        let r = usecase::flush::generate(
            p,
            &model,
            job.instructions.clone(),
            ClientOptions::default(),
            cancel.clone(),
            super::progress_printer(show),
        )
        .await;
        ctrl_c.abort();
        r
    });
    if show {
        eprintln!();
    }
    let draft = draft?;
    warnings.extend(draft.warnings.clone());
    Ok((draft.text, Some(draft.provider), Some(draft.model)))
}

// ---------------------------------------------------------------- the verb, from the command line

use super::args::*;
use super::host::*;

pub(crate) fn cmd_flush(g: &Global, a: &FlushArgs) -> i32 {
    let target = match resolve_target(g, &a.target, Exit::REFUSED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    flush_run(&target, a)
}

/// The flush path: draft notes with the model, preview, commit with `--yes`.
pub(crate) fn flush_run(target: &Target, a: &FlushArgs) -> i32 {
    let (model, instructions) =
        match model_and_instructions(&a.model, &a.instructions, &a.instructions_file) {
            Ok(x) => x,
            Err(code) => return code,
        };
    crate::commands::flush::run(crate::commands::flush::FlushJob {
        session: target.handle(),
        workspace: a.workspace.clone(),
        instructions,
        notes_file: a.notes_file.clone(),
        dry_run: a.dry_run,
        yes: a.yes,
        json: a.json,
        model,
    })
}

/// The flush `compact --flush-first` runs before it compacts: the same use case as
/// `clawtop flush KEY` (without `--yes`, only drafted). Its notes and outcome go to stderr, so
/// the compaction's output (the summary, or its JSON) stays one document.
pub(super) fn before_compaction(
    session: &SessionHandle,
    model: &ModelChoice,
    yes: bool,
    json: bool,
) -> Result<serde_json::Value, Problem> {
    let job = FlushJob {
        session: session.clone(),
        workspace: None,
        instructions: None,
        notes_file: None,
        dry_run: false,
        yes,
        json,
        model: model.clone(),
    };
    let p = usecase::flush::prepare(
        session,
        &usecase::flush::Options {
            workspace: None,
            model: model.clone(),
        },
    )?;
    if let Some(why) = &p.read_only {
        return Err(Problem::Refused(format!(
            "refused: the flush before compacting: {why}"
        )));
    }
    let mut warnings = Vec::new();
    let (text, _, _) = generated_notes(&job, &p, &mut warnings)?;
    let (notes, no_reply) = usecase::flush::notes_to_commit(&text)?;
    for w in &warnings {
        eprintln!("clawtop: warning: {}", sanitize::one_line(w));
    }
    let committed = if yes {
        Some(usecase::flush::commit(&p, &text)?)
    } else {
        None
    };
    if !json {
        eprintln!("Flush first (OpenClaw flushes before it compacts):");
        if no_reply {
            eprintln!("NO_REPLY: the model found nothing worth keeping.");
        } else {
            eprintln!("{}", sanitize::for_terminal(&notes, true));
        }
        match &committed {
            Some(c) => eprintln!(
                "Flushed: {} bytes appended to {}; memoryFlushCompactionCount {} recorded. Now compacting.",
                c.appended_bytes,
                sanitize::one_line(&c.target.display().to_string()),
                c.memory_flush_compaction_count
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "-".into()),
            ),
            None => {
                eprintln!("Flush preview only: nothing written (--yes flushes, then compacts).")
            }
        }
    }
    Ok(json!({
        "notes": notes,
        "noReply": no_reply,
        "committed": committed.is_some(),
        "target": committed.as_ref().map(|c| c.target.clone()).unwrap_or(p.target.clone()),
        "memoryFlushAt": committed.as_ref().and_then(|c| c.memory_flush_at),
        "memoryFlushCompactionCount": committed.as_ref().and_then(|c| c.memory_flush_compaction_count),
        "warnings": warnings,
    }))
}
