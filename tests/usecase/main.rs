//! The use-case layer the CLI and the TUI share: each former disagreement between the two
//! front-ends, decided once and tested here.

#[path = "../support/mod.rs"]
mod support;

use clawtop::compaction::model::GenProgress;
use clawtop::flush::FlushGate;
use clawtop::llm::Progress;
use clawtop::source::transcript_file::TranscriptFile;
use clawtop::source::{SessionHandle, SourceHandle};
use clawtop::store::{Env, Host, Options};
use clawtop::usecase::{self, Exit, ModelChoice, Problem, Subject, compact, flush};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::fixtures;

const SESSION_ID: &str = "97f75c20-5cc1-429c-a417-d0c0ee5fec68";

fn fixture_transcript() -> PathBuf {
    fixtures::fixture("transcripts/v3-two-compactions.jsonl")
}

/// A one-agent file-backed host in `dir`: the fixture transcript, a store row with the given
/// extra fields, a config (JSON) with a `fake` provider and a workspace inside `dir`.
fn host(dir: &Path, row: Value, compaction: Value) -> SourceHandle {
    let sessions = dir.join("agents/main/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::create_dir_all(dir.join("workspace")).unwrap();
    std::fs::copy(
        fixture_transcript(),
        sessions.join(format!("{SESSION_ID}.jsonl")),
    )
    .unwrap();
    let mut entry = json!({"sessionId": SESSION_ID, "updatedAt": 1, "modelProvider": "fake", "model": "fake-large"});
    for (k, v) in row.as_object().unwrap() {
        entry[k] = v.clone();
    }
    std::fs::write(
        sessions.join("sessions.json"),
        json!({ "agent:main:main": entry }).to_string(),
    )
    .unwrap();
    let config = json!({
        "agents": {"defaults": {"workspace": dir.join("workspace"), "compaction": compaction}},
        "models": {"providers": {"fake": {
            "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "sk-test",
            "models": [{"id": "fake-large", "contextWindow": 64000}]
        }}}
    });
    std::fs::write(dir.join("openclaw.json"), config.to_string()).unwrap();
    let opts = Options {
        state_dir: Some(dir.to_path_buf()),
        ..Default::default()
    };
    clawtop::source::for_host(Host::open(&opts, &Env::default()).unwrap())
}

fn handle(source: &SourceHandle) -> SessionHandle {
    let r = source.list(None).sessions.remove(0).reference;
    SessionHandle::new(source.clone(), r)
}

fn no_env() -> ModelChoice {
    ModelChoice {
        env: Arc::new(|_: &str| None),
        ..ModelChoice::default()
    }
}

/// CLI used a blank `customInstructions`; the TUI ignored it. Now: blank is none, everywhere,
/// and blank text the operator gives asks for none.
#[test]
fn blank_custom_instructions_are_no_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let s = host(
        dir.path(),
        json!({}),
        json!({"customInstructions": "   \n", "keepRecentTokens": 200}),
    );
    let p = compact::prepare(&handle(&s), &compact::Options::default()).unwrap();
    assert_eq!(p.default_instructions, None);
    assert_eq!(
        compact::instructions(None, p.default_instructions.as_deref()),
        None
    );
    assert_eq!(compact::instructions(None, Some(" \t")), None);
    assert_eq!(
        compact::instructions(None, Some("keep PR numbers")).as_deref(),
        Some("keep PR numbers")
    );
    assert_eq!(
        compact::instructions(Some("  ".into()), Some("keep PR numbers")),
        None
    );
    assert_eq!(
        compact::instructions(Some("focus".into()), Some("keep PR numbers")).as_deref(),
        Some("focus")
    );
    let dir = tempfile::tempdir().unwrap();
    let s = host(
        dir.path(),
        json!({}),
        json!({"customInstructions": "keep PR numbers", "keepRecentTokens": 200}),
    );
    let p = compact::prepare(&handle(&s), &compact::Options::default()).unwrap();
    assert_eq!(p.default_instructions.as_deref(), Some("keep PR numbers"));
}

/// CLI refused empty notes; the TUI committed them as NO_REPLY. Now: empty notes are refused
/// with nothing written, `NO_REPLY` (in any of OpenClaw's spellings) records the flush.
#[test]
fn empty_flush_notes_are_refused_and_no_reply_records_the_flush() {
    let dir = tempfile::tempdir().unwrap();
    let s = host(
        dir.path(),
        json!({"compactionCount": 2, "totalTokens": 100, "totalTokensFresh": true}),
        json!({}),
    );
    let p = flush::prepare(&handle(&s), &flush::Options::default()).unwrap();
    let store = dir.path().join("agents/main/sessions/sessions.json");
    let before = std::fs::read(&store).unwrap();
    for empty in ["", "  \n\t"] {
        let e = flush::commit(&p, empty).unwrap_err();
        assert!(
            matches!(&e, Problem::Failed(m) if m.contains("write NO_REPLY")),
            "{e:?}"
        );
        assert_eq!(e.exit_code(), Exit::FAILED);
    }
    assert_eq!(std::fs::read(&store).unwrap(), before, "nothing written");
    assert!(!p.target.exists());
    assert_eq!(
        flush::notes_to_commit("**NO_REPLY**").unwrap(),
        (String::new(), true)
    );
    assert_eq!(
        flush::notes_to_commit("- a note\n").unwrap(),
        ("- a note\n".to_string(), false)
    );
    let c = flush::commit(&p, " no_reply. ").unwrap();
    assert_eq!(c.appended_bytes, 0);
    assert!(!p.target.exists(), "NO_REPLY writes no notes");
    let row: Value = serde_json::from_slice(&std::fs::read(&store).unwrap()).unwrap();
    assert_eq!(row["agent:main:main"]["memoryFlushCompactionCount"], 2);
}

/// The gate was fed hand-built JSON, with `memoryFlushAt` in one front-end only. Now it is
/// the numbers' typed counters.
#[test]
fn the_flush_gate_is_the_numbers_typed_counters() {
    let dir = tempfile::tempdir().unwrap();
    let s = host(
        dir.path(),
        // Written after the transcript's last call (a store older than it gives way to the
        // transcript's figure: crate::used).
        json!({"compactionCount": 3, "memoryFlushCompactionCount": 3, "memoryFlushAt": 1_700_000_000_000i64,
               "totalTokens": 50_000, "totalTokensFresh": true, "contextTokens": 64_000,
               "updatedAt": 4_000_000_000_000i64}),
        json!({}),
    );
    let h = handle(&s);
    let p = flush::prepare(&h, &flush::Options::default()).unwrap();
    let subject = Subject::read(&h, true).unwrap();
    assert_eq!(p.gate, FlushGate::from_thresholds(&subject.numbers));
    assert_eq!(p.gate.memory_flush_at, Some(1_700_000_000_000));
    assert!(p.gate.flushed_this_cycle && !p.gate.due);
    // 64000 − floor 20000 − soft 4000.
    assert_eq!(p.gate.flush_line, Some(40_000));
    assert_eq!(p.gate.used, Some(50_000));
    assert_eq!(p.gate.used_source, "fresh");
}

/// The model budget and the endpoint were resolved two or three times. Now one resolution
/// serves both use cases: catalog window (else the session's), the session's reserve.
#[test]
fn one_endpoint_and_budget_for_compaction_and_flush() {
    let dir = tempfile::tempdir().unwrap();
    let s = host(
        dir.path(),
        json!({"contextTokens": 48_000}),
        json!({"keepRecentTokens": 200, "reserveTokensFloor": 30_000}),
    );
    let h = handle(&s);
    let c = compact::prepare(&h, &compact::Options::default()).unwrap();
    let f = flush::prepare(&h, &flush::Options::default()).unwrap();
    let (c, f) = (c.model.unwrap(), f.model.unwrap());
    assert_eq!(c.label(), "fake/fake-large @ http://127.0.0.1:9/v1");
    assert_eq!(c.label(), f.label());
    assert_eq!(c.budget.context_window, 64_000, "the catalog's window");
    assert_eq!(c.budget.reserve_tokens, 30_000, "the session's reserve");
    assert_eq!(
        (c.budget.context_window, c.budget.reserve_tokens),
        (f.budget.context_window, f.budget.reserve_tokens)
    );
    // A bare transcript has no entry: its model is the last assistant's, the window the default.
    let file: SourceHandle = Arc::new(TranscriptFile::new(fixture_transcript()));
    let bare = SessionHandle::new(
        file.clone(),
        TranscriptFile::new(fixture_transcript()).reference(),
    );
    let b = compact::prepare(
        &bare,
        &compact::Options {
            keep_recent_tokens: Some(200),
            model: no_env(),
        },
    )
    .unwrap();
    let err = b.model.unwrap_err();
    assert!(
        matches!(&err, clawtop::usecase::NoModel::Unresolved(_)),
        "{err:?}"
    );
    assert!(err.to_string().contains("anthropic"), "{err}");
}

/// Progress was mapped three times. Now one mapping.
#[test]
fn one_progress_mapping() {
    assert_eq!(usecase::progress(Progress::Started { attempt: 1 }), None);
    assert_eq!(
        usecase::progress(Progress::Delta {
            chars_so_far: 10,
            output_tokens_so_far: Some(3)
        }),
        Some(GenProgress::Delta {
            chars: 10,
            tokens: Some(3)
        })
    );
    assert_eq!(
        usecase::progress(Progress::Retrying {
            attempt: 1,
            after_ms: 500,
            reason: "HTTP 529".into()
        }),
        Some(GenProgress::Retrying {
            attempt: 1,
            after_ms: 500,
            reason: "HTTP 529".into()
        })
    );
}

/// Callers get typed outcomes with one exit code each, not strings to match.
#[test]
fn typed_outcomes_with_one_exit_code_each() {
    // Refused: a demo session whose transcript is missing has nothing to compact.
    let demo = clawtop::source::for_host(Host::demo().unwrap());
    let key = |k: &str| {
        let r = demo
            .list(None)
            .sessions
            .into_iter()
            .find(|s| s.key() == k)
            .unwrap();
        SessionHandle::new(demo.clone(), r.reference)
    };
    let e = compact::prepare(
        &key("agent:main:subagent:3b9e1d44"),
        &compact::Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Problem::Refused(m) if m.contains("no transcript file")),
        "{e:?}"
    );
    assert_eq!(e.exit_code(), Exit::REFUSED);
    // The demo (a private copy) prepares, and its model is the offline demo summarizer
    // whatever its config names (issue 9).
    let p = compact::prepare(&key("agent:ops:main"), &compact::Options::default()).unwrap();
    let m = p.model.as_ref().unwrap();
    assert!(
        clawtop::llm::offline_demo::is_offline_demo(&m.endpoint),
        "{m:?}"
    );

    // Nothing to compact: a failure with its typed reason (front-ends match the reason,
    // never the words).
    let dir = tempfile::tempdir().unwrap();
    let s = host(dir.path(), json!({}), json!({"keepRecentTokens": 200}));
    let h = handle(&s);
    let p = compact::prepare(&h, &compact::Options::default()).unwrap();
    compact::commit(&p, "## Goal\nsummary").unwrap();
    let e = compact::prepare(&h, &compact::Options::default()).unwrap_err();
    assert!(
        matches!(
            &e,
            Problem::NoPlan {
                reason: clawtop::plan::NoPlan::AlreadyCompacted,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("already compacted"), "{e}");
    assert_eq!(e.exit_code(), Exit::FAILED);

    let file: SourceHandle = Arc::new(TranscriptFile::new(fixture_transcript()));
    let bare = SessionHandle::new(
        file.clone(),
        TranscriptFile::new(fixture_transcript()).reference(),
    );
    let e = flush::prepare(&bare, &flush::Options::default()).unwrap_err();
    assert!(matches!(e, Problem::Usage(_)), "{e:?}");
    assert_eq!(e.exit_code(), Exit::USAGE);
    assert_eq!(Problem::Cancelled.exit_code(), Exit::FAILED);
}
