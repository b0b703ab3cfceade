//! Compaction summaries generated through the fake model server: what the request carries,
//! and that failures leave nothing behind.

use crate::support::fake_model::{FakeModel, Reply};
use clawtop::compaction::{
    self,
    model::{GenProgress, LlmSummarizer},
};
use clawtop::llm::{Api, CancellationToken, ClientOptions};
use clawtop::summary::{Budget, SummaryError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::fixtures::fixture;

fn copy(dir: &Path, src: &Path) -> PathBuf {
    let dst = dir.join(src.file_name().unwrap());
    std::fs::write(&dst, std::fs::read(src).unwrap()).unwrap();
    dst
}

fn quick() -> ClientOptions {
    ClientOptions {
        base_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        max_attempts: 3,
        ..ClientOptions::default()
    }
}

#[tokio::test]
async fn request_carries_instructions_conversation_and_previous_summary() {
    let dir = tempfile::tempdir().unwrap();
    // Two compactions: the plan has a previous summary to update.
    let f = copy(dir.path(), &fixture("transcripts/v3-two-compactions.jsonl"));
    let p = compaction::prepare(&f, 500).unwrap();
    let prev = p.plan.previous_summary.clone().expect("previous summary");
    let input = compaction::summary_input(
        &p.transcript,
        &p.plan,
        Some("Keep the open PR numbers".into()),
    );
    let fake = FakeModel::start().await;
    for _ in 0..4 {
        fake.push(Reply::text("## Goal\nShip it"));
    }
    let ep = fake.endpoint(Api::OpenAiCompletions);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let mut m = LlmSummarizer::new(
        &ep,
        quick(),
        CancellationToken::new(),
        Box::new(move |g| s2.lock().unwrap().push(g)),
    );
    let out = compaction::model::generate(
        &mut m,
        Budget {
            context_window: 200000,
            reserve_tokens: 20000,
            reasoning: false,
        },
        &input,
    )
    .await
    .unwrap();
    assert!(out.summary.starts_with("## Goal\nShip it"));
    let reqs = fake.requests();
    assert_eq!(reqs.len(), out.calls);
    let body = &reqs[0].body;
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        user.contains("Additional focus: Keep the open PR numbers"),
        "{user}"
    );
    assert!(user.contains(&format!("<previous-summary>\n{prev}\n</previous-summary>")));
    // The serialized conversation holds the text of the first message to summarize.
    let first = &input.messages_to_summarize[0];
    let first_text = clawtop::summary::serialize::serialize(std::slice::from_ref(first));
    assert!(
        !first_text.is_empty() && user.contains(&first_text),
        "conversation missing from the request"
    );
    assert_eq!(body["max_tokens"], 16000);
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|g| matches!(g, GenProgress::Call { .. }))
    );
}

#[tokio::test]
async fn model_failure_is_an_error_and_the_file_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy(dir.path(), &fixture("pi/large-session.jsonl"));
    let before = std::fs::read(&f).unwrap();
    let p = compaction::prepare(&f, 20000).unwrap();
    let input = compaction::summary_input(&p.transcript, &p.plan, None);
    let fake = FakeModel::start().await;
    for _ in 0..3 {
        fake.push(Reply::status(500, "boom"));
    }
    let ep = fake.endpoint(Api::AnthropicMessages);
    let mut m = LlmSummarizer::new(&ep, quick(), CancellationToken::new(), Box::new(|_| {}));
    let err = compaction::model::generate(
        &mut m,
        Budget {
            context_window: 200000,
            reserve_tokens: 20000,
            reasoning: false,
        },
        &input,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, SummaryError::Model { .. }), "{err}");
    assert!(err.to_string().contains("500"), "{err}");
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[tokio::test]
async fn cancel_stops_generation() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy(dir.path(), &fixture("transcripts/v3-branched.jsonl"));
    let p = compaction::prepare(&f, 2000).unwrap();
    let input = compaction::summary_input(&p.transcript, &p.plan, None);
    let fake = FakeModel::start().await;
    fake.push(Reply::text("slow").delay_first(Duration::from_secs(10)));
    let ep = fake.endpoint(Api::OpenAiCompletions);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let mut m = LlmSummarizer::new(
        &ep,
        quick(),
        cancel,
        Box::new(move |g| {
            if matches!(g, GenProgress::Call { .. }) {
                c2.cancel();
            }
        }),
    );
    let t0 = std::time::Instant::now();
    let err = compaction::model::generate(
        &mut m,
        Budget {
            context_window: 200000,
            reserve_tokens: 20000,
            reasoning: false,
        },
        &input,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, SummaryError::Cancelled));
    // The reply was 10 s away; the cancel did not wait for it.
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
}
