//! Issue 12 item 6 (behaviour; the memory targets are in bench/run.sh): an over-long line is
//! streamed past, not buffered; an over-long entry is indexed, marked too large, and its
//! tokens are estimated from a streaming count; `show --entries` streams its output with
//! the same bytes as before.

use crate::support::cli::{HEADER, Home, assistant, user};
use clawtop::report::{json, show};
use clawtop::source::transcript_file::TranscriptFile;
use clawtop::transcript::Transcript;
use std::io::Write;

const MIB: usize = 1 << 20;

fn big_user_line(id: &str, parent: &str, text_len: usize) -> String {
    let text = "abcd".repeat(text_len / 4);
    user(id, Some(parent), &text)
}

#[test]
fn an_over_long_entry_is_indexed_marked_and_estimated_without_decoding() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.jsonl");
    let lines = [
        HEADER.to_string(),
        user("u1", None, "hello"),
        big_user_line("u2", "u1", 20 * MIB),
        assistant("a1", "u2", "ok", 100),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let t = Transcript::open(&p).unwrap();
    assert_eq!(t.len(), 3, "{:?}", t.warnings);
    let big = &t.entries[1];
    let tl = big.too_large().expect("marked too large");
    assert_eq!(tl.len, lines[2].len() as u64);
    // 20 MiB of text is ~5.2M tokens at 4 characters a token (keys add a little).
    assert!(
        (20 * MIB as u64 / 4..20 * MIB as u64 / 4 + 100).contains(&tl.est_tokens),
        "{}",
        tl.est_tokens
    );
    assert_eq!(t.written_id(1).as_deref(), Some("u2"));
    assert_eq!(
        t.entries[2].parent(),
        Some(1),
        "the tree stays linked through it"
    );
    assert!(t.raw_line(1).is_err());
    assert!(
        t.warnings
            .iter()
            .any(|w| w.message.contains("over the 16 MiB")),
        "{:?}",
        t.warnings
    );
    // The in-memory indexer agrees.
    let m = Transcript::from_bytes("m", std::fs::read(&p).unwrap());
    assert_eq!(m.entries[1].too_large(), t.entries[1].too_large());
}

#[test]
fn a_sparse_file_of_nul_bytes_without_newline_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("nul.jsonl");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(64 * MIB as u64).unwrap();
    let t = Transcript::open(&p).unwrap();
    assert_eq!(t.len(), 0);
    assert!(
        t.warnings
            .iter()
            .any(|w| w.message.contains("does not start like a JSON entry")),
        "{:?}",
        t.warnings
    );
}

#[test]
fn compaction_refuses_to_summarize_around_an_entry_too_large_to_decode() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.jsonl");
    let mut lines = vec![HEADER.to_string(), big_user_line("u1", "", 17 * MIB)];
    lines[1] = lines[1].replace("\"parentId\":\"\"", "\"parentId\":null");
    let mut parent = "u1".to_string();
    for i in 0..6 {
        let a = format!("a{i}");
        lines.push(assistant(&a, &parent, &"word ".repeat(2000), 100));
        let u = format!("q{i}");
        lines.push(user(&u, Some(&a), &"more ".repeat(2000)));
        parent = u;
    }
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let r = clawtop::compaction::prepare(&p, 2000);
    if let Ok(ok) = &r {
        panic!(
            "not refused: {:?} {:?}",
            ok.plan.messages_to_summarize,
            ok.transcript
                .entries
                .iter()
                .map(|e| e.too_large().is_some())
                .collect::<Vec<_>>()
        );
    }
    let e = r.err().unwrap();
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused, "{e}");
    assert!(e.to_string().contains("too large to summarize"), "{e}");
}

#[test]
fn streamed_show_entries_json_is_byte_identical_to_the_collected_form() {
    let h = Home::empty();
    let p = h.path().join("t.jsonl");
    let lines = [
        HEADER.to_string(),
        user("u1", None, "hello \u{1b}[31m"),
        assistant("a1", "u1", "ok", 100),
        user("u2", Some("u1"), "a branch"),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let (collected, _) = show::for_file(&TranscriptFile::new(&p), None, true).unwrap();
    let want = json::to_string(&collected);
    let (head, t) = show::for_file(&TranscriptFile::new(&p), None, false).unwrap();
    let mut got = Vec::new();
    show::write_json(&head, Some(&t), &mut got).unwrap();
    assert_eq!(String::from_utf8(got).unwrap(), want);

    let mut text = Vec::new();
    show::write_text(&head, Some(&t), true, &mut text).unwrap();
    assert_eq!(
        String::from_utf8(text).unwrap(),
        show::render(&collected, Some(&t), true)
    );
    let _ = std::io::stdout().flush();
}
