//! Is an OpenClaw turn running on a session right now? A live holder of `<transcript>.lock`
//! (read with the commit code's own judgement: live pid, not a zombie, not recycled) is one.
//! Shown in the list and refused before any model request; the commit checks again.

use crate::commit::lock::{self, LIVE_HOLDER_NEVER_EXPIRES, LockStatus};
use crate::source::{LocalWriter, Operation, Session, SessionHandle, SessionSource, Writer};
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Busy {
    pub pid: Option<i32>,
    /// When the holder took the lock (ISO 8601), as it wrote it.
    pub created_at: Option<String>,
    /// The lock file, for messages.
    #[serde(skip)]
    pub lock: String,
}

/// The live holder of the transcript's lock; None when free, stale or unreadable.
pub fn busy(transcript: &Path) -> Option<Busy> {
    match lock::status(transcript, LIVE_HOLDER_NEVER_EXPIRES) {
        Ok(LockStatus::Held(h)) => Some(Busy {
            lock: lock::lock_path_for(transcript)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| format!("{}.lock", transcript.display())),
            pid: h.pid,
            created_at: h
                .created_at
                .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
        }),
        _ => None,
    }
}

/// The live holder of a session's transcript lock, where the source has a transcript file.
pub fn of_session(source: &dyn SessionSource, s: &Session) -> Option<Busy> {
    transcript_of(source, s).and_then(|p| busy(&p))
}

/// The transcript whose lock [`of_session`] looks at (None: clawtop writes none here, so
/// no turn of it is seen as busy): what a reload that keeps a row asks [`busy`] again.
pub fn transcript_of(source: &dyn SessionSource, s: &Session) -> Option<std::path::PathBuf> {
    source.compacted_in_place(&s.reference)
}

/// [`of_session`] for a session named by its handle.
pub fn of_handle(h: &SessionHandle) -> Option<Busy> {
    match h.writer(Operation::Compact) {
        Writer::Local(LocalWriter {
            transcript: Some(p),
            ..
        }) => busy(&p),
        _ => None,
    }
}

/// What a stale transcript lock is, in the words `check`, `show` and the Session screen all
/// use; None when the lock is free, held by a live process or unknown.
pub fn stale_lock_words(status: Option<&LockStatus>) -> Option<String> {
    let Some(LockStatus::Stale(why, holder)) = status else {
        return None;
    };
    use crate::commit::lock::StaleReason as R;
    let pid = holder
        .pid
        .map(|p| format!("pid {p}"))
        .unwrap_or_else(|| "no pid".into());
    let why = match why {
        R::Unparsable => "its content is not a lock record".to_string(),
        R::MissingPid => "it names no holder pid".to_string(),
        R::InvalidCreatedAt => "its createdAt is not a date".to_string(),
        R::DeadPid => format!("its holder ({pid}) is dead"),
        R::ZombiePid => format!("its holder ({pid}) is a zombie"),
        R::RecycledPid => format!("its {pid} now belongs to another process"),
        R::TooOld => format!("it is older than OpenClaw's 30 min staleMs ({pid})"),
    };
    Some(format!(
        "stale transcript lock: {why}; OpenClaw takes it over at the next turn, and so does a clawtop commit"
    ))
}

impl Busy {
    /// "a running OpenClaw turn (pid 4242, since 2026-11-21T04:22:23.600Z) holds <lock>".
    pub fn describe(&self) -> String {
        let lock = &self.lock;
        let pid = self
            .pid
            .map(|p| format!("pid {p}"))
            .unwrap_or_else(|| "a process being created".into());
        let since = self
            .created_at
            .as_deref()
            .map(|c| format!(", since {c}"))
            .unwrap_or_default();
        crate::sanitize::one_line(&format!(
            "the session is busy: an OpenClaw turn ({pid}{since}) holds {lock}; try again when it has finished"
        ))
    }
}
