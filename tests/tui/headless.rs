//! The app driven purely through `update` with effects run inline: no terminal, no sleeps.

use crate::support::tui::*;
use clawtop::tui::TuiLaunch;
use clawtop::tui::action::Action;
use clawtop::tui::effects::drive;
use clawtop::tui::keymap::{self, Mode};
use clawtop::tui::state::{Screen, SortKey, layout};
use clawtop::tui::update::WINDOW_MARGIN;
use clawtop::tui::view::{SessionsSnapshot, Status};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn statuses_of_constructed_rows() {
    let got: Vec<Status> = status_rows(None).iter().map(|r| r.status).collect();
    assert_eq!(
        got,
        [
            Status::Ok,
            Status::FlushDue,
            Status::Flushed,
            Status::CompactDue,
            Status::Over,
            Status::Unknown
        ]
    );
}

#[test]
fn open_session_from_the_list_and_back() {
    let (_dir, t) = host_a();
    let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], (80, 24));
    assert_eq!(state.screen(), Screen::Sessions);
    let ran = drive(&mut state, &ctx, key(KeyCode::Enter));
    assert!(
        ran.iter().any(|e| e.starts_with("OpenTranscript")),
        "{ran:?}"
    );
    assert_eq!(state.screen(), Screen::Session);
    let v = state.session.as_ref().expect("session view");
    let l = v.loaded.as_ref().expect("transcript loaded");
    assert_eq!(l.transcript.len(), 40);
    assert_eq!(l.summaries.len(), 1);
    // Opens at the tail, with the visible rows decoded.
    assert_eq!(v.selected, 39);
    assert!(v.cache.contains_key(&39));
    // Header numbers are the list row's: the last call's context, not the store's run-sum.
    assert_eq!(v.row.used, Some(40_378));
    assert_eq!(v.row.status, Status::CompactDue);
    assert_eq!(v.row.store_used, Some(75_943));
    // q goes back, a second q quits.
    drive(&mut state, &ctx, ch('q'));
    assert_eq!(state.screen(), Screen::Sessions);
    assert!(state.session.is_none());
    assert!(!state.should_quit);
    drive(&mut state, &ctx, ch('q'));
    assert!(state.should_quit);
}

#[test]
fn scrolling_a_large_session_decodes_a_bounded_window() {
    let (_dir, t) = large_session();
    let size = (80, 24);
    let (mut state, ctx) = file_app(&t, size);
    let h = layout::session_list(size);
    let bound = (1 + 2 * WINDOW_MARGIN) * h + 4;
    let len = state.session.as_ref().map(|v| v.len()).unwrap_or(0);
    assert!(len > 1000);
    press(&mut state, &ctx, &[key(KeyCode::Home)]);
    for _ in 0..30 {
        press(&mut state, &ctx, &[key(KeyCode::PageDown)]);
        let v = state.session.as_ref().expect("view");
        assert!(v.cache.len() <= bound, "cache {} > {bound}", v.cache.len());
        assert!(
            v.visible_range(h).all(|i| v.cache.contains_key(&i)),
            "visible rows decoded"
        );
    }
    press(&mut state, &ctx, &[key(KeyCode::End)]);
    let v = state.session.as_ref().expect("view");
    assert_eq!(v.selected as usize, len as usize - 1);
    assert!(v.cache.len() <= bound);
    assert!(
        v.cache.keys().all(|&i| i as usize + bound >= len as usize),
        "only entries near the end are cached"
    );
    // Everything decoded over the whole walk: the initial tail, 30 pages, Home and End.
    assert!(
        v.decoded_total < (2 + 30 + 2) as u64 * bound as u64,
        "decoded {}",
        v.decoded_total
    );
    // Jump to top and back: still bounded.
    press(&mut state, &ctx, &[key(KeyCode::Home), key(KeyCode::End)]);
    let v = state.session.as_ref().expect("view");
    assert!(v.cache.len() <= bound);
    assert!(v.requested.is_empty());
}

#[test]
fn session_navigation_keys() {
    // `x` jumps to where the next compaction would cut (large-session has one at 20000).
    let (_ldir, lt) = large_session();
    let (mut state, ctx) = file_app(&lt, (80, 24));
    let cut = state
        .session
        .as_ref()
        .and_then(|v| v.loaded.as_ref())
        .and_then(|l| l.next_cut)
        .expect("cut");
    assert_eq!(cut, 837, "pi's cut on large-session");
    press(&mut state, &ctx, &[key(KeyCode::Home), ch('x')]);
    assert_eq!(state.session.as_ref().map(|v| v.selected), Some(cut));

    // host-a: at 20000 OpenClaw 2026.9's cut (SPEC §6.1) falls among the messages its
    // last compaction kept, on f9eefcdc (entry 14).
    let (_dir, t) = host_a();
    let (mut state, ctx) = file_app(&t, (80, 24));
    assert!(state.bare_file);
    assert_eq!(
        state
            .session
            .as_ref()
            .and_then(|v| v.loaded.as_ref())
            .and_then(|l| l.next_cut),
        Some(14)
    );
    press(&mut state, &ctx, &[key(KeyCode::Home), ch('n')]);
    let v = state.session.as_ref().expect("view");
    let comp = v.loaded.as_ref().map(|l| l.summaries[0].idx);
    assert_eq!(Some(v.selected), comp);
    // Expand, scroll, close.
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    let d = state
        .session
        .as_ref()
        .and_then(|v| v.detail.as_ref())
        .expect("detail");
    assert!(!d.loading && d.body.contains("FAKE-SUMMARY"));
    assert_eq!(state.mode(), Mode::Detail);
    press(&mut state, &ctx, &[key(KeyCode::Down), key(KeyCode::Esc)]);
    assert_eq!(state.mode(), Mode::Session);
    // Summaries and back.
    press(&mut state, &ctx, &[ch('S')]);
    assert_eq!(state.screen(), Screen::Summaries);
    press(
        &mut state,
        &ctx,
        &[key(KeyCode::PageDown), ch('n'), key(KeyCode::Esc)],
    );
    assert_eq!(state.screen(), Screen::Session);
    // Bare file: the Session screen is the first one; Esc stays, q quits.
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert!(!state.should_quit);
    press(&mut state, &ctx, &[ch('q')]);
    assert!(state.should_quit);
}

#[test]
fn filter_by_typing() {
    let (mut state, ctx) = sessions_app(status_rows(None), (80, 24));
    press(&mut state, &ctx, &[ch('/'), ch('o'), ch('p'), ch('s')]);
    assert_eq!(state.mode(), Mode::Filter);
    let keys: Vec<String> = state
        .sessions
        .visible()
        .iter()
        .map(|&i| state.sessions.rows[i].agent().to_string())
        .collect();
    assert_eq!(keys, ["ops", "ops"]);
    // `q` and `?` are typed while filtering, not commands.
    press(&mut state, &ctx, &[ch('q'), ch('?')]);
    assert!(!state.should_quit && state.help.is_none());
    assert_eq!(state.sessions.filter, "opsq?");
    assert!(screen(&state).contains("No session matches"));
    press(
        &mut state,
        &ctx,
        &[
            key(KeyCode::Backspace),
            key(KeyCode::Backspace),
            key(KeyCode::Enter),
        ],
    );
    assert_eq!(state.mode(), Mode::Sessions);
    assert_eq!(state.sessions.visible().len(), 2);
    // Filter by status name too.
    press(
        &mut state,
        &ctx,
        &[
            key(KeyCode::Esc),
            ch('/'),
            ch('o'),
            ch('v'),
            ch('e'),
            ch('r'),
            key(KeyCode::Enter),
        ],
    );
    assert_eq!(
        state.sessions.selected_row().map(|r| r.status),
        Some(Status::Over)
    );
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert!(state.sessions.filter.is_empty());
    assert_eq!(state.sessions.visible().len(), 6);
}

#[test]
fn sort_cycles_and_keeps_the_selection() {
    let (mut state, ctx) = sessions_app(status_rows(None), (80, 24));
    assert_eq!(state.sessions.sort, SortKey::Urgency);
    let order = |s: &clawtop::tui::state::AppState| {
        s.sessions
            .visible()
            .iter()
            .map(|&i| s.sessions.rows[i].key().to_string())
            .collect::<Vec<_>>()
    };
    let pressure = order(&state);
    assert_eq!(
        pressure.first().map(String::as_str),
        Some("agent:research:main"),
        "over 100 % first"
    );
    assert_eq!(
        pressure.last().map(String::as_str),
        Some("agent:research:subagent:7f3e"),
        "unknown last"
    );
    press(&mut state, &ctx, &[key(KeyCode::Down)]);
    let selected = state.sessions.selected_row().map(|r| r.session_key.clone());
    press(&mut state, &ctx, &[ch('s')]);
    assert_eq!(state.sessions.sort, SortKey::Updated);
    assert_eq!(
        order(&state).first().map(String::as_str),
        Some("agent:research:main"),
        "5 s ago"
    );
    assert_eq!(
        state.sessions.selected_row().map(|r| r.session_key.clone()),
        selected
    );
    press(&mut state, &ctx, &[ch('s')]);
    assert_eq!(state.sessions.sort, SortKey::Name);
    assert_eq!(
        order(&state).first().map(String::as_str),
        Some("agent:main:main")
    );
    press(&mut state, &ctx, &[ch('s')]);
    assert_eq!(state.sessions.sort, SortKey::Eta);
    press(&mut state, &ctx, &[ch('s')]);
    assert_eq!(state.sessions.sort, SortKey::Urgency);
}

#[test]
fn help_lists_every_binding() {
    let (mut state, ctx) = sessions_app(status_rows(None), (120, 40));
    press(&mut state, &ctx, &[ch('?')]);
    assert_eq!(state.mode(), Mode::Help);
    // Scroll through the overlay and collect what was on screen.
    let mut seen = String::new();
    for _ in 0..200 {
        seen.push_str(&screen(&state));
        press(&mut state, &ctx, &[key(KeyCode::Down)]);
    }
    for b in keymap::bindings() {
        let line = format!(
            "{} {}",
            clawtop::tui::draw::pad(&b.keys_label(), 20),
            b.help
        );
        assert!(seen.contains(&line), "help misses {line:?}");
    }
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert!(state.help.is_none());
}

/// One key, one meaning per mode: a key bound twice in a mode would make the second binding
/// dead while the help still lists it.
#[test]
fn no_key_is_bound_twice_in_a_mode() {
    let mut seen = std::collections::HashMap::new();
    for b in keymap::bindings() {
        for k in &b.keys {
            if let Some(other) = seen.insert((b.mode, *k), b.help) {
                panic!(
                    "{:?} {k:?} is bound to both {other:?} and {:?}",
                    b.mode, b.help
                );
            }
        }
    }
}

#[test]
fn errors_go_to_the_status_line() {
    let failing: clawtop::tui::SessionLoader = Arc::new(|| {
        Err(clawtop::tui::ReloadError::Unreadable(vec![
            "cannot read sessions.json: unexpected end of input\x1b[2J".into(),
        ]))
    });
    let (mut state, ctx) = start(
        TuiLaunch {
            loader: Some(failing),
            ..TuiLaunch::default()
        },
        (80, 24),
    );
    let s = screen(&state);
    let last = s.lines().last().unwrap_or("");
    assert!(
        last.starts_with("✖ reload failed: cannot read sessions.json"),
        "{s}"
    );
    assert!(
        s.contains("could not be read"),
        "never \"No sessions found\": {s}"
    );
    assert!(!last.contains('\x1b'));
    // A session without a transcript: its numbers and "why" still open (issue 9).
    let mut rows = status_rows(None);
    rows.truncate(1);
    drive(
        &mut state,
        &ctx,
        Action::SessionsLoaded(Ok(SessionsSnapshot {
            rows,
            ..Default::default()
        })),
    );
    drive(&mut state, &ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
    let s = screen(&state);
    assert!(s.contains("No transcript"), "{s}");
    assert!(
        s.contains("window      200,000") && s.contains("flush line"),
        "numbers and why: {s}"
    );
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert_eq!(state.screen(), Screen::Sessions);
    // A missing transcript file: the Session screen shows the error.
    let mut rows = status_rows(Some(std::path::Path::new("/nonexistent/x.jsonl")));
    rows.truncate(1);
    drive(
        &mut state,
        &ctx,
        Action::SessionsLoaded(Ok(SessionsSnapshot {
            rows,
            ..Default::default()
        })),
    );
    drive(&mut state, &ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
    assert!(screen(&state).contains("cannot read transcript /nonexistent/x.jsonl"));
    // The next key acknowledges the error.
    drive(&mut state, &ctx, key(KeyCode::Up));
    assert!(state.status.error.is_none());
}

#[test]
fn quit_with_ctrl_c_anywhere() {
    let (mut state, ctx) = sessions_app(status_rows(None), (80, 24));
    press(&mut state, &ctx, &[ch('/'), ch('x')]);
    drive(
        &mut state,
        &ctx,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(state.should_quit);
}

#[test]
fn changed_files_reload() {
    let (_dir, t) = host_a();
    let calls = Arc::new(AtomicUsize::new(0));
    let store = t.with_file_name("sessions.json");
    let (rows, watch, c) = (vec![host_a_row(&t)], vec![store.clone()], calls.clone());
    let loader: clawtop::tui::SessionLoader = Arc::new(move || {
        c.fetch_add(1, Ordering::SeqCst);
        Ok(SessionsSnapshot {
            rows: rows.clone(),
            watch: watch.clone(),
            ..Default::default()
        })
    });
    let (mut state, ctx) = start(
        TuiLaunch {
            loader: Some(loader),
            ..TuiLaunch::default()
        },
        (80, 24),
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let ran = drive(&mut state, &ctx, Action::FilesChanged(vec![store.clone()]));
    assert_eq!(calls.load(Ordering::SeqCst), 2, "{ran:?}");
    // Open the session; the transcript grows; the view reopens it and follows the tail.
    drive(&mut state, &ctx, key(KeyCode::Enter));
    let before = state.session.as_ref().map(|v| v.len()).unwrap_or(0);
    let line = r#"{"type":"message","id":"ffff0001","parentId":"0d090fcc","timestamp":"2026-11-21T04:22:30.000Z","message":{"role":"assistant","content":[{"type":"text","text":" no_reply "}],"stopReason":"stop","timestamp":1795234950000}}"#;
    let mut text = std::fs::read_to_string(&t).expect("read");
    text.push_str(line);
    text.push('\n');
    std::fs::write(&t, text).expect("append");
    let ran = drive(&mut state, &ctx, Action::FilesChanged(vec![t.clone()]));
    assert!(
        ran.iter().any(|e| e.starts_with("OpenTranscript")),
        "{ran:?}"
    );
    let v = state.session.as_ref().expect("view");
    assert_eq!(v.len(), before + 1);
    assert_eq!(v.selected, before, "follows the tail");
    let row = v.cache.get(&before).expect("new row decoded");
    assert!(
        row.silent_flush,
        "NO_REPLY (any case, trimmed) is a silent flush turn"
    );
    assert!(screen(&state).contains("silent memory-flush turn"));
}

#[test]
fn demo_mode_uses_fixed_rows() {
    let (state, _) = start(
        TuiLaunch {
            demo: true,
            ..TuiLaunch::default()
        },
        (80, 24),
    );
    assert!(state.demo);
    assert_eq!(state.sessions.rows.len(), 6);
}

#[test]
fn keymap_hints_come_from_the_table() {
    let h = clawtop::tui::draw::status::hints(Mode::Sessions);
    assert!(h.starts_with("Enter open"), "{h}");
    for b in keymap::for_mode(Mode::Session).filter(|b| b.hint.is_some()) {
        assert!(clawtop::tui::draw::status::hints(Mode::Session).contains(b.hint.unwrap_or("")));
    }
}

/// Every footer fits 80 columns and keeps `? help` when the mode has it.
#[test]
fn footers_fit_80_columns_with_help() {
    use clawtop::tui::draw::status::fitted_hints;
    for mode in [Mode::Sessions, Mode::Session, Mode::Summaries, Mode::Detail] {
        for w in [40usize, 60, 80, 120] {
            let h = fitted_hints(mode, w);
            assert!(
                unicode_width::UnicodeWidthStr::width(h.as_str()) <= w,
                "{mode:?} {w}: {h}"
            );
            assert!(h.ends_with("? help"), "{mode:?} {w}: {h}");
        }
    }
}

/// The default sort puts what must be acted on first, then the headroom to the next line.
#[test]
fn act_first_sort_and_headroom() {
    let (state, _) = sessions_app(status_rows(None), (120, 40));
    assert_eq!(state.sessions.sort, SortKey::Urgency);
    let statuses: Vec<Status> = state
        .sessions
        .visible()
        .iter()
        .map(|&i| state.sessions.rows[i].status)
        .collect();
    assert_eq!(
        statuses,
        vec![
            Status::Over,
            Status::CompactDue,
            Status::FlushDue,
            Status::Flushed,
            Status::Ok,
            Status::Unknown
        ]
    );
    // 150k/200k ok sorts below 25.5k/48k flush-due (fuller by percent, but nothing is due).
    let mut rows = status_rows(None);
    rows.truncate(2);
    let none = clawtop::thresholds::Counters::default();
    let a = clawtop::tui::view::SessionRow::with_counters(
        "main",
        "agent:main:big",
        200_000,
        Some(150_000),
        clawtop::tui::view::Provenance::Fresh,
        &none,
    );
    let b = clawtop::tui::view::SessionRow::with_counters(
        "main",
        "agent:main:small",
        48_000,
        Some(25_500),
        clawtop::tui::view::Provenance::Fresh,
        &none,
    );
    assert_eq!((a.status, b.status), (Status::Ok, Status::FlushDue));
    let (state, _) = sessions_app(vec![a.clone(), b.clone()], (120, 40));
    assert_eq!(state.sessions.rows[0].key(), "agent:main:small");
    assert_eq!(clawtop::tui::draw::sessions::headroom(&a), "−26k to flush");
    assert_eq!(
        clawtop::tui::draw::sessions::headroom(&b),
        "−2.5k to compact"
    );
    let s = screen(&state);
    assert!(s.contains("HEADROOM") && s.contains("−26k to flush"), "{s}");
}

/// Markers: no transcript, a live lock holder, a stale lock.
#[test]
fn markers_for_missing_transcript_and_locks() {
    use clawtop::commit::{LockHolder, LockStatus, StaleReason};
    let mut rows = status_rows(Some(std::path::Path::new("/x.jsonl")));
    rows.truncate(3);
    rows[0].transcript = None;
    rows[1].lock = Some(LockStatus::Held(LockHolder {
        pid: Some(1),
        created_at: None,
    }));
    rows[2].lock = Some(LockStatus::Stale(
        StaleReason::DeadPid,
        LockHolder {
            pid: Some(2),
            created_at: None,
        },
    ));
    let (state, _) = sessions_app(rows, (120, 40));
    let s = screen(&state);
    let line_of = |status: &str| {
        s.lines()
            .skip(3)
            .find(|l| l.contains(&format!(" {status} ")))
            .unwrap_or_else(|| panic!("{status}: {s}"))
            .to_string()
    };
    // Sorted: flush-due (live lock), flushed (stale lock), ok (no transcript).
    assert!(line_of("flush-due").contains('◐'), "{s}");
    assert!(line_of("flushed").contains('✖'), "{s}");
    assert!(line_of("ok").contains('∅'), "{s}");
    assert!(
        s.lines().next().unwrap().contains("read "),
        "last refresh shown: {s}"
    );
}

/// `/` searches, `n`/`N` repeat, `t` changes the kind, `:` jumps; typed letters are text.
#[test]
fn session_search_kind_and_jump() {
    let (_d, path) = large_session();
    let (mut state, ctx) = file_app(&path, (120, 40));
    let t = clawtop::transcript::Transcript::open(&path).unwrap();
    let start = state.session.as_ref().unwrap().selected;
    assert_eq!(start as usize, t.len() - 1, "opens at the tail");
    // Independently: entries whose line mentions "packages", in file order.
    let hits: Vec<u32> = (0..t.len() as u32)
        .filter(|&i| {
            String::from_utf8_lossy(&t.raw_line(i).unwrap())
                .to_lowercase()
                .contains("packages")
        })
        .collect();
    assert!(hits.len() >= 2, "{hits:?}");
    press(&mut state, &ctx, &[ch('/')]);
    assert_eq!(state.mode(), Mode::Prompt);
    // Command letters type into the prompt while it is open.
    for c in "PaCkAgEs".chars() {
        press(&mut state, &ctx, &[ch(c)]);
    }
    assert!(state.dialog.is_none());
    assert_eq!(state.screen(), Screen::Session);
    assert_eq!(
        state
            .session
            .as_ref()
            .unwrap()
            .prompt
            .as_ref()
            .unwrap()
            .text,
        "PaCkAgEs"
    );
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(state.mode(), Mode::Session);
    let sel = |s: &clawtop::tui::state::AppState| s.session.as_ref().unwrap().selected;
    // From the tail, forward wraps to the first hit.
    assert_eq!(sel(&state), hits[0]);
    press(&mut state, &ctx, &[ch('n')]);
    assert_eq!(sel(&state), hits[1]);
    press(&mut state, &ctx, &[ch('N')]);
    assert_eq!(sel(&state), hits[0]);
    // Esc closes the prompt without searching.
    press(&mut state, &ctx, &[ch('/'), ch('q'), key(KeyCode::Esc)]);
    assert_eq!(state.mode(), Mode::Session);
    assert_eq!(sel(&state), hits[0]);
    // Kinds: tool results.
    // After a text search, t starts again at compactions: compactions, errors, tool results.
    press(&mut state, &ctx, &[ch('t'), ch('t'), ch('t')]);
    assert_eq!(
        state.session.as_ref().unwrap().find,
        clawtop::tui::state::Find::ToolResults
    );
    press(&mut state, &ctx, &[ch('n')]);
    let i = sel(&state);
    assert!(
        matches!(
            t.entries[i as usize].kind,
            clawtop::transcript::EntryKind::Message(clawtop::transcript::Role::ToolResult)
        ),
        "#{i}"
    );
    assert!(i > hits[0]);
    // Jump by index (1-based) and by id.
    press(
        &mut state,
        &ctx,
        &[ch(':'), ch('#'), ch('1'), key(KeyCode::Enter)],
    );
    assert_eq!(sel(&state), 0);
    // By id, on a transcript whose entries have ids (host-a).
    let (_h, host_t) = host_a();
    let (mut state, ctx) = file_app(&host_t, (120, 40));
    let t = clawtop::transcript::Transcript::open(&host_t).unwrap();
    let with_id = (0..t.len() as u32 / 2)
        .find(|&i| t.entry_id(i).is_some())
        .expect("an entry with an id");
    let id = t.entry_id(with_id).unwrap().to_string();
    press(&mut state, &ctx, &[ch(':')]);
    for c in id.chars() {
        press(&mut state, &ctx, &[ch(c)]);
    }
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(sel(&state), with_id);
    press(&mut state, &ctx, &[ch(':'), ch('z'), key(KeyCode::Enter)]);
    assert!(
        state
            .status
            .error
            .as_deref()
            .unwrap_or("")
            .contains("No entry"),
        "{:?}",
        state.status.error
    );
    assert_eq!(sel(&state), with_id);
}

#[test]
fn help_lists_every_mark_the_sessions_screen_draws() {
    // Issue 17 item 9: the legend's marks and the row marks are all explained in help.
    let (mut state, ctx) = sessions_app(status_rows(None), (120, 40));
    let sessions = screen(&state);
    press(&mut state, &ctx, &[ch('?')]);
    let mut seen = String::new();
    for _ in 0..200 {
        seen.push_str(&screen(&state));
        press(&mut state, &ctx, &[key(KeyCode::Down)]);
    }
    for (m, what) in clawtop::tui::draw::gauge::MARKS {
        let line = format!("{} {what}", clawtop::tui::draw::pad(m, 20));
        assert!(seen.contains(&line), "help lacks {m:?}: {line}");
    }
    // Every non-ASCII mark in the legend's lines is one of them.
    let legend_lines = clawtop::tui::layout::sessions::legend_lines(120).len();
    let legend = sessions
        .lines()
        .skip(1)
        .take(legend_lines)
        .collect::<String>();
    for c in legend.chars().filter(|c| !c.is_ascii() && *c != '·') {
        let c = c.to_string();
        assert!(
            clawtop::tui::draw::gauge::MARKS
                .iter()
                .any(|(m, _)| *m == c),
            "legend mark {c:?} is not explained"
        );
    }
}

/// Issue 33 item 6: PgDn and PgUp page the help popup at 80×24, End reaches its last line,
/// and the scroll stops there (Up moves at once after it).
#[test]
fn help_pages_with_pgdn_and_stops_at_its_end() {
    let (mut state, ctx) = sessions_app(status_rows(None), (80, 24));
    press(&mut state, &ctx, &[ch('?')]);
    let first = screen(&state);
    press(&mut state, &ctx, &[key(KeyCode::PageDown)]);
    let paged = state.help.unwrap();
    assert!(paged >= 10, "PgDn scrolled {paged} lines");
    assert_ne!(screen(&state), first);
    press(&mut state, &ctx, &[key(KeyCode::PageUp)]);
    assert_eq!(state.help, Some(0));
    press(&mut state, &ctx, &[key(KeyCode::End)]);
    let end = state.help.unwrap();
    let last_line = clawtop::tui::layout::help::help_lines()
        .last()
        .unwrap()
        .1
        .clone();
    assert!(
        screen(&state).contains(last_line.trim()),
        "{}",
        screen(&state)
    );
    press(&mut state, &ctx, &[key(KeyCode::Down), key(KeyCode::Down)]);
    assert_eq!(state.help, Some(end));
    press(&mut state, &ctx, &[key(KeyCode::Up)]);
    assert_eq!(state.help, Some(end - 1));
}

/// Issue 33 item 1: a status message longer than the line is shown whole at 80×24, wrapped
/// upward over the bottom of the screen, never cut at the width; an error too.
#[test]
fn a_long_status_message_is_shown_whole_at_80_columns() {
    let (mut state, _ctx) = sessions_app(status_rows(None), (80, 24));
    let msg = "DEMO data: no OpenClaw state found. Real host: clawtop --state-dir DIR (or OPENCLAW_STATE_DIR). Looked at /home/operator/.openclaw, /home/operator/.clawdbot.";
    let words = |s: &str| -> String { s.split_whitespace().collect::<Vec<_>>().join(" ") };
    for error in [false, true] {
        if error {
            state.status.info = None;
            state.status.error = Some(msg.to_string());
        } else {
            state.status.info = Some(msg.to_string());
        }
        let s = screen(&state);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 24, "{s}");
        // The message is the last lines of the screen, whole.
        let bottom = words(&lines[21..].join(" "));
        assert!(bottom.contains(&words(msg)), "{s}");
    }
    // A short one stays on the status line, which still ends in `? help`.
    state.status.error = None;
    state.status.info = Some("Copied.".into());
    let s = screen(&state);
    let last = s.lines().last().unwrap();
    assert!(
        last.starts_with("Copied.  ") && last.trim_end().ends_with("? help"),
        "{s}"
    );
}

/// Issue 33 item 6: a search says where its match stands: "match 3 of 6".
#[test]
fn search_says_match_n_of_m() {
    let (_dir, t) = host_a();
    let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], (80, 24));
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(state.screen(), Screen::Session);
    let mut typed = vec![ch('/')];
    typed.extend("toolresult".chars().map(ch));
    typed.push(key(KeyCode::Enter));
    press(&mut state, &ctx, &typed);
    let first = state.status.info.clone().unwrap_or_default();
    assert!(first.contains(" of 6"), "{first:?}");
    press(&mut state, &ctx, &[ch('n')]);
    let second = state.status.info.clone().unwrap_or_default();
    assert!(
        second.contains(" of 6") && second != first,
        "{first:?} then {second:?}"
    );
    let n = |s: &str| -> usize {
        s.split("match ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(n(&second), n(&first) % 6 + 1, "{first:?} then {second:?}");
}

/// A reload that hands over only the sessions that changed (`SessionsSnapshot::patch`):
/// each row replaces its session's row, the other rows stay, the list is sorted again and
/// the selection stays on its session; the label and the watched files are the last whole
/// load's.
#[test]
fn a_patch_replaces_the_rows_of_the_sessions_that_changed() {
    let rows = status_rows(None);
    let (mut state, ctx) = sessions_app(rows.clone(), (120, 30));
    let label = state.sessions.label.clone();
    assert!(!label.is_empty());
    let n = state.sessions.rows.len();
    assert!(n >= 3);
    drive(&mut state, &ctx, key(KeyCode::Down));
    let selected = state.sessions.selected_row().unwrap().key().to_string();
    // The last row's session got a turn: nearly full now.
    let mut changed = rows[n - 1].clone();
    changed.used = Some(changed.window - 1_000);
    let key_changed = changed.key().to_string();
    drive(
        &mut state,
        &ctx,
        Action::SessionsLoaded(Ok(SessionsSnapshot {
            rows: vec![changed.clone()],
            patch: true,
            ..Default::default()
        })),
    );
    assert_eq!(state.sessions.rows.len(), n, "the other rows stay");
    assert_eq!(state.sessions.label, label, "the whole load's label stays");
    let got = state
        .sessions
        .rows
        .iter()
        .find(|r| r.key() == key_changed)
        .unwrap();
    assert_eq!(got.used, changed.used, "the row replaced");
    for r in &rows[..n - 1] {
        let now = state
            .sessions
            .rows
            .iter()
            .find(|s| s.key() == r.key())
            .unwrap();
        assert_eq!(now.used, r.used, "{}: as it was", r.key());
    }
    assert_eq!(
        state.sessions.selected_row().unwrap().key(),
        selected,
        "the selection stays on its session"
    );
    let mut sorted = state.sessions.rows.clone();
    sorted.sort_by(|a, b| state.sessions.sort.compare(a, b));
    let keys = |r: &[clawtop::tui::view::SessionRow]| {
        r.iter().map(|r| r.key().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(keys(&state.sessions.rows), keys(&sorted), "sorted again");
}

/// `clawtop KEY`: the whole list waits for the launch session's first screen, and starts
/// as soon as nothing holds it back: a named read that found no row, or the operator leaving
/// the Session screen before its transcript is read.
#[test]
fn a_list_held_for_the_first_screen_starts_when_nothing_holds_it() {
    use clawtop::tui::effects::Effect;
    let (_dir, t) = host_a();
    let row = host_a_row(&t);
    let want = (row.agent().to_string(), row.key().to_string());
    let lists = |fx: &[Effect]| {
        fx.iter()
            .filter(|e| matches!(e, Effect::LoadSessions))
            .count()
    };
    // The named read answers without the row: the list starts.
    let launch = TuiLaunch {
        loader: Some(loader(vec![row.clone()], vec![])),
        named_loader: Some(Arc::new(|| None)),
        open: Some(want.clone()),
        ..TuiLaunch::default()
    };
    let (mut state, fx, _ctx) = clawtop::tui::app::init(&launch, NOW_MS, (120, 40));
    assert_eq!(lists(&fx), 0, "held");
    let fx = clawtop::tui::update::update(&mut state, Action::NamedLoaded(None));
    assert_eq!(lists(&fx), 1, "no row read alone: the list opens it");
    // The row read alone opens the Session screen; Esc before its transcript is read: the
    // list starts (once).
    let (mut state, _fx, _ctx) = clawtop::tui::app::init(&launch, NOW_MS, (120, 40));
    let fx = clawtop::tui::update::update(
        &mut state,
        Action::NamedLoaded(Some(SessionsSnapshot {
            rows: vec![row],
            ..Default::default()
        })),
    );
    assert_eq!(state.screen(), Screen::Session);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::OpenTranscript { .. }))
    );
    assert_eq!(lists(&fx), 0, "held while the transcript is read");
    let fx = clawtop::tui::update::update(&mut state, key(KeyCode::Esc));
    assert_eq!(state.screen(), Screen::Sessions);
    assert_eq!(lists(&fx), 1, "the operator left: the list starts");
    let fx = clawtop::tui::update::update(&mut state, Action::Tick { now_ms: NOW_MS });
    assert_eq!(lists(&fx), 0, "once");
    // `r` while it waits: read then, and not again when the wait ends.
    let (mut state, _fx, _ctx) = clawtop::tui::app::init(&launch, NOW_MS, (120, 40));
    let fx = clawtop::tui::update::update(&mut state, Action::Refresh);
    assert_eq!(lists(&fx), 1);
    let fx = clawtop::tui::update::update(&mut state, Action::NamedLoaded(None));
    assert_eq!(lists(&fx), 0, "asked for already");
    assert!(!state.sessions.reload_wanted);
}
