//! Session rows remembered between runs: `list`, `check` from cron every few minutes and
//! `metrics` every minute, on a host of thousands of sessions, would otherwise read every
//! transcript every time to say what it said last time (issue 31, "warm").
//!
//! What is kept is the TUI's [`RowMemo`] written to disk: per session, the row
//! [`super::list`] built, what [`super::list`]'s refresh needs to bring it up to now (the
//! last compaction's problems, the cost [`Clock`](crate::cost::Clock), the files that say it
//! changed, the lock it reads `busy` from), and what it was built from: a fingerprint of the
//! session's listing and its transcript's full stamp
//! ([`SessionSource::transcript_stamp`]), with the stamp of the store the transcript lives in
//! ([`SessionSource::transcript_stores`]: while a SQLite database is as it was, so is every
//! transcript in it, and a quiet host's thousands of sessions are not stamped one by one). A row is handed back only while all of those and
//! the host's basis (config, price tables, models.json, this build of clawtop) are unchanged;
//! the lock, `busy`, the cache countdown and the problems are looked at again every run, and
//! a row whose hour or day figures moved with the clock is built again. So the output of a
//! run with the cache is the output without it.
//!
//! Figures, never transcript text: a row whose warnings quote its transcript, or whose
//! figures are unknown because a read failed (which may not fail next time), is not kept;
//! of the last compaction's problems only the two a row grades are kept, in clawtop's words.
//!
//! Any file that is not exactly what this build wrote (missing, corrupt, too large, another
//! format, version or build, another host) is ignored and rewritten; one that cannot be
//! written (a read-only home) leaves the run as it would be without a cache. One file per
//! host, replaced whole (temporary file + rename): a reader sees the old file or the new
//! one, and of two runs at once the last to finish is kept. docs/cache.md.

use super::list::{self, Kept, Keying, Listed, RowMemo, SessionRow};
use crate::history::{self, HistoryWarning};
use crate::source::{SessionRef, SessionSource, Stamp};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// The file's format name and version: a file with another is ignored and rewritten.
pub const FORMAT: &str = "clawtop-rows/6";

/// A cache file bigger than this is not read (it is rewritten).
const MAX_FILE_BYTES: u64 = 256 << 20;

/// The file, in MessagePack: a warm `list` of thousands of rows spends most of its time
/// reading this file back, and MessagePack reads back several times faster than JSON (no
/// escapes to scan, lengths and numbers binary). The file's own fields are named; each row
/// is its own value inside a byte string, packed by position ([`crate::packed`]: no field
/// names to read back and match), so one session's row is found without decoding the
/// others' ([`RowsCache::open_some`]). [`to_json`] shows it, rows with their fields named.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheFile<'a> {
    format: String,
    build: String,
    host: String,
    basis: Option<String>,
    #[serde(borrow)]
    rows: Vec<Blob<'a>>,
    /// What the source remembers of its listing ([`SessionSource::listing_memory`]): a
    /// SQLite host's session rows, so the next run reads the entries that changed only.
    #[serde(default, borrow)]
    listing: Option<Blob<'a>>,
}

/// Bytes written as one MessagePack byte string, read back borrowed from the file.
#[derive(Serialize, Deserialize)]
struct Blob<'a>(#[serde(borrow, with = "serde_bytes")] Cow<'a, [u8]>);

/// One row as written (the row, its stamp and its files borrowed from the memo, not copied)
/// and as read back (owned). Packed by position: the agent and the key stay the first two
/// fields, which [`RowsCache::open_some`] reads alone.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored<'a> {
    agent_id: String,
    key: String,
    session_id: String,
    listing: String,
    stamp: Cow<'a, Stamp>,
    /// The stamp of the store the transcript lives in, taken before `stamp`.
    store: Option<String>,
    models: String,
    row: Cow<'a, SessionRow>,
    /// The last compaction's problems a row grades, as (code, words, compaction).
    last_compaction: Vec<(String, String, Option<String>)>,
    clock: Option<crate::cost::Clock>,
    watch: Cow<'a, [PathBuf]>,
    busy_at: Option<PathBuf>,
}

/// Where one host's remembered rows are: read into a [`RowMemo`] before its list, and
/// written back from it after.
pub struct RowsCache {
    file: PathBuf,
    host: String,
    /// Rows read from the file (a list that built nothing and dropped nothing leaves it).
    read: usize,
}

impl RowsCache {
    /// The cache of `source` in clawtop's cache directory `dir`; empty (to be rewritten)
    /// when its file is missing, unreadable, corrupt or not this build's.
    pub fn open(dir: &Path, source: &dyn SessionSource) -> (RowsCache, RowMemo) {
        Self::open_as(dir, source, Keying::BetweenRuns)
    }

    /// [`Self::open`] for the TUI's first load: its rows keyed for the reloads that follow
    /// as well ([`RowMemo::into_live`]).
    pub fn open_live(dir: &Path, source: &dyn SessionSource) -> (RowsCache, RowMemo) {
        Self::open_as(dir, source, Keying::LiveFromDisk)
    }

    fn open_as(dir: &Path, source: &dyn SessionSource, keying: Keying) -> (RowsCache, RowMemo) {
        let host = source.label();
        let file = file_of(dir, &host);
        let mut memo = RowMemo {
            keying,
            ..RowMemo::default()
        };
        let mut read = 0;
        let text = read_text(&file);
        let cached = text.as_deref().and_then(|t| read_file(&file, t, &host));
        source.recall_listing(
            cached
                .as_ref()
                .and_then(|c| c.listing.as_ref().map(|l| &*l.0)),
        );
        if let Some(c) = cached {
            memo.basis = c.basis;
            read = c.rows.len();
            memo.rows.reserve(read);
            for blob in c.rows {
                // A row that does not read back is built again (and the file written anew).
                if let Ok(s) = crate::packed::from_slice::<Stored>(&blob.0) {
                    let (reference, kept) = kept_of(&host, s);
                    memo.rows.insert(reference, kept);
                }
            }
        }
        (RowsCache { file, host, read }, memo)
    }

    /// The rows remembered for the sessions `keys` (agent, key) names alone, keyed for a
    /// TUI ([`Self::open_live`]), without decoding the others or taking back the listing:
    /// what the launch session's row needs before its first screen (`clawtop KEY`), on a
    /// host of thousands. Nothing is written back (the whole list's first load does that).
    pub fn open_some(dir: &Path, source: &dyn SessionSource, keys: &[(&str, &str)]) -> RowMemo {
        let host = source.label();
        let file = file_of(dir, &host);
        let mut memo = RowMemo {
            keying: Keying::LiveFromDisk,
            ..RowMemo::default()
        };
        let Some(text) = read_text(&file) else {
            return memo;
        };
        let Some(c) = read_file(&file, &text, &host) else {
            return memo;
        };
        memo.basis = c.basis;
        for blob in c.rows {
            // A row begins with its agent and key ([`Stored`]).
            let wanted = crate::packed::first_two::<&str, &str>(&blob.0)
                .is_ok_and(|names| keys.contains(&names));
            if let Some(s) = wanted
                .then(|| crate::packed::from_slice::<Stored>(&blob.0).ok())
                .flatten()
            {
                let (reference, kept) = kept_of(&host, s);
                memo.rows.insert(reference, kept);
            }
        }
        memo
    }

    /// Writes back what the list kept, when it changed. A failure (a read-only or full disk)
    /// is logged and otherwise ignored: the next run reads again.
    pub fn save(&self, memo: &RowMemo, source: &dyn SessionSource) {
        let Some(build) = build() else {
            return;
        };
        let exposed: Vec<&str> = source.not_exposed().iter().map(|(f, _)| *f).collect();
        let kept: Vec<(&SessionRef, &Kept)> = memo
            .rows
            .iter()
            .filter(|(_, k)| keepable(k, &exposed))
            .collect();
        // A run that built no row for the file (only rows read every time, or none at all),
        // dropped none and found no store stamped anew leaves it as it is.
        let built = kept
            .iter()
            .filter(|(_, k)| matches!(k.session, Listed::Session(_)))
            .count();
        if built == 0
            && memo.stores_moved == 0
            && kept.len() == self.read
            && !source.listing_moved()
        {
            return;
        }
        let mut packed = Vec::new();
        let rows = kept
            .into_iter()
            .map(|(r, k)| Stored {
                agent_id: r.agent_id.clone(),
                key: r.key.clone(),
                session_id: r.session_id.clone(),
                listing: match &k.session {
                    Listed::Print(p) => p.clone(),
                    Listed::Session(s) => list::listing_print(s),
                },
                stamp: Cow::Borrowed(&k.stamp),
                store: k.store.clone(),
                models: k.models.clone(),
                row: Cow::Borrowed(&*k.row),
                last_compaction: k
                    .last_compaction
                    .iter()
                    .filter(|w| [history::code::LOOP, history::code::NO_FLUSH].contains(&w.code))
                    .map(|w| (w.code.to_string(), w.message.clone(), w.compaction.clone()))
                    .collect(),
                clock: k.clock,
                watch: Cow::Borrowed(&k.watch),
                busy_at: k.busy_at.clone(),
            })
            // Packed into one reused buffer and copied out at its size: packing each row
            // into a new vector grew it by doubling, a dozen reallocations a row.
            .filter_map(|stored| {
                crate::packed::write_into(&mut packed, &stored).ok()?;
                Some(Blob(Cow::Owned(packed.clone())))
            })
            .collect();
        let file = CacheFile {
            format: FORMAT.to_string(),
            build,
            host: self.host.clone(),
            basis: memo.basis.clone(),
            rows,
            listing: source.listing_memory().map(|l| Blob(Cow::Owned(l))),
        };
        if let Err(e) = write_file(&self.file, &file) {
            tracing::debug!(
                target: "clawtop::io",
                io = "rows cache not written",
                file = %self.file.display(),
                error = %e,
                "rows cache not written"
            );
        }
    }
}

/// A row that holds figures only, each as a cold run would give it again: no warning but
/// its listing's (a transcript's may quote it; the listing's come from the store, read
/// every run), no figure unknown because a read failed (the next run may read it), beyond
/// the fields the source never exposes.
fn keepable(k: &Kept, exposed: &[&str]) -> bool {
    let row = &k.row;
    let listed = match &k.session {
        Listed::Session(s) => s.warnings.as_slice(),
        // Read back from the file: it was kept by this rule.
        Listed::Print(_) => row.warnings.as_slice(),
    };
    row.warnings.iter().all(|w| listed.contains(w))
        && row.unknown.keys().all(|k| exposed.contains(&k.as_str()))
        && row
            .latest_compaction_loss
            .as_ref()
            .is_none_or(|l| l.unknown.is_none())
        && row
            .cost
            .as_ref()
            .is_none_or(|c| !c.notes.iter().any(|n| n == crate::cost::PARTLY_READ))
}

/// This build of clawtop: its version and its executable's size and time, so a rebuilt
/// binary (new arithmetic under the same version) does not trust an older build's rows.
/// None when the executable cannot be found: then nothing is read or written.
fn build() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::env::current_exe().and_then(std::fs::metadata).ok()?;
    Some(format!(
        "{} {}:{}.{}",
        env!("CARGO_PKG_VERSION"),
        m.size(),
        m.mtime(),
        m.mtime_nsec()
    ))
}

/// The cache file of the host labelled `host` in clawtop's cache directory `dir`.
fn file_of(dir: &Path, host: &str) -> PathBuf {
    dir.join("rows")
        .join(format!("{}.msgpack", &list::fingerprint(&host)[..24]))
}

/// A file of this format, written by this build for this host.
fn ours(format: &str, build: &str, host_in_file: &str, host: &str) -> bool {
    format == FORMAT && self::build().as_deref() == Some(build) && host_in_file == host
}

/// A remembered row as the memo holds it.
fn kept_of(host: &str, s: Stored<'_>) -> (SessionRef, Kept) {
    let reference = SessionRef {
        source: host.to_string(),
        agent_id: s.agent_id,
        key: s.key,
        session_id: s.session_id,
    };
    let last_compaction = s
        .last_compaction
        .into_iter()
        .filter_map(|(code, message, compaction)| {
            Some(HistoryWarning {
                code: history::code::known(&code)?,
                message,
                compaction,
            })
        })
        .collect();
    let kept = Kept {
        session: Listed::Print(s.listing),
        stamp: s.stamp.into_owned(),
        store: s.store,
        tip: None,
        models: s.models,
        row: Box::new(s.row.into_owned()),
        last_compaction,
        clock: s.clock,
        watch: s.watch.into_owned(),
        busy_at: s.busy_at,
    };
    (reference, kept)
}

/// The cache file's bytes; None when it is missing, unreadable or too large.
fn read_text(file: &Path) -> Option<Vec<u8>> {
    let f = crate::regular_file::open(file).ok()?;
    if f.metadata().ok()?.len() > MAX_FILE_BYTES {
        tracing::debug!(target: "clawtop::io", io = "rows cache ignored", file = %file.display(), why = "too large", "rows cache ignored");
        return None;
    }
    // Sized once: the file is megabytes, and growing the buffer copied it again.
    let mut text = Vec::with_capacity(f.metadata().map_or(0, |m| m.len() as usize + 1));
    std::io::Read::read_to_end(&mut std::io::Read::take(&f, MAX_FILE_BYTES), &mut text).ok()?;
    Some(text)
}

/// `text`, the file at `file`, as this build wrote it for `host`; None (logged) otherwise.
fn read_file<'a>(file: &Path, text: &'a [u8], host: &str) -> Option<CacheFile<'a>> {
    let ignored = |why: &str| {
        tracing::debug!(target: "clawtop::io", io = "rows cache ignored", file = %file.display(), why, "rows cache ignored");
    };
    match rmp_serde::from_slice::<CacheFile>(text) {
        Ok(c) if ours(&c.format, &c.build, &c.host, host) => {
            tracing::debug!(target: "clawtop::io", io = "rows cache read", rows = c.rows.len(), "rows cache read");
            Some(c)
        }
        Ok(_) => {
            ignored("another format, build or host");
            None
        }
        Err(_) => {
            ignored("not a cache file");
            None
        }
    }
}

fn write_file(file: &Path, content: &CacheFile<'_>) -> std::io::Result<()> {
    use std::io::Write;
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        rmp_serde::encode::write_named(&mut w, content).map_err(std::io::Error::other)?;
        w.flush()?;
    }
    tmp.persist(file).map_err(|e| e.error)?;
    // The file an earlier format kept under the JSON name is not read again.
    let _ = std::fs::remove_file(file.with_extension("json"));
    tracing::debug!(target: "clawtop::io", io = "rows cache written", rows = content.rows.len(), "rows cache written");
    Ok(())
}

/// A cache file as JSON: each row as its fields, the source's listing memory as its bytes;
/// None when `bytes` are not a cache file. What a person reading the file by hand, and the
/// tests, see of it ([`from_json`] writes it back).
pub fn to_json(bytes: &[u8]) -> Option<serde_json::Value> {
    let c = rmp_serde::from_slice::<CacheFile>(bytes).ok()?;
    let rows = c
        .rows
        .iter()
        .map(|b| {
            let row = crate::packed::from_slice::<Stored>(&b.0).ok()?;
            serde_json::to_value(&row).ok()
        })
        .collect::<Option<Vec<_>>>()?;
    Some(serde_json::json!({
        "format": c.format,
        "build": c.build,
        "host": c.host,
        "basis": c.basis,
        "rows": rows,
        "listing": c.listing.map(|l| l.0.into_owned()),
    }))
}

/// The cache file whose JSON [`to_json`] gives is `v`; None when `v` is not of that shape.
pub fn from_json(v: &serde_json::Value) -> Option<Vec<u8>> {
    let text = |k: &str| v.get(k)?.as_str().map(str::to_string);
    let rows = v
        .get("rows")?
        .as_array()?
        .iter()
        .map(|r| {
            let row = serde_json::from_value::<Stored>(r.clone()).ok()?;
            Some(Blob(Cow::Owned(crate::packed::to_vec(&row).ok()?)))
        })
        .collect::<Option<Vec<_>>>()?;
    let listing = match v.get("listing") {
        None | Some(serde_json::Value::Null) => None,
        Some(l) => Some(Blob(Cow::Owned(
            serde_json::from_value::<Vec<u8>>(l.clone()).ok()?,
        ))),
    };
    rmp_serde::to_vec_named(&CacheFile {
        format: text("format")?,
        build: text("build")?,
        host: text("host")?,
        basis: text("basis"),
        rows,
        listing,
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::SessionRow;
    use crate::history::Forecast;
    use crate::thresholds::{Basis, TranscriptContext};

    /// A row packed by position reads back as it was, with every field a JSON leaves out when
    /// empty both empty and set: a field left out of the pack would shift the ones after it.
    #[test]
    fn every_field_reads_back() {
        let context = |overhead| TranscriptContext {
            tokens: 10,
            basis: Basis::AfterCompaction,
            usage_tokens: 0,
            trailing_tokens: 10,
            entry_id: None,
            overhead_tokens: overhead,
        };
        let empty = SessionRow {
            transcript_context: Some(context(None)),
            forecast: Some(Forecast::default()),
            store_used: Some(7),
            ..SessionRow::default()
        };
        let full = SessionRow {
            transcript_context: Some(context(Some(3))),
            forecast: Some(Forecast {
                note: Some("why".into()),
                ..Forecast::default()
            }),
            unknown: [("compactionCount".to_string(), "why".to_string())].into(),
            ..empty.clone()
        };
        for row in [SessionRow::default(), empty, full] {
            let json = serde_json::to_value(&row).unwrap();
            let bytes = crate::packed::to_vec(&row).unwrap();
            let back: SessionRow = crate::packed::from_slice(&bytes).unwrap();
            assert_eq!(back, row);
            assert_eq!(serde_json::to_value(&back).unwrap(), json);
        }
    }
}
