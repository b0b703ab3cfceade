//! The Session screen: opening a session and its transcript, the entry popup, the context
//! view, finds and jumps. Every move of the selection ends in `scroll_into_view` then
//! `ensure_window`, so the decoded rows follow the viewport.

use super::live::{open_transcript_effect, watch_effect};
use super::window::{ensure_window, scroll_into_view, window};
use crate::sanitize::one_line;
use crate::transcript::EntryKind;
use crate::tui::model::action::Action;
use crate::tui::model::effect::Effect;
use crate::tui::model::state::{AppState, Detail, Screen, SessionView, layout};

pub(super) fn update(state: &mut AppState, action: Action, fx: &mut Vec<Effect>) {
    match action {
        Action::ShowContext => show_context(state),
        Action::ToggleHistory => {
            if let Some(v) = state.session.as_mut() {
                v.history_open = !v.history_open;
                v.cost_open = false;
            }
        }
        Action::ToggleCost => {
            if let Some(v) = state.session.as_mut() {
                v.cost_open = !v.cost_open;
                v.history_open = false;
            }
        }
        Action::CycleFindKind => {
            if let Some(v) = state.session.as_mut() {
                v.find = v.find.next_kind();
                state.status.info = Some(format!("n / N find {}.", v.find.name()));
            }
        }
        Action::FindNext | Action::FindPrev => {
            let forward = matches!(action, Action::FindNext);
            match state.session.as_ref().map(|v| v.find.clone()) {
                // Compactions are known already (the summaries): no pass over the file.
                Some(crate::tui::model::state::Find::Compactions) | None => {
                    jump_compaction(state, forward, fx)
                }
                Some(find) => find_effect(state, find, forward, fx),
            }
        }
        Action::Found {
            generation,
            idx,
            what,
            rank,
        } => {
            let h = layout::session_list(state.size);
            if let Some(v) = view_at(&mut state.session, generation) {
                match idx {
                    Some(i) => {
                        v.selected = i;
                        scroll_into_view(v, h);
                        fx.extend(ensure_window(v, h));
                        if let Some((r, n)) = rank {
                            state.status.info = Some(format!("{what}: match {r} of {n}"));
                        }
                    }
                    None => state.status.info = Some(format!("No entry matches {what}.")),
                }
            }
        }
        Action::NextCompaction | Action::PrevCompaction => {
            jump_compaction(state, matches!(action, Action::NextCompaction), fx)
        }
        Action::JumpToCut => {
            if let Some(v) = state.session.as_mut() {
                match v.loaded.as_ref().and_then(|l| l.next_cut) {
                    Some(cut) => {
                        v.selected = cut;
                        let h = layout::session_list(state.size);
                        scroll_into_view(v, h);
                        fx.extend(ensure_window(v, h));
                    }
                    None => {
                        state.status.info = Some(
                            "No cut point: the session is too small or already compacted.".into(),
                        )
                    }
                }
            }
        }
        Action::TranscriptLoaded { generation, result } => {
            transcript_loaded(state, generation, result, fx)
        }
        Action::TranscriptDetailsLoaded {
            generation,
            details,
        } => details_loaded(state, generation, *details, fx),
        Action::RowsDecoded { generation, rows } => rows_decoded(state, generation, rows),
        Action::DetailLoaded {
            generation,
            idx,
            title,
            body,
        } => detail_loaded(state, generation, idx, title, body),
        // Routed to another module by `super::update`.
        _ => {}
    }
}

/// `i`: the context view in the popup (not an entry: what the context holds, the figures
/// reconciled, the advice).
fn show_context(state: &mut AppState) {
    let width = crate::tui::layout::detail_width(state.size);
    if let Some(v) = state.session.as_mut() {
        let Some(l) = v.loaded.as_ref() else { return };
        match (l.diagnosis.as_deref(), l.details_pending()) {
            (Some(_), _) | (None, true) => {
                // Still measuring: the popup opens loading and fills when the details land.
                v.detail = Some(Detail {
                    // Not an entry: no decode answer can replace it.
                    idx: u32::MAX,
                    title: CONTEXT_TITLE.into(),
                    loading: true,
                    ..Detail::default()
                });
                refresh_context(v, width);
            }
            (None, false) => state.status.info = Some("No figures for this transcript.".into()),
        }
    }
}

const CONTEXT_TITLE: &str = "context · figures · advice";

/// The context view (not an entry) follows the figures: written from the diagnosis shown
/// (scroll kept), or left loading while there is none yet.
fn refresh_context(v: &mut SessionView, width: usize) {
    let Some(l) = v.loaded.as_ref() else { return };
    let Some(d) = v.detail.as_mut().filter(|d| d.idx == u32::MAX) else {
        return;
    };
    match l.diagnosis.as_deref() {
        Some(diag) => {
            let body = crate::tui::layout::context_view::body(diag, l.busy.as_ref(), width);
            d.wrapped = crate::tui::layout::wrap(&body, width);
            d.lines = d.wrapped.len();
            d.scroll = d.scroll.min(d.lines.saturating_sub(1) as u16);
            d.body = body;
            d.loading = false;
        }
        None if l.details_pending() => {
            d.body = "Still measuring the context (the whole transcript is read)…".into();
            d.wrapped = crate::tui::layout::wrap(&d.body, width);
            d.lines = d.wrapped.len();
            d.loading = true;
        }
        None => {
            d.body = "No figures for this transcript.".into();
            d.wrapped = vec![d.body.clone()];
            d.lines = 1;
            d.loading = false;
        }
    }
}

/// The open transcript's details (dropped when it was reopened since): the figures, the
/// history and the audits replace the pending (or previous) ones; the context view and an
/// open Compact dialog's suggestion follow.
fn details_loaded(
    state: &mut AppState,
    generation: u64,
    details: crate::tui::model::rows::TranscriptDetails,
    fx: &mut Vec<Effect>,
) {
    let width = crate::tui::layout::detail_width(state.size);
    let Some(v) = view_at(&mut state.session, generation) else {
        return;
    };
    let Some(l) = v.loaded.as_mut() else { return };
    l.set_details(details);
    let suggested = l
        .diagnosis
        .as_ref()
        .and_then(|d| d.suggested_keep_recent_tokens);
    refresh_context(v, width);
    let open = v.session.as_ref().map(|s| &s.session);
    if let Some(d) = state.dialog.as_mut().filter(|d| {
        d.kind == crate::tui::model::dialog::DialogKind::Compact && open == Some(&d.session.session)
    }) {
        let was = std::mem::replace(&mut d.suggested_keep, suggested);
        // A plan that found nothing to summarize before the suggestion was known is asked
        // again: its answer then prefills the suggestion, as when it was known at once.
        if was.is_none() && suggested.is_some() && d.prep.is_none() && d.prep_error.is_some() {
            d.prep_error = None;
            d.request_prepare(fx);
        }
    }
}

/// Decoded rows for the open transcript (dropped when it was reopened since).
fn rows_decoded(
    state: &mut AppState,
    generation: u64,
    rows: Vec<crate::tui::model::rows::EntryRow>,
) {
    if let Some(v) = view_at(&mut state.session, generation) {
        v.decoded_total += rows.len() as u64;
        for r in rows {
            v.requested.remove(&r.idx);
            v.cache.insert(r.idx, r);
        }
        // A slow decode may land after the viewport moved on: keep the bound.
        let h = layout::session_list(state.size);
        let (lo, hi) = window(v, h);
        v.cache.retain(|&i, _| i >= lo && i < hi);
    }
}

/// The expanded entry's text, wrapped to the popup (dropped when the popup moved on).
fn detail_loaded(state: &mut AppState, generation: u64, idx: u32, title: String, body: String) {
    if let Some(v) = view_at(&mut state.session, generation) {
        if let Some(d) = v.detail.as_mut().filter(|d| d.idx == idx) {
            d.wrapped =
                crate::tui::layout::wrap(&body, crate::tui::layout::detail_width(state.size));
            d.lines = d.wrapped.len();
            d.title = title;
            d.body = body;
            d.loading = false;
        }
    }
}

pub(super) fn open(state: &mut AppState, fx: &mut Vec<Effect>) {
    match state.mode() {
        crate::tui::model::keymap::Mode::Sessions => {
            let Some(row) = state.sessions.selected_row().cloned() else {
                return;
            };
            match (row.session.clone(), row.transcript.clone()) {
                (Some(session), Some(label)) => open_session(state, row, session, label, fx),
                _ => open_numbers_only(state, row),
            }
        }
        crate::tui::model::keymap::Mode::Session => {
            let Some(v) = state.session.as_mut() else {
                return;
            };
            let Some(l) = &v.loaded else { return };
            if v.selected >= v.len() {
                return;
            }
            v.detail = Some(Detail {
                idx: v.selected,
                loading: true,
                ..Detail::default()
            });
            fx.push(Effect::DecodeDetail {
                transcript: l.transcript.clone(),
                generation: v.generation,
                idx: v.selected,
            });
        }
        _ => {}
    }
}

/// Pushes the Session screen for `row` and asks for its transcript.
/// A session without a transcript still has its numbers and the reason for its state:
/// the Session screen opens on them, with no entries.
fn open_numbers_only(state: &mut AppState, row: crate::tui::model::view::SessionRow) {
    let generation = crate::tui::model::state::take_generation(&mut state.next_generation);
    let label = format!("{} (no transcript)", row.key());
    state.session = Some(SessionView {
        row,
        session: None,
        label,
        watch: Vec::new(),
        generation,
        error: Some("No transcript: only the store's numbers are known.".into()),
        ..SessionView::default()
    });
    state.stack.push(Screen::Session);
}

pub fn open_session(
    state: &mut AppState,
    row: crate::tui::model::view::SessionRow,
    session: crate::source::SessionHandle,
    label: String,
    fx: &mut Vec<Effect>,
) {
    let generation = crate::tui::model::state::take_generation(&mut state.next_generation);
    let watch = session.transcript_watch();
    let view = SessionView {
        row,
        session: Some(session),
        label,
        watch,
        generation,
        loading: true,
        ..SessionView::default()
    };
    fx.extend(open_transcript_effect(&view));
    state.session = Some(view);
    if state.screen() != Screen::Session {
        state.stack.push(Screen::Session);
    }
    fx.push(watch_effect(state));
}

fn transcript_loaded(
    state: &mut AppState,
    generation: u64,
    result: Result<
        Box<crate::tui::model::rows::LoadedTranscript>,
        std::sync::Arc<crate::source::SourceError>,
    >,
    fx: &mut Vec<Effect>,
) {
    let h = layout::session_list(state.size);
    let bare = state.bare_file;
    let Some(v) = view_at(&mut state.session, generation) else {
        return;
    };
    v.loading = false;
    if result.is_ok() {
        v.read_ms = Some(state.now_ms);
    }
    match result {
        Err(e) => {
            v.error = Some(one_line(&e.to_string()));
            state.status.error = v.error.clone();
        }
        Ok(l) => {
            let first_open = v.loaded.is_none();
            let was_at_end = v.loaded.is_some() && v.selected + 1 >= v.len();
            // The header's numbers are the domain's, decided with this transcript: a bare
            // file's from its defaults, a session's exactly as the list's row.
            if let Some(n) = l.numbers.clone() {
                if bare {
                    let (session, transcript) = (v.row.session.take(), v.row.transcript.take());
                    v.row = crate::tui::model::view::SessionRow::new(n, session);
                    v.row.transcript = transcript;
                } else {
                    v.row.set_numbers(n);
                }
            }
            if let Some(w) = l.warnings.first() {
                let more = if l.warnings.len() > 1 {
                    format!(" (+{} more)", l.warnings.len() - 1)
                } else {
                    String::new()
                };
                state.status.info = Some(format!("{w}{more}"));
            }
            v.error = None;
            let mut l = l;
            // A reload keeps the figures on screen until its own arrive (no flicker).
            if let Some(old) = v.loaded.as_mut() {
                l.keep_previous_details(old);
            }
            fx.extend(details_effect(v, &l));
            v.loaded = Some(l);
            // A reopen invalidates decoded rows (the file changed).
            v.cache.clear();
            v.requested.clear();
            let len = v.len();
            if first_open || was_at_end {
                // Open at the tail: the latest turns are what an operator checks first.
                v.selected = len.saturating_sub(1);
            }
            v.selected = v.selected.min(len.saturating_sub(1));
            v.offset = v.offset.min(v.selected);
            // The context view (not an entry) follows the reloaded figures; an entry's popup
            // closes when the entry is gone.
            if v.detail
                .as_ref()
                .is_some_and(|d| d.idx != u32::MAX && d.idx >= len)
            {
                v.detail = None;
            }
            refresh_context(v, crate::tui::layout::detail_width(state.size));
            scroll_into_view(v, h);
            fx.extend(ensure_window(v, h));
            if std::mem::take(&mut state.compact_on_load) {
                crate::tui::update::dialog::open_compact(state, fx);
            }
        }
    }
}

/// Asks for the details of a transcript just loaded (None: they came with it, or there is
/// no source to make them with).
fn details_effect(
    v: &SessionView,
    l: &crate::tui::model::rows::LoadedTranscript,
) -> Option<Effect> {
    if !l.details_pending() {
        return None;
    }
    Some(Effect::LoadTranscriptDetails {
        session: v.session.clone()?,
        generation: v.generation,
        transcript: l.transcript.clone(),
        keep_recent_tokens: l.keep_recent_tokens,
        basis: l.basis.clone()?,
    })
}

/// Starts a find from the selected entry (off the render path).
pub(super) fn find_effect(
    state: &mut AppState,
    find: crate::tui::model::state::Find,
    forward: bool,
    fx: &mut Vec<Effect>,
) {
    let Some(v) = state.session.as_ref() else {
        return;
    };
    let Some(l) = v.loaded.as_ref() else {
        state.status.info = Some("The transcript is still loading.".into());
        return;
    };
    fx.push(Effect::Find {
        transcript: l.transcript.clone(),
        generation: v.generation,
        from: v.selected,
        forward,
        find,
    });
}

fn jump_compaction(state: &mut AppState, forward: bool, fx: &mut Vec<Effect>) {
    let screen = state.screen();
    let h = layout::session_list(state.size);
    let Some(v) = state.session.as_mut() else {
        return;
    };
    let Some(l) = v.loaded.as_ref() else { return };
    let n = l.summaries.len();
    if n == 0 {
        state.status.info = Some("This session has no compaction entries.".into());
        return;
    }
    if screen == Screen::Summaries {
        let s = &mut state.summaries;
        s.selected = if forward {
            (s.selected + 1) % n
        } else {
            (s.selected + n - 1) % n
        };
        s.scroll = 0;
        s.lost = None;
        return;
    }
    let idxs: Vec<u32> = l.summaries.iter().map(|c| c.idx).collect();
    debug_assert!(
        idxs.iter()
            .all(|&i| l.transcript.entries[i as usize].kind == EntryKind::Compaction)
    );
    let target = if forward {
        idxs.iter()
            .copied()
            .find(|&i| i > v.selected)
            .or(idxs.first().copied())
    } else {
        idxs.iter()
            .rev()
            .copied()
            .find(|&i| i < v.selected)
            .or(idxs.last().copied())
    };
    if let Some(t) = target {
        v.selected = t;
        scroll_into_view(v, h);
        fx.extend(ensure_window(v, h));
    }
}

/// The open session's view while it is still the read `generation` was made for (an answer
/// for an older read is dropped).
fn view_at(
    session: &mut Option<crate::tui::model::state::SessionView>,
    generation: u64,
) -> Option<&mut crate::tui::model::state::SessionView> {
    session.as_mut().filter(|v| v.generation == generation)
}
