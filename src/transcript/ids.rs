//! Every entry's id, held together in one buffer. OpenClaw 2026.9 names each event with a
//! UUID (36 characters); one written in its canonical lowercase form is held as its 16 bytes
//! and spelled out again when read, so a million-entry session's ids take 16 MB instead of
//! 36. Any other id (pi's 8 hex digits, anything an operator wrote) is held as written.
//! Either way an id reads back exactly as it was written, and ids order as their text does.

use std::cmp::Ordering;
use std::fmt;

/// Where an entry's id is in [`Ids`].
#[derive(Debug, Clone, Copy)]
pub(super) struct IdSpan {
    start: u32,
    /// [`NO_ID`], [`PACKED`] (16 bytes of a UUID) or the length of the text.
    len: u32,
}

const NO_ID: u32 = u32::MAX;
const PACKED: u32 = u32::MAX - 1;
const UUID_LEN: usize = 36;
/// Positions of the dashes in a canonical UUID.
const DASHES: [usize; 4] = [8, 13, 18, 23];

impl IdSpan {
    pub(super) const NONE: IdSpan = IdSpan {
        start: 0,
        len: NO_ID,
    };

    pub(super) fn is_some(&self) -> bool {
        self.len != NO_ID
    }
}

/// The ids of a transcript's entries.
#[derive(Debug, Default)]
pub(super) struct Ids(Vec<u8>);

impl Ids {
    /// Keeps `id`; None when the buffer would pass 4 GiB.
    pub(super) fn push(&mut self, id: &str) -> Option<IdSpan> {
        let start = u32::try_from(self.0.len()).ok()?;
        if let Some(bytes) = pack_uuid(id) {
            u32::try_from(self.0.len() + bytes.len()).ok()?;
            self.0.extend_from_slice(&bytes);
            return Some(IdSpan { start, len: PACKED });
        }
        let len = u32::try_from(id.len()).ok().filter(|&l| l < PACKED)?;
        u32::try_from(self.0.len() + id.len()).ok()?;
        self.0.extend_from_slice(id.as_bytes());
        Some(IdSpan { start, len })
    }

    pub(super) fn get(&self, span: IdSpan) -> Option<Id<'_>> {
        let start = span.start as usize;
        match span.len {
            NO_ID => None,
            PACKED => {
                let b: &[u8; 16] = self.0.get(start..start + 16)?.try_into().ok()?;
                Some(Id(Spelled::Uuid(spell_uuid(b))))
            }
            len => {
                let b = self.0.get(start..start + len as usize)?;
                // Written from a &str, cut at its ends: always UTF-8.
                std::str::from_utf8(b).ok().map(|s| Id(Spelled::Text(s)))
            }
        }
    }

    /// The first 8 bytes of an id's text as a number (zero-padded): orders as the text does
    /// where they differ, without spelling a packed id out.
    pub(super) fn head(&self, span: IdSpan) -> u64 {
        let start = span.start as usize;
        let mut k = [0u8; 8];
        match span.len {
            NO_ID => {}
            PACKED => {
                if let Some(b) = self.0.get(start..start + 4) {
                    for (j, byte) in b.iter().enumerate() {
                        k[2 * j] = HEX[(byte >> 4) as usize];
                        k[2 * j + 1] = HEX[(byte & 15) as usize];
                    }
                }
            }
            len => {
                let b = self.0.get(start..start + len as usize).unwrap_or(&[]);
                let n = b.len().min(8);
                k[..n].copy_from_slice(&b[..n]);
            }
        }
        u64::from_be_bytes(k)
    }

    /// Orders two ids as their texts do (no id first).
    pub(super) fn cmp(&self, a: IdSpan, b: IdSpan) -> Ordering {
        if a.len == PACKED && b.len == PACKED {
            // Lowercase hex orders as the nibbles do, and the dashes stand in the same places.
            let (a, b) = (a.start as usize, b.start as usize);
            return self.0.get(a..a + 16).cmp(&self.0.get(b..b + 16));
        }
        let (a, b) = (self.get(a), self.get(b));
        a.as_deref()
            .map(str::as_bytes)
            .cmp(&b.as_deref().map(str::as_bytes))
    }

    /// Orders the id at `span` against the text `id`.
    pub(super) fn cmp_text(&self, span: IdSpan, id: &str) -> Ordering {
        self.cmp_probe(span, &Probe::new(id))
    }

    /// Orders the id at `span` against `probe` (a search compares one probe with many ids).
    pub(super) fn cmp_probe(&self, span: IdSpan, probe: &Probe<'_>) -> Ordering {
        if let (PACKED, Some(b)) = (span.len, &probe.packed) {
            let start = span.start as usize;
            return self.0.get(start..start + 16).cmp(&Some(&b[..]));
        }
        match self.get(span) {
            None => Ordering::Less,
            Some(have) => have.as_bytes().cmp(probe.text.as_bytes()),
        }
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Each byte's value as a lowercase hex digit, or 0xFF. A table, not a `match`: ids are
/// random hex, so a branch per digit is mispredicted about half the time, and packing two
/// ids per entry of a 40,000-row session cost 5 % of a cold `list` that way (perf).
const HEX_VALUE: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 16 {
        t[HEX[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Where the 32 hex digits of a canonical UUID stand.
const DIGITS: [usize; 32] = {
    let mut at = [0; 32];
    let (mut i, mut d) = (0, 0);
    while i < UUID_LEN {
        if i != DASHES[0] && i != DASHES[1] && i != DASHES[2] && i != DASHES[3] {
            at[d] = i;
            d += 1;
        }
        i += 1;
    }
    at
};

/// An id looked up: packed once ([`pack_uuid`]), not once per id it is compared with.
pub(super) struct Probe<'a> {
    text: &'a str,
    packed: Option<[u8; 16]>,
}

impl<'a> Probe<'a> {
    pub(super) fn new(text: &'a str) -> Probe<'a> {
        Probe {
            text,
            packed: pack_uuid(text),
        }
    }
}

/// The 16 bytes of `id` when it is a UUID in canonical lowercase form (what spells back to
/// exactly `id`), else None.
fn pack_uuid(id: &str) -> Option<[u8; 16]> {
    let s: &[u8; UUID_LEN] = id.as_bytes().try_into().ok()?;
    if DASHES.iter().any(|&d| s[d] != b'-') {
        return None;
    }
    let mut out = [0u8; 16];
    // Any byte that is not a digit reads as 0xFF and leaves its high bits in `bad`.
    let mut bad = 0u8;
    for (byte, pair) in out.iter_mut().zip(DIGITS.chunks_exact(2)) {
        let (hi, lo) = (
            HEX_VALUE[s[pair[0]] as usize],
            HEX_VALUE[s[pair[1]] as usize],
        );
        bad |= hi | lo;
        *byte = hi << 4 | (lo & 15);
    }
    (bad < 16).then_some(out)
}

fn spell_uuid(b: &[u8; 16]) -> [u8; UUID_LEN] {
    let mut out = [b'-'; UUID_LEN];
    for (byte, pair) in b.iter().zip(DIGITS.chunks_exact(2)) {
        out[pair[0]] = HEX[(byte >> 4) as usize];
        out[pair[1]] = HEX[(byte & 15) as usize];
    }
    out
}

/// An entry's id as written: borrowed from the buffer, or a UUID spelled out on the stack.
/// Reads as a `str`.
#[derive(Clone, Copy)]
pub struct Id<'a>(Spelled<'a>);

#[derive(Clone, Copy)]
enum Spelled<'a> {
    Text(&'a str),
    Uuid([u8; UUID_LEN]),
}

impl<'a> Id<'a> {
    /// An id held elsewhere (a `parentId` kept as written).
    pub(super) fn text(s: &'a str) -> Id<'a> {
        Id(Spelled::Text(s))
    }
}

impl std::ops::Deref for Id<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match &self.0 {
            Spelled::Text(s) => s,
            // Only hex digits and dashes: always UTF-8.
            Spelled::Uuid(b) => std::str::from_utf8(b).unwrap_or_default(),
        }
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl PartialEq for Id<'_> {
    fn eq(&self, o: &Id<'_>) -> bool {
        **self == **o
    }
}

impl PartialEq<str> for Id<'_> {
    fn eq(&self, o: &str) -> bool {
        &**self == o
    }
}

impl PartialEq<&str> for Id<'_> {
    fn eq(&self, o: &&str) -> bool {
        &**self == *o
    }
}

impl From<Id<'_>> for Box<str> {
    fn from(id: Id<'_>) -> Box<str> {
        (*id).into()
    }
}

impl From<Id<'_>> for String {
    fn from(id: Id<'_>) -> String {
        (*id).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_reads_back_as_written_and_orders_as_its_text() {
        let written = [
            "d23fd5eb-104f-4895-97d4-898265597e9c",
            "D23FD5EB-104F-4895-97D4-898265597E9C",
            "d23fd5eb104f489597d4898265597e9c0000",
            "d23fd5eb-104f-4895-97d4-898265597e9",
            "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "d23fd5eb",
            "d23fd5eb-104f-4895-97d4-898265597e9d",
            "d23fd5eb-104f-4895-97d4-898265597e9czz",
            "g23fd5eb-104f-4895-97d4-898265597e9c",
            "",
            "é",
        ];
        let mut ids = Ids::default();
        let spans: Vec<IdSpan> = written.iter().map(|w| ids.push(w).unwrap()).collect();
        let packed = spans.iter().filter(|s| s.len == PACKED).count();
        assert_eq!(packed, 4, "the canonical lowercase UUIDs only");
        for (w, s) in written.iter().zip(&spans) {
            assert_eq!(&*ids.get(*s).unwrap(), *w);
            assert_eq!(ids.cmp_text(*s, w), Ordering::Equal);
        }
        for (a, sa) in written.iter().zip(&spans) {
            for (b, sb) in written.iter().zip(&spans) {
                assert_eq!(ids.cmp(*sa, *sb), a.as_bytes().cmp(b.as_bytes()), "{a} {b}");
                assert_eq!(ids.cmp_text(*sa, b), a.as_bytes().cmp(b.as_bytes()));
                if ids.head(*sa) != ids.head(*sb) {
                    assert_eq!(
                        ids.head(*sa).cmp(&ids.head(*sb)),
                        a.as_bytes().cmp(b.as_bytes()),
                        "{a} {b}"
                    );
                }
            }
        }
        assert!(ids.get(IdSpan::NONE).is_none());
        assert_eq!(
            ids.0.len(),
            4 * 16 + written.iter().map(|w| w.len()).sum::<usize>() - 4 * 36
        );
        // Each character of a canonical UUID changed: packed exactly when it stays canonical
        // (a dash where the dashes are, a lowercase hex digit elsewhere), and read back as written.
        let base = written[0];
        for at in 0..UUID_LEN {
            for c in ['-', '0', 'f', 'g', 'A', ' '] {
                let mut w = base.as_bytes().to_vec();
                w[at] = c as u8;
                let w = String::from_utf8(w).unwrap();
                let canonical = if DASHES.contains(&at) {
                    c == '-'
                } else {
                    c.is_ascii_hexdigit() && !c.is_ascii_uppercase()
                };
                let span = ids.push(&w).unwrap();
                assert_eq!(span.len == PACKED, canonical, "{w}");
                assert_eq!(&*ids.get(span).unwrap(), w.as_str());
            }
        }
    }
}
