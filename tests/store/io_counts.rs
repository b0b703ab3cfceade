//! A listing reads each store once and probes the gateway's port once, however many of its
//! entries have no transcript (issue 31: for each such entry `list` used to parse the whole
//! store again and probe the port again, which made it quadratic). The reads are counted from
//! the `clawtop::io` debug events (`crate::logging`), captured on this thread.

use crate::support::io_counts::IoCounts;
use clawtop::store::{Env, Host, Options};
use serde_json::{Map, Value, json};
use std::path::Path;

/// A file-backed host of `entries` sessions, the first `with_transcript` of which have a
/// (one-line) transcript file; the rest are entries whose transcripts are gone.
fn host_with_missing_transcripts(dir: &Path, entries: usize, with_transcript: usize) -> Host {
    let sessions = dir.join("agents/main/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let mut store = Map::new();
    for i in 0..entries {
        let id = format!("00000000-0000-4000-8000-{i:012}");
        if i < with_transcript {
            let header = json!({"type": "session", "version": 3, "id": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"});
            std::fs::write(sessions.join(format!("{id}.jsonl")), format!("{header}\n")).unwrap();
        }
        store.insert(
            format!("agent:main:s{i}"),
            json!({"sessionId": id, "updatedAt": 1_700_000_000_000u64 + i as u64, "contextTokens": 200000}),
        );
    }
    std::fs::write(
        sessions.join("sessions.json"),
        Value::Object(store).to_string(),
    )
    .unwrap();
    // A port nothing listens on (bound, then released): the probe is refused at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        dir.join("openclaw.json"),
        json!({"gateway": {"port": port}}).to_string(),
    )
    .unwrap();
    let opts = Options {
        state_dir: Some(dir.to_path_buf()),
        ..Default::default()
    };
    Host::open(&opts, &Env::default()).unwrap()
}

#[test]
fn a_listing_parses_the_store_once_and_probes_the_gateway_once() {
    let dir = tempfile::tempdir().unwrap();
    let source = clawtop::source::for_host(host_with_missing_transcripts(dir.path(), 2000, 200));
    let counts = IoCounts::default();
    let report =
        counts.during(|| clawtop::usecase::list::build(source.as_ref(), &Default::default()));
    assert_eq!(report.sessions.len(), 2000);
    assert_eq!(
        report
            .sessions
            .iter()
            .filter(|s| s.transcript.is_none())
            .count(),
        1800
    );
    assert_eq!(counts.get("sessions.json"), 1, "sessions.json parsed once");
    assert_eq!(
        counts.get("gateway probe"),
        1,
        "the gateway port probed once"
    );
}

#[test]
fn a_session_listed_since_is_still_found() {
    // The store is read again for a reference the source has not listed (a reference from
    // an earlier listing, or a session added since), but without probing the gateway.
    let dir = tempfile::tempdir().unwrap();
    let host = host_with_missing_transcripts(dir.path(), 3, 3);
    let source = clawtop::source::for_host(host);
    let listing = source.list(None);
    let r = listing.sessions[0].reference.clone();
    let fresh = clawtop::source::for_host(host_with_missing_transcripts(dir.path(), 3, 3));
    let counts = IoCounts::default();
    let opened = counts.during(|| fresh.open_transcript(&r).is_ok());
    assert!(opened);
    assert_eq!(counts.get("sessions.json"), 1);
    assert_eq!(counts.get("gateway probe"), 0);
}
