//! A summary written to a file of the operator's choosing. Temp file + rename in the target's
//! directory, so a reader never sees half a file; an existing file is replaced only when the
//! operator said so (without that, the rename refuses to replace it, atomically: no check
//! then write race).

use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("{} exists", path.display())]
    Exists { path: PathBuf },
    #[error("cannot write {}: {why}", path.display())]
    Io { path: PathBuf, why: String },
}

/// `./<session key>-compaction-<n>.md`, with every character of the key that is not a
/// letter, digit, `.`, `_` or `-` turned into `-` (keys hold `:`, `+`, `/`).
pub fn default_path(session_key: &str, n: usize) -> PathBuf {
    let safe: String = session_key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let safe = safe.trim_start_matches(['.', '-']);
    let safe = if safe.is_empty() { "session" } else { safe };
    PathBuf::from(format!("./{safe}-compaction-{n}.md"))
}

/// The path an operator typed: `~/…` under `home`; anything else as typed (a relative path is
/// relative to the directory clawtop was started in).
pub fn typed_path(typed: &str, home: Option<&Path>) -> PathBuf {
    match (typed.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(typed),
    }
}

/// Writes `text` to `path` (temp + rename); refuses an existing `path` unless `overwrite`.
pub fn write(path: &Path, text: &str, overwrite: bool) -> Result<(), ExportError> {
    let io = |e: std::io::Error| ExportError::Io {
        path: path.to_path_buf(),
        why: e.to_string(),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !overwrite && path.exists() {
        return Err(ExportError::Exists {
            path: path.to_path_buf(),
        });
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".clawtop-export-")
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(text.as_bytes()).map_err(io)?;
    if !text.ends_with('\n') {
        tmp.write_all(b"\n").map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    if overwrite {
        tmp.persist(path).map_err(|e| io(e.error))?;
    } else {
        // Refuses atomically when the file appeared meanwhile.
        tmp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                ExportError::Exists {
                    path: path.to_path_buf(),
                }
            } else {
                io(e.error)
            }
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_are_plain_file_names() {
        assert_eq!(
            default_path("agent:main:whatsapp:dm:+34690395233", 2),
            PathBuf::from("./agent-main-whatsapp-dm--34690395233-compaction-2.md")
        );
        assert_eq!(
            default_path("../..", 1),
            PathBuf::from("./session-compaction-1.md")
        );
    }

    #[test]
    fn a_typed_tilde_is_the_home() {
        let home = Path::new("/home/op");
        assert_eq!(
            typed_path("~/notes/s.md", Some(home)),
            PathBuf::from("/home/op/notes/s.md")
        );
        assert_eq!(typed_path("./s.md", Some(home)), PathBuf::from("./s.md"));
        assert_eq!(typed_path("~/s.md", None), PathBuf::from("~/s.md"));
    }

    #[test]
    fn never_overwrites_without_being_told() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.md");
        write(&p, "one", false).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one\n");
        assert_eq!(
            write(&p, "two", false),
            Err(ExportError::Exists { path: p.clone() })
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one\n");
        write(&p, "two\n", true).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two\n");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temp file left behind");
        assert!(matches!(
            write(&dir.path().join("no/such/dir/s.md"), "x", false),
            Err(ExportError::Io { .. })
        ));
    }
}
