//! The demo host embedded in the binary (`assets/demo/`, see build.rs).
//!
//! Extracted at runtime into a private temp dir laid out as `<home>/.openclaw`, so that
//! `~/.openclaw/...` paths in the demo config resolve inside it. Removed on drop.

use std::path::{Component, Path, PathBuf};

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
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
