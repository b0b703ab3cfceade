//! Issue 12 item 4: text from config, store, transcript or model never carries escape
//! sequences, zero-width or bidi controls to the operator's terminal from the CLI.

use crate::support::cli::{HEADER, Home, assistant, user};

const HIDDEN: [char; 7] = [
    '\u{200b}', '\u{feff}', '\u{2060}', '\u{202e}', '\u{2066}', '\u{200f}', '\u{2028}',
];

fn assert_no_controls(what: &str, text: &str) {
    assert!(!text.contains('\u{1b}'), "{what} has ESC: {text:?}");
    assert!(!text.contains('\u{7}'), "{what} has BEL: {text:?}");
    assert!(!text.contains('\u{9b}'), "{what} has CSI: {text:?}");
    for c in HIDDEN {
        assert!(!text.contains(c), "{what} has U+{:04X}: {text:?}", c as u32);
    }
}

#[test]
fn flush_dry_run_neutralises_prompts_from_the_config() {
    let h = Home::host_a();
    let cfg = h.path().join("evil.json");
    std::fs::write(
        &cfg,
        serde_json::json!({"agents": {"defaults": {
            "workspace": "/srv/ws\u{1b}]0;ws-title\u{7}",
            "compaction": {"memoryFlush": {
            "prompt": "Write notes\u{1b}]0;pwned-title\u{7} now\u{200b}",
            "systemPrompt": "System\u{1b}[2J\u{1b}[31m red \u{202e}gnp.exe\u{9b}1m",
        }}}}})
        .to_string(),
    )
    .unwrap();
    let o = h.run(&[
        "--config",
        cfg.to_str().unwrap(),
        "flush",
        "agent:main:main",
        "--dry-run",
    ]);
    o.expect(0);
    let out = o.text();
    assert_no_controls("flush --dry-run stdout", &out);
    assert_no_controls("flush --dry-run stderr", &o.stderr);
    assert!(out.contains("␛]0;pwned-title"), "{out}");
    assert!(out.contains("Write notes"), "{out}");
    let j = h.run(&[
        "--config",
        cfg.to_str().unwrap(),
        "flush",
        "agent:main:main",
        "--dry-run",
        "--json",
    ]);
    j.expect(0);
    assert_no_controls("flush --dry-run --json", &j.text());
    assert!(
        j.json()["prompt"].as_str().unwrap().contains('\u{200b}'),
        "the JSON value is unchanged"
    );
}

#[test]
fn show_entries_neutralises_zero_width_and_bidi_controls() {
    let h = Home::empty();
    let f = h.path().join("t.jsonl");
    let text = format!(
        "pay{}pal{}ad{}min {}txt.exe \u{1b}]8;;http://x\u{7}link",
        HIDDEN[0], HIDDEN[1], HIDDEN[2], HIDDEN[3]
    );
    let lines = [
        HEADER.to_string(),
        user("u1", None, &text),
        assistant("a1", "u1", &format!("ok{}{}", HIDDEN[4], HIDDEN[5]), 100),
    ];
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    let o = h.run(&["show", f.to_str().unwrap(), "--entries"]);
    o.expect(0);
    assert_no_controls("show --entries", &o.text());
    assert!(o.text().contains("pay"), "{}", o.text());
    let j = h.run(&["show", f.to_str().unwrap(), "--entries", "--json"]);
    j.expect(0);
    assert_no_controls("show --entries --json", &j.text());
    // The JSON value itself is unchanged: the characters are escaped, not dropped.
    let v = j.json();
    assert!(v.to_string().contains('\u{200b}'), "{v}");
}
