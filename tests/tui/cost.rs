//! The Cost pane of the Session screen (`$`) on `tests/fixtures/cost/host-c`: the figures of
//! its README (spend, calls, tokens, hit ratio, busts), from the transcript the screen loaded.

use crate::support::fixtures::fixture;
use crate::support::tui::*;
use crossterm::event::KeyCode;

#[test]
fn cost_pane_of_host_c() {
    let dir = tempfile::tempdir().unwrap();
    let state_dir = dir.path().join("state");
    copy_tree(&fixture("cost/host-c"), &state_dir);
    let opts = clawtop::store::Options {
        state_dir: Some(state_dir.clone()),
        ..Default::default()
    };
    let env = clawtop::store::Env::default();
    let host = clawtop::source::for_host(clawtop::store::Host::open(&opts, &env).unwrap());
    let (mut state, ctx) = host_app(host, (100, 30));
    press(&mut state, &ctx, &[key(KeyCode::Enter), ch('$')]);
    let s = screen(&state);
    assert!(s.contains(" Cost "), "{s}");
    assert!(s.contains("spend $0.12? · "), "{s}");
    assert!(s.contains("10 calls (2 unpriced)"), "{s}");
    assert!(
        s.contains("tokens in 6,150 · out 970 · cache read 37,300 · cache write 26,800"),
        "{s}"
    );
    // 26,600 / 59,150 read from the cache.
    assert!(s.contains("cache: 45% of the prompt read from it"), "{s}");
    assert!(s.contains("(TTL 1h00m)"), "{s}");
    assert!(
        s.contains("busts (3): a7 compaction · a8 idle · a9 model-change"),
        "{s}"
    );
    assert!(s.contains("$/h, last 24 hours"), "{s}");
    assert!(s.contains("compaction: "), "{s}");
    assert!(
        s.contains("note: 2 calls of local/mystery-model unpriced"),
        "{s}"
    );
    // A day after the fixture's calls: the cache is cold and the last hours spent nothing.
    assert!(s.contains("· cold (TTL 1h00m)"), "{s}");
    insta::assert_snapshot!("session_cost_host_c_100x30", s);
    // The pane's spend is the list's: one figure.
    let row = clawtop::usecase::list::build(
        clawtop::source::for_host(clawtop::store::Host::open(&opts, &env).unwrap()).as_ref(),
        &Default::default(),
    );
    let label = row.sessions[0].cost.as_ref().unwrap().spend_label();
    assert!(s.contains(&format!("spend {label} ")), "{label}: {s}");
    // `$` again, or Esc, closes it.
    press(&mut state, &ctx, &[ch('$')]);
    assert!(!screen(&state).contains(" Cost "));
    press(&mut state, &ctx, &[ch('$'), key(KeyCode::Esc)]);
    assert!(!screen(&state).contains(" Cost "));
    assert!(state.session.is_some());
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}
