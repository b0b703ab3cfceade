//! The flush's own evidence in the workspace: the note blocks of `memory/<date>.md`, and the
//! blocks appended twice.
//!
//! These files are written by a model with tools, so they are untrusted in size and content:
//! each is read only up to [`MAX_FILE_BYTES`] (a larger one is named, not read), a file that is
//! not UTF-8 text or holds NUL bytes is named as binary, only regular files are opened (a FIFO
//! would block), and a link that resolves outside the workspace is never followed. Nothing
//! here decides a figure; it is evidence shown beside the store's counters.

use serde::Serialize;
use std::io::Read;
use std::path::Path;

/// Larger memory files are named with their size and not scanned.
pub const MAX_FILE_BYTES: u64 = 4 << 20;
/// Only the newest dated files are scanned (a workspace can hold years of them).
pub const MAX_FILES: usize = 60;
/// Blocks shorter than this (a lone `-`, a date line) repeat innocently.
const MIN_BLOCK_CHARS: usize = 12;

/// The memory files of one workspace.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryNotes {
    /// The `memory/` directory as shown to the operator.
    pub dir: String,
    pub files: Vec<MemoryFile>,
    /// Why nothing (or not everything) was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryFile {
    /// `YYYY-MM-DD` from the file name (the flush writes the day's file).
    pub date: String,
    pub bytes: u64,
    /// Note blocks (paragraphs; a heading starts a new one). 0 when the file was not read.
    pub blocks: usize,
    pub duplicates: Vec<Duplicate>,
    /// Why the file was not read (too large, binary, a link out of the workspace, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unread: Option<String>,
}

/// A block that appears again later in the same file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Duplicate {
    /// 1-based first line of the first copy and of the repeat.
    pub line: usize,
    pub again_line: usize,
    pub lines: usize,
    /// The block's first line, neutralised and shortened.
    pub preview: String,
}

/// Reads the dated files of `<workspace>/memory/`.
pub fn read(workspace: &Path) -> MemoryNotes {
    read_kept(workspace, &mut Kept::default())
}

/// The memory files read before, each with what it was (device, inode, size, mtime and
/// ctime): a file that is still the same is not read again. The TUI's History pane is
/// computed again at each turn of the open session; the notes rarely change between them.
/// A file changed less than a second before it was read is not kept (a write in the same
/// clock tick would leave its stamp as it was: git's "racily clean" rule).
#[derive(Debug, Default, Clone)]
pub struct Kept {
    files: std::collections::HashMap<std::path::PathBuf, (FileId, MemoryFile)>,
    /// Files read (not handed back) by the last [`read_kept`].
    pub last_read: usize,
}

type FileId = (u64, u64, u64, i64, i64);

fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    let (mtime, ctime) = (ns(m.mtime(), m.mtime_nsec()), ns(m.ctime(), m.ctime_nsec()));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos() as i64;
    (m.is_file() && now.saturating_sub(mtime.max(ctime)) >= 1_000_000_000).then_some((
        m.dev(),
        m.ino(),
        m.len(),
        mtime,
        ctime,
    ))
}

/// [`read`], reading again only the files that changed since `kept` saw them.
pub fn read_kept(workspace: &Path, kept: &mut Kept) -> MemoryNotes {
    let dir = workspace.join("memory");
    let mut out = MemoryNotes {
        dir: dir.display().to_string(),
        ..Default::default()
    };
    let root = match workspace.canonicalize() {
        Ok(r) => r,
        Err(e) => {
            out.note = Some(format!(
                "workspace {} not readable: {e}",
                workspace.display()
            ));
            return out;
        }
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            out.note = Some(format!("no {} (no flush wrote notes here)", dir.display()));
            return out;
        }
        Err(e) => {
            out.note = Some(format!("{} not readable: {e}", dir.display()));
            return out;
        }
    };
    let mut dated: Vec<(String, std::path::PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let date = name.strip_suffix(".md")?;
            crate::flush::is_valid_date(date).then(|| (date.to_string(), e.path()))
        })
        .collect();
    dated.sort();
    if dated.len() > MAX_FILES {
        out.note = Some(format!(
            "{} dated files; the newest {MAX_FILES} were read",
            dated.len()
        ));
        dated.drain(..dated.len() - MAX_FILES);
    }
    let mut now_kept = std::collections::HashMap::new();
    kept.last_read = 0;
    for (date, path) in dated {
        // Where the link leads is checked every time; only the content is remembered.
        let id = match path.canonicalize() {
            Ok(r) if r.starts_with(&root) => file_id(&r),
            _ => None,
        };
        let f = match (id, kept.files.remove(&path)) {
            (Some(id), Some((was, f))) if was == id && f.date == date => f,
            _ => {
                kept.last_read += 1;
                read_file(&root, &date, &path)
            }
        };
        if let Some(id) = id {
            now_kept.insert(path, (id, f.clone()));
        }
        out.files.push(f);
    }
    kept.files = now_kept;
    out
}

fn read_file(root: &Path, date: &str, path: &Path) -> MemoryFile {
    let mut f = MemoryFile {
        date: date.to_string(),
        bytes: 0,
        blocks: 0,
        duplicates: Vec::new(),
        unread: None,
    };
    let real = match path.canonicalize() {
        Ok(r) if r.starts_with(root) => r,
        Ok(_) => {
            f.unread = Some("a link out of the workspace; not followed".into());
            return f;
        }
        Err(e) => {
            f.unread = Some(format!("not readable: {e}"));
            return f;
        }
    };
    let text = match bounded_text(&real, &mut f.bytes) {
        Ok(t) => t,
        Err(why) => {
            f.unread = Some(why.to_string());
            return f;
        }
    };
    let blocks = blocks(&text);
    f.blocks = blocks.len();
    f.duplicates = duplicates(&blocks);
    f
}

/// Why a memory file was not scanned (said on the history as the file's `unread`).
#[derive(Debug, thiserror::Error)]
enum Unread {
    #[error("not readable: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0} bytes, over the {MAX_FILE_BYTES} bytes clawtop scans")]
    TooBig(u64),
    #[error("grew over the {MAX_FILE_BYTES} bytes clawtop scans while read")]
    Grew,
    #[error("binary (NUL bytes); not a notes file")]
    Nul,
    #[error("binary (not UTF-8 text); not a notes file")]
    NotUtf8,
}

/// The file's text, or why it was not read. Opened as every read-only file is (a FIFO or a
/// device in the workspace neither blocks nor is read).
fn bounded_text(path: &Path, bytes: &mut u64) -> Result<String, Unread> {
    let file = crate::regular_file::open(path)?;
    *bytes = file.metadata()?.len();
    if *bytes > MAX_FILE_BYTES {
        return Err(Unread::TooBig(*bytes));
    }
    let mut buf = Vec::new();
    // The length can grow between the stat and the read: the take keeps the bound.
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_FILE_BYTES {
        return Err(Unread::Grew);
    }
    if memchr::memchr(0, &buf).is_some() {
        return Err(Unread::Nul);
    }
    String::from_utf8(buf).map_err(|_| Unread::NotUtf8)
}

/// A block: its first line (1-based) and its lines, trimmed.
type Block<'a> = (usize, Vec<&'a str>);

fn blocks(text: &str) -> Vec<Block<'_>> {
    let mut out: Vec<Block<'_>> = Vec::new();
    let mut cur: Option<Block<'_>> = None;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            out.extend(cur.take());
        }
        if !l.is_empty() {
            cur.get_or_insert_with(|| (i + 1, Vec::new())).1.push(l);
        }
    }
    out.extend(cur);
    out
}

fn duplicates(blocks: &[Block<'_>]) -> Vec<Duplicate> {
    let mut seen: std::collections::HashMap<&[&str], usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (line, lines) in blocks {
        let chars: usize = lines.iter().map(|l| l.len()).sum();
        // A heading alone is structure, not a note.
        if chars < MIN_BLOCK_CHARS || (lines.len() == 1 && lines[0].starts_with('#')) {
            continue;
        }
        match seen.get(lines.as_slice()) {
            Some(&first) => out.push(Duplicate {
                line: first,
                again_line: *line,
                lines: lines.len(),
                preview: crate::sanitize::one_line(&lines[0].chars().take(60).collect::<String>()),
            }),
            None => {
                seen.insert(lines.as_slice(), *line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(n: &MemoryNotes) -> String {
        serde_json::to_string(n).unwrap()
    }

    /// Issue 31: a reload reads again only the memory file that changed, and says what a
    /// first read says.
    #[test]
    fn kept_notes_are_read_again_only_where_a_file_changed() {
        let ws = tempfile::tempdir().unwrap();
        let mem = ws.path().join("memory");
        std::fs::create_dir(&mem).unwrap();
        let note = "- deploy plan reviewed\n\n- deploy plan reviewed\n";
        std::fs::write(mem.join("2026-11-22.md"), note).unwrap();
        std::fs::write(mem.join("2026-11-23.md"), "- one note only here\n").unwrap();
        // Files younger than a second are never kept (their stamp could hide a change).
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let mut kept = Kept::default();
        let first = read_kept(ws.path(), &mut kept);
        assert_eq!(kept.last_read, 2);
        assert_eq!(json(&first), json(&read(ws.path())));
        assert_eq!(json(&read_kept(ws.path(), &mut kept)), json(&first));
        assert_eq!(kept.last_read, 0);
        std::fs::write(mem.join("2026-11-23.md"), note).unwrap();
        let changed = read_kept(ws.path(), &mut kept);
        assert_eq!(kept.last_read, 1);
        assert_eq!(json(&changed), json(&read(ws.path())));
        assert_eq!(changed.files[1].duplicates.len(), 1);
        // Changed within the second: read again until it has been still for one.
        read_kept(ws.path(), &mut kept);
        assert_eq!(kept.last_read, 1);
        std::fs::remove_file(mem.join("2026-11-22.md")).unwrap();
        assert_eq!(
            json(&read_kept(ws.path(), &mut kept)),
            json(&read(ws.path()))
        );
    }

    #[test]
    fn a_block_appended_twice_is_named_with_both_lines() {
        let text = "# 2026-11-23\n\n- deploy plan reviewed\n- PR 412 open\n\n- other note here\n\n- deploy plan reviewed\n- PR 412 open\n";
        let b = blocks(text);
        assert_eq!(b.len(), 4);
        let d = duplicates(&b);
        assert_eq!(
            d,
            vec![Duplicate {
                line: 3,
                again_line: 8,
                lines: 2,
                preview: "- deploy plan reviewed".into()
            }]
        );
    }

    #[test]
    fn huge_binary_and_linked_files_are_named_not_read() {
        let ws = tempfile::tempdir().unwrap();
        let mem = ws.path().join("memory");
        std::fs::create_dir(&mem).unwrap();
        std::fs::write(mem.join("2026-01-01.md"), b"ab\0cd").unwrap();
        let big = std::fs::File::create(mem.join("2026-01-02.md")).unwrap();
        big.set_len(MAX_FILE_BYTES + 1).unwrap();
        std::fs::write(mem.join("2026-01-03.md"), "- a note long enough\n").unwrap();
        std::fs::write(mem.join("notes.md"), "not dated").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.md"), "- secret outside\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path().join("x.md"), mem.join("2026-01-04.md")).unwrap();
        let n = read(ws.path());
        let by: std::collections::HashMap<_, _> =
            n.files.iter().map(|f| (f.date.as_str(), f)).collect();
        assert!(
            by["2026-01-01"]
                .unread
                .as_deref()
                .unwrap()
                .contains("binary")
        );
        assert!(
            by["2026-01-02"]
                .unread
                .as_deref()
                .unwrap()
                .contains("over the")
        );
        assert_eq!(by["2026-01-03"].blocks, 1);
        assert!(by["2026-01-03"].unread.is_none());
        #[cfg(unix)]
        assert!(
            by["2026-01-04"]
                .unread
                .as_deref()
                .unwrap()
                .contains("out of the workspace")
        );
        assert!(!by.contains_key("notes"));
        let none = read(&ws.path().join("missing"));
        assert!(none.note.unwrap().contains("not readable"));
    }
}
