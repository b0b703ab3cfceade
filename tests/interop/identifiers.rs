//! clawtop's identifier extractor against OpenClaw 2026.9.6's own (`extractOpaqueIdentifiers`,
//! run by `interop/openclaw_identifiers.mjs` from the installed package), on every message of
//! the fixture transcripts and on generated hostile text. Fails (does not skip) when OpenClaw
//! is not installed.

use clawtop::audit::{self, extract};
use clawtop::transcript::Transcript;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::support::fixtures;

fn oracle(texts: &[String]) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/openclaw_identifiers.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node is required for the OpenClaw interop test (Node 20+)");
    let input = serde_json::to_vec(texts).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "OpenClaw oracle failed (interop/openclaw/install.sh installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle printed JSON")
}

/// Every message text of the file-backed fixtures, as OpenClaw's guard reads messages.
fn fixture_texts() -> Vec<String> {
    let mut texts = Vec::new();
    for dir in [
        fixtures::HOST_A_SESSIONS,
        fixtures::PI,
        fixtures::TRANSCRIPTS,
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures::fixture(dir))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            let t = Transcript::open(&f).unwrap();
            for i in 0..t.len() as u32 {
                if let Some(text) = audit::guard_text(&t, i).filter(|s| !s.is_empty()) {
                    texts.push(text);
                }
            }
        }
    }
    texts
}

/// Deterministic text built from pieces that sit on the edges of each rule.
fn generated(n: usize) -> Vec<String> {
    const PIECES: [&str; 48] = [
        "a", "Z", "0", "1", "9", "f", "e", "E", "x", ".", "-", "_", "/", "\\", ":", "(", ")", "`",
        "'", "\"", "<", ">", ",", ";", "!", "?", " ", "\n", "http://", "https://", "C:\\", "x.y",
        "ab", "deadbeef", "123456", "1e5", "e+", "\u{fb00}", "é", "\u{a0}", "\u{feff}", "\u{2028}",
        "ms", "g", "8080", "12345", "ABCDEF0", ".5",
    ];
    let mut state: u64 = 0x9e3779b97f4a7c15;
    let mut next = |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m as u64) as usize
    };
    (0..n)
        .map(|_| {
            let len = 1 + next(60);
            (0..len).map(|_| PIECES[next(PIECES.len())]).collect()
        })
        .collect()
}

#[test]
fn extraction_agrees_with_openclaw_2026_9_6() {
    let mut texts = fixture_texts();
    let from_fixtures = texts.len();
    assert!(
        from_fixtures > 100,
        "expected the fixtures' messages, found {from_fixtures}"
    );
    texts.extend(generated(5000));
    let o = oracle(&texts);
    assert_eq!(o["openclawVersion"], "2026.9.6");
    let (all, guard) = (o["all"].as_array().unwrap(), o["guard"].as_array().unwrap());
    let mut bad = Vec::new();
    let mut nonempty = 0;
    for (i, text) in texts.iter().enumerate() {
        let ours = extract::identifiers(text);
        let theirs: Vec<String> = serde_json::from_value(all[i].clone()).unwrap();
        nonempty += usize::from(!ours.is_empty());
        if ours != theirs {
            bad.push(format!(
                "{text:?}\n  clawtop  {ours:?}\n  openclaw {theirs:?}"
            ));
        }
        let first12: Vec<String> = serde_json::from_value(guard[i].clone()).unwrap();
        assert_eq!(&ours[..ours.len().min(12)], &first12[..], "{text:?}");
    }
    assert!(
        bad.is_empty(),
        "{} of {} texts differ:\n{}",
        bad.len(),
        texts.len(),
        bad[..bad.len().min(10)].join("\n")
    );
    assert!(
        nonempty > 1000,
        "too few texts with identifiers to mean anything: {nonempty}"
    );
}
