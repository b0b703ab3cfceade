//! The text an entry gives the summarizer, read from its line without making a tree of it.
//!
//! A list row's audit ([`super::Scope::LatestLoss`]) scans the text of every message its
//! latest compaction summarized; a reply of many kilobytes decoded into a `Value` only to
//! have its text blocks joined costs more than the scan of that text. This reads the few
//! fields the text comes from (`message.content` and, for some roles, `command`, `output`,
//! `summary`; an entry's own `content` or `summary`) and skips the rest. It gives what
//! [`super::texts`] gives of the decoded entry, or None where it cannot be sure it would
//! (the line does not parse here: malformed, not an object, or holding anywhere what the
//! decode must repair first, a lone surrogate or bad UTF-8), and the caller decodes the entry
//! as before. A repeated key keeps its last value, as the decode does. What it skips it still
//! parses as the decode does (the token estimate's `Skip`: numbers, strings and nesting
//! checked alike), so it takes only lines the decode takes unrepaired: an entry it reads is
//! never one the decode would call unreadable.

use crate::tokens::fast::{Key, Skip, SkipVisitor, StrictStr};
use crate::transcript::{EntryKind, Role};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// What [`super::texts`] gives as the summarizer's text of an entry of `kind` written as
/// `line`; None when this read cannot tell.
pub(super) fn seen_text(kind: EntryKind, line: &[u8]) -> Option<String> {
    let top: Top = crate::transcript::parse::from_bytes(line).ok()?;
    let text = match kind {
        EntryKind::Message(role) => {
            let m = top.message.unwrap_or_default();
            match role {
                Role::BashExecution => format!(
                    "{}\n{}",
                    m.command.as_deref().unwrap_or(""),
                    m.output.as_deref().unwrap_or("")
                ),
                Role::BranchSummary | Role::CompactionSummary => {
                    m.summary.map(Cow::into_owned).unwrap_or_default()
                }
                _ => m.content.unwrap_or_default(),
            }
        }
        EntryKind::CustomMessage => top.content.unwrap_or_default(),
        EntryKind::BranchSummary | EntryKind::Compaction => {
            top.summary.map(Cow::into_owned).unwrap_or_default()
        }
        _ => String::new(),
    };
    Some(text)
}

/// The entry: `message` (None: absent, or not an object), its own `content` and `summary`.
#[derive(Default)]
struct Top<'a> {
    message: Option<Message<'a>>,
    content: Option<String>,
    summary: Option<Cow<'a, str>>,
}

/// A message's text fields (a string field that is not a string reads as absent).
#[derive(Default)]
struct Message<'a> {
    content: Option<String>,
    command: Option<Cow<'a, str>>,
    output: Option<Cow<'a, str>>,
    summary: Option<Cow<'a, str>>,
}

impl<'de> serde::Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an entry object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Top<'de>, A::Error> {
                let mut top = Top::default();
                while let Some(k) = a.next_key::<Key>()? {
                    match k {
                        Key::Message => top.message = a.next_value::<Lenient<Message<'de>>>()?.0,
                        Key::Content => top.content = a.next_value::<Content>()?.0,
                        Key::Summary => top.summary = a.next_value::<StrictStr<'de>>()?.0,
                        _ => {
                            a.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(top)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> serde::Deserialize<'de> for Message<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Message<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a message object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Message<'de>, A::Error> {
                let mut m = Message::default();
                while let Some(k) = a.next_key::<Key>()? {
                    match k {
                        Key::Content => m.content = a.next_value::<Content>()?.0,
                        Key::Command => m.command = a.next_value::<StrictStr<'de>>()?.0,
                        Key::Output => m.output = a.next_value::<StrictStr<'de>>()?.0,
                        Key::Summary => m.summary = a.next_value::<StrictStr<'de>>()?.0,
                        _ => {
                            a.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(V)
    }
}

/// An object read as `T`, anything else as None (the decode's `get` on a non-object).
struct Lenient<T>(Option<T>);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Lenient<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(a)).map(|t| Lenient(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Lenient<T>, A::Error> {
                SkipVisitor.visit_seq(a).map(|_| Lenient(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_unit<E>(self) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// `content` as the text it gives: a string as is, an array as the `text` strings of its
/// object blocks joined with newlines, anything else as None (empty).
struct Content(Option<String>);

impl<'de> serde::Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Content, E> {
                Ok(Content(Some(v.to_owned())))
            }
            fn visit_str<E>(self, v: &str) -> Result<Content, E> {
                Ok(Content(Some(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Content, E> {
                Ok(Content(Some(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Content, A::Error> {
                let mut out = String::new();
                let mut first = true;
                while let Some(Lenient(block)) = a.next_element::<Lenient<Block<'de>>>()? {
                    if let Some(text) = block.and_then(|b| b.text) {
                        if !first {
                            out.push('\n');
                        }
                        out.push_str(&text);
                        first = false;
                    }
                }
                Ok(Content(Some(out)))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Content, A::Error> {
                SkipVisitor.visit_map(a).map(|_| Content(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_unit<E>(self) -> Result<Content, E> {
                Ok(Content(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A content block's `text` (None when absent or not a string).
struct Block<'a> {
    text: Option<Cow<'a, str>>,
}

impl<'de> serde::Deserialize<'de> for Block<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Block<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Block<'de>, A::Error> {
                let mut text = None;
                while let Some(k) = a.next_key::<Key>()? {
                    if k == Key::Text {
                        text = a.next_value::<StrictStr<'de>>()?.0;
                    } else {
                        a.next_value::<Skip>()?;
                    }
                }
                Ok(Block { text })
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Transcript;

    /// The text [`super::super::texts`] gives of the line as an entry decoded (repaired as
    /// the decode repairs it): None when the decode refuses it, `Some(None)` when it is no
    /// entry at all (the scan does not take it, so nothing reads its text).
    fn decoded(kind: EntryKind, line: &str) -> Option<Option<String>> {
        // Behind a header, as the entries of a file are.
        let header = r#"{"type":"session","version":3,"id":"s"}"#;
        let t = Transcript::from_bytes("t.jsonl", format!("{header}\n{line}\n").into_bytes());
        if t.is_empty() {
            return Some(None);
        }
        let v = t.entry_json(0).ok()?;
        Some(Some(super::super::texts(kind, &v).0.to_string()))
    }

    #[test]
    fn every_fixture_entry_reads_as_its_decode_does() {
        let mut read = 0;
        for path in crate::transcript::fixture_transcripts() {
            let t = Transcript::open(&path).unwrap();
            for i in 0..t.len() as u32 {
                let kind = t.entries[i as usize].kind;
                let Ok(raw) = t.raw_line(i) else { continue };
                if let Some(text) = seen_text(kind, &raw) {
                    let v = t.entry_json(i).unwrap();
                    assert_eq!(
                        text,
                        *super::super::texts(kind, &v).0,
                        "{} entry {i}",
                        path.display()
                    );
                    read += 1;
                }
            }
        }
        assert!(read >= 500, "{read}");
    }

    #[test]
    fn odd_lines_read_as_their_decode_or_not_at_all() {
        use crate::transcript::{EntryKind as K, Role as R};
        let user = K::Message(R::User);
        let cases: &[(EntryKind, &str, Option<&str>)] = &[
            (user, r#"{"message":{"content":"plain"}}"#, Some("plain")),
            (
                user,
                r#"{"message":{"content":[{"type":"text","text":"a"},{"type":"image"},"s",3,{"text":7},{"text":"b"}]}}"#,
                Some("a\nb"),
            ),
            // A repeated key keeps its last value, as the decode does.
            (
                user,
                r#"{"message":{"content":"first","content":"second"}}"#,
                Some("second"),
            ),
            (
                user,
                r#"{"message":{"content":[{"text":"x","text":5}]}}"#,
                Some(""),
            ),
            (
                user,
                r#"{"message":{"content":"a"},"message":"not an object"}"#,
                Some(""),
            ),
            (user, r#"{"message":[1,2]}"#, Some("")),
            (
                user,
                r#"{"message":{"con\u0074ent":"escaped key"}}"#,
                Some("escaped key"),
            ),
            (
                user,
                r#"{"message":{"content":{"text":"an object"}}}"#,
                Some(""),
            ),
            (
                K::Message(R::BashExecution),
                r#"{"message":{"command":"ls","output":3}}"#,
                Some("ls\n"),
            ),
            (
                K::Message(R::CompactionSummary),
                r#"{"message":{"summary":"s","content":"c"}}"#,
                Some("s"),
            ),
            (
                K::CustomMessage,
                r#"{"content":[{"text":"t"}],"message":{"content":"no"}}"#,
                Some("t"),
            ),
            (
                K::Compaction,
                r#"{"summary":"the summary","message":{"content":"no"}}"#,
                Some("the summary"),
            ),
            (K::Label, r#"{"message":{"content":"no"}}"#, Some("")),
            // What the decode refuses or must repair is not read here: the caller decodes.
            (user, r#"{"message":{"content":"ok"},"x":1e400}"#, None),
            (user, r#"{"message":{"content":"ok"},"x":"\ud83d"}"#, None),
            (user, r#"{"message":{"content":"\ud83d lone"}}"#, None),
            (user, r#"[{"message":{"content":"not an object"}}]"#, None),
            (user, r#"{"message":{"content":"ok"}"#, None),
        ];
        for (kind, line, want) in cases {
            let got = seen_text(*kind, line.as_bytes());
            assert_eq!(got.as_deref(), *want, "{line}");
            if let Some(text) = &got {
                match decoded(*kind, line) {
                    Some(None) => {}
                    d => assert_eq!(d, Some(Some(text.clone())), "{line}"),
                }
            }
        }
        // Nested past the parser's limit: the decode refuses it, so this does not read it.
        let deep = format!(
            r#"{{"message":{{"content":"ok"}},"x":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(matches!(decoded(user, &deep), None | Some(None)));
        assert_eq!(seen_text(user, deep.as_bytes()), None);
        // Bytes that are not UTF-8 in a skipped string: repaired by the decode, not read here.
        let mut bad = br#"{"message":{"content":"ok"},"x":""#.to_vec();
        bad.extend_from_slice(b"\xff\"}");
        assert_eq!(seen_text(user, &bad), None);
    }
}
