//! `clawtop list` on a copy of host-a (and the demo).
use crate::support::cli::*;

#[test]
fn list_json_host_a() {
    let h = Home::host_a();
    let before = snapshot(&h.state());
    let o = h.run(&["list", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["era"], "file");
    assert_eq!(v["stateDir"], h.state().display().to_string());
    let s = &v["sessions"][0];
    assert_eq!(v["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(s["agentId"], "main");
    assert_eq!(s["sessionKey"], "agent:main:main");
    assert_eq!(s["sessionId"], "adhoc-1");
    assert_eq!(
        s["transcript"],
        h.transcript().display().to_string(),
        "sessionFile of another machine resolves by basename"
    );
    assert_eq!(s["model"], "fake-model");
    assert_eq!(s["modelProvider"], "fake");
    assert_eq!(s["window"], 48000);
    assert_eq!(s["windowSource"], "entry");
    // A run-sum in the store (75,943 = two calls): used is the last call's context, the
    // store's figure beside it with the reason.
    assert_eq!(s["used"], 40378);
    assert_eq!(s["usedSource"], "transcript");
    assert_eq!(s["totalTokens"], 75943);
    assert_eq!(s["usedCheck"], "run-sum");
    assert_eq!(s["transcriptContext"]["tokens"], 40378);
    assert!(s["usedCheckReason"].as_str().unwrap().contains("37,937"));
    assert_eq!(s["reserve"], 20000);
    assert_eq!(s["compactAt"], 28000);
    assert_eq!(s["flushAt"], 24000);
    assert_eq!(s["compactionCount"], 12);
    assert_eq!(s["memoryFlushAt"], serde_json::Value::Null);
    assert_eq!(s["memoryFlushCompactionCount"], serde_json::Value::Null);
    assert_eq!(s["flushedThisCycle"], false);
    assert_eq!(s["status"], "compact-due");
    assert_eq!(s["totalTokens"], 75943);
    assert_eq!(s["totalTokensFresh"], true);
    assert_eq!(s["contextTokens"], 48000);
    assert_eq!(s["updatedAt"], 1795234943664u64);
    assert_eq!(s["warnings"].as_array().unwrap().len(), 0, "{s}");
    // Stable key order.
    let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    let want = [
        "agentId",
        "sessionKey",
        "sessionId",
        "transcript",
        "model",
        "modelProvider",
        "window",
        "windowSource",
        "used",
        "usedSource",
        "reserve",
        "compactAt",
        "flushAt",
        "compactionCount",
        "memoryFlushAt",
        "memoryFlushCompactionCount",
        "flushedThisCycle",
        "status",
    ];
    assert_eq!(&keys[..want.len()], &want);
    // Issue 29: the row every surface renders ends with what the TUI and `check` used to
    // compute on their own roads (host-a's store figure is not stale: no `stale` key here,
    // its value is null).
    assert_eq!(
        &keys[keys.len() - 18..],
        &[
            "totalTokens",
            "totalTokensFresh",
            "contextTokens",
            "updatedAt",
            "warnings",
            "rules",
            "memoryFlushKind",
            "totalTokensVersion",
            "dataSource",
            "forecast",
            "storeUsed",
            "stale",
            "recentContext",
            "sources",
            "keepRecentTokens",
            "latestCompactionLoss",
            "problems",
            "cost"
        ]
    );
    assert_eq!(s["rules"], "2026.2");
    assert_eq!(s["dataSource"]["kind"], "file");
    assert_eq!(s["dataSource"]["entry"], h.store().display().to_string());
    assert_eq!(s["dataSource"]["transcript"], s["transcript"]);
    assert!(v["warnings"].as_array().unwrap().is_empty());
    assert_eq!(before, snapshot(&h.state()), "list writes nothing");
}

#[test]
fn list_text_off_a_terminal_prints_whole_keys() {
    let h = Home::host_a();
    let o = h.run(&["list"]);
    o.expect(0);
    let t = o.text();
    assert!(
        t.contains("agent:main:main") && t.contains("compact-due") && t.contains("84%"),
        "{t}"
    );
    // The demo's long keys and models come out whole (stdout is a pipe here), so each
    // printed key can be given back to `show`.
    let d = run_with(h.path(), &["--demo", "list"], &[]);
    d.expect(0);
    let t = d.text();
    for whole in [
        "agent:main:whatsapp:direct:+15555550123",
        "agent:ops:cron:nightly-report",
        "claude-sonnet-4-5",
    ] {
        assert!(t.contains(whole), "{whole} cut: {t}");
    }
    for l in t.lines() {
        assert!(l.is_ascii(), "{l:?}");
    }
    let key = t
        .lines()
        .find_map(|l| {
            l.split_whitespace()
                .nth(1)
                .filter(|k| k.contains("whatsapp"))
        })
        .unwrap();
    run_with(h.path(), &["--demo", "show", key], &[]).expect(0);
}

#[test]
fn list_text_uses_the_terminal_width() {
    let h = Home::empty();
    let v = run_with(h.path(), &["--demo", "list", "--json"], &[]).json();
    // The same report `list` renders, laid out for 80 and 200 columns.
    let r: clawtop::report::list::ListReport = {
        let host = clawtop::store::Host::demo().unwrap();
        let source = clawtop::source::for_host(host);
        clawtop::usecase::list::build(source.as_ref(), &Default::default())
    };
    assert_eq!(r.sessions.len(), v["sessions"].as_array().unwrap().len());
    let narrow = clawtop::report::list::render(&r, 0, Some(80));
    for l in narrow.lines() {
        assert!(l.len() <= 80 && l.is_ascii(), "{l:?}");
    }
    // Issue 33 item 2: shortened with `..`, never `~` (the mark of a transcript figure).
    assert!(narrow.contains(".."), "80 columns must shorten: {narrow}");
    // The table's rows (the legend's lines after them explain the marks).
    for l in narrow.lines().skip(1).take(r.sessions.len()) {
        if let Some(key) = l.split_whitespace().nth(1) {
            assert!(
                !key.contains('~'),
                "a shortened key reads like a mark: {l:?}"
            );
        }
    }
    let wide = clawtop::report::list::render(&r, 0, Some(200));
    for l in wide.lines() {
        assert!(l.len() <= 200, "{l:?}");
    }
    assert!(
        wide.contains("agent:main:whatsapp:direct:+15555550123"),
        "{wide}"
    );
    assert!(wide.contains("claude-sonnet-4-5"), "{wide}");
}

#[test]
fn missing_transcripts_are_counted_once() {
    let h = Home::empty();
    let o = run_with(h.path(), &["--demo", "list"], &[]);
    o.expect(0);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert!(
        lines.contains(&"warning: 1 transcript not found (`clawtop list --verbose` lists them)"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("looked for"), "{}", o.stderr);
    let v = run_with(h.path(), &["--demo", "list", "--verbose"], &[]);
    v.expect(0);
    assert!(
        v.stderr
            .contains("agent:main:subagent:3b9e1d44: transcript not found (looked for"),
        "{}",
        v.stderr
    );
    assert!(!v.stderr.contains("1 transcript not found"), "{}", v.stderr);
}

#[test]
fn list_agent_filter() {
    let h = Home::host_a();
    h.run(&["list", "--json", "--agent", "main"]).expect(0);
    let o = h.run(&["list", "--agent", "nobody"]);
    o.expect(1);
    assert!(o.stderr.contains("nobody"), "{}", o.stderr);
}

#[test]
fn demo_statuses() {
    let h = Home::empty();
    let o = h.run(&["--demo", "list", "--json"]);
    o.expect(0);
    let v = o.json();
    let status = |k: &str| {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["sessionKey"] == k)
            .map(|s| s["status"].as_str().unwrap().to_string())
    };
    assert_eq!(status("agent:main:main").as_deref(), Some("ok"));
    assert_eq!(status("agent:ops:main").as_deref(), Some("over"));
    assert_eq!(
        status("agent:ops:cron:nightly-report").as_deref(),
        Some("unknown")
    );
}

#[test]
fn usage_errors_exit_2() {
    let h = Home::host_a();
    h.run(&["list", "--bogus"]).expect(2);
    h.run(&["show"]).expect(2);
    h.run(&["compact", "x", "--keep-recent-tokens", "zero"])
        .expect(2);
    h.run(&["--profile", "../x", "list"]).expect(2);
    h.run(&["--help"]).expect(0);
}

/// A file-backed host whose gateway port accepts connections: `list` says a gateway is likely
/// running (text and `--json` warnings), with the port and where it came from; with the port
/// closed, nothing is said. A plain listener stands in for the gateway: no real 2026.5–2026.7.1
/// gateway is run in the tests (see docs/running-gateway.md).
#[test]
fn list_says_when_a_gateway_is_running_on_a_file_backed_host() {
    let h = Home::host_a();
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port().to_string();
    let env = [("OPENCLAW_GATEWAY_PORT", port.as_str())];
    let o = h.run_env(&["list", "--json"], &env);
    o.expect(0);
    let w = o.json()["warnings"].to_string();
    assert!(
        w.contains("gateway is likely running")
            && w.contains(&format!("127.0.0.1:{port}"))
            && w.contains("OPENCLAW_GATEWAY_PORT"),
        "{w}"
    );
    let o = h.run_env(&["list"], &env);
    o.expect(0);
    assert!(
        o.stderr.contains("gateway is likely running"),
        "{}",
        o.stderr
    );
    // Every command about one session says it too, once, on stderr (stdout stays data).
    for args in [
        &["show", "agent:main:main"][..],
        &["show", "agent:main:main", "--json"],
        &[
            "compact",
            "agent:main:main",
            "--dry-run",
            "--keep-recent-tokens",
            "3000",
        ],
        &["flush", "agent:main:main", "--dry-run"],
    ] {
        let o = h.run_env(args, &env);
        o.expect(0);
        assert_eq!(
            o.stderr.matches("gateway is likely running").count(),
            1,
            "{args:?}: {}",
            o.stderr
        );
    }
    drop(l);
    let o = h.run_env(&["list", "--json"], &env);
    o.expect(0);
    assert!(
        !o.json()["warnings"].to_string().contains("gateway"),
        "closed port: nothing said"
    );
}

/// The rows cache (docs/cache.md): `list` remembers its rows under `$XDG_CACHE_HOME/clawtop`,
/// and a warm run, `--no-cache` and a run after deleting the cache print the same bytes
/// (`list`, `check` and `metrics`); `--no-cache` writes nothing there.
#[test]
fn list_with_and_without_the_cache_prints_the_same() {
    let h = Home::host_a();
    let cache = h.path().join(".xdg-cache/clawtop/rows");
    let uncached = h.run(&["list", "--json", "--no-cache"]);
    uncached.expect(0);
    assert!(!cache.exists(), "--no-cache writes no cache");
    // The copy was just made: wait until its transcript is still (source::stamp::SETTLE).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let cold = h.run(&["list", "--json"]);
    assert_eq!(cold.text(), uncached.text());
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        1,
        "one file per host"
    );
    let warm = h.run(&["list", "--json"]);
    assert_eq!(warm.text(), uncached.text());
    for cmd in [&["list"][..], &["check"], &["metrics"]] {
        let with: Vec<&str> = cmd.to_vec();
        let without: Vec<&str> = cmd.iter().copied().chain(["--no-cache"]).collect();
        assert_eq!(h.run(&with).text(), h.run(&without).text(), "{cmd:?}");
    }
    std::fs::remove_dir_all(&cache).unwrap();
    assert_eq!(h.run(&["list", "--json"]).text(), uncached.text());
}

/// What moves without the transcript moving is not taken from the cache: the store's entry,
/// the config, a live turn's lock. Each warm run prints what `--no-cache` prints.
#[test]
fn a_remembered_row_follows_its_entry_config_and_lock() {
    let h = Home::host_a();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let same = |why: &str| {
        let warm = h.run(&["list", "--json"]);
        let cold = h.run(&["list", "--json", "--no-cache"]);
        assert_eq!(warm.text(), cold.text(), "{why}");
        warm.json()
    };
    let first = same("first run");
    same("remembered");
    // The entry: OpenClaw recorded the session again, its transcript untouched.
    let store = std::fs::read_to_string(h.store()).unwrap();
    let edited = store.replacen(
        "\"updatedAt\": 1795234943664",
        "\"updatedAt\": 1795234999999",
        1,
    );
    assert_ne!(edited, store);
    std::fs::write(h.store(), edited).unwrap();
    let entry = same("the entry changed");
    assert_ne!(
        entry["sessions"][0]["updatedAt"],
        first["sessions"][0]["updatedAt"]
    );
    // The config: another reserve.
    let cfg = h.state().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let reserve = text.replacen(
        "mode: \"safeguard\"",
        "mode: \"safeguard\", reserveTokensFloor: 7777",
        1,
    );
    assert_ne!(reserve, text);
    std::fs::write(&cfg, reserve).unwrap();
    let config = same("the config changed");
    assert_ne!(
        config["sessions"][0]["reserve"],
        entry["sessions"][0]["reserve"]
    );
    // A live turn holds the transcript's lock.
    let lock = h.hold_transcript_lock();
    let busy = same("a lock appeared");
    assert!(busy["sessions"][0]["busy"].is_object(), "{busy}");
    std::fs::remove_file(lock).unwrap();
    let free = same("the lock went");
    assert!(free["sessions"][0]["busy"].is_null());
}

/// A remembered row is handed back run after run: nothing about the host changed, so the
/// second run rebuilds no row and leaves the cache file as it was (an operator's price file
/// of several models included: its basis is the same in every process).
#[test]
fn an_unchanged_host_is_not_rebuilt_run_after_run() {
    let h = Home::host_a();
    let config = h.path().join(".config/clawtop");
    std::fs::create_dir_all(&config).unwrap();
    let mut prices = String::new();
    for m in ["a", "b", "c", "d", "e", "f"] {
        prices.push_str(&format!(
            "[models.\"p{m}/m{m}\"]\ninput = 1\noutput = 2\ncacheRead = 0.1\ncacheWrite = 1.25\n"
        ));
    }
    std::fs::write(config.join("prices.toml"), prices).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let env = [("CLAWTOP_CONFIG_DIR", config.to_str().unwrap())];
    h.run_env(&["list", "--json"], &env).expect(0);
    let dir = h.path().join(".xdg-cache/clawtop/rows");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    use std::os::unix::fs::MetadataExt;
    let ino = std::fs::metadata(&file).unwrap().ino();
    for _ in 0..3 {
        h.run_env(&["list", "--json"], &env).expect(0);
        assert_eq!(
            std::fs::metadata(&file).unwrap().ino(),
            ino,
            "nothing rebuilt, nothing written"
        );
    }
}
