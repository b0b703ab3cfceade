//! Embeds every file under `assets/demo/` into the binary (for `clawtop --demo`).
//!
//! A build script rather than the `include_dir` crate: one `include_bytes!` per file is all
//! that is needed, and it keeps the dependency tree as it is. The list is generic over
//! whatever the folder holds, so regenerating the demo needs no code change.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut items: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    items.sort();
    for p in items {
        if p.is_dir() {
            walk(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("assets/demo");
    println!("cargo:rerun-if-changed=assets/demo");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut src = String::from(
        "/// (path relative to the demo state dir, bytes)\npub static DEMO_FILES: &[(&str, &[u8])] = &[\n",
    );
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let Ok(rel) = f.strip_prefix(&root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let _ = writeln!(
            src,
            "    ({rel:?}, include_bytes!({:?})),",
            f.display().to_string()
        );
    }
    src.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("demo_files.rs");
    if let Err(e) = std::fs::write(&out, src) {
        panic!("cannot write {}: {e}", out.display());
    }
}
