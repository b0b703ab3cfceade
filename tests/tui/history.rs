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
    assert_eq!(row.recent.len(), 12);
    let (state, _) = sessions_app(vec![row.clone()], (150, 8));
    let s = screen(&state).replace(&t.display().to_string(), "<transcript>");
    let header = s.lines().nth(2).unwrap();
    assert!(
        header.contains(" ETA ") && header.trim_end().ends_with("TREND"),
        "{s}"
    );
    assert_snapshot!("sessions_eta_trend_150x8", s);
    // Narrower: the columns it had before, no ETA.
    let (state, _) = sessions_app(vec![row], (120, 8));
    assert!(!screen(&state).contains("TREND"));

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
    let order: Vec<&str> = state
        .sessions
        .rows
        .iter()
        .map(|r| r.session_key.as_str())
        .collect();
    assert_eq!(order, ["c", "d", "b", "a"]);
}
