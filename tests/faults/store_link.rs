//! Issue 12 item 8: a symlinked `sessions.json` is written through to its target when the
//! target is inside the state dir, and refused (saying so) otherwise; the link is never
//! replaced by a regular file.

use clawtop::commit::{CommitError, compaction_patch, patch_store_entry};
use std::fs;
use std::path::{Path, PathBuf};

const KEY: &str = "agent:main:main";
const STORE: &str = r#"{
  "agent:main:main": {
    "sessionId": "s1",
    "updatedAt": 1,
    "compactionCount": 2
  }
}"#;

/// `<tmp>/state/agents/main/sessions/` with the real store at `real_at` (relative to the tmp
/// dir) and `sessions.json` a link to it.
fn layout(tmp: &Path, real_at: &str) -> (PathBuf, PathBuf) {
    let sessions = tmp.join("state/agents/main/sessions");
    fs::create_dir_all(&sessions).unwrap();
    let real = tmp.join(real_at);
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    fs::write(&real, STORE).unwrap();
    let link = sessions.join("sessions.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    (link, real)
}

fn patch(store: &Path) -> Result<(), CommitError> {
    patch_store_entry(store, KEY, |e| compaction_patch(store, e, 1000, 5)).map(drop)
}

#[test]
fn a_link_inside_the_state_dir_is_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let (link, real) = layout(tmp.path(), "state/stores/main-sessions.json");
    patch(&link).unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    let now = fs::read_to_string(&real).unwrap();
    assert!(now.contains("\"compactionCount\": 3"), "{now}");
    let leftovers: Vec<_> = fs::read_dir(real.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_link_leaving_the_state_dir_is_refused_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (link, real) = layout(tmp.path(), "elsewhere/sessions.json");
    let e = patch(&link).unwrap_err();
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("symbolic link"), "{msg}");
    assert!(msg.contains("outside the state dir"), "{msg}");
    assert!(msg.contains(&real.display().to_string()), "{msg}");
    assert_eq!(
        fs::read_to_string(&real).unwrap(),
        STORE,
        "target untouched"
    );
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
