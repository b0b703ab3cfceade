//! The hosts file (`--hosts FILE`, default `hosts.toml` in clawtop's config dir,
//! [`crate::paths::Env::hosts_file`]).
//!
//! It is read in two steps so that every error can name the host it is about: the file is
//! first split into its `[[host]]` tables, then each table is decoded on its own with
//! `deny_unknown_fields` (a misspelt key is an error, never a silently ignored setting).
//! Everything that can be checked without touching the network is checked here, before any
//! host is contacted: one transport per host, unique names, an ssh destination that ssh could
//! not mistake for an option, a token file that only its owner can read.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one host may take to answer before it is reported as down.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// One `[[host]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSpec {
    pub name: String,
    pub transport: Transport,
    pub timeout: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// clawtop on the far side of an OpenSSH destination.
    Ssh {
        destination: String,
        /// The remote program (default `clawtop`, found on the remote PATH).
        clawtop: String,
        /// Passed as `--state-dir` on that host; `~` is the remote user's home.
        state_dir: Option<String>,
    },
    /// An OpenClaw gateway (typically the local end of `ssh -L`).
    Gateway { url: String, token_file: PathBuf },
    /// A state dir on this machine.
    Local { state_dir: PathBuf },
}

impl Transport {
    /// `ssh`, `gateway` or `local`, for tables and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Ssh { .. } => "ssh",
            Transport::Gateway { .. } => "gateway",
            Transport::Local { .. } => "local",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    host: Vec<toml::Table>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHost {
    name: String,
    ssh: Option<String>,
    clawtop: Option<String>,
    state_dir: Option<String>,
    gateway: Option<String>,
    token_file: Option<String>,
    /// Seconds.
    timeout: Option<u64>,
}

/// Why the hosts file cannot be used. Every text names the file (and the host and key).
#[derive(Debug, thiserror::Error)]
pub enum HostsError {
    #[error("no hosts file: give --hosts FILE (HOME is not set)")]
    NoPath,
    #[error("hosts file {file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("hosts file {file}: {message}")]
    Toml { file: String, message: String },
    #[error("hosts file {file}: no [[host]] entries")]
    Empty { file: String },
    #[error("hosts file {file}: {label}: {why}")]
    Host {
        file: String,
        /// `host "name"`, or `host #N` for a host without a name.
        label: String,
        why: HostSpecError,
    },
}

/// What is wrong with one `[[host]]`.
#[derive(Debug, thiserror::Error)]
pub enum HostSpecError {
    #[error("`{key}` must be {want}")]
    WrongType { key: String, want: &'static str },
    #[error("{0}")]
    Toml(String),
    #[error("duplicate name: every host needs its own `name`")]
    DuplicateName,
    #[error("`name` must be a non-empty line of text")]
    BadName,
    #[error(
        "`name` has spaces at its start or end; write it without them (\"x\" and \"x \" would be two hosts that look the same)"
    )]
    SpacedName,
    #[error("`token_file` goes with `gateway`, not `ssh`")]
    TokenFileWithSsh,
    #[error("`ssh` destination {0:?} starts with '-'")]
    OptionLikeDestination(String),
    #[error("`ssh` must be one destination (user@host or a Host alias)")]
    BadDestination,
    #[error("`clawtop` {0:?} is not a program path")]
    BadClawtop(String),
    #[error("`clawtop` and `state_dir` go with `ssh`; a gateway host takes `token_file`")]
    SshKeysOnGateway,
    #[error("`gateway` needs `token_file` (the token is never written in the hosts file)")]
    NoTokenFile,
    #[error("a local host (only `state_dir`) takes no `clawtop` or `token_file`")]
    LocalExtras,
    #[error("no transport: give one of `ssh`, `gateway` or `state_dir` (local)")]
    NoTransport,
    #[error("several transports: give only one of `ssh`, `gateway`")]
    SeveralTransports,
    #[error("`timeout` must be at least 1 (seconds)")]
    ZeroTimeout,
    #[error("`token_file` {path}: {source}")]
    TokenFileUnreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("`token_file` {0} is not a file")]
    TokenFileNotAFile(String),
    #[error("`token_file` {path} is accessible by others (mode {mode:o}); run chmod 600 on it")]
    TokenFileOpenToOthers { path: String, mode: u32 },
}

/// Reads and checks the hosts file. `home` expands `~/` in local paths (`token_file`, a
/// local `state_dir`).
pub fn load(path: &Path, home: Option<&Path>) -> Result<Vec<HostSpec>, HostsError> {
    // Never blocks on a FIFO or reads a device: a regular file or a named error.
    let text = crate::regular_file::read_to_string(path).map_err(|source| HostsError::Read {
        file: path.display().to_string(),
        source,
    })?;
    parse(&text, path, home)
}

/// [`load`] on text already read (`path` only names the file in errors).
pub fn parse(text: &str, path: &Path, home: Option<&Path>) -> Result<Vec<HostSpec>, HostsError> {
    let file = path.display().to_string();
    let raw: RawFile = toml::from_str(text).map_err(|e| HostsError::Toml {
        file: file.clone(),
        message: e.message().trim_end().replace('\n', " "),
    })?;
    if raw.host.is_empty() {
        return Err(HostsError::Empty { file });
    }
    let mut hosts: Vec<HostSpec> = Vec::new();
    for (i, table) in raw.host.into_iter().enumerate() {
        let label = match table.get("name").and_then(|v| v.as_str()) {
            Some(n) => format!("host {:?}", crate::sanitize::one_line(n)),
            None => format!("host #{}", i + 1),
        };
        let at = |why: HostSpecError| HostsError::Host {
            file: file.clone(),
            label: label.clone(),
            why,
        };
        // serde's type errors do not say which key; say it first.
        for (k, v) in &table {
            let want = if k == "timeout" {
                "an integer (seconds)"
            } else {
                "a string"
            };
            let ok = if k == "timeout" {
                v.is_integer()
            } else {
                v.is_str()
            };
            if !ok {
                return Err(at(HostSpecError::WrongType {
                    key: crate::sanitize::one_line(k),
                    want,
                }));
            }
        }
        let h: RawHost = table.try_into().map_err(|e: toml::de::Error| {
            at(HostSpecError::Toml(
                e.message().trim_end().replace('\n', " "),
            ))
        })?;
        let spec = check_host(h, home).map_err(at)?;
        if hosts.iter().any(|o| o.name == spec.name) {
            return Err(at(HostSpecError::DuplicateName));
        }
        hosts.push(spec);
    }
    Ok(hosts)
}

fn check_host(h: RawHost, home: Option<&Path>) -> Result<HostSpec, HostSpecError> {
    if h.name.trim().is_empty() || h.name.chars().any(|c| c.is_control()) {
        return Err(HostSpecError::BadName);
    }
    // "x" and "x " would be two hosts that print the same: the name is refused, not trimmed,
    // so what the operator wrote is what every surface shows.
    if h.name.trim() != h.name {
        return Err(HostSpecError::SpacedName);
    }
    let expand = |s: &str| crate::store::resolve::expand_tilde(s, home);
    let transport = match (&h.ssh, &h.gateway) {
        (Some(dest), None) => {
            if h.token_file.is_some() {
                return Err(HostSpecError::TokenFileWithSsh);
            }
            // ssh would read a leading '-' as an option (`-oProxyCommand=…` runs a command
            // on this machine), even after the `--` clawtop passes; refuse it outright.
            if dest.starts_with('-') {
                return Err(HostSpecError::OptionLikeDestination(
                    crate::sanitize::one_line(dest),
                ));
            }
            if dest.is_empty() || dest.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(HostSpecError::BadDestination);
            }
            let clawtop = h.clawtop.clone().unwrap_or_else(|| "clawtop".into());
            if clawtop.is_empty() || clawtop.starts_with('-') || clawtop.contains('\n') {
                return Err(HostSpecError::BadClawtop(crate::sanitize::one_line(
                    &clawtop,
                )));
            }
            Transport::Ssh {
                destination: dest.clone(),
                clawtop,
                state_dir: h.state_dir.clone(),
            }
        }
        (None, Some(url)) => {
            if h.clawtop.is_some() || h.state_dir.is_some() {
                return Err(HostSpecError::SshKeysOnGateway);
            }
            let Some(tf) = &h.token_file else {
                return Err(HostSpecError::NoTokenFile);
            };
            let token_file = expand(tf);
            check_token_file(&token_file)?;
            Transport::Gateway {
                url: url.clone(),
                token_file,
            }
        }
        (None, None) => match &h.state_dir {
            Some(dir) if h.clawtop.is_none() && h.token_file.is_none() => Transport::Local {
                state_dir: expand(dir),
            },
            Some(_) => {
                return Err(HostSpecError::LocalExtras);
            }
            None => {
                return Err(HostSpecError::NoTransport);
            }
        },
        (Some(_), Some(_)) => {
            return Err(HostSpecError::SeveralTransports);
        }
    };
    let timeout = match h.timeout {
        Some(0) => return Err(HostSpecError::ZeroTimeout),
        Some(s) => Duration::from_secs(s),
        None => DEFAULT_TIMEOUT,
    };
    Ok(HostSpec {
        name: h.name,
        transport,
        timeout,
    })
}

/// A gateway token is a credential: refused when its file is readable or writable by anyone
/// but the owner, as ssh refuses a private key. A symbolic link is followed, as ssh follows
/// one to a key (dotfile managers link such files): the file it leads to must be a regular
/// file of mode 0600 (or stricter), and that is what is checked.
fn check_token_file(p: &Path) -> Result<(), HostSpecError> {
    use std::os::unix::fs::PermissionsExt;
    let path = || p.display().to_string();
    let meta = std::fs::metadata(p).map_err(|source| HostSpecError::TokenFileUnreadable {
        path: path(),
        source,
    })?;
    if !meta.is_file() {
        return Err(HostSpecError::TokenFileNotAFile(path()));
    }
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        return Err(HostSpecError::TokenFileOpenToOthers {
            path: path(),
            mode: mode & 0o777,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Vec<HostSpec>, HostsError> {
        parse(s, Path::new("hosts.toml"), Some(Path::new("/h")))
    }

    fn error_of(s: &str) -> String {
        parse_str(s).unwrap_err().to_string()
    }

    #[test]
    fn three_transports() {
        let hosts = parse_str(
            "[[host]]\nname = \"prod-1\"\nssh = \"ops@prod-1\"\nstate_dir = \"~/.openclaw\"\ntimeout = 5\n\
             [[host]]\nname = \"here\"\nstate_dir = \"~/.openclaw\"\n",
        )
        .unwrap();
        assert_eq!(
            hosts[0].transport,
            Transport::Ssh {
                destination: "ops@prod-1".into(),
                clawtop: "clawtop".into(),
                state_dir: Some("~/.openclaw".into()),
            }
        );
        assert_eq!(hosts[0].timeout, Duration::from_secs(5));
        assert_eq!(
            hosts[1].transport,
            Transport::Local {
                state_dir: "/h/.openclaw".into()
            }
        );
        assert_eq!(hosts[1].timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn errors_name_the_host_and_the_key() {
        assert!(matches!(
            parse_str("[[host]]\nname = \"a\"\nssh = \"-oProxyCommand=x\"\n"),
            Err(HostsError::Host {
                why: HostSpecError::OptionLikeDestination(_),
                ..
            })
        ));
        let e = error_of("[[host]]\nname = \"a\"\nssh = \"x\"\nsshh = \"y\"\n");
        assert!(e.contains("host \"a\"") && e.contains("sshh"), "{e}");
        let e =
            error_of("[[host]]\nname = \"a\"\nssh = \"x\"\n[[host]]\nname = \"a\"\nssh = \"y\"\n");
        assert!(e.contains("host \"a\"") && e.contains("duplicate"), "{e}");
        let e = error_of("[[host]]\nname = \"a\"\nssh = \"-oProxyCommand=x\"\n");
        assert!(e.contains("starts with '-'"), "{e}");
        let e = error_of("[[host]]\nname = \"a\"\n");
        assert!(e.contains("no transport"), "{e}");
        let e = error_of("[[host]]\nname = \"a\"\nssh = \"x\"\ngateway = \"ws://127.0.0.1:1\"\n");
        assert!(e.contains("several transports"), "{e}");
        let e = error_of("[[host]]\nssh = \"x\"\n");
        assert!(e.contains("host #1") && e.contains("name"), "{e}");
        let e = error_of("hosts = 1\n");
        assert!(e.contains("hosts.toml") && e.contains("hosts"), "{e}");
    }

    /// Issue 33 item 10: "x" and "x " are not two hosts.
    #[test]
    fn a_name_with_spaces_around_it_is_refused() {
        for name in ["x ", " x", "x\u{a0}"] {
            let e = error_of(&format!("[[host]]\nname = \"{name}\"\nssh = \"x\"\n"));
            assert!(e.contains("spaces at its start or end"), "{name:?}: {e}");
        }
        let e =
            error_of("[[host]]\nname = \"x\"\nssh = \"a\"\n[[host]]\nname = \"x \"\nssh = \"b\"\n");
        assert!(e.contains("spaces"), "{e}");
        assert!(parse_str("[[host]]\nname = \"x y\"\nssh = \"a\"\n").is_ok());
    }

    /// Issue 33 item 10, decided: a token file may be a symbolic link (as ssh follows one to a
    /// key); the file it leads to is what must be a regular file of mode 0600.
    #[test]
    fn a_token_file_link_is_followed_and_its_target_checked() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("real.token");
        std::fs::write(&target, "t\n").unwrap();
        let link = d.path().join("edge.token");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let text = format!(
            "[[host]]\nname = \"edge\"\ngateway = \"ws://127.0.0.1:1\"\ntoken_file = {:?}\n",
            link.display().to_string()
        );
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(parse_str(&text).is_ok());
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(error_of(&text).contains("accessible by others"));
        let dir_link = d.path().join("dir.token");
        std::os::unix::fs::symlink(d.path(), &dir_link).unwrap();
        let text = text.replace("edge.token", "dir.token");
        assert!(
            error_of(&text).contains("is not a file"),
            "{}",
            error_of(&text)
        );
    }
}
