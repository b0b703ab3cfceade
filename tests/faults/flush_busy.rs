//! Issue 12 item 10: `flush --yes` next to a running OpenClaw turn (a live holder of
//! `<transcript>.lock`) is refused with exit 3 before any model call, and writes nothing.

use crate::support::cli as cli_support;

use crate::support::fake_model::{FakeModel, Reply};
use cli_support::{Home, snapshot};

#[tokio::test(flavor = "multi_thread")]
async fn flush_yes_is_refused_before_the_model_call_while_a_turn_holds_the_lock() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli_support::point_fake_provider(&h, &fake.base_url());
    fake.push(Reply::text("- a note"));
    h.hold_transcript_lock();
    let before = snapshot(&h.state());
    let o = cli_support::run_async(&h, &["flush", "agent:main:main", "--yes"]).await;
    o.expect(3);
    assert!(o.stderr.contains("busy"), "{}", o.stderr);
    assert!(o.stderr.contains(".jsonl.lock"), "{}", o.stderr);
    assert!(fake.requests().is_empty(), "no model call");
    assert_eq!(snapshot(&h.state()), before, "nothing written");
}

#[test]
fn flush_notes_file_yes_is_refused_while_a_turn_holds_the_lock() {
    let h = Home::host_a();
    h.hold_transcript_lock();
    let notes = h.path().join("notes.md");
    std::fs::write(&notes, "- a note").unwrap();
    let before = snapshot(&h.state());
    let o = h.run(&[
        "flush",
        "agent:main:main",
        "--notes-file",
        notes.to_str().unwrap(),
        "--yes",
    ]);
    o.expect(3);
    assert!(o.stderr.contains("busy"), "{}", o.stderr);
    assert_eq!(snapshot(&h.state()), before, "nothing written");
}
