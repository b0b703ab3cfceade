//! State dir resolution, config, era B.
use crate::support::cli::*;

#[test]
fn no_state_dir_exits_1_and_names_places() {
    let h = Home::empty();
    for args in [
        &["list"][..],
        &["show", "agent:main:main"],
        &["compact", "agent:main:main", "--dry-run"],
    ] {
        let o = h.run(args);
        o.expect(1);
        assert!(
            o.stderr.contains(".openclaw") && o.stderr.contains(".clawdbot"),
            "{}",
            o.stderr
        );
        assert!(o.stdout.is_empty(), "CLI never falls back to the demo");
    }
}

#[test]
fn state_dir_flag_env_and_profile() {
    let h = Home::host_a();
    let elsewhere = Home::empty();
    let sd = h.state().display().to_string();
    let o = run_with(
        elsewhere.path(),
        &["list", "--json", "--state-dir", &sd],
        &[],
    );
    o.expect(0);
    assert_eq!(o.json()["sessions"][0]["used"], 40378);
    let o = run_with(
        elsewhere.path(),
        &["list", "--json"],
        &[("OPENCLAW_STATE_DIR", &sd)],
    );
    o.expect(0);
    assert_eq!(o.json()["stateDir"], sd);
    let o = run_with(
        elsewhere.path(),
        &["list", "--json"],
        &[("OPENCLAW_HOME", &h.path().display().to_string())],
    );
    o.expect(0);
    assert_eq!(o.json()["stateDir"], sd);
    // Profile: ~/.openclaw-work
    copy_dir(&h.state(), &elsewhere.path().join(".openclaw-work"));
    let o = elsewhere.run(&["--profile", "work", "list", "--json"]);
    o.expect(0);
    assert!(
        o.json()["stateDir"]
            .as_str()
            .unwrap()
            .ends_with(".openclaw-work")
    );
    // An explicit dir that does not exist is an error, not a fallback.
    let o = h.run(&["list", "--state-dir", "/nonexistent/state"]);
    o.expect(1);
    assert!(
        o.stderr.contains("/nonexistent/state") && o.stderr.contains("--state-dir"),
        "{}",
        o.stderr
    );
}

#[test]
fn broken_config_names_the_file() {
    let h = Home::host_a();
    std::fs::write(h.state().join("openclaw.json"), "{ agents: { defaults: ").unwrap();
    let before = snapshot(&h.state());
    let o = h.run(&["list"]);
    o.expect(1);
    assert!(o.stderr.contains("openclaw.json"), "{}", o.stderr);
    assert_eq!(before, snapshot(&h.state()));
    let o = h.run(&["list", "--config", "/nonexistent/openclaw.json"]);
    o.expect(1);
    assert!(
        o.stderr.contains("/nonexistent/openclaw.json"),
        "{}",
        o.stderr
    );
}

#[test]
fn missing_config_is_empty() {
    let h = Home::host_a();
    std::fs::remove_file(h.state().join("openclaw.json")).unwrap();
    let o = h.run(&["list", "--json"]);
    o.expect(0);
    assert_eq!(o.json()["sessions"][0]["window"], 48000);
}

fn make_era_b(h: &Home, user_version: u32, extra: &[u8]) {
    let dir = h.state().join("agents/main/agent");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openclaw-agent.sqlite"),
        clawtop::store::era::fake_sqlite(user_version, extra),
    )
    .unwrap();
}

#[test]
fn era_b_by_user_version() {
    // A header claiming agent schema 4 but no database behind it: a SQLite host whose agent
    // database is damaged. It is named, the legacy sessions.json beside it is not read as
    // live, and nothing is written.
    let h = Home::host_a();
    make_era_b(&h, 4, b"");
    let before = snapshot(&h.state());
    let o = h.run(&["list", "--json"]);
    o.expect(1);
    let v = o.json();
    assert_eq!(v["era"], "sqlite");
    assert!(v["sessions"].as_array().unwrap().is_empty(), "{v}");
    assert!(
        o.stderr.contains(
            "agents/main/agent/openclaw-agent.sqlite is not a SQLite database or is damaged"
        ),
        "{}",
        o.stderr
    );
    assert!(v["warnings"][0].as_str().unwrap().contains("SQLite"), "{v}");
    let ws = v["warnings"].to_string();
    assert!(
        ws.contains("sessions.json is a legacy store") && ws.contains("never edited"),
        "{ws}"
    );
    h.run(&["list"]).expect(1);
    // The session cannot be found in a damaged database: a compaction, its dry run, a flush
    // and show all stop on the same cause (one router: the dry run and the commit used to
    // disagree here, exit 1 against "Nothing was sent", exit 0).
    for args in [
        &["compact", "agent:main:main"][..],
        &["compact", "agent:main:main", "--dry-run", "--json"],
        &["flush", "agent:main:main"],
        &["show", "agent:main:main"],
    ] {
        let o = h.run(args);
        o.expect(1);
        assert!(
            o.stderr.contains("openclaw-agent.sqlite"),
            "{args:?}: {}",
            o.stderr
        );
    }
    assert_eq!(
        before,
        snapshot(&h.state()),
        "nothing written on a SQLite host"
    );
}

#[test]
fn era_b_by_table_name_and_schema_1_is_era_a() {
    let h = Home::host_a();
    make_era_b(&h, 1, b"");
    assert_eq!(
        h.run(&["list", "--json"]).json()["era"],
        "file",
        "schema 1 (auth/memory only) is still era A"
    );
    make_era_b(
        &h,
        1,
        b"CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY)",
    );
    assert_eq!(h.run(&["list", "--json"]).json()["era"], "sqlite");
}

#[test]
fn tui_entry_points() {
    let h = Home::empty();
    let f = h.path().join("t.jsonl");
    std::fs::write(&f, format!("{HEADER}\n")).unwrap();
    // Without a terminal (as here): a clear message, exit 1, never a panic.
    for args in [
        &[f.to_str().unwrap()][..],
        &["open", f.to_str().unwrap()],
        &[],
        &["--demo"],
    ] {
        let o = h.run(args);
        o.expect(1);
        assert!(
            o.stderr.contains("needs a terminal"),
            "{args:?}: {}",
            o.stderr
        );
    }
    let o = h.run(&["missing.jsonl"]);
    o.expect(1);
    assert!(o.stderr.contains("missing.jsonl"), "{}", o.stderr);
    h.run(&["open", "missing.jsonl"]).expect(1);
    // An explicit state dir that does not exist is an error, not the demo.
    h.run(&["--state-dir", "/nonexistent"]).expect(1);
}
