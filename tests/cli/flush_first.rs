//! Issue 30's "done when", end to end on a copy of host-a (2026.2.26) with the fake model
//! server: a compaction past the flush line is refused until the operator chooses; with
//! `--flush-first` clawtop flushes, then compacts with OpenClaw 2026.9's plan; the audit
//! judges that compaction by the boundary recorded in it (0 dropped), `check` finds neither a
//! lossy compaction nor a missing flush, and pi 0.55.1 loads the file as the summary followed
//! by every message from firstKeptEntryId.

use crate::support::cli::{self, Home, snapshot};
use crate::support::fake_model::{FakeModel, Reply};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const KEY: &str = "agent:main:main";

/// pi 0.55.1's context of `file` (interop/pi_context.mjs, on a copy).
fn pi_context(file: &std::path::Path) -> Vec<Value> {
    let out = Command::new("node")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/pi_context.mjs"))
        .arg(file)
        .output()
        .expect("node is required for the pi interop check");
    assert!(
        out.status.success(),
        "pi_context failed (npm ci --prefix interop?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["files"][0]["messages"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_due_flush_is_refused_then_flushed_first_and_the_compaction_audits_clean() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());

    // Past the flush line (used 40,378 ≥ 24,000), nothing flushed this cycle: refused, exit 3,
    // nothing written, no model asked.
    let before = snapshot(&h.state());
    let o = cli::run_async(&h, &["compact", KEY, "--yes"]).await;
    o.expect(3);
    for want in ["flush is due", "24,000", "--flush-first", "--no-flush"] {
        assert!(o.stderr.contains(want), "{want:?} missing: {}", o.stderr);
    }
    assert_eq!(before, snapshot(&h.state()));
    assert!(fake.requests().is_empty());

    // The identifiers of the span the plan replaces, from a preview whose summary keeps none.
    fake.set_fallback(Reply::text("## Goal\nnothing yet"));
    let o = cli::run_async(&h, &["compact", KEY, "--no-flush", "--json"]).await;
    o.expect(0);
    let preview = o.json();
    assert_eq!(preview["firstKeptEntryId"], "f9eefcdc");
    let lost: Vec<String> = preview["audit"]["identifiers"]["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["value"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(preview["audit"]["boundary"], "openclaw-2026.9");
    assert_eq!(before, snapshot(&h.state()));

    // Flush first, then compact: the flush notes, then the summary (keeping every identifier).
    let summary = format!(
        "## Goal\nFinish the review.\n\n## Critical Context\n- {}",
        lost.join("\n- ")
    );
    fake.push(Reply::text("- Reviewed the deployment plan."));
    fake.set_fallback(Reply::text(&summary));
    let o = cli::run_async(&h, &["compact", KEY, "--flush-first", "--yes", "--json"]).await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["flushFirst"]["committed"], true, "{v}");
    assert_eq!(v["flushFirst"]["memoryFlushCompactionCount"], 12, "{v}");
    assert_eq!(v["committed"], true);
    assert_eq!(v["firstKeptEntryId"], "f9eefcdc");
    let id = v["entryId"].as_str().unwrap().to_string();
    let store: Value = serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
    assert_eq!(store[KEY]["compactionCount"], 13);
    assert_eq!(store[KEY]["memoryFlushCompactionCount"], 12);
    // The first request was the flush's, the rest the summary's.
    let requests = fake.requests();
    assert!(requests.len() >= 2);

    // The entry records how it was planned and the flush it followed.
    let text = std::fs::read_to_string(h.transcript()).unwrap();
    let entry: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(entry["id"], id.as_str());
    assert_eq!(entry["details"]["clawtop"]["plannedAs"], "openclaw-2026.9");
    assert_eq!(entry["details"]["clawtop"]["keepRecentTokens"], 20000);
    assert_eq!(
        entry["details"]["clawtop"]["flush"]["memoryFlushCompactionCount"],
        12
    );

    // The audit: judged by the recorded boundary, nothing dropped, nothing lost.
    let o = h.run(&["audit", KEY, "--json"]);
    o.expect(0);
    let a = o.json();
    let ours = a["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["entryId"] == id.as_str())
        .unwrap_or_else(|| panic!("compaction {id} not audited: {a}"))
        .clone();
    assert_eq!(ours["boundary"], "openclaw-2026.9", "{ours}");
    assert_eq!(ours["droppedUnsummarized"]["messages"], 0, "{ours}");
    assert_eq!(
        ours["identifiers"]["lost"].as_array().unwrap().len(),
        0,
        "{ours}"
    );
    let text = h.run(&["audit", KEY]).text();
    assert!(text.contains("[0 lost · 0 dropped]"), "{text}");

    // check: no lossy compaction, no missing flush for it.
    let o = h.run(&["check"]);
    let t = o.text();
    assert!(!t.contains("lossy-compaction"), "{t}");
    assert!(!t.contains("no-flush-before-compaction"), "{t}");
    let o = h.run(&["history", KEY, "--json"]);
    o.expect(0);
    let hist = o.json();
    let last = hist["compactions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["flushBefore"], "yes", "{last}");

    // pi 0.55.1 loads the file: the summary, then every message from firstKeptEntryId on.
    let msgs = pi_context(&h.transcript());
    assert_eq!(msgs[0]["role"], "compactionSummary");
    assert_eq!(msgs[0]["text"], v["summary"]);
    assert!(v["summary"].as_str().unwrap().starts_with(&summary));
    let t = clawtop::transcript::Transcript::open(&h.transcript()).unwrap();
    let path = t.active_branch();
    let from = path
        .iter()
        .position(|&i| t.entry_id(i).as_deref() == Some("f9eefcdc"))
        .unwrap();
    let kept = path[from..]
        .iter()
        .filter(|&&i| {
            let k = t.entries[i as usize].kind;
            k != clawtop::transcript::EntryKind::Compaction
                && clawtop::tokens::kind_yields_message(k, clawtop::tokens::MessageView::Context)
        })
        .count();
    assert_eq!(msgs.len(), 1 + kept, "{msgs:?}");
}
