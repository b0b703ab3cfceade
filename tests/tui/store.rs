//! The TUI over the real store API: host-a through `store::Host` and the adapter.

use crate::support::tui::*;
use clawtop::store::{Env, Host, Options};
use clawtop::tui::TuiLaunch;
use clawtop::tui::state::Screen;
use clawtop::tui::store_adapter;
use clawtop::tui::view::{Provenance, Status};
use crossterm::event::KeyCode;

fn host(dir: &std::path::Path) -> Host {
    let opts = Options {
        state_dir: Some(dir.to_path_buf()),
        ..Options::default()
    };
    Host::open(&opts, &Env::default()).expect("host")
}

#[test]
fn host_a_rows_through_the_adapter() {
    let (dir, t) = host_a();
    let h = clawtop::source::for_host(host(dir.path()));
    let snap = store_adapter::snapshot(&h, None);
    assert_eq!(snap.rows.len(), 1, "{:?}", snap.warnings);
    let r = &snap.rows[0];
    assert_eq!(
        (r.agent_id.as_str(), r.session_key.as_str()),
        ("main", "agent:main:main")
    );
    assert_eq!(r.used, Some(75_943));
    assert_eq!(r.used_source, Provenance::Fresh);
    assert_eq!(r.window, 48_000);
    assert_eq!(r.status, Status::Over);
    assert_eq!(r.compaction_count, Some(12));
    assert_eq!(
        r.transcript.as_deref().map(std::path::Path::new),
        Some(t.as_path()),
        "sessionFile from another host remapped"
    );
    assert!(
        r.sources.window.contains("entry contextTokens"),
        "{:?}",
        r.sources
    );
    assert_eq!(
        snap.watch,
        vec![dir.path().join("agents/main/sessions/sessions.json")]
    );
    // And the app opens it.
    let loader = store_adapter::host_loader(h, None);
    let (mut state, ctx) = start(
        TuiLaunch {
            loader: Some(loader),
            ..TuiLaunch::default()
        },
        (120, 40),
    );
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(state.screen(), Screen::Session);
    assert!(
        state
            .session
            .as_ref()
            .and_then(|v| v.loaded.as_ref())
            .is_some()
    );
    let s = screen(&state);
    assert!(s.contains("entry contextTokens [store entry]"), "{s}");
}

#[test]
fn bare_file_numbers_use_the_defaults_and_the_estimate() {
    let (_dir, t) = large_session();
    let (state, _) = file_app(&t, (80, 24));
    let r = &state.session.as_ref().expect("view").row;
    assert_eq!(r.window, 200_000);
    assert_eq!(r.used_source, Provenance::Estimated);
    assert_eq!(r.compact_at, 180_000);
    assert_eq!(r.flush_at, Some(176_000));
}

#[test]
fn embedded_demo_host() {
    let Ok(h) = Host::demo() else { return };
    let launch = TuiLaunch::from_store(clawtop::store::Launch {
        host: Some(h),
        file: None,
        agent: None,
    });
    assert!(launch.demo);
    let (mut state, ctx) = start(launch, (80, 24));
    assert!(!state.sessions.rows.is_empty());
    assert!(
        screen(&state)
            .lines()
            .next()
            .unwrap_or("")
            .contains("DEMO DATA")
    );
    // Demo sessions open like any other (read-only).
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert!(state.status.error.is_none(), "{:?}", state.status.error);
}
