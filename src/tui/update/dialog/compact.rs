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
    open_local(state, fx, session, row, file, None);
}

/// The Compact dialog of a local writer; `then` carries the values it had before its flush
/// ran first (the plan reads the files itself: the reload need not have finished).
fn open_local(
    state: &mut AppState,
    fx: &mut Vec<Effect>,
    session: crate::source::SessionHandle,
    row: crate::tui::model::view::SessionRow,
    file: String,
    then: Option<ThenCompact>,
) {
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
    let mut keep = row.keep_recent_tokens;
    if let Some(then) = then {
        d.instructions = textarea(&then.instructions, d.no_color, "");
        d.instructions_base = then.instructions;
        if let Some(k) = then.keep {
            d.keep = Some(k);
            keep = k;
        }
        d.restyle();
    }
    state.dialog = Some(d);
    fx.push(Effect::Prepare(Box::new(PrepareRequest {
        dialog: id,
        seq: 1,
        model: Default::default(),
        kind: DialogKind::Compact,
        session,
        keep_recent_tokens: keep,
    })));
}

/// F3, or Generate after F3: the Compact dialog gives way to the Flush dialog (the same as
/// `f`: plan, generate, preview, confirm), which brings the compaction back once committed.
pub(super) fn flush_then_compact(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(d) = state.dialog.as_ref() else {
        return;
    };
    let then = ThenCompact {
        instructions: text_of(&d.instructions),
        keep: d.keep,
    };
    state.dialog = None;
    open_flush(state, fx);
    match state.dialog.as_mut() {
        Some(f) if f.kind == DialogKind::Flush => {
            f.then_compact = Some(then);
            state.status.info = Some(
                "Flush first, as OpenClaw does: commit the notes and the compaction comes back; close to cancel both.".into(),
            );
        }
        _ => {}
    }
}

/// After the flush committed: the Compact dialog again, with the values it had.
pub(super) fn reopen_after_flush(state: &mut AppState, fx: &mut Vec<Effect>, then: ThenCompact) {
    let Some(v) = &state.session else { return };
    let (row, file) = (v.row.clone(), v.label_file_name());
    let Some(session) = v.session.clone().or_else(|| row.session.clone()) else {
        return;
    };
    open_local(state, fx, session, row, file, Some(then));
}

/// Builds the confirmation of a compaction commit of `text`: every figure is what the commit
/// writes ([`crate::usecase::compact::written`]).
pub fn compact_confirm(c: &CompactPrep, text: &str) -> Vec<String> {
    let w = crate::usecase::compact::written(c, text);
    let (bytes, after) = (w.bytes, w.tokens_after);
    let mut lines = vec![
        format!(
            "Append 1 compaction entry ({} bytes) to {},",
            thousands(bytes),
            c.transcript.display()
        ),
        format!("parent {}, keeping from {}.", c.leaf_id, c.first_kept_id),
    ];
    match &c.store {
        Some(s) => {
            let (cc, cc_after) = w.compaction_count;
            lines.push(format!(
                "Update {} entry {}:",
                s.store_path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s.session_key
            ));
            lines.push(format!(
                "set compactionCount {cc}→{cc_after}, totalTokens→{}, totalTokensFresh→true, updatedAt→now;",
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
        Action::DraftAudited { dialog, seq, audit } => {
            let now = state.now_ms;
            let Some(d) = state.dialog.as_mut().filter(|d| d.id == *dialog) else {
                return true;
            };
            d.audit_running = false;
            if d.phase != Phase::Preview {
                return true;
            }
            d.audit = Some(audit.clone());
            d.audited_seq = *seq;
            // Edited again while it ran: once more, for the text as it is now.
            if *seq != d.edit_seq && d.audit_due.is_none() {
                d.audit_due = Some(now);
            }
        }
        Action::DialogFlushFirst | Action::DialogSkipFlush => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let Some(Prep::Compact(c)) = &d.prep else {
                return true;
            };
            if d.phase != Phase::Edit {
                return true;
            }
            if crate::usecase::compact::flush_due(c).is_none() {
                state.status.info = Some("No flush is due before this compaction.".into());
                return true;
            }
            d.error = None;
            if matches!(action, Action::DialogSkipFlush) {
                d.flush_choice = crate::usecase::compact::FlushChoice::Skip;
            } else {
                d.flush_choice = crate::usecase::compact::FlushChoice::FlushFirst;
                flush_then_compact(state, fx);
            }
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
