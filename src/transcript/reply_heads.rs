//! The heads of the newest assistant replies, kept by the scan from the parse that indexed
//! their lines.
//!
//! A cold `list` asks for the head ([`super::tail::slim`]) of a session's last replies three
//! times over: `used` for the measured and the newest call, the context for its model and its
//! estimate. The memo of heads ([`super::Transcript::slim`]) makes that one parse per reply,
//! but a reply is mostly its content, so that one parse cost as much again as the scan of
//! every row of a 10-row session (a tenth of a cold `list` of 2,000 sessions). The scan has
//! already read everything the head holds except the message's `timestamp` as a value, which
//! [`super::parse::MessageHead`] now keeps too; so the scan copies those few strings of each
//! reply into a ring of [`KEPT`] slots (the buffers are reused: no allocation per reply), and
//! the head of a kept reply is made from them.
//!
//! A head made here must be the head the line gives. A reply is kept only where the scan's
//! parse shows `slim` would read it the same way: a line that is a JSON object parsed whole
//! as UTF-8 text (no repair, no byte order mark), none of the fields `slim` reads repeated or
//! of another type (the flags of [`super::parse::AnyStr`] and `MessageHead::odd`), a usage
//! shallow enough for `slim`'s depth limit, and no `tokensAfter` (the scan's parse counts that
//! key without reading it). Every other reply is read from its line, as before. The tests hold a kept head to
//! `slim` on every fixture and on lines built to tell them apart.

use super::parse::LineHead;
use serde_json::{Map, Value};

/// Replies whose heads are kept: the readers ask for the newest two (the last call and the
/// one before it, in a run that used a tool), sometimes one more.
pub const KEPT: usize = 4;

/// The ring of kept heads, newest overwriting oldest.
#[derive(Default)]
pub(super) struct ReplyHeads {
    slots: Vec<Slot>,
    next: usize,
}

/// One reply's head as strings: the envelope, and the message's fields `slim` keeps.
#[derive(Default)]
struct Slot {
    entry: u32,
    ty: Option<String>,
    id: Option<String>,
    parent_id: Option<String>,
    timestamp: Option<String>,
    stop_reason: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    /// `usage` as written (JSON text).
    usage: Option<String>,
    message_timestamp: Option<Value>,
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

impl ReplyHeads {
    /// Keeps the head of assistant entry `entry`, whose line the scan parsed whole as UTF-8
    /// text into `head`, when it is one `slim` reads the same way (see the module doc);
    /// else leaves the entry to be read from its line.
    pub(super) fn keep(&mut self, entry: u32, head: &LineHead<'_>) {
        if !head.object || head.tokens_after > 0 {
            return;
        }
        let Some(a) = super::parse::assistant_head(head) else {
            return;
        };
        if self.slots.len() < KEPT {
            self.slots.push(Slot::default());
        }
        let i = self.next % self.slots.len();
        self.next = (i + 1) % KEPT;
        let s = &mut self.slots[i];
        s.entry = entry;
        set(&mut s.ty, head.ty.0.as_deref());
        set(&mut s.id, head.id.0.as_deref());
        set(&mut s.parent_id, head.parent_id.0.as_deref());
        set(&mut s.timestamp, a.timestamp);
        set(&mut s.stop_reason, a.stop_reason.as_deref());
        set(&mut s.provider, a.provider);
        set(&mut s.model, a.model);
        set(&mut s.usage, a.usage);
        s.message_timestamp
            .clone_from(&head.message.timestamp_value);
    }

    /// Whether entry `entry`'s head is kept.
    #[cfg(test)]
    pub(super) fn has(&self, entry: u32) -> bool {
        self.slots.iter().any(|s| s.entry == entry)
    }

    /// Entry `entry`'s head, as `slim` gives it of the line, when it is kept.
    pub(super) fn head(&self, entry: u32) -> Option<Value> {
        let s = self.slots.iter().find(|s| s.entry == entry)?;
        let string = |v: &Option<String>| v.clone().map(Value::String);
        // The keys in `slim`'s order, each left out where `slim` leaves it out.
        let mut m = Map::new();
        m.insert("role".into(), Value::String("assistant".into()));
        for (k, v) in [
            ("stopReason", &s.stop_reason),
            ("provider", &s.provider),
            ("model", &s.model),
        ] {
            if let Some(v) = string(v) {
                m.insert(k.into(), v);
            }
        }
        if let Some(u) = &s.usage {
            m.insert("usage".into(), serde_json::from_str(u).ok()?);
        }
        if let Some(t) = &s.message_timestamp {
            m.insert("timestamp".into(), t.clone());
        }
        let mut o = Map::new();
        for (k, v) in [
            ("type", &s.ty),
            ("id", &s.id),
            ("parentId", &s.parent_id),
            ("timestamp", &s.timestamp),
        ] {
            if let Some(v) = string(v) {
                o.insert(k.into(), v);
            }
        }
        o.insert("message".into(), Value::Object(m));
        Some(Value::Object(o))
    }
}
