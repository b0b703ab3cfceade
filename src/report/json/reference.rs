//! The reference [`super::pretty`] is tested against: serde_json's own serializer, with a
//! formatter giving serde_json's pretty layout and [`super::must_escape`]'s escapes. This was
//! the writer until issue 31 measured it: a fifth of a warm `list --json`.

use super::must_escape;
use serde_json::ser::Formatter;
use std::io::{self, Write};

/// serde_json's pretty layout (2-space indent, `": "`, empty `[]` and `{}`), each line's
/// break and indent written in one piece rather than two bytes a level: `list --json` of a
/// host of thousands is megabytes of such lines.
#[derive(Default)]
pub struct SafeFormatter {
    level: usize,
    has_value: bool,
}

/// A line break and the deepest indent written in one piece.
const BREAK: &[u8; 1 + 2 * 32] =
    b"\n                                                                ";

fn line<W: ?Sized + Write>(w: &mut W, level: usize) -> io::Result<()> {
    match BREAK.get(..1 + 2 * level) {
        Some(b) => w.write_all(b),
        None => {
            w.write_all(b"\n")?;
            (0..level).try_for_each(|_| w.write_all(b"  "))
        }
    }
}

impl Formatter for SafeFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Nearly every string is printable ASCII: one pass that vectorizes, then one write.
        if fragment.bytes().all(|b| b < 0x7f) {
            return w.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if must_escape(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                write!(w, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            line(w, self.level)?;
        }
        w.write_all(b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        line(w, self.level)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            line(w, self.level)?;
        }
        w.write_all(b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        line(w, self.level)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}
