//! Committing a compaction on copies of real transcripts, read back by pi's own SessionManager.

use clawtop::commit::StoreRow;
use clawtop::compaction;
use clawtop::context;
use clawtop::transcript::Transcript;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::fixtures::{self, fixture};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn copy_to(dir: &Path, src: &Path) -> PathBuf {
    let dst = dir.join(src.file_name().unwrap());
    std::fs::copy(src, &dst).unwrap();
    let mut perm = std::fs::metadata(&dst).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perm.set_readonly(false);
    std::fs::set_permissions(&dst, perm).unwrap();
    dst
}

fn pi_context(file: &Path) -> Vec<Value> {
    let out = Command::new("node")
        .arg(root().join("interop/pi_context.mjs"))
        .arg(file)
        .output()
        .expect("node");
    assert!(
        out.status.success(),
        "pi_context failed (npm ci --prefix interop?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["files"][0]["messages"].as_array().unwrap().clone()
}

fn text_of(m: &Value) -> String {
    match m["role"].as_str() {
        Some("compactionSummary") | Some("branchSummary") => {
            m["summary"].as_str().unwrap_or("").to_string()
        }
        Some("bashExecution") => m["command"].as_str().unwrap_or("").to_string(),
        _ => match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(a) => a
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect(),
            _ => String::new(),
        },
    }
}

/// Commits `summary` and checks pi's reading: summary first, then the kept entries.
fn commit_and_check(file: &Path, keep: u64, session: Option<&StoreRow>) -> compaction::Committed {
    let p = compaction::prepare(file, keep).unwrap();
    // What clawtop expects the model to see afterwards: the kept messages from firstKept on.
    let kept: Vec<Value> = p.plan.path[p.plan.cut.first_kept..]
        .iter()
        .filter_map(|&i| p.transcript.entry_json(i).ok())
        .filter_map(|v| {
            clawtop::tokens::message_of_entry(&v, clawtop::tokens::MessageView::Context)
        })
        .collect();
    let before = std::fs::read(file).unwrap();
    let summary = format!(
        "## Goal\nTest summary for {}\n\n<read-files>\nx\n</read-files>",
        file.display()
    );
    let done = compaction::commit(&p, &summary, session).unwrap();
    let after = std::fs::read(file).unwrap();
    // The entry records how clawtop planned it, inside `details` (pi keeps and ignores it:
    // its reading below is unchanged).
    let line: Value = serde_json::from_slice(
        after[before.len()..]
            .split(|&b| b == b'\n')
            .find(|l| !l.is_empty())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(line["details"]["clawtop"]["plannedAs"], "openclaw-2026.9");
    assert_eq!(line["details"]["clawtop"]["keepRecentTokens"], keep);
    assert!(
        after.starts_with(&before),
        "the transcript was rewritten, not appended to"
    );
    assert!(after.ends_with(b"\n"));
    assert_eq!(
        after[before.len()..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            - usize::from(!before.ends_with(b"\n")),
        1
    );

    let msgs = pi_context(file);
    assert_eq!(msgs[0]["role"], "compactionSummary", "{}", file.display());
    assert_eq!(msgs[0]["text"].as_str().unwrap(), summary);
    let pi_rest: Vec<(String, String)> = msgs[1..]
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let ours: Vec<(String, String)> = kept
        .iter()
        .map(|m| (m["role"].as_str().unwrap().to_string(), text_of(m)))
        .collect();
    assert_eq!(
        pi_rest,
        ours,
        "{}: pi's context after the compaction is not the kept entries",
        file.display()
    );

    // clawtop reads its own entry back the same way.
    let t = Transcript::open(file).unwrap();
    let ctx = context::build(&t, t.leaf());
    assert_eq!(ctx.compaction, t.leaf());
    assert_eq!(context::messages(&t, &ctx).len(), msgs.len());
    done
}

#[test]
fn commit_on_v1_and_v3_transcripts_reads_back_in_pi() {
    let dir = tempfile::tempdir().unwrap();
    let pi = fixture(fixtures::PI);
    for (name, keep) in [
        ("large-session.jsonl", 20000),
        ("before-compaction.jsonl", 8000),
    ] {
        let f = copy_to(dir.path(), &pi.join(name));
        let done = commit_and_check(&f, keep, None);
        assert!(
            done.entry_id.is_none(),
            "v1 files get no id (pi assigns them)"
        );
        assert!(!done.store_updated);
    }
    for name in [
        "v3-two-compactions.jsonl",
        "v3-branched.jsonl",
        "v3-bash-execution.jsonl",
        "v3-settings-before-user.jsonl",
        "v3-labels-session-info.jsonl",
    ] {
        let f = copy_to(dir.path(), &fixture(fixtures::TRANSCRIPTS).join(name));
        let done = commit_and_check(&f, 2000, None);
        assert_eq!(done.entry_id.as_ref().map(String::len), Some(8));
    }
}

#[test]
fn commit_on_host_a_updates_transcript_and_store() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = fixture(fixtures::HOST_A_SESSIONS);
    let store = copy_to(dir.path(), &sessions.join("sessions.json"));
    let file = copy_to(
        dir.path(),
        &sessions.join("eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl"),
    );
    let store_before = std::fs::read_to_string(&store).unwrap();
    let s = StoreRow {
        store_path: store.clone(),
        session_key: "agent:main:main".into(),
        session_id: "adhoc-1".into(),
    };
    let done = commit_and_check(&file, 2000, Some(&s));
    assert!(done.store_updated);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    let e = &v["agent:main:main"];
    assert_eq!(e["compactionCount"], 13);
    assert_eq!(e["totalTokens"], done.tokens_after);
    assert_eq!(e["totalTokensFresh"], true);
    for k in ["inputTokens", "outputTokens", "cacheRead", "cacheWrite"] {
        assert!(e.get(k).is_none(), "{k} not cleared");
    }
    let old: Value = serde_json::from_str(&store_before).unwrap();
    assert_eq!(
        e["skillsSnapshot"],
        old["agent:main:main"]["skillsSnapshot"]
    );
    assert!(
        done.tokens_after < 37863,
        "tokensAfter {} should be below the pre-compaction size",
        done.tokens_after
    );
}

#[test]
fn commit_refuses_when_the_transcript_moved() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy_to(dir.path(), &fixture("transcripts/v3-two-compactions.jsonl"));
    let p = compaction::prepare(&f, 2000).unwrap();
    // OpenClaw appends a turn after the preview was made.
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.extend_from_slice(b"{\"type\":\"label\",\"id\":\"ffff0000\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"targetId\":\"x\",\"label\":\"y\"}\n");
    std::fs::write(&f, &bytes).unwrap();
    let err = compaction::commit(&p, "summary", None).unwrap_err();
    assert_eq!(err.verdict(), clawtop::commit::Verdict::Refused);
    assert!(err.to_string().contains("changed since preview"), "{err}");
    assert_eq!(std::fs::read(&f).unwrap(), bytes, "nothing may be written");
}

#[test]
fn commit_refuses_a_live_lock() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy_to(dir.path(), &fixture("transcripts/v3-branched.jsonl"));
    let p = compaction::prepare(&f, 2000).unwrap();
    let mut child = Command::new("sleep").arg("30").spawn().unwrap();
    let lock = dir.path().join("v3-branched.jsonl.lock");
    std::fs::write(
        &lock,
        format!(
            "{{\n  \"pid\": {},\n  \"createdAt\": \"{}\"\n}}\n",
            child.id(),
            compaction::iso_now()
        ),
    )
    .unwrap();
    let before = std::fs::read(&f).unwrap();
    let err = compaction::commit(&p, "summary", None).unwrap_err();
    child.kill().ok();
    child.wait().ok();
    assert_eq!(err.verdict(), clawtop::commit::Verdict::Refused);
    assert!(
        err.to_string().contains(&format!("pid {}", child.id())),
        "{err}"
    );
    assert_eq!(std::fs::read(&f).unwrap(), before);
    assert!(
        lock.exists(),
        "someone else's lock is never removed while its holder lives"
    );
}

#[test]
fn a_store_problem_found_under_the_lock_writes_nothing() {
    // The store row moved on (OpenClaw rotated the session) after the preview: refused
    // before the transcript is touched, so no half commit is left behind.
    let dir = tempfile::tempdir().unwrap();
    let sessions = fixture(fixtures::HOST_A_SESSIONS);
    let store = copy_to(dir.path(), &sessions.join("sessions.json"));
    let file = copy_to(
        dir.path(),
        &sessions.join("eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl"),
    );
    let p = compaction::prepare(&file, 2000).unwrap();
    let rotated = std::fs::read_to_string(&store)
        .unwrap()
        .replace("\"adhoc-1\"", "\"adhoc-2\"");
    std::fs::write(&store, &rotated).unwrap();
    let before = std::fs::read(&file).unwrap();
    let s = StoreRow {
        store_path: store.clone(),
        session_key: "agent:main:main".into(),
        session_id: "adhoc-1".into(),
    };
    let err = compaction::commit(&p, "summary", Some(&s)).unwrap_err();
    assert_eq!(err.verdict(), clawtop::commit::Verdict::Refused, "{err}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "transcript untouched"
    );
    assert_eq!(
        std::fs::read_to_string(&store).unwrap(),
        rotated,
        "store untouched"
    );
    assert!(!dir.path().join("sessions.json.lock").exists());
}
