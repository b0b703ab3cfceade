//! `update(state, action) -> effects`: the only place state changes. Pure: no I/O, no clock,
//! no terminal. Work that touches the disk is returned as an [`Effect`] and comes back later
//! as an [`Action`].

use crate::sanitize::one_line;
use crate::transcript::EntryKind;
use crate::tui::action::Action;
use crate::tui::effects::Effect;
use crate::tui::keymap;
use crate::tui::state::{AppState, Detail, Screen, SessionView, layout};

/// Extra entries decoded above and below the visible ones, in screens. The cache never holds
/// more than (1 + 2 × margin) screens of rows, however long the transcript.
pub const WINDOW_MARGIN: usize = 1;

pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    let mut fx = Vec::new();
    if matches!(action, Action::OpenCompact) && state.screen() == Screen::Sessions {
        // The Compact dialog needs the transcript (the plan): open the session, then the
        // dialog once it is loaded.
        open(state, &mut fx);
        state.compact_on_load = state.screen() == Screen::Session;
        return fx;
    }
    if crate::tui::dialog::update(state, &action, &mut fx) {
        return fx;
    }
    match action {
        Action::Key(key) => {
            let mode = state.mode();
            if let Some(a) = keymap::lookup(mode, &key) {
                // A deliberate key press acknowledges the last error (typing does not).
                if !matches!(a, Action::DialogInput(_) | Action::DialogKeepChar(_)) {
                    state.status.error = None;
                    state.status.info = None;
                }
                return update(state, a);
            }
        }
        Action::Quit => state.should_quit = true,
        Action::ToggleHelp => state.help = if state.help.is_some() { None } else { Some(0) },
        Action::Back | Action::Close => back(state, matches!(action, Action::Close)),
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom => move_cursor(state, &action, &mut fx),
        Action::Open => open(state, &mut fx),
        Action::CycleSort => {
            let key = state
                .sessions
                .selected_row()
                .map(|r| (r.agent_id.clone(), r.session_key.clone()));
            state.sessions.sort = state.sessions.sort.next();
            state.sessions.sort_rows();
            reselect(state, key);
        }
        Action::StartFilter => state.sessions.filtering = true,
        Action::FilterChar(c) => {
            state.sessions.filter.push(c);
            state.sessions.selected = 0;
            state.sessions.offset = 0;
        }
        Action::FilterBackspace => {
            state.sessions.filter.pop();
            state.sessions.selected = 0;
            state.sessions.offset = 0;
        }
        Action::ClearFilter => {
            state.sessions.filter.clear();
            state.sessions.filtering = false;
            clamp_sessions(state);
        }
        Action::AcceptFilter => state.sessions.filtering = false,
        Action::ShowSummaries => {
            if let Some(v) = &state.session {
                match &v.loaded {
                    Some(l) if !l.summaries.is_empty() => {
                        // Start at the compaction at or before the selected entry.
                        let sel = l
                            .summaries
                            .iter()
                            .rposition(|c| c.idx <= v.selected)
                            .unwrap_or(0);
                        state.summaries = crate::tui::state::SummariesState {
                            selected: sel,
                            ..Default::default()
                        };
                        state.stack.push(Screen::Summaries);
                    }
                    Some(_) => {
                        state.status.info = Some("This session has no compaction entries.".into())
                    }
                    None => {}
                }
            }
        }
        Action::ShowContext => {
            let width = crate::tui::draw::session::detail_width(state.size);
            if let Some(v) = state.session.as_mut() {
                match v
                    .loaded
                    .as_ref()
                    .map(|l| (l.diagnosis.as_deref(), l.busy.as_ref()))
                {
                    Some((Some(d), busy)) => {
                        let body = crate::tui::context_view::body(d, busy, width);
                        let wrapped = crate::tui::draw::wrap(&body, width);
                        v.detail = Some(Detail {
                            // Not an entry: no decode answer can replace it.
                            idx: u32::MAX,
                            title: "context · figures · advice".into(),
                            lines: wrapped.len(),
                            wrapped,
                            body,
                            scroll: 0,
                            loading: false,
                        });
                    }
                    Some((None, _)) => {
                        state.status.info = Some("No figures for this transcript.".into())
                    }
                    None => {}
                }
            }
        }
        Action::StartSearch | Action::StartJump => {
            if let Some(v) = state.session.as_mut() {
                v.prompt = Some(crate::tui::state::Prompt {
                    kind: if matches!(action, Action::StartSearch) {
                        crate::tui::state::PromptKind::Search
                    } else {
                        crate::tui::state::PromptKind::Jump
                    },
                    text: String::new(),
                });
            }
        }
        Action::PromptChar(c) => {
            if let Some(p) = state.session.as_mut().and_then(|v| v.prompt.as_mut()) {
                p.text.push(c);
            }
        }
        Action::PromptBackspace => {
            if let Some(p) = state.session.as_mut().and_then(|v| v.prompt.as_mut()) {
                p.text.pop();
            }
        }
        Action::PromptCancel => {
            if let Some(v) = state.session.as_mut() {
                v.prompt = None;
                if v.pending_export.take().is_some() {
                    state.status.info = Some("The file is kept; nothing written.".into());
                }
            }
        }
        Action::PromptAccept => prompt_accept(state, &mut fx),
        Action::ToggleSummaryDiff => {
            state.summaries.diff = !state.summaries.diff;
            state.summaries.scroll = 0;
        }
        Action::ExportSummary => {
            let sel = state.summaries.selected;
            if let Some(v) = state.session.as_mut() {
                let card = v.loaded.as_ref().and_then(|l| l.summaries.get(sel));
                if card.is_some() {
                    // A bare transcript has no key: its file name stands in.
                    let name = if v.row.session_key.is_empty() {
                        let file = v.label_file_name();
                        std::path::Path::new(&file)
                            .file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or(file)
                    } else {
                        v.row.session_key.clone()
                    };
                    let path = crate::summary::export::default_path(&name, sel + 1);
                    v.prompt = Some(crate::tui::state::Prompt {
                        kind: crate::tui::state::PromptKind::Export,
                        text: path.display().to_string(),
                    });
                }
            }
        }
        Action::Exported { path, result } => {
            use crate::summary::export::ExportError;
            match result {
                Ok(()) => {
                    state.status.info = Some(format!(
                        "Summary written to {}.",
                        one_line(&path.display().to_string())
                    ))
                }
                Err(ExportError::Exists { .. }) => {
                    if let Some(v) = state.session.as_mut() {
                        v.pending_export = Some(path);
                        v.prompt = Some(crate::tui::state::Prompt {
                            kind: crate::tui::state::PromptKind::Overwrite,
                            text: String::new(),
                        });
                    }
                }
                Err(e) => state.status.error = Some(one_line(&e.to_string())),
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
                Some(crate::tui::state::Find::Compactions) | None => {
                    jump_compaction(state, forward, &mut fx)
                }
                Some(find) => find_effect(state, find, forward, &mut fx),
            }
        }
        Action::Found {
            generation,
            idx,
            what,
        } => {
            let h = layout::session_list(state.size);
            if let Some(v) = state
                .session
                .as_mut()
                .filter(|v| v.generation == generation)
            {
                match idx {
                    Some(i) => {
                        v.selected = i;
                        scroll_into_view(v, h);
                        fx.extend(ensure_window(v, h));
                    }
                    None => state.status.info = Some(format!("No entry matches {what}.")),
                }
            }
        }
        Action::NextCompaction | Action::PrevCompaction => {
            jump_compaction(state, matches!(action, Action::NextCompaction), &mut fx)
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
        Action::Refresh => fx.push(Effect::LoadSessions),
        Action::SessionsLoaded(Ok(snap)) => {
            let key = state
                .sessions
                .selected_row()
                .map(|r| (r.agent_id.clone(), r.session_key.clone()));
            state.sessions.rows = snap.rows;
            state.sessions.label = snap.label;
            state.sessions.running_gateway = snap.running_gateway;
            state.sessions.loaded = true;
            state.sessions.refreshed_ms = Some(state.now_ms);
            state.sessions.reload_failed_ms = None;
            state.sessions.sort_rows();
            reselect(state, key);
            if let Some(want) = state.open_on_load.take() {
                reselect(state, Some(want.clone()));
                let picked = state.sessions.selected_row();
                if picked.is_some_and(|r| (&r.agent_id, &r.session_key) == (&want.0, &want.1)) {
                    open(state, &mut fx);
                } else {
                    state.status.error = Some(format!("No session {} listed.", one_line(&want.1)));
                }
            }
            // The open Session screen shows the store's figures too: keep them current
            // (after a commit, or when OpenClaw updates the store).
            if let Some(v) = state.session.as_mut() {
                if let Some(r) =
                    state.sessions.rows.iter().find(|r| {
                        r.agent_id == v.row.agent_id && r.session_key == v.row.session_key
                    })
                {
                    v.row = r.clone();
                }
            }
            // An unread notice (the first-run line) stays until a key is pressed.
            if let Some(w) = snap
                .warnings
                .first()
                .filter(|_| state.status.info.is_none())
            {
                state.status.info = Some(one_line(w));
            }
            if snap.watch != state.sessions.watch {
                state.sessions.watch = snap.watch;
                fx.push(watch_effect(state));
            }
        }
        Action::SessionsLoaded(Err(e)) => {
            state.sessions.loaded = true;
            state.sessions.reload_failed_ms = Some(state.now_ms);
            // The rows stay; say how old they are.
            let age = match state.sessions.refreshed_ms {
                Some(at) if !state.sessions.rows.is_empty() => format!(
                    " (the rows shown are from {} ago)",
                    crate::diagnosis::duration_words(state.now_ms - at)
                ),
                _ => String::new(),
            };
            state.status.error = Some(one_line(&format!("reload failed: {e}{age}")));
        }
        Action::TranscriptLoaded { generation, result } => {
            transcript_loaded(state, generation, result, &mut fx)
        }
        Action::RowsDecoded { generation, rows } => {
            if let Some(v) = state
                .session
                .as_mut()
                .filter(|v| v.generation == generation)
            {
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
        Action::DetailLoaded {
            generation,
            idx,
            title,
            body,
        } => {
            if let Some(v) = state
                .session
                .as_mut()
                .filter(|v| v.generation == generation)
            {
                if let Some(d) = v.detail.as_mut().filter(|d| d.idx == idx) {
                    d.wrapped = crate::tui::draw::wrap(
                        &body,
                        crate::tui::draw::session::detail_width(state.size),
                    );
                    d.lines = d.wrapped.len();
                    d.title = title;
                    d.body = body;
                    d.loading = false;
                }
            }
        }
        Action::FilesChanged(paths) => {
            if paths.iter().any(|p| state.sessions.watch.contains(p)) {
                fx.push(Effect::LoadSessions);
            }
            if let Some(v) = state.session.as_mut() {
                if v.watch.iter().any(|w| paths.contains(w)) {
                    v.generation = state.next_generation;
                    state.next_generation += 1;
                    v.loading = true;
                    if let Some(e) = open_transcript_effect(v) {
                        fx.push(e);
                    }
                }
            }
        }
        Action::SourceChanged(change) => match change {
            crate::source::Change::Live(up) => state.sessions.live = Some(up),
            crate::source::Change::LiveUnavailable(why) => {
                state.sessions.live = None;
                state.status.info = Some(one_line(&format!(
                    "No live updates from the gateway ({why}); changes are still polled every second"
                )));
            }
            crate::source::Change::Sessions => fx.push(Effect::LoadSessions),
            crate::source::Change::Transcript(r) => {
                if let Some(v) = state.session.as_mut() {
                    if v.session.as_ref().is_some_and(|s| s.session == r) {
                        v.generation = state.next_generation;
                        state.next_generation += 1;
                        v.loading = true;
                        if let Some(e) = open_transcript_effect(v) {
                            fx.push(e);
                        }
                    }
                }
            }
        },
        Action::Error(e) => state.status.error = Some(one_line(&e)),
        Action::Tick { now_ms } => state.now_ms = now_ms,
        // Handled by `dialog::update` above.
        Action::OpenCompact
        | Action::OpenCompactViaGateway
        | Action::OpenFlush
        | Action::DialogKeepMore
        | Action::DialogKeepLess
        | Action::DialogInput(_)
        | Action::DialogFocus
        | Action::DialogButtonNext
        | Action::DialogButtonPrev
        | Action::DialogPress
        | Action::DialogGenerate
        | Action::DialogCancel
        | Action::DialogRegenerate
        | Action::DialogDiscard
        | Action::DialogClose
        | Action::DialogDiscardYes
        | Action::DialogDiscardNo
        | Action::DialogUndo
        | Action::DialogRedo
        | Action::DialogExternalEdit
        | Action::ExternalEdited { .. }
        | Action::DialogKeepChar(_)
        | Action::DialogKeepBackspace
        | Action::DialogModelNext
        | Action::DialogModelPrev
        | Action::DialogCommit
        | Action::ConfirmYes
        | Action::ConfirmNo
        | Action::DialogPrepared { .. }
        | Action::GenProgress { .. }
        | Action::GenDone { .. }
        | Action::Committed { .. } => {}
        Action::Resize(w, h) => {
            state.size = (w, h);
            clamp_sessions(state);
            let lh = layout::session_list(state.size);
            if let Some(v) = state.session.as_mut() {
                scroll_into_view(v, lh);
                fx.extend(ensure_window(v, lh));
                if let Some(d) = v.detail.as_mut() {
                    d.wrapped = crate::tui::draw::wrap(
                        &d.body,
                        crate::tui::draw::session::detail_width(state.size),
                    );
                    d.lines = d.wrapped.len();
                }
            }
        }
    }
    fx
}

/// Paths the watcher polls: the sessions.json files and the open transcript.
fn watch_effect(state: &AppState) -> Effect {
    let mut paths = state.sessions.watch.clone();
    if let Some(v) = &state.session {
        paths.extend(v.watch.iter().cloned());
    }
    Effect::Watch(paths)
}

/// Asks the source for the view's transcript (None without a session: nothing to open).
pub fn open_transcript_effect(v: &SessionView) -> Option<Effect> {
    Some(Effect::OpenTranscript {
        session: v.session.clone()?,
        generation: v.generation,
        keep_recent_tokens: v.row.keep_recent_tokens,
    })
}

fn back(state: &mut AppState, may_quit: bool) {
    if state.help.take().is_some() {
        return;
    }
    if let Some(v) = state.session.as_mut() {
        if v.detail.take().is_some() && state.screen() == Screen::Session {
            return;
        }
    }
    if state.stack.len() <= 1 {
        if may_quit {
            state.should_quit = true;
        }
        return;
    }
    if state.stack.pop() == Some(Screen::Session) {
        state.session = None;
    }
}

fn reselect(state: &mut AppState, key: Option<(String, String)>) {
    if let Some((agent, skey)) = key {
        let vis = state.sessions.visible();
        if let Some(pos) = vis.iter().position(|&i| {
            state.sessions.rows[i].agent_id == agent && state.sessions.rows[i].session_key == skey
        }) {
            state.sessions.selected = pos;
        }
    }
    clamp_sessions(state);
}

fn clamp_sessions(state: &mut AppState) {
    let n = state.sessions.visible().len();
    let s = &mut state.sessions;
    s.selected = s.selected.min(n.saturating_sub(1));
    let h = layout::sessions_rows(state.size);
    if s.selected < s.offset {
        s.offset = s.selected;
    } else if s.selected >= s.offset + h {
        s.offset = s.selected + 1 - h;
    }
    s.offset = s.offset.min(n.saturating_sub(h.min(n)));
}

fn step(cur: usize, len: usize, action: &Action, page: usize) -> usize {
    let last = len.saturating_sub(1);
    match action {
        Action::Up => cur.saturating_sub(1),
        Action::Down => (cur + 1).min(last),
        Action::PageUp => cur.saturating_sub(page.max(1)),
        Action::PageDown => (cur + page.max(1)).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => cur,
    }
}

fn move_cursor(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) {
    match state.mode() {
        crate::tui::keymap::Mode::Help => {
            let h = state.help.unwrap_or(0);
            state.help = Some(match action {
                Action::Up => h.saturating_sub(1),
                Action::Down => h.saturating_add(1),
                _ => h,
            });
        }
        crate::tui::keymap::Mode::Sessions | crate::tui::keymap::Mode::Filter => {
            let n = state.sessions.visible().len();
            let page = layout::sessions_rows(state.size);
            state.sessions.selected = step(state.sessions.selected, n, action, page);
            clamp_sessions(state);
        }
        crate::tui::keymap::Mode::Session => {
            let h = layout::session_list(state.size);
            if let Some(v) = state.session.as_mut() {
                let len = v.len() as usize;
                v.selected = step(v.selected as usize, len, action, h.saturating_sub(1)) as u32;
                scroll_into_view(v, h);
                fx.extend(ensure_window(v, h));
            }
        }
        crate::tui::keymap::Mode::Detail => {
            let page = layout::detail_body(state.size);
            if let Some(d) = state.session.as_mut().and_then(|v| v.detail.as_mut()) {
                let max = d.lines.saturating_sub(page) as u16;
                d.scroll = step(d.scroll as usize, max as usize + 1, action, page) as u16;
            }
        }
        crate::tui::keymap::Mode::Summaries => {
            let count = state
                .session
                .as_ref()
                .and_then(|v| v.loaded.as_ref())
                .map(|l| l.summaries.len())
                .unwrap_or(0);
            let page = layout::summaries_body(state.size, count);
            let lines = state
                .session
                .as_ref()
                .and_then(|v| v.loaded.as_ref())
                .map(|l| {
                    crate::tui::draw::summaries::shown_lines(
                        &l.summaries,
                        state.summaries.selected,
                        state.summaries.diff,
                        crate::tui::draw::summaries::body_width(state.size.0),
                    )
                    .len()
                })
                .unwrap_or(0);
            let max = lines.saturating_sub(page);
            state.summaries.scroll =
                step(state.summaries.scroll as usize, max + 1, action, page) as u16;
        }
        crate::tui::keymap::Mode::Global
        | crate::tui::keymap::Mode::DialogEdit
        | crate::tui::keymap::Mode::DialogPreview
        | crate::tui::keymap::Mode::DialogButtons
        | crate::tui::keymap::Mode::DialogKeep
        | crate::tui::keymap::Mode::DialogModel
        | crate::tui::keymap::Mode::AskDiscard
        | crate::tui::keymap::Mode::Generating
        | crate::tui::keymap::Mode::Confirm
        | crate::tui::keymap::Mode::Prompt => {}
    }
}

fn open(state: &mut AppState, fx: &mut Vec<Effect>) {
    match state.mode() {
        crate::tui::keymap::Mode::Sessions => {
            let Some(row) = state.sessions.selected_row().cloned() else {
                return;
            };
            match (row.session.clone(), row.transcript.clone()) {
                (Some(session), Some(label)) => open_session(state, row, session, label, fx),
                _ => open_numbers_only(state, row),
            }
        }
        crate::tui::keymap::Mode::Session => {
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
fn open_numbers_only(state: &mut AppState, row: crate::tui::view::SessionRow) {
    let generation = state.next_generation;
    state.next_generation += 1;
    let label = format!("{} (no transcript)", row.session_key);
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
    row: crate::tui::view::SessionRow,
    session: crate::source::SessionHandle,
    label: String,
    fx: &mut Vec<Effect>,
) {
    let generation = state.next_generation;
    state.next_generation += 1;
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
    result: Result<Box<crate::tui::rows::LoadedTranscript>, String>,
    fx: &mut Vec<Effect>,
) {
    let h = layout::session_list(state.size);
    let bare = state.bare_file;
    let Some(v) = state
        .session
        .as_mut()
        .filter(|v| v.generation == generation)
    else {
        return;
    };
    v.loading = false;
    if result.is_ok() {
        v.read_ms = Some(state.now_ms);
    }
    match result {
        Err(e) => {
            v.error = Some(one_line(&e));
            state.status.error = Some(one_line(&e));
        }
        Ok(l) => {
            let first_open = v.loaded.is_none();
            let was_at_end = v.loaded.is_some() && v.selected + 1 >= v.len();
            // The header's numbers are the domain's, decided with this transcript: a bare
            // file's from its defaults, a session's exactly as the list's row.
            if let Some(n) = l.numbers.clone() {
                if bare {
                    let (session, transcript) = (v.row.session.take(), v.row.transcript.take());
                    v.row = n;
                    v.row.session = session;
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
            let width = crate::tui::draw::session::detail_width(state.size);
            let context = v
                .loaded
                .as_ref()
                .and_then(|l| l.diagnosis.as_deref().map(|d| (d, l.busy.as_ref())))
                .map(|(d, busy)| crate::tui::context_view::body(d, busy, width));
            if let Some(d) = v.detail.as_mut() {
                match (d.idx, context) {
                    (u32::MAX, Some(body)) => {
                        d.wrapped = crate::tui::draw::wrap(&body, width);
                        d.lines = d.wrapped.len();
                        d.scroll = d.scroll.min(d.lines.saturating_sub(1) as u16);
                        d.body = body;
                    }
                    (idx, _) if idx >= len => v.detail = None,
                    _ => {}
                }
            }
            scroll_into_view(v, h);
            fx.extend(ensure_window(v, h));
            if std::mem::take(&mut state.compact_on_load) {
                crate::tui::dialog::open_compact(state, fx);
            }
        }
    }
}

/// Moves `offset` so the selected entry is fully visible. Walks at most one screen of
/// entries, so it costs the same at entry 10 and at entry 10 million.
pub fn scroll_into_view(v: &mut SessionView, height: usize) {
    let len = v.len();
    if len == 0 {
        v.offset = 0;
        v.selected = 0;
        return;
    }
    v.selected = v.selected.min(len - 1);
    if v.selected < v.offset {
        v.offset = v.selected;
        return;
    }
    // Lowest offset that still shows `selected` completely.
    let mut lo = v.selected;
    let mut used = v.entry_height(lo);
    while lo > 0 && used + v.entry_height(lo - 1) <= height {
        lo -= 1;
        used += v.entry_height(lo);
    }
    if v.offset < lo {
        v.offset = lo;
    } else if v.offset > v.selected {
        v.offset = v.selected;
    } else {
        // Is `selected` below the visible part? (walk only offset..=selected, ≤ one screen)
        let mut used = 0;
        let mut i = v.offset;
        while i <= v.selected && used <= height {
            used += v.entry_height(i);
            i += 1;
        }
        if used > height {
            v.offset = lo;
        }
    }
}

/// The entry range kept decoded: the visible entries plus `WINDOW_MARGIN` screens each side.
fn window(v: &SessionView, height: usize) -> (u32, u32) {
    let vis = v.visible_range(height);
    let margin = (height * WINDOW_MARGIN) as u32;
    (
        vis.start.saturating_sub(margin),
        (vis.end + margin).min(v.len()),
    )
}

/// Evicts rows outside the window and asks for the missing ones.
pub fn ensure_window(v: &mut SessionView, height: usize) -> Option<Effect> {
    let l = v.loaded.as_ref()?;
    let (lo, hi) = window(v, height);
    v.cache.retain(|&i, _| i >= lo && i < hi);
    v.requested.retain(|&i| i >= lo && i < hi);
    // Visible rows first so they arrive first.
    let vis = v.visible_range(height);
    let mut want: Vec<u32> = vis
        .clone()
        .chain(lo..vis.start)
        .chain(vis.end..hi)
        .collect();
    want.retain(|i| !v.cache.contains_key(i) && !v.requested.contains(i));
    if want.is_empty() {
        return None;
    }
    v.requested.extend(want.iter().copied());
    Some(Effect::DecodeRows {
        transcript: l.transcript.clone(),
        generation: v.generation,
        indices: want,
    })
}

/// Starts a find from the selected entry (off the render path).
fn find_effect(
    state: &mut AppState,
    find: crate::tui::state::Find,
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

/// Enter in the export prompts: write the selected summary to the typed path, or (`y` to
/// "overwrite?") replace the existing file.
fn export_accept(state: &mut AppState, kind: crate::tui::state::PromptKind, fx: &mut Vec<Effect>) {
    let sel = state.summaries.selected;
    let Some(v) = state.session.as_mut() else {
        return;
    };
    let Some(p) = v.prompt.take() else { return };
    let (path, overwrite) = match kind {
        crate::tui::state::PromptKind::Export => {
            let typed = p.text.trim();
            if typed.is_empty() {
                return;
            }
            (std::path::PathBuf::from(typed), false)
        }
        _ => {
            let Some(path) = v.pending_export.take() else {
                return;
            };
            if !p.text.trim().eq_ignore_ascii_case("y") {
                state.status.info = Some(format!(
                    "{} is kept; nothing written.",
                    one_line(&path.display().to_string())
                ));
                return;
            }
            (path, true)
        }
    };
    let Some(l) = v.loaded.as_ref() else { return };
    let Some(card) = l.summaries.get(sel) else {
        return;
    };
    let header = format!(
        "<!-- clawtop export: summary of compaction {} ({} of {}) of session {}, {}, tokensBefore {} -->",
        card.id,
        sel + 1,
        l.summaries.len(),
        one_line(&v.row.session_key),
        card.timestamp,
        card.tokens_before
            .map(|t| t.to_string())
            .unwrap_or_else(|| "?".into())
    );
    fx.push(Effect::ExportSummary {
        transcript: l.transcript.clone(),
        idx: card.idx,
        path,
        overwrite,
        header,
    });
}

/// Enter in the prompt: search for the text, or jump to `#N` / `N` (1-based index) or an
/// entry id.
fn prompt_accept(state: &mut AppState, fx: &mut Vec<Effect>) {
    use crate::tui::state::{Find, PromptKind};
    let kind = state
        .session
        .as_ref()
        .and_then(|v| v.prompt.as_ref())
        .map(|p| p.kind);
    if let Some(kind @ (PromptKind::Export | PromptKind::Overwrite)) = kind {
        export_accept(state, kind, fx);
        return;
    }
    let h = layout::session_list(state.size);
    let Some(v) = state.session.as_mut() else {
        return;
    };
    let Some(p) = v.prompt.take() else { return };
    let text = p.text.trim().to_string();
    if text.is_empty() {
        return;
    }
    match p.kind {
        PromptKind::Search => {
            v.find = Find::Text(text.clone());
            find_effect(state, Find::Text(text), true, fx);
        }
        PromptKind::Jump => {
            let Some(l) = v.loaded.as_ref() else { return };
            let len = l.transcript.len() as u32;
            let by_index = text
                .strip_prefix('#')
                .unwrap_or(&text)
                .parse::<u32>()
                .ok()
                .filter(|&n| n >= 1 && n <= len)
                .map(|n| n - 1);
            match by_index.or_else(|| l.transcript.index_of_id(&text)) {
                Some(i) => {
                    v.selected = i;
                    scroll_into_view(v, h);
                    fx.extend(ensure_window(v, h));
                }
                None => {
                    state.status.error = Some(format!(
                        "No entry #{} or id {:?} (entries are #1 to #{len}).",
                        one_line(&text),
                        one_line(&text)
                    ))
                }
            }
        }
        // Handled by `export_accept` above.
        PromptKind::Export | PromptKind::Overwrite => {}
    }
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
