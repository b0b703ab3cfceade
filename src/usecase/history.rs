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
    // Opened with what the walk of the branch reads captured in the same scan: the history
    // reads no entry a second time.
    let (t, unread) = match &s.transcript {
        Some(_) => match numbers.source.open_transcript_for_history(&s.reference) {
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

/// What the reads of one open session keep between its reloads (the TUI's Session screen):
/// the gateway logs followed from where they were read, the memory notes not changed.
#[derive(Debug, Default)]
pub struct Kept {
    logs: Vec<history::log::Follow>,
    memory: history::memory::Kept,
    workspace: Option<std::path::PathBuf>,
}

/// [`for_open`] then [`add_logs`], reading of the memory notes and the logs only what changed
/// since `kept` last read them: the same history.
pub fn for_open_kept(
    source: &dyn crate::source::SessionSource,
    session_key: &str,
    agent_id: &str,
    t: &crate::transcript::Transcript,
    th: &crate::thresholds::Thresholds,
    logs: &[std::path::PathBuf],
    kept: &mut Kept,
) -> History {
    let memory = source.workspace(agent_id).map(|(w, _)| {
        if kept.workspace.as_ref() != Some(&w) {
            kept.memory = Default::default();
            kept.workspace = Some(w.clone());
        }
        history::memory::read_kept(&w, &mut kept.memory)
    });
    let mut h = history::build(Some(t), th, memory);
    if !logs.is_empty() {
        let mut was = std::mem::take(&mut kept.logs);
        let scans: Vec<_> = logs
            .iter()
            .map(|l| {
                let mut f = match was.iter().position(|f| f.is_of(l, session_key)) {
                    Some(i) => was.swap_remove(i),
                    None => history::log::Follow::new(l, session_key),
                };
                let s = f.scan();
                kept.logs.push(f);
                s
            })
            .collect();
        h.with_logs(&scans);
    }
    h
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

#[cfg(test)]
mod tests {
    use crate::source::transcript_file::TranscriptFile;
    use crate::source::{
        Changes, Listing, Operation, SessionRef, SessionSource, SourceError, SourceKind, Watch,
        Writer,
    };
    use crate::transcript::Transcript;
    use serde_json::Value;

    /// A bare transcript that records how it was opened; everything else is the file's.
    struct Counted {
        file: TranscriptFile,
        opened: std::sync::Mutex<Vec<&'static str>>,
    }

    impl SessionSource for Counted {
        fn kind(&self) -> SourceKind {
            self.file.kind()
        }
        fn label(&self) -> String {
            self.file.label()
        }
        fn warnings(&self) -> Vec<String> {
            self.file.warnings()
        }
        fn has_agent(&self, agent: &str) -> bool {
            self.file.has_agent(agent)
        }
        fn list(&self, agent: Option<&str>) -> Listing {
            self.file.list(agent)
        }
        fn open_transcript(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
            self.opened.lock().unwrap().push("figures");
            self.file.open_transcript(r)
        }
        fn open_transcript_for_history(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
            self.opened.lock().unwrap().push("history");
            self.file.open_transcript_for_history(r)
        }
        fn changes(&self, what: Watch<'_>) -> Changes {
            self.file.changes(what)
        }
        fn writer(&self, r: &SessionRef, op: Operation) -> Writer {
            self.file.writer(r, op)
        }
        fn config(&self) -> &Value {
            self.file.config()
        }
        fn config_label(&self) -> String {
            self.file.config_label()
        }
        fn models_json(&self, agent: &str) -> Option<(String, Value)> {
            self.file.models_json(agent)
        }
    }

    /// `clawtop history` opens the transcript once, asking the source to capture in that
    /// scan what the walk of the branch reads: the history reads no entry a second time.
    #[test]
    fn a_history_opens_its_transcript_once_for_the_walk() {
        let path = crate::transcript::fixture_transcripts()
            .into_iter()
            .find(|p| p.ends_with("v3-two-compactions.jsonl"))
            .expect("the fixture");
        let source = Counted {
            file: TranscriptFile::new(&path),
            opened: Default::default(),
        };
        let session = source.file.session();
        let (h, warnings) =
            super::for_session(&mut crate::numbers::Numbers::new(&source), &session);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(h.compactions.len(), 2, "the fixture's two compactions");
        assert_eq!(*source.opened.lock().unwrap(), ["history"]);
    }
}
