use super::*;

fn t(s: &str) -> Transcript {
    Transcript::from_bytes("mem.jsonl", s.as_bytes().to_vec())
}

#[test]
fn empty_file_is_a_warning_not_an_error() {
    let tr = t("");
    assert!(tr.is_empty());
    assert_eq!(tr.warnings[0].message, "empty file");
}

#[test]
fn built_from_entries_links_like_a_file() {
    let header = r#"{"type":"session","version":3,"id":"s1"}"#;
    let a =
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#;
    // Pretty-printed JSON (a raw line break) still makes one entry.
    let b = "{\"type\":\"message\",\n \"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"assistant\",\"content\":[]}}";
    let tr = Transcript::from_entries("db#s1", [header, a, b]);
    assert_eq!(tr.len(), 2);
    assert_eq!(tr.version, 3);
    assert_eq!(tr.entries[1].parent(), Some(0));
    assert_eq!(tr.active_branch(), vec![0, 1]);
    assert_eq!(tr.entry_json(1).unwrap()["id"], "b");
    assert!(tr.warnings.is_empty(), "{:?}", tr.warnings);
    assert_eq!(tr.path().to_string_lossy(), "db#s1");
}

fn msg(id: &str, parent: Option<&str>) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("{p:?}"));
    format!(
        r#"{{"type":"message","id":{id:?},"parentId":{p},"message":{{"role":"user","content":"x"}}}}"#
    )
}

fn v3(lines: &[String]) -> Transcript {
    let mut s = r#"{"type":"session","version":3,"id":"s"}"#.to_string() + "\n";
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    t(&s)
}

#[test]
fn chains_and_siblings_are_linked_without_keeping_their_parent_ids() {
    let tr = v3(&[
        msg("r", None),
        msg("a", Some("r")),
        msg("b", Some("r")),
        msg("c", Some("r")),
        msg("d", Some("c")),
    ]);
    let parents: Vec<_> = tr.entries.iter().map(|e| e.parent()).collect();
    assert_eq!(parents, vec![None, Some(0), Some(0), Some(0), Some(3)]);
    assert!(tr.entries.iter().all(|e| e.rare.is_none()), "nothing boxed");
    assert_eq!(tr.written_parent_id(2).as_deref(), Some("r"));
    assert_eq!(tr.written_parent_id(0).as_deref(), None);
    assert!(tr.all_warnings().is_empty(), "{:?}", tr.all_warnings());
}

#[test]
fn a_parent_further_back_is_resolved_at_link_time() {
    let tr = v3(&[
        msg("r", None),
        msg("a", Some("r")),
        msg("b", Some("a")),
        msg("c", Some("b")),
        msg("x", Some("a")),
    ]);
    assert_eq!(tr.entries[4].parent(), Some(1));
    assert_eq!(tr.written_parent_id(4).as_deref(), Some("a"));
}

#[test]
fn unresolved_and_self_parents_keep_the_written_id() {
    let tr = v3(&[msg("r", None), msg("a", Some("zz")), msg("s", Some("s"))]);
    assert_eq!(tr.entries[1].parent(), None);
    assert_eq!(tr.written_parent_id(1).as_deref(), Some("zz"));
    assert_eq!(tr.entries[2].parent(), None);
    assert_eq!(tr.written_parent_id(2).as_deref(), Some("s"));
    let w: Vec<String> = tr.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        w.iter().any(|w| w.contains(r#"parentId "zz" not found"#)),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.contains(r#"entry is its own parent ("s")"#)),
        "{w:?}"
    );
}

#[test]
fn with_duplicate_ids_the_later_entry_wins_even_for_a_chain() {
    // `b` follows the first `a`, but pi links it to the last entry with that id.
    let tr = v3(&[
        msg("a", None),
        msg("b", Some("a")),
        msg("a", Some("b")),
        msg("c", Some("a")),
    ]);
    assert_eq!(tr.entries[1].parent(), Some(2));
    assert_eq!(tr.entries[3].parent(), Some(2));
    assert_eq!(tr.entries[2].parent(), Some(1));
    assert_eq!(tr.written_parent_id(1).as_deref(), Some("a"));
    assert!(
        tr.warnings
            .iter()
            .any(|w| w.message.contains("duplicate id \"a\"")),
        "{:?}",
        tr.warnings
    );
    // An entry whose duplicate id makes it its own parent.
    let tr = v3(&[msg("a", None), msg("a", Some("a"))]);
    assert_eq!(tr.entries[1].parent(), None);
    assert_eq!(tr.written_parent_id(1).as_deref(), Some("a"));
    assert!(
        tr.warnings
            .iter()
            .any(|w| w.message.contains("its own parent")),
        "{:?}",
        tr.warnings
    );
}

#[test]
fn v1_files_chain_in_order_and_show_written_parent_ids() {
    let tr = t(&[
        r#"{"type":"session","id":"s"}"#.to_string(),
        msg("a", None),
        msg("b", Some("a")),
        msg("c", Some("a")),
    ]
    .join("\n"));
    assert_eq!(tr.version, 1);
    let parents: Vec<_> = tr.entries.iter().map(|e| e.parent()).collect();
    assert_eq!(parents, vec![None, Some(0), Some(1)]);
    assert_eq!(tr.written_parent_id(2).as_deref(), Some("a"));
    assert_eq!(tr.written_parent_id(1).as_deref(), Some("a"));
    assert_eq!(tr.entry_id(1).as_deref(), None, "v1 ids are not cited");
    assert_eq!(tr.written_id(1).as_deref(), Some("b"));
}

#[test]
fn an_entry_is_small() {
    assert!(std::mem::size_of::<EntryMeta>() <= 48);
}

#[test]
fn an_envelope_indexes_like_its_entry() {
    let rows = [
        r#"{"type":"session","version":3,"id":"s\"1","timestamp":"t","cwd":"/w","extra":[1,2]}"#,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"toolResult","content":"é\n"}}"#,
        r#"{"type":"message","id":"b","parentId":"a","message":"not an object"}"#,
        r#"{"type":"mystery","id":7,"parentId":"b"}"#,
        r#"{"id":"c","parentId":"b","message":{"content":[]}}"#,
    ];
    let whole = Transcript::from_entries("whole", rows);
    let envelopes: Vec<String> = rows
        .iter()
        .map(|r| String::from_utf8(envelope(r.as_bytes()).unwrap()).unwrap())
        .collect();
    assert!(
        envelopes.iter().all(|e| !e.contains("content")),
        "{envelopes:?}"
    );
    let small = Transcript::from_entries("small", &envelopes);
    let shape = |t: &Transcript| {
        let mut v: Vec<String> = (0..t.len() as u32)
            .map(|i| {
                let e = &t.entries[i as usize];
                format!(
                    "{:?} {:?} {:?} {:?} {:?}",
                    e.kind,
                    e.raw_type(),
                    t.written_id(i).as_deref(),
                    e.parent(),
                    t.written_parent_id(i)
                )
            })
            .collect();
        v.extend(t.all_warnings().iter().map(|w| w.to_string()));
        let h = t.header.as_ref().unwrap();
        v.push(format!(
            "{:?} {} {:?} {:?}",
            h.id, h.version, h.timestamp, h.cwd
        ));
        v
    };
    assert_eq!(shape(&whole), shape(&small));
}

/// A file's entries are read in chunks: each asked-for entry is handed over once with the
/// bytes `raw_line` gives, in any order asked, across chunk boundaries and gaps; after the
/// file shrinks under it, the entries still there are handed over and the rest skipped.
#[test]
fn for_each_raw_reads_a_file_in_chunks() {
    let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n");
    let mut parent = "null".to_string();
    for n in 0..400 {
        // Some entries are large, so a context needs more than one chunk.
        let body = "x".repeat(if n % 50 == 7 { 300_000 } else { 40 + n });
        text.push_str(&format!(
            "  {{\"type\":\"message\",\"id\":\"e{n}\",\"parentId\":{parent},\"message\":{{\"role\":\"user\",\"content\":\"{body}\"}}}}\r\n"
        ));
        parent = format!("\"e{n}\"");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, &text).unwrap();
    let tr = Transcript::open(&path).unwrap();
    assert_eq!(tr.len(), 400);
    let mut asked: Vec<u32> = (0..400).filter(|i| i % 3 != 1).rev().collect();
    asked.push(5);
    let mut got = std::collections::BTreeMap::new();
    assert!(tr.for_each_raw(&asked, |i, raw| {
        assert!(
            got.insert(i, raw.to_vec()).is_none(),
            "entry {i} handed over twice"
        );
    }));
    let want: Vec<u32> = (0..400).filter(|i| i % 3 != 1).collect();
    assert_eq!(got.keys().copied().collect::<Vec<_>>(), want);
    for (&i, raw) in &got {
        assert_eq!(raw, &tr.raw_line(i).unwrap().to_vec(), "entry {i}");
    }
    // The file loses its second half after it was indexed.
    let keep = tr.entries[200].offset;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(keep)
        .unwrap();
    let mut after = Vec::new();
    assert!(
        !tr.for_each_raw(&asked, |i, _| after.push(i)),
        "entries lost since the index are not a whole read"
    );
    after.sort_unstable();
    let readable: Vec<u32> = want.iter().copied().filter(|&i| i < 200).collect();
    assert_eq!(after, readable);
}

/// A stand-in for the figures' fused parse: the scan's envelope, and one token for every line.
fn one_token(raw: &[u8], _: bool) -> Option<(LineHead<'_>, Option<MessageFigures>)> {
    let head = serde_json::from_slice::<LineHead>(raw).ok()?;
    let f = MessageFigures {
        tokens: 1,
        ..Default::default()
    };
    Some((head, Some(f)))
}

fn labels(n: usize) -> Vec<u8> {
    let mut b = br#"{"type":"session","version":3,"id":"s"}"#.to_vec();
    b.push(b'\n');
    for i in 0..n {
        b.extend_from_slice(format!("{{\"type\":\"label\",\"id\":\"{i}\"}}\n").as_bytes());
    }
    b
}

/// Figures computed while indexing fill the table up to [`FIGURES_MEMO_MAX`] entries; past it
/// none are kept (the bound that holds a million-entry session's memory), and the index is
/// the plain scan's either way.
#[test]
fn figures_computed_while_indexing_keep_the_table_bound() {
    for n in [FIGURES_MEMO_MAX, FIGURES_MEMO_MAX + 1] {
        let bytes = labels(n);
        let plain = Transcript::from_bytes("l.jsonl", bytes.clone());
        let t = Transcript::from_bytes_with_figures("l.jsonl", bytes, one_token);
        assert_eq!(t.len(), n);
        assert_eq!(format!("{:?}", t.entries), format!("{:?}", plain.entries));
        let kept = n <= FIGURES_MEMO_MAX;
        assert_eq!(t.keeps_figures(), kept);
        for i in [0, n as u32 / 2, n as u32 - 1] {
            assert_eq!(t.has_figures(i), kept, "{n} entries, entry {i}");
        }
        if kept {
            assert_eq!(t.memo_figures(7, MessageFigures::default).tokens, 1);
        }
    }
}

/// A transcript opened without asking for figures computes none while indexing.
#[test]
fn figures_are_computed_while_indexing_only_when_asked() {
    let bytes = labels(10);
    let t = Transcript::from_bytes("l.jsonl", bytes.clone());
    assert!((0..10).all(|i| !t.has_figures(i)));
    let t = Transcript::from_bytes_with_figures("l.jsonl", bytes, one_token);
    assert!((0..10).all(|i| t.has_figures(i)));
}

/// The figures table's cell stays at the 24 bytes an entry its memory bound counts.
#[test]
fn a_figures_cell_is_24_bytes() {
    assert!(std::mem::size_of::<std::sync::OnceLock<MessageFigures>>() <= 24);
}

/// A kept head is the head the line gives ([`tail::slim`]), asked once or again, for every
/// entry of every fixture; at most [`SLIM_MEMO_MAX`] are kept, the first asked for.
#[test]
fn kept_heads_are_the_lines_heads_and_bounded() {
    let mut over_the_bound = 0;
    for p in fixture_transcripts() {
        let t = Transcript::open(&p).unwrap();
        over_the_bound += usize::from(t.len() > SLIM_MEMO_MAX);
        for round in 0..2 {
            for i in (0..t.len() as u32).rev() {
                let want = t.raw_line(i).ok().and_then(|raw| tail::slim(&raw));
                assert_eq!(
                    t.slim(i).as_deref(),
                    want.as_ref(),
                    "{} entry {i} round {round}",
                    p.display()
                );
            }
        }
        let kept = t.slims.lock().unwrap();
        // The newest entries, asked first, are the ones kept, but no long line.
        let short: Vec<u32> = (0..t.len() as u32)
            .rev()
            .filter(|&i| t.entries[i as usize].len <= SLIM_MEMO_LINE_MAX)
            .take(SLIM_MEMO_MAX)
            .collect();
        let kept_ids: Vec<u32> = kept.iter().map(|(i, _)| *i).collect();
        assert_eq!(kept_ids, short, "{}", p.display());
    }
    assert!(over_the_bound > 0, "no fixture exercises the bound");
    // A long user line: its head is given, not kept.
    let big = "x".repeat(SLIM_MEMO_LINE_MAX as usize);
    let text = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-11-01T00:00:00Z\",\"cwd\":\"/w\"}}\n{{\"type\":\"message\",\"id\":\"u\",\"parentId\":null,\"timestamp\":\"2026-11-01T00:00:01Z\",\"message\":{{\"role\":\"user\",\"content\":\"{big}\"}}}}\n"
    );
    let t = Transcript::from_bytes("long.jsonl", text.into_bytes());
    let head = t.slim(0).expect("a head");
    assert_eq!(
        head["message"]["content"].as_str().map(str::len),
        Some(big.len())
    );
    assert!(t.slims.lock().unwrap().is_empty());
}

/// `parse::from_bytes` takes the `str` road for UTF-8 and the bytes road otherwise; either
/// way it must give what a parse of the bytes gives, value or refusal.
#[test]
fn a_parse_through_a_checked_str_gives_what_the_parse_of_bytes_gives() {
    #[derive(serde::Deserialize, PartialEq, Debug)]
    struct Head<'a> {
        #[serde(borrow)]
        id: Option<std::borrow::Cow<'a, str>>,
        usage: Option<serde_json::Value>,
    }
    let lines: [&[u8]; 7] = [
        br#"{"id":"a1","usage":{"input":3},"content":"text"}"#,
        b"{\"id\":\"a1\",\"content\":\"caf\xc3\xa9\"}",
        // Not UTF-8 in a string the parse skips: bytes pass it over.
        b"{\"id\":\"a1\",\"content\":\"bad \xff here\"}",
        // Not UTF-8 in a string the parse keeps: refused.
        b"{\"id\":\"a\xff\"}",
        br#"{"id":"a1","usage":{"input":3}"#,
        br#"{"id":"\ud800","usage":null}"#,
        b"[1,2]",
    ];
    for line in lines {
        let via_str = parse::from_bytes::<Head>(line).map_err(|e| e.to_string());
        let via_bytes = serde_json::from_slice::<Head>(line).map_err(|e| e.to_string());
        assert_eq!(via_str, via_bytes, "{}", String::from_utf8_lossy(line));
        let value = parse::from_bytes::<serde_json::Value>(line).map_err(|e| e.to_string());
        let value_bytes =
            serde_json::from_slice::<serde_json::Value>(line).map_err(|e| e.to_string());
        assert_eq!(value, value_bytes, "{}", String::from_utf8_lossy(line));
    }
    assert!(
        parse::from_bytes::<Head>(lines[2]).is_ok(),
        "skipped bad bytes pass"
    );
    assert!(
        parse::from_bytes::<Head>(lines[3]).is_err(),
        "kept bad bytes are refused"
    );
}

/// A line is checked as UTF-8 whole before its head is parsed: one that is not is read as
/// before, its bad bytes in skipped text or in the fields the head reads, and a lone
/// surrogate escape repaired as JavaScript reads it.
#[test]
fn lines_that_are_not_utf8_are_read_as_javascript_reads_them() {
    let mut b = br#"{"type":"session","version":3,"id":"s"}"#.to_vec();
    b.extend_from_slice(b"\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"bad \xff here\"}}\n");
    b.extend_from_slice(b"{\"type\":\"message\",\"id\":\"b\xfe\",\"parentId\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n");
    b.extend_from_slice(br#"{"type":"message","id":"c\ud800","parentId":"b\ufffd","message":{"role":"user","content":"x"}}"#);
    b.push(b'\n');
    b.extend_from_slice(br#"{"type":"message","id":"d","parentId":"c\ufffd","message":{"role":"user","content":"fine"}}"#);
    let tr = Transcript::from_bytes("u.jsonl", b);
    let ids: Vec<String> = (0..tr.len() as u32)
        .map(|i| tr.written_id(i).unwrap().to_string())
        .collect();
    assert_eq!(ids, ["a", "b\u{fffd}", "c\u{fffd}", "d"]);
    assert_eq!(tr.active_branch(), vec![0, 1, 2, 3]);
    let warnings: Vec<(u32, &str)> = tr
        .warnings
        .iter()
        .map(|w| (w.line, w.message.as_str()))
        .collect();
    assert_eq!(
        warnings,
        [
            (2, "invalid UTF-8 replaced with U+FFFD"),
            (3, "invalid UTF-8 replaced with U+FFFD"),
            (4, "lone UTF-16 surrogate escape replaced with U+FFFD"),
        ]
    );
}

impl Transcript {
    /// Whether the scan kept entry `idx`'s head ([`turn_heads`]).
    fn head_kept(&self, idx: u32) -> bool {
        self.turns.has(idx)
    }
}

/// Each head the scan kept is the head its line gives ([`tail::slim`]), on every fixture,
/// opened as a file and as rows handed over whole.
#[test]
fn kept_heads_are_the_lines_heads_on_every_fixture() {
    let mut kept = 0;
    for p in fixture_transcripts() {
        let bytes = std::fs::read(&p).unwrap();
        let rows: Vec<Vec<u8>> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .map(<[u8]>::to_vec)
            .collect();
        let opened = [
            Transcript::open(&p).unwrap(),
            Transcript::from_bytes_for_history("h.jsonl", bytes),
        ]
        .into_iter()
        .chain(Transcript::from_entry_bytes("rows", rows, true));
        for t in opened {
            for i in 0..t.len() as u32 {
                if !t.head_kept(i) {
                    continue;
                }
                kept += 1;
                let want = t.raw_line(i).ok().and_then(|raw| tail::slim(&raw));
                assert!(want.is_some(), "{} entry {i}", p.display());
                // Compared as text: the keys' order counts too.
                assert_eq!(
                    t.slim(i).map(|v| v.to_string()),
                    want.map(|v| v.to_string()),
                    "{} entry {i}",
                    p.display()
                );
            }
        }
    }
    assert!(kept > 20, "only {kept} heads kept");
}

/// Lines built to tell the scan's parse and `slim` apart, each with whether the scan keeps
/// its head.
fn odd_head_cases() -> Vec<(String, bool)> {
    let env =
        r#""type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-20T00:00:00.000Z""#;
    let usage = r#""usage":{"input":900,"output":20,"cacheRead":10,"cacheWrite":0,"totalTokens":930,"cost":{"total":0.01}}"#;
    let content = r#""content":[{"type":"text","text":"done \"quoted\" and\nmore"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"/a"}}]"#;
    let msg = |fields: &str| format!(r#"{{{env},"message":{{"role":"assistant",{fields}}}}}"#);
    let user = |fields: &str| {
        let sep = if fields.is_empty() { "" } else { "," };
        format!(r#"{{{env},"message":{{"role":"user"{sep}{fields}}}}}"#)
    };
    // (line, kept by the scan)
    vec![
        (
            msg(&format!(
                r#"{content},{usage},"stopReason":"toolUse","provider":"p","model":"m","timestamp":1795000000000"#
            )),
            true,
        ),
        (
            msg(&format!(r#"{usage},"timestamp":"2026-11-20T00:00:00Z""#)),
            true,
        ),
        (
            msg(&format!(r#"{usage},"timestamp":null,"stopReason":null"#)),
            true,
        ),
        // A time that is no number or short string is not kept (its size is not known).
        (
            msg(&format!(r#"{usage},"timestamp":{{"at":[1,2.5,-3e2]}}"#)),
            false,
        ),
        (msg(&format!(r#"{usage},"timestamp":-3e2"#)), true),
        (
            msg(&format!(
                r#"{usage},"model":"{}""#,
                "m".repeat(turn_heads::FIELDS_MAX)
            )),
            false,
        ),
        (
            msg(&format!(
                r#"{usage},"timestamp":1.5e3,"model":"line\nbreak \\ slash \/""#
            )),
            true,
        ),
        (msg(r#""usage":null,"provider":null"#), true),
        (msg(r#""stopReason":"stop""#), true),
        (
            format!(
                r#"  {{"message":{{"role":"assistant",{usage}}},"type":"message","extra":[{{}}]}}  "#
            ),
            true,
        ),
        (
            format!(
                r#"{{"type":"message","timestamp":null,"message":{{"model":"m","role":"assistant",{usage}}}}}"#
            ),
            true,
        ),
        // Refused by `slim`: a repeated field, one of another type.
        (
            msg(&format!(r#"{usage},"timestamp":1,"timestamp":2"#)),
            false,
        ),
        (msg(&format!("{usage},{usage}")), false),
        (msg(&format!("{content},{content},{usage}")), false),
        (msg(&format!(r#"{usage},"stopReason":3"#)), false),
        (msg(&format!(r#"{usage},"model":["m"]"#)), false),
        (
            msg(&format!(r#"{usage},"provider":"a","provider":"b""#)),
            false,
        ),
        (
            format!(r#"{{"type":"message","id":7,"message":{{"role":"assistant",{usage}}}}}"#),
            false,
        ),
        (
            format!(
                r#"{{"type":"message","timestamp":7,"message":{{"role":"assistant",{usage}}}}}"#
            ),
            false,
        ),
        (
            format!(
                r#"{{"type":"message","parentId":{{}},"message":{{"role":"assistant",{usage}}}}}"#
            ),
            false,
        ),
        // `tokensAfter`, which the scan does not read: kept once, repeated, spelt with escapes.
        (
            format!(r#"{{{env},"tokensAfter":5,"message":{{"role":"assistant",{usage}}}}}"#),
            false,
        ),
        (
            format!(
                r#"{{{env},"tokensAfter":5,"tokensAfter":6,"message":{{"role":"assistant",{usage}}}}}"#
            ),
            false,
        ),
        (
            format!(r#"{{{env},"tokens\u0041fter":[1],"message":{{"role":"assistant",{usage}}}}}"#),
            false,
        ),
        (
            msg(&format!(
                r#"{usage},"stopReason":"\u0073top","m\u006fdel":"\u00e9""#
            )),
            true,
        ),
        // A usage nested past what `slim` reads alone.
        (
            msg(&format!(r#""usage":{}{}"#, "[".repeat(70), "]".repeat(70))),
            false,
        ),
        (
            msg(&format!(r#""usage":{}{}"#, "[".repeat(60), "]".repeat(60))),
            true,
        ),
        // User messages: the content kept as written, decoded alone as `slim` decodes it.
        (user(r#""content":"plain \"text\"\n""#), true),
        (
            user(
                r#""content":[{"type":"text","text":"a"},{"type":"image","data":"QUJD"}],"timestamp":5"#,
            ),
            true,
        ),
        (user(r#""content":"cut \ud800 here""#), true),
        (user(r#""content":[1e400]"#), true),
        (user(r#""content":null,"model":"m""#), true),
        (user(&format!(r#""content":"x",{usage}"#)), true),
        (user(""), true),
        (user(r#""content":"a","content":"b""#), false),
        (user(r#""content":"a","timestamp":1,"timestamp":2"#), false),
        (
            user(&format!(
                r#""content":"{}""#,
                "y".repeat(turn_heads::CONTENT_MAX)
            )),
            false,
        ),
    ]
}

/// On lines built to tell the scan's parse and `slim` apart, a message's head is the line's
/// head whether the scan kept it or not; the messages it must keep it keeps, and none that
/// `slim` refuses or reads otherwise.
#[test]
fn kept_heads_are_the_lines_heads_on_odd_lines() {
    let header =
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00Z","cwd":"/w"}"#;
    let cases = odd_head_cases();
    let mut kept = 0;
    for (n, (line, must_keep)) in cases.iter().enumerate() {
        for lines in [vec![header, line.as_str()], vec![line.as_str()]] {
            let t = Transcript::from_bytes("odd.jsonl", (lines.join("\n") + "\n").into_bytes());
            let i = t.len() as u32 - 1;
            assert_eq!(t.head_kept(i), *must_keep, "case {n}: {line}");
            kept += usize::from(t.head_kept(i));
            let want = t.raw_line(i).ok().and_then(|raw| tail::slim(&raw));
            if *must_keep {
                assert!(want.is_some(), "case {n}: {line}");
            }
            assert_eq!(
                t.slim(i).map(|v| v.to_string()),
                want.map(|v| v.to_string()),
                "case {n}: {line}"
            );
        }
    }
    assert!(kept >= 20);
    // A byte that is not UTF-8, a byte order mark: left to the line's own parse.
    let mut bad = cases[0].0.clone().into_bytes();
    bad.splice(bad.len() - 2..bad.len() - 2, *b",\"x\":\"\xFF\"");
    let bom = [b"\xEF\xBB\xBF".as_slice(), cases[0].0.as_bytes()].concat();
    for bytes in [bad, bom] {
        let t = Transcript::from_bytes("odd.jsonl", bytes);
        assert_eq!(t.len(), 1);
        assert!(!t.head_kept(0));
    }
}

/// The heads kept are those of the messages since the first user message of the last
/// [`turn_heads::TURNS`] turns, at most [`turn_heads::KEPT_MAX`]; a head made from a slot
/// whose buffers held another message is that message's.
#[test]
fn the_last_turns_are_kept() {
    let mut text = String::from(r#"{"type":"session","version":3,"id":"s"}"#);
    let push = |text: &mut String, line: String| {
        text.push('\n');
        text.push_str(&line);
    };
    let reply = |i: usize| {
        format!(
            r#"{{"type":"message","id":"a{i}","message":{{"role":"assistant","model":"m{i}","usage":{{"input":{i}}}}}}}"#
        )
    };
    let user = |i: usize, text: &str| {
        format!(
            r#"{{"type":"message","id":"u{i}","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    let tool = r#"{"type":"message","message":{"role":"toolResult","content":"x"}}"#;
    // 40 turns of a question, a call, a tool result and an answer: entries 4t..4t+3.
    for t in 0..40 {
        push(&mut text, user(t, &"q".repeat(t)));
        push(&mut text, reply(2 * t));
        push(&mut text, tool.to_string());
        push(&mut text, reply(2 * t + 1));
    }
    let t = Transcript::from_bytes("turns.jsonl", text.clone().into_bytes());
    let kept: Vec<u32> = (0..t.len() as u32).filter(|&i| t.head_kept(i)).collect();
    let first = 4 * (40 - turn_heads::TURNS as u32);
    let want: Vec<u32> = (first..160).filter(|i| i % 4 != 2).collect();
    assert_eq!(kept, want);
    for i in 0..t.len() as u32 {
        let line = t.raw_line(i).unwrap();
        assert_eq!(
            t.slim(i).map(|v| v.to_string()),
            tail::slim(&line).map(|v| v.to_string()),
            "entry {i}"
        );
    }
    // One turn of many calls keeps its newest replies only.
    for i in 0..300 {
        push(&mut text, reply(1000 + i));
    }
    let t = Transcript::from_bytes("calls.jsonl", text.into_bytes());
    let kept: Vec<u32> = (0..t.len() as u32).filter(|&i| t.head_kept(i)).collect();
    assert_eq!(kept.len(), turn_heads::KEPT_MAX);
    assert_eq!(kept[0] as usize, t.len() - turn_heads::KEPT_MAX);
    assert_eq!(
        t.slim(t.len() as u32 - 1).unwrap()["message"]["model"],
        "m1299"
    );
}

/// [`LineHead`] as `#[derive(Deserialize)]` read it before it was written by hand (the same
/// fields and attributes), to hold the hand-written parse to it.
#[derive(serde::Deserialize)]
struct DerivedHead<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: parse::AnyStr<'a>,
    #[serde(borrow, default)]
    id: parse::AnyStr<'a>,
    #[serde(rename = "parentId", borrow, default)]
    parent_id: parse::AnyStr<'a>,
    #[serde(borrow, default)]
    message: parse::MessageHead<'a>,
    #[serde(default)]
    version: Option<parse::IgnoredOrNumber>,
    #[serde(borrow, default)]
    timestamp: parse::AnyStr<'a>,
    #[serde(borrow, default)]
    cwd: parse::AnyStr<'a>,
}

/// The hand-written [`LineHead`] parse takes and refuses the lines the derived one did, with
/// the same error, and reads the same fields, on objects and arrays built from repeated,
/// escaped, mistyped and unknown keys (`tokensAfter` among them), cut short or not.
#[test]
fn the_line_head_reads_as_the_derived_decode_did() {
    // The fields read, and keys that are not (or are only once unescaped).
    let keys: Vec<&str> = parse::LINE_HEAD_FIELDS
        .iter()
        .copied()
        .chain(["tokensAfter", "t\\u0079pe", "x", "Type"])
        .collect();
    let values = [
        r#""message""#,
        r#""a\"b""#,
        "null",
        "3",
        "-1.5e2",
        "true",
        "[1,[2]]",
        r#"{"k":[]}"#,
        r#"{"role":"assistant","usage":{"input":1},"timestamp":5}"#,
        r#"{"role":"user","role":"user"}"#,
        r#""\ud800""#,
        "1e400",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let show = |r: Result<LineHead, serde_json::Error>| match r {
        Ok(h) => format!(
            "ok {:?} {:?} {:?} {} {:?} {} {:?} {:?} {:?} {:?}",
            (h.ty.0, h.ty.1),
            (h.id.0, h.id.1),
            (h.parent_id.0, h.parent_id.1),
            h.message.present,
            (h.message.role, h.message.odd, h.message.timestamp),
            h.version
                .map_or("none".to_string(), |v| format!("{:?}", v.0)),
            (h.timestamp.0, h.timestamp.1),
            (h.cwd.0, h.cwd.1),
            h.message.usage.map(|u| u.get()),
            h.message.provider,
        ),
        Err(e) => format!("err {e}"),
    };
    let show_derived = |r: Result<DerivedHead, serde_json::Error>| {
        show(r.map(|d| LineHead {
            ty: d.ty,
            id: d.id,
            parent_id: d.parent_id,
            message: d.message,
            version: d.version,
            timestamp: d.timestamp,
            cwd: d.cwd,
            ..LineHead::default()
        }))
    };
    let mut counted = 0;
    for case in 0..4_000 {
        // Arrays past the seven fields too.
        let n = next(if case % 5 == 0 { 10 } else { 6 });
        let items: Vec<String> = (0..n)
            .map(|_| {
                let v = values[next(values.len())];
                if case % 5 == 0 {
                    v.to_string()
                } else {
                    format!(r#""{}":{v}"#, keys[next(keys.len())])
                }
            })
            .collect();
        let mut line = if case % 5 == 0 {
            format!("[{}]", items.join(","))
        } else {
            format!("{{{}}}", items.join(","))
        };
        if case % 7 == 0 {
            line.truncate(next(line.len() + 1));
        }
        let ours = serde_json::from_str::<LineHead>(&line);
        if let Ok(h) = &ours {
            let after = line.matches(r#""tokensAfter":"#).count();
            assert_eq!(usize::from(h.tokens_after), after.min(2), "{line}");
            assert_eq!(h.object, line.starts_with('{'), "{line}");
            counted += usize::from(after > 0);
        }
        assert_eq!(
            show(ours),
            show_derived(serde_json::from_str::<DerivedHead>(&line)),
            "{line}"
        );
        let bytes = line.as_bytes();
        assert_eq!(
            show(serde_json::from_slice::<LineHead>(bytes)),
            show_derived(serde_json::from_slice::<DerivedHead>(bytes)),
            "{line}"
        );
    }
    assert!(counted > 100, "{counted}");
}

/// A compaction's first kept entry read from its line alone is what its decoded line says:
/// every line the fixtures hold (files and 2026.9.6 rows) and lines built to tell them
/// apart (a repeated key, an escaped key, a value of another type, a line that needs repair,
/// a nesting past the limit, a number out of range, another top level, every cut).
#[test]
fn named_fields_are_the_decoded_lines() {
    // Read here only what decodes as it stands, to the same values, for each set of names a
    // reader asks for.
    fn same<const N: usize>(line: &[u8], names: [&str; N]) -> bool {
        let Some(fields) = parse::named_fields(line, names) else {
            return false;
        };
        let v = parse::from_bytes::<Value>(line).expect("decodes without repair");
        for (n, f) in names.iter().zip(&fields) {
            assert_eq!(
                f.as_ref(),
                v.get(n),
                "{n}: {}",
                String::from_utf8_lossy(line)
            );
        }
        true
    }
    let agrees = |line: &[u8]| -> bool {
        let kept = same(line, ["firstKeptEntryId", "firstKeptEntryIndex"]);
        assert_eq!(same(line, ["thinkingLevel"]), kept);
        assert_eq!(same(line, ["provider", "modelId"]), kept);
        kept
    };
    let mut read = 0;
    let mut compactions = 0;
    for (_, line) in fixture_lines() {
        read += usize::from(agrees(line.as_bytes()));
        if line.contains("\"type\":\"compaction\"") {
            compactions += 1;
            assert!(agrees(line.as_bytes()), "{line}");
            for end in 0..line.len() {
                agrees(&line.as_bytes()[..end]);
            }
        }
    }
    assert!(
        compactions >= 5 && read > 100,
        "{compactions} compactions, {read} lines read"
    );
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let built = [
        r#"{"type":"compaction","firstKeptEntryId":"a","firstKeptEntryId":"b"}"#.to_string(),
        r#"{"type":"compaction","firstKept\u0045ntryId":"e","summary":"x"}"#.to_string(),
        r#"{"firstKeptEntryId":7,"firstKeptEntryIndex":"3"}"#.to_string(),
        r#"{"firstKeptEntryIndex":4.5,"summary":"\ud83d cut"}"#.to_string(),
        r#"{"firstKeptEntryId":"a","summary":"\ud83d\ude00"}"#.to_string(),
        format!(r#"{{"firstKeptEntryId":"a","details":{deep}}}"#),
        r#"{"firstKeptEntryId":"a","tokensBefore":1e400}"#.to_string(),
        r#"["firstKeptEntryId","a"]"#.to_string(),
        r#"{"firstKeptEntryId":"a"} "#.to_string(),
        r#"{"firstKeptEntryId":"a"} x"#.to_string(),
        r#"{"type":"model_change","provider":"p","modelId":"m","provider":"q"}"#.to_string(),
        r#"{"type":"thinking_level_change","thinkingLevel":{"a":[1,2]}}"#.to_string(),
        "{\"firstKeptEntryId\":\"a\",\"summary\":\"\u{7f}\"}".to_string(),
    ];
    let mut built_read = 0;
    for line in &built {
        built_read += usize::from(agrees(line.as_bytes()));
        for end in 0..line.len() {
            agrees(&line.as_bytes()[..end]);
        }
    }
    // Invalid UTF-8 is repaired by the decode: not read here.
    assert!(
        parse::named_fields(
            b"{\"firstKeptEntryId\":\"a\",\"s\":\"\xff\"}",
            ["firstKeptEntryId"]
        )
        .is_none()
    );
    assert!(built_read >= 5, "{built_read}");
}
