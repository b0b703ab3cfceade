//! The fleet through a real OpenSSH server (issue 34): Debian's `sshd` started on a loopback
//! port with a throwaway host key and client key (`.ci/run` installs `openssh-server`), and
//! the real `/usr/bin/ssh` as the client, given a test config by a wrapper first on PATH (the
//! operator's own ssh config plays that part in real use). The hosts behind it: two that
//! answer (copies of host-a and host-f), a port nothing listens on, a server whose host key
//! the client does not know, a remote without clawtop, and a remote that prints garbage. What
//! ssh itself says reaches the error row.

use crate::support::cli::{Out, copy_dir, run_with};
use crate::support::fixtures::{HOST_A, HOST_F, fixture};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// A running sshd on 127.0.0.1 and everything a client needs to reach it.
pub struct Sshd {
    pub dir: tempfile::TempDir,
    pub port: u16,
    child: Child,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen runs")
        .success();
    assert!(ok, "ssh-keygen {}", path.display());
}

fn write_exec(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn user() -> String {
    let out = Command::new("id").arg("-un").output().expect("id -un");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl Sshd {
    /// Starts sshd; panics (never skips) when Debian's openssh-server is not installed.
    pub fn start() -> Sshd {
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} missing: install Debian's openssh-server (.ci/run does)"
        );
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keygen(&d.join("host_key"));
        keygen(&d.join("client_key"));
        std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
        std::fs::set_permissions(
            d.join("authorized_keys"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        // sshd run as root needs its privilege separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = free_port();
        let remote_env = d.join("remote-env");
        std::fs::create_dir_all(&remote_env).unwrap();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {hk}\nAuthorizedKeysFile {ak}\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
             PermitRootLogin prohibit-password\nStrictModes no\nPidFile {pid}\nLogLevel VERBOSE\n\
             MaxStartups 100:30:200\nMaxSessions 100\n\
             SetEnv XDG_CACHE_HOME={env}/cache XDG_STATE_HOME={env}/state XDG_CONFIG_HOME={env}/config\n",
            hk = d.join("host_key").display(),
            ak = d.join("authorized_keys").display(),
            pid = d.join("sshd.pid").display(),
            env = remote_env.display(),
        );
        std::fs::write(d.join("sshd_config"), config).unwrap();
        let log = std::fs::File::create(d.join("sshd.log")).unwrap();
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("sshd starts");
        let s = Sshd { dir, port, child };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "sshd did not listen on {port}: {}",
                s.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        s.client_setup();
        s
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// The client side: a known_hosts with this server's key, a config naming every test
    /// destination, and `bin/ssh`, a wrapper running `/usr/bin/ssh -F` that config.
    fn client_setup(&self) {
        let d = self.dir.path();
        let host_pub = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
        std::fs::write(
            d.join("known_hosts"),
            format!("[127.0.0.1]:{} {}", self.port, host_pub),
        )
        .unwrap();
        std::fs::write(d.join("empty_known_hosts"), "").unwrap();
        let closed = free_port();
        let cfg = format!(
            "Host down\n  Port {closed}\n\
             Host stranger\n  UserKnownHostsFile {empty}\n\
             Host reuse\n  ControlMaster auto\n  ControlPath {cm}/%C\n  ControlPersist 60\n\
             Host *\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {key}\n\
             \x20 IdentitiesOnly yes\n  UserKnownHostsFile {kh}\n  GlobalKnownHostsFile /dev/null\n\
             \x20 StrictHostKeyChecking yes\n  ConnectTimeout 5\n  LogLevel ERROR\n",
            empty = d.join("empty_known_hosts").display(),
            cm = d.join("cm").display(),
            port = self.port,
            user = user(),
            key = d.join("client_key").display(),
            kh = d.join("known_hosts").display(),
        );
        std::fs::write(d.join("ssh_config"), cfg).unwrap();
        std::fs::create_dir_all(d.join("cm")).unwrap();
        std::fs::create_dir_all(d.join("bin")).unwrap();
        write_exec(
            &d.join("bin/ssh"),
            &format!(
                "#!/bin/sh\nexec /usr/bin/ssh -F '{}' \"$@\"\n",
                d.join("ssh_config").display()
            ),
        );
        write_exec(
            &d.join("garbage-clawtop"),
            "#!/bin/sh\nprintf '\\033]52;c;cHduZWQ=\\007this is not json'\n",
        );
        copy_dir(&fixture(HOST_A), &d.join("remote-a/.openclaw"));
        copy_dir(&fixture(HOST_F), &d.join("remote-f"));
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A hosts file: `name = (destination, clawtop, state dir)` for each.
    pub fn hosts(&self, hosts: &[(&str, &str, &str, Option<PathBuf>)]) -> PathBuf {
        let mut text = String::new();
        for (name, dest, clawtop, state_dir) in hosts {
            text.push_str(&format!(
                "[[host]]\nname = {name:?}\nssh = {dest:?}\nclawtop = {clawtop:?}\n"
            ));
            if let Some(s) = state_dir {
                text.push_str(&format!("state_dir = {:?}\n", s.display().to_string()));
            }
            text.push('\n');
        }
        let p = self.path().join("hosts.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    /// clawtop with the wrapper `ssh` first on PATH.
    pub fn run(&self, args: &[&str]) -> Out {
        let path = format!(
            "{}:{}",
            self.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let home = self.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        run_with(&home, args, &[("PATH", &path)])
    }

    /// How many ssh logins sshd accepted so far (its log's "Accepted publickey" lines; the
    /// readiness probe's bare TCP connection is not one).
    pub fn connections(&self) -> usize {
        self.log().matches("Accepted publickey").count()
    }
}

fn clawtop_bin() -> &'static str {
    env!("CARGO_BIN_EXE_clawtop")
}

#[test]
fn the_fleet_reads_hosts_through_a_real_sshd_and_says_why_others_fail() {
    let s = Sshd::start();
    let d = s.path().to_path_buf();
    let garbage = d.join("garbage-clawtop").display().to_string();
    let hosts = s.hosts(&[
        ("a", "a", clawtop_bin(), Some(d.join("remote-a/.openclaw"))),
        ("f", "f", clawtop_bin(), Some(d.join("remote-f/state"))),
        ("down", "down", clawtop_bin(), None),
        ("stranger", "stranger", clawtop_bin(), None),
        ("noclaw", "noclaw", "/nonexistent/clawtop", None),
        ("garbage", "garbage", &garbage, None),
    ]);
    let out = s.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"]);
    out.expect(1);
    let v = out.json();
    // The hosts that answer: every row is what clawtop on that state dir says, field for field.
    for (host, dir) in [
        ("a", d.join("remote-a/.openclaw")),
        ("f", d.join("remote-f/state")),
    ] {
        let direct = s.run(&["--state-dir", dir.to_str().unwrap(), "list", "--json"]);
        direct.expect(0);
        let direct = direct.json();
        let got: Vec<serde_json::Value> = v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["host"] == host)
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().remove("host");
                r
            })
            .collect();
        assert_eq!(got.len(), direct["sessions"].as_array().unwrap().len());
        assert_eq!(
            serde_json::Value::Array(got),
            direct["sessions"],
            "{host} over ssh"
        );
    }
    let errors: Vec<(String, String)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["host"].as_str().unwrap().to_string(),
                e["error"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let error_of = |h: &str| -> String {
        errors
            .iter()
            .find(|(n, _)| n == h)
            .map(|(_, e)| e.clone())
            .unwrap_or_else(|| panic!("no error row for {h}: {errors:?}\n{}", s.log()))
    };
    assert_eq!(errors.len(), 4, "{errors:?}");
    // ssh's own words reach the row.
    assert!(
        error_of("down").contains("Connection refused"),
        "{}",
        error_of("down")
    );
    assert!(
        error_of("stranger").contains("Host key verification failed"),
        "{}",
        error_of("stranger")
    );
    assert!(
        error_of("noclaw").starts_with("clawtop not found on noclaw"),
        "{}",
        error_of("noclaw")
    );
    let g = error_of("garbage");
    assert!(g.contains("not list JSON") && !g.contains('\u{1b}'), "{g}");
}

#[test]
fn check_and_metrics_over_a_real_sshd_grade_as_the_host_does() {
    let s = Sshd::start();
    let d = s.path().to_path_buf();
    let dir = d.join("remote-a/.openclaw");
    let hosts = s.hosts(&[("a", "a", clawtop_bin(), Some(dir.clone()))]);
    let every = "stuck,over,compact-due,flush-due,busy,busy-stale-lock,no-transcript,unknown,compaction-loop,no-flush-before-compaction,lossy-compaction";
    let direct = s.run(&[
        "--state-dir",
        dir.to_str().unwrap(),
        "check",
        "--warn",
        every,
    ]);
    let fleet = s.run(&["check", "--hosts", hosts.to_str().unwrap(), "--warn", every]);
    assert_eq!(fleet.code, direct.code);
    let want: String = direct.text().lines().map(|l| format!("a: {l}\n")).collect();
    assert_eq!(fleet.text(), want);
    let m = s.run(&["metrics", "--hosts", hosts.to_str().unwrap()]);
    m.expect(0);
    let text = m.text();
    assert!(text.contains("clawtop_host_up{host=\"a\"} 1"), "{text}");
    assert!(
        text.contains("clawtop_session_used_tokens{host=\"a\""),
        "{text}"
    );
}

/// Connection reuse (README, "A fleet over ssh"): with the operator's `ControlMaster auto` and
/// `ControlPersist`, refreshing the fleet reuses one TCP connection instead of opening one per
/// refresh, as the real sshd's log shows.
#[test]
fn a_control_master_in_the_ssh_config_is_reused_across_refreshes() {
    let s = Sshd::start();
    let d = s.path().to_path_buf();
    let hosts = s.hosts(&[(
        "a",
        "reuse",
        clawtop_bin(),
        Some(d.join("remote-a/.openclaw")),
    )]);
    let before = s.connections();
    for _ in 0..3 {
        s.run(&["list", "--hosts", hosts.to_str().unwrap(), "--json"])
            .expect(0);
    }
    // The log is written as connections come; give sshd a moment to flush it.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(s.connections() - before, 1, "{}", s.log());
    // The master is stopped with the test (its socket lives in the test's temp dir).
    let _ = Command::new("/usr/bin/ssh")
        .args(["-F"])
        .arg(d.join("ssh_config"))
        .args(["-O", "exit", "reuse"])
        .stderr(Stdio::null())
        .status();
}

const HAND_OVER_SETUP: &str = r#"
import fcntl, json, os, pty, select, struct, sys, termios, time
exe, hosts, home, path = sys.argv[1:5]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update({"TERM": "xterm-256color", "HOME": home, "PATH": path,
                       "XDG_STATE_HOME": home + "/.xdg-state"})
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    os.execv(exe, [exe, "--hosts", hosts])
"#;

const HAND_OVER_STEPS: &str = r#"
steps = {}
def step(name, i, at):
    steps[name] = i >= 0
    return i if i >= 0 else at
at = step("entered", wait_for(b"\x1b[?1049h", 0), 0)
# Host a's worst status: its answer came through the real sshd.
at = step("fleet_read", wait_for(b"compact-due", at), at)
time.sleep(0.5)
os.write(fd, b"j")
time.sleep(0.3)
os.write(fd, b"\r")
at = step("host_sessions", wait_for(b"incident-7", at), at)
time.sleep(0.3)
os.write(fd, b"\r")
at = step("handed_over", wait_for(b"\x1b[?1049l", at), at)
# The remote clawtop (ssh -t through the sshd) draws its Session screen on that session.
at = step("remote_tui", wait_for(b"\x1b[?1049h", at), at)
at = step("remote_session_screen", wait_for(b"reserve", at), at)
time.sleep(0.5)
os.write(fd, b"q")
at = step("remote_left", wait_for(b"\x1b[?1049l", at), at)
at = step("fleet_again", wait_for(b"\x1b[?1049h", at), at)
# "back from the host" on the status line (row 29 of 30; the diff renderer moves the cursor
# over the spaces between its words).
at = step("back_in_one_q", wait_for(b"\x1b[29;1Hback", at), at)
os.write(fd, b"q")
"#;

/// Issue 34: Fleet → host → session through the real sshd (`ssh -t`, the remote clawtop
/// opened on that session with `--session-only`) → one `q` → the Fleet again.
#[test]
fn one_q_on_a_session_opened_over_real_ssh_is_the_fleet_again() {
    let s = Sshd::start();
    let d = s.path().to_path_buf();
    let hosts = s.hosts(&[
        ("a", "a", clawtop_bin(), Some(d.join("remote-a/.openclaw"))),
        ("f", "f", clawtop_bin(), Some(d.join("remote-f/state"))),
    ]);
    let home = d.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let path = format!(
        "{}:{}",
        d.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let driver = crate::support::pty::driver(&[
        HAND_OVER_SETUP,
        crate::support::pty::WAIT_FOR,
        HAND_OVER_STEPS,
        crate::support::pty::FINISH,
    ]);
    let o = Command::new("python3")
        .args([
            "-c",
            &driver,
            clawtop_bin(),
            hosts.to_str().unwrap(),
            home.to_str().unwrap(),
            &path,
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
        "handed_over",
        "remote_tui",
        "remote_session_screen",
        "remote_left",
        "fleet_again",
        "back_in_one_q",
    ] {
        assert_eq!(v[step], true, "{step}: {v}\n{}", s.log());
    }
    assert_eq!(v["code"], 0, "{v}");
}
