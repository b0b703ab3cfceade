//! `clawtop flush KEY` end to end on a copy of host-a with the fake model server.

use crate::support::cli::{self, Home, snapshot};
use crate::support::fake_model::{FakeModel, Reply};

fn memory_file(h: &Home) -> std::path::PathBuf {
    h.state()
        .join("workspace/memory")
        .join(format!("{}.md", clawtop::flush::today()))
}

#[tokio::test(flavor = "multi_thread")]
async fn preview_then_commit_appends_exactly_and_records_the_flush() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    let notes = "- Deployment uses blue/green rollout\n- PR #4411 still open";
    fake.push(Reply::text(notes));
    let before = snapshot(&h.state());
    let o = cli::run_async(
        &h,
        &[
            "flush",
            "agent:main:main",
            "--instructions",
            "Note open PRs",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["committed"], false);
    assert_eq!(v["noReply"], false);
    assert_eq!(v["notes"].as_str().unwrap().trim_end(), notes);
    assert_eq!(snapshot(&h.state()), before, "the preview writes nothing");
    let req = &fake.requests()[0];
    let msgs = req.body["messages"].as_array().unwrap();
    let system = msgs.iter().find(|m| m["role"] == "system").unwrap()["content"]
        .as_str()
        .unwrap();
    let user = msgs.iter().find(|m| m["role"] == "user").unwrap()["content"]
        .as_str()
        .unwrap();
    let today = clawtop::flush::today();
    assert!(
        system.contains("Pre-compaction memory flush turn"),
        "{system}"
    );
    assert!(
        user.contains(&format!("memory/{today}.md")),
        "prompt carries today's date"
    );
    assert!(!user.contains("YYYY-MM-DD"));
    assert!(user.contains("Note open PRs"));
    assert!(
        user.contains("FAKE-SUMMARY 16"),
        "the context starts with the compaction summary"
    );

    // An existing file is kept byte for byte; the notes go after it.
    let mem = memory_file(&h);
    std::fs::create_dir_all(mem.parent().unwrap()).unwrap();
    std::fs::write(&mem, "# Earlier\nkept as is").unwrap();
    fake.push(Reply::text(notes));
    let o = cli::run_async(&h, &["flush", "agent:main:main", "--yes", "--json"]).await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["committed"], true);
    assert_eq!(v["memoryFlushCompactionCount"], 12);
    let text = std::fs::read_to_string(&mem).unwrap();
    assert!(text.starts_with("# Earlier\nkept as is"));
    assert!(text.ends_with(&format!("{notes}\n")), "{text:?}");
    let store: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
    assert_eq!(store["agent:main:main"]["memoryFlushCompactionCount"], 12);
    assert_eq!(
        store["agent:main:main"]["memoryFlushAt"],
        v["memoryFlushAt"]
    );
    let l = cli::run_async(&h, &["list", "--json"]).await;
    let s = &l.json()["sessions"][0];
    assert_eq!(s["flushedThisCycle"], true);
    assert_ne!(s["status"], "flush-due");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_reply_records_without_writing_and_failures_write_nothing() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    for _ in 0..6 {
        fake.push(Reply::status(500, "down"));
    }
    let before = snapshot(&h.state());
    let o = cli::run_async(&h, &["flush", "agent:main:main", "--yes"]).await;
    o.expect(1);
    assert!(o.stderr.contains("nothing written"), "{}", o.stderr);
    assert_eq!(snapshot(&h.state()), before);

    fake.push(Reply::text("NO_REPLY"));
    let o = cli::run_async(&h, &["flush", "agent:main:main", "--yes", "--json"]).await;
    o.expect(0);
    assert_eq!(o.json()["noReply"], true);
    assert!(!memory_file(&h).exists(), "NO_REPLY writes no notes");
    let store: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
    assert_eq!(store["agent:main:main"]["memoryFlushCompactionCount"], 12);
}

#[tokio::test(flavor = "multi_thread")]
async fn edited_notes_and_bad_workspace() {
    let h = Home::host_a();
    let f = h.path().join("notes.md");
    std::fs::write(&f, "- edited by hand ✓").unwrap();
    // A workspace that is a file: clear error, store untouched.
    let bogus = h.path().join("not-a-dir");
    std::fs::write(&bogus, "x").unwrap();
    let before = snapshot(&h.state());
    let o = cli::run_async(
        &h,
        &[
            "flush",
            "agent:main:main",
            "--notes-file",
            f.to_str().unwrap(),
            "--workspace",
            bogus.to_str().unwrap(),
            "--yes",
        ],
    )
    .await;
    assert!(o.code == 1 || o.code == 3, "{}", o.stderr);
    assert!(o.stderr.contains("not-a-dir"), "{}", o.stderr);
    assert_eq!(snapshot(&h.state()), before);

    let o = cli::run_async(
        &h,
        &[
            "flush",
            "agent:main:main",
            "--notes-file",
            f.to_str().unwrap(),
            "--yes",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    assert_eq!(
        std::fs::read_to_string(memory_file(&h)).unwrap(),
        "- edited by hand ✓\n"
    );
    // A bare transcript has no workspace: usage error.
    let o = cli::run_async(&h, &["flush", h.transcript().to_str().unwrap()]).await;
    o.expect(2);
}
