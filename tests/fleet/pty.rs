//! The fleet TUI under a real pty (Python's `pty` module drives the binary, the fake ssh is
//! first on PATH): the Fleet screen fills in, Enter into a host shows its sessions, Enter on
//! a session hands the terminal to `ssh -t` (out of raw mode, off the alternate screen) and
//! the fleet comes back when it exits.

use crate::fake::Fleet;
use crate::support::pty;
use std::process::Command;

const SETUP: &str = r#"
import fcntl, json, os, pty, select, struct, sys, termios, time
exe, hosts, home, path, remote_bin, log = sys.argv[1:7]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update({"TERM": "xterm-256color", "HOME": home, "PATH": path,
                       "FLEET_REMOTE_BIN": remote_bin, "FLEET_TTY_LOG": log,
                       "XDG_STATE_HOME": home + "/.xdg-state"})
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    os.execv(exe, [exe, "--hosts", hosts])
"#;

const STEPS: &str = r#"
steps = {}
def step(name, i, at):
    steps[name] = i >= 0
    return i if i >= 0 else at
at = step("entered", wait_for(b"\x1b[?1049h", 0), 0)
# Host a's worst status: its answer came (read over the fake ssh by this clawtop).
at = step("fleet_read", wait_for(b"compact-due", at), at)
os.write(fd, b"j")
time.sleep(0.3)
os.write(fd, b"\r")
at = step("host_sessions", wait_for(b"incident-7", at), at)
time.sleep(0.3)
os.write(fd, b"\r")
at = step("left_alt_screen", wait_for(b"\x1b[?1049l", at), at)
at = step("ssh_ran", wait_for(b"FAKE-SSH-TTY", at), at)
at = step("back_on_alt_screen", wait_for(b"\x1b[?1049h", at), at)
at = step("says_exit", wait_for(b"exited", at), at)
os.write(fd, b"q")
"#;

#[test]
fn fleet_screen_enter_a_host_hand_over_a_session_and_come_back() {
    let f = Fleet::new();
    let hosts = f.write_hosts(&f.good_hosts());
    let log = f.path().join("tty.log");
    let (remote_bin, path) = f.env();
    let driver = pty::driver(&[SETUP, pty::WAIT_FOR, STEPS, pty::FINISH]);
    let o = Command::new("python3")
        .args([
            "-c",
            &driver,
            env!("CARGO_BIN_EXE_clawtop"),
            hosts.to_str().unwrap(),
            f.path().to_str().unwrap(),
            &path,
            &remote_bin,
            log.to_str().unwrap(),
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
        "fleet_read",
        "host_sessions",
        "left_alt_screen",
        "ssh_ran",
        "back_on_alt_screen",
        "says_exit",
    ] {
        assert_eq!(v[step], true, "{step}: {v}");
    }
    assert_eq!(v["code"], 0, "{v}");
    let seen = std::fs::read_to_string(&log).expect("ssh -t ran");
    let words: Vec<&str> = seen.lines().collect();
    let state_dir = format!("'{}'", f.path().join("remote f/state").display());
    assert_eq!(
        words,
        [
            "-t",
            "--",
            "ops@f",
            "clawtop",
            "--state-dir",
            &state_dir,
            "--session-only",
            "--",
            "agent:main:incident-7",
            "icanon"
        ],
        "{seen}"
    );
}
