//! Draft + commit with the fake model server on a copy of host-a: what the model is sent,
//! that exactly the preview is appended, the NO_REPLY path, and that model failures
//! write nothing.

use std::fs;
use std::time::Duration;

use crate::support::fake_model::{FakeModel, Reply};
use crate::support::flush::*;
use clawtop::flush::{
    FlushDraft, FlushError, FlushGate, FlushReport, FlushSpec, commit_flush, context_messages,
    generate, resolve_prompts,
};
use clawtop::llm::{Api, CancellationToken, ClientOptions, LlmError, ModelEndpoint, Progress};
use clawtop::summary::serialize::serialize;
use clawtop::transcript::Transcript;
use serde_json::{Value, json};

fn fast() -> ClientOptions {
    ClientOptions {
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(5),
        max_attempts: 3,
        base_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(2),
        max_retry_after: Duration::from_millis(5),
        generation_deadline: Duration::from_secs(600),
    }
}

fn spec(h: &Host, config: &Value, instructions: Option<&str>) -> FlushSpec {
    FlushSpec {
        session_key: SESSION_KEY.into(),
        workspace: h.workspace(),
        date: DATE.into(),
        prompts: resolve_prompts(config, DATE),
        instructions: instructions.map(str::to_string),
        context_window: None,
    }
}

async fn draft_with(
    h: &Host,
    config: &Value,
    ep: &ModelEndpoint,
    instructions: Option<&str>,
) -> Result<FlushDraft, FlushError> {
    let t = Transcript::open(&h.transcript()).expect("transcript");
    let msgs = context_messages(&t);
    let mut events = Vec::new();
    let r = generate(
        &spec(h, config, instructions),
        &msgs,
        ep,
        &fast(),
        CancellationToken::new(),
        &mut |p| events.push(p),
    )
    .await;
    if r.is_ok() {
        assert!(
            events
                .iter()
                .any(|p| matches!(p, Progress::Started { attempt: 1 })),
            "{events:?}"
        );
    }
    r
}

const NOTES: &str = "## Deployment plan review\n- Reviewed steps 1-12; step 13 (rollback drill) still open.\n- Operator prefers staged rollouts.";

#[tokio::test]
async fn request_carries_prompts_date_instructions_and_context() {
    let h = Host::new();
    let cfg = h.config();
    for api in [Api::OpenAiCompletions, Api::AnthropicMessages] {
        let fake = FakeModel::start().await;
        fake.push(Reply::text(NOTES));
        let d = draft_with(
            &h,
            &cfg,
            &fake.endpoint(api),
            Some("Keep PR numbers and host names."),
        )
        .await
        .expect("draft");
        let reqs = fake.requests();
        assert_eq!(reqs.len(), 1);
        let body = &reqs[0].body;
        let (system, user) = match api {
            Api::OpenAiCompletions => {
                assert_eq!(body["messages"][0]["role"], "system");
                assert_eq!(body["messages"][1]["role"], "user");
                (
                    body["messages"][0]["content"].clone(),
                    body["messages"][1]["content"].clone(),
                )
            }
            Api::AnthropicMessages => (
                body["system"].clone(),
                body["messages"][0]["content"].clone(),
            ),
        };
        let system = system
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| system[0]["text"].as_str().expect("system").to_string());
        let user = user
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| user[0]["text"].as_str().expect("user").to_string());

        // System: the 2026.2.26 default, verbatim, then clawtop's note with the date.
        assert!(
            system.starts_with(clawtop::flush::DEFAULT_SYSTEM_PROMPT_2026_2_26),
            "{system}"
        );
        assert!(system.contains("memory/2026-11-21.md"), "{system}");
        assert_eq!(system, d.request.system);
        // User: conversation, then the prompt with today's date, then the instructions.
        let prompt = clawtop::flush::DEFAULT_PROMPT_2026_2_26.replace("YYYY-MM-DD", DATE);
        assert!(prompt.contains("memory/2026-11-21.md"));
        assert!(!user.contains("YYYY-MM-DD"));
        let t = Transcript::open(&h.transcript()).expect("transcript");
        let conversation = serialize(&context_messages(&t));
        assert!(
            conversation
                .starts_with("[User]: The conversation history before this point was compacted"),
            "{}",
            &conversation[..200]
        );
        assert_eq!(
            user,
            format!(
                "<conversation>\n{conversation}\n</conversation>\n\n{prompt}\n\nAdditional instructions from the operator: Keep PR numbers and host names."
            )
        );
        assert_eq!(user, d.request.user);
        assert_eq!(d.request.omitted_messages(), 0);
        // The draft is what the model said.
        assert_eq!(d.notes, NOTES);
        assert!(!d.no_reply);
        assert_eq!(d.target, h.target());
        assert_eq!(d.existing, "");
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        assert_eq!(d.provider, "fake");
    }
}

#[tokio::test]
async fn config_prompts_replace_the_defaults_in_the_request() {
    let h = Host::new();
    let mut cfg = h.config();
    cfg["agents"]["defaults"]["compaction"]["memoryFlush"] = json!({"prompt": "Custom flush for YYYY-MM-DD.", "systemPrompt": "Custom system YYYY-MM-DD. NO_REPLY when idle."});
    let fake = FakeModel::start().await;
    fake.push(Reply::text("NO_REPLY"));
    let d = draft_with(&h, &cfg, &fake.endpoint(Api::OpenAiCompletions), None)
        .await
        .expect("draft");
    let body = &fake.requests()[0].body;
    let system = body["messages"][0]["content"].as_str().expect("system");
    let user = body["messages"][1]["content"].as_str().expect("user");
    assert!(
        system.starts_with("Custom system 2026-11-21. NO_REPLY when idle.\n\n"),
        "{system}"
    );
    assert!(!system.contains(clawtop::flush::DEFAULT_SYSTEM_PROMPT_2026_2_26));
    assert!(
        user.ends_with(&format!(
            "</conversation>\n\nCustom flush for 2026-11-21.\n\n{}",
            clawtop::flush::prompts::NO_REPLY_HINT
        )),
        "{user}"
    );
    assert!(!user.contains("Additional instructions"));
    assert_eq!(
        d.prompts.prompt_source,
        clawtop::flush::PromptSource::Config
    );
}

#[tokio::test]
async fn commit_appends_exactly_the_preview() {
    let h = Host::new();
    fs::create_dir(h.memory()).expect("mkdir");
    let existing = b"# 2026-11-21\n\n- morning: disk alert on host-a\n".to_vec();
    fs::write(h.target(), &existing).expect("write");
    let store_before = h.store_bytes();

    let fake = FakeModel::start().await;
    fake.push(Reply::text(&format!("\n{NOTES}\n\n")));
    let d = draft_with(
        &h,
        &h.config(),
        &fake.endpoint(Api::OpenAiCompletions),
        None,
    )
    .await
    .expect("draft");
    assert_eq!(d.existing.as_bytes(), &existing[..]);
    // Drafting writes nothing.
    assert_eq!(fs::read(h.target()).expect("read"), existing);
    assert_eq!(h.store_bytes(), store_before);

    // The operator edits the preview; the edited text is what lands.
    let preview = format!("{}\n- Added by the operator.", d.notes);
    let report = FlushReport::preview(&d, &preview, false);
    assert!(!report.committed && report.memory_flush_at.is_none());
    let c =
        commit_flush(&h.workspace(), &d.date, &preview, false, Some(&h.session())).expect("commit");
    let after = fs::read(h.target()).expect("read");
    assert_eq!(
        &after[..existing.len()],
        &existing[..],
        "existing content intact byte for byte"
    );
    let offset = c.notes_offset.expect("offset") as usize;
    assert_eq!(
        &after[existing.len()..offset],
        b"\n",
        "one blank line between old and new"
    );
    assert_eq!(
        &after[offset..],
        format!("{preview}\n").as_bytes(),
        "appended bytes are exactly the preview"
    );
    assert_eq!(c.appended_bytes as usize, after.len() - existing.len());

    let report = FlushReport::committed(&d, &preview, false, &c);
    let j = serde_json::to_value(&report).expect("json");
    for k in [
        "sessionKey",
        "target",
        "notes",
        "noReply",
        "committed",
        "memoryFlushAt",
        "memoryFlushCompactionCount",
    ] {
        assert!(j.get(k).is_some(), "{k} missing in {j}");
    }
    assert_eq!(j["committed"], true);
    assert_eq!(j["memoryFlushCompactionCount"], 12);
    assert_eq!(j["notes"], preview);

    let entry = h.entry();
    assert_eq!(
        entry["memoryFlushAt"],
        Value::from(c.memory_flush_at.expect("at"))
    );
    let g = FlushGate::new(
        &h.config(),
        &Value::Object(entry),
        Some(24_000),
        Some(75_943),
        "fresh",
    );
    assert!(g.flushed_this_cycle && !g.due);
}

#[tokio::test]
async fn no_reply_records_the_flush_and_writes_no_notes() {
    let h = Host::new();
    let fake = FakeModel::start().await;
    fake.push(Reply::text(" no_reply. "));
    let d = draft_with(
        &h,
        &h.config(),
        &fake.endpoint(Api::AnthropicMessages),
        None,
    )
    .await
    .expect("draft");
    assert!(d.no_reply);
    assert_eq!(d.notes, "");
    let ws = snapshot(&h.workspace());
    let c = commit_flush(
        &h.workspace(),
        &d.date,
        &d.notes,
        d.no_reply,
        Some(&h.session()),
    )
    .expect("commit");
    assert_eq!(snapshot(&h.workspace()), ws);
    assert!(!h.memory().exists());
    assert_eq!(c.memory_flush_compaction_count, Some(12));
    assert_eq!(h.entry()["memoryFlushCompactionCount"], Value::from(12));
    let j = serde_json::to_value(FlushReport::committed(&d, "", true, &c)).expect("json");
    assert_eq!(j["noReply"], true);
}

#[tokio::test]
async fn model_failures_write_nothing() {
    let h = Host::new();
    fs::create_dir(h.memory()).expect("mkdir");
    fs::write(h.target(), "kept").expect("write");
    let store = h.store_bytes();
    let memory = snapshot(&h.memory());
    let sessions = snapshot(&h.sessions_dir());

    // 500 on every attempt.
    let fake = FakeModel::start().await;
    for _ in 0..3 {
        fake.push(Reply::status(500, "boom"));
    }
    let e = draft_with(
        &h,
        &h.config(),
        &fake.endpoint(Api::OpenAiCompletions),
        None,
    )
    .await
    .expect_err("500s");
    assert!(
        matches!(e, FlushError::Model(LlmError::Status { status: 500, .. })),
        "{e}"
    );
    assert_eq!(fake.requests().len(), 3);
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Failed);

    // A stream cut off mid-answer.
    let fake = FakeModel::start().await;
    fake.push(Reply::cut_off(NOTES));
    let e = draft_with(
        &h,
        &h.config(),
        &fake.endpoint(Api::AnthropicMessages),
        None,
    )
    .await
    .expect_err("cut off");
    assert!(
        matches!(e, FlushError::Model(LlmError::Incomplete { .. })),
        "{e}"
    );

    // Cancelled before the model answered.
    let fake = FakeModel::start().await;
    fake.push(Reply::text(NOTES));
    let t = Transcript::open(&h.transcript()).expect("transcript");
    let cancel = CancellationToken::new();
    cancel.cancel();
    let e = generate(
        &spec(&h, &h.config(), None),
        &context_messages(&t),
        &fake.endpoint(Api::OpenAiCompletions),
        &fast(),
        cancel,
        &mut |_| {},
    )
    .await
    .expect_err("cancelled");
    assert!(matches!(e, FlushError::Model(LlmError::Cancelled)), "{e}");

    assert_eq!(h.store_bytes(), store);
    assert_eq!(snapshot(&h.memory()), memory);
    assert_eq!(snapshot(&h.sessions_dir()), sessions);
}

#[tokio::test]
async fn output_limit_and_small_windows_are_reported() {
    let h = Host::new();
    let fake = FakeModel::start().await;
    fake.push(Reply::text(NOTES).stop("length"));
    let mut ep = fake.endpoint(Api::OpenAiCompletions);
    ep.context_window = Some(12_000);
    let d = draft_with(&h, &h.config(), &ep, None).await.expect("draft");
    assert!(
        d.warnings.iter().any(|w| w.contains("output limit")),
        "{:?}",
        d.warnings
    );
    assert!(d.request.omitted_messages() > 0);
    assert!(
        d.warnings.iter().any(|w| w.contains("most recent")),
        "{:?}",
        d.warnings
    );
    let user = fake.requests()[0].body["messages"][1]["content"]
        .as_str()
        .expect("user")
        .to_string();
    assert!(
        user.starts_with("Note: the conversation below is cut to its most recent"),
        "{}",
        &user[..200]
    );
    assert_eq!(fake.requests()[0].body["max_tokens"], 4096);
}
