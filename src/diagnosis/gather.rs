//! The diagnosis of a session gathered from its source: the store figure, the workspace and
//! the prompt report it is made with, the numbers (the same as `list`'s for that session) and
//! whether a turn is running. Every front-end (`show`, `compact --dry-run`, the TUI) and the
//! compaction use case start here, so they diagnose one session alike.

use super::{Diagnosis, Inputs, StoreFigure, overhead};
use crate::source::{LocalWriter, Operation, Session, SessionSource, Writer};
use crate::thresholds::Thresholds;
use crate::transcript::Transcript;

/// The diagnosis of a listed session: store figure, workspace and prompt report from its source.
pub fn for_session(
    source: &dyn SessionSource,
    s: &Session,
    t: &Transcript,
    th: &Thresholds,
    keep: u64,
) -> Diagnosis {
    let workspace = source.workspace(s.agent_id()).map(|w| w.0);
    let store_path = match source.writer(&s.reference, Operation::Flush) {
        Writer::Local(LocalWriter { store, .. }) => store.map(|r| r.store_path),
        _ => None,
    };
    let report = store_path.and_then(|p| overhead::read_prompt_report(&p, s.key()));
    let mut d = super::diagnose(
        t,
        &Inputs {
            session_key: Some(s.key()),
            store: StoreFigure {
                total_tokens: s.entry.total_tokens(),
                total_tokens_fresh: s.entry.total_tokens_fresh(),
                updated_at: s.entry.updated_at,
            },
            thresholds: th,
            keep_recent_tokens: keep,
            workspace: workspace.as_deref(),
            prompt_report: report.as_ref(),
            bootstrap_max_chars: overhead::bootstrap_max_chars(source.config()),
        },
    );
    let (cost, rates) = crate::numbers::Numbers::new(source).cost_and_rates(s, t);
    d.economics = super::economics::of(t, keep, &d, &cost, rates);
    d.cost = Some(cost);
    d
}

/// The diagnosis of a session or (without one) a bare transcript, at `keep`, whether a turn
/// is running, and the numbers it was made with (the same as `list`'s for that session).
pub fn for_target(
    source: &dyn SessionSource,
    session: Option<&Session>,
    t: &Transcript,
    keep: u64,
) -> (Diagnosis, Option<super::Busy>, Thresholds) {
    let (basis, busy) = basis_of(source, session.cloned(), t);
    let d = of_basis(source, &basis, t, keep);
    (d, busy, basis.thresholds)
}

/// The diagnosis of a session named by its handle (the TUI): its listed entry when it has
/// one, else as a bare transcript, with the numbers it was made with. Disk I/O (the session's
/// store entry, workspace files, the lock). [`basis_for_handle`] then [`of_basis`].
pub fn for_handle(
    h: &crate::source::SessionHandle,
    t: &Transcript,
    keep: u64,
) -> (Option<Diagnosis>, Option<super::Busy>, Thresholds) {
    let (basis, busy) = basis_for_handle(h, t);
    let d = of_basis(h.source.as_ref(), &basis, t, keep);
    (Some(d), busy, basis.thresholds)
}

/// What the diagnosis of a session named by its handle is made with, found before it: the
/// session's listed entry (None: diagnosed as a bare transcript) and its numbers. The TUI's
/// first screen needs these alone (the header is the numbers); the diagnosis, a pass over
/// the whole context, follows from them ([`of_basis`]) with the same figures.
#[derive(Debug, Clone)]
pub struct Basis {
    pub listed: Option<Session>,
    pub thresholds: Thresholds,
}

/// The [`Basis`] of the session `h` names, and whether a turn is running. Disk I/O (the
/// session's store entry, the lock); reads the transcript's facts, not its whole context.
pub fn basis_for_handle(
    h: &crate::source::SessionHandle,
    t: &Transcript,
) -> (Basis, Option<super::Busy>) {
    let source = h.source.as_ref();
    let r = &h.session;
    // Named by its key: on a host of thousands of sessions the source reads that one
    // (`listing_for`), on every load of the open session, not the whole store.
    let listed = if r.agent_id.is_empty() {
        None
    } else {
        source
            .listing_for(Some(&r.agent_id), &r.key)
            .sessions
            .into_iter()
            .find(|s| s.reference == *r)
    };
    basis_of(source, listed, t)
}

/// The [`Basis`] of `listed` (None: a bare transcript) and whether a turn is running.
fn basis_of(
    source: &dyn SessionSource,
    listed: Option<Session>,
    t: &Transcript,
) -> (Basis, Option<super::Busy>) {
    match listed {
        Some(s) => {
            let thresholds =
                crate::numbers::Numbers::new(source).session_with_transcript(&s, Some(t));
            let busy = super::busy::of_session(source, &s);
            (
                Basis {
                    listed: Some(s),
                    thresholds,
                },
                busy,
            )
        }
        None => {
            let (thresholds, _) = crate::numbers::bare_file(Some(t), None);
            (
                Basis {
                    listed: None,
                    thresholds,
                },
                super::busy(t.path()),
            )
        }
    }
}

/// The diagnosis made with `basis` at `keep`: what [`for_target`] gives for the same session.
pub fn of_basis(source: &dyn SessionSource, basis: &Basis, t: &Transcript, keep: u64) -> Diagnosis {
    match &basis.listed {
        Some(s) => for_session(source, s, t, &basis.thresholds, keep),
        None => for_file(t, &basis.thresholds, keep),
    }
}

/// A bare transcript: no store, no workspace.
pub fn for_file(t: &Transcript, th: &Thresholds, keep: u64) -> Diagnosis {
    let mut d = super::diagnose(
        t,
        &Inputs {
            session_key: None,
            store: StoreFigure::default(),
            thresholds: th,
            keep_recent_tokens: keep,
            workspace: None,
            prompt_report: None,
            bootstrap_max_chars: overhead::DEFAULT_BOOTSTRAP_MAX_CHARS,
        },
    );
    // No host: the recorded prices and clawtop's tables.
    let prices = crate::cost::prices::Prices::load(&crate::paths::Env::from_process());
    let cx = crate::cost::Context {
        prices: &prices,
        host: crate::cost::prices::HostCatalogs { catalogs: vec![] },
        config: None,
        now_ms: crate::cost::now_ms(),
    };
    let cost = crate::cost::of_transcript(t, &cx);
    let rates = crate::cost::session_rates(&cx, &cost, None, None);
    d.economics = super::economics::of(t, keep, &d, &cost, rates);
    d.cost = Some(cost);
    d
}
