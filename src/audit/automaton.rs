//! A byte-wise Aho–Corasick automaton over many distinct patterns, built in time and memory
//! linear in their total length.
//!
//! Why not the `aho-corasick` crate: its construction moves every match state ahead of the
//! others by pairwise swaps and then follows the swap cycles once per state, which is
//! quadratic when nearly every state is a match (identifiers that are prefixes of one another:
//! `/srv/p1`, `/srv/p12`, …): 200,000 such paths took 15 s, 500,000 took 105 s. Here the trie
//! is built from the sorted patterns in one pass, its edges laid out per state (CSR, sorted by
//! byte) in two more, and the failure links in one breadth-first pass; a state costs 21 bytes
//! once built (the crate's non-contiguous NFA costs about 30, and its default build copies
//! that into a second form).

const NONE: u32 = u32::MAX;
const ROOT: u32 = 0;

pub struct Automaton {
    /// The edges of state `s` are `start[s]..start[s + 1]`, sorted by byte.
    start: Vec<u32>,
    byte: Vec<u8>,
    to: Vec<u32>,
    fail: Vec<u32>,
    /// The pattern that ends at a state (the first of equal ones), or [`NONE`].
    out: Vec<u32>,
    /// The nearest state down the failure chain where a pattern ends, or [`NONE`].
    dict: Vec<u32>,
    /// Patterns equal to an earlier one: (the one kept in `out`, the twin).
    twins: Vec<(u32, u32)>,
    /// Empty patterns occur in every text.
    empty: Vec<u32>,
    /// The root's transitions, dense: the state after each byte from the root (ROOT: none).
    root: [u32; 256],
}

impl Automaton {
    /// `patterns`' indices are the values [`Automaton::scan`] reports.
    pub fn new<S: AsRef<[u8]>>(patterns: &[S]) -> Automaton {
        let pat = |i: u32| patterns[i as usize].as_ref();
        let mut order: Vec<u32> = (0..patterns.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| pat(a).cmp(pat(b)));
        // The trie in depth-first order: sorted patterns share their common prefix with the
        // previous one, so only the rest is new.
        let mut parent: Vec<u32> = vec![NONE];
        let mut edge: Vec<u8> = vec![0];
        let mut out: Vec<u32> = vec![NONE];
        let mut twins = Vec::new();
        let mut empty = Vec::new();
        let mut path: Vec<u32> = vec![ROOT];
        let mut prev: &[u8] = &[];
        for &i in &order {
            let p = pat(i);
            if p.is_empty() {
                empty.push(i);
                continue;
            }
            let common = prev.iter().zip(p).take_while(|(a, b)| a == b).count();
            path.truncate(common + 1);
            for &b in &p[common..] {
                let id = parent.len() as u32;
                parent.push(*path.last().expect("the root is on the path"));
                edge.push(b);
                out.push(NONE);
                path.push(id);
            }
            let end = *path.last().expect("non-empty pattern");
            if out[end as usize] == NONE {
                out[end as usize] = i;
            } else {
                twins.push((out[end as usize], i));
            }
            prev = p;
        }
        drop(path);
        drop(order);
        let n = parent.len();
        // Edges per state: children were created in increasing byte order.
        let mut start = vec![0u32; n + 1];
        for &p in &parent[1..] {
            start[p as usize + 1] += 1;
        }
        for s in 0..n {
            start[s + 1] += start[s];
        }
        let mut byte = vec![0u8; n - 1];
        let mut to = vec![0u32; n - 1];
        {
            let mut next = start.clone();
            for c in 1..n {
                let p = parent[c] as usize;
                let k = next[p] as usize;
                byte[k] = edge[c];
                to[k] = c as u32;
                next[p] += 1;
            }
        }
        drop(parent);
        drop(edge);
        let mut a = Automaton {
            start,
            byte,
            to,
            fail: vec![ROOT; n],
            out,
            dict: vec![NONE; n],
            twins,
            empty,
            root: [ROOT; 256],
        };
        for k in a.edges(ROOT) {
            a.root[a.byte[k] as usize] = a.to[k];
        }
        // Failure links, breadth first (a state's link is shallower than the state).
        let mut queue: Vec<u32> = a.edges(ROOT).map(|k| a.to[k]).collect();
        let mut head = 0;
        while head < queue.len() {
            let u = queue[head];
            head += 1;
            for k in a.edges(u) {
                let (b, v) = (a.byte[k], a.to[k]);
                let mut f = a.fail[u as usize];
                let target = loop {
                    if let Some(t) = a.goto(f, b) {
                        break t;
                    }
                    if f == ROOT {
                        break ROOT;
                    }
                    f = a.fail[f as usize];
                };
                a.fail[v as usize] = target;
                a.dict[v as usize] = if a.out[target as usize] != NONE {
                    target
                } else {
                    a.dict[target as usize]
                };
                queue.push(v);
            }
        }
        a.twins.sort_unstable();
        a
    }

    /// States of the trie (the root included).
    pub fn states(&self) -> usize {
        self.fail.len()
    }

    fn edges(&self, s: u32) -> std::ops::Range<usize> {
        self.start[s as usize] as usize..self.start[s as usize + 1] as usize
    }

    fn goto(&self, s: u32, b: u8) -> Option<u32> {
        if s == ROOT {
            let t = self.root[b as usize];
            return (t != ROOT).then_some(t);
        }
        let r = self.edges(s);
        let bytes = &self.byte[r.clone()];
        bytes.binary_search(&b).ok().map(|k| self.to[r.start + k])
    }

    /// Calls `hit` with the index of every pattern occurring in `text` (bytes mapped by
    /// `map` first, e.g. upper-cased), as often as it occurs; `hit` returns false to stop.
    pub fn scan(&self, text: &[u8], map: impl Fn(u8) -> u8, mut hit: impl FnMut(u32) -> bool) {
        let mut report = |i: u32| -> bool {
            if !hit(i) {
                return false;
            }
            let from = self.twins.partition_point(|&(k, _)| k < i);
            for &(_, twin) in self.twins[from..].iter().take_while(|&&(k, _)| k == i) {
                if !hit(twin) {
                    return false;
                }
            }
            true
        };
        if !text.is_empty() {
            for &i in &self.empty {
                if !report(i) {
                    return;
                }
            }
        }
        let mut s = ROOT;
        let mut bytes = text.iter();
        while let Some(&c) = bytes.next() {
            let mut c = map(c);
            if s == ROOT {
                // Most of a text starts no pattern: at the root, one table lookup a byte,
                // and nothing else, until a byte that does (the root reports nothing).
                loop {
                    let t = self.root[c as usize];
                    if t != ROOT {
                        break;
                    }
                    match bytes.next() {
                        Some(&next) => c = map(next),
                        None => return,
                    }
                }
            }
            s = loop {
                if let Some(t) = self.goto(s, c) {
                    break t;
                }
                if s == ROOT {
                    break ROOT;
                }
                s = self.fail[s as usize];
            };
            let mut t = if self.out[s as usize] != NONE {
                s
            } else {
                self.dict[s as usize]
            };
            while t != NONE {
                if !report(self.out[t as usize]) {
                    return;
                }
                t = self.dict[t as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(pats: &[&str], text: &str) -> Vec<u32> {
        let mut v = Vec::new();
        for end in 1..=text.len() {
            for (i, p) in pats.iter().enumerate() {
                if !p.is_empty() && text.as_bytes()[..end].ends_with(p.as_bytes()) {
                    v.push(i as u32);
                }
            }
        }
        v.sort_unstable();
        v
    }

    fn all(a: &Automaton, text: &str) -> Vec<u32> {
        let mut v = Vec::new();
        a.scan(
            text.as_bytes(),
            |c| c,
            |i| {
                v.push(i);
                true
            },
        );
        v.sort_unstable();
        v
    }

    #[test]
    fn finds_every_occurrence_as_the_naive_search() {
        let pats = [
            "he",
            "she",
            "his",
            "hers",
            "/srv/p1",
            "/srv/p12",
            "/srv/p123",
            "p12",
            "2",
            "ab",
            "b",
            "abab",
            "he",
        ];
        for text in [
            "ushers",
            "/srv/p1234 and /srv/p12",
            "abababab",
            "",
            "hishe",
            "xyz",
            // Long runs that start no pattern (the root's fast path), then a hit at the very
            // end, at the very start, and one that fails back to the root mid-pattern.
            "zzzzzzzzzzzzzzzzzzzzzzzzzzzzb",
            "bzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
            "zzzz/srv/pzzzz/srv/p12zzzzhzzhe",
        ] {
            assert_eq!(
                all(&Automaton::new(&pats), text),
                naive(&pats, text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn stops_when_told() {
        let a = Automaton::new(&["a"]);
        let mut n = 0;
        a.scan(
            b"aaaa",
            |c| c,
            |_| {
                n += 1;
                n < 2
            },
        );
        assert_eq!(n, 2);
    }

    #[test]
    fn maps_bytes_before_matching() {
        let a = Automaton::new(&["DEADBEEF"]);
        assert_eq!(
            {
                let mut v = Vec::new();
                a.scan(
                    b"x deadbeef",
                    |c| c.to_ascii_uppercase(),
                    |i| {
                        v.push(i);
                        true
                    },
                );
                v
            },
            [0]
        );
    }

    /// Issue 33 item 8: 200,000 paths that are prefixes of one another (nearly every state
    /// a match) build in linear time (`bench/run.sh`: the audit of such a summary) into at
    /// most one state per pattern byte, and all are found.
    #[test]
    fn nested_prefixes_build_one_state_per_byte_and_are_all_found() {
        let pats: Vec<String> = (0..200_000).map(|k| format!("/srv/p{k}")).collect();
        let a = Automaton::new(&pats);
        let bytes: usize = pats.iter().map(String::len).sum();
        assert!(
            a.states() <= bytes + 1,
            "{} states for {bytes} bytes",
            a.states()
        );
        let text = pats.join(" ");
        let mut found = vec![false; pats.len()];
        a.scan(
            text.as_bytes(),
            |c| c,
            |i| {
                found[i as usize] = true;
                true
            },
        );
        assert!(found.iter().all(|&f| f));
    }

    #[test]
    fn no_pattern_matches_nothing() {
        let a = Automaton::new::<&str>(&[]);
        assert!(all(&a, "anything").is_empty());
    }
}
