//! Issue 9: `Ctrl-T` hands the dialog's text to `$EDITOR` with the TUI suspended, under a
//! real pty (Python's `pty` module drives the binary): while the editor runs the terminal is
//! out of raw mode and off the alternate screen, afterwards the TUI takes it back, redraws,
//! and shows what the editor wrote; the private temp file is gone.

use crate::support::pty;
use crate::support::tui::fixture;
use std::process::Command;

const SETUP: &str = r#"
import fcntl, json, os, pty, select, struct, sys, termios, time
exe, file, editor, tmp = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update({"TMPDIR": tmp, "TERM": "xterm-256color", "EDITOR": editor,
                       "COLUMNS": "100", "LINES": "30"})
    os.environ.pop("VISUAL", None)
    # A pty starts at 0x0: give it a size, as a terminal would.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    os.execv(exe, [exe, file])
"#;

const STEPS: &str = r#"
def pos(i, start):
    return i if i >= 0 else start
steps = {}
def dump():
    steps["tail"] = out[steps_c:steps_c + 3000].decode("latin-1")
at = wait_for(b"\x1b[?1049h", 0)
steps["entered"] = at >= 0
# The Session screen of the file, once the transcript is loaded (its entries are listed;
# before that `c` only says it is still loading).
at = pos(wait_for(b"COMPACTION", at), at)
os.write(fd, b"c")
steps_c = len(out)
i = wait_for(b"Instructions", at)
steps["dialog"] = i >= 0
at = pos(i, at)
os.write(fd, b"\x14")  # Ctrl-T
left = wait_for(b"\x1b[?1049l", at)
steps["left_alt_screen"] = left >= 0
at = pos(left, at)
back = wait_for(b"\x1b[?1049h", at)
steps["back_on_alt_screen"] = back >= 0
at = pos(back, at)
steps["shows_edit"] = wait_for(b"FROM-PTY-EDITOR", at) >= 0
os.write(fd, b"\x03")  # Ctrl-C quits
"#;

#[test]
fn ctrl_t_suspends_the_tui_for_the_editor_and_reads_the_text_back() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.jsonl");
    std::fs::copy(fixture("transcripts/v3-two-compactions.jsonl"), &file).unwrap();
    let seen = dir.path().join("seen");
    // The editor: records the terminal's mode (canonical = the TUI let go of raw mode) and
    // the file, then writes its text.
    let script = dir.path().join("editor.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nstty -a < /dev/tty | tr ' ' '\\n' | grep -x -- '-\\?icanon' > '{s}'\necho \"$1\" >> '{s}'\nprintf 'FROM-PTY-EDITOR\\n' > \"$1\"\n",
            s = seen.display()
        ),
    )
    .unwrap();
    let driver = pty::driver(&[SETUP, pty::WAIT_FOR, STEPS, pty::FINISH]);
    let o = Command::new("python3")
        .args([
            "-c",
            &driver,
            env!("CARGO_BIN_EXE_clawtop"),
            file.to_str().unwrap(),
            &format!("sh {}", script.display()),
            tmp.path().to_str().unwrap(),
        ])
        .output()
        .expect("python3");
    assert!(
        o.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for step in [
        "entered",
        "dialog",
        "left_alt_screen",
        "back_on_alt_screen",
        "shows_edit",
    ] {
        assert_eq!(v[step], true, "{step}: {v}");
    }
    assert_eq!(v["code"], 0, "{v}");
    let seen = std::fs::read_to_string(&seen).expect("the editor ran");
    let mut lines = seen.lines();
    assert_eq!(lines.next(), Some("icanon"), "raw mode was left: {seen}");
    let path = lines.next().expect("file path");
    assert!(path.starts_with(tmp.path().to_str().unwrap()), "{path}");
    assert!(!std::path::Path::new(path).exists(), "temp file removed");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}
