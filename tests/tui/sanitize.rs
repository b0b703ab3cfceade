//! Hostile transcript content never reaches the terminal as control characters.

use crate::support::tui::*;
use crossterm::event::KeyCode;

const EVIL: &str = "red\u{1b}[31mX osc52\u{1b}]52;c;aGVsbG8=\u{7} bare\u{1b} c1\u{9b}2J\u{85} bell\u{7} del\u{7f} bidi\u{202e}txt";

fn transcript_with(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("evil.jsonl");
    let esc = serde_json::to_string(text).expect("json");
    let lines = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}"#.to_string(),
        format!(r#"{{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":{esc}}}],"timestamp":1}}}}"#),
        format!(r#"{{"type":"custom_evil\u001b[2J","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","payload":{esc}}}"#),
        format!(r#"{{"type":"compaction","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:03.000Z","summary":{esc},"firstKeptEntryId":"a1","tokensBefore":10,"details":{{"readFiles":[{esc}],"modifiedFiles":[]}}}}"#),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").expect("write");
    (dir, p)
}

fn assert_clean(s: &str) {
    for c in s.chars() {
        assert!(!c.is_control() || c == '\n', "control char {c:?} in:\n{s}");
        assert!(
            !('\u{202a}'..='\u{202e}').contains(&c),
            "bidi override in:\n{s}"
        );
    }
}

#[test]
fn control_sequences_are_neutralised_everywhere() {
    let (_dir, p) = transcript_with(EVIL);
    let (mut state, ctx) = file_app(&p, (120, 40));
    press(&mut state, &ctx, &[key(KeyCode::Home)]);
    let list = screen(&state);
    assert_clean(&list);
    assert!(list.contains("red␛[31mX"), "{list}");
    // Every entry expanded, and the summaries screen.
    for _ in 0..3 {
        press(&mut state, &ctx, &[key(KeyCode::Enter)]);
        assert_clean(&screen(&state));
        press(&mut state, &ctx, &[key(KeyCode::Esc), key(KeyCode::Down)]);
    }
    press(&mut state, &ctx, &[ch('S')]);
    let s = screen(&state);
    assert_clean(&s);
    assert!(s.contains("osc52␛]52"), "{s}");
}
