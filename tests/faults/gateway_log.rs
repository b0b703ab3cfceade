//! Issue 20 item 4: the gateway token and the device's private key never reach clawtop's log,
//! at any `CLAWTOP_LOG` level, including one that asks for the WebSocket library's own trace
//! (tungstenite logs every frame it sends, the connect frame with the token among them).

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::Path;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

const TOKEN: &str = "log-leak-token-5f1e0c9a7b3d";

/// A gateway on loopback that says hello and then fails every request, for as many
/// connections as come; returns its URL.
async fn scripted_gateway() -> String {
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
                    let reply = if req["method"] == "connect" {
                        json!({"type":"res","id":req["id"],"ok":true,"payload":{"type":"hello-ok","protocol":4,"server":{"version":"test"},"auth":{"scopes":["operator.read"]},"policy":{"tickIntervalMs":30000}}})
                    } else {
                        json!({"type":"res","id":req["id"],"ok":false,"error":{"code":"UNAVAILABLE","message":"scripted"}})
                    };
                    let _ = ws.send(Message::text(reply.to_string())).await;
                }
            });
        }
    });
    url
}

fn read_all_under(dir: &Path) -> String {
    let mut out = String::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.push_str(&read_all_under(&p));
            } else {
                out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_reaches_the_log_at_any_level() {
    let url = scripted_gateway().await;
    for level in [
        "trace",
        "debug",
        "info",
        "tungstenite=trace,tokio_tungstenite=trace",
        "warn,tungstenite=trace",
        "trace,tungstenite::protocol=trace",
    ] {
        let home = tempfile::tempdir().unwrap();
        let state = home.path().join("xdg-state");
        let config = home.path().join("clawtop-config");
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_clawtop"));
        cmd.args(["list", "--json", "--gateway", &url])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("XDG_STATE_HOME", &state)
            .env("CLAWTOP_CONFIG_DIR", &config)
            .env("OPENCLAW_GATEWAY_TOKEN", TOKEN)
            .env("CLAWTOP_LOG", level)
            .stdin(std::process::Stdio::null());
        let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
            .await
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "{level}: {stderr}");
        let log = read_all_under(&state);
        assert!(
            !log.is_empty() || !matches!(level, "trace" | "debug"),
            "{level}: nothing was logged, so the test proves nothing"
        );
        let identity: Value = serde_json::from_str(
            &std::fs::read_to_string(config.join("device-identity.json"))
                .unwrap_or_else(|e| panic!("{level}: no device identity ({e}); {stderr}")),
        )
        .unwrap();
        let seed = identity["privateKeySeed"].as_str().unwrap().to_string();
        assert!(seed.len() > 20);
        for text in [
            &log,
            &stderr,
            &String::from_utf8_lossy(&out.stdout).into_owned(),
        ] {
            assert!(
                !text.contains(TOKEN),
                "{level}: the token was logged: {}",
                text.lines()
                    .filter(|l| l.contains(TOKEN))
                    .map(|l| l.chars().take(200).collect::<String>())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            assert!(!text.contains(&seed), "{level}: the private key was logged");
        }
    }
}
