//! MessagePack by position, for what clawtop writes only to read back itself: the rows
//! cache's rows and a source's listing memory (docs/cache.md), and the print of a listing
//! that says whether it changed.
//!
//! Written with field names, every struct of a row is a map whose keys are read back as
//! strings, checked as UTF-8 and matched against the field names, one by one: a warm `list`
//! of 2,000 sessions spent a third of its reading in that, and the names were a third of the
//! file. By position, a struct is an array of its fields in the order they are declared.
//!
//! That is sound only while every field is written: a field left out of the JSON when empty
//! (`skip_serializing_if`) would shift every field after it. So the types such a file holds
//! leave a field out only through this module's predicates ([`none`], [`empty_map`]), which
//! say "leave it out" to JSON and never to [`to_vec`]. A test reads back a session row with
//! each such field empty and set (`usecase::rows_cache::tests::every_field_reads_back`).
//!
//! Not for anything another program reads: the layout follows the Rust declarations, and a
//! reader of another build reads garbage or nothing (the files carry this build's name).

use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::BTreeMap;

thread_local! {
    /// Set while [`to_vec`] writes: every field is written, none is left out.
    static WHOLE: Cell<bool> = const { Cell::new(false) };
}

/// Restores the flag however the write ends (a panic in a `Serialize` included).
struct Whole(bool);

impl Whole {
    fn begin() -> Whole {
        Whole(WHOLE.with(|w| w.replace(true)))
    }
}

impl Drop for Whole {
    fn drop(&mut self) {
        WHOLE.with(|w| w.set(self.0));
    }
}

fn whole() -> bool {
    WHOLE.with(Cell::get)
}

/// `v` by position, every field written.
pub fn to_vec<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, rmp_serde::encode::Error> {
    let _whole = Whole::begin();
    rmp_serde::to_vec(v)
}

/// [`to_vec`] into `buf`, which is emptied first (a caller packing thousands of values
/// reuses one buffer).
pub fn write_into<T: Serialize + ?Sized>(
    buf: &mut Vec<u8>,
    v: &T,
) -> Result<(), rmp_serde::encode::Error> {
    let _whole = Whole::begin();
    buf.clear();
    rmp_serde::encode::write(buf, v)
}

/// What [`to_vec`] wrote, borrowing from `bytes` where the type does.
pub fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, rmp_serde::decode::Error> {
    rmp_serde::from_slice(bytes)
}

/// The first two fields of a struct [`to_vec`] wrote, the others passed over undecoded: what
/// names a row, without reading the row.
pub fn first_two<'a, A: Deserialize<'a>, B: Deserialize<'a>>(
    bytes: &'a [u8],
) -> Result<(A, B), rmp_serde::decode::Error> {
    struct FirstTwo<A, B>(std::marker::PhantomData<(A, B)>);
    impl<'de, A: Deserialize<'de>, B: Deserialize<'de>> serde::de::Visitor<'de> for FirstTwo<A, B> {
        type Value = (A, B);
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a packed struct of two fields or more")
        }
        fn visit_seq<S: serde::de::SeqAccess<'de>>(self, mut seq: S) -> Result<(A, B), S::Error> {
            use serde::de::Error;
            let a = seq
                .next_element()?
                .ok_or_else(|| S::Error::invalid_length(0, &self))?;
            let b = seq
                .next_element()?
                .ok_or_else(|| S::Error::invalid_length(1, &self))?;
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok((a, b))
        }
    }
    let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
    serde::Deserializer::deserialize_seq(&mut de, FirstTwo(std::marker::PhantomData))
}

/// `skip_serializing_if` for an `Option`: left out of JSON when `None`, always packed.
pub fn none<T>(v: &Option<T>) -> bool {
    v.is_none() && !whole()
}

/// `skip_serializing_if` for a map: left out of JSON when empty, always packed.
pub fn empty_map<K, V>(v: &BTreeMap<K, V>) -> bool {
    v.is_empty() && !whole()
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Inner {
        a: Option<u64>,
        #[serde(default, skip_serializing_if = "super::none")]
        note: Option<String>,
        b: Option<u64>,
    }

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Outer {
        first: Option<String>,
        #[serde(default, skip_serializing_if = "super::empty_map")]
        unknown: BTreeMap<String, String>,
        inner: Option<Inner>,
        last: u64,
    }

    #[test]
    fn fields_left_out_of_json_are_packed() {
        let empty = Outer {
            inner: Some(Inner::default()),
            ..Outer::default()
        };
        let json = serde_json::to_string(&empty).unwrap();
        assert!(
            !json.contains("unknown") && !json.contains("note"),
            "{json}"
        );
        let bytes = super::to_vec(&empty).unwrap();
        assert_eq!(super::from_slice::<Outer>(&bytes).unwrap(), empty);
        let full = Outer {
            first: Some("f".into()),
            unknown: [("k".to_string(), "v".to_string())].into(),
            inner: Some(Inner {
                a: Some(1),
                note: Some("n".into()),
                b: Some(2),
            }),
            last: 7,
        };
        let bytes = super::to_vec(&full).unwrap();
        assert_eq!(super::from_slice::<Outer>(&bytes).unwrap(), full);
        let (first, unknown) =
            super::first_two::<Option<&str>, BTreeMap<String, String>>(&bytes).unwrap();
        assert_eq!((first, unknown), (Some("f"), full.unknown.clone()));
        // The flag is down again after a write.
        assert!(!serde_json::to_string(&empty).unwrap().contains("note"));
    }

    /// Plain `skip_serializing_if` would shift the fields after it: the reason for this module.
    #[test]
    fn a_plain_skip_would_shift_fields() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Plain {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            a: Option<u64>,
            b: Option<u64>,
        }
        let v = Plain {
            a: None,
            b: Some(3),
        };
        let back = super::from_slice::<Plain>(&super::to_vec(&v).unwrap());
        // By position, the one field written is taken for `a`, and `b` is missing: an error
        // here only because `b` has no default; with one, `a` would quietly take b's value
        // (tests/architecture `fields_left_out_of_json_are_packed_or_in_json_only_types`
        // keeps plain skips out of packed types).
        assert!(back.is_err(), "{back:?}");
    }
}
