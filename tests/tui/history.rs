//! The History pane of the Session screen (`H`): host-a's context per turn with its
//! compaction line (28,000) and flush line (24,000) drawn and its compaction marked.

use crate::support::tui::*;
use crossterm::event::KeyCode;
use insta::assert_snapshot;

#[test]
fn history_pane_of_host_a() {
    let (_dir, t) = host_a();
    let (mut state, ctx) = sessions_app(vec![host_a_row(&t)], (100, 30));
    press(&mut state, &ctx, &[key(KeyCode::Enter), ch('H')]);
    let s = screen(&state).replace(&t.display().to_string(), "<transcript>");
    // Both lines, and the compaction (between turns 10 and 11) marked under turn 11.
    assert!(
        s.contains("━ compaction 28,000") && s.contains("┄ flush 24,000"),
        "{s}"
    );
    let axis = s.lines().find(|l| l.contains('└')).unwrap();
    let after_corner: String = axis.split('└').nth(1).unwrap().chars().collect();
    assert_eq!(
        after_corner.chars().position(|c| c == 'C'),
        Some(10),
        "{axis}"
    );
    // Under the chart, at 30 rows: each warning on one line, then the compaction.
    for code in [
        "compaction-count-mismatch",
        "no-flush-before-compaction",
        "compaction-loop",
    ] {
        assert!(s.contains(&format!("! [{code}]")), "{code}:\n{s}");
    }
    assert!(s.contains("#1 27ed3704"), "{s}");
    assert_snapshot!("session_history_host_a_100x30", s);
    // Esc (or H) closes the pane, and the transcript list is back.
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert!(!screen(&state).contains("History: context per turn"));
    assert!(
        state.session.is_some(),
        "Esc closed the pane, not the screen"
    );
}

#[test]
fn sessions_list_shows_eta_and_trend_when_wide_and_sorts_by_eta() {
    let (_dir, t) = host_a();
    let row = host_a_row(&t);
    // Through the store adapter: host-a grows 2,482 a turn and is past its compaction line.
    let f = row.forecast.clone().unwrap();
    assert_eq!(f.tokens_per_turn, Some(2_482));
    assert_eq!(f.turns_to_compaction, Some(0));
    assert_eq!(row.recent_context.len(), 12);
    let (state, _) = sessions_app(vec![row.clone()], (160, 8));
    let s = screen(&state).replace(&t.display().to_string(), "<transcript>");
    let header = s.lines().find(|l| l.contains("AGENT")).unwrap();
    assert!(header.contains(" ETA ") && header.contains("TREND"), "{s}");
    assert_snapshot!("sessions_eta_trend_160x8", s);
    // Issue 33 item 3: ETA is worth more than the headroom's words: 80 columns show it.
    let (state, _) = sessions_app(vec![row], (80, 8));
    let s = screen(&state);
    let header = s.lines().find(|l| l.contains("AGENT")).unwrap();
    assert!(header.contains(" ETA"), "{s}");
    assert!(!header.contains("TREND"), "{s}");

    // Sort: fewest turns to the compaction line first, unknown last.
    let mk = |key: &str, eta: Option<u64>| {
        let mut r = clawtop::tui::view::SessionRow::with_counters(
            "main",
            key,
            100_000,
            Some(10_000),
            clawtop::thresholds::UsedSource::Fresh,
            &Default::default(),
        );
        r.forecast = Some(clawtop::history::Forecast {
            tokens_per_turn: eta.map(|_| 1_000),
            turns_to_compaction: eta,
            ..Default::default()
        });
        r
    };
    let rows = vec![
        mk("a", None),
        mk("b", Some(30)),
        mk("c", Some(4)),
        mk("d", Some(12)),
    ];
    let (mut state, ctx) = sessions_app(rows, (150, 12));
    for _ in 0..3 {
        press(&mut state, &ctx, &[ch('s')]);
    }
    assert_eq!(state.sessions.sort, clawtop::tui::state::SortKey::Eta);
    let order: Vec<&str> = state.sessions.rows.iter().map(|r| r.key()).collect();
    assert_eq!(order, ["c", "d", "b", "a"]);
}

/// The pane lists what `clawtop history` lists, from the same door: host-a (on the real host,
/// its workspace in the copy, a note block appended twice to the day's memory file) opened in
/// the TUI, `H`, against the history report of the same session.
#[test]
fn history_pane_says_what_clawtop_history_says() {
    let (dir, t, host) = host_a_host(None);
    let memory = dir.path().join("workspace/memory");
    std::fs::create_dir_all(&memory).unwrap();
    let block = "- The deployment uses blue/green rollout; keep the old pool warm.\n";
    std::fs::write(
        memory.join("2026-11-21.md"),
        format!("# Notes\n\n{block}\n{block}"),
    )
    .unwrap();
    let (mut state, ctx) = host_app(host.clone(), (120, 40));
    press(&mut state, &ctx, &[key(KeyCode::Enter), ch('H')]);
    let pane = pane_history(&state);

    // `clawtop history --json` on the same host.
    let cli = history_json(dir.path(), dir.path(), "agent:main:main", &[]);
    let codes: Vec<&str> = pane.warnings.iter().map(|w| w.code).collect();
    let cli_codes: Vec<&str> = cli["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, cli_codes);
    assert_eq!(
        serde_json::to_value(&pane.compactions).unwrap(),
        cli["compactions"]
    );
    assert_eq!(
        serde_json::to_value(pane.compaction_count).unwrap(),
        cli["compactionCount"]
    );
    for code in [
        "compaction-count-mismatch",
        "no-flush-before-compaction",
        "compaction-loop",
        "duplicate-note",
    ] {
        assert!(codes.contains(&code), "{code}: {codes:?}");
    }

    // On screen: every warning, the compaction with its numbers, and the memory notes.
    let s = screen(&state)
        .replace(&t.display().to_string(), "<transcript>")
        .replace(&dir.path().display().to_string(), "<host>");
    assert!(
        s.contains(
            "#1 27ed3704 2026-11-21T04:22:16 · flush before: no · 37,863 → 37,896 (next call)"
        ),
        "{s}"
    );
    for code in codes {
        assert!(s.contains(&format!("! [{code}]")), "{code} not shown:\n{s}");
    }
    assert!(
        s.contains("memory notes: 1 dated file(s), 1 duplicate block(s)"),
        "{s}"
    );
    assert_snapshot!("session_history_events_host_a_120x40", s);
}

/// `clawtop --log FILE`: the pane counts the log's flushes as `history --log` does, and the
/// CLI takes the log before the command too; before any other command it is refused.
#[test]
fn history_pane_reads_the_gateway_log_it_is_given() {
    let (dir, _t, host) = host_a_host(None);
    let log = dir.path().join("gateway.log");
    std::fs::write(
        &log,
        "2026-11-21T04:22:10.000Z memoryFlush check: sessionKey=agent:main:main tokenCount=35448 compactionCount=0 memoryFlushCompactionCount=0\n\
         2026-11-21T04:22:11.000Z memoryFlush triggered: sessionKey=agent:main:main tokenCount=35448 threshold=24000\n\
         2026-11-21T04:22:12.000Z memoryFlush triggered: sessionKey=agent:main:other tokenCount=1 threshold=2\n",
    )
    .unwrap();
    let (mut state, mut ctx) = host_app(host, (120, 40));
    ctx.logs = std::sync::Arc::new(vec![log.clone()]);
    press(&mut state, &ctx, &[key(KeyCode::Enter), ch('H')]);
    let pane = pane_history(&state);
    let from_log: Vec<_> = pane.flushes.iter().filter(|f| f.source == "log").collect();
    assert_eq!(from_log.len(), 1, "{:?}", pane.flushes);
    assert_eq!(from_log[0].compaction_count, Some(0));

    let state_dir = dir.path().display().to_string();
    let log_arg = log.display().to_string();
    let run = |args: &[&str]| crate::support::cli::run_with(dir.path(), args, &[]);
    let cli = history_json(
        dir.path(),
        dir.path(),
        "agent:main:main",
        &["--log", &log_arg],
    );
    // The log given before the command is the same log.
    let before = run(&[
        "--log",
        &log_arg,
        "history",
        "agent:main:main",
        "--json",
        "--state-dir",
        &state_dir,
    ]);
    assert_eq!(before.expect(0).json(), cli);
    let pane_json = serde_json::to_value(pane).unwrap();
    for field in ["flushes", "warnings", "compactions"] {
        assert_eq!(pane_json[field], cli[field], "{field}");
    }
    let s = screen(&state);
    assert!(
        s.contains("flush (log) 2026-11-21T04:22:11.000Z at compactionCount 0"),
        "{s}"
    );
    // Before another command, --log is refused with the reason.
    let refused = run(&["--log", &log_arg, "list", "--state-dir", &state_dir]);
    refused.expect(2);
    assert!(
        refused.stderr.contains("--log before a command"),
        "{}",
        refused.stderr
    );
}
