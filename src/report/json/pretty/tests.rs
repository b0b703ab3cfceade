//! The serializer against serde_json's own, on the same formatter: every value, the same
//! bytes (or the same refusal).

use super::Pretty;
use crate::report::json::reference::SafeFormatter;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn serde_jsons<T: Serialize>(v: &T) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, SafeFormatter::default());
    v.serialize(&mut ser).ok()?;
    Some(out)
}

fn ours<T: Serialize>(v: &T) -> Option<Vec<u8>> {
    let mut ser = Pretty::new(Vec::new());
    v.serialize(&mut ser).ok()?;
    ser.finish().ok()
}

#[track_caller]
fn same<T: Serialize>(v: &T) {
    let want = serde_jsons(v);
    let got = ours(v);
    assert_eq!(
        got.as_deref().map(String::from_utf8_lossy),
        want.as_deref().map(String::from_utf8_lossy)
    );
}

/// Strings with every kind of byte, at every offset around the chunk the search tests whole.
#[test]
fn strings_with_escapes_anywhere() {
    let specials = [
        "\"", "\\", "\u{0}", "\u{8}", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{1b}", "\u{1f}",
        "\u{7f}", "\u{85}", "\u{9b}", "é", "\u{202e}", "\u{200b}", "\u{feff}", "😀", "/", " ",
    ];
    for len in [0, 1, 15, 31, 32, 33, 63, 64, 65, 100] {
        for sp in specials {
            for at in [0, len / 2, len] {
                let mut s: String = "a".repeat(len);
                s.insert_str(at, sp);
                same(&s);
                same(&json!({ s.clone(): [s.clone(), {"k": s}] }));
            }
        }
    }
    let every_char: String = (0u32..0x3000).filter_map(char::from_u32).collect();
    same(&every_char);
}

#[derive(Serialize)]
enum Shapes {
    Unit,
    Newtype(u8),
    Tuple(i32, String),
    EmptyTuple(),
    Struct { a: Option<f64>, b: Vec<u8> },
    EmptyStruct {},
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct Newtype(String);

#[derive(Serialize)]
struct Tuple(u8, (), Unit);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Everything {
    shapes: Vec<Shapes>,
    numbers: (i8, i16, i32, i64, i128, u8, u16, u32, u64, u128),
    floats: Vec<f64>,
    small: Vec<f32>,
    chars: Vec<char>,
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    empty: (Vec<u8>, BTreeMap<String, u8>, Option<u8>),
    int_keys: BTreeMap<i64, &'static str>,
    bool_keys: BTreeMap<bool, u8>,
    char_keys: BTreeMap<char, u8>,
    unit: Unit,
    newtype: Newtype,
    tuple: Tuple,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    raw: Box<serde_json::value::RawValue>,
}

#[test]
fn every_shape_serde_has() {
    let v = Everything {
        shapes: vec![
            Shapes::Unit,
            Shapes::Newtype(7),
            Shapes::Tuple(-1, "x\ny".into()),
            Shapes::EmptyTuple(),
            Shapes::Struct {
                a: Some(f64::NAN),
                b: vec![],
            },
            Shapes::Struct {
                a: Some(1.5e300),
                b: vec![1, 2],
            },
            Shapes::EmptyStruct {},
        ],
        numbers: (
            i8::MIN,
            i16::MIN,
            i32::MIN,
            i64::MIN,
            i128::MIN,
            255,
            65535,
            u32::MAX,
            u64::MAX,
            u128::MAX,
        ),
        floats: vec![
            0.0,
            -0.0,
            0.1,
            1e-7,
            123456789.125,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ],
        small: vec![0.1, f32::NAN, 3.0],
        chars: vec!['a', '"', '\u{1}', '\u{9f}', '😀'],
        bytes: vec![0, 1, 255],
        empty: (vec![], BTreeMap::new(), None),
        int_keys: [(-3, "minus"), (0, "zero"), (i64::MAX, "max")]
            .into_iter()
            .collect(),
        bool_keys: [(true, 1), (false, 0)].into_iter().collect(),
        char_keys: [('\n', 1), ('k', 2)].into_iter().collect(),
        unit: Unit,
        newtype: Newtype("\u{202e}evil".into()),
        tuple: Tuple(1, (), Unit),
        skipped: None,
        raw: serde_json::value::RawValue::from_string(r#"{ "raw" : [1,2] }"#.into()).unwrap(),
    };
    same(&v);
}

#[test]
fn keys_json_cannot_write_are_refused_alike() {
    let mut m = std::collections::HashMap::new();
    m.insert(vec![1u8], 1);
    assert!(ours(&m).is_none() && serde_jsons(&m).is_none());
    let mut f = BTreeMap::new();
    f.insert(Newtype("k".into()), 1);
    same(&f);
    let mut unit = BTreeMap::new();
    unit.insert((), 1);
    assert!(ours(&unit).is_none() && serde_jsons(&unit).is_none());
}

fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// Text of up to 40 characters drawn from awkward ones, from `n`.
fn text(n: u64) -> String {
    let pool = [
        'a', 'Z', ' ', '"', '\\', '\n', '\u{1}', '\u{7f}', 'é', '\u{9b}', '\u{2066}', '😀',
    ];
    (0..n % 40)
        .map(|i| pool[((n >> (i % 50)) as usize + i as usize) % pool.len()])
        .collect()
}

/// Deterministic pseudo-random JSON values, deep and wide, with awkward strings.
fn value(seed: &mut u64, depth: u32) -> Value {
    match next(seed) % if depth == 0 { 5 } else { 7 } {
        0 => Value::Null,
        1 => Value::Bool(next(seed) % 2 == 0),
        2 => json!(next(seed) as i64),
        3 => json!(f64::from_bits(next(seed) % (0x7ff0 << 48))),
        4 => Value::String(text(next(seed))),
        5 => Value::Array(
            (0..next(seed) % 5)
                .map(|_| value(seed, depth - 1))
                .collect(),
        ),
        _ => {
            let n = next(seed) % 5;
            let mut m = serde_json::Map::new();
            for _ in 0..n {
                let k = text(next(seed));
                m.insert(k, value(seed, depth - 1));
            }
            Value::Object(m)
        }
    }
}

#[test]
fn random_values() {
    let mut seed = 0x9e3779b97f4a7c15;
    for _ in 0..2000 {
        let v = value(&mut seed, 6);
        same(&v);
    }
}

/// The writer's error keeps the writer's own error, kind and all.
#[test]
fn a_failed_write_is_the_writers_error() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = crate::report::json::to_writer(&json!({"a": "b"}), Full).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
}
