//! The TUI on a SQLite host (host-f copy): rows with the 2026.9 figures, the database and its
//! -wal watched for live refresh, a transcript opened from its rows, summaries, and the
//! compaction dialog refused with what clawtop can do.

use super::common::*;
use super::support::tui::*;
use clawtop::store::{Env, Host, Options};
use clawtop::tui::state::Screen;
use clawtop::tui::store_adapter;
use clawtop::tui::view::Status;
use crossterm::event::KeyCode;

fn source(h: &HostF) -> clawtop::source::SourceHandle {
    let opts = Options {
        state_dir: Some(h.state()),
        ..Options::default()
    };
    clawtop::source::for_host(Host::open(&opts, &Env::default()).unwrap())
}

#[test]
fn sessions_and_a_transcript_from_the_databases() {
    let h = HostF::new();
    let before = (snapshot(&h.state()), contents(&h.state()));
    let src = source(&h);
    let snap = store_adapter::snapshot(&src, None);
    assert_eq!(snap.rows.len(), 3, "{:?}", snap.warnings);
    let i7 = snap
        .rows
        .iter()
        .find(|r| r.session_key == "agent:main:incident-7")
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
    let pos = state
        .sessions
        .rows
        .iter()
        .position(|r| r.session_key == "agent:main:incident-7")
        .unwrap();
    for _ in 0..pos {
        press(&mut state, &ctx, &[key(KeyCode::Down)]);
    }
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(state.screen(), Screen::Session);
    let v = state.session.as_ref().unwrap();
    let l = v.loaded.as_ref().expect("transcript loaded");
    assert_eq!(l.transcript.len(), 60);
    assert_eq!(l.summaries.len(), 1);
    let s = screen(&state);
    assert!(s.contains("flushed at compaction 0"), "{s}");
    press(&mut state, &ctx, &[key(KeyCode::Char('S'))]);
    assert_eq!(state.screen(), Screen::Summaries);
    let s = screen(&state);
    assert!(s.contains("Latest user request"), "{s}");
    assert_eq!((snapshot(&h.state()), contents(&h.state())), before);
}
