//! The fast figures against the decoded path ([`crate::tokens::figures_of_entry`] on
//! `Transcript::entry_json`) on generated entries of every message shape: escapes,
//! surrogates, images, numbers and odd whitespace in tool-call arguments, repeated keys,
//! missing or mistyped fields, deep nesting, lines `entry_json` repairs or refuses.

use super::{decoded_len, figures, head_and_figures, stringify_len_raw};
use crate::jsjson::{stringify_len, utf16_len};
use crate::tokens::{MessageView, entry_figures, figures_of_entry, kind_yields_message};
use crate::transcript::{MessageClass, Transcript};
use serde_json::Value;

/// A small deterministic generator (xorshift64*): the same cases every run.
pub(crate) struct Gen(pub u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// Pieces of a JSON string body, as written in the file.
const STR_PIECES: &[&str] = &[
    "abc",
    "hello world ",
    "é",
    "😀",
    "\u{2028}",
    "\\n",
    "\\t",
    "\\b\\f\\r",
    "\\\"",
    "\\\\",
    "\\/",
    "\\u0001",
    "\\u001f",
    "\\u00e9",
    "\\u0041",
    "\\u2028",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\\ude00x",
    "",
];

fn string(g: &mut Gen) -> String {
    pieces(g, STR_PIECES)
}

/// A string without surrogate escapes (which the fast path leaves to the decoded one).
fn tame_string(g: &mut Gen) -> String {
    pieces(g, &STR_PIECES[..16])
}

fn pieces(g: &mut Gen, from: &[&str]) -> String {
    let mut s = String::from("\"");
    for _ in 0..g.below(5) {
        s.push_str(g.pick(from));
    }
    s.push('"');
    s
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "7",
    "-12",
    "10",
    "1.5",
    "1.0",
    "2.50",
    "1e21",
    "1E-7",
    "-2.5e-8",
    "0.000001",
    "123456789012345678",
    "1234567890123456789",
    "123456789012345678901",
    "-9223372036854775808",
    "18446744073709551615",
    "1e400",
];

/// Any JSON value, nested up to `depth`, with random whitespace.
fn value(g: &mut Gen, depth: usize) -> String {
    let ws = |g: &mut Gen| [" ", "", "", "\n ", "\t"][g.below(5)].to_string();
    match g.below(if depth == 0 { 4 } else { 6 }) {
        0 => string(g),
        1 => g.pick(NUMBERS).to_string(),
        2 => g.pick(&["true", "false", "null"]).to_string(),
        3 => g.pick(&["\"\"", "[]", "{}"]).to_string(),
        4 => {
            let items: Vec<String> = (0..g.below(4)).map(|_| value(g, depth - 1)).collect();
            let sep = format!(",{}", ws(g));
            format!("[{}{}]", ws(g), items.join(&sep))
        }
        _ => {
            let keys = [
                "\"path\"",
                "\"a\"",
                "\"b\"",
                "\"p\\u0061th\"",
                "\"é\"",
                "\"\"",
            ];
            let members: Vec<String> = (0..g.below(4))
                .map(|_| {
                    let k = keys[g.below(keys.len())];
                    format!("{k}{}:{}{}", ws(g), ws(g), value(g, depth - 1))
                })
                .collect();
            format!("{{{}{}}}", ws(g), members.join(","))
        }
    }
}

fn block(g: &mut Gen) -> String {
    let ty = g.pick(&[
        "\"text\"",
        "\"thinking\"",
        "\"toolCall\"",
        "\"toolCall\"",
        "\"image\"",
        "\"redacted\"",
        "7",
        "\"t\\u0065xt\"",
    ]);
    let mut fields = vec![format!("\"type\":{ty}")];
    if ty == "\"toolCall\"" && g.below(3) > 0 {
        fields.push(format!(
            "\"id\":\"c\",\"name\":\"read\",\"arguments\":{{\"path\":{},\"n\":{},\"more\":{}}}",
            tame_string(g),
            g.pick(&NUMBERS[..17]),
            tame_string(g)
        ));
    }
    for _ in 0..g.below(4) {
        let f = match g.below(7) {
            0 => format!("\"text\":{}", string(g)),
            1 => format!("\"thinking\":{}", string(g)),
            2 => format!(
                "\"name\":{}",
                g.pick(&["\"read\"", "\"bash\"", "3", "\"ré\""])
            ),
            3 => format!("\"arguments\":{}", value(g, 3)),
            4 => format!(
                "\"arguments\":{{\"path\":{}, \"n\":{}}}",
                tame_string(g),
                g.pick(&NUMBERS[..17])
            ),
            5 => format!("\"text\":{}", value(g, 1)),
            _ => format!("\"data\":{},\"mimeType\":\"image/png\"", string(g)),
        };
        fields.push(f);
    }
    if g.below(3) == 0 {
        fields.reverse();
    }
    match g.below(12) {
        0 => value(g, 1),
        _ => format!("{{{}}}", fields.join(",")),
    }
}

fn content(g: &mut Gen) -> String {
    match g.below(8) {
        0 => string(g),
        1 => value(g, 1),
        _ => {
            let blocks: Vec<String> = (0..g.below(5)).map(|_| block(g)).collect();
            format!("[{}]", blocks.join(","))
        }
    }
}

fn message(g: &mut Gen) -> String {
    let role = g.pick(&[
        "\"user\"",
        "\"assistant\"",
        "\"assistant\"",
        "\"assistant\"",
        "\"toolResult\"",
        "\"custom\"",
        "\"hookMessage\"",
        "\"bashExecution\"",
        "\"branchSummary\"",
        "\"compactionSummary\"",
        "\"system\"",
        "null",
    ]);
    let mut fields = vec![format!("\"role\":{role}")];
    for _ in 0..1 + g.below(4) {
        let f = match g.below(8) {
            0..=2 => format!("\"content\":{}", content(g)),
            3 => format!("\"command\":{}", string(g)),
            4 => format!("\"output\":{}", string(g)),
            5 => format!("\"summary\":{}", string(g)),
            6 => format!(
                "\"usage\":{{\"input\":{},\"totalTokens\":12}}",
                g.pick(NUMBERS)
            ),
            _ => "\"stopReason\":\"stop\",\"provider\":\"p\",\"model\":\"m\"".to_string(),
        };
        fields.push(f);
    }
    if g.below(3) == 0 {
        fields.reverse();
    }
    match g.below(20) {
        0 => value(g, 1),
        _ => format!("{{{}}}", fields.join(",")),
    }
}

/// One entry line (without the newline); `n` keeps ids distinct.
fn entry(g: &mut Gen, n: usize) -> String {
    let ty = g.pick(&[
        "message",
        "message",
        "message",
        "custom_message",
        "branch_summary",
        "compaction",
        "model_change",
        "label",
    ]);
    let mut fields = vec![
        format!("\"type\":\"{ty}\""),
        format!("\"id\":\"e{n}\""),
        "\"timestamp\":\"2026-01-01T00:00:00.000Z\"".to_string(),
    ];
    match ty {
        "message" => fields.push(format!("\"message\":{}", message(g))),
        "custom_message" => fields.push(format!("\"customType\":\"x\",\"content\":{}", content(g))),
        _ => fields.push(format!("\"summary\":{}", string(g))),
    }
    match g.below(16) {
        0 => fields.push(format!(
            "\"details\":{}{}",
            "[".repeat(130),
            "]".repeat(130)
        )),
        1 => fields.push(format!("\"details\":{}{}", "[".repeat(20), "]".repeat(20))),
        2 => fields.push(format!("\"message\":{}", message(g))),
        3 => fields.push(format!("\"summary\":{}", value(g, 1))),
        4 => fields.push("\"x\":1e400".to_string()),
        5 => fields.push("\"x\":\"\\ud800\"".to_string()),
        6 => fields.push(envelope_field(g, n)),
        _ => {}
    }
    if g.below(4) == 0 {
        fields.swap(0, 2);
    }
    format!("{{{}}}", fields.join(","))
}

/// An odd envelope field: repeated (the scan refuses a repeated `type`, `id`, `parentId`,
/// `message`, `timestamp`, `version` or `cwd`), of another type, escaped, or holding what
/// only the lenient envelope parse lets through.
fn envelope_field(g: &mut Gen, n: usize) -> String {
    match g.below(12) {
        0 => format!("\"id\":\"again{n}\""),
        1 => "\"type\":\"message\"".to_string(),
        2 => "\"parentId\":null".to_string(),
        3 => format!("\"parentId\":{}", value(g, 2)),
        4 => format!("\"timestamp\":{}", value(g, 2)),
        5 => format!("\"cwd\":{}", string(g)),
        6 => format!("\"version\":{}", g.pick(NUMBERS)),
        7 => "\"content\":\"top-level content\"".to_string(),
        8 => format!("\"summary\":{}", string(g)),
        9 => "\"p\\u0061rentId\":\"e0\"".to_string(),
        10 => "\"role\":\"user\"".to_string(),
        _ => format!("\"message\":{}", message(g)),
    }
}

/// A transcript of generated entries plus lines `entry_json` repairs or refuses.
pub(crate) fn generated_bytes(g: &mut Gen, version: u32) -> Vec<u8> {
    let mut bytes = format!(
        "{{\"type\":\"session\",\"version\":{version},\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"w\"}}\n"
    )
    .into_bytes();
    for n in 0..4000 {
        bytes.extend_from_slice(entry(g, n).as_bytes());
        bytes.push(b'\n');
    }
    let odd: [&[u8]; 3] = [
        b"{\"type\":\"message\",\"id\":\"bad1\",\"message\":{\"role\":\"user\",\"content\":\"a\xffb\"}}\n",
        b"{\"type\":\"message\",\"id\":\"bad2\",\"message\":{\"role\":\"user\",\"content\":\"x\\ud83dy\"}}\n",
        b"{\"type\":\"message\",\"id\":\"bad3\",\"message\":{\"role\":\"user\",\"content\":\"ok\"}} trailing\n",
    ];
    for line in odd {
        bytes.extend_from_slice(line);
    }
    // Lines the fused parse of the scan leaves to the scan's own parse.
    let envelope: [&[u8]; 9] = [
        b"[\"message\",\"arr1\"]\n",
        b"{\"type\":\"message\",\"id\":\"dup1\",\"id\":\"dup2\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
        b"{\"type\":\"message\",\"id\":\"utf1\",\"x\":\"\xc3\x28\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
        b"{\"type\":\"message\",\"id\":\"\\ud800\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
        b"{\"type\":\"message\",\"id\":\"big1\",\"version\":1e400,\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
        b"{\"type\":\"message\",\"id\":\"role2\",\"message\":{\"role\":\"user\",\"content\":\"abcdefgh\",\"role\":\"assistant\"}}\n",
        b"{\"type\":\"compaction\",\"id\":\"c1\",\"summary\":\"s\",\"summary\":\"longer summary\"}\n",
        b"\"just a string\"\n",
        b"{\"type\":\"message\",\"id\":\"cut1\",\"message\":{\"role\":\"user\",\"content\":\"a\"}",
    ];
    for line in envelope {
        bytes.extend_from_slice(line);
    }
    bytes
}

fn generated(g: &mut Gen, version: u32) -> Transcript {
    let bytes = generated_bytes(g, version);
    Transcript::from_bytes(format!("gen-v{version}.jsonl"), bytes)
}

/// The index a transcript was read into, in full (entries with their ids, links and rare
/// fields; header, warnings), compared part by part so a failure names the first difference.
fn assert_same_index(a: &Transcript, b: &Transcript) {
    assert_eq!(format!("{:?}", a.header), format!("{:?}", b.header));
    assert_eq!(a.all_warnings(), b.all_warnings());
    assert_eq!(a.entries.len(), b.entries.len());
    for (i, (x, y)) in a.entries.iter().zip(&b.entries).enumerate() {
        assert_eq!(format!("{x:?}"), format!("{y:?}"), "entry {i}");
        assert_eq!(
            a.written_id(i as u32).as_deref(),
            b.written_id(i as u32).as_deref(),
            "entry {i}"
        );
    }
}

/// The scan's fused parse ([`head_and_figures`]) on generated entries: the same index as the
/// scan's own parse, and for each entry whose figures it computed, the decoded path's figures.
/// Most message entries must be computed there, so the comparison is not vacuous.
#[test]
fn fused_figures_equal_decoded_figures() {
    let mut g = Gen(0x5851_F42D_4C95_7F2D);
    let mut fused = 0;
    let mut messages = 0;
    for version in [3, 2, 1] {
        let bytes = generated_bytes(&mut g, version);
        let plain = Transcript::from_bytes("gen.jsonl", bytes.clone());
        let t = Transcript::from_bytes_with_figures("gen.jsonl", bytes, head_and_figures);
        assert_same_index(&t, &plain);
        assert!(t.warnings.len() > 100, "{}", t.warnings.len());
        for i in 0..t.entries.len() as u32 {
            let yields = kind_yields_message(t.entries[i as usize].kind, MessageView::Compaction);
            messages += usize::from(yields);
            if !t.has_figures(i) {
                continue;
            }
            assert!(
                yields,
                "figures kept for entry {i}, which yields no message"
            );
            fused += 1;
            let raw = plain.raw_line(i).unwrap();
            let expected = plain
                .entry_json(i)
                .map(|v| figures_of_entry(&v))
                .unwrap_or_default();
            let got = entry_figures(&t, i);
            assert_eq!(got, expected, "line {i}: {}", String::from_utf8_lossy(&raw));
            assert_eq!(
                Some(got),
                figures(&raw, t.version < 3),
                "line {i}: fast path"
            );
        }
    }
    assert!(messages > 7000, "{messages} entries yield a message");
    assert!(fused * 2 > messages, "fused on {fused} of {messages}");
    // The lines left to the scan's own parse were indexed by it, figures not computed.
    let bytes = generated_bytes(&mut g, 3);
    let t = Transcript::from_bytes_with_figures("gen.jsonl", bytes, head_and_figures);
    for id in ["dup1", "utf1", "cut1"] {
        if let Some(i) = t.index_of_id(id) {
            assert!(!t.has_figures(i), "{id}");
        }
    }
    // A repeated role keeps its last value in both readings.
    let r = t.index_of_id("role2").unwrap();
    assert!(t.has_figures(r));
    assert_eq!(entry_figures(&t, r).class, MessageClass::Assistant);
    let c1 = t.index_of_id("c1").unwrap();
    assert!(t.has_figures(c1));
    assert_eq!(entry_figures(&t, c1).tokens, 4, "the last summary counts");
}

/// Every generated entry gives the decoded path's figures, through the fast path where it
/// applies (asserted to be most of them, so the comparison is not vacuous).
#[test]
fn fast_figures_equal_decoded_figures() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let mut fast_hits = 0;
    let mut total = 0;
    for version in [3, 2] {
        let t = generated(&mut g, version);
        for i in 0..t.entries.len() as u32 {
            let expected = t
                .entry_json(i)
                .map(|v| figures_of_entry(&v))
                .unwrap_or_default();
            let raw = t.raw_line(i).unwrap();
            if let Some(f) = figures(&raw, t.version < 3) {
                fast_hits += 1;
                assert_eq!(f, expected, "line {i}: {}", String::from_utf8_lossy(&raw));
            }
            assert_eq!(entry_figures(&t, i), expected, "line {i} through the memo");
            total += 1;
        }
    }
    assert!(total > 7000, "{total} entries");
    // The generator is mostly odd shapes; still, most entries must take the fast path.
    assert!(fast_hits * 2 > total, "fast path on {fast_hits} of {total}");
}

/// The raw measure of generated argument values against `stringify_len` of the decoded value.
#[test]
fn raw_stringify_len_equals_decoded() {
    let mut g = Gen(0xD1B5_4A32_D192_ED03);
    let mut exact = 0;
    for _ in 0..20_000 {
        let text = value(&mut g, 4);
        let Ok(raw) = serde_json::from_str::<&serde_json::value::RawValue>(&text) else {
            continue;
        };
        if let Some(n) = stringify_len_raw(raw.get()) {
            exact += 1;
            let v = serde_json::from_str::<Value>(&text)
                .unwrap_or_else(|e| panic!("{text}: measured but not decodable: {e}"));
            assert_eq!(n, stringify_len(&v), "{text}");
        }
    }
    assert!(exact > 10_000, "{exact} measured from the raw text");
}

/// Text measured on the raw literal against the decoded string's length; a lone surrogate
/// (which the decoded path repairs) is left to it.
#[test]
fn raw_text_length_equals_decoded() {
    let mut g = Gen(0x2545_F491_4F6C_DD1D);
    let mut measured = 0;
    for _ in 0..20_000 {
        let text = string(&mut g);
        let decoded = serde_json::from_str::<String>(&text);
        match decoded_len(&text) {
            Some(n) => {
                measured += 1;
                let s = decoded.unwrap_or_else(|e| panic!("{text}: measured, not decodable: {e}"));
                assert_eq!(n, utf16_len(&s), "{text}");
            }
            None => assert!(text.contains("\\ud8") || text.contains("\\ude"), "{text}"),
        }
    }
    assert!(measured > 10_000, "{measured}");
    assert_eq!(decoded_len("7"), None);
    // A body that ends in a backslash is no string the decoded path reads.
    assert_eq!(decoded_len("\"\\\""), None);
    assert_eq!(decoded_len("\"ab\\\""), None);
}

/// The shapes pi's estimate names (docs/pi-compaction.md §9), through the fast path.
#[test]
fn known_shapes() {
    let f = |line: &str| figures(line.as_bytes(), false).expect(line);
    let user = f(
        r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"b"}]}}"#,
    );
    assert_eq!((user.tokens, user.class), (1, MessageClass::User));
    let asst = f(
        r#"{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"think1"},{"type":"text","text":"t1"},{"type":"toolCall","id":"1","name":"read","arguments":{"path":"foo.ts","offset":10}},{"type":"thinking","thinking":"think2"},{"type":"text","text":"t2"},{"type":"toolCall","id":"2","name":"bash","arguments":{"command":"ls \"x\""}}]}}"#,
    );
    assert_eq!(asst.tokens, 19);
    assert_eq!((asst.text, asst.thinking), (4, 12));
    let img = f(
        r#"{"type":"message","message":{"role":"toolResult","content":[{"type":"image","data":"x","mimeType":"image/png"}]}}"#,
    );
    assert_eq!((img.tokens, img.class), (1200, MessageClass::ToolResult));
    let c = f(r#"{"type":"compaction","summary":"12345","firstKeptEntryId":"a"}"#);
    assert!(c.compaction);
    assert_eq!(c.tokens, 2);
    // A repeated key in arguments: the decoded object keeps one, so the raw text cannot tell.
    assert!(
        figures(
            br#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"r","arguments":{"a":1,"a":2}}]}}"#,
            false
        )
        .is_none()
    );
}

/// Long strings (the counts run over blocks of 255 bytes, and a pair can straddle two), with
/// and without the escapes that need the walk: measured from the raw text as the decoded
/// string measures.
#[test]
fn long_text_lengths_equal_decoded() {
    let mut g = Gen(0x94D0_49BB_1331_11EB);
    for round in 0..600 {
        // Rounds alternate between plain single-character escapes only and every piece.
        let from = if round % 2 == 0 {
            &STR_PIECES[..11]
        } else {
            STR_PIECES
        };
        let mut text = String::from("\"");
        for _ in 0..g.below(400) {
            text.push_str(g.pick(from));
        }
        text.push('"');
        let Ok(s) = serde_json::from_str::<String>(&text) else {
            continue;
        };
        if !text.contains("\\ud8") && !text.contains("\\ude") {
            assert_eq!(decoded_len(&text), Some(utf16_len(&s)), "{text}");
            let v = Value::String(s);
            assert_eq!(stringify_len_raw(&text), Some(stringify_len(&v)), "{text}");
        }
    }
}
