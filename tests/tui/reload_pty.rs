//! Issue 17 item 5 under a real pty (Python's `pty` module drives the binary): the TUI on a
//! host whose store becomes unreadable keeps its rows after `r` and says the reload failed;
//! it never claims the host has no sessions.

use crate::support::cli::copy_dir;
use crate::support::fixtures::{self, fixture};
use crate::support::pty;
use std::process::Command;

const SETUP: &str = r#"
import fcntl, json, os, pty, select, shutil, struct, sys, termios, time
exe, state, home = sys.argv[1], sys.argv[2], sys.argv[3]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update({"TERM": "xterm-256color", "HOME": home, "COLUMNS": "100", "LINES": "30"})
    for k in list(os.environ):
        if k.startswith("OPENCLAW_"):
            del os.environ[k]
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    os.execv(exe, [exe, "--state-dir", state, "--no-live"])
"#;

const STEPS: &str = r#"
steps = {}
at = wait_for(b"40k/48k", 0)
steps["rows"] = at >= 0
store = os.path.join(state, "agents/main/sessions/sessions.json")
os.remove(store)
os.mkdir(store)
mark = len(out)
os.write(fd, b"r")
steps["failed"] = wait_for(b"reload failed", mark) >= 0
steps["no_empty_claim"] = out.find(b"No sessions found", mark) < 0
os.write(fd, b"\x03")
"#;

#[test]
fn an_unreadable_store_after_r_keeps_the_rows_under_a_pty() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    copy_dir(&fixture(fixtures::HOST_A), &state);
    let driver = pty::driver(&[SETUP, pty::WAIT_FOR, STEPS, pty::FINISH]);
    let o = Command::new("python3")
        .args([
            "-c",
            &driver,
            env!("CARGO_BIN_EXE_clawtop"),
            state.to_str().unwrap(),
            dir.path().to_str().unwrap(),
        ])
        .output()
        .expect("python3");
    assert!(
        o.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for step in ["rows", "failed", "no_empty_claim"] {
        assert_eq!(v[step], true, "{step}: {v}");
    }
    assert_eq!(v["code"], 0, "{v}");
}
