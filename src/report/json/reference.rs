//! The reference [`super::pretty`] is tested against: serde_json's own serializer and its own
//! pretty layout (`PrettyFormatter`), with [`super::must_escape`]'s characters escaped as
//! well. Serializing through serde_json was the writer until issue 31 measured it: a fifth of
//! a warm `list --json`.

use super::must_escape;
use serde_json::ser::{Formatter, PrettyFormatter};
use std::io::{self, Write};

#[derive(Default)]
pub struct SafeFormatter(PrettyFormatter<'static>);

/// The layout is `PrettyFormatter`'s, call for call.
macro_rules! layout {
    ($($name:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {$(
        fn $name<W: ?Sized + Write>(&mut self, w: &mut W $(, $arg: $ty)*) -> io::Result<()> {
            self.0.$name(w $(, $arg)*)
        }
    )*};
}

impl Formatter for SafeFormatter {
    layout!(
        begin_array(),
        end_array(),
        begin_array_value(first: bool),
        end_array_value(),
        begin_object(),
        end_object(),
        begin_object_key(first: bool),
        begin_object_value(),
        end_object_value(),
    );

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
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
}
