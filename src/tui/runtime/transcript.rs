//! Loading a session's transcript: opens it through its source and computes, off the render
//! path, the per-file facts the Session screen shows (numbers, diagnosis, history, audits).
//! The decoding itself is pure ([`crate::tui::model::rows::analyze`]); this is the I/O around it.

use crate::sanitize::one_line;
use crate::tui::model::rows::{LoadedTranscript, analyze};
use std::collections::HashMap;
use std::sync::Arc;

/// Opens a session's transcript through its source and computes the per-file facts. Blocking.
pub fn load_transcript(
    session: &crate::source::SessionHandle,
    keep_recent_tokens: u64,
    logs: &[std::path::PathBuf],
    kept: &mut crate::usecase::history::Kept,
) -> Result<LoadedTranscript, crate::source::SourceError> {
    let t = session.open_transcript()?;
    // 0 is "the config's": the one rule resolves it (thresholds::Settings::keep_recent).
    let keep = crate::thresholds::Settings::from_config(session.source.config())
        .keep_recent(Some(keep_recent_tokens))
        .value;
    let mut l = analyze(Arc::new(t), keep);
    let (d, busy, th) =
        crate::diagnosis::gather::for_handle(session, &l.transcript, l.keep_recent_tokens);
    let mut numbers = crate::usecase::list::SessionRow::numbers(&th);
    if session.source.kind() == crate::source::SourceKind::Gateway {
        crate::usecase::list::name_gateway_rows(&mut numbers.sources);
    }
    l.numbers = Some(numbers);
    l.diagnosis = d.map(Box::new);
    l.busy = busy;
    // The memory notes and the logs: only what changed since the last load is read.
    let history = crate::usecase::history::for_open_kept(
        session.source.as_ref(),
        &session.session.key,
        &session.session.agent_id,
        &l.transcript,
        &th,
        logs,
        kept,
    );
    l.history = Some(Box::new(history));
    attach_audits(&mut l, session);
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

/// Audits every compaction on the branch (the badges "12 lost · 49 dropped") here, in the
/// loader, never while drawing.
fn attach_audits(l: &mut LoadedTranscript, session: &crate::source::SessionHandle) {
    let mut by_id: HashMap<String, crate::audit::CompactionAudit> =
        crate::usecase::audit::of_open(session.source.as_ref(), &l.transcript)
            .compactions
            .into_iter()
            .filter_map(|c| Some((c.entry_id.clone()?, c)))
            .collect();
    for card in &mut l.summaries {
        let id = l.transcript.display_id(card.idx);
        card.audit = by_id.remove(&id).map(Box::new);
    }
}
