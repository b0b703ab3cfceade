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
    assert_eq!((r.agent(), r.key()), ("main", "agent:main:main"));
    // The store's 75,943 is a run-sum (two calls): the row shows the last call's context.
    assert_eq!(r.used, Some(40_378));
    assert_eq!(r.used_source, Provenance::Transcript);
    assert_eq!(r.store_used, Some(75_943));
    assert_eq!(r.window, 48_000);
    assert_eq!(r.status, Status::CompactDue);
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
    // The store and the session's transcript (an appended turn must reach the figures).
    assert_eq!(
        snap.watch,
        vec![
            dir.path().join("agents/main/sessions/sessions.json"),
            t.clone()
        ]
    );
    assert_eq!(snap.stamps.len(), 2, "both stamped before they were read");
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
    assert_eq!(r.used_source, Provenance::Transcript);
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
    // Demo sessions open like any other (on the private copy, writable).
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert!(state.status.error.is_none(), "{:?}", state.status.error);
}

/// `clawtop KEY`: the launch names a session; it opens once the list is loaded.
#[test]
fn launch_opens_the_named_session() {
    let host = clawtop::store::Host::demo().expect("demo");
    let h = clawtop::source::for_host(host);
    let (state, _) = start(
        TuiLaunch {
            loader: Some(store_adapter::host_loader(h.clone(), None)),
            open: Some(("ops".into(), "agent:ops:main".into())),
            ..TuiLaunch::default()
        },
        (120, 40),
    );
    assert_eq!(state.screen(), Screen::Session);
    let v = state.session.as_ref().expect("session view");
    assert_eq!(v.row.key(), "agent:ops:main");
    assert!(v.loaded.is_some());
    // A key that is not listed leaves the list open and says so.
    let (state, _) = start(
        TuiLaunch {
            loader: Some(store_adapter::host_loader(h, None)),
            open: Some(("ops".into(), "agent:ops:gone".into())),
            ..TuiLaunch::default()
        },
        (120, 40),
    );
    assert_eq!(state.screen(), Screen::Sessions);
    assert!(
        state
            .status
            .error
            .as_deref()
            .is_some_and(|e| e.contains("agent:ops:gone")),
        "{:?}",
        state.status.error
    );
}

/// `clawtop --session-only KEY` (the fleet's hand-over): leaving the session ends the TUI, by
/// `q` or Esc, once the overlays are closed; without it, `q` goes back to the list.
#[test]
fn session_only_ends_with_its_session() {
    let host = clawtop::store::Host::demo().expect("demo");
    let h = clawtop::source::for_host(host);
    let launch = |session_only| TuiLaunch {
        loader: Some(store_adapter::host_loader(h.clone(), None)),
        open: Some(("ops".into(), "agent:ops:main".into())),
        session_only,
        ..TuiLaunch::default()
    };
    let (mut state, ctx) = start(launch(true), (120, 40));
    assert_eq!(state.screen(), Screen::Session);
    press(&mut state, &ctx, &[ch('?')]);
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert!(!state.should_quit, "Esc closes the help first");
    press(&mut state, &ctx, &[ch('q')]);
    assert!(state.should_quit);
    let (mut state, ctx) = start(launch(true), (120, 40));
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert!(state.should_quit);
    let (mut state, ctx) = start(launch(false), (120, 40));
    press(&mut state, &ctx, &[ch('q')]);
    assert!(!state.should_quit);
    assert_eq!(state.screen(), Screen::Sessions);
}

/// `c` on the Sessions screen opens the session and then its Compact dialog, as `f` does.
#[test]
fn c_compacts_from_the_list() {
    let (dir, _t) = host_a();
    let h = clawtop::source::for_host(host(dir.path()));
    let (mut state, ctx) = start(
        TuiLaunch {
            loader: Some(store_adapter::host_loader(h, None)),
            ..TuiLaunch::default()
        },
        (120, 40),
    );
    assert_eq!(state.screen(), Screen::Sessions);
    press(&mut state, &ctx, &[ch('c')]);
    assert_eq!(state.screen(), Screen::Session);
    let d = state.dialog.as_ref().expect("compact dialog open");
    assert_eq!(d.kind, clawtop::tui::dialog::DialogKind::Compact);
}

/// The first run without OpenClaw state says where clawtop looked and how to point it at a
/// real host, on the screen (not only the corner badge).
#[test]
fn first_run_demo_says_where_it_looked() {
    let host = clawtop::store::Host::demo().expect("demo");
    let notice = clawtop::cli::first_run_notice(&["/home/op/.openclaw (~/.openclaw)".into()]);
    let (state, _) = start(
        TuiLaunch {
            loader: Some(store_adapter::host_loader(
                clawtop::source::for_host(host),
                None,
            )),
            demo: true,
            notice: Some(notice),
            ..TuiLaunch::default()
        },
        (120, 40),
    );
    let s = screen(&state);
    // The notice is whole at the bottom, wrapped when longer than the line (issue 33 item 1).
    let lines: Vec<&str> = s.lines().collect();
    let from = lines
        .iter()
        .rposition(|l| l.starts_with("DEMO data: no OpenClaw state found."))
        .unwrap_or_else(|| panic!("{s}"));
    let last = lines[from..].join(" ");
    let last = last.as_str();
    assert!(last.contains("--state-dir DIR"), "{s}");
    assert!(last.contains("Looked at /home/op/"), "{s}");
    assert!(s.lines().next().unwrap().contains("DEMO DATA"), "{s}");
}

/// A file-backed host whose gateway port accepts connections (a plain listener stands in for
/// a 2026.5–2026.7.1 gateway): the Sessions title marks it and the status line says what it
/// means; when the port closes, the next reload drops the mark.
#[test]
fn a_running_gateway_on_a_file_backed_host_is_marked() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let (dir, _t) = host_a();
    let cfg = dir.path().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        text.replace(NO_GATEWAY, &format!("gateway: {{ port: {port} }}")),
    )
    .unwrap();
    let (mut state, ctx) = host_app(clawtop::source::for_host(host(dir.path())), (120, 40));
    let s = screen(&state);
    assert!(s.contains(&format!("gateway running :{port}")), "{s}");
    assert!(
        state
            .status
            .info
            .as_deref()
            .is_some_and(|i| i.contains("gateway is likely running")),
        "{:?}",
        state.status.info
    );
    drop(l);
    press(&mut state, &ctx, &[ch('r')]);
    let s = screen(&state);
    assert!(!s.contains("gateway running"), "{s}");
}
