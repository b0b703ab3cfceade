//! The one way clawtop opens a file it only reads: never blocking, and only if it is a regular
//! file.
//!
//! An ordinary `open` of a FIFO with no writer blocks forever, and a device can be endless
//! (`/dev/zero`) or have side effects on open. Every file an operator's host hands clawtop
//! (store, config, `models.json`, transcripts and their locks, memory notes, databases) can be
//! swapped for one of those by accident or on purpose, so reads go through [`open`]:
//!
//! 1. `stat` the path (links followed) and refuse, without opening it, what is not a regular
//!    file; the refusal says what it is ("a FIFO (named pipe)", "a directory", ...);
//! 2. open it with `O_NONBLOCK | O_CLOEXEC`, so a FIFO swapped in between the two steps
//!    cannot block the open either;
//! 3. `fstat` the open file and refuse again unless it is regular: that is the file read.
//!
//! On a regular file `O_NONBLOCK` changes nothing, so the handle reads as usual. The errors
//! are `io::Error`s of kind `InvalidInput` whose text names the kind, not the path: callers
//! already put the path in front ("cannot read <path>: a FIFO (named pipe), not a regular
//! file").

use rustix::fs::OFlags;
use std::fs::{File, FileType};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What a file that is not regular is, in words for a message.
pub fn describe(ft: FileType) -> &'static str {
    if ft.is_file() {
        "a regular file"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// [`open`]'s refusal, carried inside the `io::Error` so callers recognise it by type.
#[derive(Debug, thiserror::Error)]
#[error("{what}, not a regular file")]
pub struct NotRegular {
    pub what: &'static str,
}

fn not_regular(ft: FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        NotRegular { what: describe(ft) },
    )
}

/// True when the error is [`open`]'s refusal of a file that is not regular.
pub fn is_not_regular(e: &io::Error) -> bool {
    e.get_ref()
        .is_some_and(|inner| inner.downcast_ref::<NotRegular>().is_some())
}

/// Checks, without opening it, that `path` (links followed) is a regular file. `NotFound`
/// when it is absent.
pub fn check(path: &Path) -> io::Result<()> {
    let m = std::fs::metadata(path)?;
    if m.is_file() {
        Ok(())
    } else {
        Err(not_regular(m.file_type()))
    }
}

/// Opens `path` for reading as the module docs say: never blocks, refuses what is not a
/// regular file.
pub fn open(path: &Path) -> io::Result<File> {
    open_with_metadata(path).map(|(f, _)| f)
}

/// [`open`], with the metadata of the file opened (what a stamp takes: not asked twice).
pub fn open_with_metadata(path: &Path) -> io::Result<(File, std::fs::Metadata)> {
    check(path)?;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::CLOEXEC).bits() as i32)
        .open(path)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(not_regular(m.file_type()));
    }
    Ok((f, m))
}

/// The whole file, opened with [`open`].
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut f = open(path)?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    f.read_to_end(&mut buf)?;
    Ok(buf)
}

/// The whole file as UTF-8, opened with [`open`].
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// What a file that is there but not a regular file is (a `sessions.json`, a `models.json`),
/// for the warning (`None` when it is a regular file or absent). Never opens it: a FIFO would block.
pub fn odd_kind(p: &Path) -> Option<String> {
    let lm = std::fs::symlink_metadata(p).ok()?;
    let describe = describe;
    if lm.file_type().is_symlink() {
        return match std::fs::metadata(p) {
            Ok(m) if m.is_file() => None,
            Ok(m) => Some(format!(
                "a symbolic link to {} ({})",
                std::fs::read_link(p)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default(),
                describe(m.file_type())
            )),
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                Some("a symbolic link that loops (too many levels of links)".into())
            }
            Err(_) => Some(format!(
                "a dangling symbolic link (to {})",
                std::fs::read_link(p)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default()
            )),
        };
    }
    if lm.is_file() {
        None
    } else {
        Some(describe(lm.file_type()).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(p: &Path) {
        rustix::fs::mkfifoat(rustix::fs::CWD, p, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
    }

    #[test]
    fn refuses_a_fifo_a_directory_and_a_device_and_reads_a_file() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        mkfifo(&fifo);
        let e = open(&fifo).unwrap_err();
        assert!(is_not_regular(&e), "{e}");
        assert_eq!(e.to_string(), "a FIFO (named pipe), not a regular file");
        assert!(
            read(d.path())
                .unwrap_err()
                .to_string()
                .contains("directory")
        );
        let link = d.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(read(&link).unwrap_err().to_string().contains("device"));
        let f = d.path().join("f");
        std::fs::write(&f, "abc").unwrap();
        assert_eq!(read_to_string(&f).unwrap(), "abc");
        assert_eq!(
            open(&d.path().join("none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
