//! A session's store row, as both eras give it: the fields of a `sessions.json` entry
//! (OpenClaw ≤ 2026.7.1) or of a SQLite `sessions` row (2026.7.2+, built by the `sqlite` reader),
//! and the id rules both share. It sits below `store` and `sqlite` so that the host
//! (`store`, which discovers the SQLite layout) and the SQLite reader can both use it.
//!
//! Fast, tolerant reading of `sessions.json` (docs/formats.md §1).
//!
//! A busy host's store is tens of megabytes, almost all of it `skillsSnapshot` and
//! `systemPromptReport`. One streaming pass picks out the few fields clawtop needs and
//! skips everything else with `IgnoredAny`, so no `Value` tree is ever built for an entry.
//! A malformed *file* is an error; a malformed *entry* is a warning and the entry is skipped
//! (OpenClaw drops such entries on load too).

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// The fields of a `SessionEntry` clawtop uses. Raw values are kept for the three token fields
/// so `list --json` can echo them as written.
///
/// Serialized only for the rows cache (a SQLite listing remembered between runs,
/// [`crate::sqlite::entry::RowsKept`]): read back, an entry equals the one parsed, a raw
/// `null` included.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, Deserialize)]
pub struct StoreEntry {
    pub session_id: String,
    pub session_file: Option<String>,
    pub updated_at: Option<i64>,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    #[serde(default, with = "raw")]
    pub total_tokens_raw: Option<Value>,
    #[serde(default, with = "raw")]
    pub total_tokens_fresh_raw: Option<Value>,
    #[serde(default, with = "raw")]
    pub context_tokens_raw: Option<Value>,
    pub compaction_count: Option<u64>,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
    /// 2026.9 `memoryFlush.kind` (`succeeded`, `failed`); None in sessions.json stores.
    pub memory_flush_kind: Option<String>,
    /// 2026.9 `totalTokensVersion` (1: `totalTokens` is the last call's prompt snapshot).
    pub total_tokens_version: Option<u64>,
}

/// A raw field as the rows cache packs it ([`crate::packed`], by position): absent is nil and
/// a written value is `[value]`, so a written `null` reads back as written, not as absent.
mod raw {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    pub fn serialize<S: Serializer>(v: &Option<Value>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().map(|v| (v,)).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
        Option::<(Value,)>::deserialize(d).map(|v| v.map(|(v,)| v))
    }
}

impl StoreEntry {
    pub fn total_tokens(&self) -> Option<u64> {
        self.total_tokens_raw.as_ref().and_then(non_negative)
    }
    /// `Some(b)` only for a real boolean; anything else counts as absent.
    pub fn total_tokens_fresh(&self) -> Option<bool> {
        self.total_tokens_fresh_raw
            .as_ref()
            .and_then(Value::as_bool)
    }
    pub fn context_tokens(&self) -> Option<u64> {
        self.context_tokens_raw
            .as_ref()
            .and_then(non_negative)
            .filter(|&n| n > 0)
    }
}

/// A finite, non-negative JSON number as an integer (fractions are floored).
pub fn non_negative(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    if f.is_finite() && (0.0..9.0e15).contains(&f) {
        Some(f.floor() as u64)
    } else {
        None
    }
}

fn integer(v: &Value) -> Option<i64> {
    if let Some(n) = v.as_i64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    if f.is_finite() && f.abs() < 9.0e15 {
        Some(f.floor() as i64)
    } else {
        None
    }
}

/// One key of the store and what was made of its value.
#[derive(Debug, Clone)]
pub struct ParsedEntry {
    pub key: String,
    pub entry: Result<StoreEntry, EntryError>,
}

/// Why one entry of a store is skipped (the store's other entries are still read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("is {0}, not an object; skipped")]
    NotObject(&'static str),
    #[error("has a key with a lone UTF-16 surrogate escape, which is not valid text; skipped")]
    KeyNotText,
    #[error("has no sessionId; skipped")]
    NoSessionId,
    /// OpenClaw drops such an entry too.
    #[error("has an unsafe sessionId {0:?} (OpenClaw drops it); skipped")]
    UnsafeSessionId(String),
    #[error("has a sessionId that is not a string; skipped")]
    SessionIdNotString,
}

/// Why a whole store cannot be read. Names no file; the caller adds it.
#[derive(Debug, thiserror::Error)]
pub enum StoreFileError {
    #[error("{0}")]
    Io(std::io::Error),
    /// A FIFO, a directory, a link to one: said as what it is.
    #[error("is {0}, not a regular file")]
    NotRegular(String),
    #[error("is empty (0 bytes of JSON): a truncated write? its sessions cannot be read")]
    Empty,
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("top level is {0}, expected an object keyed by session key")]
    NotAMap(&'static str),
}

/// `^[A-Za-z0-9][A-Za-z0-9._:@-]*$`, ≤ 255 characters: OpenClaw drops entries whose
/// `sessionId` is not like this. It also keeps `<sessionId>.jsonl` a plain file name.
pub fn safe_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.len() <= 255
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'@' | b'-'))
}

/// Parses a whole store. Errors name no file; the caller adds it.
pub fn parse(bytes: &[u8]) -> Result<Vec<ParsedEntry>, StoreFileError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let top = Top::deserialize(&mut de)?;
    de.end()?;
    let items = match top {
        Top::Map(items) => items,
        Top::Other(kind) => return Err(StoreFileError::NotAMap(kind)),
    };
    // JSON.parse semantics for duplicate keys: the last value wins, at the first position.
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<ParsedEntry> = Vec::with_capacity(items.len());
    for (key, slot) in items {
        let entry = match slot {
            Slot::NotObject(kind) => Err(EntryError::NotObject(kind)),
            Slot::BadKey => Err(EntryError::KeyNotText),
            Slot::Entry(f) => (*f).into_entry(),
        };
        match seen.get(&key) {
            Some(&i) => out[i].entry = entry,
            None => {
                seen.insert(key.clone(), out.len());
                out.push(ParsedEntry { key, entry });
            }
        }
    }
    Ok(out)
}

/// Reads and parses `path`.
///
/// Opened non-blocking and checked to be a regular file before anything is read: a FIFO
/// swapped in would otherwise block forever, and `/dev/zero` never ends.
pub fn read(path: &Path) -> Result<Vec<ParsedEntry>, StoreFileError> {
    let mut bytes = Vec::new();
    read_into(path, &mut bytes)?;
    parse(&bytes)
}

/// The bytes of the store `path` into `bytes` (its allocation reused: a live TUI reads a
/// store of tens of megabytes again at each of its rewrites), opened as [`read`] opens it;
/// a store of no bytes but whitespace is [`StoreFileError::Empty`].
pub fn read_into(path: &Path, bytes: &mut Vec<u8>) -> Result<(), StoreFileError> {
    use std::io::Read;
    bytes.clear();
    crate::regular_file::open(path)
        .and_then(|mut f| f.read_to_end(bytes))
        .map_err(|e| {
            match crate::regular_file::odd_kind(path)
                .filter(|_| crate::regular_file::is_not_regular(&e))
            {
                Some(kind) => StoreFileError::NotRegular(kind),
                None => StoreFileError::Io(e),
            }
        })?;
    // OpenClaw writes `{}` for an empty store; no bytes at all is a torn or truncated write,
    // and its sessions cannot be known.
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(StoreFileError::Empty);
    }
    Ok(())
}

enum Top {
    Map(Vec<(String, Slot)>),
    Other(&'static str),
}

enum Slot {
    Entry(Box<Fields>),
    NotObject(&'static str),
    /// The key is not valid Unicode (a lone surrogate); the value was read and dropped.
    BadKey,
}

/// A store key as its bytes: serde_json reads a lone surrogate escape into bytes (as the
/// generalized UTF-8 of the code unit) where it refuses it in a `String`.
struct RawKey(Vec<u8>);

impl<'de> Deserialize<'de> for RawKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RawKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a session key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawKey, E> {
                Ok(RawKey(s.as_bytes().to_vec()))
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<RawKey, E> {
                Ok(RawKey(b.to_vec()))
            }
        }
        d.deserialize_bytes(V)
    }
}

#[derive(Default)]
struct Fields {
    session_id: Option<Value>,
    session_file: Option<Value>,
    updated_at: Option<Value>,
    model: Option<Value>,
    model_provider: Option<Value>,
    total_tokens: Option<Value>,
    total_tokens_fresh: Option<Value>,
    context_tokens: Option<Value>,
    compaction_count: Option<Value>,
    memory_flush_at: Option<Value>,
    memory_flush_compaction_count: Option<Value>,
}

impl Fields {
    fn into_entry(self) -> Result<StoreEntry, EntryError> {
        let session_id = match self.session_id {
            None | Some(Value::Null) => return Err(EntryError::NoSessionId),
            Some(Value::String(s)) if safe_session_id(&s) => s,
            Some(Value::String(s)) => return Err(EntryError::UnsafeSessionId(s)),
            Some(_) => return Err(EntryError::SessionIdNotString),
        };
        let string = |v: Option<Value>| match v {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            _ => None,
        };
        Ok(StoreEntry {
            session_id,
            session_file: string(self.session_file),
            updated_at: self.updated_at.as_ref().and_then(integer),
            model: string(self.model),
            model_provider: string(self.model_provider),
            total_tokens_raw: self.total_tokens,
            total_tokens_fresh_raw: self.total_tokens_fresh,
            context_tokens_raw: self.context_tokens,
            compaction_count: self.compaction_count.as_ref().and_then(non_negative),
            memory_flush_at: self.memory_flush_at.as_ref().and_then(integer),
            memory_flush_compaction_count: self
                .memory_flush_compaction_count
                .as_ref()
                .and_then(non_negative),
            memory_flush_kind: None,
            total_tokens_version: None,
        })
    }
}

fn kind_of(unexpected: de::Unexpected<'_>) -> &'static str {
    match unexpected {
        de::Unexpected::Bool(_) => "a boolean",
        de::Unexpected::Str(_) => "a string",
        de::Unexpected::Seq => "an array",
        de::Unexpected::Unit => "null",
        _ => "a number",
    }
}

/// Visitor shared by the top level and entries: objects are walked, anything else is named.
macro_rules! non_object_visits {
    ($wrap:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok($wrap(kind_of(de::Unexpected::Bool(v))))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($wrap("a number"))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($wrap("a number"))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($wrap("a number"))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($wrap("a string"))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($wrap("null"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($wrap("an array"))
        }
    };
}

impl<'de> Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Top;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object keyed by session key")
            }
            non_object_visits!(Top::Other);
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
                let mut out = Vec::new();
                while let Some(RawKey(raw)) = map.next_key::<RawKey>()? {
                    let slot = map.next_value::<Slot>()?;
                    match String::from_utf8(raw) {
                        Ok(key) => out.push((key, slot)),
                        // A lone UTF-16 surrogate escape (`"\ud83d"`), which JavaScript
                        // writes and a Rust string cannot hold: only this entry is lost.
                        Err(e) => {
                            let shown = String::from_utf8_lossy(e.as_bytes()).into_owned();
                            out.push((shown, Slot::BadKey));
                        }
                    }
                }
                Ok(Top::Map(out))
            }
        }
        d.deserialize_any(V)
    }
}

enum Key {
    SessionId,
    SessionFile,
    UpdatedAt,
    Model,
    ModelProvider,
    TotalTokens,
    TotalTokensFresh,
    ContextTokens,
    CompactionCount,
    MemoryFlushAt,
    MemoryFlushCompactionCount,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            // Borrowed or transient, never allocated.
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
                Ok(match s {
                    "sessionId" => Key::SessionId,
                    "sessionFile" => Key::SessionFile,
                    "updatedAt" => Key::UpdatedAt,
                    "model" => Key::Model,
                    "modelProvider" => Key::ModelProvider,
                    "totalTokens" => Key::TotalTokens,
                    "totalTokensFresh" => Key::TotalTokensFresh,
                    "contextTokens" => Key::ContextTokens,
                    "compactionCount" => Key::CompactionCount,
                    "memoryFlushAt" => Key::MemoryFlushAt,
                    "memoryFlushCompactionCount" => Key::MemoryFlushCompactionCount,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

impl<'de> Deserialize<'de> for Slot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Slot;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a session entry object")
            }
            non_object_visits!(Slot::NotObject);
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Slot, A::Error> {
                let mut f = Fields::default();
                while let Some(k) = map.next_key::<Key>()? {
                    // Last occurrence wins, as in JSON.parse.
                    let slot = match k {
                        Key::SessionId => &mut f.session_id,
                        Key::SessionFile => &mut f.session_file,
                        Key::UpdatedAt => &mut f.updated_at,
                        Key::Model => &mut f.model,
                        Key::ModelProvider => &mut f.model_provider,
                        Key::TotalTokens => &mut f.total_tokens,
                        Key::TotalTokensFresh => &mut f.total_tokens_fresh,
                        Key::ContextTokens => &mut f.context_tokens,
                        Key::CompactionCount => &mut f.compaction_count,
                        Key::MemoryFlushAt => &mut f.memory_flush_at,
                        Key::MemoryFlushCompactionCount => &mut f.memory_flush_compaction_count,
                        Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(map.next_value::<Value>()?);
                }
                Ok(Slot::Entry(Box::new(f)))
            }
        }
        d.deserialize_any(V)
    }
}

/// OpenClaw's `normalizeAgentId`: lower-case, characters outside `[a-z0-9_-]` become `-`.
/// Also what makes a config-supplied id safe as a path component.
pub fn normalize_agent_id(id: &str) -> Option<String> {
    let s: String = id
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    if s.is_empty() || !s.as_bytes()[0].is_ascii_alphanumeric() {
        None
    } else {
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_fields_and_skips_rest() {
        let s = br#"{"a":{"sessionId":"x1","skillsSnapshot":{"big":[1,2,{"q":"r"}]},"totalTokens":5,"totalTokensFresh":true,"contextTokens":48000,"compactionCount":3,"updatedAt":17.5,"model":"m"},
        "b":[1],"c":{"totalTokens":1},"d":"str","e":{"sessionId":"../x"},"f":{"sessionId":7}}"#;
        let v = parse(s).unwrap();
        assert_eq!(v.len(), 6);
        let a = v[0].entry.as_ref().unwrap();
        assert_eq!(a.session_id, "x1");
        assert_eq!(a.total_tokens(), Some(5));
        assert_eq!(a.total_tokens_fresh(), Some(true));
        assert_eq!(a.context_tokens(), Some(48000));
        assert_eq!(a.compaction_count, Some(3));
        assert_eq!(a.updated_at, Some(17));
        let why = |i: usize| v[i].entry.as_ref().unwrap_err().clone();
        assert_eq!(why(1), EntryError::NotObject("an array"));
        assert_eq!(why(2), EntryError::NoSessionId);
        assert_eq!(why(3), EntryError::NotObject("a string"));
        assert_eq!(why(4), EntryError::UnsafeSessionId("../x".into()));
        assert_eq!(why(5), EntryError::SessionIdNotString);
        assert_eq!(
            why(4).to_string(),
            "has an unsafe sessionId \"../x\" (OpenClaw drops it); skipped"
        );
    }

    #[test]
    fn file_level_errors() {
        assert!(matches!(
            parse(b"[]"),
            Err(StoreFileError::NotAMap("an array"))
        ));
        assert!(matches!(
            parse(b"{\"a\":"),
            Err(StoreFileError::Json(e)) if e.to_string().contains("line 1")
        ));
        assert!(parse(b"{} x").is_err());
        assert!(parse(b"").unwrap().is_empty());
        assert!(parse(b"\xef\xbb\xbf{}").unwrap().is_empty());
    }

    #[test]
    fn duplicate_keys_last_wins() {
        let v = parse(br#"{"k":{"sessionId":"a"},"j":{"sessionId":"b"},"k":{"sessionId":"c"}}"#)
            .unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].entry.as_ref().unwrap().session_id, "c");
    }
}
