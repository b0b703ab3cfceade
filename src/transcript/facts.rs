//! What the history's walk of the active branch reads of each user and assistant message and
//! each compaction, captured by the scan that indexes the transcript, so the walk reads no
//! entry a second time (issue 31: every figure of a row from one read of its transcript).
//!
//! The walk reads a message through [`super::tail::slim`] and a compaction decoded whole
//! ([`super::Transcript::decode_entry`]); what it reads of them is kept
//! ([`super::Transcript::captured`]):
//! - a user message: its `timestamp` and the start of its text ([`LEAD_MAX`] bytes of
//!   `content::plain(content).trim_start()`), which is all a reader of a user message's head
//!   tests (a prefix);
//! - an assistant message: its `timestamp`, `stopReason`, `provider`, `model` and `usage` as
//!   written (its content, the bulk of a transcript, is never read);
//! - a compaction: the entry whole (a few per transcript);
//! - a line the walk's decode refuses: that it does ([`Captured::Unreadable`]).
//!
//! A line is captured only where what the scan read is certainly what the walk's decode
//! reads: anything odd (a repaired or non-UTF-8 line, a repeated key, a non-string where a
//! string is read) leaves the entry uncaptured, and the walk reads it back as before. Kept
//! only when asked for ([`super::Transcript::open_for_history`]: `list`, for a compacted
//! session), within [`FACTS_MAX`] bytes: a `show` of a million rows keeps none.

use serde_json::Value;

/// Bytes of a user message's text kept: the start of `plain(content).trim_start()`, longer
/// than any prefix a reader tests (OpenClaw's flush prompt, `/compact`).
pub const LEAD_MAX: usize = 64;

/// Bytes of facts a transcript keeps (records, their text, the compactions' lines); the
/// entries past it are read back when the walk reaches them.
pub const FACTS_MAX: usize = 8 << 20;

/// A span of [`BranchFacts::text`]; `len == NONE` for an absent value.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

const NONE: u32 = u32::MAX;

impl Span {
    const ABSENT: Span = Span {
        start: 0,
        len: NONE,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    /// The walk's decode refuses the line.
    Unreadable,
    User,
    Assistant,
}

/// One captured message (28 bytes: a long transcript has tens of thousands).
#[derive(Debug, Clone, Copy)]
struct Step {
    entry: u32,
    what: What,
    /// `timestamp`, when it is a string.
    ts: Span,
    /// A user message's lead; an assistant's `usage` as written.
    text: Span,
    /// An assistant's (`provider`, `model`) in [`BranchFacts::models`].
    model: u16,
    /// An assistant's `stopReason` in [`BranchFacts::stops`] (`u16::MAX`: absent or null).
    stop: u16,
}

/// The captured facts of a transcript's messages and compactions, by entry.
#[derive(Debug, Default)]
pub struct BranchFacts {
    /// In entry order.
    steps: Vec<Step>,
    text: String,
    models: Vec<super::CallModel>,
    stops: Vec<Box<str>>,
    /// Each compaction decoded, in entry order; None: its decode failed.
    compactions: Vec<(u32, Option<Value>)>,
    bytes: usize,
    /// Set when [`FACTS_MAX`] was reached: nothing more is captured.
    full: bool,
}

/// What the scan read of an assistant message, for [`BranchFacts::assistant`].
pub(super) struct AssistantHead<'a> {
    pub timestamp: Option<&'a str>,
    pub stop_reason: Option<std::borrow::Cow<'a, str>>,
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    /// `usage` as written; None when absent or null.
    pub usage: Option<&'a str>,
}

/// An entry as the walk would decode it, from what the scan kept.
#[derive(Debug, Clone, Copy)]
pub enum Captured<'a> {
    /// The walk's decode refuses the entry: it is skipped.
    Unreadable,
    /// A user message: its `timestamp`, and the start of its text, at least [`LEAD_MAX`]
    /// bytes of `content::plain(content).trim_start()`.
    User {
        timestamp: Option<&'a str>,
        lead: &'a str,
    },
    /// An assistant message: what the walk's decode reads of it, as written (`usage` as its
    /// JSON text; None when absent or null).
    Assistant {
        timestamp: Option<&'a str>,
        stop_reason: Option<&'a str>,
        provider: Option<&'a str>,
        model: Option<&'a str>,
        usage: Option<&'a str>,
    },
    /// A compaction, decoded whole.
    Entry(&'a Value),
}

impl BranchFacts {
    /// Whether more may be kept.
    pub(super) fn open(&self) -> bool {
        !self.full
    }

    fn room(&mut self, more: usize) -> bool {
        if self.full || self.bytes + more > FACTS_MAX {
            self.full = true;
            return false;
        }
        self.bytes += more;
        true
    }

    fn keep(&mut self, s: Option<&str>) -> Option<Span> {
        let Some(s) = s else {
            return Some(Span::ABSENT);
        };
        let start = u32::try_from(self.text.len()).ok()?;
        let len = u32::try_from(s.len()).ok().filter(|&l| l != NONE)?;
        self.text.push_str(s);
        Some(Span { start, len })
    }

    fn push(&mut self, step: Step, text: usize) -> bool {
        let room = self.room(std::mem::size_of::<Step>() + text);
        if room {
            self.steps.push(step);
        }
        room
    }

    /// Entry `entry`, a user message whose line the walk's decode reads as `slim`.
    pub(super) fn user(&mut self, entry: u32, slim: super::tail::SlimUser) {
        use super::tail::SlimUser;
        let blank = Step {
            entry,
            what: What::Unreadable,
            ts: Span::ABSENT,
            text: Span::ABSENT,
            model: 0,
            stop: u16::MAX,
        };
        let (ts, content) = match slim {
            SlimUser::Refused => {
                self.push(blank, 0);
                return;
            }
            // Not what the index says it is: left to the walk's own read.
            SlimUser::Other => return,
            SlimUser::User { timestamp, content } => (timestamp, content),
        };
        let plain = super::content::plain(content.as_ref());
        let lead = cut(plain.trim_start(), LEAD_MAX);
        if !self.room(0) {
            return;
        }
        let mark = self.text.len();
        if let (Some(ts), Some(text)) = (self.keep(ts.as_deref()), self.keep(Some(lead))) {
            let step = Step {
                what: What::User,
                ts,
                text,
                ..blank
            };
            if self.push(step, self.text.len() - mark) {
                return;
            }
        }
        self.text.truncate(mark);
    }

    /// Entry `entry`, an assistant message whose line the walk's decode reads as `head`.
    pub(super) fn assistant(&mut self, entry: u32, head: &AssistantHead<'_>) {
        if !self.room(0) {
            return;
        }
        let pair = (head.provider.map(Box::from), head.model.map(Box::from));
        let Some(model) = intern(&mut self.models, pair) else {
            return;
        };
        let stop = match head.stop_reason.as_deref() {
            None => u16::MAX,
            Some(s) => match intern(&mut self.stops, Box::from(s)) {
                Some(i) => i,
                None => return,
            },
        };
        let mark = self.text.len();
        if let (Some(ts), Some(text)) = (self.keep(head.timestamp), self.keep(head.usage)) {
            let step = Step {
                entry,
                what: What::Assistant,
                ts,
                text,
                model,
                stop,
            };
            if self.push(step, self.text.len() - mark) {
                return;
            }
        }
        self.text.truncate(mark);
    }

    /// Entry `entry`, a compaction of `len` bytes, as the walk decodes it (None: refused).
    pub(super) fn compaction(&mut self, entry: u32, v: Option<Value>, len: usize) {
        if self.room(len + std::mem::size_of::<(u32, Option<Value>)>()) {
            self.compactions.push((entry, v));
        }
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.steps.shrink_to_fit();
        self.text.shrink_to_fit();
        self.compactions.shrink_to_fit();
    }

    fn str(&self, s: Span) -> Option<&str> {
        (s.len != NONE).then(|| &self.text[s.start as usize..(s.start + s.len) as usize])
    }

    /// Whether entry `idx` was captured.
    pub(super) fn has(&self, idx: u32) -> bool {
        self.steps.binary_search_by_key(&idx, |s| s.entry).is_ok()
            || self.compactions.binary_search_by_key(&idx, |c| c.0).is_ok()
    }

    /// Entry `idx` as the walk would decode it; None when it was not captured.
    pub(super) fn get(&self, idx: u32) -> Option<Captured<'_>> {
        if let Ok(k) = self.steps.binary_search_by_key(&idx, |s| s.entry) {
            let s = &self.steps[k];
            let timestamp = self.str(s.ts);
            return Some(match s.what {
                What::Unreadable => Captured::Unreadable,
                What::User => Captured::User {
                    timestamp,
                    lead: self.str(s.text).unwrap_or(""),
                },
                What::Assistant => {
                    let (provider, model) = match self.models.get(s.model as usize) {
                        Some((p, m)) => (p.as_deref(), m.as_deref()),
                        None => (None, None),
                    };
                    Captured::Assistant {
                        timestamp,
                        stop_reason: self.stops.get(s.stop as usize).map(|x| &**x),
                        provider,
                        model,
                        usage: self.str(s.text),
                    }
                }
            });
        }
        let k = self.compactions.binary_search_by_key(&idx, |c| c.0).ok()?;
        Some(match &self.compactions[k].1 {
            Some(v) => Captured::Entry(v),
            None => Captured::Unreadable,
        })
    }
}

/// Distinct (provider, model) pairs and stop reasons kept: a transcript has a few; one with
/// more has the rest of its replies read back (and is not searched through at length).
const INTERN_MAX: usize = 256;

/// The index of `v` in `table`, added when new; None past [`INTERN_MAX`] distinct values.
fn intern<T: PartialEq>(table: &mut Vec<T>, v: T) -> Option<u16> {
    let i = match table.iter().position(|x| *x == v) {
        Some(i) => i,
        None if table.len() < INTERN_MAX => {
            table.push(v);
            table.len() - 1
        }
        None => return None,
    };
    u16::try_from(i).ok()
}

/// The longest start of `s` of at most `max` bytes that ends on a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_is_cut_on_a_character_boundary() {
        assert_eq!(cut("abc", 64), "abc");
        let s = "é".repeat(40); // 80 bytes
        let c = cut(&s, LEAD_MAX);
        assert_eq!(c.len(), 64);
        assert!(s.starts_with(c));
        assert_eq!(cut("aé", 2), "a");
    }

    #[test]
    fn past_the_budget_nothing_more_is_kept_and_what_was_stays() {
        let mut f = BranchFacts::default();
        let slim = || {
            super::super::tail::slim_user(
                br#"{"type":"message","timestamp":"t","message":{"role":"user","content":"hi"}}"#,
            )
        };
        f.user(0, slim());
        f.bytes = FACTS_MAX - 1;
        f.user(1, slim());
        assert!(!f.open());
        assert!(matches!(f.get(0), Some(Captured::User { lead: "hi", .. })));
        assert!(f.get(1).is_none());
        f.compaction(2, None, 10);
        assert!(f.get(2).is_none());
    }
}
