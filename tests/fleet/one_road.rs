//! Issue 29: a host read over ssh is graded exactly as the host grades itself. The same copy of
//! host-a is in the hosts file twice — as a local state dir and behind the fake ssh — and
//! every surface gives both the same rows, the same problems, the same check lines and the
//! same metric families as `clawtop` run on that host directly.

use crate::fake::Fleet;
use std::collections::BTreeSet;

/// Every problem `check` knows, so each one the host has is printed.
const EVERY: &str = "stuck,over,compact-due,flush-due,busy,busy-stale-lock,no-transcript,unknown,compaction-loop,no-flush-before-compaction,lossy-compaction";

fn twice(f: &Fleet) -> std::path::PathBuf {
    let dir = f.path().join("remote a/.openclaw").display().to_string();
    f.write_hosts(&format!(
        "[[host]]\nname = \"local\"\nstate_dir = {dir:?}\n\n\
         [[host]]\nname = \"remote\"\nssh = \"ops@a\"\nstate_dir = {dir:?}\n"
    ))
}

#[test]
fn a_local_host_and_the_same_host_over_ssh_have_identical_rows_and_problems() {
    let f = Fleet::new();
    let hosts = twice(&f);
    let out = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(0);
    let v = out.json();
    let of = |host: &str| -> Vec<clawtop::usecase::list::SessionRow> {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["host"] == host)
            .map(|s| serde_json::from_value(s.clone()).expect("row reads back"))
            .collect()
    };
    let (local, remote) = (of("local"), of("remote"));
    assert_eq!(local.len(), 1);
    assert_eq!(
        serde_json::to_value(&local).unwrap(),
        serde_json::to_value(&remote).unwrap()
    );
    // The row carries what check grades beyond its status: host-a's last compaction.
    let codes: BTreeSet<&str> = remote[0].problems.iter().map(|p| p.code.as_str()).collect();
    assert!(codes.contains("compact-due"), "{codes:?}");
    assert!(
        codes.len() > 1,
        "history and audit problems travel: {codes:?}"
    );
    // The forecast travels too (the fleet table's ETA is the host's).
    assert_eq!(local[0].forecast, remote[0].forecast);
    assert!(remote[0].forecast.is_some());
}

#[test]
fn check_hosts_prints_what_check_on_the_host_prints() {
    let f = Fleet::new();
    let hosts = twice(&f);
    let dir = f.path().join("remote a/.openclaw").display().to_string();
    let direct = f.run(&["--state-dir", &dir, "check", "--warn", EVERY]);
    let fleet = f.run(&["check", "--hosts", hosts.to_str().unwrap(), "--warn", EVERY]);
    assert_eq!(fleet.code, direct.code, "{}", fleet.text());
    let direct = direct.text();
    assert!(direct.lines().count() > 1, "{direct}");
    let text = fleet.text();
    for host in ["local", "remote"] {
        let lines: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("{host}: ")))
            .map(String::from)
            .collect();
        assert_eq!(lines, direct.lines().collect::<Vec<_>>(), "{host}:\n{text}");
    }
}

/// The metric families (names) of an exposition.
fn families(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The families with a sample labelled `host="<host>"`.
fn sampled(text: &str, host: &str) -> BTreeSet<String> {
    let label = format!("host=\"{host}\"");
    text.lines()
        .filter(|l| !l.starts_with('#') && l.contains(&label))
        .map(|l| l.split('{').next().unwrap().to_string())
        .collect()
}

#[test]
fn metrics_hosts_has_every_family_the_hosts_own_metrics_has() {
    let f = Fleet::new();
    let hosts = twice(&f);
    let dir = f.path().join("remote a/.openclaw").display().to_string();
    let direct = f.run(&["--state-dir", &dir, "metrics"]);
    direct.expect(0);
    let direct_text = direct.text();
    let own = families(&direct_text);
    for name in [
        "clawtop_session_busy",
        "clawtop_session_stale_lock",
        "clawtop_compaction_messages_dropped_unsummarized",
    ] {
        assert!(own.contains(name), "{name} missing from metrics");
    }
    let fleet = f.run(&["metrics", "--hosts", hosts.to_str().unwrap()]);
    fleet.expect(0);
    let text = fleet.text();
    let own_sampled: BTreeSet<String> = direct_text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(['{', ' ']).next().unwrap().to_string())
        .collect();
    for host in ["local", "remote"] {
        let got = sampled(&text, host);
        let missing: Vec<_> = own_sampled.difference(&got).collect();
        assert!(missing.is_empty(), "{host} lacks {missing:?}:\n{text}");
    }
    // Same samples for both, the host label aside.
    let strip = |host: &str| -> Vec<String> {
        let label = format!("host=\"{host}\",");
        let bare = format!("{{host=\"{host}\"}}");
        text.lines()
            .filter(|l| l.contains(&format!("host=\"{host}\"")))
            .filter(|l| !l.starts_with("clawtop_host_up"))
            .map(|l| l.replace(&label, "").replace(&bare, ""))
            .collect()
    };
    assert_eq!(strip("local"), strip("remote"));
}
