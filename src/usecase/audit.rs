//! Audit a session's compactions (SPEC §6a): open its transcript through the source and hand
//! it to [`crate::audit`] with what the host says about itself (its release's boundary,
//! whether its summaries can be read). The CLI, `check`, `metrics` and the TUI all call this.

use super::Problem;
use crate::audit::{self, HostFacts, Loss, SessionAudit};
use crate::source::{SessionHandle, SessionRef, SessionSource};

/// The audit of every compaction on the session's active branch, oldest first.
pub fn run(session: &SessionHandle) -> Result<SessionAudit, Problem> {
    let t = session
        .open_transcript()
        .map_err(|e| Problem::Failed(e.to_string()))?;
    Ok(of_open(session.source.as_ref(), &t))
}

/// The audit of a transcript of `source` the caller already has open (the Session screen's
/// loader): the same host facts as `clawtop audit`.
pub fn of_open(source: &dyn SessionSource, t: &crate::transcript::Transcript) -> SessionAudit {
    audit::audit_transcript(t, &HostFacts::of(source))
}

/// What the latest compaction of each session lost (`check`, `metrics`), in the order of
/// `sessions`; None where there is no compaction or the transcript cannot be read.
pub fn latest_losses(source: &dyn SessionSource, sessions: &[SessionRef]) -> Vec<Option<Loss>> {
    let host = HostFacts::of(source);
    // Where no summary can be read (a gateway), there is nothing to audit: do not fetch every
    // session's history for an answer that can only be "unknown".
    if host.summaries_unreadable.is_some() {
        return vec![None; sessions.len()];
    }
    sessions
        .iter()
        .map(|s| {
            let t = source.open_transcript(s).ok()?;
            audit::audit_latest(&t, &host)
        })
        .collect()
}
