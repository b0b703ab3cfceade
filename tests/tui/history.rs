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
