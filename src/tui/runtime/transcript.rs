//! Loading a session's transcript: opens it through its source and computes, off the render
//! path, the per-file facts the Session screen shows. In two steps, so the first screen costs
//! what it shows: [`load_first`] (the rows, the branch, the next cut, the header's numbers,
//! busy, read-only), then [`load_details`] (diagnosis, history, audits: each a pass over the
//! whole transcript), which the screen shows as they arrive.
//! The decoding itself is pure ([`crate::tui::model::rows::analyze`]); this is the I/O around it.

use crate::sanitize::one_line;
use crate::tui::model::rows::{Details, LoadedTranscript, TranscriptDetails, analyze};
use std::collections::HashMap;
use std::sync::Arc;

/// Opens a session's transcript and computes everything the Session screen shows, details
/// included ([`load_first`] then [`load_details`]). Blocking.
pub fn load_transcript(
    session: &crate::source::SessionHandle,
    keep_recent_tokens: u64,
    logs: &[std::path::PathBuf],
    kept: &mut crate::usecase::history::Kept,
) -> Result<LoadedTranscript, crate::source::SourceError> {
    let mut l = load_first(session, keep_recent_tokens)?;
    if let Some(basis) = l.basis.clone() {
        let d = load_details(
            session,
            &l.transcript.clone(),
            l.keep_recent_tokens,
            &basis,
            logs,
            kept,
            &|| false,
        );
        if let Some(d) = d {
            l.set_details(d);
        }
    }
    Ok(l)
}

/// Opens a session's transcript with what its first screen shows: the entries, the branch,
/// the next cut, the header's numbers (the list's, decided with this transcript), whether a
/// turn runs and whether it can be written. The details are pending. Blocking.
pub fn load_first(
    session: &crate::source::SessionHandle,
    keep_recent_tokens: u64,
) -> Result<LoadedTranscript, crate::source::SourceError> {
    let t = session.open_transcript()?;
    // 0 is "the config's": the one rule resolves it (thresholds::Settings::keep_recent).
    let keep = crate::thresholds::Settings::from_config(session.source.config())
        .keep_recent(Some(keep_recent_tokens))
        .value;
    let mut l = analyze(Arc::new(t), keep);
    let (basis, busy) = crate::diagnosis::gather::basis_for_handle(session, &l.transcript);
    let mut numbers = crate::usecase::list::SessionRow::numbers(&basis.thresholds);
    if session.source.kind() == crate::source::SourceKind::Gateway {
        crate::usecase::list::name_gateway_rows(&mut numbers.sources);
    }
    l.numbers = Some(numbers);
    l.busy = busy;
    l.basis = Some(Arc::new(basis));
    l.details = Details::Pending;
    l.read_only = match crate::usecase::route::route(
        session,
        crate::source::Operation::Compact,
        Default::default(),
    ) {
        crate::usecase::route::Route::ReadOnly(why) => Some(one_line(&why)),
        _ => None,
    };
    Ok(l)
}

/// The details of a transcript [`load_first`] opened, made with its `basis` (the same
/// numbers as its header): the diagnosis, the history (of the memory notes and the logs only
/// what changed since `kept` last read them) and the audit of every compaction on the branch
/// (the badges "12 lost · 49 dropped"). Blocking; never while drawing.
pub fn load_details(
    session: &crate::source::SessionHandle,
    t: &Arc<crate::transcript::Transcript>,
    keep: u64,
    basis: &crate::diagnosis::gather::Basis,
    logs: &[std::path::PathBuf],
    kept: &mut crate::usecase::history::Kept,
    superseded: &dyn Fn() -> bool,
) -> Option<TranscriptDetails> {
    let source = session.source.as_ref();
    let diagnosis = crate::diagnosis::gather::of_basis(source, basis, t, keep);
    // Between steps: a newer read of the view makes the rest moot.
    if superseded() {
        return None;
    }
    let history = crate::usecase::history::for_open_kept(
        source,
        &session.session.key,
        &session.session.agent_id,
        t,
        &basis.thresholds,
        logs,
        kept,
    );
    if superseded() {
        return None;
    }
    Some(TranscriptDetails {
        diagnosis: Some(Box::new(diagnosis)),
        history: Box::new(history),
        audits: audits(session, t),
        of: t.clone(),
    })
}

/// The audits of the compactions on the branch, by their entry id (as the transcript
/// spells it: [`crate::transcript::Transcript::display_id`]).
fn audits(
    session: &crate::source::SessionHandle,
    t: &crate::transcript::Transcript,
) -> HashMap<String, Box<crate::audit::CompactionAudit>> {
    crate::usecase::audit::of_open(session.source.as_ref(), t)
        .compactions
        .into_iter()
        .filter_map(|c| Some((c.entry_id.clone()?, Box::new(c))))
        .collect()
}
