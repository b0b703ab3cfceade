//! Against a real OpenClaw 2026.9.6 gateway on a copy of host-f, with the fake model server as
//! its provider. One gateway (and one restart) for the whole scenario keeps CI time down; each
//! step says what it checks when it fails. Database figures are read with Python's sqlite3, not
//! with clawtop's code.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clawtop::gateway::live::{self, Backoff, LiveEvent};
use clawtop::gateway::{
    CompactOutcome, DeviceIdentity, GatewayClient, GatewayError, GatewayTarget, Timeouts,
};
use clawtop::llm::Secret;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::support::fake_model::{FakeModel, Reply};
use crate::support::openclaw_gateway::{RealGateway, sqlite_query};

/// What the fake model answers to everything: the five headings OpenClaw's safeguard requires
/// (reference §6), so summarization succeeds; also fine as a turn's answer.
const SUMMARY: &str = "## Decisions\nFAKE-SUMMARY-OK\n## Open TODOs\n- none\n## Constraints/Rules\n- none\n## Pending user asks\n- none\n## Exact identifiers\n- none\n";

const INCIDENT: &str = "agent:main:incident-7";
const OPS_MAIN: &str = "agent:ops:main";
const OPS_MAIN_ID: &str = "d23fd5eb-104f-4895-97d4-898265597e9c";
const DRILL: &str = "agent:ops:dr-drill";
const DRILL_ID: &str = "e050b933-502b-4898-9507-c451ca94449c";

fn target(gw: &RealGateway, token: Option<&str>) -> GatewayTarget {
    GatewayTarget {
        url: gw.url(),
        url_source: "test".into(),
        token: token.map(Secret::new),
        token_source: "test".into(),
        loopback: true,
    }
}

/// Compaction entries in the session's transcript (one identity row per event).
fn compaction_rows(gw: &RealGateway, agent: &str, session_id: &str) -> i64 {
    let rows = sqlite_query(
        &gw.agent_db(agent),
        &format!(
            "SELECT count(*) FROM transcript_event_identities WHERE session_id = '{session_id}' AND event_type = 'compaction'"
        ),
    );
    rows[0][0].as_i64().unwrap()
}

/// `compactionCount` of the entry (absent = 0).
fn compaction_count(gw: &RealGateway, agent: &str, key: &str) -> i64 {
    let rows = sqlite_query(
        &gw.agent_db(agent),
        &format!("SELECT entry_json FROM session_nodes WHERE session_key = '{key}'"),
    );
    let entry: Value = serde_json::from_str(rows[0][0].as_str().unwrap()).unwrap();
    entry
        .get("compactionCount")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Runs the clawtop binary (off the async workers, so the fake model keeps answering).
async fn clawtop(gw: &RealGateway, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_clawtop"));
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", gw.dir().join("home"))
        .env("CLAWTOP_CONFIG_DIR", gw.dir().join("clawtop-config"))
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

async fn next_matching(
    rx: &mut mpsc::Receiver<LiveEvent>,
    within: Duration,
    what: &str,
    pred: impl Fn(&LiveEvent) -> bool,
) -> LiveEvent {
    let deadline = tokio::time::Instant::now() + within;
    let mut seen = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(ev)) if pred(&ev) => return ev,
            Ok(Some(ev)) => seen.push(ev),
            Ok(None) => panic!("the live watcher ended while waiting for {what}; saw {seen:?}"),
            Err(_) => panic!("no {what} within {within:?}; saw {seen:?}"),
        }
    }
}

/// The next pushed change that matches, within 60 s.
async fn next_change(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<clawtop::source::Change>,
    what: &str,
    pred: fn(&clawtop::source::Change) -> bool,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(c)) if pred(&c) => return,
            Ok(Some(c)) => seen.push(c),
            Ok(None) => panic!("the local subscription ended waiting for {what}"),
            Err(_) => panic!("no {what} within 60 s; saw {seen:?}"),
        }
    }
}

async fn wait_until<F, Fut>(within: Duration, what: &str, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let t0 = Instant::now();
    while !f().await {
        assert!(t0.elapsed() < within, "{what}: not within {within:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_gateway_scenario() {
    let fake = FakeModel::start().await;
    fake.set_fallback(Reply::text(SUMMARY));
    let mut gw = RealGateway::start(&fake.base_url()).await;
    let config_dir = gw.dir().join("clawtop-config");
    let identity = Arc::new(DeviceIdentity::load_or_create(&config_dir).unwrap());
    let good = target(&gw, Some(gw.token()));
    let timeouts = Timeouts::default();

    // 1. Handshake with the right token: protocol 4, the three operator scopes, the host served.
    let client = GatewayClient::connect(&good, &identity, timeouts)
        .await
        .expect("handshake with the right token");
    let hello = client.hello().clone();
    assert_eq!(hello.protocol, 4);
    assert_eq!(hello.server_version.as_deref(), Some("2026.9.6"));
    for s in ["operator.read", "operator.write", "operator.admin"] {
        assert!(hello.scopes.iter().any(|g| g == s), "scope {s}: {hello:?}");
    }
    assert_eq!(
        hello.state_dir.as_deref().map(std::path::PathBuf::from),
        Some(gw.state_dir())
    );
    // Silent loopback pairing recorded exactly our device, once.
    let paired = sqlite_query(
        &gw.state_dir().join("state/openclaw.sqlite"),
        "SELECT device_id, client_id, approved_via FROM device_pairing_paired",
    );
    assert_eq!(
        paired,
        vec![json!([identity.device_id(), "cli", "silent"])],
        "one silent pairing for clawtop's own device"
    );

    // 2. Wrong token and no token: refused with what to do; the token never appears.
    let wrong = GatewayClient::connect(
        &target(&gw, Some("wrong-token-0123456789")),
        &identity,
        timeouts,
    )
    .await
    .unwrap_err();
    assert!(matches!(wrong, GatewayError::TokenMismatch), "{wrong:?}");
    let msg = wrong.to_string();
    assert!(msg.contains("OPENCLAW_GATEWAY_TOKEN"), "{msg}");
    assert!(!msg.contains("wrong-token-0123456789") && !msg.contains(gw.token()));
    let missing = GatewayClient::connect(&target(&gw, None), &identity, timeouts)
        .await
        .unwrap_err();
    assert!(
        matches!(missing, GatewayError::TokenMissing { .. }),
        "{missing:?}"
    );

    // 3. sessions.list: every session, figures equal to the database's entries.
    let rows = client.sessions_list().await.unwrap();
    let mut keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
    keys.sort();
    assert_eq!(keys, [INCIDENT, DRILL, OPS_MAIN]);
    for r in &rows {
        let agent = r.agent_id.as_deref().unwrap();
        let db = sqlite_query(
            &gw.agent_db(agent),
            &format!(
                "SELECT entry_json FROM session_nodes WHERE session_key = '{}'",
                r.key
            ),
        );
        let entry: Value = serde_json::from_str(db[0][0].as_str().unwrap()).unwrap();
        assert_eq!(
            r.total_tokens,
            entry["totalTokens"].as_u64(),
            "{}: totalTokens",
            r.key
        );
        assert_eq!(r.context_tokens, entry["contextTokens"].as_u64());
        assert_eq!(
            r.session_id.as_deref(),
            entry["sessionId"].as_str(),
            "{}",
            r.key
        );
        assert_eq!(r.has_active_run, Some(false));
    }
    let history = client.chat_history(INCIDENT, 500).await.unwrap();
    assert!(
        history
            .messages
            .iter()
            .any(|m| m.pointer("/__openclaw/kind") == Some(&json!("compaction"))),
        "chat.history shows incident-7's compaction marker"
    );
    // Paged (three messages a page, older pages through nextOffset): the same messages in the
    // same order as one call; a cap keeps the newest and says there is more.
    let n = history.messages.len();
    assert!(n > 6, "enough messages to page: {n}");
    let paged = client.chat_history_all(INCIDENT, 3, 100_000).await.unwrap();
    assert_eq!(paged.messages, history.messages, "paging changes nothing");
    assert!(!paged.has_more);
    let capped = client.chat_history_all(INCIDENT, 3, 5).await.unwrap();
    assert_eq!(capped.messages, history.messages[n - 5..].to_vec());
    assert!(capped.has_more, "cut short by the cap");

    // 4. Live watcher, connected before anything changes.
    let cancel = CancellationToken::new();
    let backoff = Backoff {
        first: Duration::from_millis(200),
        max: Duration::from_secs(2),
    };
    let mut live_rx = live::watch(
        good.clone(),
        identity.clone(),
        timeouts,
        backoff,
        cancel.clone(),
    );
    next_matching(&mut live_rx, Duration::from_secs(30), "Connected", |e| {
        matches!(e, LiveEvent::Connected { .. })
    })
    .await;

    // 5. Compaction without instructions (sessions.compact): one more compaction entry, count + 1,
    //    the list follows, and the watcher reports the change.
    let rows_before = compaction_rows(&gw, "ops", DRILL_ID);
    let count_before = compaction_count(&gw, "ops", DRILL);
    let out = client.compact(DRILL).await.expect("sessions.compact");
    let CompactOutcome::Compacted {
        summary,
        tokens_after,
        ..
    } = out
    else {
        panic!("not compacted: {out:?}")
    };
    assert!(
        summary.as_deref().unwrap_or("").contains("FAKE-SUMMARY-OK"),
        "{summary:?}"
    );
    assert_eq!(compaction_rows(&gw, "ops", DRILL_ID), rows_before + 1);
    assert_eq!(compaction_count(&gw, "ops", DRILL), count_before + 1);
    next_matching(
        &mut live_rx,
        Duration::from_secs(30),
        "a live change event for dr-drill",
        |e| matches!(e, LiveEvent::SessionChanged { key: Some(k), .. } if k == DRILL),
    )
    .await;
    let drill = client
        .sessions_list()
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.key == DRILL)
        .unwrap();
    assert_eq!(
        drill.total_tokens, tokens_after,
        "the list shows the new figure"
    );

    // 6. Compaction with instructions (/compact through chat.send): the fake model receives them.
    let focus = "Keep the DR drill owner list ZX-41 verbatim.";
    let asked_before = fake.requests().len();
    let rows_before = compaction_rows(&gw, "ops", OPS_MAIN_ID);
    let count_before = compaction_count(&gw, "ops", OPS_MAIN);
    let out = client
        .compact_with_instructions(OPS_MAIN, focus, Duration::from_secs(120))
        .await
        .expect("/compact with instructions");
    assert!(
        matches!(&out, CompactOutcome::Compacted { notice: Some(n), .. } if n.contains("Compacted")),
        "{out:?}"
    );
    let reqs = fake.requests();
    assert!(
        reqs[asked_before..]
            .iter()
            .any(|r| r.raw_body.contains("ZX-41") && r.raw_body.contains("summarization")),
        "the summarization request carried the instructions"
    );
    assert_eq!(compaction_rows(&gw, "ops", OPS_MAIN_ID), rows_before + 1);
    assert_eq!(compaction_count(&gw, "ops", OPS_MAIN), count_before + 1);

    // 7. Too long: refused before anything is sent.
    let asked_before = fake.requests().len();
    let e = client
        .compact_with_instructions(OPS_MAIN, &"x".repeat(801), Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(
        matches!(e, GatewayError::InstructionsTooLong { len: 801 }),
        "{e:?}"
    );
    assert_eq!(compaction_rows(&gw, "ops", OPS_MAIN_ID), rows_before + 1);
    assert_eq!(fake.requests().len(), asked_before);

    // 8. Active run: a turn whose model answer takes 10 s; both compaction paths refuse and
    //    nothing is written.
    fake.set_fallback(Reply::text(SUMMARY).delay_first(Duration::from_secs(10)));
    let rows_before = compaction_rows(&gw, "ops", DRILL_ID);
    client
        .request(
            "chat.send",
            json!({"sessionKey": DRILL, "message": "A slow question.", "idempotencyKey": uuid::Uuid::new_v4().to_string()}),
        )
        .await
        .expect("start a turn");
    wait_until(Duration::from_secs(15), "the turn shows as active", || {
        let c = &client;
        async move { c.has_active_run(DRILL).await.unwrap() }
    })
    .await;
    let e = client.compact(DRILL).await.unwrap_err();
    assert!(matches!(e, GatewayError::ActiveRun { .. }), "{e:?}");
    assert!(e.to_string().contains("nothing was sent"), "{e}");
    let e = client
        .compact_with_instructions(DRILL, "focus", Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(matches!(e, GatewayError::ActiveRun { .. }), "{e:?}");
    assert_eq!(compaction_rows(&gw, "ops", DRILL_ID), rows_before);
    let state = gw.state_dir().display().to_string();
    let (code, out, err) = clawtop(
        &gw,
        &["--state-dir", &state, "compact", DRILL, "--yes"],
        &[],
    )
    .await;
    assert_eq!(code, 3, "the CLI refuses during an active run: {out}{err}");
    assert!(err.contains("active run"), "{err}");
    assert_eq!(compaction_rows(&gw, "ops", DRILL_ID), rows_before);
    // A memory flush on the SQLite host has no transcript lock to see: it asks the gateway,
    // and is refused before anything is appended.
    let ws = gw.dir().join("flush-ws");
    std::fs::create_dir_all(&ws).unwrap();
    let notes = gw.dir().join("notes.md");
    std::fs::write(&notes, "- a note about the drill").unwrap();
    let (ws_arg, notes_arg) = (ws.display().to_string(), notes.display().to_string());
    let (code, out, err) = clawtop(
        &gw,
        &[
            "--state-dir",
            &state,
            "flush",
            DRILL,
            "--workspace",
            &ws_arg,
            "--notes-file",
            &notes_arg,
            "--yes",
        ],
        &[],
    )
    .await;
    assert_eq!(
        code, 3,
        "the flush is refused during an active run: {out}{err}"
    );
    assert!(err.contains("active run"), "{err}");
    assert!(!ws.join("memory").exists(), "nothing appended");
    fake.set_fallback(Reply::text(SUMMARY));
    wait_until(Duration::from_secs(90), "the turn ends", || {
        let c = &client;
        async move { !c.has_active_run(DRILL).await.unwrap() }
    })
    .await;

    // 9. The CLI. On the SQLite host itself: the gateway's address and token come from
    //    OpenClaw's own config (gateway.port / gateway.auth.token of the copy).
    let incident_id = "f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93";
    let rows_before = compaction_rows(&gw, "main", incident_id);
    let (code, out, err) = clawtop(&gw, &["--state-dir", &state, "compact", INCIDENT], &[]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Nothing was sent"), "{out}");
    assert_eq!(compaction_rows(&gw, "main", incident_id), rows_before);
    let (code, out, err) = clawtop(
        &gw,
        &["--state-dir", &state, "compact", INCIDENT, "--yes"],
        &[],
    )
    .await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Compacted agent:main:incident-7") && out.contains("FAKE-SUMMARY-OK"),
        "{out}"
    );
    assert_eq!(compaction_rows(&gw, "main", incident_id), rows_before + 1);
    assert!(!out.contains(gw.token()) && !err.contains(gw.token()));
    // A host reached by address (as through a tunnel), token from the environment, with
    // instructions, JSON out.
    let url = gw.url();
    let asked_before = fake.requests().len();
    let (code, out, err) = clawtop(
        &gw,
        &[
            "--state-dir",
            &state,
            "compact",
            OPS_MAIN,
            "--gateway",
            &url,
            "--instructions",
            "Mention ticket ZX-77.",
            "--yes",
            "--json",
        ],
        &[("OPENCLAW_GATEWAY_TOKEN", gw.token())],
    )
    .await;
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["compacted"], true, "{v}");
    // /compact returns no summary: read back from the host's DB (the same sessionId).
    assert!(
        v["summary"]
            .as_str()
            .unwrap_or("")
            .contains("FAKE-SUMMARY-OK"),
        "{v}"
    );
    assert!(
        v["tokensAfter"].is_u64() && v["compactionCount"].is_u64(),
        "{v}"
    );
    assert!(
        fake.requests()[asked_before..]
            .iter()
            .any(|r| r.raw_body.contains("ZX-77"))
    );
    // Wrong token from a file; over-long instructions; a flag that only applies locally.
    let tok = gw.dir().join("wrong.token");
    std::fs::write(&tok, "not-the-token-987654\n").unwrap();
    let tok = tok.display().to_string();
    let (code, out, err) = clawtop(
        &gw,
        &[
            "compact",
            OPS_MAIN,
            "--gateway",
            &url,
            "--gateway-token-file",
            &tok,
            "--yes",
        ],
        &[],
    )
    .await;
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("token mismatch") && !err.contains("not-the-token-987654"),
        "{err}"
    );
    let long = "y".repeat(801);
    let (code, _, err) = clawtop(
        &gw,
        &[
            "compact",
            OPS_MAIN,
            "--gateway",
            &url,
            "--instructions",
            &long,
            "--yes",
        ],
        &[("OPENCLAW_GATEWAY_TOKEN", gw.token())],
    )
    .await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("801") && err.contains("800"), "{err}");
    let (code, _, err) = clawtop(
        &gw,
        &["compact", OPS_MAIN, "--gateway", &url, "--dry-run"],
        &[],
    )
    .await;
    assert_eq!(code, 2, "{err}");
    let paired = sqlite_query(
        &gw.state_dir().join("state/openclaw.sqlite"),
        "SELECT count(*) FROM device_pairing_paired",
    );
    assert_eq!(paired[0][0], 1, "the CLI reused the same device identity");

    // 9b. The TUI's Compact dialog on the SQLite host itself: before anything is typed it says
    //     OpenClaw writes the summary with its own model; it counts the instructions against
    //     the 800-character cap, sends them through the gateway (the fake model receives
    //     them) and shows OpenClaw's summary, read back from the host, with the figures.
    {
        use crate::support::tui::{ctrl, host_app, key, screen, type_str};
        use clawtop::tui::dialog::Prep;
        use clawtop::tui::effects::{Effect, drive, drive_collect, run_gateway_compaction};
        let host = crate::support::open_host(gw.state_dir());
        let (mut state, ctx) = host_app(clawtop::source::for_host(host), (120, 40));
        let pos = state
            .sessions
            .rows
            .iter()
            .position(|r| r.key() == OPS_MAIN)
            .expect("ops main listed");
        for _ in 0..pos {
            drive(&mut state, &ctx, key(crossterm::event::KeyCode::Down));
        }
        drive(&mut state, &ctx, clawtop::tui::action::Action::OpenCompact);
        let d = state.dialog.as_mut().expect("the Compact dialog opens");
        let Some(Prep::Gateway(g)) = d.prep.as_mut() else {
            panic!("not the gateway dialog: {:?} {:?}", d.prep, d.prep_error)
        };
        assert_eq!(g.target.url, gw.url());
        // The same device identity as the CLI's (no second pairing).
        g.identity_dir = Some(config_dir.clone());
        let s = screen(&state);
        assert!(s.contains("own model") && s.contains("0/800"), "{s}");
        type_str(&mut state, &ctx, &"z".repeat(801));
        assert!(screen(&state).contains("801/800"), "{}", screen(&state));
        let (_, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
        assert!(pending.is_empty(), "over the cap: nothing sent");
        assert!(
            state
                .dialog
                .as_ref()
                .unwrap()
                .error
                .as_deref()
                .is_some_and(|e| e.contains("800")),
            "{:?}",
            state.dialog.as_ref().unwrap().error
        );
        let d = state.dialog.as_mut().unwrap();
        d.instructions = ratatui_textarea::TextArea::default();
        type_str(&mut state, &ctx, "Keep ticket QK-58 in the summary.");
        let asked_before = fake.requests().len();
        let rows_before = compaction_rows(&gw, "ops", OPS_MAIN_ID);
        // Ctrl-G asks first (OpenClaw saves at once); y sends.
        let (_, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
        assert!(pending.is_empty(), "nothing sent before the confirmation");
        let (_, mut pending) = drive_collect(&mut state, &ctx, crate::support::tui::ch('y'));
        let Some(Effect::GatewayCompact {
            dialog,
            generation,
            cancel,
            job,
        }) = pending.pop()
        else {
            panic!("one gateway effect")
        };
        assert_eq!(
            job.instructions.as_deref(),
            Some("Keep ticket QK-58 in the summary.")
        );
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        run_gateway_compaction(dialog, generation, cancel, *job, tx).await;
        while let Ok(a) = rx.try_recv() {
            drive(&mut state, &ctx, a);
        }
        let d = state.dialog.as_ref().expect("the dialog shows the result");
        assert!(d.error.is_none(), "{:?}", d.error);
        assert_eq!(d.phase, clawtop::tui::dialog::Phase::Done, "read-only");
        let w = &d.result.as_ref().expect("what OpenClaw wrote").written;
        assert!(
            w.summary
                .as_deref()
                .unwrap_or("")
                .contains("FAKE-SUMMARY-OK"),
            "read back from the host: {w:?}"
        );
        assert!(
            w.tokens_before.is_some() && w.tokens_after.is_some(),
            "{w:?}"
        );
        assert_eq!(
            w.compaction_count,
            w.compaction_count_before.map(|c| c + 1),
            "{w:?}"
        );
        assert!(screen(&state).contains("read-only"), "{}", screen(&state));
        assert!(
            fake.requests()[asked_before..]
                .iter()
                .any(|r| r.raw_body.contains("QK-58")),
            "the fake model received the instructions"
        );
        assert_eq!(compaction_rows(&gw, "ops", OPS_MAIN_ID), rows_before + 1);
        // Nothing to commit: OpenClaw already saved it; one key closes.
        drive(&mut state, &ctx, ctrl('o'));
        let d = state.dialog.as_ref().unwrap();
        assert!(d.confirm.is_none());
        drive(&mut state, &ctx, key(crossterm::event::KeyCode::Esc));
        assert!(state.dialog.is_none());
    }

    // 9c. Live updates on the SQLite host itself (what the TUI subscribes to): the local
    //     source finds the host's own gateway from the copy's config, connects with clawtop's
    //     identity, says it is live, and names the session a compaction through the gateway
    //     changed. The restart in step 10 shows it going down and coming back.
    let (ltx, mut lrx) = tokio::sync::mpsc::unbounded_channel();
    let local = {
        let host = crate::support::open_host(gw.state_dir());
        let dir = config_dir.clone();
        tokio::task::spawn_blocking(move || {
            let s = clawtop::source::sqlite::SqliteStore::with_identity_dir(host, Some(dir));
            assert!(
                clawtop::source::SessionSource::list(&s, None)
                    .errors
                    .is_empty()
            );
            s
        })
        .await
        .unwrap()
    };
    assert!(
        clawtop::source::SessionSource::subscribe(
            &local,
            Box::new(move |c| {
                let _ = ltx.send(c);
            })
        ),
        "a SQLite host with a configured local gateway pushes changes"
    );
    next_change(&mut lrx, "Live(true) from the local source", |c| {
        matches!(c, clawtop::source::Change::Live(true))
    })
    .await;
    let c2 = GatewayClient::connect(&good, &identity, timeouts)
        .await
        .unwrap();
    c2.compact(DRILL).await.expect("compact the drill session");
    next_change(
        &mut lrx,
        "a change of the drill session",
        |c| matches!(c, clawtop::source::Change::Transcript(r) if r.key == DRILL),
    )
    .await;
    c2.close().await;

    // 10. The gateway restarts: the open client learns it is gone, the watcher reports it and
    //    reconnects by itself, and the same identity is accepted again.
    gw.restart().await;
    assert!(
        tokio::time::timeout(Duration::from_secs(10), client.closed())
            .await
            .is_ok(),
        "the old connection noticed the restart"
    );
    let e = client.sessions_list().await.unwrap_err();
    assert!(matches!(e, GatewayError::Disconnected { .. }), "{e:?}");
    next_matching(&mut live_rx, Duration::from_secs(30), "Disconnected", |e| {
        matches!(e, LiveEvent::Disconnected { .. })
    })
    .await;
    next_matching(
        &mut live_rx,
        Duration::from_secs(60),
        "Connected after the restart",
        |e| matches!(e, LiveEvent::Connected { .. }),
    )
    .await;
    next_change(&mut lrx, "Live(false) from the local source", |c| {
        matches!(c, clawtop::source::Change::Live(false))
    })
    .await;
    next_change(&mut lrx, "Live(true) again from the local source", |c| {
        matches!(c, clawtop::source::Change::Live(true))
    })
    .await;
    tokio::task::spawn_blocking(move || drop(local))
        .await
        .unwrap();
    let again = GatewayClient::connect(&good, &identity, timeouts)
        .await
        .expect("reconnect after the restart");
    assert_eq!(again.sessions_list().await.unwrap().len(), 3);
    let same = DeviceIdentity::load_or_create(&config_dir).unwrap();
    assert_eq!(
        same.device_id(),
        identity.device_id(),
        "one stable identity"
    );
    cancel.cancel();
}
