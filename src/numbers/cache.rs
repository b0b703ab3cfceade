//! The figures measured from each transcript, remembered between runs: `list`, `check` from
//! cron and `metrics` every minute, on a host of thousands of sessions, otherwise read every
//! transcript every time to say what it said last time.
//!
//! What is kept: per transcript (its path, or database and session id), the figures `used`
//! needs ([`TranscriptFacts`]: token counts, entry positions and ids, times) and the forecast's
//! turns (counts and flags; their ids and times are left out, the forecast does not use
//! them), under the transcript's [`Stamp`] and the host release's arithmetic. Never
//! transcript text: a transcript with warnings (whose words quote it) is not kept, and is
//! read every time.
//!
//! Why it can be trusted: an entry is used only when the transcript's stamp now equals the
//! one it was measured under (`source::stamp`: any append, rewrite, truncation or
//! replacement of a file, any added, deleted or renumbered row, changes it; a reset opens a
//! new transcript, so a new key) and was written by this very build ([`FORMAT`], the crate
//! version). Anything else (no file, a corrupt, foreign or older one, an entry whose stamp
//! differs) is measured again, as on a first run, and the file is rewritten. A file that
//! cannot be written (a read-only home) leaves the run as it would be without a cache.
//!
//! Why a grown transcript is read whole: `used` follows the active branch back from the new
//! leaf (an entry may branch from anywhere, which moves the whole branch) and sums the
//! estimate of every message since the last compaction over it; neither can be extended from
//! the figures alone without the transcript's index of every entry, which this cache does not
//! hold. So a changed transcript is measured again (SQLite sessions already read only the
//! rows appended since for a session the TUI has open).
//!
//! One file per host: `<cache dir>/figures/<hash of the state dir>.json`, replaced whole
//! (temporary file + rename), so a reader sees the old file or the new one, never a mix.

use crate::history::series::Turn;
use crate::source::Stamp;
use crate::used::TranscriptFacts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's format name and version: a file with another is ignored and rewritten.
pub const FORMAT: &str = "clawtop-figures/1";

/// Entries not seen for this long are dropped (transcripts archived or deleted).
const KEEP_UNSEEN_MS: i64 = 30 * 24 * 3600 * 1000;

/// A cache file bigger than this is not read (it is rewritten).
const MAX_FILE_BYTES: u64 = 256 << 20;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheFile {
    format: String,
    clawtop: String,
    source: String,
    entries: BTreeMap<String, Entry>,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    stamp: Stamp,
    rules: String,
    facts: TranscriptFacts,
    /// Each turn as (turn, tokens, cycle, flush).
    turns: Vec<(u32, Option<u64>, u32, bool)>,
    seen_ms: i64,
}

/// One host's remembered figures, read once per listing and written back once after it.
pub struct FiguresCache {
    file: PathBuf,
    source: String,
    entries: BTreeMap<String, Entry>,
    dirty: bool,
    now_ms: i64,
}

impl FiguresCache {
    /// The cache of the host labelled `source` in `dir`; empty (to be rewritten) when its
    /// file is missing, unreadable, corrupt or from another format or build.
    pub fn open(dir: &Path, source: &str) -> FiguresCache {
        use sha2::{Digest, Sha256};
        let name: String = Sha256::digest(source.as_bytes())[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let file = dir.join("figures").join(format!("{name}.json"));
        let read = read_file(&file, source);
        let dirty = read.is_none();
        FiguresCache {
            file,
            source: source.to_string(),
            entries: read.unwrap_or_default(),
            dirty,
            now_ms: chrono::Utc::now().timestamp_millis(),
        }
    }

    /// The figures and turns remembered for the transcript at `location`, if it is still
    /// what they were measured from, by the same arithmetic.
    pub fn get(
        &mut self,
        location: &str,
        stamp: &Stamp,
        rules: &str,
    ) -> Option<(TranscriptFacts, Vec<Turn>)> {
        let e = self.entries.get_mut(location)?;
        if e.stamp != *stamp || e.rules != rules {
            return None;
        }
        if self.now_ms - e.seen_ms > 3600 * 1000 {
            // Kept fresh for the pruning, without a rewrite on every run.
            e.seen_ms = self.now_ms;
            self.dirty = true;
        }
        let turns = e
            .turns
            .iter()
            .map(|&(turn, tokens, cycle, flush)| Turn {
                turn,
                id: None,
                timestamp: None,
                tokens,
                cycle,
                flush,
            })
            .collect();
        Some((e.facts.clone(), turns))
    }

    /// Remembers what was measured from the transcript at `location` under `stamp`.
    pub fn put(
        &mut self,
        location: &str,
        stamp: Stamp,
        rules: &str,
        facts: &TranscriptFacts,
        turns: &[Turn],
    ) {
        self.entries.insert(
            location.to_string(),
            Entry {
                stamp,
                rules: rules.to_string(),
                facts: facts.clone(),
                turns: turns
                    .iter()
                    .map(|t| (t.turn, t.tokens, t.cycle, t.flush))
                    .collect(),
                seen_ms: self.now_ms,
            },
        );
        self.dirty = true;
    }

    /// Writes the file back when anything changed. A failure (a read-only or full disk) is
    /// logged and otherwise ignored: the next run measures again.
    pub fn save(&mut self) {
        if !self.dirty {
            return;
        }
        let now = self.now_ms;
        self.entries
            .retain(|_, e| now - e.seen_ms <= KEEP_UNSEEN_MS);
        let file = CacheFile {
            format: FORMAT.to_string(),
            clawtop: env!("CARGO_PKG_VERSION").to_string(),
            source: self.source.clone(),
            entries: std::mem::take(&mut self.entries),
        };
        let written = write_file(&self.file, &file);
        self.entries = file.entries;
        match written {
            Ok(()) => self.dirty = false,
            Err(e) => tracing::debug!(
                target: "clawtop::io",
                io = "figures cache not written",
                file = %self.file.display(),
                error = %e,
                "figures cache not written"
            ),
        }
    }
}

fn read_file(file: &Path, source: &str) -> Option<BTreeMap<String, Entry>> {
    use std::io::Read;
    let f = crate::regular_file::open(file).ok()?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return None;
    }
    let parsed: Result<CacheFile, _> = serde_json::from_slice(&bytes);
    let ok = parsed.ok().filter(|c| {
        c.format == FORMAT && c.clawtop == env!("CARGO_PKG_VERSION") && c.source == source
    });
    if ok.is_none() {
        tracing::debug!(target: "clawtop::io", io = "figures cache ignored", file = %file.display(), "figures cache ignored");
    }
    ok.map(|c| c.entries)
}

fn write_file(file: &Path, content: &CacheFile) -> std::io::Result<()> {
    use std::io::Write;
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        serde_json::to_writer(&mut w, content)?;
        w.flush()?;
    }
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}
