//! A fleet: every host of a hosts file ([`hosts`]), each read by the source it already has.
//!
//! Local and gateway hosts go through [`crate::source`] and [`crate::report::list::build`],
//! exactly as `clawtop list` reads them; an ssh host runs `clawtop list --json` on the host
//! ([`ssh`]) and its JSON is read back into the same [`ListReport`] rows, so `list`, `check`,
//! `metrics` and the TUI grade a remote session with the code that grades a local one.
//! Hosts are read in parallel, one thread each, each within its own deadline; a host that
//! fails is one [`HostResult`] with an error, never the end of the others.
//!
//! The remote JSON is parsed leniently (fields this clawtop does not know are ignored; they
//! are kept in [`FleetRow::json`] for `--json`), and every string in it is untrusted: text
//! surfaces neutralise it as they do local store fields, and error text from a remote is
//! made one neutral line here.
//!
//! Layer: above [`crate::report`] (a fleet is built from the single-host reports, and
//! [`report`] lays the results out with the host added), below the front-ends.

pub mod hosts;
pub mod report;
pub mod ssh;

use crate::report::SessionRow;
use crate::report::list::ListReport;
use crate::source::SourceHandle;
use hosts::{HostSpec, Transport};
use serde_json::{Map, Value};
use std::time::Instant;

/// What one host answered.
pub struct HostResult {
    pub name: String,
    pub kind: &'static str,
    /// When the answer came (ms since the epoch).
    pub at_ms: i64,
    /// How long it took.
    pub took_ms: u64,
    pub outcome: Result<HostList, HostError>,
}

/// Why a host gave no sessions. The texts that come from the host (its error, its stderr)
/// are neutralised when the error is made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// A local state dir or a gateway address that cannot be opened. The detail names the
    /// state dir or the address, which the operator wrote beside the host's name.
    #[error("{detail}")]
    Open { host: String, detail: String },
    /// ssh could not be run, or was stopped (no answer in time, too much output).
    #[error("{host}: {detail}")]
    Ssh { host: String, detail: String },
    /// ssh itself failed (exit 255): connection, authentication, host key.
    #[error("{host}: {}", match said.as_str() { "" => format!("ssh to {destination} failed (exit 255)"), s => s.to_string() })]
    SshFailed {
        host: String,
        destination: String,
        said: String,
    },
    #[error(
        "clawtop not found on {host}: install it or set clawtop = \"/path/to/clawtop\" for this host"
    )]
    NoClawtop { host: String },
    #[error("{host}: ssh was killed by a signal")]
    Killed { host: String },
    /// The remote clawtop printed no list and said why on stderr.
    #[error("{host}: clawtop exited {code}: {said}")]
    RemoteFailed {
        host: String,
        code: i32,
        said: String,
    },
    #[error("{host}: {detail}")]
    NotList { host: String, detail: String },
    /// The remote clawtop's own JSON error.
    #[error("{host}: {message}")]
    RemoteError { host: String, message: String },
    #[error("{host}: session #{index}: {why}")]
    BadRow {
        host: String,
        index: usize,
        why: RowError,
    },
    #[error("{host}: reading it failed unexpectedly")]
    Panicked { host: String },
}

/// Why a session object of a remote `list --json` is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    #[error("not an object")]
    NotObject,
    #[error("no number {0:?}")]
    NoNumber(&'static str),
    #[error("neither sessionKey nor sessionId")]
    NoIdentity,
}

/// The sessions of a host that answered.
pub struct HostList {
    /// The rows as `list` has them. `errors` holds the stores of this host that could not be
    /// read (a remote's are its stderr lines when it exited 1).
    pub report: ListReport,
    /// Each row as `list --json` printed it (every field, known or not), same order.
    pub json: Vec<Value>,
    /// The source, for local and gateway hosts (locks, sessions on demand); None over ssh.
    pub source: Option<SourceHandle>,
}

/// One session of the fleet.
pub struct FleetRow<'a> {
    pub host: &'a str,
    pub row: &'a SessionRow,
    pub json: &'a Value,
}

impl HostResult {
    /// The host's error, or its stores' errors, one line each naming the host (what `list`
    /// reports as error rows).
    pub fn errors(&self) -> Vec<String> {
        match &self.outcome {
            Err(e) => vec![e.to_string()],
            Ok(l) => l
                .report
                .errors
                .iter()
                .map(|e| crate::sanitize::one_line(&format!("{}: {e}", self.name)))
                .collect(),
        }
    }
}

/// Every session of the fleet, host by host in file order.
pub fn rows(results: &[HostResult]) -> Vec<FleetRow<'_>> {
    let mut v = Vec::new();
    for h in results {
        if let Ok(l) = &h.outcome {
            for (row, json) in l.report.sessions.iter().zip(&l.json) {
                v.push(FleetRow {
                    host: &h.name,
                    row,
                    json,
                });
            }
        }
    }
    v
}

/// Hosts read at once unless `--jobs N` says otherwise: each read over ssh is one ssh
/// process (and its reader threads), so 1,000 hosts are read 32 at a time, not all at once.
pub const DEFAULT_JOBS: usize = 32;

/// Reads every host, at most `jobs` at a time, on that many threads; results in the order of
/// `hosts`.
pub fn read_all(
    hosts: &[HostSpec],
    home: Option<&std::path::Path>,
    jobs: usize,
) -> Vec<HostResult> {
    let workers = jobs.clamp(1, hosts.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<HostResult>>> =
        hosts.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(h) = hosts.get(i) else { break };
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        read_host(h, home)
                    }))
                    .unwrap_or_else(|_| panicked(h));
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                }
            });
        }
    });
    slots
        .into_iter()
        .zip(hosts)
        .map(|(m, h)| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| panicked(h))
        })
        .collect()
}

fn panicked(h: &HostSpec) -> HostResult {
    HostResult {
        name: h.name.clone(),
        kind: h.transport.kind(),
        at_ms: now_ms(),
        took_ms: 0,
        outcome: Err(HostError::Panicked {
            host: crate::sanitize::one_line(&h.name),
        }),
    }
}

/// Reads in flight from [`read_host_bounded`], and how many may be (`--jobs`).
static IN_FLIGHT: std::sync::Mutex<usize> = std::sync::Mutex::new(0);
static FREED: std::sync::Condvar = std::sync::Condvar::new();
static JOBS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(DEFAULT_JOBS);

/// How many hosts the Fleet TUI reads at once ([`read_host_bounded`]).
pub fn set_jobs(n: usize) {
    JOBS.store(n.max(1), std::sync::atomic::Ordering::Relaxed);
}

/// [`read_host`] once fewer than `--jobs` reads are in flight (the Fleet TUI starts one read
/// per host and per refresh; the bound holds across them).
pub fn read_host_bounded(h: &HostSpec, home: Option<&std::path::Path>) -> HostResult {
    {
        let mut n = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= JOBS.load(std::sync::atomic::Ordering::Relaxed) {
            n = FREED.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n += 1;
    }
    struct Release;
    impl Drop for Release {
        fn drop(&mut self) {
            *IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
            FREED.notify_one();
        }
    }
    let _release = Release;
    read_host(h, home)
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// One host, by its transport.
pub fn read_host(h: &HostSpec, home: Option<&std::path::Path>) -> HostResult {
    let t0 = Instant::now();
    let outcome = match &h.transport {
        Transport::Ssh {
            destination,
            clawtop,
            state_dir,
        } => read_ssh(&h.name, destination, clawtop, state_dir.as_deref(), h),
        Transport::Local { state_dir } => local_source(state_dir, home).map(from_source),
        Transport::Gateway { url, token_file } => gateway_source(url, token_file).map(from_source),
    };
    let outcome = outcome.map_err(|detail| match detail {
        Opened::Host(e) => e,
        Opened::Detail(d) => HostError::Open {
            host: crate::sanitize::one_line(&h.name),
            detail: crate::sanitize::one_line(&d),
        },
    });
    tracing::info!(host = %h.name, kind = h.transport.kind(), ok = outcome.is_ok(),
        ms = t0.elapsed().as_millis() as u64, "fleet host read");
    HostResult {
        name: h.name.clone(),
        kind: h.transport.kind(),
        at_ms: now_ms(),
        took_ms: t0.elapsed().as_millis() as u64,
        outcome,
    }
}

/// How reading a host failed before its name was put on the error.
enum Opened {
    Host(HostError),
    Detail(String),
}

impl From<HostError> for Opened {
    fn from(e: HostError) -> Opened {
        Opened::Host(e)
    }
}

fn local_source(
    state_dir: &std::path::Path,
    home: Option<&std::path::Path>,
) -> Result<SourceHandle, Opened> {
    // Only the hosts file picks the state dir: OPENCLAW_* variables of this shell belong to
    // the operator's own host, not to every local host of the fleet.
    let env = crate::store::Env {
        home: home.map(|h| h.to_path_buf()),
        openclaw_home: None,
        state_dir: None,
        config_path: None,
    };
    let opts = crate::store::Options {
        state_dir: Some(state_dir.to_path_buf()),
        ..Default::default()
    };
    let host = crate::store::Host::open(&opts, &env).map_err(|e| Opened::Detail(e.to_string()))?;
    Ok(crate::source::for_host(host))
}

fn gateway_source(url: &str, token_file: &std::path::Path) -> Result<SourceHandle, Opened> {
    // The token comes from this host's token_file only, never from OPENCLAW_GATEWAY_TOKEN
    // (that one belongs to whichever gateway the shell was set up for).
    let env = crate::gateway::GatewayEnv {
        url: None,
        port: None,
        token: None,
        lookup: Vec::new(),
    };
    let overrides = crate::gateway::Overrides {
        url: Some(url.to_string()),
        token_file: Some(token_file.to_path_buf()),
        allow_insecure: false,
    };
    let target = crate::gateway::target::resolve(&Value::Object(Map::new()), &env, &overrides)
        .map_err(|e| Opened::Detail(e.to_string()))?;
    crate::source::for_gateway(target).map_err(|e| Opened::Detail(e.to_string()))
}

fn from_source(source: SourceHandle) -> HostList {
    let report = crate::report::list::build(source.as_ref(), None);
    let json = report
        .sessions
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        .collect();
    let mut report = report;
    if let Some(why) = source.unreadable() {
        report.errors.push(why);
    }
    HostList {
        report,
        json,
        source: Some(source),
    }
}

fn read_ssh(
    name: &str,
    destination: &str,
    clawtop: &str,
    state_dir: Option<&str>,
    h: &HostSpec,
) -> Result<HostList, Opened> {
    let host = crate::sanitize::one_line(name);
    let args = ssh::ssh_args(destination, clawtop, state_dir);
    let out = ssh::run("ssh", &args, h.timeout).map_err(|e| HostError::Ssh {
        host: host.clone(),
        detail: crate::sanitize::one_line(&e.to_string()),
    })?;
    match out.code {
        Some(255) => {
            return Err(HostError::SshFailed {
                host,
                destination: crate::sanitize::one_line(destination),
                said: crate::sanitize::one_line(&ssh::tail_message(&out.stderr)),
            }
            .into());
        }
        Some(127) => return Err(HostError::NoClawtop { host }.into()),
        None => return Err(HostError::Killed { host }.into()),
        _ => {}
    }
    Ok(parse_remote(
        name,
        &out.stdout,
        out.code.unwrap_or(0),
        &out.stderr,
    )?)
}

/// The remote `list --json` (exit `code`, with its stderr) as this host's list.
pub fn parse_remote(
    name: &str,
    stdout: &[u8],
    code: i32,
    stderr: &str,
) -> Result<HostList, HostError> {
    let host = || crate::sanitize::one_line(name);
    let not_list = |detail: &str| HostError::NotList {
        host: host(),
        detail: detail.to_string(),
    };
    let v: Value = serde_json::from_slice(stdout).map_err(|e| {
        let said = ssh::tail_message(stderr);
        if stdout.is_empty() && !said.is_empty() {
            HostError::RemoteFailed {
                host: host(),
                code,
                said: crate::sanitize::one_line(&said),
            }
        } else {
            not_list(&format!(
                "the remote clawtop printed something that is not list JSON ({e})"
            ))
        }
    })?;
    let obj = v
        .as_object()
        .ok_or_else(|| not_list("the remote clawtop printed JSON that is not an object"))?;
    if let (Some(err), None) = (
        obj.get("error").and_then(Value::as_str),
        obj.get("sessions"),
    ) {
        return Err(HostError::RemoteError {
            host: host(),
            message: crate::sanitize::one_line(err),
        });
    }
    let sessions = obj
        .get("sessions")
        .and_then(Value::as_array)
        .ok_or_else(|| not_list("the remote list JSON has no \"sessions\" array"))?;
    let mut rows = Vec::with_capacity(sessions.len());
    for (i, s) in sessions.iter().enumerate() {
        rows.push(row_from_json(s).map_err(|why| HostError::BadRow {
            host: host(),
            index: i + 1,
            why,
        })?);
    }
    let strings = |k: &str| -> Vec<String> {
        obj.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut errors = Vec::new();
    if code != 0 {
        // `list --json` exits 1 when a store could not be read; it says which on stderr.
        for l in stderr.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if !l.starts_with("warning:") {
                errors.push(crate::sanitize::one_line(l.trim_start_matches("clawtop: ")));
            }
        }
        if errors.is_empty() {
            errors.push(format!("clawtop exited {code}"));
        }
    }
    let era = match obj.get("era").and_then(Value::as_str) {
        Some("file") => "file",
        Some("sqlite") => "sqlite",
        Some("gateway") => "gateway",
        _ => "remote",
    };
    Ok(HostList {
        report: ListReport {
            state_dir: obj
                .get("stateDir")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            era,
            sessions: rows,
            warnings: strings("warnings"),
            errors,
            // A remote's skipped entries reach us only among its warnings.
            skipped: Vec::new(),
            refs: Vec::new(),
        },
        json: sessions.clone(),
        source: None,
    })
}

/// A `list --json` session object as a row. Lenient: unknown fields are ignored, a missing
/// figure is unknown; only a session without its identity or numbers is refused.
pub fn row_from_json(v: &Value) -> Result<SessionRow, RowError> {
    use crate::thresholds::{Source, Status, UsedSource};
    let o = v.as_object().ok_or(RowError::NotObject)?;
    let s = |k: &str| o.get(k).and_then(Value::as_str).map(String::from);
    let n = |k: &str| o.get(k).and_then(Value::as_u64);
    let i = |k: &str| o.get(k).and_then(Value::as_i64);
    let need = |k: &'static str| n(k).ok_or(RowError::NoNumber(k));
    let status = match s("status").as_deref() {
        Some("ok") => Status::Ok,
        Some("flush-due") => Status::FlushDue,
        Some("flushed") => Status::Flushed,
        Some("compact-due") => Status::CompactDue,
        Some("over") => Status::Over,
        _ => Status::Unknown,
    };
    let used_source = match s("usedSource").as_deref() {
        Some("fresh") => UsedSource::Fresh,
        Some("legacy") => UsedSource::Legacy,
        Some("transcript") => UsedSource::Transcript,
        Some("estimated") => UsedSource::Estimated,
        _ => UsedSource::Unknown,
    };
    let window_source = match s("windowSource").as_deref() {
        Some("entry") => Source::Entry,
        Some("config") => Source::Config,
        Some("modelCatalog") => Source::ModelCatalog,
        Some("flag") => Source::Flag,
        _ => Source::Default,
    };
    let used_check = match s("usedCheck").as_deref() {
        Some("equal") => crate::used::UsedCheck::Equal,
        Some("run-sum") => crate::used::UsedCheck::RunSum,
        Some("stale") => crate::used::UsedCheck::Stale,
        Some("differs") => crate::used::UsedCheck::Differs,
        _ => crate::used::UsedCheck::Unknown,
    };
    let rules = match s("rules").as_deref() {
        Some("2026.9") => crate::thresholds::Rules::V2026_9,
        _ => crate::thresholds::Rules::V2026_2,
    };
    let busy = o
        .get("busy")
        .filter(|b| b.is_object())
        .map(|b| crate::diagnosis::Busy {
            pid: b.get("pid").and_then(Value::as_i64).map(|p| p as i32),
            created_at: b.get("createdAt").and_then(Value::as_str).map(String::from),
            lock: String::new(),
        });
    let unknown = o
        .get("unknown")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let session_key = s("sessionKey");
    if session_key.is_none() && s("sessionId").is_none() {
        return Err(RowError::NoIdentity);
    }
    Ok(SessionRow {
        agent_id: s("agentId"),
        session_key,
        session_id: s("sessionId"),
        transcript: s("transcript"),
        model: s("model"),
        model_provider: s("modelProvider"),
        window: need("window")?,
        window_source,
        used: n("used"),
        used_source,
        reserve: n("reserve").unwrap_or(0),
        compact_at: need("compactAt")?,
        flush_at: n("flushAt"),
        compaction_count: n("compactionCount"),
        memory_flush_at: i("memoryFlushAt"),
        memory_flush_compaction_count: n("memoryFlushCompactionCount"),
        flushed_this_cycle: o
            .get("flushedThisCycle")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        status,
        flush_reason: s("flushReason").unwrap_or_default(),
        // The transcript's own view stays on the host: `show` there gives it whole.
        transcript_context: None,
        // Read on the host; `list --hosts --json` passes the remote's own field through.
        forecast: None,
        used_check,
        used_check_reason: s("usedCheckReason").unwrap_or_default(),
        busy,
        stale_lock: s("staleLock"),
        total_tokens: o.get("totalTokens").cloned().filter(|v| !v.is_null()),
        total_tokens_fresh: o.get("totalTokensFresh").cloned().filter(|v| !v.is_null()),
        context_tokens: o.get("contextTokens").cloned().filter(|v| !v.is_null()),
        updated_at: i("updatedAt"),
        warnings: o
            .get("warnings")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
        rules,
        memory_flush_kind: s("memoryFlushKind"),
        total_tokens_version: n("totalTokensVersion"),
        data_source: None,
        unknown,
    })
}

/// `{"sessions": [{"host": …, …}], "errors": [{"host": …, "error": …}]}`.
pub fn to_json(results: &[HostResult]) -> Value {
    let sessions: Vec<Value> = rows(results)
        .into_iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("host".into(), Value::String(r.host.to_string()));
            if let Some(o) = r.json.as_object() {
                for (k, v) in o {
                    if k != "host" {
                        m.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(m)
        })
        .collect();
    let errors: Vec<Value> = results
        .iter()
        .flat_map(|h| {
            h.errors()
                .into_iter()
                .map(|e| serde_json::json!({"host": h.name, "error": e}))
        })
        .collect();
    serde_json::json!({"sessions": sessions, "errors": errors})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_opens_on_its_host_with_the_key_as_data() {
        let spec = |transport| HostSpec {
            name: "h".into(),
            transport,
            timeout: hosts::DEFAULT_TIMEOUT,
        };
        let ssh = spec(Transport::Ssh {
            destination: "ops@p1".into(),
            clawtop: "/opt/claw top".into(),
            state_dir: None,
        });
        assert_eq!(
            open_command(&ssh, "-k;$(id)", "/me"),
            (
                "ssh".into(),
                ["-t", "--", "ops@p1", "'/opt/claw top'", "--", "'-k;$(id)'"]
                    .map(String::from)
                    .to_vec()
            )
        );
        let gw = spec(Transport::Gateway {
            url: "ws://127.0.0.1:18790".into(),
            token_file: "/k/edge.token".into(),
        });
        let (program, args) = open_command(&gw, "agent:main:main", "/me");
        assert_eq!(program, "/me");
        assert_eq!(
            args,
            [
                "--gateway",
                "ws://127.0.0.1:18790",
                "--gateway-token-file",
                "/k/edge.token",
                "--",
                "agent:main:main"
            ]
        );
    }

    #[test]
    fn remote_json_is_read_leniently_and_garbage_is_named() {
        let out = br#"{"stateDir":"/s","era":"file","sessions":[{"agentId":"main","sessionKey":"agent:main:main","window":48000,"compactAt":28000,"used":30000,"usedSource":"fresh","status":"over","forecast":{"x":1}}],"warnings":[]}"#;
        let l = parse_remote("p1", out, 0, "").unwrap();
        let r = &l.report.sessions[0];
        assert_eq!(r.status, crate::thresholds::Status::Over);
        assert_eq!(r.used, Some(30000));
        assert!(l.json[0].get("forecast").is_some());
        let e = parse_remote("p1", b"\x1b[2Jhello", 0, "").err().unwrap();
        assert!(matches!(&e, HostError::NotList { host, .. } if host == "p1"));
        let text = e.to_string();
        assert!(
            text.starts_with("p1: ") && text.contains("not list JSON"),
            "{text}"
        );
        let e = parse_remote("p1", br#"{"error":"no state dir","exitCode":1}"#, 1, "")
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "p1: no state dir");
        let e = parse_remote("p1", br#"{"sessions":[{"sessionKey":"k"}]}"#, 0, "")
            .err()
            .unwrap();
        assert_eq!(
            e,
            HostError::BadRow {
                host: "p1".into(),
                index: 1,
                why: RowError::NoNumber("window")
            }
        );
        assert_eq!(e.to_string(), "p1: session #1: no number \"window\"");
        // The remote's stderr is named when it printed no JSON.
        let e = parse_remote("p1", b"", 1, "clawtop: no sessions.json\n")
            .err()
            .unwrap();
        assert!(
            matches!(e, HostError::RemoteFailed { code: 1, .. }),
            "{e:?}"
        );
    }
}

/// What the Fleet screen says of a host that answered, computed once here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostSummary {
    pub sessions: usize,
    /// The most urgent status among its sessions (None: no sessions).
    pub worst: Option<crate::thresholds::Status>,
    /// Sessions past a line the operator acts on: over, compact-due, flush-due.
    pub need_action: usize,
}

/// How urgent a status is for an operator (higher first).
pub fn urgency(s: crate::thresholds::Status) -> u8 {
    use crate::thresholds::Status;
    match s {
        Status::Over => 5,
        Status::CompactDue => 4,
        Status::FlushDue => 3,
        Status::Unknown => 2,
        Status::Flushed => 1,
        Status::Ok => 0,
    }
}

pub fn summary(rows: &[SessionRow]) -> HostSummary {
    HostSummary {
        sessions: rows.len(),
        worst: rows.iter().map(|r| r.status).max_by_key(|s| urgency(*s)),
        need_action: rows.iter().filter(|r| urgency(r.status) >= 3).count(),
    }
}

/// The command that opens clawtop's own TUI on session `key` of host `h`, the terminal
/// handed to it: `ssh -t -- DEST clawtop [--state-dir DIR] KEY` for an ssh host (the operator
/// compacts or flushes there, with every check that host's clawtop makes), this clawtop with
/// the host's state dir or gateway otherwise. (program, arguments).
pub fn open_command(h: &HostSpec, key: &str, this_exe: &str) -> (String, Vec<String>) {
    match &h.transport {
        Transport::Ssh {
            destination,
            clawtop,
            state_dir,
        } => {
            let mut a: Vec<String> = vec!["-t".into(), "--".into(), destination.clone()];
            a.push(ssh::shell_word(clawtop));
            if let Some(d) = state_dir {
                a.extend(["--state-dir".into(), ssh::shell_word(d)]);
            }
            // `--`: a key from a store is data, never an option of the remote clawtop.
            a.extend(["--".into(), ssh::shell_word(key)]);
            ("ssh".into(), a)
        }
        Transport::Local { state_dir } => (
            this_exe.into(),
            vec![
                "--state-dir".into(),
                state_dir.display().to_string(),
                "--".into(),
                key.into(),
            ],
        ),
        Transport::Gateway { url, token_file } => (
            this_exe.into(),
            vec![
                "--gateway".into(),
                url.clone(),
                "--gateway-token-file".into(),
                token_file.display().to_string(),
                "--".into(),
                key.into(),
            ],
        ),
    }
}
