//! Issue 12 item 3: URL credentials, query values and configured header values never
//! reach an error, the terminal or the log; the log is private to the user; a query
//! string in `baseUrl` stays after the request path.

use crate::support::cli as cli_support;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::fake_model::{FAKE_KEY, FakeModel, Reply};
use clawtop::llm::{Api, CancellationToken, ChatRequest, ClientOptions, complete};
use cli_support::Home;

const URL_USER: &str = "opsuser-7f3a";
const URL_PASS: &str = "URLPASS-s3cr3t-1111";
const QUERY_KEY: &str = "QUERYKEY-s3cr3t-2222";
const HEADER_VAL: &str = "HDRVAL-s3cr3t-3333";

fn assert_clean(what: &str, text: &str) {
    for s in [URL_USER, URL_PASS, QUERY_KEY, HEADER_VAL, FAKE_KEY] {
        assert!(!text.contains(s), "{what} leaks {s}: {text}");
    }
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

fn echo_all() -> String {
    format!("denied for {URL_USER}:{URL_PASS} key={QUERY_KEY} proxy={HEADER_VAL} api={FAKE_KEY}")
}

#[tokio::test(flavor = "current_thread")]
async fn credentials_in_base_url_and_headers_never_show_and_the_query_is_kept() {
    let logs = Captured::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let fake = FakeModel::start().await;
    for _ in 0..2 {
        fake.push(Reply::error(500, "api_error", &echo_all()));
    }
    let mut ep = fake.endpoint(Api::OpenAiCompletions);
    let host = ep.base_url.trim_start_matches("http://").to_string();
    ep.base_url = format!("http://{URL_USER}:{URL_PASS}@{host}?api_key={QUERY_KEY}");
    ep.headers = vec![("X-Proxy-Token".into(), HEADER_VAL.into())];
    assert_clean("Debug of the endpoint", &format!("{ep:?}"));
    assert_clean("shown base URL", &ep.shown_base_url());

    let opts = ClientOptions {
        max_attempts: 2,
        base_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(2),
        ..ClientOptions::default()
    };
    let req = ChatRequest {
        system: "s".into(),
        user: "u".into(),
        max_tokens: 10,
        reasoning: false,
    };
    let err = complete(&ep, &req, &opts, CancellationToken::new(), &mut |_| {})
        .await
        .unwrap_err();
    assert_clean("error", &err.to_string());
    assert_clean("error (Debug)", &format!("{err:?}"));
    assert!(err.to_string().contains("127.0.0.1"), "{err}");
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains("retrying"), "{logged}");
    assert_clean("log", &logged);

    let r = &fake.requests()[0];
    assert_eq!(
        r.path,
        format!("/v1/chat/completions?api_key={QUERY_KEY}"),
        "the query string stays after the path"
    );
    assert_eq!(r.header("x-proxy-token"), Some(HEADER_VAL));
}

#[tokio::test(flavor = "current_thread")]
async fn anthropic_url_keeps_the_query_too() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("ok"));
    let mut ep = fake.endpoint(Api::AnthropicMessages);
    ep.base_url = format!("{}/v1/?key=abc", ep.base_url);
    let req = ChatRequest {
        system: "s".into(),
        user: "u".into(),
        max_tokens: 10,
        reasoning: false,
    };
    complete(
        &ep,
        &req,
        &ClientOptions::default(),
        CancellationToken::new(),
        &mut |_| {},
    )
    .await
    .unwrap();
    assert_eq!(fake.requests()[0].path, "/v1/messages?key=abc");
}

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_log_and_its_directory_are_private() {
    let h = Home::host_a();
    // An old log created world-readable by an earlier version is narrowed too.
    let old = Home::host_a();
    let old_dir = old.path().join(".xdg-state/clawtop");
    std::fs::create_dir_all(&old_dir).unwrap();
    std::fs::set_permissions(&old_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(old_dir.join("clawtop.log"), "old\n").unwrap();
    std::fs::set_permissions(
        old_dir.join("clawtop.log"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    for home in [&h, &old] {
        home.run(&["list"]).expect(0);
        let dir = home.path().join(".xdg-state/clawtop");
        assert_eq!(mode(&dir), 0o700, "log directory");
        assert_eq!(mode(&dir.join("clawtop.log")), 0o600, "log file");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cli_never_prints_or_logs_base_url_credentials() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    // This host's config has no header or key to echo; the URL's credentials are the secrets.
    let echo = format!("denied for {URL_USER}:{URL_PASS} key={QUERY_KEY}");
    for _ in 0..8 {
        fake.push(Reply::error(500, "api_error", &echo));
    }
    let host = fake.base_url().trim_start_matches("http://").to_string();
    let base = format!("http://{URL_USER}:{URL_PASS}@{host}/v1?api_key={QUERY_KEY}");
    let o = cli_support::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--provider",
            "fake",
            "--api",
            "openai-completions",
            "--base-url",
            &base,
        ],
    )
    .await;
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("HTTP 500"), "{}", o.stderr);
    assert_clean("stderr", &o.stderr);
    assert_clean("stdout", &o.text());
    let log = std::fs::read_to_string(h.path().join(".xdg-state/clawtop/clawtop.log")).unwrap();
    assert!(log.contains("retrying"), "{log}");
    assert_clean("log", &log);
}
