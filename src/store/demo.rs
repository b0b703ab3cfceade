//! The demo host embedded in the binary (`assets/demo/`, see build.rs).
//!
//! Extracted at runtime into a private temp dir laid out as `<home>/.openclaw`, so that
//! `~/.openclaw/...` paths in the demo config resolve inside it. Removed on drop, and by
//! [`remove_leftovers`] when the process exits while a worker thread still holds the host (a
//! transcript being read when a signal ended the TUI): `process::exit` runs no destructors.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// Roots of the copies extracted and not yet removed.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every demo copy still on disk; for the last step before the process exits.
pub fn remove_leftovers() {
    for root in live().drain(..) {
        let _ = std::fs::remove_dir_all(root);
    }
}

include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// An extracted copy of the demo state dir.
#[derive(Debug)]
pub struct DemoDir {
    root: PathBuf,
}

impl DemoDir {
    pub fn extract() -> std::io::Result<DemoDir> {
        let root = std::env::temp_dir().join(format!(
            "clawtop-demo-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&root)?;
        live().push(root.clone());
        let d = DemoDir { root };
        let state = d.state_dir();
        for (rel, bytes) in DEMO_FILES {
            // Only plain relative paths: the list comes from our own build, but be strict.
            let rel = Path::new(rel);
            if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                continue;
            }
            let p = state.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&p, bytes)?;
        }
        std::fs::create_dir_all(&state)?;
        Ok(d)
    }

    /// The fake home (`~`).
    pub fn home(&self) -> PathBuf {
        self.root.clone()
    }

    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".openclaw")
    }

    pub fn file_count() -> usize {
        DEMO_FILES.len()
    }
}

impl Drop for DemoDir {
    fn drop(&mut self) {
        live().retain(|r| *r != self.root);
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The only test in this binary that extracts the demo: `remove_leftovers` removes every
    /// copy of the process.
    #[test]
    fn a_copy_still_held_at_exit_is_removed_by_remove_leftovers() {
        let d = DemoDir::extract().unwrap();
        let root = d.home();
        assert!(root.join(".openclaw/openclaw.json").is_file());
        // Held by a thread that never lets go (process::exit runs no destructors).
        std::mem::forget(d);
        remove_leftovers();
        assert!(!root.exists());
        // A copy dropped normally is removed and forgotten.
        let d = DemoDir::extract().unwrap();
        let root = d.home();
        drop(d);
        assert!(!root.exists());
        assert!(!live().contains(&root));
    }
}
