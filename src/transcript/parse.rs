//! Line scanning: envelope-only decoding of every line, full decoding on demand.
//!
//! A caller that will sum the whole context asks for each entry's figures too
//! ([`Scanner::with_figures`]): the line is then parsed once, for both, by the fused parse
//! `crate::tokens` hands over, and only a line it refuses takes the envelope-only parse here.

use super::{EntryKind, EntryMeta, FusedParse, Header, MessageFigures, Role, Warning};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

/// The fields of a line that indexing needs; everything else is skipped without allocating.
/// Read as a derived decode of these fields reads it (see the `Deserialize` impl), and it
/// says whether the line has a `tokensAfter`, which it does not read.
#[derive(Default)]
pub struct LineHead<'a> {
    pub ty: AnyStr<'a>,
    pub id: AnyStr<'a>,
    pub parent_id: AnyStr<'a>,
    pub message: MessageHead<'a>,
    pub version: Option<IgnoredOrNumber>,
    pub timestamp: AnyStr<'a>,
    pub cwd: AnyStr<'a>,
    /// The line is a JSON object (not an array read by position).
    pub object: bool,
    /// Times the object has a `tokensAfter` key (skipped, as every other key; up to 2):
    /// a decode that reads it ([`super::tail::slim`]) refuses the line when it is repeated.
    pub tokens_after: u8,
}

/// The keys of [`LineHead`], in order (an array is read by position in this order).
pub(super) const LINE_HEAD_FIELDS: &[&str] = &[
    "type",
    "id",
    "parentId",
    "message",
    "version",
    "timestamp",
    "cwd",
];

/// The behaviour of `#[derive(Deserialize)]` with `#[serde(default)]` on every field, which
/// this replaced so the parse can count `tokensAfter` without refusing a line that repeats
/// it: an object takes each field once (a repeated field is an error), skips any other
/// key; an array takes the fields by position, a missing one left at its default.
impl<'de: 'a, 'a> Deserialize<'de> for LineHead<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LineHead<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("struct LineHead")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut h = LineHead {
                    object: true,
                    ..LineHead::default()
                };
                let mut seen = 0u8;
                // Keys borrowed from the line (a `Cow<str>` key allocates every one).
                while let Some(k) = a.next_key::<AnyStr<'de>>()? {
                    let k = k.0.as_deref().unwrap_or("");
                    let Some(bit) = LINE_HEAD_FIELDS.iter().position(|f| *f == k) else {
                        if k == "tokensAfter" {
                            h.tokens_after = h.tokens_after.saturating_add(1).min(2);
                        }
                        a.next_value::<IgnoredAny>()?;
                        continue;
                    };
                    if seen & (1 << bit) != 0 {
                        return Err(de::Error::duplicate_field(LINE_HEAD_FIELDS[bit]));
                    }
                    seen |= 1 << bit;
                    match bit {
                        0 => h.ty = a.next_value()?,
                        1 => h.id = a.next_value()?,
                        2 => h.parent_id = a.next_value()?,
                        3 => h.message = a.next_value()?,
                        4 => h.version = a.next_value()?,
                        5 => h.timestamp = a.next_value()?,
                        _ => h.cwd = a.next_value()?,
                    }
                }
                Ok(h)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                Ok(LineHead {
                    ty: a.next_element()?.unwrap_or_default(),
                    id: a.next_element()?.unwrap_or_default(),
                    parent_id: a.next_element()?.unwrap_or_default(),
                    message: a.next_element()?.unwrap_or_default(),
                    version: a.next_element()?.unwrap_or_default(),
                    timestamp: a.next_element()?.unwrap_or_default(),
                    cwd: a.next_element()?.unwrap_or_default(),
                    object: false,
                    tokens_after: 0,
                })
            }
        }
        d.deserialize_struct("LineHead", LINE_HEAD_FIELDS, V)
    }
}

/// A string field that may hold any JSON value; non-strings read as `None`. The flag is set
/// for a value that is neither a string nor null (a typed decode, such as the history's
/// [`super::tail::slim`], refuses the line there).
#[derive(Default)]
pub struct AnyStr<'a>(pub Option<Cow<'a, str>>, pub bool);

impl<'de: 'a, 'a> Deserialize<'de> for AnyStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Borrowed(v)), false))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Owned(v.to_owned())), false))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Owned(v)), false))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(AnyStr(None, true))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(AnyStr(None, true))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(AnyStr(None, true))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(AnyStr(None, true))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(AnyStr(None, false))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(AnyStr(None, false))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyStr(None, true))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyStr(None, true))
            }
        }
        d.deserialize_any(V)
    }
}

/// `message.role`, tolerant of a `message` that is not an object; and what cost reads of an
/// assistant message (`usage` as written, `provider`, `model`, the numeric `timestamp`), so
/// the scan that indexes a line also captures its call ([`super::CallCapture`]).
#[derive(Default)]
pub struct MessageHead<'a> {
    pub present: bool,
    pub role: Option<Cow<'a, str>>,
    pub usage: Option<&'a serde_json::value::RawValue>,
    pub provider: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
    pub timestamp: Option<f64>,
    /// `timestamp` as the value it is (None when absent or null), for a head made without
    /// parsing the line again ([`super::turn_heads`]).
    pub timestamp_value: Option<Value>,
    /// `content` as written (None when absent or null).
    pub content: Option<&'a serde_json::value::RawValue>,
    /// `stopReason` as written (for [`super::facts`]).
    pub stop_reason: Option<&'a serde_json::value::RawValue>,
    /// A field a typed decode of the message reads (`role`, `content`, `usage`,
    /// `stopReason`, `provider`, `model`, `timestamp`) is repeated, or one of its strings is
    /// not a string or null: such a decode ([`super::tail::slim`]) refuses the line, this
    /// parse does not.
    pub odd: bool,
}

impl<'de> MessageHead<'de> {
    /// Reads `key`'s value into the fields cost needs; false for any other key (the caller
    /// skips it). A repeated key keeps its last value, as a decode does.
    pub fn read_call_field<A: MapAccess<'de>>(
        &mut self,
        key: &str,
        a: &mut A,
    ) -> Result<bool, A::Error> {
        match key {
            "usage" => self.usage = Some(a.next_value()?),
            "provider" => {
                let v = a.next_value::<AnyStr<'de>>()?;
                self.odd |= v.1;
                self.provider = v.0;
            }
            "model" => {
                let v = a.next_value::<AnyStr<'de>>()?;
                self.odd |= v.1;
                self.model = v.0;
            }
            "timestamp" => {
                // Read as a value whatever it holds (as `IgnoredOrNumber` does): the number
                // for cost, the value for a reply's head.
                let v = a.next_value::<Value>()?;
                self.timestamp = v.as_f64();
                self.timestamp_value = (!v.is_null()).then_some(v);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
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
                let mut head = MessageHead {
                    present: true,
                    ..MessageHead::default()
                };
                // Keys borrowed from the line (a `Cow<str>` key allocates every one).
                let mut seen = 0u8;
                while let Some(k) = a.next_key::<AnyStr<'de>>()? {
                    let k = k.0.as_deref().unwrap_or("");
                    let bit = match k {
                        "role" => 1,
                        "content" => 2,
                        "usage" => 4,
                        "stopReason" => 8,
                        "provider" => 16,
                        "model" => 32,
                        "timestamp" => 64,
                        _ => 0,
                    };
                    head.odd |= seen & bit != 0;
                    seen |= bit;
                    if k == "role" {
                        let v = a.next_value::<AnyStr<'de>>()?;
                        head.odd |= v.1;
                        head.role = v.0;
                    } else if k == "stopReason" {
                        head.stop_reason = Some(a.next_value()?);
                    } else if k == "content" {
                        // Borrowed, not decoded: a skip like any other (a user message's
                        // head holds it, [`super::turn_heads`]).
                        head.content = a.next_value()?;
                    } else if !head.read_call_field(k, &mut a)? {
                        a.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(head)
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
    /// The ids of `entries`, one after the other.
    pub ids: super::Ids,
    /// One cell per entry, set where the fused parse computed the entry's figures; None when
    /// nobody asked, or past [`super::FIGURES_MEMO_MAX`] entries (no table is kept there).
    pub figures: Option<Box<[OnceLock<MessageFigures>]>>,
    /// The assistant calls the scan read whole ([`super::CallCapture`]), in entry order.
    pub calls: Vec<super::CallCapture>,
    /// Each distinct (provider, model) of `calls`.
    pub call_models: Vec<super::CallModel>,
    /// Bytes of captured calls (records and `usage` texts), held to [`CALL_CAPTURE_MAX`].
    pub call_bytes: usize,
    /// What the history's branch walk reads of each message and compaction, when asked for
    /// ([`Scanner::capturing`]).
    pub facts: Option<super::facts::BranchFacts>,
    /// The heads of the messages of the last turns, from this parse ([`super::turn_heads`]).
    pub turns: super::turn_heads::TurnHeads,
}

/// Bytes of calls a scan keeps: past this the rest of the calls are read back when cost asks
/// for them, so a transcript of a million calls stays within its memory.
pub const CALL_CAPTURE_MAX: usize = 8 << 20;

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

pub(super) fn short_err(e: &serde_json::Error) -> String {
    let s = e.to_string();
    // serde_json appends " at line 1 column N"; the column is useful, the line is ours.
    s.replace(" at line 1 column ", " at column ")
}

/// An assistant message as [`super::tail::slim`] reads it, from the scan's parse of its line
/// (of a user message too: `slim` reads the same fields of any message, which
/// [`super::turn_heads`] keeps); None where that decode could read it otherwise (it refuses the line: a repeated field, a
/// non-string where it reads a string, a `usage` nested deep enough to pass its depth limit
/// only when parsed alone), which leaves the entry to the walk's own read.
pub(super) fn assistant_head<'a>(
    head: &'a LineHead<'_>,
) -> Option<super::facts::AssistantHead<'a>> {
    let m = &head.message;
    let odd = head.ty.1 || head.id.1 || head.parent_id.1 || head.timestamp.1 || m.odd;
    if odd || !m.present {
        return None;
    }
    let stop_reason = match m.stop_reason.map(|r| r.get()) {
        None | Some("null") => None,
        // A string without escapes is its text between the quotes.
        Some(r) if r.len() >= 2 && r.starts_with('"') && !r.contains('\\') => {
            Some(Cow::Borrowed(&r[1..r.len() - 1]))
        }
        // Else decoded as the walk's decode would (a lone surrogate: it refuses the line).
        Some(r) if r.starts_with('"') => Some(Cow::Owned(serde_json::from_str::<String>(r).ok()?)),
        Some(_) => return None,
    };
    let usage = match m.usage.map(|r| r.get()) {
        None | Some("null") => None,
        Some(u) if u.bytes().filter(|b| matches!(b, b'{' | b'[')).count() <= 64 => Some(u),
        Some(_) => return None,
    };
    Some(super::facts::AssistantHead {
        timestamp: head.timestamp.0.as_deref(),
        stop_reason,
        provider: m.provider.as_deref(),
        model: m.model.as_deref(),
        usage,
    })
}

/// Incremental line indexer: fed one line at a time, in file order.
pub(super) struct Scanner {
    out: Scan,
    line_no: u32,
    first_valid: bool,
    /// Offsets are row keys (a SQLite row's `seq`), not byte positions: a byte order mark or
    /// leading white space must not move them.
    keys: bool,
    /// When set, each line that parses cleanly leaves its envelope ([`envelope`]) in
    /// `last_envelope`, made from the parse already done.
    pub envelopes: bool,
    pub last_envelope: Option<Vec<u8>>,
    /// Set when the caller wants each entry's figures: the parse that reads the envelope
    /// computes them too, so they need no second read of the file.
    fused: Option<FusedParse>,
    figures: Vec<OnceLock<MessageFigures>>,
    /// The figures of the line being indexed, for [`Self::push_entry`].
    line_figures: Option<MessageFigures>,
    /// Set when the caller will walk the history ([`Self::capturing`]).
    facts: Option<super::facts::BranchFacts>,
    /// Rows only: the line being indexed is the whole entry, not a projection of it, so what
    /// the walk reads can be captured from it.
    pub whole: bool,
    /// The last line handed over became an entry (for [`Self::capture_row`]).
    pushed: bool,
}

impl Scanner {
    pub fn new() -> Scanner {
        Scanner {
            out: Scan {
                header: None,
                entries: Vec::new(),
                warnings: Vec::new(),
                ids: Default::default(),
                figures: None,
                calls: Vec::new(),
                call_models: Vec::new(),
                call_bytes: 0,
                facts: None,
                turns: Default::default(),
            },
            line_no: 0,
            first_valid: true,
            keys: false,
            envelopes: false,
            last_envelope: None,
            fused: None,
            figures: Vec::new(),
            line_figures: None,
            facts: None,
            whole: false,
            pushed: false,
        }
    }

    /// This scanner, also capturing what the history's walk of the branch reads of each
    /// message and compaction ([`super::facts`]), so that walk reads no entry again.
    pub fn capturing(self) -> Scanner {
        Scanner {
            facts: Some(Default::default()),
            ..self
        }
    }

    /// A scanner that also computes each entry's figures with `fused` (see [`FusedParse`]).
    pub fn with_figures(fused: FusedParse) -> Scanner {
        Scanner {
            fused: Some(fused),
            ..Scanner::new()
        }
    }

    /// A scanner whose offsets are row keys (see [`Scanner::keys`]).
    pub fn for_rows() -> Scanner {
        Scanner {
            keys: true,
            ..Scanner::new()
        }
    }

    /// A row that was not handed over (unreadable): it counts as a line, with a warning.
    pub fn skipped(&mut self, message: String) {
        self.line_no = self.line_no.saturating_add(1);
        self.pushed = false;
        self.warn(message);
    }

    pub fn finish(mut self, total_len: u64) -> Scan {
        if total_len == 0 {
            self.out.warnings.push(Warning {
                line: 0,
                message: "empty file".into(),
            });
        }
        self.out.entries.shrink_to_fit();
        self.out.ids.shrink_to_fit();
        if self.fused.is_some() {
            self.out.figures = Some(std::mem::take(&mut self.figures).into_boxed_slice());
        }
        if let Some(mut f) = self.facts.take() {
            f.shrink_to_fit();
            self.out.facts = Some(f);
        }
        self.out
    }

    /// Whether entry `i`'s id is `id`.
    fn id_is(&self, i: usize, id: &str) -> bool {
        self.out
            .entries
            .get(i)
            .is_some_and(|e| e.id.is_some() && self.out.ids.cmp_text(e.id, id).is_eq())
    }

    /// Appends an entry. Its `parentId` is linked here when it is the id of the entry before
    /// it or of that entry's parent (a chain; siblings under one parent), compared in full;
    /// otherwise it is kept for [`super::Transcript::link`].
    #[allow(clippy::too_many_arguments)]
    fn push_entry(
        &mut self,
        offset: u64,
        len: u32,
        kind: EntryKind,
        raw_type: Option<Box<str>>,
        id: Option<&str>,
        parent_id: Option<&str>,
        too_large: Option<super::TooLarge>,
    ) {
        let id = match id.map(|id| self.out.ids.push(id)) {
            Some(Some(span)) => span,
            Some(None) => {
                self.warn("ids past 4 GiB in all are not indexed".into());
                super::IdSpan::NONE
            }
            None => super::IdSpan::NONE,
        };
        let mut parent = None;
        let mut kept_parent = None;
        if let Some(pid) = parent_id {
            let last = self.out.entries.len().checked_sub(1);
            let grand = last.and_then(|l| self.out.entries[l].parent().map(|p| p as usize));
            parent = [last, grand]
                .into_iter()
                .flatten()
                .find(|&c| !pid.is_empty() && self.id_is(c, pid))
                .map(|c| c as u32);
            if parent.is_none() {
                kept_parent = Some(pid.into());
            }
        }
        let rare =
            (raw_type.is_some() || kept_parent.is_some() || too_large.is_some()).then(|| {
                Box::new(super::Rare {
                    raw_type,
                    parent_id: kept_parent,
                    too_large,
                })
            });
        self.out.entries.push(EntryMeta {
            line: self.line_no,
            offset,
            len,
            kind,
            parent_plus_one: parent.map_or(0, |p| p + 1),
            id,
            rare,
        });
        if self.fused.is_some() {
            if self.out.entries.len() > super::FIGURES_MEMO_MAX {
                // Past this no table is kept, so computing figures here would be wasted.
                self.fused = None;
                self.figures = Vec::new();
            } else {
                let cell = self.line_figures.take().map(OnceLock::from);
                self.figures.push(cell.unwrap_or_default());
            }
        }
    }

    fn warn(&mut self, message: String) {
        self.out.warnings.push(Warning {
            line: self.line_no,
            message,
        });
    }

    /// Entries indexed so far, and the kind of the newest.
    pub fn count_and_last_kind(&self) -> (usize, Option<super::EntryKind>) {
        (
            self.out.entries.len(),
            self.out.entries.last().map(|e| e.kind),
        )
    }

    /// One line without its `\n`; `offset` is its position in the file; `last` is true for a
    /// final line that had no newline.
    pub fn line(&mut self, offset: u64, mut raw: &[u8], last: bool) {
        self.line_no = self.line_no.saturating_add(1);
        self.last_envelope = None;
        self.pushed = false;
        let mut clean = true;
        let mut offset = offset;
        if offset == 0 && raw.starts_with(b"\xEF\xBB\xBF") {
            clean = false;
            self.warn("UTF-8 byte order mark ignored".into());
            raw = &raw[3..];
            if !self.keys {
                offset = 3;
            }
        }
        let trimmed = trim_ws(raw);
        if trimmed.is_empty() {
            return;
        }
        let off = if self.keys {
            offset
        } else {
            offset + (trimmed.as_ptr() as usize - raw.as_ptr() as usize) as u64
        };
        let len = trimmed.len();
        if len > u32::MAX as usize {
            self.warn("line longer than 4 GiB skipped".into());
            return;
        }
        self.line_figures = None;
        let mut lossy = None;
        let fused = match self.fused {
            Some(parse) => parse(trimmed, self.hook_is_custom()),
            None => None,
        };
        let by_fused = fused.is_some();
        let head = match fused {
            // The fused parse read every string of the line as `str`: the line is UTF-8.
            Some((head, figures)) => {
                self.line_figures = figures;
                head
            }
            None => match self.head_of(trimmed, &mut lossy, last, &mut clean) {
                Some(head) => head,
                None => return,
            },
        };
        if self.envelopes && clean && trimmed.len() == raw.len() {
            self.last_envelope = Some(envelope_of(&head));
        }
        let ty = head.ty.0.as_deref();
        if ty == Some("session") {
            if self.first_valid {
                let version = head
                    .version
                    .and_then(|v| v.0)
                    .filter(|v| *v >= 1.0 && v.fract() == 0.0)
                    .map(|v| v as u32)
                    .unwrap_or(1);
                if head.id.0.is_none() {
                    self.warn(
                        "session header has no string id; pi would treat this file as invalid"
                            .into(),
                    );
                }
                self.out.header = Some(Header {
                    line: self.line_no,
                    id: head.id.0.map(|c| c.into_owned()),
                    version,
                    timestamp: head.timestamp.0.map(|c| c.into_owned()),
                    cwd: head.cwd.0.map(|c| c.into_owned()),
                });
            } else {
                self.warn("extra session header ignored".into());
            }
            self.first_valid = false;
            return;
        }
        if self.first_valid {
            self.warn("no session header; pi would treat this file as invalid (and rewrite it); clawtop reads it as is".into());
        }
        self.first_valid = false;
        let kind = kind_of(ty, head.message.role.as_deref());
        if !head.message.present && matches!(kind, EntryKind::Message(_)) {
            self.warn("message entry without a message object".into());
        }
        let raw_type = (kind == EntryKind::Unknown).then(|| ty.unwrap_or("(no type)").into());
        self.push_entry(
            off,
            len as u32,
            kind,
            raw_type,
            head.id.0.as_deref(),
            head.parent_id.0.as_deref(),
            None,
        );
        if kind == EntryKind::Message(Role::Assistant) {
            self.capture_call(&head);
        }
        self.pushed = true;
        // A line read from repaired or non-UTF-8 bytes, or after a byte order mark, may
        // read otherwise in the walk's decode: it is left to that decode. A row's projection
        // holds too little.
        if clean && (self.whole || !self.keys) {
            self.capture_facts(kind, &head, trimmed, !by_fused);
            if !by_fused {
                let entry = (self.out.entries.len() - 1) as u32;
                self.out.turns.keep(entry, kind, &head);
            }
        }
    }

    /// Whether this scanner captures and has room for more ([`Self::capturing`]).
    pub fn wants_rows(&self) -> bool {
        self.facts.as_ref().is_some_and(|f| f.open())
    }

    /// The whole JSON of the row just indexed from its projection: captured as
    /// [`Self::line`] captures a row handed over whole (what the walk reads, and an
    /// assistant's call). The index is the projection's; a row
    /// that does not read cleanly or as the entry indexed is left to the walk's own read.
    pub fn capture_row(&mut self, row: &[u8]) {
        let Some(kind) = self
            .out
            .entries
            .last()
            .map(|e| e.kind)
            .filter(|_| self.pushed)
        else {
            return;
        };
        self.pushed = false;
        let line = trim_ws(row);
        if !self.wants_rows() || line.starts_with(b"\xEF\xBB\xBF") {
            return;
        }
        // Checked whole first: the parse of a `str` need not check each string it reads.
        let Ok(text) = simdutf8::basic::from_utf8(line) else {
            return;
        };
        let Ok(head) = serde_json::from_str::<LineHead>(text) else {
            return;
        };
        if kind_of(head.ty.0.as_deref(), head.message.role.as_deref()) != kind {
            return;
        }
        self.capture_facts(kind, &head, line, true);
        let entry = (self.out.entries.len() - 1) as u32;
        self.out.turns.keep(entry, kind, &head);
        // The projection carried no usage: the call is captured from here, as from a row
        // handed over whole, so cost reads it back no more than the walk does.
        let had = self.out.calls.last().is_some_and(|c| c.entry == entry);
        if kind == EntryKind::Message(Role::Assistant) && !had {
            self.capture_call(&head);
        }
    }

    /// Keeps what the history's branch walk reads of the entry just pushed, from `line`, its
    /// text, and `head`, the scan's parse of it (`head_read`: by the scan's own parse, which
    /// reads the fields the capture of an assistant message needs).
    fn capture_facts(
        &mut self,
        kind: EntryKind,
        head: &LineHead<'_>,
        line: &[u8],
        head_read: bool,
    ) {
        let hook_is_custom = self.hook_is_custom();
        let Some(f) = self.facts.as_mut().filter(|f| f.open()) else {
            return;
        };
        let entry = (self.out.entries.len() - 1) as u32;
        match kind {
            EntryKind::Message(Role::User) => f.user(entry, super::tail::slim_user(line)),
            EntryKind::Compaction => {
                let v = decode_value(line).ok().map(|mut v| {
                    super::rename_hook_role(&mut v, hook_is_custom);
                    v
                });
                f.compaction(entry, v, line.len());
            }
            EntryKind::Message(Role::Assistant) if head_read => {
                if let Some(a) = assistant_head(head) {
                    f.assistant(entry, &a);
                }
            }
            _ => {}
        }
    }

    /// Keeps what cost needs of the assistant entry just pushed. A row may be a projection
    /// without its usage, so there only a usage seen counts; a file's line is always whole,
    /// so there a line without usage is known to be no call.
    fn capture_call(&mut self, head: &LineHead<'_>) {
        let m = &head.message;
        if (self.keys && m.usage.is_none()) || self.out.call_bytes > CALL_CAPTURE_MAX {
            return;
        }
        let usage: Option<Box<str>> = m.usage.map(|u| u.get().into());
        // The record counts too: a million assistant lines without usage are a million records.
        self.out.call_bytes +=
            usage.as_ref().map_or(0, |u| u.len()) + std::mem::size_of::<super::CallCapture>();
        let pm = (
            m.provider.as_deref().map(Box::from),
            m.model.as_deref().map(Box::from),
        );
        let model = match self.out.call_models.iter().position(|x| *x == pm) {
            Some(i) => i,
            None => {
                self.out.call_models.push(pm);
                self.out.call_models.len() - 1
            }
        } as u32;
        let at_ms = m
            .timestamp
            .filter(|t| t.is_finite() && *t > 0.0)
            .map(|t| t as i64)
            .or_else(|| {
                let s = head.timestamp.0.as_deref()?;
                chrono::DateTime::parse_from_rfc3339(s)
                    .ok()
                    .map(|d| d.timestamp_millis())
            });
        self.out.calls.push(super::CallCapture {
            entry: (self.out.entries.len() - 1) as u32,
            usage,
            model,
            at_ms,
        });
    }

    /// pi's v3 migration renames `hookMessage` roles to `custom`; the header, when the file
    /// has one, is its first valid line, so its version is known before any entry.
    fn hook_is_custom(&self) -> bool {
        self.out.header.as_ref().map_or(1, |h| h.version) < 3
    }

    /// The envelope of a line by the scan's own parse (lenient: skipped values are only
    /// checked for syntax), repaired as JavaScript would read it; None, with a warning, for a
    /// line that is no entry. `lossy` holds the repaired text the head borrows from.
    fn head_of<'a>(
        &mut self,
        trimmed: &'a [u8],
        lossy: &'a mut Option<Vec<u8>>,
        last: bool,
        clean: &mut bool,
    ) -> Option<LineHead<'a>> {
        // The line is checked whole first: a `str` is parsed without checking each string
        // again. Only a line that is not UTF-8 is parsed as bytes (its skipped string content
        // unchecked; the text is decoded lossily later, so say here that it will change).
        let text = simdutf8::basic::from_utf8(trimmed).ok();
        let parsed = match text {
            Some(text) => serde_json::from_str::<LineHead>(text),
            None => serde_json::from_slice::<LineHead>(trimmed),
        };
        match parsed {
            Ok(h) => {
                if text.is_none() {
                    *clean = false;
                    self.warn("invalid UTF-8 replaced with U+FFFD".into());
                }
                Some(h)
            }
            Err(e)
                if {
                    *lossy = repair(trimmed);
                    lossy.is_some()
                } =>
            {
                // JavaScript parses these lines; so does clawtop (see `repair`).
                let fixed = lossy.as_deref().unwrap_or_default();
                match serde_json::from_slice::<LineHead>(fixed) {
                    Ok(h) => {
                        let what = if text.is_none() {
                            "invalid UTF-8"
                        } else {
                            "lone UTF-16 surrogate escape"
                        };
                        self.warn(format!("{what} replaced with U+FFFD"));
                        *clean = false;
                        Some(h)
                    }
                    Err(_) => {
                        self.warn(format!("skipped: not valid JSON ({})", short_err(&e)));
                        None
                    }
                }
            }
            Err(e) => {
                let msg = if last && e.is_eof() {
                    format!(
                        "skipped: last line is incomplete (truncated write?) ({})",
                        short_err(&e)
                    )
                } else if e.is_data() {
                    "skipped: not a JSON object".to_string()
                } else {
                    format!("skipped: not valid JSON ({})", short_err(&e))
                };
                self.warn(msg);
                None
            }
        }
    }
}

impl Scanner {
    /// A whole line: decoded when it is at most [`LINE_MAX`] bytes, else treated as
    /// [`Scanner::oversize_line`] so the limit is the same however the line was read.
    pub fn any_line(&mut self, offset: u64, raw: &[u8], last: bool) {
        if raw.len() > LINE_MAX {
            let mut count = StringChars::default();
            count.feed(raw);
            self.oversize_line(
                offset,
                &raw[..PREFIX_MAX],
                raw.len() as u64,
                count.chars,
                last,
            );
        } else {
            self.line(offset, raw, last);
        }
    }

    /// A line over [`LINE_MAX`] bytes, of which only `prefix` was kept: indexed from the
    /// envelope in its prefix and marked too large to decode, or skipped with a warning when
    /// the prefix does not read as an entry.
    pub fn oversize_line(
        &mut self,
        offset: u64,
        prefix: &[u8],
        len: u64,
        string_chars: u64,
        last: bool,
    ) {
        self.line_no = self.line_no.saturating_add(1);
        self.line_figures = None;
        self.pushed = false;
        let mib = len as f64 / (1024.0 * 1024.0);
        let Some(head) = prefix_head(trim_ws_start(prefix)) else {
            self.warn(format!(
                "skipped: the line is {mib:.0} MiB, over the {} MiB clawtop reads, and does not start like a JSON entry",
                LINE_MAX >> 20
            ));
            return;
        };
        if head.ty.as_deref() == Some("session") {
            self.warn(format!("skipped: a session header of {mib:.0} MiB"));
            self.first_valid = false;
            return;
        }
        if self.first_valid {
            self.warn("no session header; pi would treat this file as invalid (and rewrite it); clawtop reads it as is".into());
        }
        self.first_valid = false;
        let kind = kind_of(head.ty.as_deref(), head.role.as_deref());
        let est_tokens = crate::jsjson::ceil_div4(string_chars as usize);
        self.warn(format!(
            "entry of {mib:.0} MiB is over the {} MiB clawtop decodes: indexed from its first bytes, not shown, its tokens estimated from its size (~{est_tokens}){}",
            LINE_MAX >> 20,
            if last { "; it is the last line and has no newline" } else { "" }
        ));
        let raw_type =
            (kind == EntryKind::Unknown).then(|| head.ty.as_deref().unwrap_or("(no type)").into());
        self.push_entry(
            offset,
            u32::try_from(len).unwrap_or(u32::MAX),
            kind,
            raw_type,
            head.id.as_deref(),
            head.parent_id.as_deref(),
            Some(super::TooLarge { len, est_tokens }),
        );
    }
}

fn trim_ws_start(b: &[u8]) -> &[u8] {
    let s = b
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(b.len());
    &b[s..]
}

/// Envelope fields read from the first bytes of a line too long to parse whole.
#[derive(Default)]
struct PrefixHead {
    ty: Option<String>,
    id: Option<String>,
    parent_id: Option<String>,
    role: Option<String>,
}

/// A lenient reader of a JSON object's beginning: top-level `type`, `id`, `parentId` and
/// `message.role` seen before the prefix ends. None unless it starts like an object and
/// yields a string `type`.
fn prefix_head(b: &[u8]) -> Option<PrefixHead> {
    struct P<'a> {
        b: &'a [u8],
        i: usize,
    }
    impl P<'_> {
        fn ws(&mut self) {
            while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\r' | b'\n') {
                self.i += 1;
            }
        }
        fn peek(&self) -> Option<u8> {
            self.b.get(self.i).copied()
        }
        fn string(&mut self) -> Option<String> {
            let start = self.i;
            self.i += 1;
            while self.i < self.b.len() {
                match self.b[self.i] {
                    b'\\' => self.i += 2,
                    b'"' => {
                        self.i += 1;
                        return serde_json::from_slice(&self.b[start..self.i]).ok();
                    }
                    _ => self.i += 1,
                }
            }
            None
        }
        fn skip_value(&mut self) -> Option<()> {
            let mut depth = 0usize;
            while self.i < self.b.len() {
                match self.b[self.i] {
                    b'"' => {
                        self.string()?;
                        if depth == 0 {
                            return Some(());
                        }
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' if depth == 0 => return Some(()),
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            self.i += 1;
                            return Some(());
                        }
                    }
                    b',' if depth == 0 => return Some(()),
                    _ => {}
                }
                self.i += 1;
            }
            None
        }
        /// Key/value pairs of the object at `self.i` (just past `{`), each value handed to `f`.
        fn members(&mut self, f: &mut dyn FnMut(&str, &mut Self) -> Option<()>) -> Option<()> {
            loop {
                self.ws();
                match self.peek()? {
                    b'}' => return Some(()),
                    b',' => self.i += 1,
                    b'"' => {
                        let k = self.string()?;
                        self.ws();
                        if self.peek()? != b':' {
                            return None;
                        }
                        self.i += 1;
                        self.ws();
                        f(&k, self)?;
                    }
                    _ => return None,
                }
            }
        }
    }
    if b.first() != Some(&b'{') {
        return None;
    }
    let mut p = P { b, i: 1 };
    let mut h = PrefixHead::default();
    let _ = p.members(&mut |k, p| {
        let slot = match k {
            "type" => Some(&mut h.ty),
            "id" => Some(&mut h.id),
            "parentId" => Some(&mut h.parent_id),
            _ => None,
        };
        match (slot, p.peek()?) {
            (Some(slot), b'"') => *slot = Some(p.string()?),
            (None, b'{') if k == "message" => {
                p.i += 1;
                p.members(&mut |k, p| {
                    if k == "role" && p.peek()? == b'"' {
                        h.role = Some(p.string()?);
                        Some(())
                    } else {
                        p.skip_value()
                    }
                })?;
                p.i += 1;
            }
            _ => p.skip_value()?,
        }
        Some(())
    });
    h.ty.is_some().then_some(h)
}

/// Indexes an in-memory buffer with `sc`.
pub(super) fn scan(mut sc: Scanner, data: &[u8]) -> Scan {
    let mut pos = 0usize;
    while pos < data.len() {
        let nl = memchr::memchr(b'\n', &data[pos..]).map(|i| pos + i);
        let end = nl.unwrap_or(data.len());
        sc.any_line(pos as u64, &data[pos..end], nl.is_none());
        pos = end + 1;
    }
    sc.finish(data.len() as u64)
}

/// Lines longer than this are not held in memory: they are skipped while scanning, their
/// envelope is read from their first [`PREFIX_MAX`] bytes, and their token estimate comes
/// from a streaming count ([`StringChars`]). 16 MiB is far above any entry OpenClaw writes
/// in practice (a screenshot tool result is a few MiB) and keeps a decoded entry well inside
/// the memory budget.
pub const LINE_MAX: usize = 16 << 20;
/// How much of an over-long line is kept to read its envelope (`type`, `id`, `parentId`,
/// `message.role` come first in what pi and OpenClaw write).
pub(crate) const PREFIX_MAX: usize = 64 << 10;

/// Counts the characters inside JSON strings (keys included), streaming: the basis of the
/// estimate of an entry too large to decode (pi estimates text as characters / 4).
#[derive(Default)]
pub(crate) struct StringChars {
    in_string: bool,
    escaped: bool,
    pub chars: u64,
}

impl StringChars {
    pub fn feed(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            if self.escaped {
                self.escaped = false;
                if b[0] != b'u' {
                    self.chars += 1;
                }
                b = &b[1..];
                continue;
            }
            if !self.in_string {
                match memchr::memchr(b'"', b) {
                    Some(i) => {
                        self.in_string = true;
                        b = &b[i + 1..];
                    }
                    None => return,
                }
                continue;
            }
            // Inside a string: count UTF-8 lead bytes up to the next quote or backslash
            // (a `\uXXXX` escape counts by its hex digits, close enough for an estimate).
            let end = memchr::memchr2(b'"', b'\\', b).unwrap_or(b.len());
            self.chars += b[..end].iter().filter(|&&c| c & 0xC0 != 0x80).count() as u64;
            if end < b.len() {
                if b[end] == b'"' {
                    self.in_string = false;
                } else {
                    self.escaped = true;
                }
                b = &b[end + 1..];
            } else {
                b = &[];
            }
        }
    }
}

/// Indexes a file with bounded buffered reads, so memory stays flat however large it is:
/// lines over [`LINE_MAX`] are streamed past, never buffered whole.
pub(super) fn scan_reader(
    mut sc: Scanner,
    r: &mut impl std::io::Read,
) -> std::io::Result<(Scan, u64)> {
    // Small enough that what the kernel just copied is still in the CPU's cache when the
    // lines are parsed.
    const BLOCK: usize = 256 << 10;
    // `buf[..filled]` holds file bytes; the rest stays initialised (zeroed once, when the
    // buffer grows), so a read needs no clearing first.
    let mut buf: Vec<u8> = Vec::new();
    let mut filled = 0usize;
    let mut buf_off = 0u64; // file offset of buf[0]
    let mut total = 0u64;
    let mut searched = 0usize; // bytes of buf already known to hold no newline
    // An over-long line being skipped: its offset, first bytes, length so far, string count.
    let mut skipping: Option<(u64, Vec<u8>, u64, StringChars)> = None;
    loop {
        if buf.len() < filled + BLOCK {
            buf.resize(filled + BLOCK, 0);
        }
        let n = loop {
            match r.read(&mut buf[filled..filled + BLOCK]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        filled += n;
        total += n as u64;
        let mut start = 0usize;
        if let Some((off, prefix, len, mut count)) = skipping.take() {
            match memchr::memchr(b'\n', &buf[..filled]) {
                Some(i) => {
                    count.feed(&buf[..i]);
                    sc.oversize_line(off, &prefix, len + i as u64, count.chars, false);
                    start = i + 1;
                }
                None if n == 0 => {
                    sc.oversize_line(off, &prefix, len, count.chars, true);
                    break;
                }
                None => {
                    count.feed(&buf[..filled]);
                    let len = len + filled as u64;
                    buf_off += filled as u64;
                    filled = 0;
                    searched = 0;
                    skipping = Some((off, prefix, len, count));
                    continue;
                }
            }
        }
        let mut from = searched.max(start);
        while let Some(i) = memchr::memchr(b'\n', &buf[from..filled]) {
            let end = from + i;
            sc.any_line(buf_off + start as u64, &buf[start..end], false);
            start = end + 1;
            from = start;
        }
        if n == 0 {
            if start < filled {
                sc.any_line(buf_off + start as u64, &buf[start..filled], true);
            }
            break;
        }
        if filled - start > LINE_MAX {
            // No newline within LINE_MAX: keep the first bytes, stream past the rest.
            let prefix = buf[start..start + PREFIX_MAX].to_vec();
            let mut count = StringChars::default();
            count.feed(&buf[start..filled]);
            let len = (filled - start) as u64;
            skipping = Some((buf_off + start as u64, prefix, len, count));
            buf_off += filled as u64;
            filled = 0;
            buf.truncate(BLOCK);
            buf.shrink_to(BLOCK);
            searched = 0;
            continue;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        buf_off += start as u64;
        searched = filled;
    }
    Ok((sc.finish(total), total))
}

fn trim_ws(b: &[u8]) -> &[u8] {
    let is_ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let s = b.iter().position(|c| !is_ws(c)).unwrap_or(b.len());
    let e = b
        .iter()
        .rposition(|c| !is_ws(c))
        .map(|i| i + 1)
        .unwrap_or(s);
    &b[s..e.max(s)]
}

/// `T` parsed from `bytes`: as a `str` when the bytes are UTF-8 (checked whole, at vector
/// speed, so serde_json checks no string of it again), else as bytes with serde_json's own
/// checks. Valid UTF-8 parses the same either way: the same value, or the same error.
pub(crate) fn from_bytes<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// A value of any type, parsed and dropped (so `serde_json` checks it as `Value` would).
pub(crate) struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

pub(crate) struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_none<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Skip, A::Error> {
        while a.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Skip, A::Error> {
        while a.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

/// What a line holds under each of `names`, as [`decode_value`] would decode them (a
/// `Value`, None where absent), without building the rest: a compaction's summary is most of
/// its line, and a model or thinking-level change is read for one or two fields. None unless
/// the line decodes as it stands to a JSON object: every other value is parsed as a `Value`
/// is ([`Skip`]: its nesting limit and number range, its strings' escapes), so a
/// line read here is one `decode_value` reads without repair, and a key given twice keeps its
/// last value as the decoded object does. Anything else is left to `decode_value`.
pub(super) fn named_fields<const N: usize>(
    line: &[u8],
    names: [&str; N],
) -> Option<[Option<Value>; N]> {
    struct Fields<'n, const N: usize>(&'n [&'n str; N]);
    impl<'de, const N: usize> Visitor<'de> for Fields<'_, N> {
        type Value = [Option<Value>; N];
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut out = [const { None }; N];
            // Keys decoded, as the decoded object's are.
            while let Some(k) = a.next_key::<Cow<'de, str>>()? {
                match self.0.iter().position(|n| *n == k) {
                    Some(i) => out[i] = Some(a.next_value()?),
                    None => {
                        a.next_value::<Skip>()?;
                    }
                }
            }
            Ok(out)
        }
    }
    // As `from_bytes` reads a line: as text when it is UTF-8, else as bytes.
    fn read<'de, R: serde_json::de::Read<'de>, const N: usize>(
        mut d: serde_json::Deserializer<R>,
        names: &[&str; N],
    ) -> Option<[Option<Value>; N]> {
        let fields = de::Deserializer::deserialize_map(&mut d, Fields(names)).ok()?;
        d.end().ok()?;
        Some(fields)
    }
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => read(serde_json::Deserializer::from_str(text), &names),
        Err(_) => read(serde_json::Deserializer::from_slice(line), &names),
    }
}

/// Full decode of one line.
pub(super) fn decode_value(line: &[u8]) -> Result<Value, serde_json::Error> {
    match from_bytes::<Value>(line) {
        Ok(v) => Ok(v),
        Err(e) => match repair(line) {
            Some(fixed) => from_bytes::<Value>(&fixed),
            None => Err(e),
        },
    }
}

/// What JavaScript accepts and serde_json does not: invalid UTF-8 (decoded as U+FFFD) and
/// lone surrogate escapes such as `"\ud83d"` (OpenClaw writes them when it cuts a string at
/// 200 UTF-16 units). Both become U+FFFD, which has the same UTF-16 length, so token
/// estimates stay equal to pi's. None when the line needs no repair.
pub(super) fn repair(line: &[u8]) -> Option<Vec<u8>> {
    let text: std::borrow::Cow<str> = String::from_utf8_lossy(line);
    let b = text.as_bytes();
    let hex = |i: usize| -> Option<u32> {
        let s = std::str::from_utf8(b.get(i..i + 4)?).ok()?;
        u32::from_str_radix(s, 16).ok()
    };
    let mut out = Vec::with_capacity(b.len());
    let mut changed = matches!(text, std::borrow::Cow::Owned(_));
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            if b[i + 1] == b'u' {
                if let Some(u) = hex(i + 2) {
                    if (0xD800..0xDC00).contains(&u) {
                        let low = if b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') {
                            hex(i + 8)
                        } else {
                            None
                        };
                        if low.is_some_and(|l| (0xDC00..0xE000).contains(&l)) {
                            out.extend_from_slice(&b[i..i + 12]);
                            i += 12;
                            continue;
                        }
                        out.extend_from_slice(b"\\ufffd");
                        changed = true;
                        i += 6;
                        continue;
                    }
                    if (0xDC00..0xE000).contains(&u) {
                        out.extend_from_slice(b"\\ufffd");
                        changed = true;
                        i += 6;
                        continue;
                    }
                }
            }
            out.extend_from_slice(&b[i..i + 2]);
            i += 2;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    if changed { Some(out) } else { None }
}

/// See [`super::envelope`].
pub(super) fn envelope(raw: &[u8]) -> Option<Vec<u8>> {
    if raw.starts_with(b"\xEF\xBB\xBF") {
        return None;
    }
    let text = simdutf8::basic::from_utf8(raw).ok()?;
    let head = serde_json::from_str::<LineHead>(text).ok()?;
    Some(envelope_of(&head))
}

/// The fields of `head` that indexing reads, as a JSON object that parses to the same head.
/// Written straight into bytes: it is made for every row of a session.
fn envelope_of(head: &LineHead<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(160);
    out.push(b'{');
    let field = |out: &mut Vec<u8>, key: &str| {
        if out.len() > 1 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
    };
    let string = |out: &mut Vec<u8>, v: &str| {
        // Writing a str to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, v);
    };
    // Only a header's timestamp, cwd and version are read.
    let header = head.ty.0.as_deref() == Some("session");
    let mut strings = vec![
        ("type", &head.ty),
        ("id", &head.id),
        ("parentId", &head.parent_id),
    ];
    if header {
        strings.extend([("timestamp", &head.timestamp), ("cwd", &head.cwd)]);
    }
    for (key, v) in strings {
        if let Some(v) = v.0.as_deref() {
            field(&mut out, key);
            string(&mut out, v);
        }
    }
    if head.message.present {
        field(&mut out, "message");
        out.push(b'{');
        if let Some(r) = head.message.role.as_deref() {
            out.extend_from_slice(b"\"role\":");
            string(&mut out, r);
        }
        out.push(b'}');
    }
    if let Some(v) = head
        .version
        .as_ref()
        .and_then(|v| v.0)
        .filter(|_| header)
        .and_then(serde_json::Number::from_f64)
    {
        field(&mut out, "version");
        out.extend_from_slice(v.to_string().as_bytes());
    }
    out.push(b'}');
    out
}
