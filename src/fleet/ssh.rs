//! A host over OpenSSH: `ssh -o BatchMode=yes -- DEST clawtop [--state-dir DIR] list --json`.
//!
//! The operator's own ssh does the connecting (their `~/.ssh/config`, agent, ProxyJump,
//! ControlMaster); clawtop only runs it and reads what the remote clawtop prints. Order:
//! build the argument vector (local words are separate `Command` arguments; the remote words
//! are quoted for the remote shell, because sshd hands the joined command line to the login
//! shell), run it in its own process group with stdin closed, read stdout up to a byte
//! limit and stderr up to a smaller one on their own threads, and wait until the deadline.
//! On expiry or overflow the whole group is killed, so a hung remote never holds clawtop.
//! The exit status then says whose failure it was: 255 is ssh's own, 127 the remote shell's
//! "command not found", anything else clawtop's.
//!
//! Every group started is registered until it is reaped ([`kill_all`]): being in their own
//! group, they would outlive clawtop when it ends early (a signal to `list --hosts`, `q` in the
//! Fleet TUI), left running under init. [`Reaper`] kills what is still registered when the
//! fleet command ends, and on SIGINT, SIGTERM or SIGHUP for the commands without a terminal
//! of their own to restore; once it has, no new ssh starts.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The most a remote `list --json` may print (a big host prints a few MiB).
pub const MAX_OUTPUT: usize = 64 << 20;
/// The most of ssh's stderr kept for the error message.
const MAX_STDERR: usize = 64 << 10;

/// What the remote printed, once ssh exited on its own.
#[derive(Debug)]
pub struct Output {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// The arguments given to `ssh` (after the program name).
pub fn ssh_args(destination: &str, clawtop: &str, state_dir: Option<&str>) -> Vec<String> {
    let mut remote = vec![shell_word(clawtop)];
    if let Some(d) = state_dir {
        remote.push("--state-dir".into());
        remote.push(shell_word(d));
    }
    remote.extend(["list".into(), "--json".into()]);
    let mut args: Vec<String> = ["-o", "BatchMode=yes", "--", destination]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(remote);
    args
}

/// One word for a POSIX shell. A leading `~/` stays outside the quotes so that the remote
/// shell expands it to the remote user's home.
pub fn shell_word(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        return s.to_string();
    }
    if let Some(rest) = s.strip_prefix("~/") {
        return format!("~/{}", shell_word(rest));
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Why [`run`] gave no output. Names no host; the caller adds it.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("reading its output: {0}")]
    Read(std::io::Error),
    #[error("its output exceeds {} MiB; stopped reading", MAX_OUTPUT >> 20)]
    TooMuchOutput,
    #[error("no answer within {} s; stopped it", .0.as_secs())]
    NoAnswer(Duration),
    #[error("did not exit within {} s; stopped it", .0.as_secs())]
    DidNotExit(Duration),
    #[error("waiting for {program}: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
}

/// The process groups started and not yet reaped; `true` once [`kill_all`] ran (no more start).
static LIVE: std::sync::Mutex<(Vec<i32>, bool)> = std::sync::Mutex::new((Vec::new(), false));

fn live() -> std::sync::MutexGuard<'static, (Vec<i32>, bool)> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

fn kill_group(pgid: i32) {
    if let Some(g) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(g, rustix::process::Signal::KILL);
    }
}

/// Kills every ssh process group still running and refuses to start more: clawtop is ending.
pub fn kill_all() {
    let mut l = live();
    l.1 = true;
    for pgid in l.0.drain(..) {
        kill_group(pgid);
    }
}

/// How many ssh process groups are running (tests, the pool's bound).
pub fn running() -> usize {
    live().0.len()
}

/// Kills what is left on drop ([`kill_all`]); with `on_signals`, also on SIGINT, SIGTERM and
/// SIGHUP, after which the process ends as that signal would have ended it.
pub struct Reaper(());

impl Reaper {
    pub fn new(on_signals: bool) -> Reaper {
        if on_signals {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
                Ok(mut signals) => {
                    let _ = std::thread::Builder::new()
                        .name("clawtop-reaper".into())
                        .spawn(move || {
                            if let Some(sig) = signals.forever().next() {
                                kill_all();
                                let _ = signal_hook::low_level::emulate_default_handler(sig);
                                std::process::exit(128 + sig);
                            }
                        });
                }
                Err(e) => tracing::warn!("cannot watch signals for the ssh children: {e}"),
            }
        }
        Reaper(())
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        kill_all();
    }
}

/// Runs `program args…` with the bounds above.
pub fn run(program: &str, args: &[String], deadline: Duration) -> Result<Output, RunError> {
    use std::os::unix::process::CommandExt;
    // Held while spawning, so that kill_all either sees this group or refused it first.
    let mut registry = live();
    if registry.1 {
        return Err(RunError::Spawn {
            program: program.to_string(),
            source: std::io::Error::other("clawtop is ending"),
        });
    }
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|source| RunError::Spawn {
            program: program.to_string(),
            source,
        })?;
    let started = std::time::Instant::now();
    let pgid = child.id() as i32;
    registry.0.push(pgid);
    drop(registry);
    // Unregistered however this returns (the group is dead or reaped by then).
    struct Registered(i32);
    impl Drop for Registered {
        fn drop(&mut self) {
            live().0.retain(|&g| g != self.0);
        }
    }
    let _registered = Registered(pgid);
    let (tx, rx) = mpsc::channel::<std::io::Result<Vec<u8>>>();
    let mut out = child.stdout.take().expect("stdout is piped");
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let r = (&mut out).take(MAX_OUTPUT as u64 + 1).read_to_end(&mut buf);
        let _ = tx.send(r.map(|_| buf));
    });
    // stderr is collected as it comes and taken when ssh has exited, without waiting for
    // its end: a ControlPersist master that ssh forked keeps stderr open after ssh exits.
    let mut err = child.stderr.take().expect("stderr is piped");
    let said = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let (err_done, err_eof) = mpsc::channel::<()>();
    let sink = said.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = err.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let mut b = sink.lock().unwrap_or_else(|e| e.into_inner());
            // Past the limit the rest is drained unread, so the remote never blocks on it.
            let room = MAX_STDERR.saturating_sub(b.len());
            b.extend_from_slice(&chunk[..n.min(room)]);
        }
        let _ = err_done.send(());
    });
    let kill = |child: &mut std::process::Child| {
        // The process group we created: ssh and whatever it started.
        kill_group(pgid);
        let _ = child.kill();
        let _ = child.wait();
    };
    let stdout = match rx.recv_timeout(deadline) {
        Ok(Ok(b)) if b.len() > MAX_OUTPUT => {
            kill(&mut child);
            return Err(RunError::TooMuchOutput);
        }
        Ok(Ok(b)) => b,
        Ok(Err(e)) => {
            kill(&mut child);
            return Err(RunError::Read(e));
        }
        Err(_) => {
            kill(&mut child);
            return Err(RunError::NoAnswer(deadline));
        }
    };
    // stdout is closed: the remote command is done and ssh exits right after; still bounded,
    // in case something closed its stdout and kept running.
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if started.elapsed() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Ok(None) => {
                kill(&mut child);
                return Err(RunError::DidNotExit(deadline));
            }
            Err(source) => {
                return Err(RunError::Wait {
                    program: program.to_string(),
                    source,
                });
            }
        }
    };
    let _ = err_eof.recv_timeout(Duration::from_millis(200));
    let stderr =
        String::from_utf8_lossy(&said.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    Ok(Output {
        code: status.code(),
        stdout,
        stderr,
    })
}

/// The last non-empty lines of stderr, one line (ssh prints its reason last).
pub fn tail_message(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(3);
    crate::sanitize::one_line(&lines[start..].join(" / "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_words_are_quoted_for_the_remote_shell() {
        assert_eq!(shell_word("clawtop"), "clawtop");
        assert_eq!(shell_word("/opt/claw top"), "'/opt/claw top'");
        assert_eq!(shell_word("a'b;rm -rf /"), r"'a'\''b;rm -rf /'");
        assert_eq!(shell_word("~/.openclaw"), "~/.openclaw");
        assert_eq!(shell_word("~/my dir"), "~/'my dir'");
        assert_eq!(shell_word("$(id)"), "'$(id)'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(
            ssh_args("ops@p1", "clawtop", Some("/srv/oc")),
            [
                "-o",
                "BatchMode=yes",
                "--",
                "ops@p1",
                "clawtop",
                "--state-dir",
                "/srv/oc",
                "list",
                "--json"
            ]
        );
    }

    #[test]
    fn tail_is_one_neutral_line() {
        assert_eq!(
            tail_message(
                "Warning: x\n\nssh: connect to host p1 port 22: Connection refused\x1b[2J\n"
            ),
            "Warning: x / ssh: connect to host p1 port 22: Connection refused␛[2J"
        );
    }
}
