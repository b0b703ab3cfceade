//! The TUI on a SQLite host (host-f copy): rows with the 2026.9 figures, the database and its
//! -wal watched for live refresh, a transcript opened from its rows, summaries, and the
//! compaction dialog refused with what clawtop can do.

use super::common::*;
use super::support::tui::*;
use clawtop::tui::effects::drive;
use clawtop::tui::state::Screen;
use clawtop::tui::store_adapter;
use clawtop::tui::view::Status;
use crossterm::event::KeyCode;

/// Moves the Sessions selection to `key`.
fn select(
    state: &mut clawtop::tui::state::AppState,
    ctx: &clawtop::tui::effects::EffectCtx,
    key_: &str,
) {
    let pos = state
        .sessions
        .rows
        .iter()
        .position(|r| r.key() == key_)
        .unwrap_or_else(|| panic!("{key_} not listed"));
    for _ in 0..pos {
        press(state, ctx, &[key(KeyCode::Down)]);
    }
}

#[test]
fn sessions_and_a_transcript_from_the_databases() {
    let h = HostF::new();
    let before = (snapshot(&h.state()), contents(&h.state()));
    let src = h.source();
    let snap = store_adapter::snapshot(&src, None);
    assert_eq!(snap.rows.len(), 3, "{:?}", snap.warnings);
    let i7 = snap
        .rows
        .iter()
        .find(|r| r.key() == "agent:main:incident-7")
        .unwrap();
    assert_eq!((i7.used, i7.window), (Some(29144), 48000));
    assert_eq!((i7.compact_at, i7.flush_at), (36000, Some(30000)));
    assert_eq!(i7.status, Status::Ok);
    assert!(!i7.flushed_this_cycle);
    // Live refresh polls each database and its -wal (every OpenClaw commit changes one).
    for a in ["main", "ops"] {
        let db = h.agent_db(a);
        assert!(snap.watch.contains(&db), "{:?}", snap.watch);
        assert!(
            snap.watch
                .contains(&clawtop::sqlite::open::side(&db, "-wal"))
        );
    }
    let (mut state, ctx) = host_app(src, (120, 40));
    select(&mut state, &ctx, "agent:main:incident-7");
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(state.screen(), Screen::Session);
    let v = state.session.as_ref().unwrap();
    let l = v.loaded.as_ref().expect("transcript loaded");
    assert_eq!(l.transcript.len(), 60);
    assert_eq!(l.summaries.len(), 1);
    let s = screen(&state);
    assert!(s.contains("flushed at compaction 0"), "{s}");
    // 2026.9's arithmetic in words, as `show` says it (the flush line is the compaction line
    // less the soft threshold, not the window less the floor).
    assert!(
        s.contains("min(max(reserveTokens 16,384 [default], floor 20,000), window/4 12,000)"),
        "{s}"
    );
    assert!(
        s.contains("compact line - softThresholdTokens 6,000 [config]"),
        "{s}"
    );
    press(&mut state, &ctx, &[key(KeyCode::Char('S'))]);
    assert_eq!(state.screen(), Screen::Summaries);
    let s = screen(&state);
    assert!(s.contains("Latest user request"), "{s}");
    assert_eq!((snapshot(&h.state()), contents(&h.state())), before);
}

/// The Flush dialog on a SQLite host: it says before anything is drafted that the flush will
/// not be recorded (OpenClaw's own flush stays armed), the confirmation repeats it, and the
/// commit appends exactly the previewed notes to the workspace's memory file while every
/// byte under the state dir (the databases included) stays as it was.
#[test]
fn flush_dialog_appends_notes_without_recording_the_flush() {
    use clawtop::tui::dialog::{Generated, Prep};
    use clawtop::tui::effects::{Effect, drive, drive_collect};
    let h = HostF::new();
    let ws = h.root().join("ws");
    let cfg = h.state().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("/home/operator/ws", ws.to_str().unwrap());
    std::fs::write(&cfg, text).unwrap();
    let target = ws
        .join("main/memory")
        .join(format!("{}.md", clawtop::flush::today()));
    let old = std::fs::read_to_string(&target).unwrap_or_default();
    let before = (snapshot(&h.state()), contents(&h.state()));

    let (mut state, ctx) = host_app(h.source(), (80, 24));
    select(&mut state, &ctx, "agent:main:incident-7");
    drive(&mut state, &ctx, ch('f'));
    let d = state.dialog.as_ref().expect("the Flush dialog opens");
    let Some(Prep::Flush(f)) = &d.prep else {
        panic!("{:?}", d.prep_error)
    };
    assert_eq!(f.target, target);
    assert!(f.store.is_none());
    assert!(f.unrecorded.as_deref().unwrap().contains("stays armed"));
    let s = screen(&state);
    assert!(s.contains("not recorded"), "{s}");

    let (_, mut pending) = drive_collect(&mut state, &ctx, ctrl('g'));
    let Some(Effect::Generate {
        dialog, generation, ..
    }) = pending.pop()
    else {
        panic!("no generation effect")
    };
    let notes = "## incident-7\n- failover drill on Friday";
    drive(
        &mut state,
        &ctx,
        clawtop::tui::action::Action::GenDone {
            dialog,
            generation,
            result: Ok(Generated {
                text: notes.into(),
                calls: 1,
                warnings: vec![],
                no_reply: false,
                current: None,
                audit: None,
            }),
        },
    );
    drive(&mut state, &ctx, ctrl('o'));
    let confirm = state.dialog.as_ref().unwrap().confirm.clone().unwrap();
    let all = confirm.lines.join(" ");
    assert!(
        all.contains("cannot be recorded") && all.contains("stays armed"),
        "{all}"
    );
    assert!(!all.contains("memoryFlushAt→now"), "{all}");
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none(), "{:?}", state.status);
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.starts_with(&old), "appended, never rewritten");
    assert!(written.ends_with(&format!("{notes}\n")), "{written:?}");
    assert!(
        state
            .status
            .info
            .as_deref()
            .is_some_and(|i| i.contains("not recorded")),
        "{:?}",
        state.status
    );
    assert_eq!((snapshot(&h.state()), contents(&h.state())), before);
}

/// The Compact dialog of a SQLite session is the gateway's: before anything is typed it says
/// where the gateway is and that OpenClaw writes the summary itself, and it counts the
/// instructions against OpenClaw's cap. Opening it connects to nothing.
#[test]
fn compact_dialog_is_the_gateways() {
    use clawtop::tui::dialog::Prep;
    let h = HostF::new();
    let before = (snapshot(&h.state()), contents(&h.state()));
    for (size, name) in [
        ((80, 24), "gateway_compact_80x24"),
        ((120, 40), "gateway_compact_120x40"),
    ] {
        let (mut state, ctx) = host_app(h.source(), size);
        select(&mut state, &ctx, "agent:main:incident-7");
        press(&mut state, &ctx, &[ch('c')]);
        let d = state.dialog.as_ref().expect("the Compact dialog opens");
        assert!(
            matches!(d.prep, Some(Prep::Gateway(_))),
            "{:?}",
            d.prep_error
        );
        type_str(&mut state, &ctx, "Keep the drill owner list.");
        let s = screen(&state).replace(&h.root().display().to_string(), "<host>");
        assert!(s.contains("ws://127.0.0.1:18795"), "{s}");
        assert!(s.contains("26/800"), "{s}");
        insta::assert_snapshot!(name, s);
    }
    assert_eq!((snapshot(&h.state()), contents(&h.state())), before);
}

/// `clawtop KEY` on a SQLite host: the session's row is read alone and its Session screen
/// opens before the whole list is read; the list, when it comes, leaves that screen open,
/// selects the session under it and brings the same figures.
#[test]
fn launched_on_a_key_the_session_opens_before_the_list() {
    let h = HostF::new();
    let src = h.source();
    let listed = src.list(None);
    let s = listed
        .sessions
        .iter()
        .find(|s| s.transcript.is_some() && s.key() != listed.sessions[0].key())
        .expect("a session after the first");
    super::support::lookup::opens_before_the_list(
        &src,
        (s.agent_id().to_string(), s.key().to_string()),
    );
}

/// The list first (a fast host): the late row changes nothing.
#[test]
fn the_row_read_alone_after_the_list_is_ignored() {
    let h = HostF::new();
    let src = h.source();
    let s = src.list(None).sessions[0].clone();
    let want = (s.agent_id().to_string(), s.key().to_string());
    let launch = clawtop::tui::TuiLaunch {
        loader: Some(store_adapter::host_loader(src.clone(), None)),
        named_loader: Some(store_adapter::named_loader(
            src,
            want.0.clone(),
            want.1.clone(),
            None,
        )),
        open: Some(want),
        ..Default::default()
    };
    let (mut state, fx, ctx) = clawtop::tui::app::init(&launch, NOW_MS, (120, 40));
    // The list waits for the launch session's first screen, unless the operator asks for it
    // (`r`) first: then the list opens the session, and the row read alone lands after it.
    let refresh = clawtop::tui::update::update(&mut state, clawtop::tui::action::Action::Refresh);
    let mut actions: Vec<_> = fx
        .into_iter()
        .chain(refresh)
        .filter_map(|e| clawtop::tui::effects::run_blocking(e, &ctx))
        .collect();
    assert_eq!(actions.len(), 2);
    actions.reverse();
    drive(&mut state, &ctx, actions.remove(0));
    let generation = state
        .session
        .as_ref()
        .expect("opened on the list")
        .generation;
    drive(&mut state, &ctx, actions.remove(0));
    assert_eq!(state.session.as_ref().unwrap().generation, generation);
}

/// The History pane on a SQLite host says what `clawtop history --json` says (the compaction
/// read from the database rows, its flush evidence from `memoryFlush`, the warnings).
#[test]
fn history_pane_on_a_sqlite_host_is_clawtop_history() {
    let h = HostF::new();
    let (mut state, ctx) = host_app(h.source(), (120, 40));
    select(&mut state, &ctx, "agent:main:incident-7");
    press(&mut state, &ctx, &[key(KeyCode::Enter), ch('H')]);
    let pane = pane_history(&state);
    let cli = history_json(h.root(), &h.state(), "agent:main:incident-7", &[]);
    let pane_json = serde_json::to_value(pane).unwrap();
    for field in [
        "compactions",
        "flushes",
        "warnings",
        "compactionCount",
        "turns",
    ] {
        assert_eq!(pane_json[field], cli[field], "{field}");
    }
    assert_eq!(pane.compactions.len(), 1);
    let s = screen(&state);
    assert!(
        s.contains(
            "#1 dce1d1d1 2026-11-23T18:03:52 · flush before: yes · 37,946 → 28,848 (next call)"
        ),
        "{s}"
    );
}
