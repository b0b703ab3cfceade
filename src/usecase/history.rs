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
    let (t, unread) = match &s.transcript {
        Some(_) => match numbers.source.open_transcript(&s.reference) {
            Ok(t) => {
                crate::numbers::push_transcript_warnings(&t, &mut warnings);
                (Some(t), None)
            }
            Err(e) => {
                let why = crate::sanitize::one_line(&e.to_string());
                warnings.push(why.clone());
                (None, Some(why))
            }
        },
        None => (None, s.transcript_unread.clone()),
    };
    let th = match &unread {
        Some(why) => numbers.session_unread(s, why),
        None => numbers.session_with_transcript(s, t.as_ref()),
    };
    let memory = if with_memory {
        memory_of(numbers.source, s.agent_id())
    } else {
        None
    };
    let h = history::build(t.as_ref(), &th, memory);
    let h = match &unread {
        Some(why) => h.unread(why),
        None => h,
    };
    (h, warnings)
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
/// read the count), and no workspace: the notes play no part in these problems. Gateway
/// `logs` (`check --log FILE`) add their flushes as `history --log` does, each log read once
/// for all the sessions read; also returns why a log could not be read (or not to its end),
/// one line per such log.
pub fn check_problems(
    source: &dyn crate::source::SessionSource,
    agent: Option<&str>,
    refs: &[crate::source::SessionRef],
    logs: &[std::path::PathBuf],
) -> (Vec<Vec<history::HistoryWarning>>, Vec<String>) {
    let listed = source.list(agent);
    let by_ref: std::collections::HashMap<_, _> =
        listed.sessions.iter().map(|s| (&s.reference, s)).collect();
    let count_unknown = source
        .not_exposed()
        .iter()
        .any(|(f, _)| *f == "compactionCount");
    let wanted: Vec<Option<&Session>> = refs
        .iter()
        .map(|r| {
            by_ref.get(r).copied().filter(|s| {
                (s.transcript.is_some() || s.transcript_unread.is_some())
                    && (count_unknown || s.entry.compaction_count.unwrap_or(0) > 0)
            })
        })
        .collect();
    let mut keys: Vec<&str> = wanted.iter().flatten().map(|s| s.key()).collect();
    keys.sort_unstable();
    keys.dedup();
    // Per log, one scan per key of `keys`.
    let scans: Vec<Vec<history::log::LogScan>> = if keys.is_empty() {
        Vec::new()
    } else {
        logs.iter()
            .map(|l| history::log::scan_many(l, &keys))
            .collect()
    };
    let unread = scans
        .iter()
        .filter_map(|per_key| per_key.first())
        .filter_map(|s| {
            let why = s.unread.as_deref()?;
            Some(format!(
                "gateway log {}: {}",
                crate::sanitize::one_line(&s.file),
                crate::sanitize::one_line(why)
            ))
        })
        .collect();
    let mut numbers = Numbers::new(source);
    let problems = wanted
        .iter()
        .map(|s| match s {
            Some(s) => {
                let (mut h, _) = read(&mut numbers, s, false);
                if let Ok(k) = keys.binary_search(&s.key()) {
                    let of_key: Vec<_> = scans.iter().map(|per| per[k].clone()).collect();
                    h.with_logs(&of_key);
                }
                h.about_last_compaction().into_iter().cloned().collect()
            }
            None => Vec::new(),
        })
        .collect();
    (problems, unread)
}
