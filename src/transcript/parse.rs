//! Line scanning: envelope-only decoding of every line, full decoding on demand.

use super::{EntryKind, EntryMeta, Header, Role, Warning};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The fields of a line that indexing needs; everything else is skipped without allocating.
#[derive(Deserialize, Default)]
pub struct LineHead<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: AnyStr<'a>,
    #[serde(borrow, default)]
    pub id: AnyStr<'a>,
    #[serde(rename = "parentId", borrow, default)]
    pub parent_id: AnyStr<'a>,
    #[serde(borrow, default)]
    pub message: MessageHead<'a>,
    #[serde(default)]
    pub version: Option<IgnoredOrNumber>,
    #[serde(borrow, default)]
    pub timestamp: AnyStr<'a>,
    #[serde(borrow, default)]
    pub cwd: AnyStr<'a>,
}

/// A string field that may hold any JSON value; non-strings read as `None`.
#[derive(Default)]
pub struct AnyStr<'a>(pub Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for AnyStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyStr(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// `message.role`, tolerant of a `message` that is not an object.
#[derive(Default)]
pub struct MessageHead<'a> {
    pub present: bool,
    pub role: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for MessageHead<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MessageHead<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut role = None;
                while let Some(k) = a.next_key::<Cow<'de, str>>()? {
                    if k == "role" {
                        role = a.next_value::<AnyStr<'de>>()?.0;
                    } else {
                        a.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(MessageHead { present: true, role })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MessageHead::default())
            }
            fn visit_borrowed_str<E: de::Error>(self, _: &'de str) -> Result<Self::Value, E> {
                Ok(MessageHead::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(MessageHead::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MessageHead::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MessageHead::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MessageHead::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MessageHead::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MessageHead::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// The header's `version`: a number, anything else counts as absent.
pub struct IgnoredOrNumber(pub Option<f64>);

impl<'de> Deserialize<'de> for IgnoredOrNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(IgnoredOrNumber(v.as_f64()))
    }
}

pub(super) struct Scan {
    pub header: Option<Header>,
    pub entries: Vec<EntryMeta>,
    pub warnings: Vec<Warning>,
}

fn kind_of(ty: Option<&str>, role: Option<&str>) -> EntryKind {
    match ty {
        Some("message") => EntryKind::Message(match role {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("toolResult") => Role::ToolResult,
            Some("bashExecution") => Role::BashExecution,
            Some("custom") | Some("hookMessage") => Role::Custom,
            Some("branchSummary") => Role::BranchSummary,
            Some("compactionSummary") => Role::CompactionSummary,
            _ => Role::Other,
        }),
        Some("compaction") => EntryKind::Compaction,
        Some("branch_summary") => EntryKind::BranchSummary,
        Some("custom_message") => EntryKind::CustomMessage,
        Some("custom") => EntryKind::Custom,
        Some("model_change") => EntryKind::ModelChange,
        Some("thinking_level_change") => EntryKind::ThinkingLevelChange,
        Some("label") => EntryKind::Label,
        Some("session_info") => EntryKind::SessionInfo,
        _ => EntryKind::Unknown,
    }
}

fn short_err(e: &serde_json::Error) -> String {
    let s = e.to_string();
    // serde_json appends " at line 1 column N"; the column is useful, the line is ours.
    s.replace(" at line 1 column ", " at column ")
}

/// Indexes every line.
pub(super) fn scan(data: &[u8]) -> Scan {
    let mut out = Scan { header: None, entries: Vec::new(), warnings: Vec::new() };
    let mut start = 0usize;
    if data.starts_with(b"\xEF\xBB\xBF") {
        out.warnings.push(Warning { line: 1, message: "UTF-8 byte order mark ignored".into() });
        start = 3;
    }
    if data.is_empty() {
        out.warnings.push(Warning { line: 0, message: "empty file".into() });
        return out;
    }
    let mut line_no = 0u32;
    let mut first_valid = true;
    let mut pos = start;
    while pos < data.len() {
        line_no = line_no.saturating_add(1);
        let end = memchr::memchr(b'\n', &data[pos..]).map(|i| pos + i).unwrap_or(data.len());
        let raw = &data[pos..end];
        let line_start = pos;
        let truncated_last = end == data.len();
        pos = end + 1;
        let trimmed = trim_ws(raw);
        if trimmed.is_empty() {
            continue;
        }
        let (off, len) = (line_start + (trimmed.as_ptr() as usize - raw.as_ptr() as usize), trimmed.len());
        if len > u32::MAX as usize {
            out.warnings.push(Warning { line: line_no, message: "line longer than 4 GiB skipped".into() });
            continue;
        }
        let head = match serde_json::from_slice::<LineHead>(trimmed) {
            Ok(h) => Ok(h),
            Err(e) => Err(e),
        };
        let lossy;
        let head = match head {
            Ok(h) => h,
            Err(e) if std::str::from_utf8(trimmed).is_err() => {
                // JavaScript decodes invalid UTF-8 as U+FFFD and parses on; so does clawtop.
                lossy = String::from_utf8_lossy(trimmed).into_owned();
                match serde_json::from_str::<LineHead>(&lossy) {
                    Ok(h) => {
                        out.warnings.push(Warning { line: line_no, message: "invalid UTF-8 replaced with U+FFFD".into() });
                        h
                    }
                    Err(_) => {
                        out.warnings.push(Warning { line: line_no, message: format!("skipped: not valid JSON ({})", short_err(&e)) });
                        continue;
                    }
                }
            }
            Err(e) => {
                let msg = if truncated_last && e.is_eof() {
                    format!("skipped: last line is incomplete (truncated write?) ({})", short_err(&e))
                } else if e.is_data() {
                    "skipped: not a JSON object".to_string()
                } else {
                    format!("skipped: not valid JSON ({})", short_err(&e))
                };
                out.warnings.push(Warning { line: line_no, message: msg });
                continue;
            }
        };
        let ty = head.ty.0.as_deref();
        if ty == Some("session") {
            if first_valid {
                let version = head.version.and_then(|v| v.0).filter(|v| *v >= 1.0 && v.fract() == 0.0).map(|v| v as u32).unwrap_or(1);
                if head.id.0.is_none() {
                    out.warnings.push(Warning { line: line_no, message: "session header has no string id; pi would treat this file as invalid".into() });
                }
                out.header = Some(Header {
                    line: line_no,
                    id: head.id.0.map(|c| c.into_owned()),
                    version,
                    timestamp: head.timestamp.0.map(|c| c.into_owned()),
                    cwd: head.cwd.0.map(|c| c.into_owned()),
                });
            } else {
                out.warnings.push(Warning { line: line_no, message: "extra session header ignored".into() });
            }
            first_valid = false;
            continue;
        }
        if first_valid {
            out.warnings.push(Warning {
                line: line_no,
                message: "no session header; pi would treat this file as invalid (and rewrite it); clawtop reads it as is".into(),
            });
        }
        first_valid = false;
        let kind = kind_of(ty, head.message.role.as_deref());
        if !head.message.present && matches!(kind, EntryKind::Message(_)) {
            out.warnings.push(Warning { line: line_no, message: "message entry without a message object".into() });
        }
        out.entries.push(EntryMeta {
            line: line_no,
            offset: off as u64,
            len: len as u32,
            kind,
            raw_type: if kind == EntryKind::Unknown { Some(ty.unwrap_or("(no type)").into()) } else { None },
            id: head.id.0.map(|c| c.into()),
            parent: None,
            parent_id: head.parent_id.0.map(|c| c.into()),
        });
    }
    out
}

fn trim_ws(b: &[u8]) -> &[u8] {
    let is_ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let s = b.iter().position(|c| !is_ws(c)).unwrap_or(b.len());
    let e = b.iter().rposition(|c| !is_ws(c)).map(|i| i + 1).unwrap_or(s);
    &b[s..e.max(s)]
}

/// Full decode of one line.
pub(super) fn decode_value(line: &[u8]) -> Result<Value, String> {
    match serde_json::from_slice::<Value>(line) {
        Ok(v) => Ok(v),
        Err(e) => {
            if std::str::from_utf8(line).is_err() {
                serde_json::from_str::<Value>(&String::from_utf8_lossy(line)).map_err(|e| short_err(&e))
            } else {
                Err(short_err(&e))
            }
        }
    }
}
