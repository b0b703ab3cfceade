//! The heads of the messages of a transcript's last turns, kept by the scan from the parse
//! that indexed their lines.
//!
//! A cold `list` asks for the head ([`super::tail::slim`]) of a session's newest messages
//! several times over: `used` for the measured and the newest call, the context for its model
//! and its estimate, and, where no history capture holds them, the forecast for every user
//! message and reply of the turns it takes ([`super::tail::FORECAST_TURNS`] and two more). The
//! memo of heads ([`super::Transcript::slim`]) makes that one parse per message, but a reply
//! is mostly its content, and a SQLite row read by its projection must be fetched and
//! decompressed first: on 2,000 sessions of 10 rows that parse cost as much as the scan of
//! every row. The scan has already read everything a head holds, so it copies those few
//! strings of each user message and reply into slots whose buffers are reused, keeping the
//! messages since the last turns' first user message, and the head of a kept message is made
//! from them.
//!
//! A head made here must be the head the line gives. A message is kept only where the scan's
//! parse shows `slim` reads it the same way: a line that is a JSON object parsed whole as
//! UTF-8 text (no repair, no byte order mark), none of the fields `slim` reads repeated or of
//! another type (the flags of [`super::parse::AnyStr`] and `MessageHead::odd`), a usage
//! shallow enough for `slim`'s depth limit, and no `tokensAfter` (the scan's parse counts that
//! key without reading it). A user message's content is kept as written and decoded as `slim`
//! decodes it, when asked. Every other message is read from its line, as before. The tests
//! hold a kept head to `slim` on every fixture and on lines built to tell them apart.

use super::parse::LineHead;
use super::{EntryKind, Role};
use serde_json::{Map, Value};
use std::collections::VecDeque;

/// User messages whose turns are kept: the forecast's turns and two more, as its first read
/// of a tail takes ([`super::tail::read_limits`]), and one for the turn being written.
pub const TURNS: usize = super::tail::FORECAST_TURNS + 3;
/// Messages kept at most, whatever the turns hold (a turn of a thousand tool calls keeps
/// its newest replies only).
pub const KEPT_MAX: usize = 256;
/// A user message whose content is longer than this is not kept (read from its line).
pub const CONTENT_MAX: usize = 64 << 10;
/// Nor is a message whose other kept fields are longer than this all told (a real one's are
/// a few hundred bytes), so what is kept stays within a few MiB whatever the lines hold.
pub const FIELDS_MAX: usize = 4 << 10;

/// The kept heads, oldest first, and the recent user messages that bound them.
#[derive(Default)]
pub(super) struct TurnHeads {
    slots: VecDeque<Slot>,
    /// Slots dropped, whose buffers the next messages reuse.
    spare: Vec<Slot>,
    /// Entry indices of the last [`TURNS`] user messages, kept or not.
    users: VecDeque<u32>,
}

/// One message's head as strings: the envelope, and the message's fields `slim` keeps. Its
/// `type` is `message` (the kind of every message) and its role is `user` or `assistant`.
#[derive(Default)]
struct Slot {
    entry: u32,
    user: bool,
    id: Option<String>,
    parent_id: Option<String>,
    timestamp: Option<String>,
    stop_reason: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    /// `usage` as written (JSON text).
    usage: Option<String>,
    message_timestamp: Option<Value>,
    /// A user message's `content` as written (JSON text).
    content: Option<String>,
}

/// `dst` set to `src`, reusing its buffer.
fn set(dst: &mut Option<String>, src: Option<&str>) {
    match (src, dst.as_mut()) {
        (None, _) => *dst = None,
        (Some(s), Some(d)) => {
            d.clear();
            d.push_str(s);
        }
        (Some(s), None) => *dst = Some(s.to_string()),
    }
}

impl TurnHeads {
    /// Entry `entry` of kind `kind`, whose line the scan parsed whole as UTF-8 text into
    /// `head`: a user message or a reply is kept when `slim` reads it the same way (see the
    /// module doc), and a user message starts a turn, which may let the oldest kept go.
    pub(super) fn keep(&mut self, entry: u32, kind: EntryKind, head: &LineHead<'_>) {
        let user = match kind {
            EntryKind::Message(Role::User) => true,
            EntryKind::Message(Role::Assistant) => false,
            _ => return,
        };
        if user {
            self.users.push_back(entry);
            if self.users.len() > TURNS {
                self.users.pop_front();
            }
            let first = self.users.front().copied().unwrap_or(entry);
            while self.slots.front().is_some_and(|s| s.entry < first) {
                self.spare.extend(self.slots.pop_front());
            }
        }
        // Kept in entry order (each entry is handed over once, in order), so a lookup is a
        // binary search.
        let in_order = self.slots.back().is_none_or(|s| s.entry < entry);
        if !in_order || !head.object || head.tokens_after > 0 {
            return;
        }
        let Some(a) = super::parse::assistant_head(head) else {
            return;
        };
        let short = |v: &Value| match v {
            Value::Number(_) => true,
            Value::String(s) => s.len() <= 64,
            _ => false,
        };
        let fields = [
            head.id.0.as_deref(),
            head.parent_id.0.as_deref(),
            a.timestamp,
            a.stop_reason.as_deref(),
            a.provider,
            a.model,
            a.usage,
        ]
        .into_iter()
        .map(|f| f.map_or(0, str::len))
        .sum::<usize>();
        let message_timestamp = head.message.timestamp_value.as_ref();
        if fields > FIELDS_MAX || message_timestamp.is_some_and(|t| !short(t)) {
            return;
        }
        let content = match head.message.content.map(|c| c.get()) {
            Some(c) if user && c.len() > CONTENT_MAX => return,
            Some(c) if user => Some(c),
            _ => None,
        };
        if self.slots.len() == KEPT_MAX {
            self.spare.extend(self.slots.pop_front());
        }
        let mut s = self.spare.pop().unwrap_or_default();
        s.entry = entry;
        s.user = user;
        set(&mut s.id, head.id.0.as_deref());
        set(&mut s.parent_id, head.parent_id.0.as_deref());
        set(&mut s.timestamp, a.timestamp);
        set(&mut s.stop_reason, a.stop_reason.as_deref());
        set(&mut s.provider, a.provider);
        set(&mut s.model, a.model);
        set(&mut s.usage, a.usage);
        set(&mut s.content, content);
        s.message_timestamp
            .clone_from(&head.message.timestamp_value);
        self.slots.push_back(s);
    }

    fn slot(&self, entry: u32) -> Option<&Slot> {
        let i = self.slots.binary_search_by_key(&entry, |s| s.entry).ok()?;
        self.slots.get(i)
    }

    /// Whether entry `entry`'s head is kept.
    #[cfg(test)]
    pub(super) fn has(&self, entry: u32) -> bool {
        self.slot(entry).is_some()
    }

    /// Entry `entry`'s head, as `slim` gives it of the line, when it is kept.
    pub(super) fn head(&self, entry: u32) -> Option<Value> {
        let s = self.slot(entry)?;
        // The keys in `slim`'s order, each left out where `slim` leaves it out.
        let mut m = Map::with_capacity(7);
        let role = if s.user { "user" } else { "assistant" };
        m.insert("role".into(), Value::String(role.into()));
        put_strings(
            &mut m,
            [
                ("stopReason", &s.stop_reason),
                ("provider", &s.provider),
                ("model", &s.model),
            ],
        );
        if let Some(u) = &s.usage {
            let usage = match super::usage_text::value(u) {
                Some(v) => v,
                None => serde_json::from_str(u).ok()?,
            };
            m.insert("usage".into(), usage);
        }
        if let Some(t) = &s.message_timestamp {
            m.insert("timestamp".into(), t.clone());
        }
        // Decoded alone, as `slim` decodes it: content it cannot decode is left out.
        if let Some(c) = s
            .content
            .as_deref()
            .and_then(|c| serde_json::from_str(c).ok())
        {
            m.insert("content".into(), c);
        }
        let mut o = Map::with_capacity(5);
        o.insert("type".into(), Value::String("message".into()));
        put_strings(
            &mut o,
            [
                ("id", &s.id),
                ("parentId", &s.parent_id),
                ("timestamp", &s.timestamp),
            ],
        );
        o.insert("message".into(), Value::Object(m));
        Some(Value::Object(o))
    }
}

/// Each of `fields` that is kept, in their order, as a string; the absent ones left out.
fn put_strings(m: &mut Map<String, Value>, fields: [(&str, &Option<String>); 3]) {
    for (k, v) in fields {
        if let Some(v) = v {
            m.insert(k.into(), Value::String(v.clone()));
        }
    }
}
