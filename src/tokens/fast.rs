//! An entry's [`MessageFigures`] read straight from its JSON text, without building a
//! `serde_json::Value`: a typed, borrowing deserialisation that keeps only what pi's estimate
//! and the context breakdown count (string lengths, tool-call arguments as raw text) and
//! skips the rest.
//!
//! It must give exactly what the decoded path gives ([`super::figures_of_entry`] on
//! `Transcript::entry_json`), so it refuses (returns None, and the caller decodes) whenever it
//! cannot be sure:
//! - any parse error, including the ones `entry_json` repairs (lone surrogate escapes,
//!   invalid UTF-8): skipped values are parsed as values, not merely jumped over, so the
//!   nesting limit and number range `serde_json::Value` enforces apply here too;
//! - tool-call arguments whose `JSON.stringify` length cannot be read off the raw text:
//!   surrogate escapes, keys with escapes, a repeated key (the decoded object keeps one),
//!   deep nesting. Numbers other than short plain integers are measured by parsing them the
//!   way `Value` does and writing them as `jsjson` does.

use crate::jsjson::{ceil_div4, utf16_len, write_number};
use crate::transcript::{MessageClass, MessageFigures};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// pi counts an image as 4800 characters (1200 tokens).
const IMAGE_CHARS: usize = 4800;

/// The figures of one entry line, or None when only the decoded path can tell.
/// `hook_is_custom`: the file predates v3, where pi renames `hookMessage` to `custom`.
pub fn figures(raw: &[u8], hook_is_custom: bool) -> Option<MessageFigures> {
    let line: Line = serde_json::from_slice(raw).ok()?;
    Some(line.figures(hook_is_custom))
}

pub(crate) use crate::transcript::parse::{Skip, SkipVisitor};

/// The object keys any level reads; everything else is [`Key::Other`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Type,
    Message,
    Content,
    Summary,
    Role,
    Command,
    Output,
    Text,
    Thinking,
    Name,
    Arguments,
    /// Envelope keys, read only by the fused parse ([`fused`]).
    Id,
    ParentId,
    Version,
    Timestamp,
    Cwd,
    /// A message's call fields, read only by the fused parse for cost.
    Usage,
    Provider,
    Model,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "type" => Key::Type,
                    "message" => Key::Message,
                    "content" => Key::Content,
                    "summary" => Key::Summary,
                    "role" => Key::Role,
                    "command" => Key::Command,
                    "output" => Key::Output,
                    "text" => Key::Text,
                    "thinking" => Key::Thinking,
                    "name" => Key::Name,
                    "arguments" => Key::Arguments,
                    "id" => Key::Id,
                    "parentId" => Key::ParentId,
                    "version" => Key::Version,
                    "timestamp" => Key::Timestamp,
                    "cwd" => Key::Cwd,
                    "usage" => Key::Usage,
                    "provider" => Key::Provider,
                    "model" => Key::Model,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// A string value as what the figures need of it: its tag among the few that matter
/// (types and roles) and its length in UTF-16 units; any other value is [`Str::NotStr`].
#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Str {
    #[default]
    NotStr,
    Len(usize, Tag),
}

/// The `type` and `role` values the rules tell apart.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    Message,
    CustomMessage,
    BranchSummary,
    Compaction,
    User,
    Assistant,
    Custom,
    HookMessage,
    ToolResult,
    BashExecution,
    BranchSummaryRole,
    CompactionSummaryRole,
    Text,
    Thinking,
    ToolCall,
    Image,
    Other,
}

impl Str {
    /// A string value.
    fn of(v: &str) -> Str {
        // Only short strings can be a tag; long ones are text.
        let tag = if v.len() <= 20 { tag_of(v) } else { Tag::Other };
        Str::Len(utf16_len(v), tag)
    }
    fn len(self) -> usize {
        match self {
            Str::Len(n, _) => n,
            Str::NotStr => 0,
        }
    }
    fn tag(self) -> Option<Tag> {
        match self {
            Str::Len(_, t) => Some(t),
            Str::NotStr => None,
        }
    }
}

fn tag_of(s: &str) -> Tag {
    match s {
        "message" => Tag::Message,
        "custom_message" => Tag::CustomMessage,
        "branch_summary" => Tag::BranchSummary,
        "compaction" => Tag::Compaction,
        "user" => Tag::User,
        "assistant" => Tag::Assistant,
        "custom" => Tag::Custom,
        "hookMessage" => Tag::HookMessage,
        "toolResult" => Tag::ToolResult,
        "bashExecution" => Tag::BashExecution,
        "branchSummary" => Tag::BranchSummaryRole,
        "compactionSummary" => Tag::CompactionSummaryRole,
        "text" => Tag::Text,
        "thinking" => Tag::Thinking,
        "toolCall" => Tag::ToolCall,
        "image" => Tag::Image,
        _ => Tag::Other,
    }
}

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str, E> {
                Ok(Str::of(v))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Str, E> {
                Ok(Str::NotStr)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Str, E> {
                Ok(Str::NotStr)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Str, E> {
                Ok(Str::NotStr)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Str, E> {
                Ok(Str::NotStr)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Str, E> {
                Ok(Str::NotStr)
            }
            fn visit_none<E: de::Error>(self) -> Result<Str, E> {
                Ok(Str::NotStr)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Str, A::Error> {
                SkipVisitor.visit_seq(a).map(|_| Str::NotStr)
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Str, A::Error> {
                SkipVisitor.visit_map(a).map(|_| Str::NotStr)
            }
        }
        d.deserialize_any(V)
    }
}

/// A text field, measured without being decoded: its UTF-16 length read off the raw JSON
/// string (escapes counted as the characters they stand for). A value that is not a string,
/// or a surrogate escape that is not a well-formed pair, is left to the decoded path (whose
/// nesting limit and repairs apply).
#[derive(Clone, Copy, Default)]
struct Len(usize);

impl<'de> Deserialize<'de> for Len {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw: &'de RawValue = Deserialize::deserialize(d)?;
        decoded_len(raw.get())
            .map(Len)
            .ok_or_else(|| de::Error::custom("text needs the decoded path"))
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    u32::from_str_radix(std::str::from_utf8(b.get(at..at + 4)?).ok()?, 16).ok()
}

/// The UTF-16 length of the string the JSON string literal `raw` decodes to (checked JSON:
/// valid escapes and UTF-8); None when `raw` is not a string or has a surrogate escape
/// outside a well-formed pair.
pub(crate) fn decoded_len(raw: &str) -> Option<usize> {
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    let b = body.as_bytes();
    // Most text escapes only single characters (`\n`, `\t`, `\"`): then every backslash
    // starts a two-byte escape that stands for one unit, and two counts the compiler
    // vectorizes settle the length, where walking escape by escape was most of the cost of
    // a tool result's lines. A `\\` or `\u` escape takes the walk.
    let (backslashes, walk, ascii) = escape_counts(b);
    if walk == 0 {
        let units = if ascii { b.len() } else { utf16_len(body) };
        return Some(units - backslashes);
    }
    let mut n = 0;
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &b[i..]) {
        n += utf16_len(&body[i..i + k]);
        i += k;
        if *b.get(i + 1)? != b'u' {
            n += 1;
            i += 2;
            continue;
        }
        let cp = hex4(b, i + 2)?;
        match cp {
            0xD800..=0xDBFF => {
                let low = match (b.get(i + 6), b.get(i + 7)) {
                    (Some(b'\\'), Some(b'u')) => hex4(b, i + 8)?,
                    _ => return None,
                };
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return None;
                }
                n += 2;
                i += 12;
            }
            0xDC00..=0xDFFF => return None,
            _ => {
                n += 1;
                i += 6;
            }
        }
    }
    Some(n + utf16_len(&body[i..]))
}

/// Per-block sums of a `content` array.
#[derive(Clone, Copy, Default)]
struct Sums {
    text: usize,
    thinking: usize,
    tool: usize,
    images: usize,
}

/// A `content` value: a string, an array of blocks, or anything else (counts nothing).
#[derive(Clone, Copy, Default)]
enum Content {
    #[default]
    None,
    Str(usize),
    Blocks(Sums),
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content::Str(utf16_len(v)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_none<E: de::Error>(self) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Content, A::Error> {
                let mut s = Sums::default();
                while let Some(b) = a.next_element::<Block>()? {
                    match b.ty.tag() {
                        Some(Tag::Text) => s.text += b.text.0,
                        Some(Tag::Thinking) => s.thinking += b.thinking.0,
                        Some(Tag::ToolCall) => s.tool += b.name.len() + b.arguments.unwrap_or(0),
                        Some(Tag::Image) => s.images += 1,
                        _ => {}
                    }
                }
                Ok(Content::Blocks(s))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Content, A::Error> {
                SkipVisitor.visit_map(a).map(|_| Content::None)
            }
        }
        d.deserialize_any(V)
    }
}

/// One content block (a value that is not an object counts nothing). A repeated key keeps its
/// last value, as the decoded object does.
#[derive(Default)]
struct Block {
    ty: Str,
    text: Len,
    thinking: Len,
    name: Str,
    /// `JSON.stringify(arguments).length` when present.
    arguments: Option<usize>,
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Block;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Block, E> {
                Ok(Block::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Block, E> {
                Ok(Block::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Block, E> {
                Ok(Block::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Block, E> {
                Ok(Block::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Block, E> {
                Ok(Block::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Block, E> {
                Ok(Block::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Block, E> {
                Ok(Block::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Block, A::Error> {
                SkipVisitor.visit_seq(a).map(|_| Block::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Block, A::Error> {
                let mut b = Block::default();
                while let Some(k) = a.next_key::<Key>()? {
                    match k {
                        Key::Type => b.ty = a.next_value()?,
                        Key::Text => b.text = a.next_value()?,
                        Key::Thinking => b.thinking = a.next_value()?,
                        Key::Name => b.name = a.next_value()?,
                        Key::Arguments => {
                            let raw: &'de RawValue = a.next_value()?;
                            let n = stringify_len_raw(raw.get()).ok_or_else(|| {
                                de::Error::custom("arguments need the decoded path")
                            })?;
                            b.arguments = Some(n);
                        }
                        _ => {
                            a.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(b)
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of a message object the estimate reads.
#[derive(Default, Clone, Copy)]
struct Msg {
    role: Str,
    content: Content,
    command: Str,
    output: Str,
    summary: Str,
}

impl Msg {
    /// A `message` object's fields, the role read by `role` (the fused parse also keeps it
    /// for the index); a repeated key keeps its last value.
    fn read_fields<'de, A: MapAccess<'de>>(
        a: &mut A,
        mut role: impl FnMut(&mut A) -> Result<Str, A::Error>,
        mut other: impl FnMut(Key, &mut A) -> Result<bool, A::Error>,
    ) -> Result<Msg, A::Error> {
        let mut m = Msg::default();
        while let Some(k) = a.next_key::<Key>()? {
            match k {
                Key::Role => m.role = role(a)?,
                Key::Content => m.content = a.next_value()?,
                Key::Command => m.command = a.next_value()?,
                Key::Output => m.output = a.next_value()?,
                Key::Summary => m.summary = a.next_value()?,
                k => {
                    if !other(k, a)? {
                        a.next_value::<Skip>()?;
                    }
                }
            }
        }
        Ok(m)
    }
}

/// `message`: an object, or anything else (then the entry yields no message).
#[derive(Default, Clone, Copy)]
struct MaybeMsg(Option<Msg>);

impl<'de> Deserialize<'de> for MaybeMsg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeMsg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<MaybeMsg, E> {
                Ok(MaybeMsg(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<MaybeMsg, E> {
                Ok(MaybeMsg(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<MaybeMsg, E> {
                Ok(MaybeMsg(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<MaybeMsg, E> {
                Ok(MaybeMsg(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<MaybeMsg, E> {
                Ok(MaybeMsg(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<MaybeMsg, E> {
                Ok(MaybeMsg(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<MaybeMsg, E> {
                Ok(MaybeMsg(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<MaybeMsg, A::Error> {
                SkipVisitor.visit_seq(a).map(|_| MaybeMsg(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<MaybeMsg, A::Error> {
                Msg::read_fields(&mut a, |a| a.next_value(), |_, _| Ok(false))
                    .map(|m| MaybeMsg(Some(m)))
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of an entry line the figures read (a line that is not an object has none).
#[derive(Default)]
struct Line {
    ty: Str,
    message: MaybeMsg,
    content: Content,
    summary: Str,
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Line;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Line, E> {
                Ok(Line::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Line, E> {
                Ok(Line::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Line, E> {
                Ok(Line::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Line, E> {
                Ok(Line::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Line, E> {
                Ok(Line::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Line, E> {
                Ok(Line::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Line, E> {
                Ok(Line::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Line, A::Error> {
                SkipVisitor.visit_seq(a).map(|_| Line::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Line, A::Error> {
                let mut l = Line::default();
                while let Some(k) = a.next_key::<Key>()? {
                    match k {
                        Key::Type => l.ty = a.next_value()?,
                        Key::Message => l.message = a.next_value()?,
                        Key::Content => l.content = a.next_value()?,
                        Key::Summary => l.summary = a.next_value()?,
                        _ => {
                            a.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(l)
            }
        }
        d.deserialize_any(V)
    }
}

fn figures_of(chars: usize, class: MessageClass) -> MessageFigures {
    MessageFigures {
        tokens: to_u32(ceil_div4(chars)),
        class,
        ..Default::default()
    }
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// pi's rules for `custom` and `toolResult` content (images count).
fn text_and_images(c: Content) -> usize {
    match c {
        Content::Str(n) => n,
        Content::Blocks(s) => s.text + IMAGE_CHARS * s.images,
        Content::None => 0,
    }
}

impl Line {
    /// As `message_of_entry` (compaction view) then `estimate_message` and the breakdown's
    /// kinds read the decoded entry.
    fn figures(&self, hook_is_custom: bool) -> MessageFigures {
        match self.ty.tag() {
            Some(Tag::Message) => match self.message.0 {
                Some(m) => message_figures(&m, hook_is_custom),
                None => MessageFigures::default(),
            },
            Some(Tag::CustomMessage) => {
                figures_of(text_and_images(self.content), MessageClass::Other)
            }
            Some(Tag::BranchSummary) => figures_of(self.summary.len(), MessageClass::Other),
            Some(Tag::Compaction) => MessageFigures {
                compaction: true,
                ..figures_of(self.summary.len(), MessageClass::Other)
            },
            _ => MessageFigures::default(),
        }
    }
}

fn message_figures(m: &Msg, hook_is_custom: bool) -> MessageFigures {
    let role = match m.role.tag() {
        Some(Tag::HookMessage) if hook_is_custom => Some(Tag::Custom),
        r => r,
    };
    match role {
        Some(Tag::User) => {
            let chars = match m.content {
                Content::Str(n) => n,
                Content::Blocks(s) => s.text,
                Content::None => 0,
            };
            figures_of(chars, MessageClass::User)
        }
        Some(Tag::Assistant) => {
            let s = match m.content {
                Content::Blocks(s) => s,
                _ => Sums::default(),
            };
            MessageFigures {
                text: to_u32(s.text as u64),
                thinking: to_u32(s.thinking as u64),
                tool: to_u32(s.tool as u64),
                ..figures_of(s.text + s.thinking + s.tool, MessageClass::Assistant)
            }
        }
        Some(Tag::ToolResult) => figures_of(text_and_images(m.content), MessageClass::ToolResult),
        Some(Tag::Custom) => figures_of(text_and_images(m.content), MessageClass::Other),
        Some(Tag::BashExecution) => {
            figures_of(m.command.len() + m.output.len(), MessageClass::Other)
        }
        Some(Tag::BranchSummaryRole | Tag::CompactionSummaryRole) => {
            figures_of(m.summary.len(), MessageClass::Other)
        }
        _ => figures_of(0, MessageClass::Other),
    }
}

/// Deeper than this, arguments go to the decoded path (which enforces `serde_json`'s
/// nesting limit over the whole line).
const MAX_DEPTH: usize = 32;

/// `JSON.stringify(JSON.parse(raw)).length` as `jsjson::stringify_len` computes it on the
/// decoded value, for JSON text `serde_json` has already checked; None when the raw text
/// cannot tell (see the module docs).
pub(crate) fn stringify_len_raw(raw: &str) -> Option<usize> {
    let b = raw.as_bytes();
    let mut i = 0;
    let mut n = 0;
    // Keys seen in each open object (None for an array), to find a repeated key.
    let mut open: Vec<Option<Vec<&str>>> = Vec::new();
    // Inside an object, whether the next string is a key.
    let mut want_key = false;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'[' => {
                if open.len() >= MAX_DEPTH {
                    return None;
                }
                let obj = b[i] == b'{';
                open.push(obj.then(Vec::new));
                want_key = obj;
                n += 1;
                i += 1;
            }
            b'}' | b']' => {
                open.pop();
                want_key = false;
                n += 1;
                i += 1;
            }
            b',' => {
                want_key = matches!(open.last(), Some(Some(_)));
                n += 1;
                i += 1;
            }
            b':' => {
                want_key = false;
                n += 1;
                i += 1;
            }
            b'"' => {
                let (len, end, escaped) = string_len(b, i + 1)?;
                if want_key {
                    let key = &raw[i + 1..end - 1];
                    let keys = open.last_mut()?.as_mut()?;
                    if escaped || keys.contains(&key) {
                        return None;
                    }
                    keys.push(key);
                }
                n += len;
                i = end;
            }
            b't' | b'n' => {
                n += 4;
                i += 4;
            }
            b'f' => {
                n += 5;
                i += 5;
            }
            _ => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                n += number_len(&raw[start..i])?;
            }
        }
    }
    Some(n)
}

/// The `JSON.stringify` length of the string whose body starts at `start`: (length, index
/// after the closing quote, whether the raw text had escapes). None for a surrogate escape.
fn string_len(b: &[u8], start: usize) -> Option<(usize, usize, bool)> {
    let mut i = start;
    let mut n = 2; // the quotes
    let mut escaped = false;
    loop {
        // Plain characters up to the next quote or escape, counted at once (a file's text
        // in `write` arguments is long).
        let run = memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        n += utf8_units(&b[i..i + run]);
        i += run;
        match b[i] {
            b'"' => return Some((n, i + 1, escaped)),
            b'\\' => {
                escaped = true;
                let e = *b.get(i + 1)?;
                match e {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {
                        n += 2;
                        i += 2;
                    }
                    b'/' => {
                        n += 1;
                        i += 2;
                    }
                    b'u' => {
                        let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
                        let cp = u32::from_str_radix(hex, 16).ok()?;
                        let ch = char::from_u32(cp)?; // None for a surrogate
                        n += escaped_char_len(ch);
                        i += 6;
                    }
                    _ => return None,
                }
            }
            // memchr2 stopped at a quote or a backslash.
            _ => return None,
        }
    }
}

/// UTF-16 units of UTF-8 text (checked by serde_json) without escapes: a 4-byte sequence is a
/// surrogate pair, a lead byte of a shorter one a single unit, continuation bytes nothing.
fn utf8_units(b: &[u8]) -> usize {
    if b.is_ascii() {
        return b.len();
    }
    count_bytes(b, |c| c & 0xC0 != 0x80) + count_bytes(b, |c| c >= 0xF0)
}

/// How many bytes of `b` satisfy `f`. Counted in byte-wide lanes over blocks of 255 (one
/// byte cannot overflow there), which the compiler vectorizes 32 bytes at a time; a
/// word-wide count does 4.
fn count_bytes(b: &[u8], f: impl Fn(u8) -> bool) -> usize {
    b.chunks(255)
        .map(|c| {
            let n: u8 = c.iter().fold(0u8, |n, &x| n.wrapping_add(u8::from(f(x))));
            usize::from(n)
        })
        .sum::<usize>()
}

/// In the body of a JSON string: its backslashes, how many of them start an escape the count
/// alone cannot measure (`\\`, `\u`, or a backslash that ends the body), and whether it is
/// all ASCII, in one pass counted as [`count_bytes`] counts.
fn escape_counts(b: &[u8]) -> (usize, usize, bool) {
    let Some(last) = b.len().checked_sub(1) else {
        return (0, 0, true);
    };
    let mut backslashes = 0;
    let mut walk = 0;
    let mut high = 0u8;
    for (x, y) in b[..last].chunks(255).zip(b[1..].chunks(255)) {
        let (mut n, mut w) = (0u8, 0u8);
        for (&p, &q) in x.iter().zip(y) {
            let slash = p == b'\\';
            n = n.wrapping_add(u8::from(slash));
            w = w.wrapping_add(u8::from(slash & ((q == b'\\') | (q == b'u'))));
            high |= p;
        }
        backslashes += usize::from(n);
        walk += usize::from(w);
    }
    if b[last] == b'\\' {
        backslashes += 1;
        walk += 1;
    }
    high |= b[last];
    (backslashes, walk, high < 0x80)
}

/// How `jsjson::write_char_escaped` writes `c`, in UTF-16 units.
fn escaped_char_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf16(),
    }
}

/// How `jsjson::write_number` writes the number `tok` decodes to.
fn number_len(tok: &str) -> Option<usize> {
    let digits = tok.strip_prefix('-').unwrap_or(tok);
    // A plain integer that fits i64 and is written back as is ("-0" is not: it decodes as a
    // float).
    let plain = !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && tok != "-0";
    if plain {
        return Some(tok.len());
    }
    let num: serde_json::Number = serde_json::from_str(tok).ok()?;
    let mut s = String::new();
    write_number(&mut s, &num);
    Some(s.len())
}

mod fused;

pub(crate) use fused::StrictStr;
pub use fused::head_and_figures;

#[cfg(test)]
pub(super) mod tests;
