//! `clawtop::llm::complete` against the scripted fake model server.

use std::time::{Duration, Instant};

use crate::support::fake_model::{FAKE_KEY, FakeModel, Reply};
use clawtop::llm::{
    Api, CancellationToken, ChatRequest, ChatResponse, ClientOptions, LlmError, ModelEndpoint,
    Progress, complete,
};

const APIS: [Api; 2] = [Api::AnthropicMessages, Api::OpenAiCompletions];

fn req() -> ChatRequest {
    ChatRequest {
        system: "You are a context summarization assistant.".into(),
        user: "<conversation>\n[User]: hi\n</conversation>\n\nSummarize.".into(),
        max_tokens: 1000,
        reasoning: false,
    }
}

fn opts() -> ClientOptions {
    ClientOptions {
        connect_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(1),
        max_attempts: 4,
        base_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        max_retry_after: Duration::from_secs(1),
        generation_deadline: Duration::from_secs(600),
    }
}

async fn run_with(
    ep: &ModelEndpoint,
    req: &ChatRequest,
    opts: &ClientOptions,
) -> (Result<ChatResponse, LlmError>, Vec<Progress>) {
    let mut seen = Vec::new();
    let r = complete(ep, req, opts, CancellationToken::new(), &mut |p| {
        seen.push(p)
    })
    .await;
    (r, seen)
}

async fn run(ep: &ModelEndpoint) -> (Result<ChatResponse, LlmError>, Vec<Progress>) {
    run_with(ep, &req(), &opts()).await
}

/// The error, checked to be free of the key in both renderings.
fn expect_err(r: Result<ChatResponse, LlmError>) -> LlmError {
    let e = r.expect_err("expected an error");
    assert!(!e.to_string().contains(FAKE_KEY), "key in error: {e}");
    assert!(
        !format!("{e:?}").contains(FAKE_KEY),
        "key in error debug: {e:?}"
    );
    e
}

#[tokio::test]
async fn anthropic_streams_and_assembles_text() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("## Goal\nKeep PR #42 open.").usage(321, 17));
    let ep = fake.endpoint(Api::AnthropicMessages);
    let (r, progress) = run(&ep).await;
    let r = r.unwrap();
    assert_eq!(r.text, "## Goal\nKeep PR #42 open.");
    assert_eq!(r.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!((r.input_tokens, r.output_tokens), (Some(321), Some(17)));
    assert!(!r.hit_max_tokens());

    let reqs = fake.requests();
    assert_eq!(reqs.len(), 1);
    let q = &reqs[0];
    assert_eq!(
        (q.method.as_str(), q.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(q.header("x-api-key"), Some(FAKE_KEY));
    assert_eq!(q.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(q.header("authorization"), None);
    assert_eq!(q.body["model"], "fake-model-1");
    assert_eq!(q.body["max_tokens"], 1000);
    assert_eq!(q.body["system"], req().system);
    assert_eq!(q.body["messages"][0]["role"], "user");
    assert_eq!(q.body["messages"][0]["content"], req().user);
    assert_eq!(q.body["messages"].as_array().unwrap().len(), 1);
    assert_eq!(q.body["stream"], true);
    assert!(q.body.get("thinking").is_none());

    assert_eq!(progress.first(), Some(&Progress::Started { attempt: 1 }));
    let last_chars = progress.iter().rev().find_map(|p| match p {
        Progress::Delta { chars_so_far, .. } => Some(*chars_so_far),
        _ => None,
    });
    assert_eq!(last_chars, Some(r.text.chars().count()));
    assert!(
        progress
            .iter()
            .filter(|p| matches!(p, Progress::Delta { .. }))
            .count()
            > 1
    );
}

#[tokio::test]
async fn openai_streams_and_assembles_text() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("Summary: all good, ünïcode kept.").usage(50, 9));
    let ep = fake.endpoint(Api::OpenAiCompletions);
    let (r, progress) = run(&ep).await;
    let r = r.unwrap();
    assert_eq!(r.text, "Summary: all good, ünïcode kept.");
    assert_eq!(r.stop_reason.as_deref(), Some("stop"));
    assert_eq!((r.input_tokens, r.output_tokens), (Some(50), Some(9)));

    let q = &fake.requests()[0];
    assert_eq!(q.path, "/v1/chat/completions");
    assert_eq!(
        q.header("authorization"),
        Some(format!("Bearer {FAKE_KEY}").as_str())
    );
    assert_eq!(q.header("x-api-key"), None);
    assert_eq!(q.body["model"], "fake-model-1");
    assert_eq!(q.body["max_tokens"], 1000);
    assert_eq!(
        q.body["messages"][0],
        serde_json::json!({"role": "system", "content": req().system})
    );
    assert_eq!(
        q.body["messages"][1],
        serde_json::json!({"role": "user", "content": req().user})
    );
    assert_eq!(q.body["stream"], true);
    assert_eq!(q.body["stream_options"]["include_usage"], true);
    assert!(q.body.get("reasoning_effort").is_none());
    assert!(progress.iter().any(|p| matches!(
        p,
        Progress::Delta {
            output_tokens_so_far: Some(9),
            ..
        }
    )));
}

#[tokio::test]
async fn reasoning_requested_only_for_reasoning_models_and_thinking_dropped() {
    for api in APIS {
        let fake = FakeModel::start().await;
        fake.push(Reply::text("answer only").thinking("secret chain of thought"));
        fake.push(Reply::text("plain"));
        fake.push(Reply::text("plain"));
        let mut ep = fake.endpoint(api);
        ep.reasoning = true;
        let mut rq = req();
        rq.reasoning = true;
        let (r, _) = run_with(&ep, &rq, &opts()).await;
        assert_eq!(r.unwrap().text, "answer only", "{api}");
        // Not asked for.
        rq.reasoning = false;
        run_with(&ep, &rq, &opts()).await.0.unwrap();
        // Asked for, but the model is not reasoning-capable.
        ep.reasoning = false;
        rq.reasoning = true;
        run_with(&ep, &rq, &opts()).await.0.unwrap();

        let reqs = fake.requests();
        match api {
            Api::AnthropicMessages => {
                assert_eq!(
                    reqs[0].body["thinking"],
                    serde_json::json!({"type": "enabled", "budget_tokens": 16384})
                );
                assert_eq!(reqs[0].body["max_tokens"], 1000 + 16384);
                assert!(reqs[1].body.get("thinking").is_none());
                assert!(reqs[2].body.get("thinking").is_none());
                assert_eq!(reqs[2].body["max_tokens"], 1000);
            }
            Api::OpenAiCompletions => {
                assert_eq!(reqs[0].body["reasoning_effort"], "high");
                assert!(reqs[1].body.get("reasoning_effort").is_none());
                assert!(reqs[2].body.get("reasoning_effort").is_none());
            }
        }
    }
}

#[tokio::test]
async fn non_streamed_json_is_accepted() {
    for api in APIS {
        let fake = FakeModel::start().await;
        fake.push(Reply::json("whole answer at once"));
        fake.push(Reply::json_untyped("sniffed answer"));
        let ep = fake.endpoint(api);
        let (r, progress) = run(&ep).await;
        let r = r.unwrap();
        assert_eq!(r.text, "whole answer at once", "{api}");
        assert_eq!((r.input_tokens, r.output_tokens), (Some(100), Some(20)));
        assert!(progress.iter().any(|p| matches!(
            p,
            Progress::Delta {
                chars_so_far: 20,
                ..
            }
        )));
        assert_eq!(run(&ep).await.0.unwrap().text, "sniffed answer", "{api}");
    }
}

#[tokio::test]
async fn config_headers_are_sent() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("ok"));
    let mut ep = fake.endpoint(Api::AnthropicMessages);
    ep.headers = vec![
        ("anthropic-beta".into(), "fine-grained".into()),
        ("X-Proxy-Token".into(), "tok-123456".into()),
    ];
    run(&ep).await.0.unwrap();
    let q = &fake.requests()[0];
    assert_eq!(q.header("anthropic-beta"), Some("fine-grained"));
    assert_eq!(q.header("x-proxy-token"), Some("tok-123456"));
}

#[tokio::test]
async fn retries_500_429_529_then_succeeds() {
    for api in APIS {
        let fake = FakeModel::start().await;
        fake.push(Reply::error(500, "api_error", "internal"));
        fake.push(Reply::error(429, "rate_limit_error", "slow down").header("retry-after", "0"));
        fake.push(Reply::error(529, "overloaded_error", "Overloaded"));
        fake.push(Reply::text("finally"));
        let ep = fake.endpoint(api);
        let (r, progress) = run(&ep).await;
        assert_eq!(r.unwrap().text, "finally", "{api}");
        assert_eq!(fake.requests().len(), 4);
        let retries: Vec<_> = progress
            .iter()
            .filter_map(|p| match p {
                Progress::Retrying {
                    attempt,
                    after_ms,
                    reason,
                } => Some((*attempt, *after_ms, reason.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(retries.len(), 3);
        assert_eq!(retries.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(retries[1].1, 0, "retry-after: 0 honoured");
        assert!(retries[0].2.contains("HTTP 500"), "{}", retries[0].2);
        assert!(retries[2].2.contains("HTTP 529"), "{}", retries[2].2);
        let started: Vec<_> = progress
            .iter()
            .filter(|p| matches!(p, Progress::Started { .. }))
            .collect();
        assert_eq!(started.len(), 4);
    }
}

#[tokio::test]
async fn gives_up_after_max_attempts() {
    let fake = FakeModel::start().await;
    for _ in 0..3 {
        fake.push(Reply::status(503, "upstream unavailable"));
    }
    let ep = fake.endpoint(Api::OpenAiCompletions);
    let o = ClientOptions {
        max_attempts: 3,
        ..opts()
    };
    let e = expect_err(run_with(&ep, &req(), &o).await.0);
    assert!(
        matches!(
            e,
            LlmError::Status {
                status: 503,
                attempts: 3,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("HTTP 503")
            && msg.contains("upstream unavailable")
            && msg.contains("3 attempts"),
        "{msg}"
    );
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let fake = FakeModel::start().await;
    fake.push(Reply::error(
        401,
        "authentication_error",
        "invalid x-api-key",
    ));
    fake.push(Reply::error(
        400,
        "invalid_request_error",
        "max_tokens: too large",
    ));
    fake.push(Reply::text("never reached"));
    let e = expect_err(run(&fake.endpoint(Api::AnthropicMessages)).await.0);
    assert!(
        matches!(
            e,
            LlmError::Status {
                status: 401,
                attempts: 1,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("HTTP 401")
            && e.to_string()
                .contains("authentication_error: invalid x-api-key"),
        "{e}"
    );
    assert_eq!(fake.requests().len(), 1);

    let e = expect_err(run(&fake.endpoint(Api::OpenAiCompletions)).await.0);
    assert!(matches!(e, LlmError::Status { status: 400, .. }), "{e:?}");
    assert!(e.to_string().contains("max_tokens: too large"), "{e}");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn key_echoed_by_server_is_scrubbed() {
    let fake = FakeModel::start().await;
    fake.push(Reply::error(
        401,
        "authentication_error",
        &format!("key {FAKE_KEY} is revoked"),
    ));
    let e = expect_err(run(&fake.endpoint(Api::OpenAiCompletions)).await.0);
    assert!(e.to_string().contains("key *** is revoked"), "{e}");
}

#[tokio::test]
async fn long_retry_after_ends_retries_at_once() {
    let fake = FakeModel::start().await;
    fake.push(Reply::error(429, "rate_limit_error", "quota").header("retry-after", "3600"));
    let e = expect_err(run(&fake.endpoint(Api::AnthropicMessages)).await.0);
    assert!(matches!(e, LlmError::Status { status: 429, .. }), "{e:?}");
    assert!(e.to_string().contains("retry after 3600s"), "{e}");
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported() {
    // A port nobody listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let fake = FakeModel::start().await;
    let mut ep = fake.endpoint(Api::OpenAiCompletions);
    ep.base_url = format!("http://127.0.0.1:{port}/v1");
    let o = ClientOptions {
        max_attempts: 2,
        ..opts()
    };
    let (r, progress) = run_with(&ep, &req(), &o).await;
    let e = expect_err(r);
    assert!(matches!(e, LlmError::Connect { attempts: 2, .. }), "{e:?}");
    assert!(e.to_string().contains(&format!("127.0.0.1:{port}")), "{e}");
    assert_eq!(
        progress
            .iter()
            .filter(|p| matches!(p, Progress::Retrying { .. }))
            .count(),
        1
    );
}

#[tokio::test]
async fn cut_off_stream_is_an_error() {
    for api in APIS {
        let fake = FakeModel::start().await;
        fake.push(Reply::cut_off("one two three four five six seven eight"));
        let e = expect_err(run(&fake.endpoint(api)).await.0);
        assert!(matches!(e, LlmError::Incomplete { .. }), "{api}: {e:?}");
        assert_eq!(fake.requests().len(), 1, "cut-off is not retried");
    }
}

#[tokio::test]
async fn stream_without_terminal_event_is_an_error() {
    // Well-formed HTTP, but the model never said it was done.
    let fake = FakeModel::start().await;
    fake.push(Reply::frames(&[
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"half a summ\"}}\n\n",
    ]));
    fake.push(Reply::frames(&["data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half\"},\"finish_reason\":null}]}\n\n"]));
    let e = expect_err(run(&fake.endpoint(Api::AnthropicMessages)).await.0);
    assert!(matches!(e, LlmError::Incomplete { .. }), "{e:?}");
    assert!(e.to_string().contains("message_stop"), "{e}");
    let e = expect_err(run(&fake.endpoint(Api::OpenAiCompletions)).await.0);
    assert!(matches!(e, LlmError::Incomplete { .. }), "{e:?}");
}

#[tokio::test]
async fn garbage_is_an_error() {
    for api in APIS {
        let fake = FakeModel::start().await;
        fake.push(Reply::garbage());
        fake.push(Reply::raw(
            200,
            Some("application/json"),
            "<html>oops</html>",
        ));
        fake.push(Reply::raw(200, None, "{\"not\": \"a completion\"}"));
        fake.push(Reply::frames(&["data: {not json\n\n"]));
        let ep = fake.endpoint(api);
        for i in 0..4 {
            let e = expect_err(run(&ep).await.0);
            assert!(
                matches!(
                    e,
                    LlmError::BadResponse { .. } | LlmError::Incomplete { .. }
                ),
                "{api} case {i}: {e:?}"
            );
        }
        assert_eq!(fake.requests().len(), 4, "garbage is not retried");
    }
}

#[tokio::test]
async fn error_stop_reasons_fail_and_max_tokens_is_flagged() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("I can't help").stop("refusal"));
    fake.push(Reply::text("partial").stop("error"));
    fake.push(Reply::text("long text cut").stop("max_tokens"));
    let ep = fake.endpoint(Api::AnthropicMessages);
    let e = expect_err(run(&ep).await.0);
    assert!(
        matches!(e, LlmError::Provider { .. }) && e.to_string().contains("refusal"),
        "{e:?}"
    );
    let e = expect_err(run(&ep).await.0);
    assert!(e.to_string().contains("`error`"), "{e}");
    let r = run(&ep).await.0.unwrap();
    assert!(r.hit_max_tokens());
    assert_eq!(r.text, "long text cut");

    let fake = FakeModel::start().await;
    fake.push(Reply::text("x").stop("content_filter"));
    fake.push(Reply::text("y").stop("length"));
    let ep = fake.endpoint(Api::OpenAiCompletions);
    assert!(matches!(
        expect_err(run(&ep).await.0),
        LlmError::Provider { .. }
    ));
    assert!(run(&ep).await.0.unwrap().hit_max_tokens());
}

#[tokio::test]
async fn in_stream_errors() {
    let fake = FakeModel::start().await;
    // Anthropic's overloaded error event is the in-stream 529: retried.
    fake.push(Reply::frames(&[
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n",
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    ]));
    fake.push(Reply::text("recovered"));
    fake.push(Reply::frames(&[
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long\"}}\n\n",
    ]));
    let ep = fake.endpoint(Api::AnthropicMessages);
    assert_eq!(run(&ep).await.0.unwrap().text, "recovered");
    let e = expect_err(run(&ep).await.0);
    assert!(matches!(e, LlmError::Provider { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("invalid_request_error: prompt is too long"),
        "{e}"
    );
    assert_eq!(fake.requests().len(), 3);

    let fake = FakeModel::start().await;
    fake.push(Reply::frames(&[
        "data: {\"error\":{\"message\":\"provider returned error\",\"code\":400}}\n\n",
    ]));
    let e = expect_err(run(&fake.endpoint(Api::OpenAiCompletions)).await.0);
    assert!(e.to_string().contains("provider returned error"), "{e}");
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn idle_timeout_between_chunks() {
    for api in APIS {
        let fake = FakeModel::start().await;
        fake.push(Reply::text("slow words arrive here").delay_chunks(Duration::from_secs(10)));
        let o = ClientOptions {
            idle_timeout: Duration::from_millis(200),
            ..opts()
        };
        let t = Instant::now();
        let e = expect_err(run_with(&fake.endpoint(api), &req(), &o).await.0);
        assert!(
            matches!(
                e,
                LlmError::Timeout {
                    phase: "between stream chunks",
                    ..
                }
            ),
            "{e:?}"
        );
        // Gave up long before the chunk due 10 s later (the margin absorbs a loaded machine).
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        assert_eq!(fake.requests().len(), 1, "timeouts are not retried");
    }
}

#[tokio::test]
async fn idle_timeout_waiting_for_response() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("late").delay_first(Duration::from_secs(10)));
    let o = ClientOptions {
        idle_timeout: Duration::from_millis(200),
        ..opts()
    };
    let t = Instant::now();
    let e = expect_err(
        run_with(&fake.endpoint(Api::AnthropicMessages), &req(), &o)
            .await
            .0,
    );
    assert!(
        matches!(
            e,
            LlmError::Timeout {
                phase: "waiting for the response",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[tokio::test]
async fn cancel_mid_stream_returns_promptly() {
    for api in APIS {
        let fake = FakeModel::start().await;
        let first = match api {
            Api::AnthropicMessages => {
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"partial \"}}\n\n"
            }
            Api::OpenAiCompletions => {
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial \"},\"finish_reason\":null}]}\n\n"
            }
        };
        // The second chunk would come 10 s later; cancelling must not wait for it.
        fake.push(Reply::frames(&[first, first]).delay_chunks(Duration::from_secs(10)));
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        let mut deltas = 0;
        let o = ClientOptions {
            idle_timeout: Duration::from_secs(10),
            ..opts()
        };
        let t = Instant::now();
        let r = complete(&fake.endpoint(api), &req(), &o, cancel, &mut |p| {
            if matches!(p, Progress::Delta { .. }) {
                deltas += 1;
                trigger.cancel();
            }
        })
        .await;
        assert!(matches!(r, Err(LlmError::Cancelled)), "{api}: {r:?}");
        assert_eq!(deltas, 1);
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }
}

#[tokio::test]
async fn cancel_during_backoff_and_before_start() {
    let fake = FakeModel::start().await;
    fake.push(Reply::status(500, "boom"));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let o = ClientOptions {
        base_backoff: Duration::from_secs(10),
        max_backoff: Duration::from_secs(10),
        ..opts()
    };
    let t = Instant::now();
    let r = complete(
        &fake.endpoint(Api::OpenAiCompletions),
        &req(),
        &o,
        cancel,
        &mut |p| {
            if matches!(p, Progress::Retrying { .. }) {
                trigger.cancel();
            }
        },
    )
    .await;
    assert!(matches!(r, Err(LlmError::Cancelled)), "{r:?}");
    // The backoff was 10 s; cancelling cut it short.
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());

    let cancel = CancellationToken::new();
    cancel.cancel();
    let r = complete(
        &fake.endpoint(Api::OpenAiCompletions),
        &req(),
        &o,
        cancel,
        &mut |_| {},
    )
    .await;
    assert!(matches!(r, Err(LlmError::Cancelled)));
    assert_eq!(fake.requests().len(), 1, "no request after cancel");
}

#[tokio::test]
async fn complete_future_is_send() {
    // The TUI runs completions on spawned tasks.
    let fake = FakeModel::start().await;
    fake.push(Reply::text("spawned"));
    let ep = fake.endpoint(Api::AnthropicMessages);
    let handle = tokio::spawn(async move {
        let mut n = 0usize;
        complete(&ep, &req(), &opts(), CancellationToken::new(), &mut |_| {
            n += 1
        })
        .await
    });
    assert_eq!(handle.await.unwrap().unwrap().text, "spawned");
}
