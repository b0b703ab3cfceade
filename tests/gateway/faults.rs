//! Bad gateways: a scripted WebSocket server on 127.0.0.1 that closes mid-handshake, sends
//! malformed frames, never answers, or answers `ok:false`. Each case must end in a clear error,
//! quickly (short timeouts, every wait bounded), with nothing sent that changes a session.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use clawtop::gateway::{DeviceIdentity, GatewayClient, GatewayError, GatewayTarget, Timeouts};
use clawtop::llm::Secret;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

type Ws = WebSocketStream<TcpStream>;
type Seen = Arc<Mutex<Vec<Value>>>;

const TOKEN: &str = "fault-test-token-0123456789";

fn quick() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(2),
        handshake: Duration::from_secs(2),
        request: Duration::from_secs(2),
    }
}

fn identity() -> (tempfile::TempDir, DeviceIdentity) {
    let dir = tempfile::tempdir().unwrap();
    let id = DeviceIdentity::load_or_create(dir.path()).unwrap();
    (dir, id)
}

fn target(url: String) -> GatewayTarget {
    GatewayTarget {
        url,
        url_source: "test".into(),
        token: Some(Secret::new(TOKEN)),
        token_source: "test".into(),
        loopback: true,
    }
}

/// Serves one connection with `script`; every JSON frame the client sends is recorded.
async fn serve<F, Fut>(script: F) -> (String, Seen)
where
    F: FnOnce(Ws, Seen) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let s = seen.clone();
    tokio::spawn(async move {
        // A bare TCP probe (clawtop's running-gateway check) is not the client: serve the
        // first connection that speaks WebSocket.
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            if let Ok(ws) = tokio_tungstenite::accept_async(tcp).await {
                script(ws, s).await;
                break;
            }
        }
    });
    (url, seen)
}

async fn send(ws: &mut Ws, v: Value) {
    let _ = ws.send(Message::text(v.to_string())).await;
}

/// The next JSON text frame from the client (recorded), or None when it closed.
async fn recv(ws: &mut Ws, seen: &Seen) -> Option<Value> {
    while let Some(Ok(m)) = ws.next().await {
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            seen.lock().unwrap().push(v.clone());
            return Some(v);
        }
    }
    None
}

async fn challenge(ws: &mut Ws) {
    send(ws, json!({"type":"event","event":"connect.challenge","payload":{"nonce":"nonce-1","ts":1_795_457_000_000i64}})).await;
}

async fn hello(ws: &mut Ws, seen: &Seen) {
    challenge(ws).await;
    let req = recv(ws, seen).await.unwrap();
    send(ws, json!({"type":"res","id":req["id"],"ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"test"},"auth":{"scopes":["operator.read","operator.write","operator.admin"]},"policy":{"tickIntervalMs":30000}}})).await;
}

fn methods(seen: &Seen) -> Vec<String> {
    seen.lock()
        .unwrap()
        .iter()
        .filter_map(|v| v["method"].as_str().map(str::to_string))
        .collect()
}

fn assert_quick(t0: Instant) {
    assert!(
        t0.elapsed() < Duration::from_secs(6),
        "took {:?}",
        t0.elapsed()
    );
}

#[tokio::test]
async fn connect_frame_is_signed_over_the_v3_payload() {
    let (url, seen) = serve(|mut ws, seen| async move {
        hello(&mut ws, &seen).await;
        let _ = recv(&mut ws, &seen).await;
    })
    .await;
    let (_d, id) = identity();
    let c = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap();
    assert_eq!(c.hello().protocol, 4);
    let connect = seen.lock().unwrap()[0].clone();
    let p = &connect["params"];
    assert_eq!(p["minProtocol"], 4);
    assert_eq!(p["client"]["id"], "cli");
    assert_eq!(p["auth"]["token"], TOKEN);
    assert_eq!(p["device"]["id"], id.device_id());
    assert_eq!(p["device"]["nonce"], "nonce-1");
    assert_eq!(p["device"]["signedAt"], 1_795_457_000_000i64);
    let payload = format!(
        "v3|{}|cli|cli|operator|operator.read,operator.write,operator.admin|1795457000000|{TOKEN}|nonce-1|{}|",
        id.device_id(),
        std::env::consts::OS
    );
    let key: [u8; 32] = URL_SAFE_NO_PAD
        .decode(p["device"]["publicKey"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let sig: [u8; 64] = URL_SAFE_NO_PAD
        .decode(p["device"]["signature"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    use ed25519_dalek::Verifier;
    ed25519_dalek::VerifyingKey::from_bytes(&key)
        .unwrap()
        .verify(
            payload.as_bytes(),
            &ed25519_dalek::Signature::from_bytes(&sig),
        )
        .expect("the signature verifies over the v3 payload");
}

#[tokio::test]
async fn closes_mid_handshake() {
    let (url, _) = serve(|mut ws, seen| async move {
        challenge(&mut ws).await;
        let _ = recv(&mut ws, &seen).await;
        let _ = ws
            .close(Some(CloseFrame {
                code: CloseCode::Policy,
                reason: "going away \u{1b}[2J".into(),
            }))
            .await;
    })
    .await;
    let (_d, id) = identity();
    let t0 = Instant::now();
    let e = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap_err();
    assert_quick(t0);
    assert!(
        matches!(e, GatewayError::ClosedDuringHandshake { .. }),
        "{e:?}"
    );
    let m = e.to_string();
    assert!(
        m.contains("1008") && m.contains("going away") && !m.contains('\u{1b}'),
        "{m}"
    );
}

#[tokio::test]
async fn closes_before_the_challenge() {
    let (url, _) = serve(|ws, _| async move { drop(ws) }).await;
    let (_d, id) = identity();
    let e = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap_err();
    assert!(
        matches!(e, GatewayError::ClosedDuringHandshake { .. }),
        "{e:?}"
    );
}

#[tokio::test]
async fn malformed_frames_in_the_handshake() {
    for bad in [
        Message::text("this is not json {"),
        Message::text("[1,2,3]"),
        Message::text(
            json!({"type":"event","event":"connect.challenge","payload":{"ts":1}}).to_string(),
        ),
        Message::binary(vec![0u8, 1, 2]),
    ] {
        let shown = format!("{bad:?}");
        let (url, seen) = serve(move |mut ws, _| async move {
            let _ = ws.send(bad).await;
            tokio::time::sleep(Duration::from_secs(5)).await;
        })
        .await;
        let (_d, id) = identity();
        let t0 = Instant::now();
        let e = GatewayClient::connect(&target(url), &id, quick())
            .await
            .unwrap_err();
        assert_quick(t0);
        assert!(
            matches!(e, GatewayError::Malformed { .. }),
            "{shown}: {e:?}"
        );
        assert!(
            methods(&seen).is_empty(),
            "no connect after a bad challenge"
        );
    }
}

#[tokio::test]
async fn never_answers() {
    // Silent after the upgrade.
    let (url, _) = serve(|ws, _| async move {
        let _held_open = ws;
        tokio::time::sleep(Duration::from_secs(30)).await;
    })
    .await;
    let (_d, id) = identity();
    let t0 = Instant::now();
    let e = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap_err();
    assert_quick(t0);
    assert!(matches!(e, GatewayError::Timeout { .. }), "{e:?}");
    assert!(e.to_string().contains("handshake"), "{e}");

    // Accepts TCP but never upgrades.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let hold = tokio::spawn(async move {
        let (_s, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let t0 = Instant::now();
    let e = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap_err();
    assert_quick(t0);
    assert!(matches!(e, GatewayError::Timeout { .. }), "{e:?}");
    hold.abort();

    // Handshakes, then never answers a request: compaction stops at the active-run check.
    let (url, seen) = serve(|mut ws, seen| async move {
        hello(&mut ws, &seen).await;
        while recv(&mut ws, &seen).await.is_some() {}
    })
    .await;
    let c = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap();
    let t0 = Instant::now();
    let e = c.compact("agent:main:x").await.unwrap_err();
    assert_quick(t0);
    assert!(matches!(e, GatewayError::Timeout { .. }), "{e:?}");
    assert_eq!(methods(&seen), ["connect", "sessions.describe"]);
}

#[tokio::test]
async fn malformed_frame_after_the_handshake_fails_the_waiting_request_at_once() {
    let (url, seen) = serve(|mut ws, seen| async move {
        hello(&mut ws, &seen).await;
        let _ = recv(&mut ws, &seen).await;
        let _ = ws.send(Message::text("{\"type\":\"res\",\"ok\":tru")).await;
        tokio::time::sleep(Duration::from_secs(10)).await;
    })
    .await;
    let (_d, id) = identity();
    let timeouts = Timeouts {
        request: Duration::from_secs(20),
        ..quick()
    };
    let c = GatewayClient::connect(&target(url), &id, timeouts)
        .await
        .unwrap();
    let t0 = Instant::now();
    let e = c
        .compact_with_instructions("agent:main:x", "focus", Duration::from_secs(20))
        .await
        .unwrap_err();
    assert_quick(t0);
    assert!(matches!(e, GatewayError::Disconnected { .. }), "{e:?}");
    assert!(e.to_string().contains("cannot read"), "{e}");
    assert_eq!(methods(&seen), ["connect", "sessions.describe"]);
}

#[tokio::test]
async fn ok_false_on_connect_says_what_to_do() {
    let cases = [
        (
            json!({"code":"INVALID_REQUEST","message":"pairing required","details":{"code":"PAIRING_REQUIRED","requestId":"req-77"}}),
            "openclaw devices approve req-77",
        ),
        (
            json!({"code":"INVALID_REQUEST","message":"protocol mismatch","details":{"code":"PROTOCOL_MISMATCH","expectedProtocol":5}}),
            "expects 5",
        ),
        (
            json!({"code":"INVALID_REQUEST","message":format!("unauthorized: gateway token mismatch {TOKEN}"),"details":{"code":"AUTH_TOKEN_MISMATCH"}}),
            "token mismatch",
        ),
        (
            json!({"code":"INVALID_REQUEST","message":"device signature invalid","details":{"code":"DEVICE_AUTH_SIGNATURE_INVALID"}}),
            "clocks",
        ),
        (
            json!({"code":"WEIRD","message":format!("echo {TOKEN} \u{1b}]0;title\u{7}")}),
            "refused the connection",
        ),
    ];
    for (error, want) in cases {
        let err = error.clone();
        let (url, _) = serve(move |mut ws, seen| async move {
            challenge(&mut ws).await;
            let req = recv(&mut ws, &seen).await.unwrap();
            send(
                &mut ws,
                json!({"type":"res","id":req["id"],"ok":false,"error":err}),
            )
            .await;
            let _ = ws.close(None).await;
        })
        .await;
        let (_d, id) = identity();
        let e = GatewayClient::connect(&target(url), &id, quick())
            .await
            .unwrap_err();
        let m = e.to_string();
        assert!(m.contains(want), "{error}: {m}");
        assert!(!m.contains(TOKEN), "token leaked: {m}");
        assert!(!m.contains('\u{1b}') && !m.contains('\u{7}'), "{m:?}");
    }
}

#[tokio::test]
async fn ok_false_on_methods() {
    let (url, seen) = serve(|mut ws, seen| async move {
        hello(&mut ws, &seen).await;
        while let Some(req) = recv(&mut ws, &seen).await {
            let id = req["id"].clone();
            let res = match req["method"].as_str().unwrap() {
                "sessions.describe" => {
                    json!({"type":"res","id":id,"ok":true,"payload":{"session":{"key":req["params"]["key"]}}})
                }
                "sessions.list" => {
                    json!({"type":"res","id":id,"ok":true,"payload":{"sessions":[]}})
                }
                "sessions.compact" if req["params"]["key"] == "agent:main:busy" => {
                    json!({"type":"res","id":id,"ok":false,"error":{"code":"INVALID_REQUEST","message":"Session agent:main:busy has an active run; retry after it finishes."}})
                }
                "sessions.compact" => {
                    json!({"type":"res","id":id,"ok":false,"error":{"code":"FORBIDDEN","message":"missing scope: operator.admin","details":{"code":"MISSING_SCOPE","missingScope":"operator.admin"}}})
                }
                "chat.history" => {
                    json!({"type":"res","id":id,"ok":false,"error":{"code":"INVALID_REQUEST","message":"boom"}})
                }
                _ => json!({"type":"res","id":id,"ok":true,"payload":{"ok":true,"compacted":false,"reason":"Already compacted"}}),
            };
            send(&mut ws, res).await;
        }
    })
    .await;
    let (_d, id) = identity();
    let c = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap();
    let e = c.compact("agent:main:x").await.unwrap_err();
    assert!(
        matches!(&e, GatewayError::MissingScope { scope, .. } if scope == "operator.admin"),
        "{e:?}"
    );
    assert!(e.to_string().contains("openclaw devices"), "{e}");
    let e = c.compact("agent:main:busy").await.unwrap_err();
    assert!(matches!(e, GatewayError::ActiveRun { .. }), "{e:?}");
    let e = c.chat_history("agent:main:x", 10).await.unwrap_err();
    assert!(
        e.to_string().contains("chat.history") && e.to_string().contains("boom"),
        "{e}"
    );
    let e = c
        .compact_with_instructions("agent:main:x", &"é".repeat(801), Duration::from_secs(2))
        .await
        .unwrap_err();
    assert!(
        matches!(e, GatewayError::InstructionsTooLong { len: 801 }),
        "{e:?}"
    );
    assert!(
        !methods(&seen).iter().any(|m| m == "chat.send"),
        "nothing sent for refused instructions"
    );
}

#[tokio::test]
async fn unreachable_and_not_a_websocket() {
    let (_d, id) = identity();
    // A port with nothing listening.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let e = GatewayClient::connect(&target(format!("ws://127.0.0.1:{port}")), &id, quick())
        .await
        .unwrap_err();
    assert!(matches!(e, GatewayError::Unreachable { .. }), "{e:?}");
    assert!(e.to_string().contains("ssh -N -L"), "{e}");
    // An HTTP server that is not a WebSocket endpoint.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut s, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 4096];
        let _ = s.read(&mut buf).await;
        let _ = s
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
    });
    let e = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("not a WebSocket endpoint (HTTP 404)"),
        "{e}"
    );
}

/// The `--gateway` session source over a bad gateway: `list` and `open_transcript` end in a
/// clear error (in `Listing::errors` / `Err`), quickly, never a hang or a panic.
mod source {
    use super::*;
    use clawtop::source::gateway::GatewaySource;
    use clawtop::source::{SessionRef, SessionSource};

    /// Runs `f` on a blocking thread (the source waits synchronously) with a source on `url`.
    async fn with_source<T: Send + 'static>(
        url: String,
        f: impl FnOnce(&GatewaySource) -> T + Send + 'static,
    ) -> T {
        tokio::task::spawn_blocking(move || {
            let (_d, id) = identity();
            let s = GatewaySource::with_identity(target(url), quick(), Arc::new(id)).unwrap();
            f(&s)
        })
        .await
        .unwrap()
    }

    /// The TUI on a `--gateway` source (scripted like 2026.9: rows from `sessions.list`, a
    /// history whose compaction marker has no summary): the figures' source is the gateway's
    /// row, not a "store entry", and the compaction card says its summary is unknown (not ≈0).
    #[tokio::test(flavor = "multi_thread")]
    async fn tui_gateway_rows_say_gateway_and_unknown_summaries() {
        use crate::support::tui::{host_app, key, screen};
        use clawtop::tui::effects::drive;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            loop {
                let (tcp, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                        return;
                    };
                    let seen = Seen::default();
                    hello(&mut ws, &seen).await;
                    while let Some(req) = recv(&mut ws, &seen).await {
                        let id = req["id"].clone();
                        let payload = match req["method"].as_str().unwrap() {
                            "sessions.list" => {
                                json!({"sessions":[{"key":"agent:main:incident-7","agentId":"main",
                                "sessionId":"sid-7","totalTokens":29144,"totalTokensFresh":true,"contextTokens":48000,
                                "updatedAt":1_795_457_042_282i64,"hasActiveRun":false}]})
                            }
                            "chat.history" => {
                                json!({"sessionKey":"agent:main:incident-7","sessionId":"sid-7","messages":[
                                {"role":"user","content":"hi","timestamp":1_795_457_032_000i64,"__openclaw":{"id":"u1","seq":1}},
                                {"role":"system","content":[{"type":"text","text":"Compaction"}],"timestamp":1_795_457_032_079i64,
                                 "__openclaw":{"kind":"compaction","id":"c1","tokensBefore":37946,"tokensAfter":15042,"seq":2}},
                                {"role":"assistant","content":[{"type":"text","text":"ok"}],"__openclaw":{"id":"a1","seq":3}}
                            ],"hasMore":false})
                            }
                            _ => json!({}),
                        };
                        send(
                            &mut ws,
                            json!({"type":"res","id":id,"ok":true,"payload":payload}),
                        )
                        .await;
                    }
                });
            }
        });
        let s = tokio::task::spawn_blocking(move || {
            let (_d, id) = identity();
            let src: clawtop::source::SourceHandle =
                Arc::new(GatewaySource::with_identity(target(url), quick(), Arc::new(id)).unwrap());
            let (mut state, ctx) = host_app(src, (100, 30));
            drive(&mut state, &ctx, key(crossterm::event::KeyCode::Enter));
            screen(&state)
        })
        .await
        .unwrap();
        assert!(
            s.contains("[gateway row]") && !s.contains("store entry"),
            "{s}"
        );
        assert!(
            s.contains("summary unknown (not exposed by the gateway)") && !s.contains("summary ≈0"),
            "{s}"
        );
    }

    fn incident() -> SessionRef {
        SessionRef {
            source: String::new(),
            agent_id: "main".into(),
            key: "agent:main:incident-7".into(),
            session_id: String::new(),
        }
    }

    #[tokio::test]
    async fn list_when_closed_mid_handshake() {
        let (url, _) = serve(|mut ws, seen| async move {
            challenge(&mut ws).await;
            let _ = recv(&mut ws, &seen).await;
            let _ = ws.close(None).await;
        })
        .await;
        let t0 = Instant::now();
        let l = with_source(url, |s| s.list(None)).await;
        assert_quick(t0);
        assert!(l.sessions.is_empty());
        assert_eq!(l.errors.len(), 1, "{:?}", l.errors);
        assert!(l.errors[0].contains("handshake"), "{:?}", l.errors);
    }

    #[tokio::test]
    async fn list_when_the_gateway_never_answers() {
        let (url, _) = serve(|mut ws, seen| async move {
            hello(&mut ws, &seen).await;
            while recv(&mut ws, &seen).await.is_some() {}
        })
        .await;
        let t0 = Instant::now();
        let l = with_source(url, |s| s.list(None)).await;
        assert_quick(t0);
        assert!(
            l.errors.len() == 1 && l.errors[0].contains("sessions.list"),
            "{:?}",
            l.errors
        );
    }

    #[tokio::test]
    async fn list_and_show_with_malformed_and_refused_answers() {
        let (url, _) = serve(|mut ws, seen| async move {
            hello(&mut ws, &seen).await;
            while let Some(req) = recv(&mut ws, &seen).await {
                let id = req["id"].clone();
                match req["method"].as_str().unwrap() {
                    // A list without its array, then ok:false for the history.
                    "sessions.list" => {
                        send(&mut ws, json!({"type":"res","id":id,"ok":true,"payload":{"count":3}}))
                            .await
                    }
                    _ => {
                        send(&mut ws, json!({"type":"res","id":id,"ok":false,"error":{"code":"INVALID_REQUEST","message":"no \u{1b}[31mhistory"}}))
                            .await
                    }
                }
            }
        })
        .await;
        let t0 = Instant::now();
        let (l, t) = with_source(url, |s| (s.list(None), s.open_transcript(&incident()))).await;
        assert_quick(t0);
        assert!(
            l.errors.len() == 1 && l.errors[0].contains("sessions array"),
            "{:?}",
            l.errors
        );
        let Err(e) = t else {
            panic!("ok:false is an error")
        };
        let e = e.to_string();
        assert!(
            e.contains("chat.history") && e.contains("history") && !e.contains('\u{1b}'),
            "{e}"
        );
    }

    #[tokio::test]
    async fn show_when_a_frame_is_not_json() {
        let (url, _) = serve(|mut ws, seen| async move {
            hello(&mut ws, &seen).await;
            let _ = recv(&mut ws, &seen).await;
            let _ = ws.send(Message::text("{not json")).await;
            while recv(&mut ws, &seen).await.is_some() {}
        })
        .await;
        let t0 = Instant::now();
        let t = with_source(url, |s| s.open_transcript(&incident())).await;
        assert_quick(t0);
        assert!(t.is_err(), "a malformed frame is an error");
    }
}

/// Scripted like OpenClaw 2026.7.1: `activeOnly` rejected, rows that may lack `hasActiveRun`.
async fn older_gateway(mut ws: Ws, seen: Seen) {
    hello(&mut ws, &seen).await;
    while let Some(req) = recv(&mut ws, &seen).await {
        let id = req["id"].clone();
        let p = &req["params"];
        let res = match req["method"].as_str().unwrap() {
            "sessions.describe" => {
                json!({"type":"res","id":id,"ok":true,"payload":{"session":{"key":p["key"]}}})
            }
            "sessions.list" if p.get("activeOnly").is_some() => {
                json!({"type":"res","id":id,"ok":false,"error":{"code":"INVALID_REQUEST","message":"invalid sessions.list params: at root: unexpected property 'activeOnly'"}})
            }
            "chat.send" => {
                // OpenClaw's ack, then the command's final chat event.
                let run = p["idempotencyKey"].clone();
                send(&mut ws, json!({"type":"res","id":id,"ok":true,"payload":{"runId":run,"status":"started"}})).await;
                json!({"type":"event","event":"chat","payload":{"runId":run,"sessionKey":p["sessionKey"],"state":"final","message":{"role":"assistant","content":[{"type":"text","text":"⚙️ Compacted (76k → 1k) • Context 1k/48k"}]}}})
            }
            "sessions.list" => {
                json!({"type":"res","id":id,"ok":true,"payload":{"sessions":[
                    {"key":"agent:main:quiet"},
                    {"key":"agent:main:main","totalTokens":75943,"totalTokensFresh":true,"contextTokens":48000},
                    {"key":"agent:main:busy","hasActiveRun":true},
                    {"key":"agent:main:idle","hasActiveRun":false}
                ]}})
            }
            _ => {
                json!({"type":"res","id":id,"ok":true,"payload":{"ok":true,"compacted":true,"result":{"summary":"S","tokensBefore":10,"tokensAfter":2}}})
            }
        };
        send(&mut ws, res).await;
    }
}

/// A gateway from before 2026.9 (2026.7.1 observed): `sessions.list` rejects `activeOnly`, and
/// its rows may not say whether a run is active. Unknown is never taken as idle: nothing is
/// sent unless the caller vouched (it saw OpenClaw's transcript lock free on the host itself);
/// a row that does say is believed either way.
#[tokio::test]
async fn older_gateway_without_active_only() {
    let script = older_gateway;
    let compacts = |seen: &Seen| {
        methods(seen)
            .iter()
            .filter(|m| *m == "sessions.compact")
            .count()
    };
    let (_d, id) = identity();

    let (url, seen) = serve(script).await;
    let c = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap();
    let e = c.compact("agent:main:quiet").await.unwrap_err();
    assert!(matches!(e, GatewayError::RunStateUnknown { .. }), "{e:?}");
    assert!(e.to_string().contains("--via-gateway"), "{e}");
    let e = c.compact("agent:main:busy").await.unwrap_err();
    assert!(matches!(e, GatewayError::ActiveRun { .. }), "{e:?}");
    assert_eq!(compacts(&seen), 0, "nothing sent on unknown or active");
    c.compact("agent:main:idle")
        .await
        .expect("the row says idle");
    assert_eq!(compacts(&seen), 1);

    let (url, seen) = serve(script).await;
    let c = GatewayClient::connect(&target(url), &id, quick())
        .await
        .unwrap();
    c.vouch_idle();
    c.compact("agent:main:quiet")
        .await
        .expect("vouched idle where the gateway does not say");
    let e = c.compact("agent:main:busy").await.unwrap_err();
    assert!(
        matches!(e, GatewayError::ActiveRun { .. }),
        "a gateway that says a run is active is believed over the vouch: {e:?}"
    );
    assert_eq!(compacts(&seen), 1);
}

/// `compact KEY --via-gateway` on a file-backed host whose gateway runs: the session is found
/// locally, the gateway's address and token come from the host's config, OpenClaw's transcript
/// lock is checked here (this gateway does not say whether a run is active), and the gateway
/// compacts. With the lock held by a live process: refused (exit 3), nothing sent.
#[tokio::test(flavor = "multi_thread")]
async fn via_gateway_on_a_file_backed_host() {
    use crate::support::cli::{Home, run_async};
    let (url, seen) = serve(older_gateway).await;
    let port = url.rsplit(':').next().unwrap().to_string();
    let h = Home::host_a();
    h.set_gateway(&port, TOKEN);
    let o = run_async(&h, &["compact", "main", "--via-gateway", "--yes", "--json"]).await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["compacted"], true, "{v}");
    assert!(
        o.stderr.contains("gateway is likely running"),
        "{}",
        o.stderr
    );
    let sent: Vec<Value> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|f| f["method"] == "sessions.compact")
        .cloned()
        .collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["params"]["key"], "agent:main:main", "the full key");

    // A live process holds OpenClaw's transcript lock: refused before connecting.
    let (url2, seen2) = serve(older_gateway).await;
    let port2 = url2.rsplit(':').next().unwrap().to_string();
    h.set_gateway(&port2, TOKEN);
    h.hold_transcript_lock();
    let o = run_async(&h, &["compact", "main", "--via-gateway", "--yes"]).await;
    o.expect(3);
    assert!(o.stderr.contains("busy"), "{}", o.stderr);
    assert!(
        methods(&seen2).is_empty(),
        "nothing sent: {:?}",
        methods(&seen2)
    );

    // --via-gateway is for file-backed hosts' own gateways only.
    let o = run_async(
        &h,
        &["compact", "main", "--via-gateway", "--gateway", &url2],
    )
    .await;
    o.expect(2);
}

/// The TUI's `G` on a file-backed host whose gateway runs (scripted like 2026.7.1): the Compact
/// dialog through that gateway opens from the Sessions screen, says OpenClaw writes the
/// summary, checks OpenClaw's transcript lock itself, sends `/compact <instructions>`, and shows
/// the result. With the lock held, nothing is sent.
#[tokio::test(flavor = "multi_thread")]
async fn tui_compacts_a_file_backed_session_through_its_running_gateway() {
    use crate::support::cli::Home;
    use crate::support::tui::{ctrl, host_app, screen, type_str};
    use clawtop::tui::action::Action;
    use clawtop::tui::dialog::Prep;
    use clawtop::tui::effects::{Effect, drive, drive_collect, run_gateway_compaction};
    let (url, seen) = serve(older_gateway).await;
    let port = url.rsplit(':').next().unwrap().to_string();
    let h = Home::host_a();
    h.set_gateway(&port, TOKEN);
    let host = crate::support::open_host(h.state());
    let (_d, _) = identity();
    let id_dir = _d.path().to_path_buf();
    let (mut state, ctx) = host_app(clawtop::source::for_host(host), (120, 40));
    assert!(screen(&state).contains(&format!("gateway running :{port}")));
    drive(&mut state, &ctx, Action::OpenCompactViaGateway);
    let d = state
        .dialog
        .as_mut()
        .expect("the gateway Compact dialog opens");
    let Some(Prep::Gateway(g)) = d.prep.as_mut() else {
        panic!("not the gateway dialog: {:?}", d.prep)
    };
    assert!(g.vouch_idle, "a file-backed host's own gateway");
    assert_eq!(g.target.url, url);
    g.identity_dir = Some(id_dir.clone());
    let s = screen(&state);
    assert!(s.contains("running gateway") && s.contains("0/800"), "{s}");
    type_str(&mut state, &ctx, "Keep ticket QK-71.");

    // With OpenClaw's transcript lock held by a live process: refused, nothing sent.
    let lock = h.hold_transcript_lock();
    let run = |state: &mut clawtop::tui::state::AppState| {
        // Ctrl-G asks first; y sends.
        let (_, pending) = drive_collect(state, &ctx, ctrl('g'));
        assert!(pending.is_empty(), "nothing sent before the confirmation");
        let (_, mut pending) = drive_collect(state, &ctx, crate::support::tui::ch('y'));
        let Some(Effect::GatewayCompact {
            dialog,
            generation,
            cancel,
            job,
        }) = pending.pop()
        else {
            panic!("one gateway effect")
        };
        (dialog, generation, cancel, job)
    };
    let (dialog, generation, cancel, job) = run(&mut state);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    run_gateway_compaction(dialog, generation, cancel, *job, tx).await;
    while let Ok(a) = rx.try_recv() {
        drive(&mut state, &ctx, a);
    }
    let d = state.dialog.as_ref().unwrap();
    assert!(
        d.error.as_deref().is_some_and(|e| e.contains("busy")),
        "{:?}",
        d.error
    );
    assert!(
        methods(&seen).is_empty(),
        "nothing sent: {:?}",
        methods(&seen)
    );

    // Lock gone: sent as /compact with the instructions (this gateway does not report runs;
    // the lock check stands), and the dialog shows what OpenClaw answered.
    std::fs::remove_file(&lock).unwrap();
    let (dialog, generation, cancel, job) = run(&mut state);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    run_gateway_compaction(dialog, generation, cancel, *job, tx).await;
    while let Ok(a) = rx.try_recv() {
        drive(&mut state, &ctx, a);
    }
    let sent: Vec<Value> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|f| f["method"] == "chat.send")
        .cloned()
        .collect();
    assert_eq!(sent.len(), 1, "{:?}", methods(&seen));
    assert_eq!(sent[0]["params"]["sessionKey"], "agent:main:main");
    assert_eq!(sent[0]["params"]["message"], "/compact Keep ticket QK-71.");
    let d = state.dialog.as_ref().unwrap();
    assert!(d.error.is_none(), "{:?}", d.error);
    assert_eq!(
        d.phase,
        clawtop::tui::dialog::Phase::Done,
        "shown read-only"
    );
    let s = screen(&state);
    assert!(
        s.contains("OpenClaw compacted this session") && s.contains("Compacted (76k → 1k)"),
        "{s}"
    );
}

/// Scripted like a file-backed host's own gateway that compacts: `sessions.compact` appends a
/// compaction entry to the session's transcript and counts it in `sessions.json`, as OpenClaw
/// does, and answers with a summary of its own (`answer`; None: `compacted:false` with the
/// reason "Already compacted", as OpenClaw answers a session whose last entry is a compaction).
fn compacting_gateway(
    transcript: std::path::PathBuf,
    store: std::path::PathBuf,
    answer: Option<&'static str>,
) -> impl FnOnce(Ws, Seen) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> + Send + 'static {
    move |mut ws, seen| {
        Box::pin(async move {
            hello(&mut ws, &seen).await;
            while let Some(req) = recv(&mut ws, &seen).await {
                let id = req["id"].clone();
                let res = match (req["method"].as_str().unwrap(), answer) {
                    ("sessions.describe", _) => {
                        json!({"type":"res","id":id,"ok":true,"payload":{"session":{"key":req["params"]["key"],"hasActiveRun":false}}})
                    }
                    ("sessions.list", _) => {
                        json!({"type":"res","id":id,"ok":true,"payload":{"sessions":[
                            {"key":"agent:main:main","hasActiveRun":false,"totalTokens":75943,"totalTokensFresh":true,"contextTokens":48000}
                        ]}})
                    }
                    ("sessions.compact", Some(answer)) => {
                        let text = std::fs::read_to_string(&transcript).unwrap();
                        let last: Value =
                            serde_json::from_str(text.lines().last().unwrap()).unwrap();
                        let entry = json!({"type":"compaction","id":"c0ffee01","parentId":last["id"],
                            "timestamp":"2026-11-26T10:00:00.000Z","summary":"## Decisions\nREAD-BACK-SUMMARY 7\n\u{1b}[31mred",
                            "firstKeptEntryId":last["id"],"tokensBefore":75943,"tokensAfter":1483,"fromHook":true});
                        let mut f = std::fs::OpenOptions::new()
                            .append(true)
                            .open(&transcript)
                            .unwrap();
                        std::io::Write::write_all(&mut f, format!("{entry}\n").as_bytes()).unwrap();
                        let mut s: Value =
                            serde_json::from_str(&std::fs::read_to_string(&store).unwrap())
                                .unwrap();
                        let e = &mut s["agent:main:main"];
                        let n = e["compactionCount"].as_u64().unwrap_or(0);
                        e["compactionCount"] = json!(n + 1);
                        std::fs::write(&store, s.to_string()).unwrap();
                        json!({"type":"res","id":id,"ok":true,"payload":{"ok":true,"compacted":true,
                            "result":{"summary":answer,"tokensBefore":75943,"tokensAfter":1483}}})
                    }
                    ("sessions.compact", None) => {
                        json!({"type":"res","id":id,"ok":true,"payload":{"ok":false,"compacted":false,"reason":"Already compacted"}})
                    }
                    _ => {
                        json!({"type":"res","id":id,"ok":false,"error":{"code":"INVALID_REQUEST","message":"not scripted"}})
                    }
                };
                send(&mut ws, res).await;
            }
        })
    }
}

/// `compact --via-gateway --json` carries what OpenClaw wrote, read back from the host after
/// the compaction: the summary of the new compaction entry (not only the gateway's answer),
/// tokensBefore → tokensAfter, and compactionCount before → after from `sessions.json`; the
/// text output shows the same, with the summary's escape neutralised.
#[tokio::test(flavor = "multi_thread")]
async fn compact_via_gateway_reads_back_what_openclaw_wrote() {
    use crate::support::cli::{Home, run_async};
    let h = Home::host_a();
    let count_before = {
        let s: Value = serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
        s["agent:main:main"]["compactionCount"]
            .as_u64()
            .unwrap_or(0)
    };
    let (url, _) = serve(compacting_gateway(
        h.transcript(),
        h.store(),
        Some("ANSWER-S"),
    ))
    .await;
    h.set_gateway(url.rsplit(':').next().unwrap(), TOKEN);
    let o = run_async(&h, &["compact", "main", "--via-gateway", "--yes", "--json"]).await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["compacted"], true, "{v}");
    let summary = v["summary"].as_str().expect("the summary, not null");
    assert!(
        summary.contains("READ-BACK-SUMMARY 7"),
        "read back from the host: {v}"
    );
    assert!(
        v["summaryFrom"].as_str().unwrap().contains("read back"),
        "{v}"
    );
    assert_eq!(v["tokensBefore"], 75943);
    assert_eq!(v["tokensAfter"], 1483);
    assert_eq!(v["compactionCountBefore"], count_before);
    assert_eq!(v["compactionCount"], count_before + 1);

    // The text output (a fresh copy): the same figures, the summary neutralised.
    let h = Home::host_a();
    let (url, _) = serve(compacting_gateway(
        h.transcript(),
        h.store(),
        Some("ANSWER-S"),
    ))
    .await;
    h.set_gateway(url.rsplit(':').next().unwrap(), TOKEN);
    let o = run_async(&h, &["compact", "main", "--via-gateway", "--yes"]).await;
    o.expect(0);
    let out = o.text();
    assert!(
        out.contains("tokensBefore 75,943 → tokensAfter 1,483")
            && out.contains(&format!(
                "compactionCount {} → {}",
                count_before,
                count_before + 1
            ))
            && out.contains("READ-BACK-SUMMARY 7"),
        "{out}"
    );
    assert!(
        !out.contains('\u{1b}'),
        "escape reached the terminal: {out:?}"
    );
}

/// A compaction OpenClaw skipped (`compacted:false` inside a successful answer) is a failure:
/// exit 1 with OpenClaw's reason on stderr (and in the JSON), never `ok:false` with exit 0.
#[tokio::test(flavor = "multi_thread")]
async fn compaction_openclaw_skipped_is_exit_1_with_its_reason() {
    use crate::support::cli::{Home, run_async};
    let h = Home::host_a();
    let (url, _) = serve(compacting_gateway(h.transcript(), h.store(), None)).await;
    h.set_gateway(url.rsplit(':').next().unwrap(), TOKEN);
    let o = run_async(&h, &["compact", "main", "--via-gateway", "--yes", "--json"]).await;
    o.expect(1);
    let v = o.json();
    assert_eq!(v["compacted"], false, "{v}");
    assert_eq!(v["reason"], "Already compacted", "{v}");
    assert!(
        o.stderr.contains("did not compact") && o.stderr.contains("Already compacted"),
        "{}",
        o.stderr
    );
    // Through an address, as through a tunnel: the same.
    let (url, _) = serve(compacting_gateway(h.transcript(), h.store(), None)).await;
    let home = h.path().to_path_buf();
    let o = tokio::task::spawn_blocking(move || {
        crate::support::cli::run_with(
            &home,
            &["compact", "agent:main:main", "--gateway", &url, "--yes"],
            &[("OPENCLAW_GATEWAY_TOKEN", TOKEN)],
        )
    })
    .await
    .unwrap();
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("Already compacted"), "{}", o.stderr);
}

/// `compact KEY --gateway URL --instructions … --json` on a host reached only through its
/// gateway (scripted like 2026.9): `/compact` returns a notice only, so tokensBefore →
/// tokensAfter come from the new compaction marker of `chat.history`; the summary is null and
/// `summaryFrom` says why (2026.9's gateway does not expose it).
#[tokio::test(flavor = "multi_thread")]
async fn compact_through_an_address_reads_the_figures_from_the_new_marker() {
    use crate::support::cli::Home;
    let (url, _) = serve(|mut ws, seen| async move {
        hello(&mut ws, &seen).await;
        let mut histories = 0;
        while let Some(req) = recv(&mut ws, &seen).await {
            let id = req["id"].clone();
            let p = &req["params"];
            let marker = |mid: &str, before: u64, after: u64| {
                json!({"role":"system","content":[{"type":"text","text":"Compaction"}],
                       "__openclaw":{"kind":"compaction","id":mid,"tokensBefore":before,"tokensAfter":after}})
            };
            let res = match req["method"].as_str().unwrap() {
                "sessions.list" => json!({"type":"res","id":id,"ok":true,"payload":{"sessions":[
                    {"key":"agent:main:main","sessionId":"sid-1","hasActiveRun":false,"totalTokens":75943,"totalTokensFresh":true,"contextTokens":48000}]}}),
                "sessions.describe" => json!({"type":"res","id":id,"ok":true,"payload":{"session":{"key":p["key"],"hasActiveRun":false}}}),
                "chat.history" => {
                    histories += 1;
                    let mut msgs = vec![marker("old", 50000, 9000)];
                    if histories > 1 {
                        msgs.push(marker("new", 75943, 1483));
                    }
                    json!({"type":"res","id":id,"ok":true,"payload":{"sessionId":"sid-1","messages":msgs,"hasMore":false}})
                }
                "chat.send" => {
                    let run = p["idempotencyKey"].clone();
                    send(&mut ws, json!({"type":"res","id":id,"ok":true,"payload":{"runId":run,"status":"started"}})).await;
                    json!({"type":"event","event":"chat","payload":{"runId":run,"sessionKey":p["sessionKey"],"state":"final",
                        "message":{"role":"assistant","content":[{"type":"text","text":"⚙️ Compacted (76k → 1k) • Context 1k/48k"}]}}})
                }
                _ => json!({"type":"res","id":id,"ok":false,"error":{"code":"INVALID_REQUEST","message":"not scripted"}}),
            };
            send(&mut ws, res).await;
        }
    })
    .await;
    let h = Home::empty();
    let home = h.path().to_path_buf();
    let o = tokio::task::spawn_blocking(move || {
        crate::support::cli::run_with(
            &home,
            &[
                "compact",
                "agent:main:main",
                "--gateway",
                &url,
                "--instructions",
                "Keep QK-9.",
                "--yes",
                "--json",
            ],
            &[("OPENCLAW_GATEWAY_TOKEN", TOKEN)],
        )
    })
    .await
    .unwrap();
    o.expect(0);
    let v = o.json();
    assert_eq!(v["compacted"], true, "{v}");
    assert_eq!(v["tokensBefore"], 75943, "{v}");
    assert_eq!(v["tokensAfter"], 1483, "{v}");
    assert!(v["summary"].is_null(), "{v}");
    assert!(
        v["summaryFrom"].as_str().unwrap().starts_with("unknown: "),
        "{v}"
    );
    assert!(v["compactionCount"].is_null(), "{v}");
}
