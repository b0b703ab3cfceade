//! Issue 8 items 2, 3, 5 and 6 through the binary: the "now" figures reconciled
//! (`transcriptContext`, `usedCheck`), the overhead and whether compaction can help
//! (`overheadTokens`, `expectedTokensAfter`, `compactionCanHelp`, `suggestedKeepRecentTokens`,
//! `advice`), the context breakdown, and busy sessions — on host-a and on edge-case hosts
//! built from it (store figure edited, stale store, a systemPromptReport, a huge AGENTS.md,
//! a window too small for any compaction, a live transcript lock).

use crate::support::cli::{self, Home};
use crate::support::commit::{Sleeper, lock_payload, now_iso};
use crate::support::fake_model::{FakeModel, Reply};
use serde_json::{Value, json};

const KEY: &str = "agent:main:main";

fn show(h: &Home) -> Value {
    let o = h.run(&["show", KEY, "--json"]);
    o.expect(0);
    o.json()
}

fn dry_run(h: &Home, keep: Option<u64>) -> Value {
    let k = keep.map(|k| k.to_string());
    let mut args = vec!["compact", KEY, "--dry-run", "--json"];
    if let Some(k) = &k {
        args.extend(["--keep-recent-tokens", k.as_str()]);
    }
    let o = h.run(&args);
    o.expect(0);
    o.json()
}

fn edit_store(h: &Home, f: impl FnOnce(&mut serde_json::Map<String, Value>)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
    f(v[KEY].as_object_mut().unwrap());
    std::fs::write(h.store(), serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn host_a_figures_are_reconciled_and_explained() {
    let h = Home::host_a();
    let v = show(&h);
    // The store keeps OpenClaw's figure; the transcript says what the last call carried.
    // used is what the last call carried; the store's run-sum stays beside it.
    assert_eq!(v["used"], 40378);
    assert_eq!(v["totalTokens"], 75943);
    assert_eq!(
        v["transcriptContext"],
        json!({"tokens": 40378, "basis": "usage", "usageTokens": 40378, "trailingTokens": 0, "entryId": "0d090fcc"})
    );
    assert_eq!(v["usedCheck"], "run-sum");
    let reason = v["usedCheckReason"].as_str().unwrap();
    // 37,937 + 38,006 = 75,943: the two calls of the last run, named.
    for part in ["75,943", "37,937 (e8b04775)", "38,006 (0d090fcc)"] {
        assert!(reason.contains(part), "{part} missing in {reason}");
    }
    // Overhead = the last call's prompt minus pi's estimate of the messages it was sent.
    let o = &v["overhead"];
    assert_eq!(o["promptTokens"], 38006);
    let overhead = v["overheadTokens"].as_u64().unwrap();
    assert_eq!(overhead, 38006 - o["messagesTokens"].as_u64().unwrap());
    assert_eq!(o["filesFrom"], "workspace files on disk");
    let names: Vec<&str> = o["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "AGENTS.md",
            "SOUL.md",
            "TOOLS.md",
            "IDENTITY.md",
            "USER.md",
            "HEARTBEAT.md",
            "BOOTSTRAP.md",
            "system prompt and tools"
        ],
        "NOTES.md is not a bootstrap file"
    );
    let parts_sum: u64 = o["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(parts_sum, overhead);
    // Issue 30 item 6: the context breakdown sums to the figure it breaks down, the used
    // figure (here the transcript's), its per-message rounding named as a part of its own.
    let b = &v["contextBreakdown"];
    let sum: u64 = b["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(b["totalTokens"], json!(sum));
    assert_eq!(b["totalTokens"], v["used"]);
    assert!(
        b["parts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "per-message rounding"),
        "{b}"
    );
    let agents = std::fs::read_to_string(h.state().join("workspace/AGENTS.md")).unwrap();
    assert_eq!(o["parts"][0]["chars"], json!(agents.encode_utf16().count()));
    // keepRecentTokens 20,000: OpenClaw 2026.9's plan (SPEC §6.1) keeps the newest 20,000
    // wherever they came from, from f9eefcdc (among the messages host-a's compaction kept),
    // and summarizes 5 messages and a split turn's prefix of 1. Keeping that much leaves the
    // context above the compaction line, so a smaller keepRecentTokens is advised.
    assert_eq!(v["compactionAtKeep"]["firstKept"], "f9eefcdc");
    assert_eq!(v["compactionAtKeep"]["messagesToSummarize"], 5);
    assert_eq!(v["compactionAtKeep"]["turnPrefixMessages"], 1);
    assert_eq!(v["compactionCanHelp"], false);
    let kept = v["compactionAtKeep"]["keptTokens"].as_u64().unwrap();
    let allowance = v["summaryAllowance"]["tokens"].as_u64().unwrap();
    assert_eq!(v["expectedTokensAfter"], json!(overhead + kept + allowance));
    let advice = v["advice"].as_array().unwrap();
    assert!(
        advice[0]
            .as_str()
            .unwrap()
            .contains("not under the compaction line"),
        "{advice:?}"
    );
    let suggested = v["suggestedKeepRecentTokens"].as_u64().unwrap();
    assert!(
        advice
            .iter()
            .any(|a| a.as_str().unwrap().contains("AGENTS.md 1,952")),
        "the costliest workspace file is named with its cost: {advice:?}"
    );
    // Largest: at the suggested value compaction helps, one token more it does not.
    let at = dry_run(&h, Some(suggested));
    assert_eq!(at["compactionCanHelp"], true, "{at}");
    assert!(
        at["messagesToSummarize"].as_u64().unwrap() + at["turnPrefixMessages"].as_u64().unwrap()
            > 0
    );
    assert!(
        at["expectedTokensAfter"].as_u64().unwrap()
            < at["contextBreakdown"]["compactAt"].as_u64().unwrap()
    );
    // One token more and the context no longer lands under the line.
    let above = dry_run(&h, Some(suggested + 1));
    assert_eq!(above["compactionCanHelp"], false, "{above}");
}

#[test]
fn show_and_dry_run_text_carry_the_figures() {
    let h = Home::host_a();
    let o = h.run(&["show", KEY]);
    o.expect(0);
    let t = o.text();
    for want in [
        "transcript context          40,378",
        "used check                  run-sum:",
        "overhead",
        "expected after",
        "verdict",
        "advice",
        "system prompt and tools",
        "to compaction line 28,000",
    ] {
        assert!(t.contains(want), "{want:?} missing in:\n{t}");
    }
    let o = h.run(&["compact", KEY, "--dry-run"]);
    o.expect(0);
    let t = o.text();
    assert!(t.contains("used check:") && t.contains("run-sum"), "{t}");
    // At 20,000 the plan keeps 21,529 tokens verbatim (SPEC §6.1): not under the line, and
    // the largest keepRecentTokens that is comes with the advice.
    assert!(
        t.contains("verdict:")
            && t.contains("not under the compaction line 28,000")
            && t.contains("keepRecentTokens 11,959 or less"),
        "{t}"
    );
}

#[test]
fn used_check_equal_differs_and_unknown() {
    let h = Home::host_a();
    edit_store(&h, |e| {
        e.insert("totalTokens".into(), json!(40378));
    });
    let v = show(&h);
    assert_eq!(v["usedCheck"], "equal", "{}", v["usedCheckReason"]);

    edit_store(&h, |e| {
        e.insert("totalTokens".into(), json!(50000));
    });
    let v = show(&h);
    assert_eq!(v["usedCheck"], "differs");
    assert!(v["usedCheckReason"].as_str().unwrap().contains("50,000"));

    edit_store(&h, |e| {
        e.remove("totalTokens");
    });
    let v = show(&h);
    assert_eq!(v["usedCheck"], "unknown");
    assert!(!v["usedCheckReason"].as_str().unwrap().is_empty());
}

#[test]
fn store_written_before_the_last_compaction_is_stale() {
    // The transcript ends with the compaction (lines after it dropped) and the store was
    // written 1.6 s before it: OVER, and "already compacted".
    let h = Home::host_a();
    let text = std::fs::read_to_string(h.transcript()).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| !l.contains("\"type\":\"compaction\""))
        .collect();
    let compaction = text
        .lines()
        .find(|l| l.contains("\"type\":\"compaction\""))
        .unwrap();
    std::fs::write(
        h.transcript(),
        format!("{}\n{compaction}\n", kept.join("\n")),
    )
    .unwrap();
    let c: Value = serde_json::from_str(compaction).unwrap();
    let at = chrono::DateTime::parse_from_rfc3339(c["timestamp"].as_str().unwrap())
        .unwrap()
        .timestamp_millis();
    edit_store(&h, |e| {
        e.insert("updatedAt".into(), json!(at - 1600));
    });
    let v = show(&h);
    // used is the estimate after the compaction (overhead + summary + kept), not the store's
    // pre-compaction figure: no longer "over".
    assert_ne!(v["status"], "over");
    assert_eq!(v["usedSource"], "estimated");
    assert_eq!(v["transcriptContext"]["basis"], "after-compaction");
    let tc = &v["transcriptContext"];
    assert_eq!(v["used"], tc["tokens"]);
    assert_eq!(
        tc["tokens"].as_u64().unwrap(),
        tc["overheadTokens"].as_u64().unwrap() + tc["trailingTokens"].as_u64().unwrap()
    );
    assert!(v["used"].as_u64().unwrap() < 48000, "{}", v["used"]);
    assert_eq!(
        v["totalTokens"], 75943,
        "the store's figure stays beside it"
    );
    assert_eq!(v["usedCheck"], "stale");
    let r = v["usedCheckReason"].as_str().unwrap();
    assert!(r.contains("1.6 s before the last compaction"), "{r}");
    assert!(r.contains("27ed3704"), "{r}");
    // No plan, but the dry run still says what is going on.
    let o = h.run(&["compact", KEY, "--dry-run"]);
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("already compacted"), "{}", o.stderr);
    assert!(o.stderr.contains("used check:"), "{}", o.stderr);
}

#[test]
fn system_prompt_report_names_the_injected_files() {
    let h = Home::host_a();
    edit_store(&h, |e| {
        e.insert(
            "systemPromptReport".into(),
            json!({"source": "run", "bootstrapMaxChars": 20000,
                "systemPrompt": {"chars": 34213},
                "injectedWorkspaceFiles": [
                    {"name": "AGENTS.md", "missing": false, "rawChars": 30000, "injectedChars": 20000, "truncated": true},
                    {"name": "SOUL.md", "missing": false, "rawChars": 400, "injectedChars": 400, "truncated": false},
                    {"name": "TOOLS.md", "missing": true}
                ],
                "tools": {"schemaChars": 6113}}),
        );
    });
    let v = show(&h);
    let o = &v["overhead"];
    assert_eq!(o["filesFrom"], "systemPromptReport");
    assert_eq!(
        o["parts"][0],
        json!({"name": "AGENTS.md", "tokens": 5000, "chars": 20000, "truncated": true})
    );
    assert_eq!(o["parts"][1]["name"], "SOUL.md");
    assert_eq!(o["parts"][1]["tokens"], 100);
    assert_eq!(o["parts"][2]["name"], "system prompt and tools");
    assert_eq!(
        o["parts"].as_array().unwrap().len(),
        3,
        "missing files cost nothing"
    );
}

#[test]
fn bootstrap_files_are_cut_at_bootstrap_max_chars() {
    let h = Home::host_a();
    std::fs::write(h.state().join("workspace/AGENTS.md"), "a".repeat(30000)).unwrap();
    let v = show(&h);
    let a = &v["overhead"]["parts"][0];
    assert_eq!(a["name"], "AGENTS.md");
    assert_eq!(a["chars"], 20000, "default bootstrapMaxChars 20000");
    assert_eq!(a["tokens"], 5000);
    assert_eq!(a["truncated"], true);
    // A config value wins.
    let cfg = h.state().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "workspace: \"~/.openclaw/workspace\",",
        "workspace: \"~/.openclaw/workspace\", bootstrapMaxChars: 5000,",
    );
    std::fs::write(&cfg, text).unwrap();
    let v = show(&h);
    assert_eq!(v["overhead"]["parts"][0]["chars"], 5000);
}

#[test]
fn a_window_too_small_for_the_overhead_has_no_suggestion() {
    // Window 30,000: the compaction line (10,000) is below the overhead alone (~14k).
    let h = Home::host_a();
    edit_store(&h, |e| {
        e.insert("contextTokens".into(), json!(30000));
    });
    let v = show(&h);
    assert_eq!(v["compactAt"], 10000);
    assert!(v["overheadTokens"].as_u64().unwrap() > 10000);
    assert_eq!(v["compactionCanHelp"], false);
    assert_eq!(v["suggestedKeepRecentTokens"], Value::Null);
    let advice: Vec<&str> = v["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        advice.iter().any(|a| a.contains("the overhead alone")),
        "{advice:?}"
    );
    let window = advice
        .iter()
        .find(|a| a.starts_with("A window of at least"))
        .unwrap();
    // expected after (at keep 20,000) + reserve 20,000, rounded up to 1,000.
    let e = v["expectedTokensAfter"].as_u64().unwrap();
    let w = (e + 20000 + 1).div_ceil(1000) * 1000;
    assert!(
        window.contains(&clawtop::tui::view::thousands(w)),
        "{window} vs {w}"
    );
}

#[test]
fn context_breakdown_adds_up_against_the_lines() {
    let h = Home::host_a();
    let v = show(&h);
    let b = &v["contextBreakdown"];
    let parts = b["parts"].as_array().unwrap();
    let total: u64 = parts.iter().map(|p| p["tokens"].as_u64().unwrap()).sum();
    assert_eq!(b["totalTokens"], total);
    assert_eq!(b["window"], 48000);
    assert_eq!(b["compactAt"], 28000);
    assert_eq!(b["flushAt"], 24000);
    // The room to each line is measured from `used`, the one context figure (here the
    // transcript's, which the parts sum to).
    let used = v["used"].as_i64().unwrap();
    assert_eq!(b["used"], v["used"]);
    assert_eq!(b["totalTokens"], v["transcriptContext"]["tokens"]);
    assert_eq!(b["freeToCompaction"], json!(28000 - used));
    assert_eq!(b["freeToFlush"], json!(24000 - used));
    let names: Vec<(&str, &str)> = parts
        .iter()
        .map(|p| (p["group"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    for want in [
        ("overhead", "AGENTS.md"),
        ("overhead", "system prompt and tools"),
        ("summary", "compaction summary"),
        ("messages", "user"),
        ("messages", "assistant text"),
        ("messages", "thinking"),
        ("messages", "tool calls"),
        ("messages", "tool results"),
    ] {
        assert!(names.contains(&want), "{want:?} missing: {names:?}");
    }
    // The parts are within a few tokens of the measured context (rounding per kind).
    let tc = v["transcriptContext"]["tokens"].as_u64().unwrap();
    assert!(
        total.abs_diff(tc) < 50,
        "breakdown {total} vs transcript {tc}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn busy_session_shows_and_is_refused_before_any_model_request() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    for _ in 0..4 {
        fake.push(Reply::text("## Goal\nx"));
    }
    let l = cli::run_async(&h, &["list", "--json"]).await;
    assert_eq!(l.json()["sessions"][0]["busy"], Value::Null);

    let turn = Sleeper::new();
    let created = now_iso();
    let lock = h
        .sessions_dir()
        .join("eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl.lock");
    std::fs::write(&lock, lock_payload(turn.pid(), &created)).unwrap();
    let before = std::fs::read(h.transcript()).unwrap();

    let l = cli::run_async(&h, &["list", "--json"]).await;
    let busy = &l.json()["sessions"][0]["busy"];
    assert_eq!(busy["pid"], turn.pid());
    assert_eq!(busy["createdAt"], created);
    let s = cli::run_async(&h, &["show", KEY, "--json"]).await;
    assert_eq!(s.json()["busy"]["pid"], turn.pid());

    let c = cli::run_async(
        &h,
        &[
            "compact",
            KEY,
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--yes",
        ],
    )
    .await;
    c.expect(3);
    assert!(c.stderr.contains("busy"), "{}", c.stderr);
    assert!(c.stderr.contains(&turn.pid().to_string()));
    let f = cli::run_async(&h, &["flush", KEY, "--yes"]).await;
    f.expect(3);
    assert!(f.stderr.contains("busy"), "{}", f.stderr);
    assert_eq!(
        fake.requests().len(),
        0,
        "no model request while a turn runs"
    );
    assert_eq!(std::fs::read(h.transcript()).unwrap(), before);

    // A lock whose holder is gone is not a busy session.
    drop(turn);
    let l = cli::run_async(&h, &["list", "--json"]).await;
    assert_eq!(l.json()["sessions"][0]["busy"], Value::Null);
}

/// Issue 8 item 4: when openclaw.json and the agent's models.json disagree on the endpoint,
/// the operator is told which one is used and why before the request is sent.
#[tokio::test(flavor = "multi_thread")]
async fn disagreeing_endpoints_are_named_before_the_request() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    // The config names another (unused) loopback port; models.json keeps the fake.
    let cfg = h.state().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace(&format!("{}/v1", fake.base_url()), "http://127.0.0.1:9/v1");
    std::fs::write(&cfg, text).unwrap();
    // Two history chunks and their merge (the 25 messages host-a's compaction kept are
    // summarized too, SPEC §6.1), then the split turn's prefix.
    for text in ["## Goal\nx", "## Goal\nx2", "## Goal\nmerged", "## Goal\ny"] {
        fake.push(Reply::text(text));
    }
    let o = cli::run_async(
        &h,
        &[
            "compact",
            KEY,
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    assert!(
        o.stderr
            .contains("is used (the agent's models.json wins over openclaw.json")
            && o.stderr.contains("http://127.0.0.1:9/v1"),
        "{}",
        o.stderr
    );
    assert!(
        !fake.requests().is_empty(),
        "the request went to models.json's endpoint"
    );
}
