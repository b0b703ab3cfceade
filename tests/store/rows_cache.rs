//! The rows cache (`usecase::rows_cache`, docs/cache.md): a listing that finds a transcript
//! unchanged reads nothing of it, and every way a transcript can change under a cache entry
//! gives the row a cold run gives. The reads are counted from the `clawtop::io` events.

use crate::support::cli::{assistant, user};
use crate::support::fixtures;
use crate::support::io_counts::IoCounts;
use clawtop::source::SourceHandle;
use clawtop::store::{Env, Host, Options};
use clawtop::usecase::rows_cache;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

const SESSION_ID: &str = "97f75c20-5cc1-429c-a417-d0c0ee5fec68";

/// A file-backed host whose one session's `used` comes from its transcript, and a cache dir.
struct Case {
    dir: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("agents/main/sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::copy(
            fixtures::fixture("transcripts/v3-two-compactions.jsonl"),
            sessions.join(format!("{SESSION_ID}.jsonl")),
        )
        .unwrap();
        let store = json!({"agent:main:main": {"sessionId": SESSION_ID, "updatedAt": 1, "contextTokens": 32000, "compactionCount": 2}});
        std::fs::write(sessions.join("sessions.json"), store.to_string()).unwrap();
        std::fs::write(dir.path().join("openclaw.json"), "{}").unwrap();
        let case = Case {
            dir,
            cache: tempfile::tempdir().unwrap(),
        };
        settle();
        case
    }

    fn transcript(&self) -> PathBuf {
        self.dir
            .path()
            .join(format!("agents/main/sessions/{SESSION_ID}.jsonl"))
    }

    fn source(&self) -> SourceHandle {
        let opts = Options {
            state_dir: Some(self.dir.path().to_path_buf()),
            ..Default::default()
        };
        clawtop::source::for_host(Host::open(&opts, &Env::default()).unwrap())
    }

    /// `list --json` with the cache, and what it read.
    fn warm(&self) -> (String, IoCounts) {
        list_json(&self.source(), Some(self.cache.path()))
    }

    /// `list --json` without any cache.
    fn cold(&self) -> String {
        list_json(&self.source(), None).0
    }

    fn cache_files(&self) -> Vec<PathBuf> {
        match std::fs::read_dir(self.cache.path().join("rows")) {
            Ok(d) => d.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    }
}

fn list_json(source: &SourceHandle, cache: Option<&Path>) -> (String, IoCounts) {
    let counts = IoCounts::default();
    let opts = clawtop::usecase::list::Options {
        cache,
        ..Default::default()
    };
    let r = counts.during(|| clawtop::usecase::list::build(source.as_ref(), &opts));
    (clawtop::report::json::to_string(&r), counts)
}

/// A file changed less than `source::stamp::SETTLE` (1 s) ago is not stamped: wait past it,
/// as a transcript on a host is still between turns.
fn settle() {
    std::thread::sleep(Duration::from_millis(1100));
}

fn used_of(json: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["sessions"][0]["used"].clone()
}

/// A first listing measures and remembers; the second reads nothing of the transcript and
/// prints the same bytes.
fn primed(case: &Case) -> String {
    let (first, counts) = case.warm();
    assert_eq!(counts.get("transcript read"), 1);
    assert_eq!(first, case.cold());
    let (second, counts) = case.warm();
    assert_eq!(counts.get("transcript read"), 0, "remembered");
    assert_eq!(counts.get("rows cache read"), 1);
    assert_eq!(
        counts.get("rows cache written"),
        0,
        "nothing changed, nothing written"
    );
    assert_eq!(second, first);
    first
}

/// After a change, the cached listing reads the transcript again and says what a cold one
/// says, and its figures differ from before when `differs`.
fn after_change(case: &Case, before: &str, differs: bool) {
    let (warm, counts) = case.warm();
    assert_eq!(counts.get("transcript read"), 1, "the change is seen");
    assert_eq!(warm, case.cold());
    if differs {
        assert_ne!(used_of(&warm), used_of(before), "the figures moved");
    }
    // And it is remembered again once still.
    settle();
    let (again, counts) = case.warm();
    assert_eq!(counts.get("transcript read"), 0);
    assert_eq!(again, warm);
}

#[test]
fn an_unchanged_transcript_is_not_read_again() {
    let case = Case::new();
    primed(&case);
    assert_eq!(case.cache_files().len(), 1);
    let bytes = std::fs::read(&case.cache_files()[0]).unwrap();
    // The file's strings are stored as they are (MessagePack), and read back as JSON.
    let text = rows_cache::to_json(&bytes)
        .expect("a cache file")
        .to_string();
    assert!(text.contains("\"used\""), "the rows are in it");
    for needle in ["docs/release.md", "Thanks."] {
        assert!(
            !text.contains(needle) && !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
            "figures only, no transcript text"
        );
    }
}

#[test]
fn an_append_is_seen() {
    let case = Case::new();
    let before = primed(&case);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(case.transcript())
        .unwrap();
    use std::io::Write;
    writeln!(f, "{}", user("n1", Some("0dff5b74"), "more")).unwrap();
    writeln!(f, "{}", assistant("n2", "n1", "ok", 20_000)).unwrap();
    drop(f);
    settle();
    after_change(&case, &before, true);
}

/// The last reply's totalTokens rewritten with as many digits, the mtime set back: same size,
/// same mtime (the ctime and the tail's hash tell).
#[test]
fn a_rewrite_with_the_same_size_and_mtime_is_seen() {
    let case = Case::new();
    let before = primed(&case);
    let p = case.transcript();
    let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    let changed = text.replacen("\"totalTokens\":16410,", "\"totalTokens\":19410,", 1);
    assert_ne!(changed, text);
    assert_eq!(changed.len(), text.len());
    std::fs::write(&p, changed).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&p).unwrap().modified().unwrap(), mtime);
    settle();
    after_change(&case, &before, true);
}

/// The store's entries are remembered with its stamp: an unchanged store is not parsed
/// again, and an entry rewritten with as many bytes and the mtime set back (the ctime and
/// the ends' hash tell), an entry added, or a store that just changed are read again.
#[test]
fn a_store_is_parsed_again_only_when_it_changed() {
    let case = Case::new();
    let before = primed(&case);
    let (_, counts) = case.warm();
    assert_eq!(
        counts.get("sessions.json remembered"),
        1,
        "not parsed again"
    );
    let store = case.dir.path().join("agents/main/sessions/sessions.json");
    let edit = |from: &str, to: &str| {
        let mtime = std::fs::metadata(&store).unwrap().modified().unwrap();
        let text = std::fs::read_to_string(&store).unwrap();
        let changed = text.replacen(from, to, 1);
        assert_ne!(changed, text);
        std::fs::write(&store, changed).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&store)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    };
    let window = |json: &str| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(json).unwrap()["sessions"][0]["window"].clone()
    };
    edit("\"contextTokens\":32000", "\"contextTokens\":16000");
    settle();
    let (warm, counts) = case.warm();
    assert_eq!(
        counts.get("sessions.json remembered"),
        0,
        "the edit is seen"
    );
    assert_eq!(warm, case.cold());
    assert_ne!(window(&warm), window(&before), "the window moved");
    let (again, counts) = case.warm();
    assert_eq!(counts.get("sessions.json remembered"), 1, "remembered anew");
    assert_eq!(again, warm);
    // Changed within the last second: read, not trusted to its stamp.
    edit("\"contextTokens\":16000", "\"contextTokens\":24000");
    let (warm, counts) = case.warm();
    assert_eq!(counts.get("sessions.json remembered"), 0);
    assert_eq!(warm, case.cold());
    // An entry added.
    settle();
    let mut store_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    store_json["agent:main:other"] =
        json!({"sessionId": "0d7c1c54-7f7e-4f7e-9d55-2d3f4e5a6b7c", "updatedAt": 2});
    std::fs::write(&store, store_json.to_string()).unwrap();
    settle();
    let (warm, counts) = case.warm();
    assert_eq!(counts.get("sessions.json remembered"), 0);
    assert_eq!(warm, case.cold());
    assert!(warm.contains("agent:main:other"));
}

#[test]
fn a_truncation_is_seen() {
    let case = Case::new();
    let before = primed(&case);
    let p = case.transcript();
    let text = std::fs::read_to_string(&p).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&p, format!("{}\n", lines[..lines.len() - 2].join("\n"))).unwrap();
    settle();
    after_change(&case, &before, true);
}

/// Another file renamed over the transcript, with the same size and mtime: a new inode.
#[test]
fn a_replaced_file_with_the_same_size_and_mtime_is_seen() {
    let case = Case::new();
    let before = primed(&case);
    let p = case.transcript();
    let meta = std::fs::metadata(&p).unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    let other = p.with_extension("new");
    std::fs::write(
        &other,
        text.replacen("\"totalTokens\":16410,", "\"totalTokens\":11410,", 1),
    )
    .unwrap();
    std::fs::File::options()
        .write(true)
        .open(&other)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    std::fs::rename(&other, &p).unwrap();
    assert_eq!(std::fs::metadata(&p).unwrap().len(), meta.len());
    settle();
    after_change(&case, &before, true);
}

/// A transcript changed within the last second is read, not trusted to its timestamps.
#[test]
fn a_transcript_that_just_changed_is_read() {
    let case = Case::new();
    primed(&case);
    let p = case.transcript();
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replacen("\"totalTokens\":16410,", "\"totalTokens\":19410,", 1),
    )
    .unwrap();
    let (warm, counts) = case.warm();
    assert_eq!(counts.get("transcript read"), 1);
    assert_eq!(warm, case.cold());
}

#[test]
fn a_corrupt_or_foreign_cache_is_ignored_and_rewritten() {
    let case = Case::new();
    let good = primed(&case);
    let file = case.cache_files().pop().unwrap();
    let valid = rows_cache::to_json(&std::fs::read(&file).unwrap()).expect("a cache file");
    let format = rows_cache::FORMAT;
    let edited = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = valid.clone();
        f(&mut v);
        assert_ne!(v, valid);
        rows_cache::from_json(&v).expect("written back")
    };
    // Well-formed files whose figures are wrong but whose format, build or host is another.
    let lying = |v: &mut serde_json::Value| {
        for r in v["rows"].as_array_mut().unwrap() {
            r["row"]["used"] = serde_json::json!(1);
        }
    };
    let foreign = edited(&|v| {
        v["format"] = "clawtop-rows/0".into();
        lying(v);
    });
    let other_build = edited(&|v| {
        let b = v["build"].as_str().unwrap().to_string();
        assert!(b.starts_with(&format!("{} ", env!("CARGO_PKG_VERSION"))));
        v["build"] = b
            .replacen(env!("CARGO_PKG_VERSION"), "0.0.0-other", 1)
            .into();
        lying(v);
    });
    let other_host = edited(&|v| {
        v["host"] = format!("/elsewhere{}", v["host"].as_str().unwrap()).into();
        lying(v);
    });
    // The same file with its figures changed is read as it says (what was written is used).
    let mut lied = valid.clone();
    lying(&mut lied);
    std::fs::write(&file, rows_cache::from_json(&lied).unwrap()).unwrap();
    let (out, counts) = case.warm();
    assert_eq!(
        counts.get("transcript read"),
        0,
        "this build's file is trusted"
    );
    assert_ne!(
        out, good,
        "so the files below would show their figures if they were"
    );
    for bad in [
        b"{not json".to_vec(),
        Vec::new(),
        b"\x00\x01garbage".to_vec(),
        // The JSON text of a valid file (the format before MessagePack).
        valid.to_string().into_bytes(),
        foreign,
        other_build,
        other_host,
        b"[]".to_vec(),
        b"\x90".to_vec(),
    ] {
        std::fs::write(&file, &bad).unwrap();
        let (out, counts) = case.warm();
        assert_eq!(
            out,
            good,
            "cache content {:.40?} changes no output",
            String::from_utf8_lossy(&bad)
        );
        assert_eq!(counts.get("transcript read"), 1, "measured again");
        let rewritten = rows_cache::to_json(&std::fs::read(&file).unwrap()).expect("rewritten");
        assert_eq!(rewritten["format"], format, "rewritten");
        let (again, counts) = case.warm();
        assert_eq!(counts.get("transcript read"), 0, "and used");
        assert_eq!(again, good);
    }
}

#[test]
fn an_unwritable_cache_dir_changes_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let case = Case::new();
    let cold = case.cold();
    // A cache dir below a plain file cannot be created, whoever runs the test.
    let file = case.cache.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    for _ in 0..2 {
        let (out, counts) = list_json(&case.source(), Some(&file.join("clawtop")));
        assert_eq!(out, cold);
        assert_eq!(counts.get("transcript read"), 1);
        assert_eq!(counts.get("rows cache not written"), 1);
    }
    // A read-only dir (a read-only home): the same output; nothing written unless the
    // test runs with the privilege to write there anyway.
    let ro = case.cache.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let privileged = std::fs::write(ro.join("probe"), "").is_ok();
    let (out, counts) = list_json(&case.source(), Some(&ro.join("clawtop")));
    assert_eq!(out, cold);
    assert_eq!(
        counts.get("rows cache not written"),
        usize::from(!privileged)
    );
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Deleting the cache between runs changes no output.
#[test]
fn a_deleted_cache_is_measured_again() {
    let case = Case::new();
    let good = primed(&case);
    std::fs::remove_dir_all(case.cache.path().join("rows")).unwrap();
    let (out, counts) = case.warm();
    assert_eq!(out, good);
    assert_eq!(counts.get("transcript read"), 1);
}
