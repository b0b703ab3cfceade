//! How the Flush dialog words a flush of [`crate::usecase::flush`]: prompt sources and the
//! confirmation (the commit and its result's words run in an effect:
//! [`crate::tui::runtime::effects`]).

use crate::flush::{self, FlushPrompts};
use crate::tui::model::dialog::FlushPrep;
use crate::tui::model::view::thousands;

pub fn prompt_sources(p: &FlushPrompts) -> (String, String) {
    (p.describe_for_host(true), p.describe_for_host(false))
}

/// The confirmation of a flush commit of `text`.
pub fn confirm_lines(f: &FlushPrep, text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if flush::is_no_reply(text) {
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
    if let Some(why) = &f.unrecorded {
        lines.push(format!("Note: {why}."));
    }
    if let Some(store) = &f.store {
        let file = store
            .store_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        lines.push(format!("Update {file} entry {}:", store.session_key));
        lines.push(format!(
            "set memoryFlushAt→now, memoryFlushCompactionCount→{}.",
            f.gate.compaction_count
        ));
        if let Some(m) = f.store_mode.filter(|&m| m != crate::commit::STORE_MODE) {
            lines.push(format!(
                "File mode {m:04o}→{:04o} (the store is rewritten as OpenClaw writes it).",
                crate::commit::STORE_MODE
            ));
        }
    }
    lines
}
