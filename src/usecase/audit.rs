//! Audit a session's compactions (SPEC §6a): open its transcript through the source and hand
//! it to [`crate::audit`] with what the host says about itself (its release's boundary,
//! whether its summaries can be read). `clawtop audit` and the Session screen call this; the
//! session list ([`super::list`]) takes each row's latest loss from the transcript it has open
//! for the row, with the same host facts.

use super::Problem;
use crate::audit::{self, HostFacts, SessionAudit};
use crate::source::{SessionHandle, SessionSource};

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
