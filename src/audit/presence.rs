//! Which of many identifiers occur in a sequence of texts, with OpenClaw's rule for "the
//! summary includes it" (`summaryIncludesIdentifier`): a substring, pure hex compared after
//! upper-casing both sides, anything else verbatim.
//!
//! One Aho–Corasick automaton per rule ([`super::automaton`], built in linear time), built
//! once and run over each text, instead of one substring search per identifier: a span can
//! hold 100,000 identifiers and a text 16 MB, and the cost stays proportional to the
//! identifiers plus the texts plus the matches reported. A match already seen is
//! not counted twice, and the scan stops as soon as every identifier has been found.

use super::automaton::Automaton;

pub struct Presence {
    plain: Option<(Automaton, Vec<usize>)>,
    hex: Option<(Automaton, Vec<usize>)>,
    found: Vec<bool>,
    remaining: usize,
}

impl Presence {
    /// An automaton for `ids` (values as [`super::extract`] yields them; pure hex ones are
    /// upper-case already).
    pub fn new<S: AsRef<str>>(ids: &[S]) -> Presence {
        let (mut plain, mut hex) = (Vec::new(), Vec::new());
        for (i, id) in ids.iter().enumerate() {
            if super::extract::is_pure_hex(id.as_ref()) {
                hex.push(i);
            } else {
                plain.push(i);
            }
        }
        let build = |which: Vec<usize>, upper: bool| {
            if which.is_empty() {
                return None;
            }
            let pats: Vec<std::borrow::Cow<'_, [u8]>> = which
                .iter()
                .map(|&i| {
                    let id = ids[i].as_ref();
                    if upper {
                        std::borrow::Cow::Owned(id.to_ascii_uppercase().into_bytes())
                    } else {
                        std::borrow::Cow::Borrowed(id.as_bytes())
                    }
                })
                .collect();
            Some((Automaton::new(&pats), which))
        };
        Presence {
            plain: build(plain, false),
            hex: build(hex, true),
            found: vec![false; ids.len()],
            remaining: ids.len(),
        }
    }

    pub fn all_found(&self) -> bool {
        self.remaining == 0
    }

    pub fn found(&self, i: usize) -> bool {
        self.found[i]
    }

    /// Which identifiers were found, the automata let go (a span of 600,000 identifiers holds
    /// tens of MB in them).
    pub fn into_found(self) -> Vec<bool> {
        self.found
    }

    /// Looks for the identifiers not found yet in `text`; calls `newly` with the index of each
    /// one found here for the first time.
    pub fn scan(&mut self, text: &str, mut newly: impl FnMut(usize)) {
        if self.remaining == 0 || text.is_empty() {
            return;
        }
        let found = &mut self.found;
        let remaining = &mut self.remaining;
        let mut run = |ac: &Automaton, which: &[usize], hay: &[u8], upper: bool| {
            if *remaining == 0 {
                return;
            }
            let map = |c: u8| if upper { c.to_ascii_uppercase() } else { c };
            ac.scan(hay, map, |m| {
                let i = which[m as usize];
                if !found[i] {
                    found[i] = true;
                    *remaining -= 1;
                    newly(i);
                }
                *remaining > 0
            });
        };
        if let Some((ac, which)) = &self.plain {
            run(ac, which, text.as_bytes(), false);
        }
        if let Some((ac, which)) = &self.hex {
            // JavaScript upper-cases the whole summary, and a few non-ASCII characters
            // upper-case into ASCII hex letters (U+FB00 'ﬀ' is "FF"); ASCII text is upper-cased
            // byte by byte as it is scanned, without a copy.
            if text.is_ascii() {
                run(ac, which, text.as_bytes(), true);
            } else {
                run(ac, which, text.to_uppercase().as_bytes(), false);
            }
        }
    }
}

/// Which of `ids` `text` includes, by the same rule as [`Presence`]. A summary is short and
/// checked once against a span's identifiers: looking each one up costs less than building an
/// automaton for thousands of them, as long as the work (identifiers × text) stays small; past
/// that, the automaton keeps it linear.
pub fn included<S: AsRef<str>>(ids: &[S], text: &str) -> Vec<bool> {
    const LOOKUP_WORK: usize = 1 << 22;
    if ids.len().saturating_mul(text.len()) > LOOKUP_WORK {
        let mut p = Presence::new(ids);
        p.scan(text, |_| {});
        return p.found;
    }
    let mut upper = None;
    ids.iter()
        .map(|id| {
            let id = id.as_ref();
            if super::extract::is_pure_hex(id) {
                let upper = upper.get_or_insert_with(|| {
                    // As `scan`: JavaScript upper-cases the whole text.
                    if text.is_ascii() {
                        text.to_ascii_uppercase()
                    } else {
                        text.to_uppercase()
                    }
                });
                upper.contains(&id.to_ascii_uppercase())
            } else {
                text.contains(id)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_agree_with_the_automaton() {
        let ids = [
            "/srv/app",
            "DEADBEEF12",
            "INC-123456",
            "/not/there",
            "00FFAB12",
            "db.x:5432",
            "ABCDEF0123",
        ];
        for text in [
            "moved /srv/app/x; commit deadbeef12 (ﬀ) db.x:5432",
            "00\u{fb00}ab12 and abcdef0123",
            "INC-123456 inc-123456 /SRV/APP",
            "",
        ] {
            let mut p = Presence::new(&ids);
            p.scan(text, |_| {});
            let want: Vec<bool> = (0..ids.len()).map(|i| p.found(i)).collect();
            assert_eq!(included(&ids, text), want, "{text:?}");
            // Past the work bound the automaton answers: the same.
            let big = text.repeat(1 << 15);
            let mut p = Presence::new(&ids);
            p.scan(&big, |_| {});
            let want: Vec<bool> = (0..ids.len()).map(|i| p.found(i)).collect();
            assert_eq!(included(&ids, &big), want);
        }
    }

    #[test]
    fn substring_and_hex_rules() {
        let ids = ["/srv/app", "DEADBEEF12", "INC-123456", "/not/there"];
        let mut p = Presence::new(&ids);
        let mut got = Vec::new();
        p.scan("moved /srv/app/x; commit deadbeef12 (ﬀ)", |i| got.push(i));
        p.scan("INC-123456 and INC-123456", |i| got.push(i));
        got.sort();
        assert_eq!(got, [0, 1, 2]);
        assert!(!p.found(3) && !p.all_found());
        // Verbatim for anything but pure hex.
        let mut q = Presence::new(&["INC-123456"]);
        q.scan("inc-123456", |_| panic!("case-sensitive"));
        // U+FB00 upper-cases to "FF", as in JavaScript.
        let mut r = Presence::new(&["00FFAB12"]);
        let mut hit = false;
        r.scan("00\u{fb00}ab12", |_| hit = true);
        assert!(hit);
    }
}
