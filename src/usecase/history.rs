//! `clawtop history KEY` and the Session screen's History pane: one session's history
//! ([`crate::history`]) from its source, with the session's numbers from [`Numbers`] (the
//! lines are never recomputed here).

use crate::history::{self, History};
use crate::numbers::Numbers;
use crate::source::Session;

/// The history of `s`, and the problems met reading it (the transcript's, naming it).
pub fn for_session(numbers: &mut Numbers<'_>, s: &Session) -> (History, Vec<String>) {
    read(numbers, s, true)
}

fn read(numbers: &mut Numbers<'_>, s: &Session, with_memory: bool) -> (History, Vec<String>) {
    let mut warnings = s.warnings.clone();
    let t = match &s.transcript {
        Some(_) => crate::numbers::open_transcript(numbers.source, s, &mut warnings),
        None => None,
    };
    let th = numbers.session_with_transcript(s, t.as_ref());
    let memory = if with_memory {
        memory_of(numbers.source, s.agent_id())
    } else {
        None
    };
    (history::build(t.as_ref(), &th, memory), warnings)
}

/// The history of a session whose transcript the caller already has open, with the numbers
/// it shows beside it (the Session screen's History pane: the same `th` as the screen's
/// header, so the pane and `clawtop history` agree). Reads the agent's memory notes: call off
/// the render path.
pub fn for_open(
    source: &dyn crate::source::SessionSource,
    agent_id: &str,
    t: &crate::transcript::Transcript,
    th: &crate::thresholds::Thresholds,
) -> History {
    history::build(Some(t), th, memory_of(source, agent_id))
}

/// Adds what Gateway log files say about the session `key` (`clawtop history KEY --log FILE`,
/// and `clawtop --log FILE` for the TUI's History pane): each file read bounded
/// ([`history::log::scan`]), a file that cannot be read named in a warning.
pub fn add_logs(h: &mut History, key: &str, logs: &[std::path::PathBuf]) {
    if logs.is_empty() {
        return;
    }
    let scans: Vec<_> = logs.iter().map(|l| history::log::scan(l, key)).collect();
    h.with_logs(&scans);
}

/// The memory notes of the agent's workspace (None: no workspace known, e.g. a bare file).
fn memory_of(
    source: &dyn crate::source::SessionSource,
    agent_id: &str,
) -> Option<history::MemoryNotes> {
    source
        .workspace(agent_id)
        .map(|(w, _)| history::memory::read(&w))
}

/// The warnings about the last compaction (`History::about_last_compaction`) that `check`
/// grades, per reference of `refs` (same order). Only sessions that have compacted are read (a store
/// `compactionCount` of 0 or none means there is nothing to find, unless the source cannot
/// read the count), and no workspace: the notes play no part in these problems.
pub fn check_problems(
    source: &dyn crate::source::SessionSource,
    agent: Option<&str>,
    refs: &[crate::source::SessionRef],
) -> Vec<Vec<history::HistoryWarning>> {
    let listed = source.list(agent);
    let by_ref: std::collections::HashMap<_, _> =
        listed.sessions.iter().map(|s| (&s.reference, s)).collect();
    let count_unknown = source
        .not_exposed()
        .iter()
        .any(|(f, _)| *f == "compactionCount");
    let mut numbers = Numbers::new(source);
    refs.iter()
        .map(|r| match by_ref.get(r) {
            Some(s)
                if s.transcript.is_some()
                    && (count_unknown || s.entry.compaction_count.unwrap_or(0) > 0) =>
            {
                let (h, _) = read(&mut numbers, s, false);
                h.about_last_compaction().into_iter().cloned().collect()
            }
            _ => Vec::new(),
        })
        .collect()
}
