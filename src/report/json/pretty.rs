//! The serializer behind [`super::to_writer`] and [`super::to_string`]: the bytes serde_json's
//! pretty printer writes, with [`super::must_escape`]'s characters escaped as well (its tests
//! compare it with serde_json on every shape serde has), written straight into a buffer of
//! its own.
//!
//! Through serde_json, `list --json` of a host of 2,000 sessions is some two million small
//! writes: every field is a comma, a line break, an indent, a quote, its name, a quote, a
//! colon and its value, each handed to the writer on its own, and every byte of every string
//! looked up in a table one at a time. That was a fifth of a warm run (issue 31). Here a
//! field's punctuation is appended to a `Vec` in one piece, a string is tested for anything
//! to escape in one pass the compiler vectorizes, and the buffer goes to the writer in large
//! pieces. Numbers are written by serde_json's own formatter, so they read as it writes them.

use serde::ser::{self, Serialize};
use serde_json::ser::{CompactFormatter, Formatter};
use std::fmt;
use std::io::{self, Write};

/// Why a value could not be written: the writer failed, or the value cannot be JSON (a map
/// key that is not a string or a number).
#[derive(Debug)]
pub enum Error {
    Io(io::Error),
    Value(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => e.fmt(f),
            Error::Value(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::Value(msg.to_string())
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<Error> for io::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Io(e) => e,
            Error::Value(m) => io::Error::other(m),
        }
    }
}

type Result<T = ()> = std::result::Result<T, Error>;

/// serde_json's names for the structs it writes as raw text (its `raw_value` and
/// `arbitrary_precision` features).
const RAW_VALUE: &str = "$serde_json::private::RawValue";
const NUMBER: &str = "$serde_json::private::Number";

/// The buffer goes to the writer once it holds this much.
const FLUSH_AT: usize = 1 << 16;

/// A line break and the deepest indent written in one piece.
const BREAK: &[u8; 1 + 2 * 32] =
    b"\n                                                                ";

pub struct Pretty<W> {
    w: W,
    out: Vec<u8>,
    /// Depth of the array or object being written.
    level: usize,
    /// Whether the array or object just closed held anything (serde_json's `has_value`):
    /// an empty one closes on the same line.
    has_value: bool,
}

impl<W: Write> Pretty<W> {
    pub fn new(w: W) -> Self {
        Pretty {
            w,
            out: Vec::with_capacity(FLUSH_AT + 4096),
            level: 0,
            has_value: false,
        }
    }

    /// The writer, everything written handed to it.
    pub fn finish(mut self) -> io::Result<W> {
        self.w.write_all(&self.out)?;
        Ok(self.w)
    }

    fn flush_if_full(&mut self) -> Result {
        if self.out.len() >= FLUSH_AT {
            self.w.write_all(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    fn line(&mut self) {
        match BREAK.get(..1 + 2 * self.level) {
            Some(b) => self.out.extend_from_slice(b),
            None => {
                self.out.push(b'\n');
                (0..self.level).for_each(|_| self.out.extend_from_slice(b"  "));
            }
        }
    }

    fn begin(&mut self, open: u8) {
        self.level += 1;
        self.has_value = false;
        self.out.push(open);
    }

    fn end(&mut self, close: u8) {
        self.level -= 1;
        if self.has_value {
            self.line();
        }
        self.out.push(close);
    }

    /// Before an element or a key: the comma after the one before, and its line.
    fn next(&mut self, first: bool) {
        if !first {
            self.out.push(b',');
        }
        self.line();
    }

    fn string(&mut self, s: &str) {
        self.out.push(b'"');
        if s.bytes().fold(true, |plain, b| plain & plain_byte(b)) {
            self.out.extend_from_slice(s.as_bytes());
        } else {
            escape_into(&mut self.out, s);
        }
        self.out.push(b'"');
    }

    /// A number or a bool as serde_json's formatter writes it.
    fn formatted(&mut self, write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> Result {
        Ok(write(&mut self.out)?)
    }

    /// `{ "variant": ` of an enum variant written as an object of one entry.
    fn begin_variant(&mut self, variant: &str) {
        self.begin(b'{');
        self.next(true);
        self.string(variant);
        self.out.extend_from_slice(b": ");
    }

    fn end_variant(&mut self) {
        self.has_value = true;
        self.end(b'}');
    }
}

/// A byte a string holds as it is: printable ASCII but `"` and `\`.
fn plain_byte(b: u8) -> bool {
    (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'
}

/// The characters of `s` as JSON writes them inside quotes: serde_json's escapes
/// (`\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other controls as `\u00XX`) and
/// [`super::must_escape`]'s as `\uXXXX`; everything else as it is.
fn escape_into(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escaped: Option<&[u8]> = match c {
            '"' => Some(b"\\\""),
            '\\' => Some(b"\\\\"),
            '\u{8}' => Some(b"\\b"),
            '\t' => Some(b"\\t"),
            '\n' => Some(b"\\n"),
            '\u{c}' => Some(b"\\f"),
            '\r' => Some(b"\\r"),
            _ => None,
        };
        if escaped.is_none() && c >= ' ' && !super::must_escape(c) {
            continue;
        }
        out.extend_from_slice(&s.as_bytes()[start..i]);
        match escaped {
            Some(e) => out.extend_from_slice(e),
            None => {
                let n = c as u32;
                out.extend_from_slice(b"\\u");
                out.extend((0..4).rev().map(|k| HEX[(n >> (4 * k)) as usize & 0xf]));
            }
        }
        start = i + c.len_utf8();
    }
    out.extend_from_slice(&s.as_bytes()[start..]);
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum State {
    Empty,
    First,
    Rest,
}

/// An array or object being written; `variant`: it is the value of an enum variant's
/// object, which closes after it.
pub struct Compound<'a, W> {
    ser: &'a mut Pretty<W>,
    state: State,
    variant: bool,
    /// A struct serde_json writes as raw text ([`RAW_VALUE`], [`NUMBER`]).
    raw: bool,
}

impl<W: Write> Compound<'_, W> {
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.ser.next(self.state == State::First);
        self.state = State::Rest;
        value.serialize(&mut *self.ser)?;
        self.ser.has_value = true;
        self.ser.flush_if_full()
    }

    fn end_array(self) -> Result {
        if self.state != State::Empty {
            self.ser.end(b']');
        }
        if self.variant {
            self.ser.end_variant();
        }
        Ok(())
    }

    fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.ser.out.extend_from_slice(b": ");
        value.serialize(&mut *self.ser)?;
        self.ser.has_value = true;
        self.ser.flush_if_full()
    }

    fn field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result {
        if self.raw {
            return self.raw_field(key, value);
        }
        self.ser.next(self.state == State::First);
        self.state = State::Rest;
        self.ser.string(key);
        self.value(value)
    }

    /// serde_json's raw value or arbitrary-precision number: its text, as it is. Rare
    /// (serde_json's own types only), so taken through a `Value`.
    fn raw_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result {
        match value.serialize(serde_json::value::Serializer) {
            Ok(serde_json::Value::String(text)) if key == RAW_VALUE || key == NUMBER => {
                self.ser.out.extend_from_slice(text.as_bytes());
                Ok(())
            }
            _ => Err(ser::Error::custom("expected a raw JSON value")),
        }
    }

    fn end_object(self) -> Result {
        if self.raw {
            return Ok(());
        }
        if self.state != State::Empty {
            self.ser.end(b'}');
        }
        if self.variant {
            self.ser.end_variant();
        }
        Ok(())
    }
}

/// The `serialize_*` methods of bools and integers, each writing its value through
/// serde_json's formatter by way of `$via` (as it is, or quoted as a map key).
macro_rules! plain_values {
    ($via:ident) => {
        plain_values!(@ $via
            serialize_bool(bool) write_bool, serialize_i8(i8) write_i8,
            serialize_i16(i16) write_i16, serialize_i32(i32) write_i32,
            serialize_i64(i64) write_i64, serialize_i128(i128) write_i128,
            serialize_u8(u8) write_u8, serialize_u16(u16) write_u16,
            serialize_u32(u32) write_u32, serialize_u64(u64) write_u64,
            serialize_u128(u128) write_u128);
    };
    (@ $via:ident $($name:ident($ty:ty) $write:ident),*) => {$(
        fn $name(self, v: $ty) -> Result {
            self.$via(|o| CompactFormatter.$write(o, v))
        }
    )*};
}

impl<'a, W: Write> ser::Serializer for &'a mut Pretty<W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, W>;
    type SerializeTuple = Compound<'a, W>;
    type SerializeTupleStruct = Compound<'a, W>;
    type SerializeTupleVariant = Compound<'a, W>;
    type SerializeMap = Compound<'a, W>;
    type SerializeStruct = Compound<'a, W>;
    type SerializeStructVariant = Compound<'a, W>;

    plain_values!(formatted);
    /// NaN and the infinities are `null`, as serde_json writes them.
    fn serialize_f32(self, v: f32) -> Result {
        match v.is_finite() {
            true => self.formatted(|o| CompactFormatter.write_f32(o, v)),
            false => self.serialize_unit(),
        }
    }
    fn serialize_f64(self, v: f64) -> Result {
        match v.is_finite() {
            true => self.formatted(|o| CompactFormatter.write_f64(o, v)),
            false => self.serialize_unit(),
        }
    }
    fn serialize_char(self, v: char) -> Result {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result {
        self.string(v);
        Ok(())
    }
    /// An array of numbers, as serde_json writes bytes.
    fn serialize_bytes(self, v: &[u8]) -> Result {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.begin_variant(variant);
        value.serialize(&mut *self)?;
        self.end_variant();
        Ok(())
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, W>> {
        self.begin(b'[');
        let state = if len == Some(0) {
            self.end(b']');
            State::Empty
        } else {
            State::First
        };
        Ok(Compound {
            ser: self,
            state,
            variant: false,
            raw: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, W>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'a, W>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, W>> {
        self.begin_variant(variant);
        let mut c = self.serialize_seq(Some(len))?;
        c.variant = true;
        Ok(c)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, W>> {
        self.begin(b'{');
        let state = if len == Some(0) {
            self.end(b'}');
            State::Empty
        } else {
            State::First
        };
        Ok(Compound {
            ser: self,
            state,
            variant: false,
            raw: false,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, W>> {
        if name == RAW_VALUE || name == NUMBER {
            return Ok(Compound {
                ser: self,
                state: State::Empty,
                variant: false,
                raw: true,
            });
        }
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, W>> {
        self.begin_variant(variant);
        let mut c = self.serialize_map(Some(len))?;
        c.variant = true;
        Ok(c)
    }
}

/// Arrays (and the structs written as objects) take their elements (fields) alike, whichever
/// serde trait hands them over.
macro_rules! compound {
    ($($trait:ident :: $method:ident($($key:ident)?) => $each:ident, $end:ident);* $(;)?) => {$(
        impl<W: Write> ser::$trait for Compound<'_, W> {
            type Ok = ();
            type Error = Error;
            fn $method<T: ?Sized + Serialize>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result {
                self.$each($($key,)? value)
            }
            fn end(self) -> Result {
                self.$end()
            }
        }
    )*};
}

compound!(
    SerializeSeq::serialize_element() => element, end_array;
    SerializeTuple::serialize_element() => element, end_array;
    SerializeTupleStruct::serialize_field() => element, end_array;
    SerializeTupleVariant::serialize_field() => element, end_array;
    SerializeStruct::serialize_field(key) => field, end_object;
    SerializeStructVariant::serialize_field(key) => field, end_object;
);

impl<W: Write> ser::SerializeMap for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result {
        self.ser.next(self.state == State::First);
        self.state = State::Rest;
        key.serialize(MapKey { ser: self.ser })
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.value(value)
    }
    fn end(self) -> Result {
        self.end_object()
    }
}

/// A map key: a string, or a number, a bool or a char written as one, as serde_json
/// writes keys; anything else is an error.
struct MapKey<'a, W> {
    ser: &'a mut Pretty<W>,
}

impl<W: Write> MapKey<'_, W> {
    fn quoted(self, write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> Result {
        self.ser.out.push(b'"');
        write(&mut self.ser.out)?;
        self.ser.out.push(b'"');
        Ok(())
    }
}

fn key_must_be_a_string() -> Error {
    Error::Value("key must be a string".into())
}

fn float_key_must_be_finite() -> Error {
    Error::Value("float key must be finite (got NaN or +/-inf)".into())
}
impl<W: Write> ser::Serializer for MapKey<'_, W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        self.ser.string(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result {
        self.ser.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.ser.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }
    plain_values!(quoted);
    fn serialize_f32(self, v: f32) -> Result {
        if !v.is_finite() {
            return Err(float_key_must_be_finite());
        }
        self.quoted(|o| CompactFormatter.write_f32(o, v))
    }
    fn serialize_f64(self, v: f64) -> Result {
        if !v.is_finite() {
            return Err(float_key_must_be_finite());
        }
        self.quoted(|o| CompactFormatter.write_f64(o, v))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests;
