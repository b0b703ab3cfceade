//! Buffer snapshots of every screen at 80×24 and 120×40, from the fixtures.

use crate::support::tui::*;
use clawtop::tui::action::Action;
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use ratatui::style::Color;

const SMALL: (u16, u16) = (80, 24);
const BIG: (u16, u16) = (120, 40);

#[test]
fn sessions_screen() {
    for (size, name) in [(SMALL, "sessions_80x24"), (BIG, "sessions_120x40")] {
        let (state, _) = sessions_app(status_rows(None), size);
        assert_snapshot!(name, screen(&state));
    }
}

#[test]
fn sessions_screen_narrow_keeps_gauge() {
    let (state, _) = sessions_app(status_rows(None), (50, 12));
    let s = screen(&state);
    assert!(s.contains('▕') && s.contains('┃'), "{s}");
    assert_snapshot!("sessions_50x12", s);
}

#[test]
fn sessions_screen_demo_banner() {
    let (state, _) = start(
        clawtop::tui::TuiLaunch {
            demo: true,
            ..Default::default()
        },
        SMALL,
    );
    let s = screen(&state);
    assert!(s.lines().next().unwrap_or("").contains("DEMO DATA"), "{s}");
    assert_snapshot!("sessions_demo_80x24", s);
}

#[test]
fn sessions_screen_no_color() {
    let (mut state, _) = sessions_app(status_rows(None), SMALL);
    state.no_color = true;
    let buf = render(&state);
    for cell in buf.content() {
        assert!(
            cell.fg == Color::Reset && cell.bg == Color::Reset,
            "colour under NO_COLOR: {cell:?}"
        );
    }
    assert_snapshot!("sessions_no_color_80x24", text(&buf));
}

#[test]
fn session_screen_host_a() {
    for (size, name) in [
        (SMALL, "session_host_a_80x24"),
        (BIG, "session_host_a_120x40"),
    ] {
        let (_dir, t) = host_a();
        let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], size);
        press(&mut state, &ctx, &[key(KeyCode::Enter)]);
        // Scroll so the compaction card and the kept boundary are on screen.
        press(&mut state, &ctx, &[ch('n')]);
        let s = screen(&state).replace(&t.display().to_string(), "<transcript>");
        assert!(s.contains("COMPACTION"), "{s}");
        assert_snapshot!(name, s);
    }
}

#[test]
fn session_screen_kept_boundary() {
    // d0683268 (entry 8) is where the compaction keeps from: a marker line above it.
    let (_dir, t) = host_a();
    let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], SMALL);
    press(&mut state, &ctx, &[key(KeyCode::Enter), key(KeyCode::Home)]);
    for _ in 0..8 {
        press(&mut state, &ctx, &[key(KeyCode::Down)]);
    }
    let s = screen(&state);
    assert!(s.contains("kept from here by compaction 27ed3704"), "{s}");
    assert_snapshot!("session_host_a_kept_boundary_80x24", s);
}

#[test]
fn session_screen_no_color() {
    let (_dir, t) = host_a();
    let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], SMALL);
    press(&mut state, &ctx, &[key(KeyCode::Enter), ch('n')]);
    state.no_color = true;
    let buf = render(&state);
    assert!(
        buf.content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
    assert_snapshot!("session_host_a_no_color_80x24", text(&buf));
}

#[test]
fn session_screen_large_bare_file() {
    for (size, name) in [
        (SMALL, "session_large_80x24"),
        (BIG, "session_large_120x40"),
    ] {
        let (_dir, t) = large_session();
        let (state, _) = file_app(&t, size);
        assert_snapshot!(name, screen(&state));
    }
}

#[test]
fn session_screen_large_top() {
    let (_dir, t) = large_session();
    let (mut state, ctx) = file_app(&t, BIG);
    press(&mut state, &ctx, &[key(KeyCode::Home)]);
    assert_snapshot!("session_large_top_120x40", screen(&state));
}

#[test]
fn entry_detail_popup() {
    for (size, name) in [
        (SMALL, "detail_host_a_80x24"),
        (BIG, "detail_host_a_120x40"),
    ] {
        let (_dir, t) = host_a();
        let (mut state, ctx) = file_app(&t, size);
        press(&mut state, &ctx, &[key(KeyCode::Up), key(KeyCode::Enter)]);
        assert_snapshot!(name, screen(&state));
    }
}

#[test]
fn summaries_screen() {
    for (size, name) in [
        (SMALL, "summaries_host_a_80x24"),
        (BIG, "summaries_host_a_120x40"),
    ] {
        let (_dir, t) = host_a();
        let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], size);
        press(&mut state, &ctx, &[key(KeyCode::Enter), ch('S')]);
        assert_snapshot!(name, screen(&state));
    }
}

#[test]
fn help_overlay() {
    for (size, name) in [(SMALL, "help_80x24"), (BIG, "help_120x40")] {
        let (mut state, ctx) = sessions_app(status_rows(None), size);
        press(&mut state, &ctx, &[ch('?')]);
        assert_snapshot!(name, screen(&state));
    }
}

#[test]
fn error_on_status_line() {
    let (mut state, ctx) = sessions_app(status_rows(None), SMALL);
    press(
        &mut state,
        &ctx,
        &[Action::Error(
            "cannot read /srv/openclaw/agents/x/sessions/sessions.json: permission denied".into(),
        )],
    );
    let s = screen(&state);
    let lines: Vec<&str> = s.lines().collect();
    // The message whole; the line under it ends in `? help` (no room beside it at 80).
    assert!(
        lines[lines.len() - 2].starts_with(
            "✖ cannot read /srv/openclaw/agents/x/sessions/sessions.json: permission denied"
        ),
        "{s}"
    );
    assert!(lines[lines.len() - 1].trim_end().ends_with("? help"), "{s}");
}

/// Issue 8 items 2, 3, 6: the context view (key `i`) on a writable host-a copy: the stacked
/// bar against the window with both lines, the breakdown, the figures reconciled and the
/// advice; item 7: the title says read-only only where nothing can be written.
#[test]
fn context_view_host_a() {
    for (size, name) in [
        (SMALL, "context_host_a_80x24"),
        (BIG, "context_host_a_120x40"),
    ] {
        let (dir, _t, host) = host_a_host(None);
        let (mut state, ctx) = host_app(host, size);
        press(&mut state, &ctx, &[key(KeyCode::Enter)]);
        let s = screen(&state);
        let title = s.lines().next().unwrap_or("");
        assert!(
            !title.contains("read-only"),
            "host-a can be written: {title}"
        );
        assert!(
            s.contains("compactions (1 in the transcript)") || s.contains("(1 in the transcript)"),
            "one compaction count, store and transcript side by side: {s}"
        );
        press(&mut state, &ctx, &[ch('i')]);
        let s = screen(&state).replace(&dir.path().display().to_string(), "<state>");
        for want in ["▓", "┃", "│", "context · figures · advice"] {
            assert!(s.contains(want), "{want:?} missing:\n{s}");
        }
        let body = &state
            .session
            .as_ref()
            .unwrap()
            .detail
            .as_ref()
            .unwrap()
            .body;
        for want in [
            "run-sum",
            "37,937 (e8b04775) + 38,006 (0d090fcc)",
            "transcript context: 40,378",
            "overhead: ",
            "expected after: ",
            "verdict: ",
            // The advice comes right after the verdict, before the parts (24 rows show it).
            "- A compaction at keepRecentTokens 1,000 would bring",
            "system prompt and tools",
            "AGENTS.md",
        ] {
            assert!(body.contains(want), "{want:?} missing:\n{body}");
        }
        assert_snapshot!(name, s);
    }
}

#[test]
fn demo_session_says_read_only() {
    let (mut state, ctx) = start(
        clawtop::tui::TuiLaunch {
            demo: true,
            ..Default::default()
        },
        SMALL,
    );
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    let s = screen(&state);
    let title = s.lines().next().unwrap_or("");
    if state.session.as_ref().is_some_and(|v| v.loaded.is_some()) {
        assert!(title.contains("read-only"), "{s}");
    }
}

/// `TERM=xterm`/`linux`: the screen's bytes carry 16-colour SGR codes, never `38;5;N`.
#[test]
fn sixteen_colour_terminal_gets_no_256_colour_codes() {
    use clawtop::tui::palette::Sgr16;
    use ratatui::backend::CrosstermBackend;
    let (state, _) = sessions_app(status_rows(None), SMALL);
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let bytes = |sixteen: bool| {
        use ratatui::backend::Backend;
        let sink = Shared::default();
        let mut backend = CrosstermBackend::new(Sgr16::new(sink.clone(), sixteen));
        let buf = render(&state);
        let w = buf.area.width;
        let cells: Vec<(u16, u16, &ratatui::buffer::Cell)> = buf
            .content
            .iter()
            .enumerate()
            .map(|(i, c)| ((i as u16) % w, (i as u16) / w, c))
            .collect();
        backend.draw(cells.into_iter()).expect("draw");
        Backend::flush(&mut backend).expect("flush");
        let v = sink.0.lock().unwrap().clone();
        String::from_utf8_lossy(&v).into_owned()
    };
    let with_256 = bytes(false);
    assert!(
        with_256.contains("38;5;"),
        "crossterm's own output uses 38;5;N"
    );
    let out = bytes(true);
    assert!(!out.contains("38;5;") && !out.contains("48;5;"), "{out:?}");
    assert!(
        out.contains("\u{1b}[3") || out.contains("\u{1b}[9"),
        "{out:?}"
    );
    assert!(
        out.contains("flush-due") || out.contains("over"),
        "content kept"
    );
}

/// Issue 33 item 1: the messages the issue found cut off at 80×24, each whole.
#[test]
fn long_status_messages_80x24() {
    for (name, msg) in [
        (
            "status_no_state_80x24",
            "DEMO data: no OpenClaw state found. Real host: clawtop --state-dir DIR (or OPENCLAW_STATE_DIR). Looked at /home/operator/.openclaw.",
        ),
        (
            "status_no_gateway_80x24",
            "no running gateway seen on this host (OpenClaw's gateway is not listening on the port its config names); compact here instead",
        ),
    ] {
        let (mut state, _ctx) = sessions_app(status_rows(None), SMALL);
        state.status.info = Some(msg.into());
        assert_snapshot!(name, screen(&state));
    }
}
