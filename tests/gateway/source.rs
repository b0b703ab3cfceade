//! `--gateway` as a session source, against a real OpenClaw 2026.9.6 gateway on a copy of
//! host-f: `list --json` and `show --entries` through the gateway agree with what the local
//! SQLite source reads from the same copy wherever both have the figure; what the gateway does
//! not expose is null with a reason; the source's `subscribe` reports a change made through
//! the gateway.

use std::sync::Arc;
use std::time::Duration;

use clawtop::gateway::{DeviceIdentity, GatewayClient, GatewayTarget, Timeouts};
use clawtop::llm::Secret;
use clawtop::source::{Change, SessionSource};
use serde_json::Value;

use crate::support::fake_model::{FakeModel, Reply};
use crate::support::openclaw_gateway::RealGateway;

const SUMMARY: &str = "## Decisions\nFAKE-SUMMARY-OK\n## Open TODOs\n- none\n## Constraints/Rules\n- none\n## Pending user asks\n- none\n## Exact identifiers\n- none\n";
const INCIDENT: &str = "agent:main:incident-7";
const DRILL: &str = "agent:ops:dr-drill";

async fn clawtop(gw: &RealGateway, args: &[&str]) -> (i32, String, String) {
    clawtop_env(gw, args, &[]).await
}

async fn clawtop_env(
    gw: &RealGateway,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_clawtop"));
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", gw.dir().join("home"))
        .env("CLAWTOP_CONFIG_DIR", gw.dir().join("clawtop-config"))
        .env("OPENCLAW_GATEWAY_TOKEN", gw.token())
        .stdin(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The test gateway, with its token.
fn gateway_target(gw: &RealGateway) -> GatewayTarget {
    GatewayTarget {
        url: gw.url(),
        url_source: "test".into(),
        token: Some(Secret::new(gw.token())),
        token_source: "test".into(),
        loopback: true,
    }
}

fn by_key(list: &Value) -> std::collections::BTreeMap<String, Value> {
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["sessionKey"].as_str().unwrap().to_string(), s.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gateway_source_agrees_with_the_local_sqlite_source() {
    let fake = FakeModel::start().await;
    fake.set_fallback(Reply::text(SUMMARY));
    let gw = RealGateway::start(&fake.base_url()).await;
    let url = gw.url();
    let state = gw.state_dir().display().to_string();

    // 1. list --json: the same sessions and figures as the local read of the same copy.
    let (code, out, err) = clawtop(&gw, &["list", "--json", "--gateway", &url]).await;
    assert_eq!(code, 0, "list --gateway: {err}");
    assert!(!out.contains(gw.token()) && !err.contains(gw.token()));
    let remote: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(remote["era"], "gateway");
    let (code, out, err) = clawtop(&gw, &["--state-dir", &state, "list", "--json"]).await;
    assert_eq!(code, 0, "local list: {err}");
    let local: Value = serde_json::from_str(&out).unwrap();
    let (remote, local) = (by_key(&remote), by_key(&local));
    assert_eq!(
        remote.keys().collect::<Vec<_>>(),
        local.keys().collect::<Vec<_>>()
    );
    for (k, r) in &remote {
        let l = &local[k];
        for f in [
            "agentId",
            "sessionId",
            "model",
            "window",
            "used",
            "usedSource",
            "totalTokens",
            "totalTokensFresh",
            "contextTokens",
            "reserve",
            "compactAt",
            "status",
            "rules",
        ] {
            assert_eq!(r[f], l[f], "{k}: {f} through the gateway vs local");
        }
        // Not exposed: null with the reason, never 0.
        assert_eq!(r["compactionCount"], Value::Null, "{k}");
        assert_eq!(r["memoryFlushCompactionCount"], Value::Null, "{k}");
        assert_eq!(r["flushAt"], Value::Null, "{k}");
        assert!(
            r["unknown"]["flushAt"]
                .as_str()
                .unwrap()
                .contains("softThresholdTokens")
        );
        for f in ["compactionCount", "memoryFlush", "compactionSummary"] {
            assert_eq!(r["unknown"][f], "not exposed by the gateway", "{k}: {r}");
        }
        assert!(
            r["flushReason"]
                .as_str()
                .unwrap()
                .contains("not exposed by the gateway"),
            "{k}: {}",
            r["flushReason"]
        );
        assert!(
            l.get("unknown").is_none(),
            "the local read knows everything"
        );
    }
    assert_eq!(local[INCIDENT]["compactionCount"], 1);

    // Text: CMP (the column before ETA) is "?" (unknown), and the reason is printed.
    let (code, out, err) = clawtop(&gw, &["list", "--gateway", &url]).await;
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.contains(INCIDENT)).unwrap();
    let cols: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cols[cols.len() - 2], "?", "{line}");
    assert!(err.contains("not exposed by the gateway"), "{err}");

    // history through the gateway: the compaction from chat.history; what the gateway does
    // not expose (compactionCount, memoryFlush) stays unknown, never "no flush".
    let (code, out, err) = clawtop(&gw, &["history", INCIDENT, "--gateway", &url, "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let h: Value = serde_json::from_str(&out).unwrap();
    assert!(h["compactionCount"].is_null(), "{h}");
    let c = h["compactions"].as_array().unwrap();
    assert_eq!(c.len(), 1, "{h}");
    assert_eq!(c[0]["flushBefore"], "unknown", "{h}");
    assert!(
        !h["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["code"] == "no-flush-before-compaction"),
        "{h}"
    );

    // Secrets: with tracing at its most verbose, neither the token nor any string of the
    // identity file's private key is printed; a wrong token from a file says what to do.
    let (code, out, err) = clawtop_env(
        &gw,
        &["list", "--gateway", &url],
        &[("CLAWTOP_LOG", "trace")],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let id_file: Value = serde_json::from_str(
        &std::fs::read_to_string(gw.dir().join("clawtop-config/device-identity.json")).unwrap(),
    )
    .unwrap();
    let seed = id_file["privateKeySeed"].as_str().unwrap().to_string();
    assert!(seed.len() > 20);
    let mut secrets = vec![gw.token().to_string(), seed];
    let wrong = gw.dir().join("wrong.token");
    std::fs::write(&wrong, "wrong-token-for-the-test-0123456789\n").unwrap();
    let (code2, out2, err2) = clawtop(
        &gw,
        &[
            "list",
            "--gateway",
            &url,
            "--gateway-token-file",
            wrong.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(code2, 1, "{err2}");
    assert!(
        err2.contains("token mismatch") && err2.contains("--gateway-token-file"),
        "{err2}"
    );
    secrets.push("wrong-token-for-the-test-0123456789".into());
    for text in [&out, &err, &out2, &err2] {
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "a secret was printed: {text}");
        }
    }

    // An agent the gateway does not serve is an error, as on a local host, not an empty list.
    let (code, _, err) = clawtop(&gw, &["list", "--gateway", &url, "--agent", "nope"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no agent \"nope\""), "{err}");

    // 2. show --entries: the transcript from chat.history; its messages are the local ones.
    let (code, out, err) = clawtop(
        &gw,
        &["show", "--gateway", &url, INCIDENT, "--entries", "--json"],
    )
    .await;
    assert_eq!(code, 0, "show --gateway: {err}");
    let remote: Value = serde_json::from_str(&out).unwrap();
    let (code, out, err) = clawtop(
        &gw,
        &[
            "--state-dir",
            &state,
            "show",
            INCIDENT,
            "--entries",
            "--json",
        ],
    )
    .await;
    assert_eq!(code, 0, "local show: {err}");
    let local: Value = serde_json::from_str(&out).unwrap();
    let messages = |v: &Value, ty: &str| -> Vec<String> {
        v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == ty)
            .map(|e| e["id"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let (rm, lm) = (messages(&remote, "message"), messages(&local, "message"));
    assert!(!rm.is_empty());
    // chat.history leaves out non-chat entries but every message it sends is a local one.
    for id in &rm {
        assert!(lm.contains(id), "message {id} not in the local transcript");
    }
    assert_eq!(
        messages(&remote, "compaction"),
        messages(&local, "compaction"),
        "the compaction marker is the local compaction entry"
    );
    assert_eq!(remote["used"], local["used"]);
    assert_eq!(remote["window"], local["window"]);
    assert_eq!(
        remote["unknown"]["compactionSummary"],
        "not exposed by the gateway"
    );

    // Text: the unknowns say why, nothing reads as "none".
    let (code, out, err) = clawtop(&gw, &["show", "--gateway", &url, INCIDENT]).await;
    assert_eq!(code, 0, "{err}");
    for label in ["compactions", "flush line", "memory flush"] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label} line: {out}"));
        assert!(
            line.contains("unknown") && line.contains("not exposed by the gateway"),
            "{line}"
        );
    }

    // 2b. The TUI on the gateway source (what `clawtop --gateway URL` shows), driven headless:
    //     the Sessions screen lists the gateway's sessions with the unknowns marked, and Enter
    //     opens a transcript read through chat.history.
    {
        let target = gateway_target(&gw);
        let id =
            Arc::new(DeviceIdentity::load_or_create(&gw.dir().join("clawtop-config")).unwrap());
        tokio::task::spawn_blocking(move || {
            use crate::support::tui::{host_app, key, screen};
            use clawtop::tui::effects::drive;
            let source: clawtop::source::SourceHandle = Arc::new(
                clawtop::source::gateway::GatewaySource::with_identity(
                    target,
                    Timeouts::default(),
                    id,
                )
                .unwrap(),
            );
            let (mut state, ctx) = host_app(source.clone(), (120, 40));
            let s = screen(&state);
            let keys: Vec<&str> = state.sessions.rows.iter().map(|r| r.key()).collect();
            for k in [INCIDENT, DRILL, "agent:ops:main"] {
                assert!(
                    keys.contains(&k),
                    "{k} listed through the gateway: {keys:?}"
                );
            }
            assert!(
                s.contains("incident-7")
                    && s.contains("dr-drill")
                    && s.split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .contains("not exposed"),
                "{s}"
            );
            let pos = state
                .sessions
                .rows
                .iter()
                .position(|r| r.key() == INCIDENT)
                .unwrap();
            for _ in 0..pos {
                drive(&mut state, &ctx, key(crossterm::event::KeyCode::Down));
            }
            drive(&mut state, &ctx, key(crossterm::event::KeyCode::Enter));
            let v = state.session.as_ref().expect("the Session screen");
            let loaded = v.loaded.as_ref().expect("the transcript was read");
            assert!(
                loaded.transcript.entries.len() > 3,
                "entries from chat.history"
            );
            let s = screen(&state);
            assert!(s.contains("incident-7"), "{s}");
            // What the gateway does not expose reads as unknown, never as a default.
            assert!(s.contains("compaction count unknown"), "{s}");
            assert!(
                s.contains("unknown: the host's memoryFlush settings"),
                "{s}"
            );
            assert!(
                !s.contains("never flushed") && !s.contains("to flush"),
                "{s}"
            );
            drop(state);
            drop(ctx);
            drop(source);
        })
        .await
        .unwrap();
    }

    // 3. subscribe: a compaction made through the gateway is reported.
    let target = gateway_target(&gw);
    let id = Arc::new(DeviceIdentity::load_or_create(&gw.dir().join("clawtop-config")).unwrap());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (t2, id2) = (target.clone(), id.clone());
    let source = tokio::task::spawn_blocking(move || {
        let s =
            clawtop::source::gateway::GatewaySource::with_identity(t2, Timeouts::default(), id2)
                .unwrap();
        assert!(matches!(
            s.changes(clawtop::source::Watch::Sessions { agent: None }),
            clawtop::source::Changes::Pushed
        ));
        assert!(s.list(None).errors.is_empty());
        assert!(s.subscribe(Box::new(move |c| {
            let _ = tx.send(c);
        })));
        s
    })
    .await
    .unwrap();
    let client = GatewayClient::connect(&target, &id, Timeouts::default())
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    // Live(true) comes once the watcher is subscribed: only then is the change made.
    let mut compacted = false;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(Change::Live(up))) => {
                assert!(up, "the watcher lost the gateway");
                if !compacted {
                    client.compact(DRILL).await.unwrap();
                    compacted = true;
                }
            }
            Ok(Some(Change::Transcript(r))) if r.key == DRILL && compacted => break,
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the subscription ended"),
            Err(_) => panic!("no change for {DRILL} within 60 s (compaction sent: {compacted})"),
        }
    }
    tokio::task::spawn_blocking(move || drop(source))
        .await
        .unwrap();
}
