//! Issue 20 item 5: the commit layer's test hooks (`CLAWTOP_TEST_*`, `clawtop::commit` module
//! docs) exist only with the `test-hooks` cargo feature, which no release build has. A test
//! cannot build a release binary (it runs inside `cargo test`, which holds the target dir), so
//! this checks the two things that decide it: the manifest (the feature is off by default and
//! only the crate's dev-dependency on itself turns it on) and the source (every place that
//! reads a hook variable is compiled only with that feature).

use std::path::{Path, PathBuf};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The lines of one `[section]` of Cargo.toml, comments and blanks dropped.
fn section(toml: &str, name: &str) -> Vec<String> {
    let header = format!("[{name}]");
    let mut out = Vec::new();
    let mut inside = false;
    for line in toml.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == header;
            continue;
        }
        if inside && !t.is_empty() && !t.starts_with('#') {
            out.push(t.to_string());
        }
    }
    out
}

#[test]
fn the_test_hooks_feature_is_off_by_default_and_on_only_for_tests() {
    let toml = std::fs::read_to_string(manifest_dir().join("Cargo.toml")).unwrap();
    let features = section(&toml, "features");
    assert!(
        features.iter().any(|l| l.starts_with("test-hooks =")),
        "no test-hooks feature: {features:?}"
    );
    assert!(
        !features
            .iter()
            .any(|l| l.starts_with("default") && l.contains("test-hooks")),
        "test-hooks must not be a default feature: {features:?}"
    );
    for table in ["dependencies", "build-dependencies"] {
        assert!(
            !section(&toml, table)
                .iter()
                .any(|l| l.contains("test-hooks")),
            "[{table}] turns test-hooks on, so a release build would have it"
        );
    }
    let dev = section(&toml, "dev-dependencies");
    assert!(
        dev.iter().any(|l| l.starts_with("clawtop =")
            && l.contains("path = \".\"")
            && l.contains("\"test-hooks\"")),
        "the tests must enable test-hooks through a dev-dependency on the crate: {dev:?}"
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_read_of_a_hook_variable_is_compiled_only_with_the_feature() {
    let mut files = Vec::new();
    rust_files(&manifest_dir().join("src"), &mut files);
    let mut reads = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim_start().starts_with("//") || !line.contains("\"CLAWTOP_TEST_") {
                continue;
            }
            reads += 1;
            // The enclosing function is the nearest `fn` line above; its attributes sit
            // right above it.
            let fn_line = (0..=i)
                .rev()
                .find(|&j| lines[j].trim_start().contains("fn "))
                .unwrap_or_else(|| panic!("{}:{}: no enclosing fn", f.display(), i + 1));
            let attrs: Vec<&str> = lines[..fn_line]
                .iter()
                .rev()
                .take_while(|l| {
                    let t = l.trim_start();
                    t.starts_with("#[") || t.starts_with("///")
                })
                .copied()
                .collect();
            assert!(
                attrs
                    .iter()
                    .any(|a| a.contains("cfg(feature = \"test-hooks\")")),
                "{}:{}: reads a test hook variable outside #[cfg(feature = \"test-hooks\")]",
                f.display(),
                i + 1
            );
        }
    }
    assert!(
        reads >= 3,
        "the three hook variables are read somewhere ({reads} reads found)"
    );
}
