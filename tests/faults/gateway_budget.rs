//! Issue 20 item 3: gateway reads are bounded in time and in bytes. `check` answers UNKNOWN
//! at its `--timeout` however slowly the gateway answers; one reply over clawtop's limit is
//! refused as it arrives; a paged read stops at its byte budget instead of paging for ever.
//! Each case is a scripted gateway on loopback (as in tests/gateway/faults.rs).

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

type Ws = WebSocketStream<TcpStream>;

/// How the scripted gateway answers a request other than `connect`.
#[derive(Clone, Copy)]
pub(crate) enum Script {
    /// An error for every request (`UNAVAILABLE`).
    Fail,
    /// The reply's frame header and first bytes at once, then one byte a second.
    Dribble,
    /// One reply of this many bytes.
    Huge(usize),
    /// `sessions.list` pages of about this many bytes each, always with `hasMore`.
    EndlessPages(usize),
}

async fn reply(ws: &mut Ws, req: &Value, script: Script) {
    match script {
        Script::Fail => {
            let body = json!({"type":"res","id":req["id"],"ok":false,"error":{"code":"UNAVAILABLE","message":"scripted"}});
            let _ = ws.send(Message::text(body.to_string())).await;
        }
        Script::Dribble => {
            let body = json!({"type":"res","id":req["id"],"ok":true,"payload":{"sessions":[],"hasMore":false}}).to_string();
            let mut frame = vec![0x81u8, 126];
            frame.extend_from_slice(&(body.len() as u16).to_be_bytes());
            frame.extend_from_slice(&body.as_bytes()[..4]);
            let tcp = ws.get_mut();
            let _ = tcp.write_all(&frame).await;
            for b in &body.as_bytes()[4..] {
                tokio::time::sleep(Duration::from_secs(1)).await;
                if tcp.write_all(&[*b]).await.is_err() {
                    return;
                }
            }
        }
        Script::Huge(n) => {
            let body = json!({"type":"res","id":req["id"],"ok":true,"payload":{"sessions":[{"key":"agent:main:big","pad":"x".repeat(n)}],"hasMore":false}});
            let _ = ws.send(Message::text(body.to_string())).await;
        }
        Script::EndlessPages(n) => {
            let offset = req["params"]["offset"].as_u64().unwrap_or(0);
            let body = json!({"type":"res","id":req["id"],"ok":true,"payload":{"sessions":[{"key":format!("agent:main:s{offset}"),"pad":"x".repeat(n)}],"hasMore":true}});
            let _ = ws.send(Message::text(body.to_string())).await;
        }
    }
}

/// A gateway on loopback: says hello, then answers every request by `script`, for as many
/// connections as come; returns its URL.
pub(crate) async fn scripted_gateway(script: Script) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                    return;
                };
                let challenge = json!({"type":"event","event":"connect.challenge","payload":{"nonce":"nonce-1","ts":1_795_457_000_000i64}});
                let _ = ws.send(Message::text(challenge.to_string())).await;
                while let Some(Ok(m)) = ws.next().await {
                    let Message::Text(t) = m else { continue };
                    let Ok(req) = serde_json::from_str::<Value>(t.as_str()) else {
                        continue;
                    };
                    if req["method"] == "connect" {
                        let hello = json!({"type":"res","id":req["id"],"ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"2026.9.6"},"auth":{"scopes":["operator.read"]},"policy":{"tickIntervalMs":30000}}});
                        let _ = ws.send(Message::text(hello.to_string())).await;
                    } else {
                        reply(&mut ws, &req, script).await;
                    }
                }
            });
        }
    });
    url
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// clawtop against `url`; killed (and the test failed) after `limit`.
async fn clawtop(url: &str, args: &[&str], limit: Duration) -> Run {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_clawtop"));
    cmd.args(args)
        .args(["--gateway", url])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("CLAWTOP_CONFIG_DIR", home.path().join("config"))
        .env("OPENCLAW_GATEWAY_TOKEN", "budget-test-token")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let what = format!("{args:?}");
    tokio::task::spawn_blocking(move || {
        let t = Instant::now();
        let mut child = cmd.spawn().unwrap();
        while child.try_wait().unwrap().is_none() {
            if t.elapsed() > limit {
                child.kill().unwrap();
                let _ = child.wait();
                panic!("clawtop {what} still running after {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let took = t.elapsed();
        let o = child.wait_with_output().unwrap();
        drop(home);
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            took,
        }
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_answers_unknown_at_its_timeout_against_a_gateway_a_byte_a_second() {
    let url = scripted_gateway(Script::Dribble).await;
    let r = clawtop(&url, &["check", "--timeout", "2"], Duration::from_secs(30)).await;
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("UNKNOWN:"), "{}", r.stdout);
    assert!(r.stdout.contains("--timeout"), "{}", r.stdout);
    assert!(
        r.took < Duration::from_secs(10),
        "answered after {:?}",
        r.took
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_reply_over_the_limit_is_refused_as_it_arrives() {
    let url = scripted_gateway(Script::Huge(40 << 20)).await;
    let r = clawtop(&url, &["list", "--json"], Duration::from_secs(60)).await;
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(r.stderr.contains("limit"), "{}", r.stderr);
    assert!(r.stderr.contains("32 MiB"), "{}", r.stderr);
    assert!(!r.stdout.contains("agent:main:big"), "{}", r.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paged_listing_stops_at_its_byte_budget() {
    let url = scripted_gateway(Script::EndlessPages(1 << 20)).await;
    let r = clawtop(&url, &["list", "--json"], Duration::from_secs(120)).await;
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stderr.contains("more than 64 MiB") && r.stderr.contains("sessions.list"),
        "{}",
        r.stderr
    );
}
