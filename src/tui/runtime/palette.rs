//! The 16-colour palette on terminals that lack 256 colours.
//!
//! The theme only uses the 16 named colours, but crossterm writes every named colour in its
//! 256-colour form (`ESC[38;5;1m` for red). `TERM=xterm`, `linux`, `screen`, `vt220`... do
//! not promise those sequences (the Linux console ignores them), so on such a terminal the
//! bytes of each frame pass through [`Sgr16`], which rewrites `38;5;N` / `48;5;N` with N < 16
//! into the classic `30–37`/`90–97` and `40–47`/`100–107` codes. Frames are buffered until
//! `flush` (ratatui flushes once per draw), so no escape sequence is ever split.

use std::io::{self, Write};

/// Whether the terminal described by `TERM` / `COLORTERM` understands `38;5;N`.
pub fn has_256_colours(term: Option<&str>, colorterm: Option<&str>) -> bool {
    if colorterm.is_some_and(|c| matches!(c, "truecolor" | "24bit")) {
        return true;
    }
    term.is_some_and(|t| t.contains("256color") || t.contains("direct") || t == "xterm-kitty")
}

/// `has_256_colours` for this process.
pub fn from_env() -> bool {
    has_256_colours(
        std::env::var("TERM").ok().as_deref(),
        std::env::var("COLORTERM").ok().as_deref(),
    )
}

/// A writer that buffers a frame and writes it with 16-colour SGR codes (when `enabled`;
/// otherwise bytes pass straight through).
pub struct Sgr16<W: Write> {
    inner: W,
    buf: Vec<u8>,
    enabled: bool,
}

impl<W: Write> Sgr16<W> {
    pub fn new(inner: W, enabled: bool) -> Sgr16<W> {
        Sgr16 {
            inner,
            buf: Vec::new(),
            enabled,
        }
    }
}

impl<W: Write> Write for Sgr16<W> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if !self.enabled {
            return self.inner.write(b);
        }
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        if !self.enabled {
            return self.inner.flush();
        }
        let out = rewrite(&self.buf);
        self.buf.clear();
        self.inner.write_all(&out)?;
        self.inner.flush()
    }
}

/// Rewrites the 256-colour forms of the 16 basic colours in every `CSI … m` sequence.
pub fn rewrite(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == 0x1b && input.get(i + 1) == Some(&b'[') {
            // Parameters: digits and ';' up to the final byte.
            let start = i + 2;
            let mut j = start;
            while j < input.len() && (input[j].is_ascii_digit() || input[j] == b';') {
                j += 1;
            }
            if j < input.len() && input[j] == b'm' {
                let params = std::str::from_utf8(&input[start..j]).unwrap_or("");
                out.extend_from_slice(b"\x1b[");
                out.extend_from_slice(sgr_params(params).as_bytes());
                out.push(b'm');
                i = j + 1;
                continue;
            }
        }
        out.push(input[i]);
        i += 1;
    }
    out
}

fn sgr_params(params: &str) -> String {
    let p: Vec<&str> = params.split(';').collect();
    let mut out: Vec<String> = Vec::with_capacity(p.len());
    let mut k = 0;
    while k < p.len() {
        if (p[k] == "38" || p[k] == "48") && p.get(k + 1) == Some(&"5") {
            if let Some(n) = p.get(k + 2).and_then(|n| n.parse::<u16>().ok()) {
                if n < 16 {
                    let base = if p[k] == "38" { 30 } else { 40 };
                    out.push(if n < 8 { base + n } else { base + 60 + n - 8 }.to_string());
                    k += 3;
                    continue;
                }
            }
        }
        out.push(p[k].to_string());
        k += 1;
    }
    out.join(";")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_basic_colours_only() {
        let s = b"a\x1b[38;5;1mred\x1b[48;5;11;1mbg\x1b[38;5;200mx\x1b[0m\x1b[2J";
        let r = String::from_utf8(rewrite(s)).unwrap();
        assert_eq!(r, "a\x1b[31mred\x1b[103;1mbg\x1b[38;5;200mx\x1b[0m\x1b[2J");
    }

    #[test]
    fn frames_pass_through_the_writer() {
        let mut w = Sgr16::new(Vec::new(), true);
        w.write_all(b"\x1b[38;5;").unwrap();
        w.write_all(b"9mX").unwrap();
        w.flush().unwrap();
        assert_eq!(w.inner, b"\x1b[91mX");
        let mut w = Sgr16::new(Vec::new(), false);
        w.write_all(b"\x1b[38;5;9m").unwrap();
        assert_eq!(w.inner, b"\x1b[38;5;9m");
    }

    #[test]
    fn terms() {
        assert!(!has_256_colours(Some("xterm"), None));
        assert!(!has_256_colours(Some("linux"), None));
        assert!(!has_256_colours(None, None));
        assert!(has_256_colours(Some("xterm-256color"), None));
        assert!(has_256_colours(Some("xterm"), Some("truecolor")));
    }
}
