//! Issue 12 item 5: a stream that sends only `: keepalive` comments ends at the idle limit
//! (comments are not progress), a stream that keeps making progress ends at the overall
//! generation deadline, and each error says which limit was hit. Against the fake model
//! server on 127.0.0.1.

use crate::support::cli as cli_support;

use std::time::{Duration, Instant};

use crate::support::fake_model::{FakeModel, Reply};
use clawtop::llm::{Api, CancellationToken, ChatRequest, ClientOptions, LlmError, complete};

fn req() -> ChatRequest {
    ChatRequest {
        system: "s".into(),
        user: "u".into(),
        max_tokens: 100,
        reasoning: false,
    }
}

fn delta(api: Api) -> &'static str {
    match api {
        Api::AnthropicMessages => {
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"more \"}}\n\n"
        }
        Api::OpenAiCompletions => {
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"more \"},\"finish_reason\":null}]}\n\n"
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn keepalive_comments_do_not_reset_the_idle_limit() {
    for api in [Api::AnthropicMessages, Api::OpenAiCompletions] {
        let fake = FakeModel::start().await;
        // 20 s of comments, one every 100 ms, and nothing else.
        let frames = vec![": keepalive\n\n"; 200];
        let ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n";
        let mut mixed = frames.clone();
        if api == Api::AnthropicMessages {
            mixed = frames
                .iter()
                .enumerate()
                .map(|(i, f)| if i % 2 == 0 { *f } else { ping })
                .collect();
        }
        fake.push(Reply::frames(&mixed).delay_chunks(Duration::from_millis(100)));
        let o = ClientOptions {
            idle_timeout: Duration::from_millis(800),
            max_attempts: 1,
            ..ClientOptions::default()
        };
        let t = Instant::now();
        let e = complete(
            &fake.endpoint(api),
            &req(),
            &o,
            CancellationToken::new(),
            &mut |_| {},
        )
        .await
        .unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(8),
            "{api}: took {:?}",
            t.elapsed()
        );
        assert!(matches!(e, LlmError::Timeout { .. }), "{api}: {e:?}");
        let msg = e.to_string();
        assert!(msg.contains("idle limit"), "{msg}");
        assert!(msg.contains("keep-alive"), "{msg}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_that_never_ends_hits_the_generation_deadline() {
    for api in [Api::AnthropicMessages, Api::OpenAiCompletions] {
        let fake = FakeModel::start().await;
        // Real progress every 100 ms for 20 s: the idle limit never fires.
        let frames = vec![delta(api); 200];
        fake.push(Reply::frames(&frames).delay_chunks(Duration::from_millis(100)));
        let o = ClientOptions {
            idle_timeout: Duration::from_secs(5),
            generation_deadline: Duration::from_millis(1500),
            max_attempts: 1,
            ..ClientOptions::default()
        };
        let t = Instant::now();
        let e = complete(
            &fake.endpoint(api),
            &req(),
            &o,
            CancellationToken::new(),
            &mut |_| {},
        )
        .await
        .unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(8),
            "{api}: took {:?}",
            t.elapsed()
        );
        assert!(matches!(e, LlmError::Deadline { .. }), "{api}: {e:?}");
        assert!(e.to_string().contains("generation deadline"), "{e}");
    }
}

#[test]
fn default_deadline_is_sensible_and_configurable() {
    let d = ClientOptions::default();
    assert!(d.generation_deadline >= Duration::from_secs(300));
    assert!(d.generation_deadline <= Duration::from_secs(3600));
}

#[tokio::test(flavor = "multi_thread")]
async fn cli_compact_against_an_endless_stream_ends_at_the_deadline_from_the_env() {
    let h = cli_support::Home::host_a();
    let fake = FakeModel::start().await;
    for _ in 0..4 {
        fake.push(
            Reply::frames(&vec![delta(Api::OpenAiCompletions); 400])
                .delay_chunks(Duration::from_millis(100)),
        );
    }
    cli_support::point_fake_provider(&h, &fake.base_url());
    let home = h.path().to_path_buf();
    let t = Instant::now();
    let o = tokio::task::spawn_blocking(move || {
        cli_support::run_with(
            &home,
            &[
                "compact",
                "agent:main:main",
                "--no-flush",
                "--keep-recent-tokens",
                "2000",
            ],
            &[("CLAWTOP_GENERATION_DEADLINE_SECS", "2")],
        )
    })
    .await
    .unwrap();
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("generation deadline"), "{}", o.stderr);
    assert!(
        o.stderr.contains("CLAWTOP_GENERATION_DEADLINE_SECS"),
        "{}",
        o.stderr
    );
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}
