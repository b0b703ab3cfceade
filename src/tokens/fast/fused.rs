//! The index scan's envelope and an entry's figures from one parse of its line
//! ([`crate::transcript::FusedParse`]): a compaction plan and its diagnosis sum the figures of
//! the whole context, and reading every line a second time to compute them was as costly as
//! indexing the file.
//!
//! Both halves must be exactly what their own parses give, so this parse is the stricter of
//! the two and refuses (None: the scan parses the line its own way and leaves the figures to
//! be computed later) whenever either could differ:
//! - the figures are the fast path's ([`super::figures`]): the same visitors, every value
//!   checked as `serde_json::Value` would check it, the same refusals;
//! - the envelope is the scan's [`LineHead`]: the same fields, non-strings read as absent, a
//!   `message` that is not an object read as none. The scan's parse rejects a repeated
//!   envelope field; so does this one. It also takes a JSON array as an entry (fields by
//!   position), which this one leaves to it.
//!
//! Every string is read as `str` (or as raw JSON, which `serde_json` also checks), so a line
//! this parse accepts is valid UTF-8: the scan needs no separate check.

use super::{Content, Key, Line, MaybeMsg, Msg, Skip, SkipVisitor, Str, Tag};
use crate::transcript::MessageFigures;
use crate::transcript::parse::{AnyStr, IgnoredOrNumber, LineHead, MessageHead};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// The envelope of an entry line and, for an entry that yields a message, its figures
/// (pi's rules; `hook_is_custom`: the file predates v3). None when the line needs the scan's
/// own parse (see the module docs).
pub fn head_and_figures(
    raw: &[u8],
    hook_is_custom: bool,
) -> Option<(LineHead<'_>, Option<MessageFigures>)> {
    let f: Fused = serde_json::from_slice(raw).ok()?;
    let yields = matches!(
        f.line.ty.tag(),
        Some(Tag::Message | Tag::CustomMessage | Tag::BranchSummary | Tag::Compaction)
    );
    let figures = yields.then(|| f.line.figures(hook_is_custom));
    Some((f.head, figures))
}

/// Refuses a value the scan's parse would take differently.
fn not_here<T, E: de::Error>() -> Result<T, E> {
    Err(E::custom("left to the scan's own parse"))
}

/// A string as the envelope keeps it (borrowed unless it had escapes); any other value is
/// parsed, checked and read as absent, as the scan's `AnyStr` reads it.
pub(crate) struct StrictStr<'a>(pub(crate) Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for StrictStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrictStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(StrictStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StrictStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(StrictStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(StrictStr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(StrictStr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(StrictStr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(StrictStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(StrictStr(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(StrictStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                SkipVisitor.visit_seq(a).map(|_| StrictStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                SkipVisitor.visit_map(a).map(|_| StrictStr(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl StrictStr<'_> {
    /// The value as the figures read it.
    fn as_figure(&self) -> Str {
        self.0.as_deref().map_or(Str::NotStr, Str::of)
    }
}

/// `message`: the envelope's [`MessageHead`] and the figures' [`MaybeMsg`] at once.
struct FusedMsg<'a> {
    head: MessageHead<'a>,
    msg: MaybeMsg,
}

impl<'de> Deserialize<'de> for FusedMsg<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FusedMsg<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(FusedMsg::none())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(FusedMsg::none())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(FusedMsg::none())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(FusedMsg::none())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(FusedMsg::none())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(FusedMsg::none())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(FusedMsg::none())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                SkipVisitor.visit_seq(a).map(|_| FusedMsg::none())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                // A repeated key keeps its last value in both readings.
                let mut role = None;
                let mut head = MessageHead {
                    present: true,
                    ..MessageHead::default()
                };
                let m = Msg::read_fields(
                    &mut a,
                    |a| {
                        let s: StrictStr<'de> = a.next_value()?;
                        let figure = s.as_figure();
                        role = s.0;
                        Ok(figure)
                    },
                    // The call's fields, read as the scan's own parse reads them.
                    // Strings strictly, as everything here (the line must be UTF-8 once
                    // accepted); usage is kept raw, which serde_json checks as UTF-8.
                    |k, a| {
                        match k {
                            Key::Usage => {
                                // Kept raw, but checked as every value here is: a value
                                // the decode refuses (1e400) leaves the line to the scan.
                                let raw: &'de serde_json::value::RawValue = a.next_value()?;
                                if serde_json::from_str::<Skip>(raw.get()).is_err() {
                                    return not_here();
                                }
                                head.usage = Some(raw);
                            }
                            Key::Timestamp => return head.read_call_field("timestamp", a),
                            Key::Provider => head.provider = a.next_value::<StrictStr<'de>>()?.0,
                            Key::Model => head.model = a.next_value::<StrictStr<'de>>()?.0,
                            _ => return Ok(false),
                        }
                        Ok(true)
                    },
                )?;
                head.role = role;
                Ok(FusedMsg {
                    head,
                    msg: MaybeMsg(Some(m)),
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl FusedMsg<'_> {
    fn none() -> Self {
        FusedMsg {
            head: MessageHead::default(),
            msg: MaybeMsg(None),
        }
    }
}

/// A whole entry line: an object, read for the envelope and the figures at once.
struct Fused<'a> {
    head: LineHead<'a>,
    line: Line,
}

/// Sets an envelope field once; a second occurrence is refused, as the scan's parse refuses it.
fn once<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    a: &mut A,
    seen: &mut u8,
    bit: u8,
) -> Result<T, A::Error> {
    if *seen & bit != 0 {
        return not_here();
    }
    *seen |= bit;
    a.next_value()
}

impl<'de> Deserialize<'de> for Fused<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fused<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut head = LineHead::default();
                let mut line = Line::default();
                let mut seen = 0u8;
                while let Some(k) = a.next_key::<Key>()? {
                    match k {
                        Key::Type => {
                            let s: StrictStr<'de> = once(&mut a, &mut seen, 1)?;
                            line.ty = s.as_figure();
                            head.ty = AnyStr(s.0, false);
                        }
                        Key::Id => {
                            head.id = AnyStr(once::<StrictStr, _>(&mut a, &mut seen, 2)?.0, false)
                        }
                        Key::ParentId => {
                            head.parent_id =
                                AnyStr(once::<StrictStr, _>(&mut a, &mut seen, 4)?.0, false)
                        }
                        Key::Message => {
                            let m: FusedMsg<'de> = once(&mut a, &mut seen, 8)?;
                            head.message = m.head;
                            line.message = m.msg;
                        }
                        Key::Version => {
                            head.version =
                                once::<Option<IgnoredOrNumber>, _>(&mut a, &mut seen, 16)?
                        }
                        Key::Timestamp => {
                            head.timestamp =
                                AnyStr(once::<StrictStr, _>(&mut a, &mut seen, 32)?.0, false)
                        }
                        Key::Cwd => {
                            head.cwd = AnyStr(once::<StrictStr, _>(&mut a, &mut seen, 64)?.0, false)
                        }
                        // Not envelope fields: a repeated one keeps its last value, as in the
                        // fast path.
                        Key::Content => line.content = a.next_value::<Content>()?,
                        Key::Summary => line.summary = a.next_value()?,
                        _ => {
                            a.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(Fused { head, line })
            }
        }
        // Anything but an object fails here (the scan reads an array by position).
        d.deserialize_map(V)
    }
}
