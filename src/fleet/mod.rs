//! A fleet: every host of a hosts file ([`hosts`]), each read by the source it already has.
//!
//! Local and gateway hosts go through [`crate::source`] and [`crate::usecase::list::build`],
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
use serde::Deserialize;
use serde_json::value::RawValue;
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

/// Why a session object of a remote `list --json` is refused: serde's own words (e.g.
/// ``missing field `window` ``), neutralised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    #[error("not an object")]
    NotObject,
    #[error("{0}")]
    Invalid(String),
    #[error("neither sessionKey nor sessionId")]
    NoIdentity,
}

/// The sessions of a host that answered.
pub struct HostList {
    /// The rows as `list` has them. `errors` holds the stores of this host that could not be
    /// read (a remote's are its stderr lines when it exited 1). A remote's rows stay in
    /// `json` until [`HostList::materialize`] reads them ([`HostList::each_row`] reads them
    /// one at a time): a row is ~1.5 KB while its text is what the remote printed (a valid
    /// 64 MiB answer of 400,000 sessions would otherwise hold 0.6 GB of rows, issue 33).
    pub report: ListReport,
    /// Each row as `list --json` printed it (every field, known or not), same order: its
    /// text, read again when `--json` prints it or a row is wanted.
    pub json: RowTexts,
    /// The source, for local and gateway hosts (locks, sessions on demand); None over ssh.
    pub source: Option<SourceHandle>,
    /// `report.sessions` is still to be read from `json` (a remote's answer).
    pub rows_in_json: bool,
}

/// Each row's `list --json` text. A remote's are spans of its answer, which is kept as it
/// came (no copy of its bytes, no allocation per row); a local host's are its rows written.
#[derive(Debug, Default)]
pub struct RowTexts {
    text: String,
    spans: Vec<(usize, usize)>,
}

impl RowTexts {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let &(at, len) = self.spans.get(i)?;
        self.text.get(at..at + len)
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.spans
            .iter()
            .filter_map(|&(at, len)| self.text.get(at..at + len))
    }

    fn push(&mut self, row: &str) {
        self.spans.push((self.text.len(), row.len()));
        self.text.push_str(row);
    }
}

impl HostList {
    /// How many sessions the host has.
    pub fn len(&self) -> usize {
        if self.rows_in_json {
            self.json.len()
        } else {
            self.report.sessions.len()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each row in order; a remote's read from its kept text, one transient row at a time,
    /// by the code that accepted it in [`parse_remote`] (so it reads again: a row that could
    /// not was refused there with the whole answer).
    pub fn each_row(&self, mut f: impl FnMut(&SessionRow)) {
        if self.rows_in_json {
            for raw in self.json.iter() {
                if let Ok(row) = row_of(raw) {
                    f(&row);
                }
            }
        } else {
            self.report.sessions.iter().for_each(f);
        }
    }

    /// The rows held as rows in `report.sessions` (what `check`, `metrics` and the Fleet
    /// screen grade and sort, as they do a local host's).
    pub fn materialize(&mut self) {
        if self.rows_in_json {
            self.report.sessions = self.json.iter().filter_map(|r| row_of(r).ok()).collect();
            self.report.sessions.shrink_to_fit();
            self.rows_in_json = false;
        }
    }
}

/// One session of the fleet: its host and its `list --json` text.
pub struct FleetRow<'a> {
    pub host: &'a str,
    pub json: &'a str,
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
            for json in l.json.iter() {
                v.push(FleetRow {
                    host: &h.name,
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
    let report = crate::usecase::list::build(source.as_ref(), &Default::default());
    let mut json = RowTexts::default();
    for r in &report.sessions {
        json.push(&serde_json::to_string(r).unwrap_or_else(|_| "null".into()));
    }
    let mut report = report;
    if let Some(why) = report.unreadable.take() {
        report.errors.push(why);
    }
    HostList {
        report,
        json,
        source: Some(source),
        rows_in_json: false,
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
    Ok(parse_remote_owned(
        name,
        out.stdout,
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
    parse_remote_owned(name, stdout.to_vec(), code, stderr)
}

/// [`parse_remote`], keeping the answer's bytes as its rows' texts ([`RowTexts`]).
pub fn parse_remote_owned(
    name: &str,
    stdout: Vec<u8>,
    code: i32,
    stderr: &str,
) -> Result<HostList, HostError> {
    let host = || crate::sanitize::one_line(name);
    let not_list = |detail: &str| HostError::NotList {
        host: host(),
        detail: detail.to_string(),
    };
    // Read without a tree of the whole answer: the top-level members stay borrowed text, the
    // sessions are read one at a time (a transient value each, dropped once accepted), and
    // each row is kept as its span of the answer. A 64 MiB answer of 400,000 sessions holds
    // its bytes and two numbers a row, never a `Value` or a row per session (issue 33, item 8).
    let whole: &RawValue = serde_json::from_slice(&stdout).map_err(|e| {
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
    let obj: Vec<(String, &RawValue)> = if whole.get().trim_start().starts_with('{') {
        serde_json::from_str::<Members>(whole.get())
            .map(|m| m.0)
            .map_err(|e| not_list(&format!("the remote list JSON cannot be read ({e})")))?
    } else {
        return Err(not_list(
            "the remote clawtop printed JSON that is not an object",
        ));
    };
    // The last of a repeated member counts, as it would in a map.
    let member = |k: &str| obj.iter().rev().find(|(n, _)| n == k).map(|(_, v)| *v);
    if let (Some(err), None) = (member("error"), member("sessions")) {
        if let Ok(err) = serde_json::from_str::<String>(err.get()) {
            return Err(HostError::RemoteError {
                host: host(),
                message: crate::sanitize::one_line(&err),
            });
        }
    }
    let sessions: Vec<&RawValue> = member("sessions")
        .and_then(|s| serde_json::from_str(s.get()).ok())
        .ok_or_else(|| not_list("the remote list JSON has no \"sessions\" array"))?;
    // Each row is read here to accept it (a bad row refuses the answer, named by its place),
    // then dropped: only where its text is in the answer is kept ([`HostList::rows_in_json`]).
    let base = stdout.as_ptr() as usize;
    let mut spans = Vec::with_capacity(sessions.len());
    for (i, s) in sessions.iter().enumerate() {
        row_of(s.get()).map_err(|why| HostError::BadRow {
            host: host(),
            index: i + 1,
            why,
        })?;
        spans.push((s.get().as_ptr() as usize - base, s.get().len()));
    }
    drop(sessions);
    // The rest of the report as the remote's serde wrote it; `sessions` was read above, row
    // by row, so a bad row is named by its place.
    let mut head = Map::new();
    for (k, v) in &obj {
        if k != "sessions" {
            let v: Value = serde_json::from_str(v.get())
                .map_err(|e| not_list(&format!("the remote list JSON cannot be read ({e})")))?;
            head.insert(k.clone(), v);
        }
    }
    head.insert("sessions".into(), Value::Array(Vec::new()));
    let mut report: ListReport = serde_json::from_value(Value::Object(head))
        .map_err(|e| not_list(&format!("the remote list JSON is not a list report ({e})")))?;
    if code != 0 && report.errors.is_empty() {
        // An older clawtop says on stderr which store it could not read (exit 1).
        for l in stderr.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if !l.starts_with("warning:") {
                report
                    .errors
                    .push(crate::sanitize::one_line(l.trim_start_matches("clawtop: ")));
            }
        }
        if report.errors.is_empty() {
            report.errors.push(format!("clawtop exited {code}"));
        }
    }
    if let Some(why) = report.unreadable.take() {
        report.errors.push(why);
    }
    if !matches!(report.era.as_str(), "file" | "sqlite" | "gateway") {
        report.era = "remote".into();
    }
    if report.state_dir.is_empty() {
        report.state_dir = "?".into();
    }
    drop(obj);
    // The answer parsed as JSON, so it is UTF-8 throughout.
    let mut text = String::from_utf8(stdout)
        .map_err(|_| not_list("the remote clawtop printed something that is not UTF-8"))?;
    text.shrink_to_fit();
    Ok(HostList {
        report,
        json: RowTexts { text, spans },
        source: None,
        rows_in_json: true,
    })
}

/// A session object of a remote `list --json`, by its text ([`row_from_json`]).
fn row_of(raw: &str) -> Result<SessionRow, RowError> {
    let v: Value = serde_json::from_str(raw)
        .map_err(|e| RowError::Invalid(crate::sanitize::one_line(&e.to_string())))?;
    row_from_json(&v)
}

/// The members of a JSON object in their order, each value its borrowed text.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<Members<'a>, M::Error> {
                let mut v = Vec::new();
                while let Some((k, raw)) = m.next_entry::<String, &'de RawValue>()? {
                    v.push((k, raw));
                }
                Ok(Members(v))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A `list --json` session object as a row, through the row's own serde: lenient (fields
/// this clawtop does not know are ignored, a missing figure is unknown); only a session
/// without its identity or its window and compaction line is refused.
pub fn row_from_json(v: &Value) -> Result<SessionRow, RowError> {
    if !v.is_object() {
        return Err(RowError::NotObject);
    }
    let row = SessionRow::deserialize(v)
        .map_err(|e| RowError::Invalid(crate::sanitize::one_line(&e.to_string())))?;
    if row.session_key.is_none() && row.session_id.is_none() {
        return Err(RowError::NoIdentity);
    }
    Ok(row)
}

/// `{"sessions": [{"host": …, …}], "hosts": […], "errors": [{"host": …, "error": …}]}`,
/// serialized as it is written: each session's object is read from its kept text and
/// dropped once written, so the whole answer never exists as one tree.
pub fn to_json(results: &[HostResult]) -> FleetJson<'_> {
    FleetJson(results)
}

/// What [`to_json`] serializes.
pub struct FleetJson<'a>(&'a [HostResult]);

/// The sessions of [`FleetJson`], one transient object each.
struct FleetSessions<'a>(&'a [HostResult]);

impl serde::Serialize for FleetSessions<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = ser.serialize_seq(None)?;
        for r in rows(self.0) {
            let mut m = Map::new();
            m.insert("host".into(), Value::String(r.host.to_string()));
            if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(r.json) {
                for (k, v) in o {
                    if k != "host" {
                        m.insert(k, v);
                    }
                }
            }
            seq.serialize_element(&m)?;
        }
        seq.end()
    }
}

impl serde::Serialize for FleetJson<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let results = self.0;
        let errors: Vec<Value> = results
            .iter()
            .flat_map(|h| {
                h.errors()
                    .into_iter()
                    .map(|e| serde_json::json!({"host": h.name, "error": e}))
            })
            .collect();
        // Each host that answered, with its spend (SPEC §10): the totals its own `list --json`
        // has, read back (a remote's) or computed here (a local or gateway host's).
        let hosts: Vec<Value> = results
            .iter()
            .filter_map(|h| {
                let l = h.outcome.as_ref().ok()?;
                Some(serde_json::json!({
                    "host": h.name,
                    "era": l.report.era,
                    "sessions": l.len(),
                    "totals": l.report.totals,
                }))
            })
            .collect();
        let mut m = ser.serialize_map(Some(3))?;
        m.serialize_entry("sessions", &FleetSessions(results))?;
        m.serialize_entry("hosts", &hosts)?;
        m.serialize_entry("errors", &errors)?;
        m.end()
    }
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
                [
                    "-t",
                    "--",
                    "ops@p1",
                    "'/opt/claw top'",
                    "--session-only",
                    "--",
                    "'-k;$(id)'"
                ]
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
                "--session-only",
                "--",
                "agent:main:main"
            ]
        );
    }

    #[test]
    fn a_remote_row_is_its_own_text_of_the_answer() {
        let rows = [
            r#"{"sessionKey":"agent:mäin:✓","window":48000,"compactAt":28000,"x":"\u00e9"}"#,
            r#"{"sessionId":"s2","window":1,"compactAt":1,"agentId":"b"}"#,
        ];
        let out = format!(
            "{{\"stateDir\":\"/s\",\"sessions\":[ {} ,\n{}],\"errors\":[]}}\n",
            rows[0], rows[1]
        );
        let mut l = parse_remote_owned("p1", out.into_bytes(), 0, "").unwrap();
        assert_eq!(l.json.iter().collect::<Vec<_>>(), rows);
        assert_eq!(l.len(), 2);
        let mut keys = Vec::new();
        l.each_row(|r| keys.push(r.session_key.clone()));
        assert_eq!(keys, [Some("agent:mäin:✓".to_string()), None]);
        l.materialize();
        assert!(!l.rows_in_json);
        assert_eq!(l.report.sessions[1].agent_id.as_deref(), Some("b"));
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn remote_json_is_read_leniently_and_garbage_is_named() {
        let out = br#"{"stateDir":"/s","era":"file","sessions":[{"agentId":"main","sessionKey":"agent:main:main","window":48000,"compactAt":28000,"used":30000,"usedSource":"fresh","status":"over","forecast":{"x":1}}],"warnings":[]}"#;
        let mut l = parse_remote("p1", out, 0, "").unwrap();
        assert!(l.report.sessions.is_empty() && l.len() == 1);
        l.materialize();
        let r = &l.report.sessions[0];
        assert_eq!(r.status, crate::thresholds::Status::Over);
        assert_eq!(r.used, Some(30000));
        assert!(l.json.get(0).unwrap().contains(r#""forecast":{"x":1}"#));
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
                why: RowError::Invalid("missing field `window`".into())
            }
        );
        assert_eq!(e.to_string(), "p1: session #1: missing field `window`");
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

/// What a host, or the whole fleet, spends (SPEC §10): today and per hour now. Computed here
/// once from the hosts' own totals ([`crate::cost::host::HostTotals`], what each host's
/// `list --json` reports); `list --hosts` and the Fleet screen both show this.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spend {
    pub today_usd: f64,
    pub per_hour_usd: f64,
    pub unpriced_calls: u64,
    /// Hosts counted (those that reported totals).
    pub hosts: usize,
}

impl Spend {
    /// One host's, or the sum over hosts (`fleet`).
    pub fn of<'a>(totals: impl IntoIterator<Item = &'a crate::cost::host::HostTotals>) -> Spend {
        let mut s = Spend::default();
        for t in totals {
            s.today_usd += t.spend_today_usd;
            s.per_hour_usd += t.per_hour_usd;
            s.unpriced_calls += t.unpriced_calls;
            s.hosts += 1;
        }
        s
    }

    /// Today's spend as text (`$1.20`, `?` marks unpriced calls), "-" when no host reported.
    pub fn today_text(&self) -> String {
        self.text(self.today_usd)
    }

    /// $/h as text (`$0.35/h`), "-" when no host reported.
    pub fn per_hour_text(&self) -> String {
        if self.hosts == 0 {
            return "-".into();
        }
        format!("{}/h", crate::cost::usd_text(self.per_hour_usd))
    }

    fn text(&self, usd: f64) -> String {
        if self.hosts == 0 {
            return "-".into();
        }
        crate::cost::usd_marked(usd, self.unpriced_calls)
    }
}

/// The fleet's spend: every host that answered with its totals.
pub fn fleet_spend(results: &[HostResult]) -> Spend {
    Spend::of(
        results
            .iter()
            .filter_map(|h| h.outcome.as_ref().ok()?.report.totals.as_ref()),
    )
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
            // Leaving the session ends the remote clawtop, so `q` there is back here at once.
            // `--`: a key from a store is data, never an option of the remote clawtop.
            a.extend(["--session-only".into(), "--".into(), ssh::shell_word(key)]);
            ("ssh".into(), a)
        }
        Transport::Local { state_dir } => (
            this_exe.into(),
            vec![
                "--state-dir".into(),
                state_dir.display().to_string(),
                "--session-only".into(),
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
                "--session-only".into(),
                "--".into(),
                key.into(),
            ],
        ),
    }
}
