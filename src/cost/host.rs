//! A host's spend (SPEC §10, `list --hosts` and `list`): today's spend, $/h now, the sessions
//! burning most, spend by kind of key, and the transcripts OpenClaw archived (`/new`,
//! `/reset`, deleted sessions), which were paid for too. Summed from the sessions' own
//! [`SessionCost`]s, so a host's total is the sum of what its rows say.

use super::{Context, SessionCost};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Sessions [`HostTotals::top`] names.
pub const TOP_SESSIONS: usize = 3;
pub use crate::transcript::archive::{ArchiveError, MAX_BYTES as ARCHIVE_MAX_BYTES};

/// What kind of work a session key is: OpenClaw's heartbeat (`<base>:heartbeat`), a cron job
/// (`agent:<id>:cron:…`), a subagent (`agent:<id>:subagent:…`), else a direct or channel chat.
pub fn key_kind(key: &str) -> &'static str {
    let mut parts = key.split(':');
    let rest: Vec<&str> = match (parts.next(), parts.next()) {
        (Some("agent"), Some(_)) => parts.collect(),
        _ => key.split(':').collect(),
    };
    if rest.last() == Some(&"heartbeat") {
        "heartbeat"
    } else if rest.first() == Some(&"cron") {
        "cron"
    } else if rest.first() == Some(&"subagent") {
        "subagent"
    } else {
        "direct/channel"
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KindSpend {
    pub sessions: u64,
    pub spend_usd: f64,
    pub spend_today_usd: f64,
    pub per_hour_usd: f64,
    pub unpriced_calls: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopSession {
    pub session_key: String,
    pub per_hour_usd: f64,
}

/// Transcripts archived beside the live ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Archived {
    pub transcripts: u64,
    pub spend_usd: f64,
    pub spend_today_usd: f64,
    pub unpriced_calls: u64,
    /// Archives counted but not read (compressed, too large, unreadable), with why.
    pub unread: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HostTotals {
    /// Live sessions and archived transcripts.
    pub spend_usd: f64,
    pub spend_today_usd: f64,
    pub per_hour_usd: f64,
    pub unpriced_calls: u64,
    /// The sessions with the highest $/h (none spending: empty).
    pub top: Vec<TopSession>,
    /// By [`key_kind`].
    pub by_kind: BTreeMap<String, KindSpend>,
    /// None where archives are not read (a Gateway, which does not expose them; remote hosts
    /// that did not report them).
    pub archived: Option<Archived>,
}

impl HostTotals {
    /// The totals of `rows` (session key, its cost) and the host's archives.
    pub fn of<'a>(
        rows: impl IntoIterator<Item = (&'a str, &'a SessionCost)>,
        archived: Option<Archived>,
    ) -> HostTotals {
        let mut t = HostTotals::default();
        let mut burning: Vec<TopSession> = Vec::new();
        for (key, c) in rows {
            t.spend_usd += c.spend_usd;
            t.spend_today_usd += c.spend_today_usd;
            t.per_hour_usd += c.per_hour_usd;
            t.unpriced_calls += c.unpriced_calls;
            let k = t.by_kind.entry(key_kind(key).to_string()).or_default();
            k.sessions += 1;
            k.spend_usd += c.spend_usd;
            k.spend_today_usd += c.spend_today_usd;
            k.per_hour_usd += c.per_hour_usd;
            k.unpriced_calls += c.unpriced_calls;
            if c.per_hour_usd > 0.0 {
                burning.push(TopSession {
                    session_key: crate::sanitize::one_line(key),
                    per_hour_usd: c.per_hour_usd,
                });
            }
        }
        burning.sort_by(|a, b| b.per_hour_usd.total_cmp(&a.per_hour_usd));
        burning.truncate(TOP_SESSIONS);
        t.top = burning;
        if let Some(a) = &archived {
            t.spend_usd += a.spend_usd;
            t.spend_today_usd += a.spend_today_usd;
            t.unpriced_calls += a.unpriced_calls;
        }
        t.archived = archived;
        t
    }

    /// One line, plain ASCII: `today $1.20 | $0.35/h | cron $0.10, direct/channel $1.10 |
    /// archived 3 ($0.40 today) | top: KEY $0.30/h | 2 calls unpriced`.
    pub fn line(&self) -> String {
        let mut parts = vec![
            format!(
                "today {}",
                super::usd_marked(self.spend_today_usd, self.unpriced_calls)
            ),
            format!("{}/h", super::usd_text(self.per_hour_usd)),
        ];
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(kind, k)| format!("{kind} {}", super::usd_text(k.spend_today_usd)))
            .collect();
        if !kinds.is_empty() {
            parts.push(kinds.join(", "));
        }
        if let Some(a) = &self.archived {
            let unread = if a.unread.is_empty() {
                String::new()
            } else {
                format!(", {} unread", a.unread.len())
            };
            parts.push(format!(
                "archived {} ({} today{unread})",
                a.transcripts,
                super::usd_text(a.spend_today_usd)
            ));
        }
        if !self.top.is_empty() {
            let top: Vec<String> = self
                .top
                .iter()
                .map(|t| format!("{} {}/h", t.session_key, super::usd_text(t.per_hour_usd)))
                .collect();
            parts.push(format!("top: {}", top.join(", ")));
        }
        if self.unpriced_calls > 0 {
            parts.push(format!(
                "{} call{} unpriced",
                self.unpriced_calls,
                if self.unpriced_calls == 1 { "" } else { "s" }
            ));
        }
        parts.join(" | ")
    }
}

/// Whether a file name is an archived transcript: `<file>.jsonl.reset.<ts>` or
/// `<file>.jsonl.deleted.<ts>` (`.zst` when OpenClaw 2026.9 compressed it).
pub fn is_archive(name: &str) -> bool {
    name.contains(".jsonl.reset.") || name.contains(".jsonl.deleted.")
}

/// The archived transcripts in `dirs` (a file host's sessions directories), each priced with
/// `cx` as a session's transcript is.
pub fn archived_in(dirs: &[PathBuf], cx: &Context<'_>) -> Archived {
    let mut a = Archived::default();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        let mut names: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(is_archive)
            })
            .collect();
        names.sort();
        for p in names {
            let t = crate::transcript::archive::read_file(&p);
            a.add(&p.display().to_string(), t, cx);
        }
    }
    a
}

impl Archived {
    /// Counts one archived transcript (`name` says which, where it could not be read), priced
    /// with `cx` as a session's transcript is.
    pub fn add(
        &mut self,
        name: &str,
        t: Result<crate::transcript::Transcript, ArchiveError>,
        cx: &Context<'_>,
    ) {
        self.transcripts += 1;
        match t {
            Ok(t) => {
                let c = super::of_transcript(&t, cx);
                self.spend_usd += c.spend_usd;
                self.spend_today_usd += c.spend_today_usd;
                self.unpriced_calls += c.unpriced_calls;
            }
            Err(why) => self.unread.push(format!(
                "{}: {}",
                crate::sanitize::one_line(name),
                crate::sanitize::one_line(&why.to_string())
            )),
        }
    }

    /// Adds another agent's archives.
    pub fn merge(&mut self, a: Archived) {
        self.transcripts += a.transcripts;
        self.spend_usd += a.spend_usd;
        self.spend_today_usd += a.spend_today_usd;
        self.unpriced_calls += a.unpriced_calls;
        self.unread.extend(a.unread);
    }
}
