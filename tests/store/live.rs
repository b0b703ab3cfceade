//! The Sessions screen's reload on a file-backed host (issue 31, "live"): OpenClaw ≤ 2026.7.1
//! appends a turn to a transcript and writes its whole `sessions.json` again; a reload then
//! hands over the rows of only the sessions that changed (a patch), and the rows shown, merged,
//! are what a first load of the changed host shows. What the source cannot tell that way
//! (sessions added or removed, a store that cannot be read) is a whole list, after which
//! patches go on.

use crate::support::fixtures;
use clawtop::store::{Env, Host, Options};
use clawtop::tui::store_adapter;
use clawtop::usecase::list::{RowMemo, SessionRow};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const MAIN: &str = "agent:main:main";
const SECOND: &str = "agent:main:second";
/// Shares SECOND's transcript (the benchmark host's entries share theirs too).
const THIRD: &str = "agent:main:third";
/// Its transcript is gone.
const GONE: &str = "agent:main:gone";
const GONE_SID: &str = "00000000-0000-4000-8000-000000000031";

/// A copy of host-a (OpenClaw 2026.2.26) whose store holds, beside its own session, three more
/// made from it: two sharing a copy of its transcript, one without a transcript.
struct FileHost {
    _dir: tempfile::TempDir,
    state: PathBuf,
}

impl FileHost {
    fn new() -> FileHost {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        crate::support::cli::copy_dir(&fixtures::fixture(fixtures::HOST_A), &state);
        let h = FileHost { _dir: dir, state };
        let sessions = h.sessions();
        let transcript = std::fs::read_dir(&sessions)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .unwrap();
        std::fs::copy(&transcript, sessions.join("second.jsonl")).unwrap();
        let mut store = h.store_value();
        let main = store[MAIN].clone();
        for (key, id, file) in [
            (SECOND, "second-1", Some("second.jsonl")),
            (THIRD, "third-1", Some("second.jsonl")),
            (GONE, GONE_SID, None),
        ] {
            let mut e = main.clone();
            e["sessionId"] = json!(id);
            match file {
                Some(f) => e["sessionFile"] = json!(f),
                None => {
                    e.as_object_mut().unwrap().remove("sessionFile");
                }
            }
            store[key] = e;
        }
        h.save(&store);
        h
    }

    fn sessions(&self) -> PathBuf {
        self.state.join("agents/main/sessions")
    }

    fn store_path(&self) -> PathBuf {
        self.sessions().join("sessions.json")
    }

    fn store_value(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.store_path()).unwrap()).unwrap()
    }

    /// As OpenClaw saves its store: the whole of it, pretty-printed, to a temporary file
    /// renamed over it.
    fn save(&self, store: &Value) {
        replace(
            &self.store_path(),
            serde_json::to_string_pretty(store).unwrap().as_bytes(),
        );
    }

    fn source(&self) -> clawtop::source::SourceHandle {
        let opts = Options {
            state_dir: Some(self.state.clone()),
            ..Default::default()
        };
        clawtop::source::for_host(Host::open(&opts, &Env::default()).unwrap())
    }

    /// What a first load of the host as it is now shows (a new source, nothing kept).
    fn cold(&self) -> Vec<SessionRow> {
        let rows: Vec<SessionRow> = store_adapter::snapshot(&self.source(), None)
            .rows
            .into_iter()
            .map(|r| r.list)
            .collect();
        assert!(!rows.is_empty());
        rows
    }

    /// A turn on SECOND: a user message and a reply appended to its transcript, then the
    /// store written again with its `updatedAt` moved.
    fn turn(&self, input: u64) {
        let t = self.sessions().join("second.jsonl");
        let at = "2026-11-28T10:00:00.000Z";
        let u = json!({"type": "message", "id": format!("live-u{input}"), "parentId": null, "timestamp": at,
            "message": {"role": "user", "content": "one more", "timestamp": 1795234950000i64}});
        let a = json!({"type": "message", "id": format!("live-a{input}"), "parentId": format!("live-u{input}"),
            "timestamp": at, "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
            "provider": "fake", "model": "fake-model", "stopReason": "stop", "timestamp": 1795234950000i64,
            "usage": {"input": input, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 5}}});
        let mut text = std::fs::read_to_string(&t).unwrap();
        text.push_str(&format!("{u}\n{a}\n"));
        std::fs::write(&t, text).unwrap();
        let mut store = self.store_value();
        store[SECOND]["updatedAt"] = json!(1795234950000i64 + input as i64);
        self.save(&store);
    }
}

/// `bytes` written to a temporary file beside `path`, renamed over it.
fn replace(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Past the settling time of every file written so far: a file changed within it is told
/// as changed again at the next patch (it could have changed unseen in the same tick).
fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(1100));
}

fn kept(src: &clawtop::source::SourceHandle, memo: &mut RowMemo) -> Vec<SessionRow> {
    store_adapter::snapshot_kept(src, None, memo)
        .rows
        .into_iter()
        .map(|r| r.list)
        .collect()
}

fn patch(src: &clawtop::source::SourceHandle, memo: &mut RowMemo) -> Option<Vec<SessionRow>> {
    store_adapter::snapshot_changed(src, None, memo).map(|s| {
        assert!(s.patch);
        s.rows.into_iter().map(|r| r.list).collect()
    })
}

/// The patch's rows, each in its session's place in `shown`; the keys patched.
fn merge(shown: &mut [SessionRow], rows: Vec<SessionRow>) -> BTreeSet<String> {
    let keys = rows.iter().map(|r| r.key().to_string()).collect();
    for r in rows {
        let i = shown.iter().position(|s| s.key() == r.key()).unwrap();
        shown[i] = r;
    }
    keys
}

fn keys(k: &[&str]) -> BTreeSet<String> {
    k.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_reload_of_a_file_host_hands_over_only_the_rows_that_changed() {
    let h = FileHost::new();
    // Files written within the settling time are not kept by a row (they are read again).
    settle();
    let src = h.source();
    let mut memo = RowMemo::default();
    let mut shown = kept(&src, &mut memo);
    assert_eq!(shown.len(), 4);
    assert_eq!(shown, h.cold());
    assert_eq!(patch(&src, &mut memo), Some(vec![]), "nothing changed");

    // The TUI's loader watches the stores, so its first listing kept their bytes: the first
    // turn is a patch already.
    h.turn(30_000);
    let rows = patch(&src, &mut memo).expect("a turn is a patch");
    assert_eq!(merge(&mut shown, rows), keys(&[SECOND, THIRD]));
    assert_eq!(shown, h.cold());

    // A turn: the transcript appended to, the whole store written again. The two sessions
    // on that transcript, and only they.
    settle();
    let before = shown.iter().find(|r| r.key() == SECOND).unwrap().clone();
    h.turn(31_000);
    let rows = patch(&src, &mut memo).expect("a turn is a patch");
    assert_eq!(merge(&mut shown, rows), keys(&[SECOND, THIRD]));
    assert_eq!(shown, h.cold());
    let after = shown.iter().find(|r| r.key() == SECOND).unwrap();
    assert_ne!(
        after.transcript_context, before.transcript_context,
        "the row follows the turn"
    );

    // An entry edited alone (its transcript untouched): that row.
    settle();
    let mut store = h.store_value();
    store[MAIN]["totalTokens"] = json!(4242);
    store[MAIN]["model"] = json!("another-model");
    h.save(&store);
    let rows = patch(&src, &mut memo).expect("an entry edited is a patch");
    assert_eq!(merge(&mut shown, rows), keys(&[MAIN]));
    assert_eq!(shown, h.cold());
    settle();
    assert_eq!(patch(&src, &mut memo), Some(vec![]));

    // The transcript truncated (its last turn cut), then replaced by a file of the same
    // bytes and mtime (another inode): its sessions each time.
    let t = h.sessions().join("second.jsonl");
    let text = std::fs::read_to_string(&t).unwrap();
    let cut = text[..text.len() - 1].rfind('\n').unwrap() + 1;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&t)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    let rows = patch(&src, &mut memo).expect("a truncated transcript is a patch");
    assert_eq!(merge(&mut shown, rows), keys(&[SECOND, THIRD]));
    assert_eq!(shown, h.cold());
    settle();
    let mtime = std::fs::metadata(&t).unwrap().modified().unwrap();
    let bytes = std::fs::read(&t).unwrap();
    replace(&t, &bytes);
    std::fs::File::options()
        .write(true)
        .open(&t)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let rows = patch(&src, &mut memo).expect("a replaced transcript is a patch");
    assert_eq!(merge(&mut shown, rows), keys(&[SECOND, THIRD]));
    assert_eq!(shown, h.cold());

    // A transcript appears for the session that had none: its row.
    settle();
    std::fs::copy(&t, h.sessions().join(format!("{GONE_SID}.jsonl"))).unwrap();
    let rows = patch(&src, &mut memo).expect("a transcript found is a patch");
    assert_eq!(merge(&mut shown, rows), keys(&[GONE]));
    assert_eq!(shown, h.cold());

    // A session added, then removed: each time the whole list.
    let mut store = h.store_value();
    let added = store[MAIN].clone();
    store["agent:main:added-31"] = added;
    h.save(&store);
    assert!(patch(&src, &mut memo).is_none());
    shown = kept(&src, &mut memo);
    assert_eq!(shown.len(), 5);
    assert_eq!(shown, h.cold());
    store.as_object_mut().unwrap().remove("agent:main:added-31");
    h.save(&store);
    assert!(patch(&src, &mut memo).is_none());
    shown = kept(&src, &mut memo);
    assert_eq!(shown, h.cold());

    // Patches go on.
    settle();
    h.turn(32_000);
    let rows = patch(&src, &mut memo).expect("patches go on");
    assert_eq!(merge(&mut shown, rows), keys(&[SECOND, THIRD]));
    assert_eq!(shown, h.cold());
}

/// A store that cannot be read between two reloads (a torn write, a FIFO put in its place)
/// is no patch: the whole list says why; once it reads again, so do patches.
#[test]
fn an_unreadable_store_mid_way_is_a_whole_list_then_patches_go_on() {
    let h = FileHost::new();
    // Files written within the settling time are not kept by a row (they are read again).
    settle();
    let src = h.source();
    let mut memo = RowMemo::default();
    let mut shown = kept(&src, &mut memo);
    assert_eq!(patch(&src, &mut memo), Some(vec![]));
    // A patch has kept the store's bytes: what follows is compared with them.
    h.turn(32_500);
    let rows = patch(&src, &mut memo).expect("a turn is a patch");
    assert_eq!(merge(&mut shown, rows), keys(&[SECOND, THIRD]));
    let good = std::fs::read(h.store_path()).unwrap();
    for bad in [&good[..good.len() / 2], &b""[..], b"[1, 2]"] {
        replace(&h.store_path(), bad);
        assert!(
            patch(&src, &mut memo).is_none(),
            "no patch over a bad store"
        );
        let whole = store_adapter::snapshot_kept(&src, None, &mut memo);
        assert!(
            whole.errors.iter().any(|e| e.contains("sessions.json")),
            "the whole list names the store: {:?}",
            whole.errors
        );
        // Until a whole list reads it again, no patch.
        replace(&h.store_path(), &good);
        assert!(patch(&src, &mut memo).is_none());
        assert_eq!(kept(&src, &mut memo), shown);
    }
    std::fs::remove_file(h.store_path()).unwrap();
    assert!(patch(&src, &mut memo).is_none());
    replace(&h.store_path(), &good);
    assert!(patch(&src, &mut memo).is_none());
    assert_eq!(kept(&src, &mut memo), h.cold());
    settle();
    h.turn(33_000);
    let rows = patch(&src, &mut memo).expect("patches go on");
    assert_eq!(merge(&mut shown, rows), keys(&[SECOND, THIRD]));
    assert_eq!(shown, h.cold());
}

/// A listing nobody watches (a one-shot `list`) keeps nothing of the stores: asked what
/// changed after it, the source cannot tell; the listings after that keep what they read.
#[test]
fn a_one_shot_listing_keeps_nothing() {
    let h = FileHost::new();
    settle();
    let src = h.source();
    assert_eq!(src.list(None).sessions.len(), 4);
    assert!(src.list_changed(None).is_none());
    assert_eq!(src.list(None).sessions.len(), 4);
    assert_eq!(src.list_changed(None).map(|l| l.sessions.len()), Some(0));
    h.turn(34_000);
    let named: BTreeSet<String> = src
        .list_changed(None)
        .expect("a turn is a patch")
        .sessions
        .iter()
        .map(|s| s.key().to_string())
        .collect();
    assert_eq!(named, keys(&[SECOND, THIRD]));
}

/// Sessions on one transcript are built from one read of it (a patch lists them one after
/// the other): each gets the row it gets alone.
#[test]
fn sessions_sharing_a_transcript_get_the_rows_they_get_alone() {
    use clawtop::source::Listing;
    use clawtop::usecase::list::{Options, from_listing};
    let h = FileHost::new();
    let src = h.source();
    let listing = src.list(None);
    let (second, third) = (&listing.sessions[1], &listing.sessions[2]);
    assert_eq!((second.key(), third.key()), (SECOND, THIRD));
    assert_eq!(second.transcript, third.transcript);
    let opts = Options::default();
    let together = from_listing(src.as_ref(), &opts, &listing).sessions;
    for (s, row) in listing.sessions.iter().zip(&together) {
        let alone = Listing {
            sessions: vec![s.clone()],
            ..Listing::default()
        };
        assert_eq!(&from_listing(src.as_ref(), &opts, &alone).sessions[0], row);
    }
}
