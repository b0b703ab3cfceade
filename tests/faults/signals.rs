//! Issue 12 item 7: SIGINT, SIGTERM and SIGHUP end the TUI with the terminal restored (raw
//! mode off, main screen, cursor shown) and the demo's temporary copy removed; so do `q` and
//! Ctrl-C (issue 9: every exit path of the demo). The TUI runs
//! under a real pty (Python's `pty` module drives it); the signal is sent once the TUI has
//! entered the alternate screen.

use std::process::Command;

const DRIVER: &str = r#"
import json, os, pty, select, signal, sys, termios, time
exe, how, home, tmp = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update({"HOME": home, "TMPDIR": tmp, "TERM": "xterm-256color",
                       "XDG_STATE_HOME": os.path.join(home, ".xdg-state")})
    for k in list(os.environ):
        if k.startswith("OPENCLAW_") or k.startswith("CLAWDBOT_"):
            del os.environ[k]
    os.execv(exe, [exe])
def read_some(timeout):
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:
        return None
before = b""
deadline = time.time() + 30
while b"\x1b[?1049h" not in before and time.time() < deadline:
    chunk = read_some(0.5)
    if chunk is None:
        break
    before += chunk
# Let the first frame be drawn and the demo be extracted.
t = time.time()
while time.time() - t < 1.0:
    chunk = read_some(0.2)
    if chunk is None:
        break
    before += chunk
raw_during = not (termios.tcgetattr(fd)[3] & termios.ICANON)
# A signal number, or "key:" and the bytes typed (q, Ctrl-C as 03) in hex.
if how.startswith("key:"):
    os.write(fd, bytes.fromhex(how[4:]))
else:
    os.kill(pid, int(how))
after = b""
status = None
deadline = time.time() + 20
while time.time() < deadline:
    chunk = read_some(0.2)
    if chunk:
        after += chunk
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        while True:
            chunk = read_some(0.2)
            if not chunk:
                break
            after += chunk
        break
attrs = termios.tcgetattr(fd)
if status is None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print(json.dumps({
    "entered": b"\x1b[?1049h" in before,
    "raw_during": raw_during,
    "exited": status is not None,
    "signaled": status is not None and os.WIFSIGNALED(status),
    "code": os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None,
    "after": after.decode("latin-1"),
    "canonical_after": bool(attrs[3] & termios.ICANON),
    "echo_after": bool(attrs[3] & termios.ECHO),
}))
"#;

fn run_under_pty(how: &str) -> (serde_json::Value, Vec<String>) {
    let home = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new("python3")
        .args([
            "-c",
            DRIVER,
            env!("CARGO_BIN_EXE_clawtop"),
            how,
            home.path().to_str().unwrap(),
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
    let left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("clawtop-demo-"))
        .collect();
    (v, left)
}

#[test]
fn signals_end_the_tui_with_the_terminal_restored_and_the_demo_copy_removed() {
    for (sig, name) in [
        (rustix::process::Signal::INT.as_raw(), "SIGINT"),
        (rustix::process::Signal::TERM.as_raw(), "SIGTERM"),
        (rustix::process::Signal::HUP.as_raw(), "SIGHUP"),
    ] {
        let (v, left) = run_under_pty(&sig.to_string());
        assert_eq!(v["entered"], true, "{name}: TUI never started: {v}");
        assert_eq!(v["raw_during"], true, "{name}: {v}");
        assert_eq!(v["exited"], true, "{name}: the TUI did not end: {v}");
        assert_eq!(
            v["signaled"], false,
            "{name}: killed by the signal, not ended: {v}"
        );
        assert_eq!(v["code"], 128 + sig, "{name}: {v}");
        let after = v["after"].as_str().unwrap();
        assert!(
            after.contains("\u{1b}[?1049l"),
            "{name}: main screen not restored: {after:?}"
        );
        assert!(
            after.contains("\u{1b}[?25h"),
            "{name}: cursor not shown: {after:?}"
        );
        assert_eq!(v["canonical_after"], true, "{name}: raw mode left on: {v}");
        assert_eq!(v["echo_after"], true, "{name}: echo left off: {v}");
        assert!(left.is_empty(), "{name}: demo copy left behind: {left:?}");
    }
}

/// The other ways out of the demo: `q` and Ctrl-C (a key in raw mode) end the TUI normally,
/// exit 0, terminal restored and the temporary copy removed.
#[test]
fn q_and_ctrl_c_leave_the_demo_with_its_copy_removed() {
    for (how, name) in [("key:71", "q"), ("key:03", "Ctrl-C")] {
        let (v, left) = run_under_pty(how);
        assert_eq!(v["entered"], true, "{name}: TUI never started: {v}");
        assert_eq!(v["exited"], true, "{name}: the TUI did not end: {v}");
        assert_eq!(v["code"], 0, "{name}: {v}");
        assert!(
            v["after"].as_str().unwrap().contains("\u{1b}[?1049l"),
            "{name}: main screen not restored: {v}"
        );
        assert_eq!(v["canonical_after"], true, "{name}: raw mode left on: {v}");
        assert!(left.is_empty(), "{name}: demo copy left behind: {left:?}");
    }
}
