//! `clawtop history KEY` and the Session screen's History pane: one session's history
//! ([`crate::history`]) from its source, with the session's numbers from [`Numbers`] (the
//! lines are never recomputed here).

use crate::history::{self, History};
use crate::numbers::Numbers;
use crate::source::Session;

/// The history of `s`, and the problems met reading it (the transcript's, naming it).
pub fn for_session(numbers: &mut Numbers<'_>, s: &Session) -> (History, Vec<String>) {
    let mut warnings = s.warnings.clone();
    let t = match &s.transcript {
        Some(_) => crate::numbers::open_transcript(numbers.source, s, &mut warnings),
        None => None,
    };
    let rules = numbers.rules;
    let th = numbers.session_with(s, || {
        t.as_ref()
            .and_then(|t| crate::numbers::estimate(rules, t))
            .map(|e| e.tokens)
    });
    let memory = numbers
        .source
        .workspace(s.agent_id())
        .map(|(w, _)| history::memory::read(&w));
    (history::build(t.as_ref(), &th, memory), warnings)
}
