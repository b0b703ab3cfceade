//! The use cases' router (`clawtop::usecase::route`): the one place that decides whether an
//! operation is written by clawtop, by OpenClaw's Gateway, or not at all. Every front-end
//! (the CLI's compact and its dry run, the TUI's c, C and f) renders its answer.

use crate::support::fixtures;
use clawtop::gateway::GatewayEnv;
use clawtop::source::{Operation, SessionHandle, SourceHandle};
use clawtop::store::{Env, Host, Options};
use clawtop::usecase::route::{Door, Route, route_with_env};
use serde_json::json;
use std::path::Path;

const SESSION_ID: &str = "97f75c20-5cc1-429c-a417-d0c0ee5fec68";

/// A file-backed host with one session and the given config.
fn file_host(dir: &Path, config: serde_json::Value, with_transcript: bool) -> SourceHandle {
    let sessions = dir.join("agents/main/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    if with_transcript {
        std::fs::copy(
            fixtures::fixture("transcripts/v3-two-compactions.jsonl"),
            sessions.join(format!("{SESSION_ID}.jsonl")),
        )
        .unwrap();
    }
    let store = json!({"agent:main:main": {"sessionId": SESSION_ID, "updatedAt": 1}});
    std::fs::write(sessions.join("sessions.json"), store.to_string()).unwrap();
    std::fs::write(dir.join("openclaw.json"), config.to_string()).unwrap();
    let opts = Options {
        state_dir: Some(dir.to_path_buf()),
        ..Default::default()
    };
    clawtop::source::for_host(Host::open(&opts, &Env::default()).unwrap())
}

fn session(source: SourceHandle) -> SessionHandle {
    let listed = source.list(None).sessions.remove(0);
    SessionHandle::new(source, listed.reference)
}

fn route(s: &SessionHandle, op: Operation, door: Door) -> Route {
    route_with_env(s, op, door, &GatewayEnv::default())
}

#[test]
fn a_file_backed_session_is_written_here_unless_its_own_gateway_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = json!({"gateway": {"port": 18999, "auth": {"token": "t"}}});
    let s = session(file_host(dir.path(), cfg, true));
    assert!(matches!(
        route(&s, Operation::Compact, Door::Default),
        Route::Local(w) if w.transcript.is_some() && w.store.is_some()
    ));
    assert!(matches!(
        route(&s, Operation::Flush, Door::Default),
        Route::Local(_)
    ));
    // Its own running gateway, seen on a port: OpenClaw compacts, clawtop vouches the
    // session idle (it checks the transcript lock itself).
    match route(
        &s,
        Operation::Compact,
        Door::HostGateway {
            seen_port: Some(18999),
        },
    ) {
        Route::Gateway(r) => {
            assert!(r.vouch_idle);
            assert!(r.target.loopback);
            assert!(r.target.url.ends_with(":18999"), "{}", r.target.url);
            assert!(r.via.contains("127.0.0.1:18999"), "{}", r.via);
        }
        other => panic!("{other:?}"),
    }
    // No gateway seen: refused, saying so; a flush never goes to a gateway.
    assert!(matches!(
        route(&s, Operation::Compact, Door::HostGateway { seen_port: None }),
        Route::ReadOnly(why) if why.contains("no running gateway seen")
    ));
    assert!(matches!(
        route(&s, Operation::Flush, Door::HostGateway { seen_port: Some(18999) }),
        Route::ReadOnly(why) if why.contains("no flush request")
    ));
}

#[test]
fn a_remote_gateway_in_the_config_is_not_this_hosts_own() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = json!({"gateway": {"mode": "remote", "remote": {"url": "ws://gw.example.net:18789", "token": "t"}}});
    let s = session(file_host(dir.path(), cfg, true));
    let r = route(
        &s,
        Operation::Compact,
        Door::HostGateway {
            seen_port: Some(18789),
        },
    );
    assert!(
        matches!(&r, Route::ReadOnly(why) if why.contains("gw.example.net")),
        "{r:?}"
    );
}

#[test]
fn no_transcript_is_refused_alike_for_the_dry_run_and_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(file_host(dir.path(), json!({}), false));
    let Route::ReadOnly(why) = route(&s, Operation::Compact, Door::Default) else {
        panic!("a session without a transcript has nothing to compact");
    };
    assert!(why.contains("no transcript"), "{why}");
    // The use case's prepare (where the commit and the dry run start) gives the same reason.
    let opts = clawtop::usecase::compact::Options {
        keep_recent_tokens: None,
        model: Default::default(),
    };
    let p = clawtop::usecase::compact::prepare(&s, &opts).unwrap_err();
    assert_eq!(p, clawtop::usecase::Problem::Refused(why));
}

#[test]
fn a_bare_transcript_has_no_gateway_and_nothing_to_flush_into() {
    let f = std::sync::Arc::new(clawtop::source::transcript_file::TranscriptFile::new(
        fixtures::fixture("transcripts/v3-two-compactions.jsonl"),
    ));
    let s = SessionHandle::new(f.clone(), f.reference());
    assert!(matches!(
        route(&s, Operation::Compact, Door::Default),
        Route::Local(w) if w.store.is_none()
    ));
    assert!(matches!(
        route(&s, Operation::Compact, Door::HostGateway { seen_port: Some(1) }),
        Route::ReadOnly(why) if why.contains("bare transcript")
    ));
    assert!(matches!(
        route(&s, Operation::Flush, Door::Default),
        Route::ReadOnly(why) if why.contains("nothing to flush")
    ));
}
