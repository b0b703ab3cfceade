//! Issue 20 item 4: the gateway token and the device's private key never reach clawtop's log,
//! at any `CLAWTOP_LOG` level, including one that asks for the WebSocket library's own trace
//! (tungstenite logs every frame it sends, the connect frame with the token among them).

use crate::gateway_budget::{Script, scripted_gateway};
use serde_json::Value;
use std::path::Path;

const TOKEN: &str = "log-leak-token-5f1e0c9a7b3d";

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
    let url = scripted_gateway(Script::Fail).await;
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
