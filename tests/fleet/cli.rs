//! `list`, `check` and `metrics` with `--hosts`: every session with its host, one error row
//! per host that failed, and the same figures the host itself reports.

use crate::fake::{Fleet, ssh_host};
use crate::support::cli::copy_dir;
use crate::support::fixtures::fixture;
use serde_json::Value;

fn mixed(f: &Fleet) -> String {
    format!(
        "{}\n{}\n{}",
        f.good_hosts(),
        ssh_host("down", "down"),
        ssh_host("bare", "bare")
    )
}

fn sessions_of<'a>(v: &'a Value, host: &str) -> Vec<&'a Value> {
    v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["host"] == host)
        .collect()
}

#[test]
fn list_json_gives_every_session_with_its_host_and_one_error_row_per_failed_host() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&mixed(&f));
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(1);
    let v = out.json();
    // Each host's rows are what clawtop on that host says about it, field for field.
    for (host, dir) in [
        ("a", "remote a/.openclaw"),
        ("f", "remote f/state"),
        ("here", "here/.openclaw"),
    ] {
        let direct = f.local_list(dir);
        let direct = direct["sessions"].as_array().unwrap();
        let got = sessions_of(&v, host);
        assert!(!direct.is_empty());
        assert_eq!(got.len(), direct.len(), "{host}");
        for (g, d) in got.iter().zip(direct) {
            let mut g = (*g).clone();
            assert_eq!(g.as_object_mut().unwrap().remove("host"), Some(host.into()));
            assert_eq!(&g, d, "{host}");
        }
    }
    assert_eq!(sessions_of(&v, "f").len(), 3);
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[0]["host"], "down");
    assert_eq!(
        errors[0]["error"],
        "down: ssh: connect to host down port 22: Connection refused"
    );
    assert_eq!(errors[1]["host"], "bare");
    let bare = errors[1]["error"].as_str().unwrap();
    assert!(
        bare.starts_with("clawtop not found on bare: install it or set clawtop = "),
        "{bare}"
    );
}

#[test]
fn list_text_has_a_host_column_and_error_rows() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&mixed(&f));
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap()]);
    out.expect(1);
    let text = out.text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("HOST AGENT"), "{text}");
    let host_of = |k: &str| -> Vec<&str> {
        lines
            .iter()
            .filter(|l| l.contains(k))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect()
    };
    assert_eq!(host_of(" agent:main:main "), ["a", "here"], "{text}");
    assert_eq!(host_of("agent:main:incident-7"), ["f"], "{text}");
    assert!(
        text.contains("down ERROR down: ssh: connect to host down"),
        "{text}"
    );
    assert!(
        text.contains("bare ERROR clawtop not found on bare"),
        "{text}"
    );
    // The legend comes once, after every row.
    assert!(lines[lines.len() - 2].starts_with("CMP ="), "{text}");
    assert!(lines.last().unwrap().starts_with("SPEND:"), "{text}");
}

#[test]
fn check_prefixes_each_line_with_its_host_and_exits_with_the_worst() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&mixed(&f));
    let out = f.run(&["check", "--hosts", hosts.to_str().unwrap()]);
    let text = out.text();
    // host-a's session is past its compaction line (WARNING); the hosts that could not be
    // read are UNKNOWN, which is worse, and come first.
    out.expect(3);
    for l in text.lines() {
        let host = l.split(": ").next().unwrap();
        assert!(["a", "f", "here", "down", "bare"].contains(&host), "{l}");
    }
    assert!(
        text.lines().next().unwrap().starts_with("down: UNKNOWN"),
        "{text}"
    );
    assert!(
        text.contains("\na: WARNING compact-due agent:main:main: "),
        "{text}"
    );
    assert!(
        text.contains("\nhere: WARNING compact-due agent:main:main: "),
        "{text}"
    );
    assert!(text.contains("down: UNKNOWN: down: ssh: connect"), "{text}");
    assert!(
        text.contains("bare: UNKNOWN: clawtop not found on bare"),
        "{text}"
    );
    // Each host's lines are what check says on that host.
    let direct = f.run(&[
        "--state-dir",
        f.path().join("remote f/state").to_str().unwrap(),
        "check",
    ]);
    for l in direct.text().lines() {
        assert!(text.contains(&format!("f: {l}")), "{l}\n{text}");
    }

    // Without the unreadable hosts: the worst session's level.
    let hosts = f.write_hosts(&f.good_hosts());
    f.run(&["check", "--hosts", hosts.to_str().unwrap()])
        .expect(1);
    let out = f.run(&[
        "check",
        "--hosts",
        hosts.to_str().unwrap(),
        "--crit",
        "compact-due",
    ]);
    out.expect(2);
    assert!(
        out.text().starts_with("a: CRITICAL compact-due"),
        "{}",
        out.text()
    );

    // Only the unreadable hosts: UNKNOWN.
    let hosts = f.write_hosts(&format!(
        "{}\n{}",
        ssh_host("down", "down"),
        ssh_host("f", "ops@nowhere")
    ));
    let out = f.run(&["check", "--hosts", hosts.to_str().unwrap()]);
    out.expect(3);
    assert!(
        out.text()
            .contains("f: UNKNOWN: f: ssh: Could not resolve hostname ops@nowhere"),
        "{}",
        out.text()
    );
}

#[test]
fn metrics_label_every_series_with_its_host() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&mixed(&f));
    let out = f.run(&["metrics", "--hosts", hosts.to_str().unwrap()]);
    out.expect(0);
    let text = out.text();
    let lines: Vec<std::io::Result<String>> = text.lines().map(|l| Ok(l.to_string())).collect();
    let scrape = prometheus_parse::Scrape::parse(lines.into_iter()).expect("valid exposition");
    let used: Vec<_> = scrape
        .samples
        .iter()
        .filter(|s| s.metric == "clawtop_session_used_tokens")
        .collect();
    let on = |h: &str| {
        used.iter()
            .filter(|s| s.labels.get("host") == Some(h))
            .count()
    };
    assert_eq!((on("a"), on("f"), on("here")), (1, 3, 1), "{text}");
    let up = |h: &str| {
        scrape
            .samples
            .iter()
            .find(|s| s.metric == "clawtop_host_up" && s.labels.get("host") == Some(h))
            .map(|s| s.value.clone())
    };
    assert_eq!(up("a"), Some(prometheus_parse::Value::Gauge(1.0)));
    assert_eq!(up("down"), Some(prometheus_parse::Value::Gauge(0.0)));
    assert_eq!(up("bare"), Some(prometheus_parse::Value::Gauge(0.0)));
    // Every family is declared once, however many hosts.
    assert_eq!(
        text.matches("# TYPE clawtop_session_used_tokens gauge")
            .count(),
        1
    );
    assert!(
        out.stderr.contains("clawtop not found on bare"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_remote_printing_garbage_a_flood_or_nothing_in_time_is_one_named_error() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&format!(
        "{}\n{}\n{}timeout = 1\n\n{}",
        ssh_host("garbage", "garbage"),
        ssh_host("huge", "huge"),
        ssh_host("slow", "slow"),
        f.good_hosts()
    ));
    let t0 = std::time::Instant::now();
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(1);
    // The slow host is stopped at its deadline, not waited for (it sleeps 30 s).
    assert!(t0.elapsed() < std::time::Duration::from_secs(25));
    let v = out.json();
    let err = |h: &str| -> String {
        v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["host"] == h)
            .unwrap_or_else(|| panic!("no error row for {h}: {v}"))["error"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let g = err("garbage");
    assert!(
        g.starts_with("garbage: the remote clawtop printed something that is not list JSON"),
        "{g}"
    );
    assert_eq!(
        err("huge"),
        "huge: its output exceeds 64 MiB; stopped reading"
    );
    assert_eq!(err("slow"), "slow: no answer within 1 s; stopped it");
    // The good hosts are still all there.
    assert_eq!(sessions_of(&v, "f").len(), 3);
    assert_eq!(sessions_of(&v, "a").len(), 1);
}

#[test]
fn remote_text_reaches_the_terminal_neutralised() {
    let f = Fleet::new();
    // A session key with an escape sequence, written into the remote's store.
    let store = f
        .path()
        .join("remote a/.openclaw/agents/main/sessions/sessions.json");
    let text = std::fs::read_to_string(&store).unwrap();
    let evil = text.replace(
        "\"agent:main:main\"",
        "\"agent:main:\\u001b]52;c;cHduZWQ=\\u0007x\"",
    );
    assert_ne!(text, evil);
    std::fs::write(&store, evil).unwrap();
    let hosts = f.write_hosts(&format!(
        "{}\n{}",
        f.good_hosts(),
        ssh_host("garbage", "garbage")
    ));
    for args in [&["list"][..], &["check"], &["list", "--json"]] {
        let mut a = args.to_vec();
        a.extend(["--hosts", hosts.to_str().unwrap()]);
        let out = f.run(&a);
        assert!(!out.stdout.contains(&0x1b), "{args:?}: {}", out.text());
        assert!(!out.stderr.contains('\u{1b}'), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn bad_hosts_files_are_named_errors() {
    let f = Fleet::new();
    let token = f.path().join("edge.token");
    std::fs::write(&token, "secret-token\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    let cases: Vec<(String, &[&str])> = vec![
        (
            "[[host]]\nname = \"p1\"\nssh = \"ops@p1\"\nstate-dir = \"/x\"\n".into(),
            &["host \"p1\"", "unknown field `state-dir`"],
        ),
        (
            format!("{}{}", ssh_host("p1", "a"), ssh_host("p1", "b")),
            &["host \"p1\"", "duplicate name"],
        ),
        (
            ssh_host("p1", "-oProxyCommand=touch pwned"),
            &["host \"p1\"", "`ssh`", "starts with '-'"],
        ),
        (
            format!(
                "[[host]]\nname = \"edge\"\ngateway = \"ws://127.0.0.1:18790\"\ntoken_file = {:?}\n",
                token.display().to_string()
            ),
            &[
                "host \"edge\"",
                "`token_file`",
                "accessible by others",
                "chmod 600",
            ],
        ),
        (
            "[[host]]\nname = \"p1\"\n".into(),
            &["host \"p1\"", "no transport"],
        ),
        (
            "[[host]]\nname = \"p1\"\nssh = \"a\"\ngateway = \"ws://127.0.0.1:1\"\n".into(),
            &["host \"p1\"", "several transports"],
        ),
        (
            "[[host]]\nname = \"p1\"\nssh = 3\n".into(),
            &["host \"p1\"", "`ssh` must be a string"],
        ),
        ("not toml [".into(), &["hosts.toml"]),
    ];
    for (text, wants) in cases {
        let hosts = f.write_hosts(&text);
        let out = f.run(&["list", "--hosts", hosts.to_str().unwrap()]);
        out.expect(1);
        assert!(out.text().is_empty(), "{}", out.text());
        for w in wants {
            assert!(
                out.stderr.contains(w),
                "{text}\nwant {w:?} in: {}",
                out.stderr
            );
        }
        assert!(out.stderr.contains("hosts.toml"), "{}", out.stderr);
        assert!(!out.stderr.contains("secret-token"));
    }
    assert!(!f.path().join("pwned").exists());
    // A FIFO in its place is refused, never waited on.
    let fifo = f.path().join("fifo.toml");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let out = f.run(&["list", "--hosts", fifo.to_str().unwrap()]);
    out.expect(1);
    assert!(
        out.stderr.contains("fifo.toml") && out.stderr.contains("FIFO"),
        "{}",
        out.stderr
    );
    // A missing file is named too; the default is $XDG_CONFIG_HOME/clawtop/hosts.toml.
    let out = f.run(&["list", "--hosts", "nope.toml"]);
    out.expect(1);
    assert!(
        out.stderr.contains("hosts file nope.toml"),
        "{}",
        out.stderr
    );
    let xdg = f.path().join("xdg");
    std::fs::create_dir_all(xdg.join("clawtop")).unwrap();
    let here = f.path().join("here/.openclaw").display().to_string();
    std::fs::write(
        xdg.join("clawtop/hosts.toml"),
        format!("[[host]]\nname = \"here\"\nstate_dir = {here:?}\n"),
    )
    .unwrap();
    let out = crate::support::cli::run_with(
        f.path(),
        &["list", "--json", "--hosts"],
        &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())],
    );
    out.expect(0);
    assert_eq!(sessions_of(&out.json(), "here").len(), 1);
}

#[test]
fn a_gateway_host_that_refuses_is_an_error_row_and_the_rest_are_listed() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fleet::new();
    let token = f.path().join("edge.token");
    std::fs::write(&token, "edge-secret-token-0123\n").unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    // A loopback port nothing listens on any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let hosts = f.write_hosts(&format!(
        "{}\n[[host]]\nname = \"edge\"\ngateway = \"ws://127.0.0.1:{port}\"\ntoken_file = {:?}\n",
        f.good_hosts(),
        token.display().to_string()
    ));
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(1);
    let v = out.json();
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{v}");
    assert_eq!(errors[0]["host"], "edge");
    let e = errors[0]["error"].as_str().unwrap();
    assert!(
        e.starts_with("edge: ") && e.contains(&port.to_string()),
        "{e}"
    );
    assert!(!out.text().contains("edge-secret-token") && !out.stderr.contains("edge-secret-token"));
    assert_eq!(sessions_of(&v, "f").len(), 3);
}

#[test]
fn commands_on_one_session_do_not_take_hosts() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&f.good_hosts());
    let h = hosts.to_str().unwrap();
    for args in [
        &["show", "agent:main:main", "--hosts", h][..],
        &["compact", "agent:main:main", "--dry-run", "--hosts", h],
        &["list", "--hosts", h, "--state-dir", "x"],
        &["list", "--hosts", h, "--agent", "main"],
    ] {
        let out = f.run(args);
        out.expect(2);
        assert!(
            out.stderr.contains("--hosts") || out.stderr.contains("one host"),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_live_turn_on_an_ssh_host_is_busy_in_check() {
    let f = Fleet::new();
    // The remote copy's transcript lock, held by this (live) test process.
    let lock = f.path().join(
        "remote a/.openclaw/agents/main/sessions/eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl.lock",
    );
    let created = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    std::fs::write(
        &lock,
        format!(
            "{{\"pid\": {}, \"createdAt\": \"{created}\"}}\n",
            std::process::id()
        ),
    )
    .unwrap();
    let hosts = f.write_hosts(&f.good_hosts());
    let out = f.run(&[
        "check",
        "--hosts",
        hosts.to_str().unwrap(),
        "--crit",
        "busy",
    ]);
    out.expect(2);
    let text = out.text();
    assert!(
        text.starts_with(
            "a: CRITICAL busy agent:main:main: transcript lock held by a live process"
        ),
        "{text}"
    );
    assert!(!text.contains("here: CRITICAL busy"), "{text}");
}

#[test]
fn what_the_remote_clawtop_says_went_wrong_is_the_error_row() {
    let f = Fleet::new();
    // One agent database of host f is garbage: the remote lists the other agent and exits 1.
    std::fs::write(
        f.path().join("remote f/state/agents/ops/agent/openclaw-agent.sqlite"),
        b"not a database at all, but long enough to be read as one....................................",
    )
    .unwrap();
    let hosts = f.write_hosts(&format!(
        "{}\n[[host]]\nname = \"nostate\"\nssh = \"ops@a\"\nstate_dir = \"~/no such dir\"\n",
        f.good_hosts()
    ));
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(1);
    let v = out.json();
    let direct = f.run(&[
        "--state-dir",
        f.path().join("remote f/state").to_str().unwrap(),
        "list",
        "--json",
    ]);
    direct.expect(1);
    assert_eq!(
        sessions_of(&v, "f").len(),
        direct.json()["sessions"].as_array().unwrap().len()
    );
    let errs: Vec<(String, String)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["host"].as_str().unwrap().into(),
                e["error"].as_str().unwrap().into(),
            )
        })
        .collect();
    let f_err = errs.iter().find(|(h, _)| h == "f").expect("f's error row");
    assert!(
        f_err.1.starts_with("f: ") && f_err.1.contains("agents/ops/agent/openclaw-agent.sqlite"),
        "{errs:?}"
    );
    let n = errs
        .iter()
        .find(|(h, _)| h == "nostate")
        .expect("nostate's error row");
    assert!(
        n.1.starts_with("nostate: ") && n.1.contains("no such dir"),
        "{errs:?}"
    );
}

#[test]
fn a_background_process_holding_ssh_stderr_does_not_hold_the_list() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&format!(
        "[[host]]\nname = \"f\"\nssh = \"persist@f\"\nstate_dir = {:?}\n",
        f.path().join("remote f/state").display().to_string()
    ));
    let t0 = std::time::Instant::now();
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(0);
    assert_eq!(sessions_of(&out.json(), "f").len(), 3);
    // The holder lives 5 s; the list does not wait for it.
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        t0.elapsed()
    );
}

#[test]
fn a_stale_lock_on_an_ssh_host_reads_as_on_the_host() {
    let f = Fleet::new();
    let lock = f.path().join(
        "remote a/.openclaw/agents/main/sessions/eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl.lock",
    );
    // A holder long dead.
    std::fs::write(
        &lock,
        "{\"pid\": 2147483646, \"createdAt\": \"2020-01-01T00:00:00.000Z\"}\n",
    )
    .unwrap();
    let hosts = f.write_hosts(&f.good_hosts());
    let out = f.run(&["check", "--hosts", hosts.to_str().unwrap()]);
    out.expect(2);
    let direct = f.run(&[
        "--state-dir",
        f.path().join("remote a/.openclaw").to_str().unwrap(),
        "check",
    ]);
    direct.expect(2);
    let stale = direct
        .text()
        .lines()
        .find(|l| l.starts_with("CRITICAL busy-stale-lock"))
        .expect("the host itself reports the stale lock")
        .to_string();
    assert!(
        out.text().starts_with(&format!("a: {stale}\n")),
        "{}\n{stale}",
        out.text()
    );
}

/// A session's cost is the same over the fleet as on its host (SPEC §10): over ssh (the remote
/// `list --json` row read back) and locally, on copies of `tests/fixtures/cost/host-c`.
#[test]
fn cost_over_the_fleet_is_the_hosts_own() {
    let f = Fleet::new();
    let d = f.path();
    copy_dir(&fixture("cost/host-c"), &d.join("remote c/.openclaw"));
    copy_dir(&fixture("cost/host-c"), &d.join("here c/.openclaw"));
    let hosts = f.write_hosts(&format!(
        "[[host]]\nname = \"c\"\nssh = \"ops@a\"\nstate_dir = {:?}\n\n\
         [[host]]\nname = \"herec\"\nstate_dir = {:?}\n",
        d.join("remote c/.openclaw").display().to_string(),
        d.join("here c/.openclaw").display().to_string(),
    ));
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(0);
    let v = out.json();
    let single = f.local_list("here c/.openclaw");
    let want = &single["sessions"][0]["cost"];
    assert_eq!(want["calls"], 10, "{want}");
    for host in ["c", "herec"] {
        let rows = sessions_of(&v, host);
        assert_eq!(rows.len(), 1, "{v}");
        assert_eq!(rows[0]["cost"], *want, "{host}");
    }
    // Each host's totals in the fleet JSON are the host's own `list --json` totals.
    let hosts_json = v["hosts"].as_array().unwrap();
    for host in ["c", "herec"] {
        let h = hosts_json
            .iter()
            .find(|h| h["host"] == host)
            .unwrap_or_else(|| panic!("{host} in hosts: {v}"));
        assert_eq!(h["totals"], single["totals"], "{host}");
        assert_eq!(h["sessions"], 1);
    }
    assert!(single["totals"]["spendTodayUsd"].is_number(), "{single}");
    // The text table shows the spend on both rows.
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap()]);
    let text = out.text();
    assert_eq!(text.matches("$0.12?").count(), 2, "{text}");
    // Each host's spend line (today, $/h), then the fleet's: the sum of the hosts' own.
    for host in ["c", "herec"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(host) && l.contains(" spend: "))
            .unwrap_or_else(|| panic!("{host}'s spend line: {text}"));
        assert!(line.contains("today ") && line.contains("/h"), "{line}");
    }
    let t = &single["totals"];
    let today = 2.0 * t["spendTodayUsd"].as_f64().unwrap();
    let hour = 2.0 * t["perHourUsd"].as_f64().unwrap();
    let mark = if t["unpricedCalls"].as_u64().unwrap() > 0 {
        "?"
    } else {
        ""
    };
    let want = format!(
        "spend: today {}{mark} | {}/h (2 hosts)",
        clawtop::cost::usd_text(today),
        clawtop::cost::usd_text(hour)
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with('*') && l.ends_with(&want)),
        "{want}\n{text}"
    );
    // The footer ends its line: a warning printed after it (stderr) starts a line of its own.
    assert!(text.ends_with('\n'), "{text:?}");
    let merged = format!("{text}{}", out.stderr);
    for l in merged.lines().filter(|l| l.contains("warning:")) {
        assert!(l.starts_with("warning:"), "{l}");
    }
}

/// Issue 33 item 10: one very long key is printed whole, on its own line only; the header and
/// the other rows are padded to at most `PAD_MAX` (64) per column, not to the longest key.
#[test]
fn one_long_key_does_not_pad_every_line() {
    let f = Fleet::new();
    let store = f
        .path()
        .join("here/.openclaw/agents/main/sessions/sessions.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    let entry = v["agent:main:main"].clone();
    let long = format!("agent:main:{}", "k".repeat(1 << 20));
    v[long.as_str()] = entry;
    std::fs::write(&store, serde_json::to_string(&v).unwrap()).unwrap();
    let hosts = f.write_hosts(&f.good_hosts());
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap()]);
    out.expect(0);
    let text = out.text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("HOST"), "{}", lines[0]);
    assert!(lines[0].len() < 400, "header is {} bytes", lines[0].len());
    let with_long: Vec<&&str> = lines.iter().filter(|l| l.contains(&long)).collect();
    assert_eq!(with_long.len(), 1, "the long key is printed whole once");
    for l in lines.iter().filter(|l| !l.contains(&long)) {
        assert!(l.len() < 400, "a {} byte line: {}…", l.len(), &l[..80]);
    }
    // The same for one host's `list` into a pipe.
    let dir = f.path().join("here/.openclaw").display().to_string();
    let out = f.run(&["--state-dir", &dir, "list"]);
    out.expect(0);
    let text = out.text();
    assert!(text.lines().next().unwrap().len() < 400);
    assert_eq!(text.lines().filter(|l| l.len() > 400).count(), 1);
}
