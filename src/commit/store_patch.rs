//! Patch one entry of `sessions.json` (docs/commit-protocol.md §2–§4; the format in
//! docs/formats.md §1).
//!
//! Under `sessions.json.lock` (the ≤ 2026.4 protocol, see [`super::lock`]) we re-read
//! the file, find the entry's value span, and replace only those bytes: every byte
//! outside the entry stays identical, including the file's tail (OpenClaw writes no
//! trailing newline; whatever is there is kept). The entry is re-emitted the way
//! `JSON.stringify(store, null, 2)` writes depth 1: untouched fields keep their order
//! and their number text; strings are re-escaped canonically, so an entry OpenClaw
//! wrote comes out byte-identical except for the patched fields. New keys go at the
//! end, removed keys disappear, set keys keep their position.
//!
//! The result is re-parsed before it is written to `sessions.json.<pid>.<uuid>.tmp`
//! (same dir, mode 0600, owner copied from the store), fsynced, and renamed over the
//! store; then the directory is fsynced. Just before the rename we check that the
//! store's inode, size and mtime are still what we read: OpenClaw ≥ 2026.5 writes
//! without the file lock, and a racing write must win over ours, not be lost.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::jstext::{self, Kind, Node};
use super::lock::{self, LockOptions};
use super::{CommitError, fsync_dir, parent_dir, test_step};

/// One change to a field of the entry.
#[derive(Debug, Clone, PartialEq)]
pub enum PatchOp {
    /// Set the field (keeps its position if present, appended at the end otherwise).
    Set(Value),
    /// Remove the field if present.
    Remove,
}

#[derive(Debug, Clone)]
pub struct StorePatchOptions {
    pub lock: LockOptions,
}

impl Default for StorePatchOptions {
    fn default() -> Self {
        StorePatchOptions {
            lock: LockOptions::store(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOutcome {
    /// The store was rewritten.
    Written,
    /// The patch changed nothing; the file was not touched.
    Unchanged,
}

/// Patch the entry `session_key` of the store at `store_path`.
///
/// `build` runs under the lock with the entry as it is on disk now (a lossy
/// serde_json view, for checks and for values derived from current ones such as
/// `compactionCount + 1`); it returns the field changes, or an error (for instance
/// [`CommitError::Changed`] when `sessionId` is not the one previewed) to abort
/// without writing.
pub fn patch_store_entry<F>(
    store_path: &Path,
    session_key: &str,
    build: F,
) -> Result<PatchOutcome, CommitError>
where
    F: FnOnce(&Map<String, Value>) -> Result<Vec<(String, PatchOp)>, CommitError>,
{
    patch_store_entry_with(
        store_path,
        session_key,
        &StorePatchOptions::default(),
        build,
    )
}

/// [`patch_store_entry`] with explicit options.
pub fn patch_store_entry_with<F>(
    store_path: &Path,
    session_key: &str,
    opts: &StorePatchOptions,
    build: F,
) -> Result<PatchOutcome, CommitError>
where
    F: FnOnce(&Map<String, Value>) -> Result<Vec<(String, PatchOp)>, CommitError>,
{
    let lock = StoreLock::acquire(store_path, opts)?;
    let outcome = lock.patch_entry(session_key, build)?;
    lock.release();
    Ok(outcome)
}

/// `sessions.json.lock`, held across a patch and whatever the caller must still do when
/// the patch fails (undo an append it made under the lock) before anyone else may write.
#[derive(Debug)]
pub struct StoreLock {
    path: PathBuf,
    guard: Option<lock::LockGuard>,
}

impl StoreLock {
    pub fn acquire(store_path: &Path, opts: &StorePatchOptions) -> Result<StoreLock, CommitError> {
        let guard = lock::acquire(store_path, &opts.lock)?;
        Ok(StoreLock {
            path: store_path.to_path_buf(),
            guard: Some(guard),
        })
    }

    /// Patch the entry `session_key` (see [`patch_store_entry`]); the lock stays held.
    pub fn patch_entry<F>(&self, session_key: &str, build: F) -> Result<PatchOutcome, CommitError>
    where
        F: FnOnce(&Map<String, Value>) -> Result<Vec<(String, PatchOp)>, CommitError>,
    {
        patch_locked(&self.path, session_key, build)
    }

    /// Release the lock; a failure to remove it is only logged (the write, if any, stands).
    pub fn release(mut self) {
        if let Some(g) = self.guard.take() {
            if let Err(e) = g.release() {
                tracing::warn!("session store lock not released: {e}");
            }
        }
    }
}

/// The patch itself; the caller holds `sessions.json.lock`.
fn patch_locked<F>(
    store_path: &Path,
    session_key: &str,
    build: F,
) -> Result<PatchOutcome, CommitError>
where
    F: FnOnce(&Map<String, Value>) -> Result<Vec<(String, PatchOp)>, CommitError>,
{
    let target = write_target(store_path)?;
    let (text, before) = read_store(store_path)?;
    let new_text = splice_entry(store_path, &text, session_key, build)?;
    if new_text == text {
        return Ok(PatchOutcome::Unchanged);
    }
    test_step("store-patched");

    let dir = parent_dir(&target);
    remove_stale_temp_files(dir, &target);
    let tmp = TempFile::create(dir, &target)?;
    tmp.write_all_sync(new_text.as_bytes(), &before)?;
    test_step("store-temp-synced");

    // A writer that ignores the lock (OpenClaw ≥ 2026.5) may have replaced the store
    // since we read it; renaming now would discard its write. This check narrows the
    // window to the microseconds between it and the rename; it cannot close it.
    let now = fs::metadata(store_path).map_err(|e| CommitError::io(store_path, "stat store", e))?;
    if !same_file_state(&before, &now) {
        return Err(CommitError::changed(
            store_path,
            "session store changed while it was being patched (another writer); nothing written",
        ));
    }
    tmp.rename_over(&target)?;
    test_step("store-renamed");
    // The new store is in place: a directory fsync failure must not turn that into a
    // failure the caller would try to undo.
    if let Err(e) = fsync_dir(dir) {
        tracing::warn!("session store directory not synced: {e}");
    }
    Ok(PatchOutcome::Written)
}

/// A temp file of ours is stale once its writer is gone and it is this old: a live writer
/// renames its temp file within milliseconds, and the age guards against a pid that was
/// reused or a clock step.
pub const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(5 * 60);

/// Remove `<store>.<pid>.<uuid>.tmp` files that a killed clawtop left beside the store:
/// only names of exactly that shape, only when `pid` is not alive and the file is older
/// than [`STALE_TEMP_AGE`]. Runs under `sessions.json.lock`; failures are only logged.
fn remove_stale_temp_files(dir: &Path, store: &Path) {
    let Some(base) = store.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let Ok(rd) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{base}.");
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(mid) = name
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some((pid, id)) = mid.split_once('.') else {
            continue;
        };
        let Ok(pid) = pid.parse::<i32>() else {
            continue;
        };
        if pid <= 0 || uuid::Uuid::try_parse(id).is_err() {
            continue;
        }
        if lock::pid_alive(pid) {
            continue;
        }
        let Ok(meta) = e.path().symlink_metadata() else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age >= STALE_TEMP_AGE);
        if meta.is_file() && old {
            match fs::remove_file(e.path()) {
                Ok(()) => {
                    tracing::info!(file = %e.path().display(), "removed a stale temp file left by an interrupted clawtop")
                }
                Err(err) => {
                    tracing::warn!(file = %e.path().display(), error = %err, "stale temp file not removed")
                }
            }
        }
    }
}

/// The state dir a store belongs to: `<state>` for `<state>/agents/<id>/sessions/<file>`,
/// else the store's own directory (a store configured elsewhere confines links to its dir).
pub fn state_dir_of(store_path: &Path) -> PathBuf {
    let name = |p: Option<&Path>| p.and_then(Path::file_name).map(|n| n.to_os_string());
    let mut up = store_path.ancestors();
    let (_, sessions, _, agents, state) = (up.next(), up.next(), up.next(), up.next(), up.next());
    match state {
        Some(state)
            if name(sessions).as_deref() == Some("sessions".as_ref())
                && name(agents).as_deref() == Some("agents".as_ref()) =>
        {
            state.to_path_buf()
        }
        _ => parent_dir(store_path).to_path_buf(),
    }
}

/// The file the new store replaces: `store_path` itself, or, when it is a symbolic link, the
/// file it leads to if that is inside the store's state dir (the link stays a link, and the
/// file OpenClaw reads through it gets the update). A link leading out of the state dir,
/// or to something not a regular file, is refused.
fn write_target(store_path: &Path) -> Result<PathBuf, CommitError> {
    let meta = fs::symlink_metadata(store_path)
        .map_err(|e| CommitError::io(store_path, "stat session store", e))?;
    if !meta.file_type().is_symlink() {
        return Ok(store_path.to_path_buf());
    }
    let refuse = |reason: String| CommitError::Refused {
        reason: format!("{} is a symbolic link {reason}", store_path.display()),
    };
    let target = fs::canonicalize(store_path)
        .map_err(|e| refuse(format!("that cannot be followed ({e}); nothing written")))?;
    let state = state_dir_of(store_path);
    let state_real =
        fs::canonicalize(&state).map_err(|e| CommitError::io(&state, "resolve state dir", e))?;
    if !target.starts_with(&state_real) {
        return Err(refuse(format!(
            "to {}, outside the state dir {}; clawtop writes through a link only when it stays inside the state dir; nothing written",
            target.display(),
            state.display()
        )));
    }
    let tmeta =
        fs::metadata(&target).map_err(|e| CommitError::io(&target, "stat link target", e))?;
    if !tmeta.is_file() {
        return Err(refuse(format!(
            "to {}, which is not a regular file; nothing written",
            target.display()
        )));
    }
    tracing::info!(
        link = %store_path.display(),
        target = %target.display(),
        "session store is a symbolic link inside the state dir; writing through to its target"
    );
    Ok(target)
}

fn same_file_state(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.dev() == b.dev()
        && a.ino() == b.ino()
        && a.len() == b.len()
        && a.mtime() == b.mtime()
        && a.mtime_nsec() == b.mtime_nsec()
}

fn read_store(path: &Path) -> Result<(String, fs::Metadata), CommitError> {
    let mut f = crate::regular_file::open(path)
        .map_err(|e| CommitError::io(path, "open session store", e))?;
    let meta = f
        .metadata()
        .map_err(|e| CommitError::io(path, "stat session store", e))?;
    if !meta.is_file() {
        return Err(CommitError::corrupt(path, "not a regular file"));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.read_to_end(&mut bytes)
        .map_err(|e| CommitError::io(path, "read session store", e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        CommitError::corrupt(
            path,
            format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        )
    })?;
    Ok((text, meta))
}

/// New store text: `text` with only the entry's value replaced.
fn splice_entry<F>(
    path: &Path,
    text: &str,
    session_key: &str,
    build: F,
) -> Result<String, CommitError>
where
    F: FnOnce(&Map<String, Value>) -> Result<Vec<(String, PatchOp)>, CommitError>,
{
    if text.trim().is_empty() {
        return Err(CommitError::corrupt(path, "empty file"));
    }
    let root = jstext::parse(text).map_err(|e| CommitError::corrupt(path, e.to_string()))?;
    let Kind::Object(members) = &root.kind else {
        return Err(CommitError::corrupt(path, "top level is not a JSON object"));
    };
    let mut found: Option<&Node<'_>> = None;
    for (k, v) in members {
        if jstext::raw_eq(k, session_key) {
            if found.is_some() {
                // JSON.parse would keep the last; patching either would be a guess.
                return Err(CommitError::corrupt(
                    path,
                    format!("session key {session_key:?} appears more than once"),
                ));
            }
            found = Some(v);
        }
    }
    let entry = found.ok_or_else(|| CommitError::MissingEntry {
        path: path.to_path_buf(),
        key: session_key.to_string(),
    })?;
    let Kind::Object(fields) = &entry.kind else {
        return Err(CommitError::corrupt(
            path,
            format!("entry {session_key:?} is not a JSON object"),
        ));
    };

    let view = match jstext::to_serde(entry) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let ops = build(&view)?;
    let entry_text = render_entry(fields, &ops);

    let mut out = String::with_capacity(text.len() + entry_text.len());
    out.push_str(&text[..entry.span.start]);
    out.push_str(&entry_text);
    out.push_str(&text[entry.span.end..]);

    verify(path, text, &out, members.len(), session_key, &ops)?;
    Ok(out)
}

enum Field<'n, 'a> {
    Old(&'n Node<'a>),
    New(&'n Value),
}

/// The entry as `JSON.stringify(store, null, 2)` writes it at depth 1.
fn render_entry(fields: &[(&str, Node<'_>)], ops: &[(String, PatchOp)]) -> String {
    let mut list: Vec<(Vec<u16>, Field<'_, '_>)> = jstext::dedup_members(fields)
        .into_iter()
        .map(|(k, v)| (jstext::decode_units(k), Field::Old(v)))
        .collect();
    for (key, op) in ops {
        let units: Vec<u16> = key.encode_utf16().collect();
        let pos = list.iter().position(|(k, _)| *k == units);
        match (op, pos) {
            (PatchOp::Set(v), Some(i)) => list[i].1 = Field::New(v),
            (PatchOp::Set(v), None) => list.push((units, Field::New(v))),
            (PatchOp::Remove, Some(i)) => {
                list.remove(i);
            }
            (PatchOp::Remove, None) => {}
        }
    }
    if list.is_empty() {
        return "{}".to_string();
    }
    let mut s = String::from("{\n");
    for (i, (k, v)) in list.iter().enumerate() {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str("    ");
        jstext::quote_units(&mut s, k);
        s.push_str(": ");
        match v {
            Field::Old(node) => jstext::write_node(&mut s, node, 2),
            Field::New(val) => jstext::write_value(&mut s, val, 2),
        }
    }
    s.push_str("\n  }");
    s
}

/// Re-parse the result: valid JSON, same top-level keys, patch visible.
fn verify(
    path: &Path,
    old: &str,
    new: &str,
    top_len: usize,
    session_key: &str,
    ops: &[(String, PatchOp)],
) -> Result<(), CommitError> {
    let fail = |why: String| {
        CommitError::corrupt(
            path,
            format!("internal check failed, nothing written: {why}"),
        )
    };
    let root =
        jstext::parse(new).map_err(|e| fail(format!("patched store does not parse: {e}")))?;
    let Kind::Object(members) = &root.kind else {
        return Err(fail("patched store is not an object".into()));
    };
    if members.len() != top_len {
        return Err(fail("top-level entry count changed".into()));
    }
    let old_root = jstext::parse(old).map_err(|e| fail(e.to_string()))?;
    if let Kind::Object(old_members) = &old_root.kind {
        if old_members
            .iter()
            .zip(members.iter())
            .any(|((a, _), (b, _))| a != b)
        {
            return Err(fail("top-level keys changed".into()));
        }
    }
    let entry = members
        .iter()
        .find(|(k, _)| jstext::raw_eq(k, session_key))
        .map(|(_, v)| jstext::to_serde(v))
        .ok_or_else(|| fail("entry missing after patch".into()))?;
    for (key, op) in ops {
        let present = entry.get(key);
        let ok = match op {
            PatchOp::Remove => present.is_none(),
            PatchOp::Set(v) => present.is_some_and(|p| values_equal(p, v)),
        };
        if !ok {
            return Err(fail(format!("field {key:?} not as patched")));
        }
    }
    Ok(())
}

/// Equality that treats 1 and 1.0 alike (JS has one number type).
fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| values_equal(v, w)))
        }
        _ => a == b,
    }
}

/// `sessions.json.<pid>.<uuid>.tmp`, removed on drop unless renamed.
struct TempFile {
    path: PathBuf,
    file: Option<File>,
    armed: bool,
}

impl TempFile {
    fn create(dir: &Path, store_path: &Path) -> Result<TempFile, CommitError> {
        let base = store_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sessions.json".into());
        let name = format!("{base}.{}.{}.tmp", std::process::id(), uuid::Uuid::new_v4());
        let path = dir.join(name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| CommitError::io(&path, "create temp file", e))?;
        Ok(TempFile {
            path,
            file: Some(file),
            armed: true,
        })
    }

    fn write_all_sync(&self, bytes: &[u8], original: &fs::Metadata) -> Result<(), CommitError> {
        let Some(mut f) = self.file.as_ref() else {
            return Err(CommitError::io(
                &self.path,
                "write temp file",
                std::io::Error::other("closed"),
            ));
        };
        // umask may have narrowed the create mode; OpenClaw's store is always 0600.
        f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .map_err(|e| CommitError::io(&self.path, "chmod temp file", e))?;
        // Run as root on an operator's store, the new file must stay theirs: OpenClaw
        // treats an unreadable (EACCES) store as empty.
        let meta = f
            .metadata()
            .map_err(|e| CommitError::io(&self.path, "stat temp file", e))?;
        if meta.uid() != original.uid() || meta.gid() != original.gid() {
            std::os::unix::fs::fchown(f, Some(original.uid()), Some(original.gid()))
                .map_err(|e| CommitError::io(&self.path, "give temp file the store's owner", e))?;
        }
        f.write_all(bytes)
            .map_err(|e| CommitError::io(&self.path, "write temp file", e))?;
        f.sync_all()
            .map_err(|e| CommitError::io(&self.path, "fsync temp file", e))
    }

    fn rename_over(mut self, target: &Path) -> Result<(), CommitError> {
        self.file = None;
        fs::rename(&self.path, target)
            .map_err(|e| CommitError::io(target, "rename temp file over store", e))?;
        self.armed = false;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            self.file = None;
            let _ = fs::remove_file(&self.path);
        }
    }
}

// ---- the two commit patches of the spec -------------------------------------------

/// Fail with [`CommitError::Changed`] unless the entry's string field `field` equals
/// `expected` (e.g. `sessionId` still the one previewed).
pub fn require_string_field(
    store_path: &Path,
    entry: &Map<String, Value>,
    field: &str,
    expected: &str,
) -> Result<(), CommitError> {
    match entry.get(field).and_then(Value::as_str) {
        Some(v) if v == expected => Ok(()),
        other => Err(CommitError::changed(
            store_path,
            format!(
                "session entry changed since preview ({field} is {}, preview saw {expected:?})",
                other.map_or_else(|| "missing".to_string(), |v| format!("{v:?}"))
            ),
        )),
    }
}

fn current_compaction_count(
    store_path: &Path,
    entry: &Map<String, Value>,
) -> Result<u64, CommitError> {
    match entry.get("compactionCount") {
        None | Some(Value::Null) => Ok(0),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 9.0e15)
                    .map(|f| f as u64)
            })
            .ok_or_else(|| {
                CommitError::corrupt(store_path, format!("compactionCount is not a count: {v}"))
            }),
    }
}

/// Store patch after a compaction (docs/commit-protocol.md §2; OpenClaw
/// `incrementCompactionCount`): `compactionCount += 1`, `totalTokens = tokens_after`,
/// `totalTokensFresh = true`, `updatedAt = now_ms`, and the last-run usage fields removed. Like
/// OpenClaw's entry merge (`updatedAt = max(existing, now)`), `updatedAt` never moves backwards, so
/// a skewed clock can't make the session look older to listing and pruning.
pub fn compaction_patch(
    store_path: &Path,
    entry: &Map<String, Value>,
    tokens_after: u64,
    now_ms: i64,
) -> Result<Vec<(String, PatchOp)>, CommitError> {
    let count = current_compaction_count(store_path, entry)?;
    let existing = entry
        .get("updatedAt")
        .and_then(Value::as_i64)
        .unwrap_or(i64::MIN);
    let updated_at = now_ms.max(existing);
    Ok(vec![
        (
            "compactionCount".into(),
            PatchOp::Set(Value::from(count + 1)),
        ),
        (
            "totalTokens".into(),
            PatchOp::Set(Value::from(tokens_after)),
        ),
        ("totalTokensFresh".into(), PatchOp::Set(Value::Bool(true))),
        ("updatedAt".into(), PatchOp::Set(Value::from(updated_at))),
        ("inputTokens".into(), PatchOp::Remove),
        ("outputTokens".into(), PatchOp::Remove),
        ("cacheRead".into(), PatchOp::Remove),
        ("cacheWrite".into(), PatchOp::Remove),
    ])
}

/// Store patch after a memory flush (docs/commit-protocol.md §3): `memoryFlushAt = now_ms`,
/// `memoryFlushCompactionCount = compactionCount ?? 0`.
pub fn flush_patch(
    store_path: &Path,
    entry: &Map<String, Value>,
    now_ms: i64,
) -> Result<Vec<(String, PatchOp)>, CommitError> {
    let count = current_compaction_count(store_path, entry)?;
    Ok(vec![
        ("memoryFlushAt".into(), PatchOp::Set(Value::from(now_ms))),
        (
            "memoryFlushCompactionCount".into(),
            PatchOp::Set(Value::from(count)),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(text: &str, key: &str, ops: Vec<(String, PatchOp)>) -> Result<String, CommitError> {
        splice_entry(Path::new("sessions.json"), text, key, move |_| Ok(ops))
    }

    #[test]
    fn untouched_entry_is_byte_identical() {
        let text = "{\n  \"a\": {\n    \"sessionId\": \"s1\",\n    \"n\": 1.50,\n    \"e\": \"\\ud83d é\",\n    \"o\": {},\n    \"l\": [\n      1\n    ]\n  },\n  \"b\": {}\n}";
        assert_eq!(splice(text, "a", vec![]).expect("splice"), text);
    }

    #[test]
    fn set_remove_append_keep_order() {
        let text = "{\n  \"a\": {\n    \"x\": 1,\n    \"y\": 2,\n    \"z\": 3\n  }\n}";
        let out = splice(
            text,
            "a",
            vec![
                ("y".into(), PatchOp::Set(serde_json::json!([]))),
                ("x".into(), PatchOp::Remove),
                ("w".into(), PatchOp::Set(serde_json::json!({"k": "v"}))),
            ],
        )
        .expect("splice");
        assert_eq!(
            out,
            "{\n  \"a\": {\n    \"y\": [],\n    \"z\": 3,\n    \"w\": {\n      \"k\": \"v\"\n    }\n  }\n}"
        );
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(matches!(
            splice("[1]", "a", vec![]),
            Err(CommitError::Corrupt { .. })
        ));
        assert!(matches!(
            splice("{\"a\":{}", "a", vec![]),
            Err(CommitError::Corrupt { .. })
        ));
        assert!(matches!(
            splice("{\"b\":{}}", "a", vec![]),
            Err(CommitError::MissingEntry { .. })
        ));
        assert!(matches!(
            splice("{\"a\":1}", "a", vec![]),
            Err(CommitError::Corrupt { .. })
        ));
        assert!(matches!(
            splice("{\"a\":{},\"a\":{}}", "a", vec![]),
            Err(CommitError::Corrupt { .. })
        ));
    }

    #[test]
    fn compaction_patch_never_moves_updated_at_back() {
        let p = Path::new("sessions.json");
        let e = serde_json::json!({"updatedAt": 2000, "compactionCount": 4});
        let e = e.as_object().expect("obj");
        let ops = compaction_patch(p, e, 10, 1000).expect("patch");
        assert!(ops.contains(&("updatedAt".to_string(), PatchOp::Set(Value::from(2000)))));
        assert!(ops.contains(&("compactionCount".to_string(), PatchOp::Set(Value::from(5)))));
        let ops = compaction_patch(p, e, 10, 3000).expect("patch");
        assert!(ops.contains(&("updatedAt".to_string(), PatchOp::Set(Value::from(3000)))));
    }

    #[test]
    fn escaped_keys_match() {
        let text = "{\n  \"k\\u00e9y\": {\n    \"x\": 1\n  }\n}";
        let out = splice(
            text,
            "kéy",
            vec![("x".into(), PatchOp::Set(Value::from(2)))],
        )
        .expect("splice");
        assert_eq!(out, "{\n  \"k\\u00e9y\": {\n    \"x\": 2\n  }\n}");
    }
}
