//! The API key never shows: not in `Debug`/`Display` of any public type or error, not
//! in tracing output (captured at TRACE for every target).

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::fake_model::{FAKE_KEY, FakeModel, Reply};
use clawtop::llm::{
    Api, CancellationToken, ChatRequest, ChatResponse, ClientOptions, LlmError, ModelOverrides,
    Progress, Secret, complete, resolve_endpoint,
};
use serde_json::json;

const CONFIG_KEY: &str = "sk-config-LITERAL-9876543210";
const ENV_KEY: &str = "sk-env-VALUE-5555555555";
const HEADER_TOKEN: &str = "hdr-TOKEN-777777777";

fn assert_clean(what: &str, text: &str) {
    for secret in [FAKE_KEY, CONFIG_KEY, ENV_KEY, HEADER_TOKEN] {
        assert!(!text.contains(secret), "{what} leaks a secret: {text}");
    }
}

fn check<T: std::fmt::Debug>(what: &str, v: &T) {
    assert_clean(what, &format!("{v:?}"));
    assert_clean(what, &format!("{v:#?}"));
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn key_never_in_debug_display_errors_or_logs() {
    let logs = Captured::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let secret = Secret::new(FAKE_KEY);
    check("Secret", &secret);
    assert_clean("Secret display", &format!("{secret}"));

    // Resolution: success paths with keys from config, env and headers.
    let config = json!({"models": {"providers": {
        "lit": {"baseUrl": "https://lit.example.com", "api": "anthropic-messages", "apiKey": CONFIG_KEY,
                "headers": {"X-Token": HEADER_TOKEN}},
        "envd": {"baseUrl": "https://envd.example.com", "api": "openai-completions", "apiKey": "${ENVD_SECRET}"},
        "bad": {"baseUrl": "https://bad.example.com", "api": "openai-completions", "apiKey": "${UNSET_VAR}"},
    }}});
    let env = |k: &str| match k {
        "ENVD_SECRET" => Some(ENV_KEY.to_string()),
        "MY_FLAG" => Some(ENV_KEY.to_string()),
        _ => None,
    };
    let d = ModelOverrides::default();
    let lit = resolve_endpoint(&config, None, Some("lit"), Some("m"), &d, &env).unwrap();
    assert_eq!(lit.api_key.as_ref().map(Secret::expose), Some(CONFIG_KEY));
    check("ModelEndpoint (literal)", &lit);
    let envd = resolve_endpoint(&config, None, Some("envd"), Some("m"), &d, &env).unwrap();
    check("ModelEndpoint (env)", &envd);
    let ov = ModelOverrides {
        api_key_env: Some("MY_FLAG".into()),
        ..d.clone()
    };
    check("ModelOverrides", &ov);
    check(
        "ModelEndpoint (flag)",
        &resolve_endpoint(&config, None, Some("lit"), Some("m"), &ov, &env).unwrap(),
    );

    // Resolution errors.
    let mut errors: Vec<LlmError> = vec![
        resolve_endpoint(&config, None, Some("bad"), Some("m"), &d, &env).unwrap_err(),
        resolve_endpoint(&config, None, None, None, &d, &env).unwrap_err(),
        resolve_endpoint(&config, None, Some("nowhere"), Some("m"), &d, &env).unwrap_err(),
        resolve_endpoint(&config, None, Some("lit"), None, &d, &env).unwrap_err(),
        "openai-responses".parse::<Api>().unwrap_err(),
    ];

    // Network errors from a server that echoes the key everywhere it can.
    let fake = FakeModel::start().await;
    let echo = format!("bad key {FAKE_KEY}");
    fake.push(Reply::error(500, "api_error", &echo));
    fake.push(Reply::error(401, "authentication_error", &echo));
    fake.push(Reply::raw(
        200,
        Some("application/json"),
        &format!("<html>{FAKE_KEY}"),
    ));
    fake.push(Reply::frames(&[&format!(
        "event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"invalid_request_error\",\"message\":\"{FAKE_KEY}\"}}}}\n\n"
    )]));
    fake.push(Reply::frames(&[&format!("data: {{{FAKE_KEY}\n\n")]));
    fake.push(Reply::text(&format!("{FAKE_KEY} refusing")).stop("refusal"));
    fake.push(Reply::cut_off("one two three four five six"));
    fake.push(Reply::text("slow one two").delay_chunks(Duration::from_secs(2)));
    fake.push(Reply::text("fine answer"));
    let opts = ClientOptions {
        idle_timeout: Duration::from_millis(300),
        max_attempts: 2,
        base_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(2),
        ..ClientOptions::default()
    };
    check("ClientOptions", &opts);
    let req = ChatRequest {
        system: "s".into(),
        user: "u".into(),
        max_tokens: 100,
        reasoning: false,
    };
    check("ChatRequest", &req);
    let mut ep = fake.endpoint(Api::AnthropicMessages);
    ep.headers.push(("X-Token".into(), HEADER_TOKEN.into()));
    let mut progress_seen: Vec<Progress> = Vec::new();
    let mut answer: Option<ChatResponse> = None;
    for _ in 0..8 {
        match complete(&ep, &req, &opts, CancellationToken::new(), &mut |p| {
            progress_seen.push(p)
        })
        .await
        {
            Ok(r) => answer = Some(r),
            Err(e) => errors.push(e),
        }
    }
    // Connection refused, and cancelled.
    let mut gone = ep.clone();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    gone.base_url = format!("http://127.0.0.1:{port}");
    errors.push(
        complete(&gone, &req, &opts, CancellationToken::new(), &mut |_| {})
            .await
            .unwrap_err(),
    );
    let cancelled = CancellationToken::new();
    cancelled.cancel();
    errors.push(
        complete(&ep, &req, &opts, cancelled, &mut |_| {})
            .await
            .unwrap_err(),
    );

    assert_eq!(
        answer.as_ref().map(|a| a.text.as_str()),
        Some("fine answer")
    );
    check("ChatResponse", &answer);
    check("Progress", &progress_seen);
    assert!(
        progress_seen
            .iter()
            .any(|p| matches!(p, Progress::Retrying { .. }))
    );
    assert!(errors.len() >= 12, "{errors:#?}");
    for e in &errors {
        check("LlmError", e);
        assert_clean("LlmError display", &e.to_string());
    }
    // The echoed key was replaced, not just dropped.
    assert!(
        errors.iter().any(|e| e.to_string().contains("bad key ***")),
        "{errors:#?}"
    );

    // The requests did carry the key and the header.
    let sent = fake.requests();
    assert!(sent.iter().all(|r| r.header("x-api-key") == Some(FAKE_KEY)));
    assert!(
        sent.iter()
            .all(|r| r.header("x-token") == Some(HEADER_TOKEN))
    );

    drop(_guard);
    let logs = String::from_utf8_lossy(&logs.0.lock().unwrap()).into_owned();
    assert!(
        logs.contains("model request"),
        "tracing was captured: {logs}"
    );
    assert!(logs.contains("retrying"), "{logs}");
    assert_clean("tracing output", &logs);
}
