//! Issue 17: one `used` and one `status` on every surface. For every session of every fixture
//! host (2026.2.26 host-a, 2026.9.6 host-f, bare pi transcripts, the demo), `list --json`,
//! `show --json` and `metrics` agree; the run-sum host is judged on its last call's context.

use crate::support::cli::{Home, copy_dir, run_with};
use crate::support::fixtures::{self, fixture};
use serde_json::Value;
use std::collections::HashMap;

/// `clawtop_session_used_tokens` per session key, from `metrics`.
fn metrics_used(text: &str) -> HashMap<String, u64> {
    let lines = text.lines().map(|l| Ok(l.to_string()));
    let scrape = prometheus_parse::Scrape::parse(lines).unwrap();
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == "clawtop_session_used_tokens")
        .map(|s| {
            let v = match s.value {
                prometheus_parse::Value::Gauge(v) => v as u64,
                _ => panic!("gauge expected"),
            };
            (s.labels.get("session_key").unwrap().to_string(), v)
        })
        .collect()
}

/// Every session of a host: list, show and metrics give the same used and status.
fn agree(home: &std::path::Path, global: &[&str], env: &[(&str, &str)]) -> usize {
    let args = |extra: &[&str]| -> Vec<String> {
        extra
            .iter()
            .chain(global.iter())
            .map(|s| s.to_string())
            .collect()
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run_with(home, &a, env)
    };
    let list = run(&["list", "--json"]);
    list.expect(0);
    let list = list.json();
    let metrics = run(&["metrics"]);
    metrics.expect(0);
    let used_m = metrics_used(&metrics.text());
    let sessions = list["sessions"].as_array().unwrap();
    assert!(!sessions.is_empty());
    for s in sessions {
        let key = s["sessionKey"].as_str().unwrap();
        let show = run(&["show", key, "--json"]);
        show.expect(0);
        let v = show.json();
        for field in [
            "used",
            "usedSource",
            "status",
            "usedCheck",
            "usedCheckReason",
            "transcriptContext",
            "flushReason",
        ] {
            assert_eq!(s[field], v[field], "{key}: list and show differ on {field}");
        }
        assert!(
            s.get("transcriptContext").is_some(),
            "{key}: list row has transcriptContext"
        );
        match s["used"].as_u64() {
            Some(u) => assert_eq!(used_m.get(key), Some(&u), "{key}: metrics used"),
            None => assert_eq!(used_m.get(key), None, "{key}: unknown is no sample"),
        }
    }
    sessions.len()
}

#[test]
fn list_show_and_metrics_agree_on_every_fixture_host() {
    // 2026.2.26, file-backed.
    let h = Home::host_a();
    assert_eq!(agree(h.path(), &[], &[]), 1);
    // 2026.9.6, SQLite (a copy: even a read-only open of a WAL database may create files).
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(fixtures::HOST_F), &dir.path().join("host-f"));
    let state = dir.path().join("host-f/state");
    let config = state.join("openclaw.json");
    let sd = state.to_str().unwrap().to_string();
    let cfg = config.to_str().unwrap().to_string();
    assert_eq!(
        agree(
            dir.path(),
            &["--state-dir", &sd],
            &[("OPENCLAW_CONFIG_PATH", &cfg)]
        ),
        3
    );
    // The demo host.
    let e = Home::empty();
    assert!(agree(e.path(), &["--demo"], &[]) >= 3);
}

#[test]
fn bare_transcripts_show_the_same_figures_as_their_rules() {
    // A bare pi transcript has no store: used is the transcript's (or unknown), never 0.
    for f in [
        "pi/large-session.jsonl",
        "pi/before-compaction.jsonl",
        "transcripts/v3-two-compactions.jsonl",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::copy(fixture(f), &p).unwrap();
        let o = run_with(dir.path(), &["show", p.to_str().unwrap(), "--json"], &[]);
        o.expect(0);
        let v = o.json();
        match v["used"].as_u64() {
            Some(u) => {
                assert!(u > 0, "{f}");
                assert_eq!(v["used"], v["transcriptContext"]["tokens"], "{f}");
            }
            None => assert_eq!(v["usedSource"], "unknown", "{f}"),
        }
    }
}

#[test]
fn the_run_sum_host_is_judged_on_its_last_call() {
    // host-a's store holds 75,943 = 37,937 + 38,006, the two calls of the last run added up
    // (OpenClaw 2026.2.x); the last call carried 40,378 (its prompt 38,006 + output).
    let h = Home::host_a();
    let l = h.run(&["list"]);
    l.expect(0);
    let t = l.text();
    assert!(
        t.contains("84%") && t.contains("compact-due") && t.contains("~40k/48k"),
        "{t}"
    );
    assert!(!t.contains("over"), "{t}");
    let c = h.run(&["check"]);
    assert_eq!(c.code, 1, "WARNING, not CRITICAL: {}", c.text());
    let ct = c.text();
    assert!(ct.contains("compact-due") && ct.contains("40k"), "{ct}");
    assert!(!ct.contains("over") && !ct.contains("stuck"), "{ct}");
    let m = h.run(&["metrics"]);
    m.expect(0);
    assert_eq!(metrics_used(&m.text()).get("agent:main:main"), Some(&40378));
    assert!(
        m.text()
            .contains("clawtop_session_used_tokens{agent=\"main\",session_key=\"agent:main:main\",session_id=\"adhoc-1\",provenance=\"transcript\"} 40378"),
        "{}",
        m.text()
    );
}

#[test]
fn the_store_holding_the_last_prompt_is_agreement() {
    // The store records the last call's prompt (38,006); the transcript's usage adds that
    // call's output (40,378). That is agreement, and the store's figure is used.
    let h = Home::host_a();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
    v["agent:main:main"]["totalTokens"] = 38006.into();
    std::fs::write(h.store(), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = h.run(&["show", "main", "--json"]);
    o.expect(0);
    let s = o.json();
    assert_eq!(s["usedCheck"], "equal", "{}", s["usedCheckReason"]);
    assert_eq!(s["used"], 38006);
    assert_eq!(s["usedSource"], "fresh");
    let r = s["usedCheckReason"].as_str().unwrap();
    assert!(r.contains("38,006") && r.contains("40,378"), "{r}");
}

#[test]
fn a_2026_9_host_agrees_with_its_store() {
    // incident-7: the store's 29,144 is the last call's prompt; the transcript's 31,516 adds
    // its output 2,372: equal, not differs.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(fixtures::HOST_F), &dir.path().join("host-f"));
    let state = dir.path().join("host-f/state");
    let cfg = state.join("openclaw.json");
    let o = run_with(
        dir.path(),
        &[
            "show",
            "agent:main:incident-7",
            "--json",
            "--state-dir",
            state.to_str().unwrap(),
        ],
        &[("OPENCLAW_CONFIG_PATH", cfg.to_str().unwrap())],
    );
    o.expect(0);
    let v = o.json();
    assert_eq!(v["used"], 29144);
    assert_eq!(v["usedCheck"], "equal", "{}", v["usedCheckReason"]);
    assert_eq!(v["transcriptContext"]["tokens"], 29144 + 2372);
}

#[test]
fn a_refused_gateway_is_an_error_not_an_empty_list() {
    // A port nothing listens on: bind one, then let it go.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("ws://127.0.0.1:{port}");
    let h = Home::empty();
    let o = run_with(
        h.path(),
        &["list", "--gateway", &url],
        &[("OPENCLAW_GATEWAY_TOKEN", "not-a-real-token")],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stdout.is_empty(), "stdout: {}", o.text());
    assert!(
        o.stderr.contains(&url) && o.stderr.contains("refused"),
        "{}",
        o.stderr
    );
    // The tunnel hint names the port the operator gave.
    assert!(
        o.stderr
            .contains(&format!("ssh -N -L {port}:127.0.0.1:{port} HOST")),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("not-a-real-token"));
    // A plain ws:// to an address that is not loopback is refused before anything is sent.
    let o = run_with(
        h.path(),
        &["list", "--gateway", "ws://192.0.2.1:18789"],
        &[("OPENCLAW_GATEWAY_TOKEN", "not-a-real-token")],
    );
    assert_ne!(o.code, 0);
    assert!(o.stdout.is_empty());
    assert!(o.stderr.contains("not a loopback address"), "{}", o.stderr);
}

/// Runs `check` with a watchdog: a hang is a failure, not a slow pass.
fn check_within_10_s(h: &Home) -> (i32, String) {
    use std::process::{Command, Stdio};
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawtop"))
        .arg("check")
        .current_dir(h.path())
        .env("HOME", h.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    loop {
        if let Some(st) = c.try_wait().unwrap() {
            let mut out = String::new();
            std::io::Read::read_to_string(c.stdout.as_mut().unwrap(), &mut out).unwrap();
            return (st.code().unwrap_or(-1), out);
        }
        if t0.elapsed() > std::time::Duration::from_secs(10) {
            let _ = c.kill();
            panic!("check did not answer within 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn check_is_unknown_when_the_store_cannot_be_read() {
    // Issue 17 item 4: a store that is empty, a directory or a FIFO is not "OK: no problem".
    type Make = fn(&std::path::Path);
    let cases: [(&str, Make, &str); 3] = [
        ("empty", |p| std::fs::write(p, b"").unwrap(), "is empty"),
        (
            "directory",
            |p| std::fs::create_dir(p).unwrap(),
            "a directory",
        ),
        (
            "fifo",
            |p| {
                let ok = std::process::Command::new("mkfifo")
                    .arg(p)
                    .status()
                    .unwrap();
                assert!(ok.success());
            },
            "FIFO",
        ),
    ];
    for (what, make, says) in cases {
        let h = Home::host_a();
        std::fs::remove_file(h.store()).unwrap();
        make(&h.store());
        let (code, out) = check_within_10_s(&h);
        assert_eq!(code, 3, "{what}: {out}");
        assert!(out.starts_with("UNKNOWN: "), "{what}: {out}");
        assert!(
            out.contains("sessions.json") && out.contains(says),
            "{what}: {out}"
        );
    }
}

#[test]
fn a_stale_lock_is_said_by_check_show_and_list_alike() {
    // Issue 17 item 3: the stale lock `check` pages about is on every surface, in one wording.
    let h = Home::host_a();
    let pid = crate::support::commit::dead_pid();
    let mut lock = h.transcript().into_os_string();
    lock.push(".lock");
    std::fs::write(
        &lock,
        crate::support::commit::lock_payload(pid, &crate::support::commit::now_iso()),
    )
    .unwrap();
    let words = format!("stale transcript lock: its holder (pid {pid}) is dead");
    let c = h.run(&["check"]);
    assert_eq!(c.code, 2, "{}", c.text());
    assert!(c.text().contains(&words), "{}", c.text());
    let s = h.run(&["show", "main"]);
    s.expect(0);
    assert!(s.text().contains(&words), "{}", s.text());
    let j = h.run(&["show", "main", "--json"]).json();
    assert!(j["staleLock"].as_str().unwrap().starts_with(&words), "{j}");
    let l = h.run(&["list", "--json"]).json();
    assert_eq!(l["sessions"][0]["staleLock"], j["staleLock"]);
}

#[test]
fn after_clawtops_own_compaction_the_check_agrees() {
    // Issue 17 item 2: the store's figure clawtop writes (tokensAfter = overhead + kept +
    // summary, the one definition of "expected after") is what the transcript says next.
    let h = Home::host_a();
    let summary = h.path().join("summary.md");
    std::fs::write(&summary, "## Goal\nKeep PR #4242 moving.\n").unwrap();
    let dry = h.run(&[
        "compact",
        "main",
        "--keep-recent-tokens",
        "1000",
        "--dry-run",
        "--json",
    ]);
    dry.expect(0);
    let d = dry.json();
    let (leaf, first) = (
        d["leafId"].as_str().unwrap().to_string(),
        d["firstKeptEntryId"].as_str().unwrap().to_string(),
    );
    let o = h.run(&[
        "compact",
        "main",
        "--no-flush",
        "--keep-recent-tokens",
        "1000",
        "--summary-file",
        summary.to_str().unwrap(),
        "--expect-leaf",
        &leaf,
        "--expect-first-kept",
        &first,
        "--yes",
    ]);
    o.expect(0);
    assert!(o.text().contains("expected after ≈"), "{}", o.text());
    let v = h.run(&["show", "main", "--json"]).json();
    assert_eq!(v["usedCheck"], "equal", "{}", v["usedCheckReason"]);
    assert_eq!(v["used"], v["totalTokens"]);
    assert_eq!(v["transcriptContext"]["basis"], "after-compaction");
    assert_eq!(v["transcriptContext"]["tokens"], v["totalTokens"]);
    assert_eq!(v["status"], "ok");
    // And the list says the same.
    let l = h.run(&["list", "--json"]).json();
    assert_eq!(l["sessions"][0]["used"], v["used"]);
    assert_eq!(l["sessions"][0]["usedCheck"], "equal");
}

#[test]
fn dry_run_refuses_what_the_commit_refuses() {
    // Issue 18: `compact --dry-run` planned a transcript with no session header that the
    // commit then refused (exit 0 against exit 3). Both now start from the use case.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("no-header.jsonl");
    let text = std::fs::read_to_string(fixture("transcripts/v3-two-compactions.jsonl")).unwrap();
    std::fs::write(
        &f,
        text.lines().skip(1).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "## Goal\nx\n").unwrap();
    let fp = f.to_str().unwrap();
    let dry = run_with(
        dir.path(),
        &["compact", fp, "--keep-recent-tokens", "100", "--dry-run"],
        &[],
    );
    let commit = run_with(
        dir.path(),
        &[
            "compact",
            fp,
            "--keep-recent-tokens",
            "100",
            "--summary-file",
            summary.to_str().unwrap(),
            "--expect-leaf",
            "whatever",
            "--yes",
        ],
        &[],
    );
    assert_eq!(dry.code, 3, "{}", dry.stderr);
    assert_eq!(dry.code, commit.code, "{} / {}", dry.stderr, commit.stderr);
    let reason = |s: &str| {
        s.lines()
            .find(|l| l.contains("no session header"))
            .map(str::to_string)
    };
    assert!(reason(&dry.stderr).is_some(), "{}", dry.stderr);
    assert_eq!(reason(&dry.stderr), reason(&commit.stderr));
}

#[test]
fn check_is_unknown_for_an_agent_dir_it_cannot_read() {
    // Issue 17 item 4: an agent whose sessions dir cannot be looked into is UNKNOWN, not
    // skipped. Permission bits do not stop root, so as root clawtop runs as `nobody`.
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let state = dir.path().join("state");
    copy_dir(&fixture(fixtures::HOST_A), &state);
    let ops = state.join("agents/ops/sessions");
    std::fs::create_dir_all(&ops).unwrap();
    std::fs::copy(
        state.join("agents/main/sessions/sessions.json"),
        ops.join("sessions.json"),
    )
    .unwrap();
    // Everything readable by anyone, but the ops agent's sessions dir by no one.
    let status = std::process::Command::new("chmod")
        .args(["-R", "a+rX", state.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::set_permissions(&ops, std::fs::Permissions::from_mode(0o000)).unwrap();
    let root = std::fs::metadata("/proc/self").map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    });
    let exe = env!("CARGO_BIN_EXE_clawtop");
    let sd = state.to_str().unwrap();
    let mut c = if root.unwrap_or(false) {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", exe]);
        c
    } else {
        std::process::Command::new(exe)
    };
    let o = c
        .args(["check", "--state-dir", sd])
        .env("HOME", dir.path())
        .env_remove("OPENCLAW_STATE_DIR")
        .env_remove("OPENCLAW_CONFIG_PATH")
        .output()
        .unwrap();
    std::fs::set_permissions(&ops, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.starts_with("UNKNOWN: "), "{out}");
    assert!(
        out.contains("agents/ops/sessions") && out.contains("ermission denied"),
        "{out}"
    );
    // The readable agent is still checked.
    assert!(out.contains("agent:main:main"), "{out}");
}
