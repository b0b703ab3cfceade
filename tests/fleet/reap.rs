//! Issue 33 item 9: the ssh processes a fleet read starts run in their own process group, so
//! nothing kills them with clawtop: every exit path must. Each host here is the fake ssh's
//! `hang` destination, which writes its pid to `$FLEET_PIDS` and sleeps 300 s; a process
//! still alive (and not a zombie waiting for init) after clawtop ended was left behind.

use crate::fake::Fleet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn hang_hosts(f: &Fleet, n: usize) -> std::path::PathBuf {
    let text: String = (0..n)
        .map(|i| format!("[[host]]\nname = \"h{i}\"\nssh = \"hang\"\ntimeout = 120\n\n"))
        .collect();
    f.write_hosts(&text)
}

fn spawn(f: &Fleet, args: &[&str], pids: &Path) -> Child {
    let (remote_bin, path) = f.env();
    Command::new(env!("CARGO_BIN_EXE_clawtop"))
        .args(args)
        .current_dir(f.path())
        .env("HOME", f.path())
        .env("XDG_STATE_HOME", f.path().join(".xdg-state"))
        .env("PATH", path)
        .env("FLEET_REMOTE_BIN", remote_bin)
        .env("FLEET_PIDS", pids)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Waits until `file` names `n` processes (at most 30 s).
fn wait_for_pids(file: &Path, n: usize) -> Vec<i32> {
    let t = Instant::now();
    loop {
        let p = pids(file);
        if p.len() >= n || t.elapsed() > Duration::from_secs(30) {
            return p;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Alive and not a zombie.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

fn assert_all_gone(pids: &[i32]) {
    let t = Instant::now();
    while pids.iter().any(|&p| alive(p)) && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &left {
        // Do not leave them to the next test either.
        if let Some(pid) = rustix::process::Pid::from_raw(p) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    assert!(left.is_empty(), "ssh processes left behind: {left:?}");
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if t.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("clawtop did not end after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_signal_to_a_fleet_command_kills_its_ssh_children() {
    use rustix::process::Signal;
    for (args, sig) in [
        (&["list", "--hosts"][..], Signal::INT),
        (&["check", "--hosts"][..], Signal::TERM),
        (&["metrics", "--hosts"][..], Signal::HUP),
    ] {
        let f = Fleet::new();
        let hosts = hang_hosts(&f, 3);
        let file = f.path().join("pids");
        let mut a: Vec<&str> = args.to_vec();
        a.push(hosts.to_str().unwrap());
        let mut child = spawn(&f, &a, &file);
        let started = wait_for_pids(&file, 3);
        assert_eq!(started.len(), 3, "{args:?}: the fake ssh did not start");
        assert!(started.iter().all(|&p| alive(p)));
        let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
        rustix::process::kill_process(pid, sig).unwrap();
        let status = wait_exit(&mut child);
        assert!(!status.success(), "{args:?} {sig:?}: {status:?}");
        assert_all_gone(&started);
    }
}

#[test]
fn hosts_are_read_through_a_bounded_pool() {
    let f = Fleet::new();
    let hosts = hang_hosts(&f, 12);
    let file = f.path().join("pids");
    let mut child = spawn(
        &f,
        &["list", "--hosts", hosts.to_str().unwrap(), "--jobs", "3"],
        &file,
    );
    let started = wait_for_pids(&file, 3);
    // More time for a fourth to start, were the pool not bounded.
    std::thread::sleep(Duration::from_millis(1500));
    let started_now = pids(&file);
    assert_eq!(started.len(), 3);
    assert_eq!(
        started_now.len(),
        3,
        "more than --jobs 3 at once: {started_now:?}"
    );
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    wait_exit(&mut child);
    assert_all_gone(&started_now);
}

#[test]
fn jobs_needs_hosts() {
    let f = Fleet::new();
    let o = f.run(&["list", "--jobs", "3"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("--jobs"), "{}", o.stderr);
    let hosts = hang_hosts(&f, 1);
    let o = f.run(&["list", "--hosts", hosts.to_str().unwrap(), "--jobs", "0"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
}

const QUIT_DRIVER: &str = r#"
import fcntl, json, os, pty, select, struct, sys, termios, time
exe, hosts, home, path, remote_bin, pids = sys.argv[1:7]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update({"TERM": "xterm-256color", "HOME": home, "PATH": path,
                       "FLEET_REMOTE_BIN": remote_bin, "FLEET_PIDS": pids,
                       "XDG_STATE_HOME": home + "/.xdg-state"})
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    os.execv(exe, [exe, "--hosts", hosts])
"#;

const QUIT_STEPS: &str = r#"
steps = {}
steps["entered"] = wait_for(b"\x1b[?1049h", 0) >= 0
deadline = time.time() + 30
n = 0
while time.time() < deadline:
    try:
        n = len(open(pids).read().split())
    except OSError:
        n = 0
    if n >= 3:
        break
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            out += os.read(fd, 65536)
        except OSError:
            pass
steps["ssh_started"] = n >= 3
os.write(fd, b"q")
"#;

#[test]
fn quitting_the_fleet_tui_kills_its_ssh_children() {
    let f = Fleet::new();
    let hosts = hang_hosts(&f, 3);
    let file = f.path().join("pids");
    let (remote_bin, path) = f.env();
    let driver = crate::support::pty::driver(&[
        QUIT_DRIVER,
        crate::support::pty::WAIT_FOR,
        QUIT_STEPS,
        crate::support::pty::FINISH,
    ]);
    let o = Command::new("python3")
        .args([
            "-c",
            &driver,
            env!("CARGO_BIN_EXE_clawtop"),
            hosts.to_str().unwrap(),
            f.path().to_str().unwrap(),
            &path,
            &remote_bin,
            file.to_str().unwrap(),
        ])
        .output()
        .expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["entered"], true, "{v}");
    assert_eq!(v["ssh_started"], true, "{v}");
    assert_eq!(v["code"], 0, "{v}");
    assert_all_gone(&pids(&file));
}
