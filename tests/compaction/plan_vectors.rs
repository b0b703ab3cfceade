//! Known figures from pi (docs/pi-compaction.md §9) on the real fixtures.
use clawtop::plan;
use clawtop::transcript::Transcript;
use std::path::PathBuf;

use crate::support::fixtures;

fn fixture(name: &str) -> PathBuf {
    fixtures::fixture(fixtures::PI).join(name)
}

#[test]
fn large_session_default_plan_matches_pi() {
    let t = Transcript::open(&fixture("large-session.jsonl")).unwrap();
    assert_eq!(t.len(), 1018);
    let msgs = t.entries.iter().filter(|e| e.kind.is_message()).count();
    assert_eq!(msgs, 914);
    let p = plan::prepare(&t, 20000).unwrap();
    assert_eq!(p.cut.first_kept, 837);
    assert_eq!(p.cut.turn_start, Some(834));
    assert!(p.cut.is_split_turn);
    assert_eq!(p.tokens_before, 177657);
    assert_eq!(p.messages_to_summarize.len(), 730);
    assert_eq!(p.turn_prefix_messages.len(), 3);
    assert_eq!(p.read_files.len(), 7);
    assert_eq!(p.modified_files.len(), 20);
}

#[test]
fn large_session_context_matches_pi() {
    let t = Transcript::open(&fixture("large-session.jsonl")).unwrap();
    let ctx = clawtop::context::build(&t, t.leaf());
    assert_eq!(ctx.slots.len(), 914);
    assert_eq!(
        ctx.model,
        Some(("anthropic".into(), "claude-sonnet-4-5".into()))
    );
    assert_eq!(ctx.thinking_level, "off");
}
