//! The Compact dialog's own parts: opening it on a loaded transcript (or handing it to the
//! gateway's dialog when OpenClaw's gateway writes the session), the keepRecentTokens field
//! (each valid value re-plans), the confirmation of a compaction commit, and F6's
//! "Keep these exact identifiers" round trip from the preview's audit.

use super::*;

/// Opens the Compact dialog on the Session screen's session.
pub fn open_compact(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(v) = &state.session else { return };
    let (row, session, file) = (v.row.clone(), v.session.clone(), v.label_file_name());
    let loaded = v.loaded.is_some();
    // OpenClaw's gateway compacts without clawtop reading the transcript: the row's session
    // is enough for it.
    if let Some(s) = session.as_ref().or(row.session.as_ref()) {
        if let Route::Gateway(r) =
            crate::usecase::route::route(s, crate::source::Operation::Compact, Door::Default)
        {
            gateway::open_gateway_compact(state, s.clone(), who_of(&row), *r);
            return;
        }
    }
    if session.is_none() && row.session.is_some() {
        state.status.info = Some(format!(
            "No transcript for {}: nothing to compact here (a compaction summarizes the transcript; only the store's numbers are known).",
            crate::sanitize::one_line(row.key())
        ));
        return;
    }
    if !can_write(state, session.as_ref(), crate::source::Operation::Compact) {
        return;
    }
    let Some(session) = session else { return };
    if !loaded {
        state.status.info = Some("The transcript is still loading.".into());
        return;
    }
    let id = crate::tui::model::state::take_generation(&mut state.next_generation);
    let who = if state.bare_file { file } else { who_of(&row) };
    let mut d = Dialog::new(
        id,
        DialogKind::Compact,
        who,
        session.clone(),
        state.no_color,
    );
    d.base_keep = row.keep_recent_tokens;
    d.suggested_keep = state
        .session
        .as_ref()
        .and_then(|v| v.loaded.as_ref())
        .and_then(|l| l.diagnosis.as_ref())
        .and_then(|diag| diag.suggested_keep_recent_tokens);
    state.dialog = Some(d);
    fx.push(Effect::Prepare(Box::new(PrepareRequest {
        dialog: id,
        seq: 1,
        model: Default::default(),
        kind: DialogKind::Compact,
        session,
        keep_recent_tokens: row.keep_recent_tokens,
    })));
}

/// Builds the confirmation of a compaction commit of `text`.
pub fn compact_confirm(c: &CompactPrep, text: &str) -> Vec<String> {
    let bytes = c.line_overhead
        + crate::jsjson::stringify(&serde_json::Value::String(text.to_string())).len()
        - 2
        + 1;
    let summary_tokens = crate::tokens::estimate_message(
        &serde_json::json!({"role": "compactionSummary", "summary": text}),
    );
    let after = c.kept_tokens + summary_tokens;
    let mut lines = vec![
        format!(
            "Append 1 compaction entry ({} bytes) to {},",
            thousands(bytes as u64),
            c.transcript.display()
        ),
        format!("parent {}, keeping from {}.", c.leaf_id, c.first_kept_id),
    ];
    match &c.store {
        Some(s) => {
            let cc = c.compaction_count.unwrap_or(0);
            lines.push(format!(
                "Update {} entry {}:",
                s.store_path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s.session_key
            ));
            lines.push(format!(
                "set compactionCount {cc}→{}, totalTokens→{}, totalTokensFresh→true, updatedAt→now;",
                cc + 1,
                thousands(after)
            ));
            lines.push("clear inputTokens, outputTokens, cacheRead, cacheWrite.".into());
            if let Some(m) = c.store_mode.filter(|&m| m != crate::commit::STORE_MODE) {
                lines.push(format!(
                    "File mode {m:04o}→{:04o} (the store is rewritten as OpenClaw writes it).",
                    crate::commit::STORE_MODE
                ));
            }
        }
        None => lines.push(format!(
            "Bare file: the transcript only (context after ≈{} tokens).",
            thousands(after)
        )),
    }
    lines
}

pub(super) fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::DialogKeepMore | Action::DialogKeepLess => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            // Only while nothing was generated: a summary belongs to the cut it was made for.
            if d.kind != DialogKind::Compact || d.phase != Phase::Edit {
                return true;
            }
            let Some(now) = d.keep_shown() else {
                return true;
            };
            let next = if matches!(action, Action::DialogKeepMore) {
                now.saturating_add(KEEP_STEP).min(KEEP_MAX)
            } else {
                now.saturating_sub(KEEP_STEP).max(KEEP_STEP)
            };
            d.keep_invalid = None;
            if d.keep_text.is_some() {
                d.keep_text = Some(next.to_string());
            }
            if next != now || d.keep != Some(next) {
                d.keep = Some(next);
                d.request_prepare(fx);
            }
        }
        Action::DialogKeepChar(_) | Action::DialogKeepBackspace => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.kind != DialogKind::Compact || d.phase != Phase::Edit || d.focus != Focus::Keep {
                return true;
            }
            let mut text = d
                .keep_text
                .take()
                .or_else(|| d.keep_shown().map(|k| k.to_string()))
                .unwrap_or_default();
            match action {
                Action::DialogKeepChar(c) if text.chars().count() < 24 => text.push(*c),
                Action::DialogKeepChar(_) => {}
                _ => {
                    text.pop();
                }
            }
            match parse_keep(&text) {
                Ok(v) => {
                    d.keep_invalid = None;
                    if d.keep_error
                        .take()
                        .is_some_and(|k| d.error.as_ref() == Some(&k))
                    {
                        d.error = None;
                    }
                    if d.keep != Some(v) {
                        d.keep = Some(v);
                        d.request_prepare(fx);
                    }
                }
                Err(why) => d.keep_invalid = Some(why),
            }
            d.keep_text = Some(text);
        }
        Action::DialogKeepIdentifiers => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let Some(audit) = d
                .audit
                .clone()
                .filter(|a| d.phase == Phase::Preview && a.lost() > Some(0))
            else {
                state.status.info = Some("The preview loses no identifier: nothing to add.".into());
                return true;
            };
            // Back to the instructions with the lost identifiers asked for: the operator reads
            // and edits them, then generates (Ctrl-G) as usual.
            let current = text_of(&d.instructions);
            let asked =
                crate::usecase::compact::keep_identifiers_instructions(Some(&current), &audit)
                    .unwrap_or_default();
            d.instructions = textarea(&asked, d.no_color, "");
            // The cursor after the list, where the operator adds to it.
            d.instructions
                .move_cursor(ratatui_textarea::CursorMove::Bottom);
            d.instructions
                .move_cursor(ratatui_textarea::CursorMove::End);
            let n = audit.lost().unwrap_or(0);
            d.back_to_edit();
            state.status.info = Some(format!(
                "Instructions now ask to keep the {n} lost identifiers: edit them, then Ctrl-G to generate."
            ));
        }
        // Routed to another module by `super::update`.
        _ => return false,
    }
    true
}
