//! The Flush dialog's calls into [`crate::flush`]: plan (gate, prompts, workspace, target and
//! its current content), generation (one streamed call) and commit of exactly the previewed
//! notes. Called from effects only (disk, network), never from `update` or `draw`.

use crate::compaction::model::GenProgress;
use crate::flush::{self, FlushGate, FlushPrompts, FlushSpec};
use crate::llm::{CancellationToken, ClientOptions, Progress};
use crate::tui::dialog::{FlushPrep, GenFailure, Generated, ModelInfo};
use crate::tui::effects::{EffectCtx, PrepareRequest, resolve_model};
use crate::tui::model::thousands;

/// Blank notes or a `NO_REPLY` answer: the commit records the flush without writing notes.
pub fn is_no_reply(text: &str) -> bool {
    text.trim().is_empty() || flush::is_no_reply(text)
}

/// Length and last two bytes of the target (the separator before the notes depends on them).
fn tail_of(target: &std::path::Path) -> (u64, Vec<u8>) {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(target) else {
        return (0, Vec::new());
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut tail = Vec::new();
    if len > 0 && f.seek(SeekFrom::Start(len.saturating_sub(2))).is_ok() {
        let _ = f.take(2).read_to_end(&mut tail);
    }
    (len, tail)
}

pub fn prepare(req: &PrepareRequest, ctx: &EffectCtx) -> Result<FlushPrep, String> {
    let (workspace, workspace_source) = req
        .writer
        .workspace
        .clone()
        .ok_or("No workspace: a memory flush needs the agent workspace.")?;
    let store = req
        .writer
        .store
        .clone()
        .ok_or("No session store row: nothing to record the flush in.")?;
    let config = req.session.source.config();
    let row = &req.row;
    let date = flush::today();
    let prompts = flush::resolve_prompts(config, &date);
    let target = flush::target_path(&workspace, &date);
    let mut warnings = Vec::new();
    if !workspace.is_dir() {
        warnings.push(format!(
            "workspace {} (from {workspace_source}) is not an existing directory: a commit will be refused; set agents.list[].workspace or agents.defaults.workspace",
            workspace.display()
        ));
    }
    let existing = if target.exists() {
        Some(flush::read_existing(&target, &mut warnings))
    } else {
        None
    };
    let (current_len, current_tail) = tail_of(&target);
    let entry = serde_json::json!({
        "compactionCount": row.compaction_count,
        "memoryFlushCompactionCount": row.memory_flush_compaction_count,
        "memoryFlushAt": row.memory_flush_at,
    });
    let gate = FlushGate::new(
        config,
        &entry,
        row.flush_at,
        row.used,
        row.used_source.name(),
    );
    let model = resolve_model(
        ctx,
        req.session.source.as_ref(),
        &row.agent_id,
        row.model_provider.as_deref(),
        row.model_id.as_deref(),
        row.window,
        row.reserve,
    );
    Ok(FlushPrep {
        gate,
        prompts,
        workspace,
        workspace_source,
        target,
        current: existing,
        current_len,
        current_tail,
        date,
        session: req.session.clone(),
        window: row.window,
        model,
        store,
        warnings,
    })
}

pub fn prompt_sources(p: &FlushPrompts) -> (String, String) {
    (
        FlushPrompts::describe(p.system_source, true),
        FlushPrompts::describe(p.prompt_source, false),
    )
}

/// The confirmation of a flush commit of `text`.
pub fn confirm_lines(f: &FlushPrep, text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if is_no_reply(text) {
        lines.push("NO_REPLY: no notes are written;".into());
        lines.push(format!("{} stays as it is.", f.target.display()));
    } else {
        let (_, bytes) = flush::append_bytes(f.current_len, &f.current_tail, text);
        let create = if f.current.is_none() {
            " (created)"
        } else {
            ""
        };
        lines.push(format!(
            "Append {} bytes to {}{create}.",
            thousands(bytes.len() as u64),
            f.target.display()
        ));
    }
    let store = f
        .store
        .store_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    lines.push(format!("Update {store} entry {}:", f.store.session_key));
    lines.push(format!(
        "memoryFlushAt = now, memoryFlushCompactionCount = {}.",
        f.gate.compaction_count
    ));
    lines
}

/// One streamed call for the notes (the transcript is read off the async threads first).
pub async fn generate(
    f: &FlushPrep,
    instructions: Option<String>,
    model: &ModelInfo,
    options: ClientOptions,
    cancel: CancellationToken,
    mut on_progress: Box<dyn FnMut(GenProgress) + Send>,
) -> Result<Generated, GenFailure> {
    let session = f.session.clone();
    let messages = tokio::task::spawn_blocking(move || {
        session
            .open_transcript()
            .map(|t| flush::context_messages(&t))
    })
    .await
    .map_err(|e| GenFailure::Failed(format!("reading the transcript failed: {e}")))?
    .map_err(|e| GenFailure::Failed(e.to_string()))?;
    let spec = FlushSpec {
        session_key: f.store.session_key.clone(),
        workspace: f.workspace.clone(),
        date: f.date.clone(),
        prompts: f.prompts.clone(),
        instructions,
        context_window: Some(model.endpoint.context_window.unwrap_or(f.window)),
    };
    on_progress(GenProgress::Call {
        call: 1,
        label: "memory notes".into(),
    });
    let mut progress = |p: Progress| match p {
        Progress::Delta {
            chars_so_far,
            output_tokens_so_far,
        } => on_progress(GenProgress::Delta {
            chars: chars_so_far,
            tokens: output_tokens_so_far,
        }),
        Progress::Retrying {
            attempt,
            after_ms,
            reason,
        } => on_progress(GenProgress::Retrying {
            attempt,
            after_ms,
            reason,
        }),
        Progress::Started { .. } => {}
    };
    match flush::generate(
        &spec,
        &messages,
        &model.endpoint,
        &options,
        cancel,
        &mut progress,
    )
    .await
    {
        Ok(d) => Ok(Generated {
            text: if d.no_reply { String::new() } else { d.notes },
            calls: 1,
            warnings: d.warnings,
            no_reply: d.no_reply,
            current: Some(d.existing),
        }),
        Err(flush::FlushError::Model(crate::llm::LlmError::Cancelled)) => {
            Err(GenFailure::Cancelled)
        }
        Err(e) => Err(GenFailure::Failed(e.to_string())),
    }
}

pub fn commit(f: &FlushPrep, text: &str) -> Result<String, String> {
    let no_reply = is_no_reply(text);
    let notes = if no_reply { "" } else { text };
    match flush::commit_flush_for_cycle(
        &f.workspace,
        &f.date,
        notes,
        no_reply,
        Some(&f.store),
        Some(f.gate.compaction_count),
    ) {
        Ok(c) => Ok(if no_reply {
            format!(
                "Flush recorded (NO_REPLY, no notes written) for {}.",
                crate::sanitize::one_line(&f.store.session_key)
            )
        } else {
            format!(
                "Appended {} bytes to {}; memoryFlushCompactionCount {} recorded.",
                thousands(c.appended_bytes),
                c.target.display(),
                c.memory_flush_compaction_count
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "-".into())
            )
        }),
        Err(e) if e.exit_code() == 3 => Err(format!("Flush refused, nothing written: {e}")),
        Err(e) => Err(format!("Flush failed: {e}")),
    }
}
