//! Append one JSONL entry to a transcript (docs/commit-protocol.md §2, §5): under
//! `<transcript>.lock`, only if the file is still exactly what the preview saw (length and last
//! entry id), in a single write on an O_APPEND fd, fsynced; on any failure the file is truncated
//! back to its previous length.
//! [`append_line_held`] keeps the lock after the append so that a later step (the store
//! write) can still undo it before anyone else may append.

use rustix::fs::OFlags;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::jstext::{self, Kind};
use super::lock::{self, LockGuard, LockOptions};
use super::{CommitError, test_step};

/// What the preview was computed from. Capture it with [`Expect::capture`] when the
/// plan is made; the commit refuses if the file differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// File length in bytes.
    pub len: u64,
    /// `id` of the last non-blank line that parses as a JSON object (`None` when that
    /// line has no string `id`, e.g. a v1 entry, or when there is no such line). Lines
    /// that are not valid JSON (a half-written tail) are skipped, as pi skips them.
    pub last_entry_id: Option<String>,
}

impl Expect {
    /// Current length and last entry id of `path`, reading only the tail.
    pub fn capture(path: &Path) -> Result<Expect, CommitError> {
        let file = crate::regular_file::open(path)
            .map_err(|e| CommitError::io(path, "open transcript", e))?;
        let len = file
            .metadata()
            .map_err(|e| CommitError::io(path, "stat transcript", e))?
            .len();
        let last_entry_id = last_entry_id(&file, len, path)?;
        Ok(Expect { len, last_entry_id })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendOutcome {
    /// Byte offset where the new bytes start (the previous length).
    pub offset: u64,
    /// Bytes written (the line, its `\n`, and a leading `\n` if the file lacked one).
    pub bytes_written: u64,
    /// File length after the append.
    pub new_len: u64,
}

/// Chunk size for reading the tail backwards.
const TAIL_CHUNK: u64 = 64 * 1024;
/// Most tail bytes we examine to find the last entry (a single line larger than this
/// means we cannot verify cheaply, so we refuse rather than guess).
const TAIL_BUDGET: u64 = 64 * 1024 * 1024;

/// Append `line` (one JSON object, no newline) to the transcript at `path` with the
/// default transcript lock rules ([`LockOptions::transcript`]).
pub fn append_line(
    path: &Path,
    expected: &Expect,
    line: &[u8],
) -> Result<AppendOutcome, CommitError> {
    append_line_with(path, expected, line, &LockOptions::transcript())
}

/// [`append_line`] with explicit lock options.
pub fn append_line_with(
    path: &Path,
    expected: &Expect,
    line: &[u8],
    lock_opts: &LockOptions,
) -> Result<AppendOutcome, CommitError> {
    Ok(append_line_held(path, expected, line, lock_opts)?.keep())
}

/// An append that is on disk while `<transcript>.lock` is still held: the caller decides
/// whether it stays ([`HeldAppend::keep`]) or goes ([`HeldAppend::undo`]) before anyone
/// else may write to the transcript. Dropping it keeps the line and releases the lock.
#[derive(Debug)]
pub struct HeldAppend {
    path: PathBuf,
    outcome: AppendOutcome,
    /// Exactly the bytes written at `outcome.offset`.
    bytes: Vec<u8>,
    guard: Option<LockGuard>,
}

impl HeldAppend {
    pub fn outcome(&self) -> &AppendOutcome {
        &self.outcome
    }

    /// The line stays; the lock is released.
    pub fn keep(mut self) -> AppendOutcome {
        self.release();
        self.outcome.clone()
    }

    /// Remove the appended bytes again, still under the lock, if and only if they are
    /// provably ours: the file is exactly as long as after our write and its last bytes, at
    /// the offset we wrote them, are the ones we wrote. Returns whether it was undone.
    /// Then the lock is released.
    pub fn undo(mut self) -> bool {
        let undone =
            truncate_if_ours(&self.path, self.outcome.offset, &self.bytes).unwrap_or(false);
        self.release();
        undone
    }

    fn release(&mut self) {
        if let Some(g) = self.guard.take() {
            // A leftover lock names our (soon dead) pid, which the next run reclaims.
            if let Err(e) = g.release() {
                tracing::warn!("transcript lock not released: {e}");
            }
        }
    }
}

impl Drop for HeldAppend {
    fn drop(&mut self) {
        self.release();
    }
}

/// Truncate `path` back to `offset` when it ends with exactly `bytes` at `offset`.
pub(crate) fn truncate_if_ours(path: &Path, offset: u64, bytes: &[u8]) -> std::io::Result<bool> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK).bits() as i32)
        .open(path)?;
    if f.metadata()?.len() != offset + bytes.len() as u64 {
        return Ok(false);
    }
    let mut now = vec![0u8; bytes.len()];
    f.read_exact_at(&mut now, offset)?;
    if now != bytes {
        return Ok(false);
    }
    test_step("rollback-checked");
    if !super::unchanged_len(&f, offset + bytes.len() as u64)? {
        return Ok(false);
    }
    f.set_len(offset)?;
    f.sync_all()?;
    Ok(true)
}

/// Append `line` and keep `<transcript>.lock` held until the returned [`HeldAppend`] is
/// kept or undone (the lock must outlive any later step whose failure undoes the append).
pub fn append_line_held(
    path: &Path,
    expected: &Expect,
    line: &[u8],
    lock_opts: &LockOptions,
) -> Result<HeldAppend, CommitError> {
    validate_line(line)?;
    let guard = lock::acquire(path, lock_opts)?;

    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK).bits() as i32)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
                CommitError::Refused {
                    reason: format!(
                        "{} is a symbolic link; clawtop does not append through links",
                        path.display()
                    ),
                }
            } else {
                CommitError::io(path, "open transcript for append", e)
            }
        })?;
    let meta = file
        .metadata()
        .map_err(|e| CommitError::io(path, "stat transcript", e))?;
    if !meta.is_file() {
        return Err(CommitError::Refused {
            reason: format!("{} is not a regular file", path.display()),
        });
    }
    let len = meta.len();
    if len != expected.len {
        return Err(CommitError::changed(
            path,
            format!(
                "transcript changed since preview (size {len} bytes, preview saw {})",
                expected.len
            ),
        ));
    }
    let last = last_entry_id(&file, len, path)?;
    if last != expected.last_entry_id {
        return Err(CommitError::changed(
            path,
            format!(
                "transcript changed since preview (last entry {}, preview saw {})",
                show_id(&last),
                show_id(&expected.last_entry_id)
            ),
        ));
    }
    test_step("append-checked");

    let needs_nl = len > 0 && !ends_with_newline(&file, len, path)?;
    let mut buf = Vec::with_capacity(line.len() + 2);
    if needs_nl {
        buf.push(b'\n');
    }
    buf.extend_from_slice(line);
    buf.push(b'\n');

    // One write_all on the O_APPEND fd; fsync; roll back on any failure.
    let result = write_and_sync(&file, &buf, path);
    if let Err(e) = result {
        let rollback = file.set_len(len).and_then(|()| file.sync_all());
        if let Err(re) = rollback {
            return Err(CommitError::io(
                path,
                "append failed and truncating back failed",
                std::io::Error::new(
                    re.kind(),
                    format!("{re} (after: {e}); file may have an incomplete last line"),
                ),
            ));
        }
        return Err(e);
    }
    test_step("append-synced");
    Ok(HeldAppend {
        path: path.to_path_buf(),
        outcome: AppendOutcome {
            offset: len,
            bytes_written: buf.len() as u64,
            new_len: len + buf.len() as u64,
        },
        bytes: buf,
        guard: Some(guard),
    })
}

fn write_and_sync(mut file: &File, buf: &[u8], path: &Path) -> Result<(), CommitError> {
    use std::io::Write;
    file.write_all(buf)
        .map_err(|e| CommitError::io(path, "append to transcript", e))?;
    test_step("append-written");
    file.sync_all()
        .map_err(|e| CommitError::io(path, "fsync transcript", e))
}

fn show_id(id: &Option<String>) -> String {
    match id {
        Some(s) => format!("{s:?}"),
        None => "none".to_string(),
    }
}

/// Refuse anything but a single-line JSON object.
fn validate_line(line: &[u8]) -> Result<(), CommitError> {
    if line.iter().any(|b| *b == b'\n' || *b == b'\r') {
        return Err(CommitError::Refused {
            reason: "transcript line contains a raw newline".into(),
        });
    }
    let text = std::str::from_utf8(line).map_err(|_| CommitError::Refused {
        reason: "transcript line is not valid UTF-8".into(),
    })?;
    let node = jstext::parse(text).map_err(|e| CommitError::Refused {
        reason: format!("transcript line is not valid JSON: {e}"),
    })?;
    if !matches!(node.kind, Kind::Object(_)) {
        return Err(CommitError::Refused {
            reason: "transcript line is not a JSON object".into(),
        });
    }
    Ok(())
}

fn ends_with_newline(file: &File, len: u64, path: &Path) -> Result<bool, CommitError> {
    let mut b = [0u8; 1];
    file.read_exact_at(&mut b, len - 1)
        .map_err(|e| CommitError::io(path, "read transcript", e))?;
    Ok(b[0] == b'\n')
}

/// Id of the last non-blank line that parses as a JSON object, reading backwards.
fn last_entry_id(file: &File, len: u64, path: &Path) -> Result<Option<String>, CommitError> {
    let mut end = len; // lines end at or before this offset
    let mut examined = 0u64;
    while end > 0 {
        // Drop one trailing '\n' (the terminator of the line before `end`).
        let line_end = if read_byte(file, end - 1, path)? == b'\n' {
            end - 1
        } else {
            end
        };
        let start = line_start(file, line_end, path, &mut examined)?;
        let n = line_end - start;
        if n > 0 {
            examined += n;
            if examined > TAIL_BUDGET {
                return Err(CommitError::changed(
                    path,
                    format!(
                        "cannot verify the transcript tail: no complete entry in the last {TAIL_BUDGET} bytes"
                    ),
                ));
            }
            let mut buf = vec![0u8; n as usize];
            file.read_exact_at(&mut buf, start)
                .map_err(|e| CommitError::io(path, "read transcript tail", e))?;
            if let Some(id) = entry_id(&buf) {
                return Ok(id);
            }
        }
        end = start;
    }
    Ok(None)
}

/// Some(id) when `line` is a JSON object (id = its string `id`), None to skip it.
fn entry_id(line: &[u8]) -> Option<Option<String>> {
    let text = std::str::from_utf8(line).ok()?;
    if text.trim().is_empty() {
        return None;
    }
    let node = jstext::parse(text).ok()?;
    let Kind::Object(members) = &node.kind else {
        return None;
    };
    let mut id = None;
    for (k, v) in members {
        if jstext::raw_eq(k, "id") {
            id = match &v.kind {
                Kind::Str(raw) => Some(jstext::decode_lossy(raw)),
                _ => None,
            };
        }
    }
    Some(id)
}

fn read_byte(file: &File, at: u64, path: &Path) -> Result<u8, CommitError> {
    let mut b = [0u8; 1];
    file.read_exact_at(&mut b, at)
        .map_err(|e| CommitError::io(path, "read transcript tail", e))?;
    Ok(b[0])
}

/// Offset just after the last '\n' before `end` (0 if none), scanning back in chunks.
fn line_start(file: &File, end: u64, path: &Path, examined: &mut u64) -> Result<u64, CommitError> {
    let mut pos = end;
    let mut chunk = vec![0u8; TAIL_CHUNK as usize];
    let mut scanned = 0u64;
    while pos > 0 {
        let n = TAIL_CHUNK.min(pos);
        let from = pos - n;
        let buf = &mut chunk[..n as usize];
        file.read_exact_at(buf, from)
            .map_err(|e| CommitError::io(path, "read transcript tail", e))?;
        if let Some(i) = memchr::memrchr(b'\n', buf) {
            return Ok(from + i as u64 + 1);
        }
        scanned += n;
        if *examined + scanned > TAIL_BUDGET {
            return Err(CommitError::changed(
                path,
                format!(
                    "cannot verify the transcript tail: last line longer than {TAIL_BUDGET} bytes"
                ),
            ));
        }
        pos = from;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_line_rules() {
        assert!(validate_line(br#"{"type":"compaction","id":"abcd1234"}"#).is_ok());
        assert!(validate_line(b"{\"a\":\n1}").is_err());
        assert!(validate_line(b"[1]").is_err());
        assert!(validate_line(b"{\"a\":").is_err());
        assert!(validate_line(b"").is_err());
    }

    #[test]
    fn entry_id_variants() {
        assert_eq!(entry_id(br#"{"id":"x1"}"#), Some(Some("x1".into())));
        assert_eq!(entry_id(br#"{"type":"message"}"#), Some(None));
        assert_eq!(entry_id(br#"{"id":"x1"#), None);
        assert_eq!(entry_id(b"   "), None);
    }
}
