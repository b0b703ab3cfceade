//! Issue 33 item 1: every screen and every status message the issue found cut off, at 80×24,
//! from the flows that produce them: each message whole (wrapped over the bottom of the
//! screen) and a footer ending in `? help`. (The dialogs' 80×24 snapshots are in dialogs.rs,
//! the message after a commit there too; a session without a transcript in labels.rs.)

use crate::support::tui::*;
use clawtop::tui::TuiLaunch;
use clawtop::tui::store_adapter;
use crossterm::event::KeyCode;
use insta::assert_snapshot;

const SMALL: (u16, u16) = (80, 24);

/// No OpenClaw state: the first run's notice, as `clawtop` starts it.
#[test]
fn no_state_notice_whole() {
    let host = clawtop::store::Host::demo().expect("demo");
    let notice = clawtop::cli::first_run_notice(&["/home/op/.openclaw (~/.openclaw)".into()]);
    let (state, _) = start(
        TuiLaunch {
            loader: Some(store_adapter::host_loader(
                clawtop::source::for_host(host),
                None,
            )),
            demo: true,
            notice: Some(notice.clone()),
            ..TuiLaunch::default()
        },
        SMALL,
    );
    let s = screen(&state);
    assert_whole_with_help(&s, &notice);
    assert!(s.lines().next().unwrap().contains("DEMO DATA"), "{s}");
    // The demo's private copy is a temp dir.
    assert_snapshot!(
        "flow_no_state_80x24",
        scrub_title(&s.replace(" DEMO DATA", ""))
    );
}

/// `C` on a file-backed host without a running gateway.
#[test]
fn c_without_a_gateway_whole() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    press(&mut state, &ctx, &[ch('C')]);
    let info = state.status.info.clone().unwrap_or_default();
    assert!(
        info.contains("no running gateway seen on this host"),
        "{info}"
    );
    let s = scrub_title(&screen(&state));
    assert_whole_with_help(&s, &info);
    assert_snapshot!("flow_no_gateway_80x24", s);
}

/// The title keeps the state dir at 80 columns, shortened with `…` when it is long (it was
/// dropped), and the legend's last entry is whole (it stopped at "esti").
#[test]
fn the_title_keeps_the_state_dir_and_the_legend_is_whole() {
    let (dir, _t, host) = host_a_host(None);
    let (state, _) = host_app(host, SMALL);
    let s = screen(&state);
    let title = s.lines().next().unwrap();
    let path = dir.path().display().to_string();
    let shown = title.rsplit(" · ").next().unwrap();
    assert!(
        shown == path || (shown.contains('…') && shown.chars().count() >= 20),
        "{title}"
    );
    let tail: String = path.chars().rev().take(6).collect::<String>();
    let tail: String = tail.chars().rev().collect();
    assert!(shown.ends_with(&tail), "{title} / {path}");
    let legend: String = s.lines().skip(1).take(2).collect::<Vec<_>>().join(" ");
    for whole in ["* estimated", "✖ stale lock", "! store behind"] {
        assert!(legend.contains(whole), "{whole}: {s}");
    }
    assert!(
        s.lines().last().unwrap().trim_end().ends_with("? help"),
        "{s}"
    );
}

/// The history pane at 80×24.
#[test]
fn history_pane_80x24() {
    let (_dir, t) = host_a();
    let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], SMALL);
    press(&mut state, &ctx, &[key(KeyCode::Enter), ch('H')]);
    let s = screen(&state).replace(&t.display().to_string(), "<transcript>");
    assert!(s.contains("compaction"), "{s}");
    assert!(
        s.lines().last().unwrap().trim_end().ends_with("? help"),
        "{s}"
    );
    assert_snapshot!("session_history_host_a_80x24", s);
}
