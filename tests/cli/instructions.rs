//! Issue 8 item 1: every summarization request of a compaction carries the operator's
//! instructions — history, each stage of a staged summary, the merge, the turn prefix and the
//! update of a previous summary — and `--json` says how many requests were made and that each
//! carried them. Edge-case hosts are built from host-a by rewriting its transcript.

use crate::support::cli::{self, HEADER, Home};
use crate::support::fake_model::{FakeModel, Reply};
use serde_json::{Value, json};

const FOCUS: &str = "Keep ticket OPS-7781 and the rollback owner";

fn line(v: Value) -> String {
    v.to_string()
}

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    cli::user(id, parent, text)
}

fn assistant_text(id: &str, parent: &str, text: &str, input: u64) -> String {
    cli::assistant(id, parent, text, input)
}

fn tool_call(id: &str, parent: &str, call: &str, input: u64) -> String {
    line(
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:02.000Z",
        "message": {"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "bash",
            "arguments": {"command": "ls"}}], "provider": "fake", "model": "fake-model",
            "usage": {"input": input, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 5},
            "stopReason": "toolUse", "timestamp": 2}}),
    )
}

fn tool_result(id: &str, parent: &str, call: &str, chars: usize) -> String {
    line(
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:03.000Z",
        "message": {"role": "toolResult", "toolCallId": call, "toolName": "bash",
            "content": [{"type": "text", "text": "r".repeat(chars)}], "isError": false, "timestamp": 3}}),
    )
}

fn write_transcript(h: &Home, lines: &[String]) {
    let mut s = String::from(HEADER);
    s.push('\n');
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    std::fs::write(h.transcript(), s).unwrap();
}

/// The user text of each recorded request (OpenAI dialect: the last user message).
fn user_texts(fake: &FakeModel) -> Vec<String> {
    fake.requests()
        .iter()
        .map(|r| {
            r.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .rfind(|m| m["role"] == "user")
                .unwrap()["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// One long turn: a user message, then tool calls and big results. With a small
/// keepRecentTokens the cut falls inside the turn and nothing precedes it: the plan is only a
/// split turn (0 messages to summarize + a turn prefix).
fn split_turn_only_host() -> Home {
    let h = Home::host_a();
    let mut l = vec![user("u1", None, "Audit the rollout scripts")];
    let mut parent = "u1".to_string();
    for i in 0..4 {
        let a = format!("a{i}");
        let r = format!("r{i}");
        l.push(tool_call(&a, &parent, &format!("c{i}"), 14000 + i * 3000));
        l.push(tool_result(&r, &a, &format!("c{i}"), 12000));
        parent = r;
    }
    l.push(assistant_text("fin", &parent, "Audit done.", 27000));
    write_transcript(&h, &l);
    h
}

#[tokio::test(flavor = "multi_thread")]
async fn split_turn_only_plan_sends_the_instructions_in_its_one_request() {
    let h = split_turn_only_host();
    let dry = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--dry-run",
            "--json",
            "--keep-recent-tokens",
            "2000",
        ],
    )
    .await;
    dry.expect(0);
    let plan = dry.json();
    assert_eq!(plan["messagesToSummarize"], 0, "{plan}");
    assert!(plan["turnPrefixMessages"].as_u64().unwrap() > 0, "{plan}");
    assert_eq!(plan["isSplitTurn"], true);

    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    fake.push(Reply::text(
        "## Original Request\nAudit the rollout scripts",
    ));
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--instructions",
            FOCUS,
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let v = o.json();
    let texts = user_texts(&fake);
    assert_eq!(texts.len(), 1, "one request: the turn prefix");
    assert!(
        texts[0].contains(&format!("Additional focus: {FOCUS}")),
        "the turn-prefix request must carry the instructions: {}",
        texts[0]
    );
    assert_eq!(v["requests"], 1);
    assert_eq!(v["requestsWithInstructions"], 1);
    assert_eq!(v["requestDetails"][0]["label"], "turn prefix");
    assert_eq!(v["requestDetails"][0]["carriedInstructions"], true);
    let summary = v["summary"].as_str().unwrap();
    assert!(
        !summary.contains("No prior history"),
        "no placeholder in front of the only summary: {summary}"
    );
    assert!(summary.contains("Audit the rollout scripts"));
}

#[tokio::test(flavor = "multi_thread")]
async fn staged_history_merge_turn_prefix_and_update_all_carry_the_instructions() {
    // A previous compaction (so the merge updates a previous summary), then history far larger
    // than one request may carry on host-a's 48k window (max chunk 15,104 tokens), then one
    // long turn cut in the middle.
    let h = Home::host_a();
    let mut l = vec![user("u0", None, "Start")];
    l.push(assistant_text("a0", "u0", "ok", 100));
    l.push(line(json!({"type": "compaction", "id": "c0", "parentId": "a0",
        "timestamp": "2026-01-01T00:00:05.000Z", "summary": "## Goal\nEarlier work",
        "firstKeptEntryId": "a0", "tokensBefore": 500, "details": {"readFiles": [], "modifiedFiles": []}})));
    let mut parent = "c0".to_string();
    for i in 0..8 {
        let u = format!("hu{i}");
        let a = format!("ha{i}");
        l.push(user(
            &u,
            Some(&parent),
            &format!("question {i}: {}", "q".repeat(10000)),
        ));
        l.push(assistant_text(&a, &u, &"a".repeat(10000), 1000 + i * 5000));
        parent = a;
    }
    l.push(user("tu", Some(&parent), "Now audit the scripts"));
    parent = "tu".into();
    for i in 0..3 {
        let a = format!("ta{i}");
        let r = format!("tr{i}");
        l.push(tool_call(&a, &parent, &format!("k{i}"), 30000));
        l.push(tool_result(&r, &a, &format!("k{i}"), 12000));
        parent = r;
    }
    l.push(assistant_text("tfin", &parent, "done", 40000));
    write_transcript(&h, &l);

    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    for i in 0..12 {
        fake.push(Reply::text(&format!("## Goal\npart {i}")));
    }
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--instructions",
            FOCUS,
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let v = o.json();
    let labels: Vec<String> = v["requestDetails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap().to_string())
        .collect();
    assert!(labels.iter().any(|l| l.contains("part 1")), "{labels:?}");
    assert!(labels.iter().any(|l| l.contains("merge")), "{labels:?}");
    assert!(labels.iter().any(|l| l == "turn prefix"), "{labels:?}");
    let texts = user_texts(&fake);
    assert_eq!(texts.len(), labels.len());
    for (t, label) in texts.iter().zip(&labels) {
        assert!(
            t.contains(FOCUS),
            "request {label:?} lacks the instructions"
        );
    }
    // The merge folds the parts into the previous summary.
    let merge = labels.iter().position(|l| l.contains("merge")).unwrap();
    assert!(texts[merge].contains("<previous-summary>\n## Goal\nEarlier work"));
    assert_eq!(v["requests"], json!(texts.len()));
    assert_eq!(v["requestsWithInstructions"], json!(texts.len()));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_instructions_no_request_claims_to_carry_them() {
    let h = split_turn_only_host();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    fake.push(Reply::text("## Original Request\nAudit"));
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["requests"], 1);
    assert_eq!(v["requestsWithInstructions"], 0);
    assert!(!user_texts(&fake)[0].contains("Additional focus"));
}
