//! The data-source seam: the file store behind `SessionSource`, the bare transcript, an
//! unreadable (era-B) host, and a second, in-memory source that the reports and the TUI use
//! without any change to them (what a SQLite source will do).

use crate::support::fixtures;
use clawtop::source::transcript_file::TranscriptFile;
use clawtop::source::{
    Changes, Listing, Operation, Session, SessionHandle, SessionRef, SessionSource, SourceError,
    SourceHandle, SourceKind, Watch, Writer,
};
use clawtop::store::{Env, Host, Options, StoreEntry};
use clawtop::transcript::Transcript;
use clawtop::tui::action::Action;
use clawtop::tui::effects::{EffectCtx, drive};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const SESSION_ID: &str = "97f75c20-5cc1-429c-a417-d0c0ee5fec68";

fn fixture_transcript() -> PathBuf {
    fixtures::fixture("transcripts/v3-two-compactions.jsonl")
}

/// A one-agent file-backed state dir: `sessions.json` (no fresh totalTokens, so `used` is
/// estimated from the transcript) and the fixture transcript.
fn file_host(dir: &Path) -> Host {
    let sessions = dir.join("agents/main/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::copy(
        fixture_transcript(),
        sessions.join(format!("{SESSION_ID}.jsonl")),
    )
    .unwrap();
    let store = json!({"agent:main:main": {"sessionId": SESSION_ID, "updatedAt": 1, "contextTokens": 32000, "compactionCount": 2}});
    std::fs::write(sessions.join("sessions.json"), store.to_string()).unwrap();
    std::fs::write(dir.join("openclaw.json"), "{}").unwrap();
    let opts = Options {
        state_dir: Some(dir.to_path_buf()),
        ..Default::default()
    };
    Host::open(&opts, &Env::default()).unwrap()
}

#[test]
fn the_file_store_names_sessions_by_reference_and_offers_a_local_writer() {
    let dir = tempfile::tempdir().unwrap();
    let source = clawtop::source::for_host(file_host(dir.path()));
    assert_eq!(source.kind(), SourceKind::Files);
    assert_eq!(
        source.kind().as_str(),
        "file",
        "the era word of list --json"
    );
    assert!(source.unreadable().is_none());
    let listing = source.list(None);
    assert!(listing.errors.is_empty() && listing.warnings.is_empty());
    let s = &listing.sessions[0];
    assert_eq!(
        s.reference,
        SessionRef {
            source: dir.path().display().to_string(),
            agent_id: "main".into(),
            key: "agent:main:main".into(),
            session_id: SESSION_ID.into(),
        }
    );
    let t = source.open_transcript(&s.reference).unwrap();
    assert_eq!(t.len(), 30);
    let transcript = dir
        .path()
        .join(format!("agents/main/sessions/{SESSION_ID}.jsonl"));
    assert_eq!(
        source.changes(Watch::Transcript(&s.reference)),
        Changes::Poll(vec![transcript.clone()])
    );
    assert_eq!(
        source.changes(Watch::Sessions { agent: None }),
        Changes::Poll(vec![dir.path().join("agents/main/sessions/sessions.json")])
    );
    let Writer::Local(w) = source.writer(&s.reference, Operation::Compact) else {
        panic!("a file-backed host commits locally")
    };
    assert_eq!(w.transcript.as_deref(), Some(transcript.as_path()));
    let store = w.store.expect("store row");
    assert_eq!(store.session_key, "agent:main:main");
    assert_eq!(store.session_id, SESSION_ID);
    assert_eq!(
        source.workspace("main").expect("workspace").0,
        dir.path().join("workspace")
    );
    // A reference from another source, or to a session that does not exist, opens nothing.
    let other = SessionRef {
        key: "agent:main:nope".into(),
        ..s.reference.clone()
    };
    assert!(source.open_transcript(&other).is_err());
}

#[test]
fn read_only_sources_say_why() {
    // The demo is a private temporary copy: writable, into the copy only (issue 9). A
    // session without a transcript has nothing to compact, and says so.
    let host = Host::demo().unwrap();
    let copy = host.state_dir.clone();
    let demo = clawtop::source::for_host(host);
    let sessions = demo.list(None).sessions;
    let s = sessions
        .iter()
        .find(|s| s.key() == "agent:ops:main")
        .unwrap();
    match demo.writer(&s.reference, Operation::Compact) {
        Writer::Local(w) => {
            assert!(w.transcript.as_ref().unwrap().starts_with(&copy), "{w:?}");
            assert!(w.store.as_ref().unwrap().store_path.starts_with(&copy));
        }
        other => panic!("the demo copy is writable: {other:?}"),
    }
    let missing = sessions
        .iter()
        .find(|s| s.key() == "agent:main:subagent:3b9e1d44")
        .unwrap();
    assert!(matches!(
        demo.writer(&missing.reference, Operation::Compact),
        Writer::ReadOnly(why) if why.contains("no transcript file")
    ));

    let dir = tempfile::tempdir().unwrap();
    let _ = file_host(dir.path());
    std::fs::create_dir_all(dir.path().join("agents/main/agent")).unwrap();
    std::fs::write(
        dir.path().join("agents/main/agent/openclaw-agent.sqlite"),
        clawtop::store::era::fake_sqlite(23, b""),
    )
    .unwrap();
    let opts = Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let b = clawtop::source::for_host(Host::open(&opts, &Env::default()).unwrap());
    // Era B: the one era check picks the SQLite source; this database is only a header, so
    // listing names it as damaged, and a compaction goes through OpenClaw's Gateway.
    assert_eq!(b.kind(), SourceKind::Sqlite);
    assert!(b.unreadable().is_none());
    let l = b.list(None);
    assert!(l.sessions.is_empty());
    assert!(
        l.errors.iter().any(|e| e.contains("openclaw-agent.sqlite")),
        "{:?}",
        l.errors
    );
    // A compaction is the gateway's: the writer names it and says what differs.
    assert!(matches!(
        b.writer(&SessionRef::default(), Operation::Compact),
        Writer::Remote(r) if r.via.contains("Gateway at ws://127.0.0.1:")
            && r.note.contains("own model") && r.note.contains("800")
            && r.target.loopback
    ));
    // A flush appends its notes to the workspace, with nothing recorded in the database.
    assert!(matches!(
        b.writer(&SessionRef::default(), Operation::Flush),
        Writer::Local(w) if w.store.is_none() && w.transcript.is_none()
            && w.unrecorded.as_deref().is_some_and(|r| r.contains("stays armed"))
    ));

    // A bare transcript compacts into the file only and cannot flush.
    let f = TranscriptFile::new(fixture_transcript());
    let r = f.reference();
    assert_eq!(r.key, "v3-two-compactions.jsonl");
    let Writer::Local(w) = f.writer(&r, Operation::Compact) else {
        panic!("bare files compact locally")
    };
    assert!(w.store.is_none() && f.workspace("").is_none());
    assert!(
        matches!(f.writer(&r, Operation::Flush), Writer::ReadOnly(m) if m.contains("nothing to flush"))
    );
}

/// A second kind of source, as a SQLite store will be: sessions from rows, transcripts built
/// from entries, no files to watch, writes refused with a reason.
struct Rows {
    entries: Vec<String>,
}

impl Rows {
    fn reference(&self) -> SessionRef {
        SessionRef {
            source: "rows".into(),
            agent_id: "ops".into(),
            key: "agent:ops:main".into(),
            session_id: SESSION_ID.into(),
        }
    }
}

impl SessionSource for Rows {
    fn kind(&self) -> SourceKind {
        // Rows only their owner writes: to every layer above, a read-only store like SQLite.
        SourceKind::Sqlite
    }
    fn label(&self) -> String {
        "rows".into()
    }
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    fn has_agent(&self, agent: &str) -> bool {
        agent == "ops"
    }
    fn list(&self, _agent: Option<&str>) -> Listing {
        Listing {
            sessions: vec![Session {
                reference: self.reference(),
                entry: StoreEntry {
                    session_id: SESSION_ID.into(),
                    context_tokens_raw: Some(json!(32000)),
                    compaction_count: Some(2),
                    ..Default::default()
                },
                transcript: Some(format!("rows#{SESSION_ID}")),
                transcript_how: "rows",
                transcript_unread: None,
                entry_from: None,
                warnings: Vec::new(),
            }],
            ..Listing::default()
        }
    }
    fn open_transcript(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        if *r != self.reference() {
            return Err(SourceError::Unavailable("no such session".into()));
        }
        Ok(Transcript::from_entries(
            format!("rows#{SESSION_ID}"),
            &self.entries,
        ))
    }
    fn changes(&self, _what: Watch<'_>) -> Changes {
        Changes::Pushed
    }
    fn writer(&self, _r: &SessionRef, _op: Operation) -> Writer {
        Writer::ReadOnly("rows are written by their owner only".into())
    }
    fn config(&self) -> &Value {
        &Value::Null
    }
    fn config_label(&self) -> String {
        "config".into()
    }
    fn models_json(&self, _agent: &str) -> Option<(String, Value)> {
        None
    }
}

fn rows_source() -> SourceHandle {
    let text = std::fs::read_to_string(fixture_transcript()).unwrap();
    Arc::new(Rows {
        entries: text.lines().map(str::to_string).collect(),
    })
}

#[test]
fn a_second_source_needs_no_change_above_the_seam() {
    let rows = rows_source();
    let dir = tempfile::tempdir().unwrap();
    let files = clawtop::source::for_host(file_host(dir.path()));
    // The same transcript gives the same numbers through either source.
    let a = clawtop::usecase::list::build(rows.as_ref(), &Default::default());
    let b = clawtop::usecase::list::build(files.as_ref(), &Default::default());
    assert_eq!(a.era, "sqlite", "the kind the source says it is");
    let (a, b) = (&a.sessions[0], &b.sessions[0]);
    assert!(a.used.is_some());
    assert_eq!(
        (a.used, a.used_source, a.window, a.status),
        (b.used, b.used_source, b.window, b.status)
    );
    assert_eq!(
        a.transcript.as_deref(),
        Some(format!("rows#{SESSION_ID}").as_str())
    );

    // The TUI lists it, opens its transcript, and the Compact dialog asks its writer.
    let loader = clawtop::tui::store_adapter::host_loader(rows.clone(), None);
    let (mut state, fx, ctx) = clawtop::tui::app::init(
        &clawtop::tui::TuiLaunch {
            loader: Some(loader),
            ..Default::default()
        },
        0,
        (100, 30),
    );
    let ctx: EffectCtx = ctx;
    for e in fx {
        if let Some(a) = clawtop::tui::effects::run_blocking(e, &ctx) {
            drive(&mut state, &ctx, a);
        }
    }
    assert_eq!(state.sessions.rows.len(), 1);
    assert!(
        state.sessions.watch.is_empty(),
        "a pushing source has nothing to poll"
    );
    let enter = Action::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    drive(&mut state, &ctx, enter);
    let v = state.session.as_ref().expect("session view");
    assert_eq!(v.len(), 30, "{:?}", v.error);
    assert_eq!(
        v.session.as_ref().map(|h| h.session.clone()),
        Some(rows.list(None).sessions[0].reference.clone())
    );
    let opened = v.session.clone();
    drive(
        &mut state,
        &ctx,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE)),
    );
    assert!(state.dialog.is_none());
    assert_eq!(
        state.status.info.as_deref(),
        Some("Cannot compact here: rows are written by their owner only.")
    );
    // Handles compare by reference.
    let h = SessionHandle::new(rows.clone(), rows.list(None).sessions[0].reference.clone());
    assert_eq!(Some(h), opened);
}
