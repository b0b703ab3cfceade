//! sessions.json entry patch: byte-exact splice, formatting, locking, failures.

use std::fs;
use std::path::Path;

use crate::support::commit::*;
use clawtop::commit::{
    CommitError, PatchOp, PatchOutcome, compaction_patch, flush_patch, patch_store_entry,
    require_string_field,
};
use serde_json::{Value, json};

const NOW: i64 = 1_795_300_000_123;

fn assert_clean(dir: &Path, store: &Path) {
    let names = list_names(dir);
    assert!(
        !names.iter().any(|n| n.ends_with(".tmp")),
        "temp files left: {names:?}"
    );
    assert!(!lock_of(store).exists(), "store lock left behind");
}

#[test]
fn compaction_patch_on_the_fixture_changes_only_those_fields() {
    let fx = Fixture::new();
    let store = fx.store();
    let before = fs::read_to_string(&store).expect("read");
    let out = patch_store_entry(&store, SESSION_KEY, |e| {
        require_string_field(&store, e, "sessionId", "adhoc-1")?;
        compaction_patch(&store, e, 18_000, NOW)
    })
    .expect("patch");
    assert_eq!(out, PatchOutcome::Written);
    let after = fs::read_to_string(&store).expect("read");

    // What JSON.stringify(store, null, 2) gives after OpenClaw's own update.
    let expected = before
        .replace(
            "\"updatedAt\": 1795234943664,",
            &format!("\"updatedAt\": {NOW},"),
        )
        .replace("    \"inputTokens\": 75943,\n", "")
        .replace("    \"outputTokens\": 2379,\n", "")
        .replace("\"totalTokens\": 75943,", "\"totalTokens\": 18000,")
        .replace("    \"cacheRead\": 0,\n", "")
        .replace("    \"cacheWrite\": 0,\n", "")
        .replace("\"compactionCount\": 12\n", "\"compactionCount\": 13\n");
    assert_ne!(expected, before);
    assert_eq!(after, expected);
    assert!(!after.ends_with('\n'), "no trailing newline, like OpenClaw");
    assert_eq!(mode_of(&store), 0o600);
    assert_clean(fx.dir.path(), &store);

    let v: Value = serde_json::from_str(&after).expect("json");
    let e = &v[SESSION_KEY];
    assert_eq!(e["compactionCount"], 13);
    assert_eq!(e["totalTokens"], 18000);
    assert_eq!(e["totalTokensFresh"], true);
    for gone in ["inputTokens", "outputTokens", "cacheRead", "cacheWrite"] {
        assert!(e.get(gone).is_none(), "{gone}");
    }
    // Unknown/runtime fields (resolvedSkills) and key order kept.
    let keys: Vec<&str> = e
        .as_object()
        .expect("obj")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "sessionId",
            "updatedAt",
            "skillsSnapshot",
            "sessionFile",
            "contextTokens",
            "modelProvider",
            "model",
            "abortedLastRun",
            "totalTokens",
            "totalTokensFresh",
            "compactionCount"
        ]
    );
    assert_eq!(
        e["skillsSnapshot"]["resolvedSkills"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
}

#[test]
fn flush_patch_appends_new_fields_at_the_end() {
    let fx = Fixture::new();
    let store = fx.store();
    let before = fs::read_to_string(&store).expect("read");
    patch_store_entry(&store, SESSION_KEY, |e| flush_patch(&store, e, NOW)).expect("patch");
    let after = fs::read_to_string(&store).expect("read");
    let expected = before.replace(
        "\"compactionCount\": 12\n  }\n}",
        &format!("\"compactionCount\": 12,\n    \"memoryFlushAt\": {NOW},\n    \"memoryFlushCompactionCount\": 12\n  }}\n}}"),
    );
    assert_eq!(after, expected);
    assert_clean(fx.dir.path(), &store);

    // Flushing again in the same cycle sets the same values; only memoryFlushAt moves.
    patch_store_entry(&store, SESSION_KEY, |e| flush_patch(&store, e, NOW + 1)).expect("patch");
    let again = fs::read_to_string(&store).expect("read");
    assert_eq!(
        again,
        expected.replace(
            &format!("\"memoryFlushAt\": {NOW}"),
            &format!("\"memoryFlushAt\": {}", NOW + 1)
        )
    );
}

/// Three entries written the way JSON.stringify(store, null, 2) writes them, with
/// non-ASCII text, escapes, a lone surrogate, floats and exponent numbers.
const MULTI: &str = r#"{
  "agent:main:main": {
    "sessionId": "s-1",
    "updatedAt": 1795234943664,
    "label": "Grüße – 日本語 😀 \"quoted\" back\\slash\ttab\u0001ctl"
  },
  "agent:main:telegram:direct:4711": {
    "sessionId": "s-2",
    "updatedAt": 1795234943000,
    "estimatedCostUsd": 0.30000000000000004,
    "tiny": 1e-7,
    "big": 1e+21,
    "memoryFlushLastFailureError": "cut emoji \ud83d",
    "origin": {
      "label": "Ünïcode",
      "nested": [
        [],
        {},
        [
          1,
          "two",
          null,
          true
        ]
      ]
    },
    "inputTokens": 10,
    "compactionCount": 2,
    "zzUnknownFutureField": {
      "keep": "me"
    }
  },
  "agent:ops:cron:nightly": {
    "sessionId": "s-3",
    "updatedAt": 1
  }
}"#;

#[test]
fn multi_entry_store_only_the_target_entry_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("sessions.json");
    fs::write(&store, MULTI).expect("write");
    let key = "agent:main:telegram:direct:4711";
    patch_store_entry(&store, key, |e| {
        require_string_field(&store, e, "sessionId", "s-2")?;
        compaction_patch(&store, e, 1234, NOW)
    })
    .expect("patch");
    let after = fs::read_to_string(&store).expect("read");
    let expected = MULTI
        .replace("    \"updatedAt\": 1795234943000,", &format!("    \"updatedAt\": {NOW},"))
        .replace("    \"inputTokens\": 10,\n", "")
        .replace(
            "    \"compactionCount\": 2,\n    \"zzUnknownFutureField\": {\n      \"keep\": \"me\"\n    }\n  },",
            "    \"compactionCount\": 3,\n    \"zzUnknownFutureField\": {\n      \"keep\": \"me\"\n    },\n    \"totalTokens\": 1234,\n    \"totalTokensFresh\": true\n  },",
        );
    assert_eq!(after, expected);
    assert_clean(dir.path(), &store);

    // Entry with escapes in its own text is the target: strings come out identical.
    patch_store_entry(&store, "agent:main:main", |_| {
        Ok(vec![("updatedAt".into(), PatchOp::Set(json!(5)))])
    })
    .expect("patch");
    let after2 = fs::read_to_string(&store).expect("read");
    assert_eq!(
        after2,
        expected.replace("\"updatedAt\": 1795234943664,", "\"updatedAt\": 5,")
    );
}

#[test]
fn new_values_are_escaped_like_json_stringify() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("sessions.json");
    fs::write(&store, "{\n  \"k\": {\n    \"sessionId\": \"s\"\n  }\n}").expect("write");
    patch_store_entry(&store, "k", |_| {
        Ok(vec![
            (
                "note".into(),
                PatchOp::Set(json!("é \"q\" \\ \n \u{1f} \u{7f} / \u{2028}")),
            ),
            ("f".into(), PatchOp::Set(json!(2.0))),
            ("g".into(), PatchOp::Set(json!(0.5))),
            (
                "obj".into(),
                PatchOp::Set(json!({"a": [], "b": {}, "c": [1, {"d": null}]})),
            ),
            ("absent".into(), PatchOp::Remove),
        ])
    })
    .expect("patch");
    assert_eq!(
        fs::read_to_string(&store).expect("read"),
        "{\n  \"k\": {\n    \"sessionId\": \"s\",\n    \"note\": \"é \\\"q\\\" \\\\ \\n \\u001f \u{7f} / \u{2028}\",\n    \"f\": 2,\n    \"g\": 0.5,\n    \"obj\": {\n      \"a\": [],\n      \"b\": {},\n      \"c\": [\n        1,\n        {\n          \"d\": null\n        }\n      ]\n    }\n  }\n}"
    );
}

#[test]
fn trailing_bytes_and_noop_patch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("sessions.json");
    let text = "{\n  \"k\": {\n    \"a\": 1\n  }\n}\n";
    fs::write(&store, text).expect("write");
    let ino = std::os::unix::fs::MetadataExt::ino(&fs::metadata(&store).expect("stat"));
    let out = patch_store_entry(&store, "k", |_| {
        Ok(vec![("a".into(), PatchOp::Set(json!(1)))])
    })
    .expect("patch");
    assert_eq!(out, PatchOutcome::Unchanged);
    assert_eq!(
        std::os::unix::fs::MetadataExt::ino(&fs::metadata(&store).expect("stat")),
        ino,
        "not rewritten"
    );
    patch_store_entry(&store, "k", |_| {
        Ok(vec![("a".into(), PatchOp::Set(json!(2)))])
    })
    .expect("patch");
    assert_eq!(
        fs::read_to_string(&store).expect("read"),
        "{\n  \"k\": {\n    \"a\": 2\n  }\n}\n",
        "tail kept"
    );
    assert_clean(dir.path(), &store);
}

#[test]
fn mode_is_0600_even_from_a_0644_store() {
    let fx = Fixture::new();
    let store = fx.store();
    set_mode(&store, 0o644);
    patch_store_entry(&store, SESSION_KEY, |e| flush_patch(&store, e, NOW)).expect("patch");
    assert_eq!(mode_of(&store), 0o600);
}

fn assert_failure_leaves_everything(store: &Path, dir: &Path, before: &[u8], e: &CommitError) {
    assert_eq!(
        fs::read(store).expect("read"),
        before,
        "store untouched after: {e}"
    );
    assert_clean(dir, store);
}

#[test]
fn missing_key_is_an_error_and_nothing_is_written() {
    let fx = Fixture::new();
    let store = fx.store();
    let before = fs::read(&store).expect("read");
    let e = patch_store_entry(&store, "agent:main:nope", |e| flush_patch(&store, e, NOW))
        .expect_err("missing");
    assert!(matches!(e, CommitError::MissingEntry { .. }), "{e}");
    assert!(
        e.to_string().contains("sessions.json") && e.to_string().contains("agent:main:nope"),
        "{e}"
    );
    assert_failure_leaves_everything(&store, fx.dir.path(), &before, &e);
}

#[test]
fn precondition_failure_aborts() {
    let fx = Fixture::new();
    let store = fx.store();
    let before = fs::read(&store).expect("read");
    let e = patch_store_entry(&store, SESSION_KEY, |e| {
        require_string_field(&store, e, "sessionId", "other-session")?;
        compaction_patch(&store, e, 1, NOW)
    })
    .expect_err("changed");
    assert!(matches!(e, CommitError::Changed { .. }), "{e}");
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused);
    assert!(e.to_string().contains("sessionId"), "{e}");
    assert_failure_leaves_everything(&store, fx.dir.path(), &before, &e);
}

#[test]
fn corrupt_and_non_object_stores_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("sessions.json");
    for bad in [
        &b""[..],
        b"[]",
        b"\"str\"",
        b"{\"agent:main:main\": {\"a\": 1}",
        b"{\"agent:main:main\": {\"a\": 1},}",
        b"{\"agent:main:main\": 7}",
        b"{\"agent:main:main\": {\"a\": \"\xff\"}}",
        b"\xef\xbb\xbf{}",
    ] {
        fs::write(&store, bad).expect("write");
        let e = patch_store_entry(&store, SESSION_KEY, |e| flush_patch(&store, e, NOW))
            .expect_err("corrupt");
        assert!(matches!(e, CommitError::Corrupt { .. }), "{bad:?}: {e}");
        assert_eq!(e.verdict(), clawtop::commit::Verdict::Failed);
        assert!(e.to_string().contains(&store.display().to_string()), "{e}");
        assert_failure_leaves_everything(&store, dir.path(), bad, &e);
    }
    // Missing store file.
    fs::remove_file(&store).expect("rm");
    let e = patch_store_entry(&store, SESSION_KEY, |e| flush_patch(&store, e, NOW))
        .expect_err("missing");
    assert!(
        matches!(e, CommitError::Io { .. }) && e.to_string().contains("sessions.json"),
        "{e}"
    );
    assert!(!store.exists());
    assert_clean(dir.path(), &store);
}

#[test]
fn busy_store_lock_is_refused() {
    let fx = Fixture::new();
    let store = fx.store();
    let before = fs::read(&store).expect("read");
    let holder = Sleeper::new();
    let payload = lock_payload(holder.pid(), &now_iso());
    fs::write(lock_of(&store), &payload).expect("lock");
    let opts = clawtop::commit::StorePatchOptions {
        lock: clawtop::commit::LockOptions {
            stale_after: std::time::Duration::from_secs(30),
            wait: std::time::Duration::from_millis(100),
        },
    };
    let e = clawtop::commit::patch_store_entry_with(&store, SESSION_KEY, &opts, |e| {
        flush_patch(&store, e, NOW)
    })
    .expect_err("busy");
    assert!(matches!(e, CommitError::Busy { .. }), "{e}");
    assert_eq!(fs::read(&store).expect("read"), before);
    assert_eq!(
        fs::read_to_string(lock_of(&store)).expect("lock kept"),
        payload
    );

    // The same lock, 31 s old (OpenClaw ≤ 2026.4 staleMs 30 s): reclaimed.
    fs::write(lock_of(&store), lock_payload(holder.pid(), &iso_ago(31))).expect("lock");
    patch_store_entry(&store, SESSION_KEY, |e| flush_patch(&store, e, NOW)).expect("reclaimed");
    assert_clean(fx.dir.path(), &store);
}

#[test]
fn a_racing_writer_that_ignores_the_lock_wins() {
    let fx = Fixture::new();
    let store = fx.store();
    let racer = "{\n  \"agent:main:main\": {\n    \"sessionId\": \"racer\"\n  }\n}";
    let e = patch_store_entry(&store, SESSION_KEY, |e| {
        // OpenClaw ≥ 2026.5 writes via temp + rename without the lock.
        let tmp = store.with_file_name("racer.tmp");
        fs::write(&tmp, racer).map_err(|err| CommitError::Refused {
            reason: err.to_string(),
        })?;
        fs::rename(&tmp, &store).map_err(|err| CommitError::Refused {
            reason: err.to_string(),
        })?;
        flush_patch(&store, e, NOW)
    })
    .expect_err("must not overwrite the racing write");
    assert!(matches!(e, CommitError::Changed { .. }), "{e}");
    assert_eq!(fs::read_to_string(&store).expect("read"), racer);
    assert_clean(fx.dir.path(), &store);
}

#[test]
fn compaction_count_edge_cases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("sessions.json");
    fs::write(&store, "{\n  \"k\": {\n    \"sessionId\": \"s\"\n  }\n}").expect("write");
    patch_store_entry(&store, "k", |e| flush_patch(&store, e, NOW))
        .expect("flush without compactionCount");
    let v: Value = serde_json::from_slice(&fs::read(&store).expect("read")).expect("json");
    assert_eq!(v["k"]["memoryFlushCompactionCount"], 0);
    patch_store_entry(&store, "k", |e| compaction_patch(&store, e, 5, NOW))
        .expect("first compaction");
    let v: Value = serde_json::from_slice(&fs::read(&store).expect("read")).expect("json");
    assert_eq!(v["k"]["compactionCount"], 1);

    fs::write(
        &store,
        "{\n  \"k\": {\n    \"compactionCount\": \"twelve\"\n  }\n}",
    )
    .expect("write");
    let e = patch_store_entry(&store, "k", |e| compaction_patch(&store, e, 5, NOW))
        .expect_err("bad count");
    assert!(matches!(e, CommitError::Corrupt { .. }), "{e}");
    assert_clean(dir.path(), &store);
}
