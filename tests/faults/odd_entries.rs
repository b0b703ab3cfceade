//! Issue 20 item 8: a memory file with another hard link is not written through, and a store
//! key JavaScript wrote with a lone UTF-16 surrogate costs only that entry.

use crate::support::cli::Home;

#[test]
fn a_hard_linked_memory_file_is_refused_and_not_written() {
    let h = Home::host_a();
    let ws = h.path().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let target = ws.join(format!("memory/{today}.md"));
    let elsewhere = h.path().join("elsewhere.md");
    std::fs::write(&elsewhere, "not notes\n").unwrap();
    std::fs::hard_link(&elsewhere, &target).unwrap();
    let notes = h.path().join("notes.md");
    std::fs::write(&notes, "- keep PR #4411 open").unwrap();
    let store_before = std::fs::read(h.store()).unwrap();
    let args = |last: &'static str| {
        vec![
            "flush".to_string(),
            "agent:main:main".into(),
            "--notes-file".into(),
            notes.to_str().unwrap().into(),
            "--workspace".into(),
            ws.to_str().unwrap().into(),
            last.into(),
        ]
    };
    let dry = args("--dry-run");
    let o = h.run(&dry.iter().map(String::as_str).collect::<Vec<_>>());
    o.expect(0);
    assert!(
        o.stderr.contains("hard links"),
        "the preview says so: {}",
        o.stderr
    );
    let yes = args("--yes");
    let o = h.run(&yes.iter().map(String::as_str).collect::<Vec<_>>());
    o.expect(3);
    assert!(o.stderr.contains(&format!("{today}.md")), "{}", o.stderr);
    assert!(o.stderr.contains("hard links"), "{}", o.stderr);
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "not notes\n");
    assert_eq!(std::fs::read(h.store()).unwrap(), store_before);
}

#[test]
fn a_lone_surrogate_in_a_store_key_skips_only_that_entry_and_names_it() {
    let h = Home::host_a();
    let text = std::fs::read_to_string(h.store()).unwrap();
    // A second entry whose key ends in a lone high surrogate (JavaScript can write it).
    let bad = r#"{
  "agent:main:cut\ud83d": { "sessionId": "cut-1", "updatedAt": 1 },"#;
    std::fs::write(h.store(), text.replacen('{', bad, 1)).unwrap();
    let o = h.run(&["list", "--json"]);
    o.expect(0);
    let v = o.json();
    let keys: Vec<&str> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionKey"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["agent:main:main"], "{v}");
    let all = format!("{v}{}", o.stderr);
    assert!(all.contains("agent:main:cut"), "names the entry: {all}");
    assert!(all.contains("surrogate"), "says why: {all}");
    // The other entry is still usable by every command.
    h.run(&["show", "agent:main:main"]).expect(0);
}
