//! The fake fleet: a temp dir holding copies of host-a and host-f, a `remote-bin/clawtop`
//! (this build's binary, what the remote PATH finds), and `bin/ssh`, which checks that it
//! was called as `ssh -o BatchMode=yes -- DEST WORDS…` and then behaves like sshd for DEST:
//! the words are joined and run by `sh -c`, as a remote login shell would.

use crate::support::cli::{Out, copy_dir, run_with};
use crate::support::fixtures::{HOST_A, HOST_F, fixture};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

pub struct Fleet {
    pub dir: tempfile::TempDir,
}

const SSH: &str = r#"#!/bin/sh
# Fake ssh for clawtop's fleet tests.
if [ "$1" = "-t" ]; then
  # The TUI handing the terminal over: record the words and the tty's mode, then exit 7.
  { printf '%s\n' "$@"; stty -a < /dev/tty | tr ' ' '\n' | grep -x -- '-\?icanon'; } > "$FLEET_TTY_LOG"
  echo FAKE-SSH-TTY; exit 7
fi
[ "$1" = "-o" ] && [ "$2" = "BatchMode=yes" ] && [ "$3" = "--" ] || {
  echo "fake ssh: expected -o BatchMode=yes -- DEST, got: $*" >&2; exit 2; }
dest=$4; shift 4
case "$dest" in
  ops@a|ops@f) PATH="$FLEET_REMOTE_BIN:/usr/bin:/bin" exec sh -c "$*" ;;
  bare) PATH="/usr/bin:/bin" exec sh -c "$*" ;;
  # Like a ControlPersist master: a background process that keeps stderr open after ssh exits.
  persist@f) (sleep 5 >/dev/null </dev/null &); PATH="$FLEET_REMOTE_BIN:/usr/bin:/bin" exec sh -c "$*" ;;
  down) echo "ssh: connect to host down port 22: Connection refused" >&2; exit 255 ;;
  garbage) printf '\033]52;c;cHduZWQ=\007this is not json'; exit 0 ;;
  huge) exec yes '{"sessions":[' ;;
  slow) exec sleep 30 ;;
  # A host that never answers and says which process it is (the reaping tests).
  hang) echo $$ >> "$FLEET_PIDS"; exec sleep 300 ;;
  *) echo "ssh: Could not resolve hostname $dest: Name or service not known" >&2; exit 255 ;;
esac
"#;

impl Fleet {
    pub fn new() -> Fleet {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // A space in the path: the remote words must survive the remote shell.
        copy_dir(&fixture(HOST_A), &d.join("remote a/.openclaw"));
        copy_dir(&fixture(HOST_F), &d.join("remote f"));
        copy_dir(&fixture(HOST_A), &d.join("here/.openclaw"));
        std::fs::create_dir_all(d.join("bin")).unwrap();
        std::fs::create_dir_all(d.join("remote-bin")).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_clawtop"), d.join("remote-bin/clawtop"))
            .unwrap();
        let ssh = d.join("bin/ssh");
        std::fs::write(&ssh, SSH).unwrap();
        std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
        Fleet { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The ssh host of a copy of host-a, the ssh host of host-f, a local copy of host-a.
    pub fn good_hosts(&self) -> String {
        let d = self.path();
        format!(
            "[[host]]\nname = \"a\"\nssh = \"ops@a\"\nstate_dir = {:?}\n\n\
             [[host]]\nname = \"f\"\nssh = \"ops@f\"\nstate_dir = {:?}\n\n\
             [[host]]\nname = \"here\"\nstate_dir = {:?}\n",
            d.join("remote a/.openclaw").display().to_string(),
            d.join("remote f/state").display().to_string(),
            d.join("here/.openclaw").display().to_string(),
        )
    }

    pub fn write_hosts(&self, text: &str) -> PathBuf {
        let p = self.path().join("hosts.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    /// clawtop with the fake ssh first on PATH.
    pub fn run(&self, args: &[&str]) -> Out {
        let d = self.path();
        let path = format!(
            "{}:{}",
            d.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let (remote_bin, _) = self.env();
        run_with(
            d,
            args,
            &[("PATH", &path), ("FLEET_REMOTE_BIN", &remote_bin)],
        )
    }

    /// (FLEET_REMOTE_BIN, PATH with the fake ssh first).
    pub fn env(&self) -> (String, String) {
        let d = self.path();
        (
            d.join("remote-bin").display().to_string(),
            format!(
                "{}:{}",
                d.join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
    }

    /// `clawtop --state-dir DIR list --json` of one of the copies, run directly.
    pub fn local_list(&self, state_dir: &str) -> serde_json::Value {
        let dir = self.path().join(state_dir).display().to_string();
        self.run(&["--state-dir", &dir, "list", "--json"]).json()
    }
}

/// A host line for the mixed file: `name = ssh destination`.
pub fn ssh_host(name: &str, dest: &str) -> String {
    format!("[[host]]\nname = \"{name}\"\nssh = \"{dest}\"\n")
}
