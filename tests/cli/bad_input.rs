//! Bad input: a clear message naming the file (and line), no panic, nothing written.
use crate::support::cli::*;
use std::path::PathBuf;

/// Writes `bytes` as a transcript in a fresh HOME and runs show/show --entries/compact on it.
/// Returns the combined stderr of the show runs.
fn check_transcript(name: &str, bytes: &[u8]) -> (Home, String) {
    let h = Home::empty();
    let f: PathBuf = h.path().join(name);
    std::fs::write(&f, bytes).unwrap();
    let before = snapshot(h.path());
    let p = f.to_str().unwrap();
    let mut err = String::new();
    for args in [
        &["show", p][..],
        &["show", p, "--entries"],
        &["show", p, "--json", "--entries"],
    ] {
        let o = h.run(args);
        o.expect(0);
        err.push_str(&o.stderr);
    }
    let o = h.run(&["compact", p, "--dry-run", "--json"]);
    assert_ne!(o.code, 101, "{}", o.stderr);
    // 3: refused as the commit would refuse it (issue 18: the dry run starts from the use case).
    assert!(matches!(o.code, 0 | 1 | 3), "{}", o.stderr);
    if o.code != 0 {
        assert!(o.stderr.contains(name), "{}", o.stderr);
    }
    let mut after = snapshot(h.path());
    after.retain(|k, _| !k.starts_with(h.path().join(".xdg-state")));
    let mut before = before;
    before.retain(|k, _| !k.starts_with(h.path().join(".xdg-state")));
    assert_eq!(before, after, "nothing written");
    (h, err)
}

fn lines(ls: &[String]) -> Vec<u8> {
    (ls.join("\n") + "\n").into_bytes()
}

#[test]
fn malformed_line() {
    let (_, err) = check_transcript(
        "m.jsonl",
        &lines(&[
            HEADER.into(),
            user("u1", None, "a"),
            "not json {".into(),
            assistant("a1", "u1", "b", 5),
        ]),
    );
    assert!(err.contains("m.jsonl") && err.contains("line 3"), "{err}");
}

#[test]
fn truncated_last_line() {
    let mut b = lines(&[HEADER.into(), user("u1", None, "a")]);
    b.extend_from_slice(br#"{"type":"message","id":"a1","parentId":"u1","mess"#);
    let (_, err) = check_transcript("t.jsonl", &b);
    assert!(
        err.contains("t.jsonl") && err.contains("line 3") && err.contains("incomplete"),
        "{err}"
    );
}

#[test]
fn empty_transcript() {
    let (_, err) = check_transcript("e.jsonl", b"");
    assert!(err.contains("e.jsonl") && err.contains("empty"), "{err}");
}

#[test]
fn utf8_bom() {
    let mut b = b"\xef\xbb\xbf".to_vec();
    b.extend(lines(&[
        HEADER.into(),
        user("u1", None, "a"),
        assistant("a1", "u1", "b", 5),
    ]));
    let (h, err) = check_transcript("bom.jsonl", &b);
    assert!(
        err.contains("bom.jsonl") && err.contains("byte order mark"),
        "{err}"
    );
    let o = h.run(&[
        "show",
        h.path().join("bom.jsonl").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        o.json()["transcriptInfo"]["entries"],
        2,
        "BOM does not lose the header"
    );
}

#[test]
fn crlf_line_endings() {
    let b = [
        HEADER.to_string(),
        user("u1", None, "a"),
        assistant("a1", "u1", "b", 5),
    ]
    .join("\r\n")
        + "\r\n";
    let (h, _) = check_transcript("crlf.jsonl", b.as_bytes());
    let o = h.run(&[
        "show",
        h.path().join("crlf.jsonl").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.json()["transcriptInfo"]["entries"], 2);
    assert_eq!(
        o.json()["used"],
        10,
        "usage totalTokens of the last assistant"
    );
}

#[test]
fn invalid_utf8() {
    let mut b = lines(&[HEADER.into(), user("u1", None, "a")]);
    b.extend_from_slice(b"{\"type\":\"message\",\"id\":\"u2\",\"parentId\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xfe here\"}}\n");
    let (_, err) = check_transcript("u.jsonl", &b);
    assert!(
        err.contains("u.jsonl") && err.contains("line 3") && err.contains("UTF-8"),
        "{err}"
    );
}

#[test]
fn fifty_mb_single_line() {
    let big = "x".repeat(50 * 1024 * 1024);
    let b = lines(&[HEADER.into(), user("u1", None, &big)]);
    let h = Home::empty();
    let f = h.path().join("big.jsonl");
    std::fs::write(&f, &b).unwrap();
    drop(b);
    let p = f.to_str().unwrap();
    let o = h.run(&["show", p, "--json"]);
    o.expect(0);
    assert_eq!(o.json()["transcriptInfo"]["entries"], 1);
    h.run(&["compact", p, "--dry-run", "--json"]).expect(0);
    assert_eq!(
        std::fs::metadata(&f).unwrap().len(),
        (50 * 1024 * 1024 + HEADER.len() + 2 + user("u1", None, "").len()) as u64
    );
}

#[test]
fn unknown_entry_types() {
    let (h, err) = check_transcript(
        "k.jsonl",
        &lines(&[
            HEADER.into(),
            user("u1", None, "a"),
            r#"{"type":"future_thing","id":"f1","parentId":"u1","x":1}"#.into(),
        ]),
    );
    assert!(
        err.contains("k.jsonl") && err.contains("line 3") && err.contains("future_thing"),
        "{err}"
    );
    let o = h.run(&[
        "show",
        h.path().join("k.jsonl").to_str().unwrap(),
        "--entries",
        "--json",
    ]);
    assert_eq!(o.json()["entries"][1]["type"], "future_thing");
}

#[test]
fn duplicate_ids() {
    let (_, err) = check_transcript(
        "d.jsonl",
        &lines(&[HEADER.into(), user("u1", None, "a"), user("u1", None, "b")]),
    );
    assert!(
        err.contains("d.jsonl") && err.contains("line 3") && err.contains("duplicate"),
        "{err}"
    );
}

#[test]
fn parent_id_cycle() {
    let (_, err) = check_transcript(
        "c.jsonl",
        &lines(&[
            HEADER.into(),
            user("c1", Some("c2"), "a"),
            user("c2", Some("c1"), "b"),
        ]),
    );
    assert!(err.contains("c.jsonl") && err.contains("cycle"), "{err}");
}

#[test]
fn missing_transcript() {
    let h = Home::host_a();
    std::fs::remove_file(h.transcript()).unwrap();
    let before = snapshot(&h.state());
    let o = h.run(&["list", "--json"]);
    o.expect(0);
    let s = &o.json()["sessions"][0];
    assert_eq!(s["transcript"], serde_json::Value::Null);
    assert!(
        s["warnings"][0]
            .as_str()
            .unwrap()
            .contains("transcript not found"),
        "{s}"
    );
    assert_eq!(s["used"], 75943, "fresh totals need no transcript");
    let o = h.run(&["show", "agent:main:main"]);
    o.expect(0);
    assert!(o.stderr.contains("transcript not found"), "{}", o.stderr);
    // The dry run refuses what the commit refuses, with the same exit code and reason (they
    // used to disagree: exit 1 for the dry run, 3 for the commit).
    let dry = h.run(&["compact", "agent:main:main", "--dry-run"]);
    dry.expect(3);
    assert!(dry.stderr.contains("no transcript"), "{}", dry.stderr);
    let commit = h.run(&["compact", "agent:main:main"]);
    commit.expect(3);
    assert_eq!(dry.stderr, commit.stderr);
    assert_eq!(before, snapshot(&h.state()));
}

fn with_store(
    contents: &[u8],
) -> (
    Home,
    std::collections::BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)>,
) {
    let h = Home::host_a();
    std::fs::write(h.store(), contents).unwrap();
    let s = snapshot(&h.state());
    (h, s)
}

#[test]
fn corrupt_sessions_json() {
    let (h, before) = with_store(b"{\n  \"agent:main:main\": {\n    \"sessionId\": ");
    let o = h.run(&["list", "--json"]);
    o.expect(1);
    assert!(
        o.stderr.contains("sessions.json") && o.stderr.contains("line"),
        "{}",
        o.stderr
    );
    let o = h.run(&["show", "agent:main:main"]);
    o.expect(1);
    assert!(o.stderr.contains("sessions.json"), "{}", o.stderr);
    assert_eq!(before, snapshot(&h.state()));
}

#[test]
fn non_object_sessions_json() {
    let (h, before) = with_store(b"[1, 2, 3]");
    let o = h.run(&["list"]);
    o.expect(1);
    assert!(
        o.stderr.contains("sessions.json") && o.stderr.contains("not an object")
            || o.stderr.contains("an array"),
        "{}",
        o.stderr
    );
    assert_eq!(before, snapshot(&h.state()));
}

#[test]
fn entry_without_session_id_and_non_object_entry() {
    let (h, before) = with_store(br#"{"agent:main:x": {"updatedAt": 1}, "agent:main:y": 42, "agent:main:main": {"sessionId": "adhoc-1", "totalTokens": 5, "totalTokensFresh": true}}"#);
    let o = h.run(&["list", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["sessions"].as_array().unwrap().len(), 1);
    let w = v["warnings"].to_string();
    assert!(
        w.contains("sessions.json") && w.contains("agent:main:x") && w.contains("no sessionId"),
        "{w}"
    );
    assert!(
        w.contains("agent:main:y") && w.contains("not an object"),
        "{w}"
    );
    let o = h.run(&["list"]);
    o.expect(0);
    assert!(o.stderr.contains("agent:main:x"), "{}", o.stderr);
    assert_eq!(before, snapshot(&h.state()));
}

#[test]
fn session_file_outside_state_dir_is_not_read() {
    let h = Home::host_a();
    // A readable transcript outside the state dir that the entry points at.
    let outside = h.path().join("outside.jsonl");
    std::fs::write(
        &outside,
        lines(&[
            HEADER.into(),
            user("u1", None, "SECRET"),
            assistant("a1", "u1", "x", 99999),
        ]),
    )
    .unwrap();
    let store = format!(
        r#"{{"agent:main:main": {{"sessionId": "adhoc-1", "sessionFile": {:?}, "totalTokensFresh": false}},
            "agent:main:dots": {{"sessionId": "dots-1", "sessionFile": "../../../../outside.jsonl", "totalTokensFresh": false}}}}"#,
        outside.display().to_string()
    );
    std::fs::write(h.store(), store).unwrap();
    let before = snapshot(&h.state());
    let o = h.run(&["list", "--json"]);
    o.expect(0);
    let v = o.json();
    let main = &v["sessions"][0];
    assert!(
        main["warnings"]
            .to_string()
            .contains("outside the state dir"),
        "{main}"
    );
    assert_ne!(main["used"], 99999, "the outside file was never read");
    // Falls back to <sessions>/<sessionId>.jsonl, which does not exist here.
    assert_eq!(main["transcript"], serde_json::Value::Null);
    let dots = &v["sessions"][1];
    assert!(
        dots["warnings"]
            .to_string()
            .contains("outside the state dir"),
        "{dots}"
    );
    assert_ne!(dots["used"], 99999);
    let o = h.run(&["show", "agent:main:main", "--entries"]);
    o.expect(0);
    assert!(!o.text().contains("SECRET"));
    assert_eq!(before, snapshot(&h.state()));
}
