//! Issue 17 item 5 under a real pty (Python's `pty` module drives the binary): the TUI on a
//! host whose store becomes unreadable keeps its rows after `r` and says the reload failed;
//! it never claims the host has no sessions.

use crate::support::cli::copy_dir;
use crate::support::fixtures::{self, fixture};
use std::process::Command;

const DRIVER: &str = r#"
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
out = b""
def wait_for(needle, start, timeout=30):
    global out
    deadline = time.time() + timeout
    while time.time() < deadline:
        i = out.find(needle, start)
        if i >= 0:
            return i + len(needle)
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return -1
            if not chunk:
                return -1
            out += chunk
    return -1
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
status = None
deadline = time.time() + 20
while time.time() < deadline:
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        break
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            out += os.read(fd, 65536)
        except OSError:
            pass
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
if not all(steps.values()):
    steps["tail"] = out[-3000:].decode("latin-1")
steps["code"] = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
print(json.dumps(steps))
"#;

#[test]
fn an_unreadable_store_after_r_keeps_the_rows_under_a_pty() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    copy_dir(&fixture(fixtures::HOST_A), &state);
    let o = Command::new("python3")
        .args([
            "-c",
            DRIVER,
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
