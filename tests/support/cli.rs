//! Helpers for the CLI tests (`tests/cli/`, `tests/store/`): temp hosts, running the binary,
//! file snapshots.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

use super::fixtures;
pub use super::fixtures::fixture;

pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
            let mut p = std::fs::metadata(&to).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            p.set_readonly(false);
            std::fs::set_permissions(&to, p).unwrap();
        }
    }
}

/// A temp HOME holding a copy of host-a as `~/.openclaw`.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn empty() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    pub fn host_a() -> Home {
        let h = Home::empty();
        copy_dir(&fixture(fixtures::HOST_A), &h.state());
        h
    }
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
    pub fn state(&self) -> PathBuf {
        self.dir.path().join(".openclaw")
    }
    pub fn sessions_dir(&self) -> PathBuf {
        self.state().join("agents/main/sessions")
    }
    pub fn store(&self) -> PathBuf {
        self.sessions_dir().join("sessions.json")
    }
    /// Writes OpenClaw's `<transcript>.lock` as a live turn's: this test process holds it.
    /// Returns the lock's path.
    pub fn hold_transcript_lock(&self) -> PathBuf {
        let mut lock = self.transcript().into_os_string();
        lock.push(".lock");
        let created = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        std::fs::write(
            &lock,
            format!(
                "{{\n  \"pid\": {},\n  \"createdAt\": \"{created}\"\n}}\n",
                std::process::id()
            ),
        )
        .unwrap();
        PathBuf::from(lock)
    }
    /// Prepends a `gateway` block to the copy's config: OpenClaw's gateway on `port` of this
    /// machine, with `token`.
    pub fn set_gateway(&self, port: &str, token: &str) {
        let cfg = self.state().join("openclaw.json");
        let text = std::fs::read_to_string(&cfg).unwrap();
        std::fs::write(
            &cfg,
            text.replacen(
                '{',
                &format!("{{\n  gateway: {{ port: {port}, auth: {{ token: \"{token}\" }} }},"),
                1,
            ),
        )
        .unwrap();
    }
    pub fn transcript(&self) -> PathBuf {
        self.sessions_dir()
            .join("eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl")
    }
    pub fn run(&self, args: &[&str]) -> Out {
        run_with(self.path(), args, &[])
    }
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Out {
        run_with(self.path(), args, env)
    }
}

pub struct Out {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Out {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", self.text(), self.stderr))
    }
    /// No panic, and the code is the expected one.
    pub fn expect(&self, code: i32) -> &Self {
        assert_ne!(self.code, 101, "panicked: {}", self.stderr);
        assert!(
            !self.stderr.contains("panicked"),
            "panicked: {}",
            self.stderr
        );
        assert_eq!(
            self.code,
            code,
            "stdout: {}\nstderr: {}",
            self.text(),
            self.stderr
        );
        self
    }
}

pub fn run_with(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawtop"));
    c.args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join(".xdg-state"))
        .env("XDG_CACHE_HOME", home.join(".xdg-cache"));
    for (k, _) in std::env::vars() {
        if k.starts_with("OPENCLAW_") || k.starts_with("CLAWDBOT_") {
            c.env_remove(k);
        }
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let o: Output = c.output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Bytes and mtimes of every file under `dir`.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut m = BTreeMap::new();
    fn walk(d: &Path, m: &mut BTreeMap<PathBuf, (Vec<u8>, SystemTime)>) {
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                walk(&p, m);
            } else {
                let mt = std::fs::metadata(&p).unwrap().modified().unwrap();
                m.insert(p.clone(), (std::fs::read(&p).unwrap(), mt));
            }
        }
    }
    walk(dir, &mut m);
    m
}

pub const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}"#;

pub fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1}})
    .to_string()
}

pub fn assistant(id: &str, parent: &str, text: &str, input: u64) -> String {
    serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:02.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m",
            "usage": {"input": input, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 5},
            "stopReason": "stop", "timestamp": 2}})
    .to_string()
}

/// Points host-a's `fake` provider (config and models.json) at a fake model server.
pub fn point_fake_provider(h: &Home, base: &str) {
    for f in [
        h.state().join("openclaw.json"),
        h.state().join("agents/main/agent/models.json"),
    ] {
        let s = std::fs::read_to_string(&f)
            .unwrap()
            .replace("http://127.0.0.1:18999/v1", &format!("{base}/v1"));
        std::fs::write(&f, s).unwrap();
    }
}

/// [`run_with`] off the async runtime, so an in-process fake server keeps serving meanwhile.
pub async fn run_async(h: &Home, args: &[&str]) -> Out {
    let home = h.path().to_path_buf();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        run_with(&home, &a, &[])
    })
    .await
    .unwrap()
}
