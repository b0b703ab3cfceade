//! The store API on a temp copy of host-a (no process environment involved).
use crate::support::cli::*;
use clawtop::store::{self, Env, Era, Host, Options, StateDirSource, TranscriptHow};

fn env_for(h: &Home) -> Env {
    Env {
        home: Some(h.path().to_path_buf()),
        ..Default::default()
    }
}

#[test]
fn host_a_opens_and_resolves() {
    let h = Home::host_a();
    let host = Host::open(&Options::default(), &env_for(&h)).unwrap();
    assert_eq!(host.state_dir, h.state());
    assert_eq!(host.state_source, StateDirSource::Home);
    assert_eq!(host.era, Era::File);
    assert_eq!(host.agents.len(), 1);
    assert_eq!(host.agents[0].id, "main");
    assert!(!host.is_demo);
    let loaded = host.load_sessions(None);
    assert!(loaded.errors.is_empty() && loaded.warnings.is_empty());
    let s = &loaded.sessions[0];
    assert_eq!(s.key, "agent:main:main");
    assert_eq!(s.entry.session_id, "adhoc-1");
    assert_eq!(s.entry.total_tokens(), Some(75943));
    assert_eq!(s.entry.total_tokens_fresh(), Some(true));
    assert_eq!(s.entry.context_tokens(), Some(48000));
    assert_eq!(s.transcript.as_deref(), Some(h.transcript().as_path()));
    assert_eq!(s.transcript_how, TranscriptHow::Basename);
    assert!(
        s.warnings.is_empty(),
        "foreign .../agents/main/sessions/<f> is remapped quietly: {:?}",
        s.warnings
    );
}

#[test]
fn workspace_resolution() {
    use clawtop::flush::workspace::{SOURCE_AGENT_LIST, SOURCE_DEFAULT, SOURCE_DEFAULTS};
    // The workspace a flush writes into, resolved from the host as the store opened it.
    let workspace_for = |host: &Host, agent: &str| {
        let home = host.home.as_deref().expect("home");
        clawtop::flush::workspace_for(&host.config, &host.state_dir, agent, home)
    };
    let h = Home::host_a();
    let host = Host::open(&Options::default(), &env_for(&h)).unwrap();
    // host-a: agents.defaults.workspace = "~/.openclaw/workspace"
    assert_eq!(
        workspace_for(&host, "main"),
        (h.state().join("workspace"), SOURCE_DEFAULTS)
    );
    std::fs::write(
        h.state().join("openclaw.json"),
        r#"{agents: {list: [{id: "Main", workspace: "~/ws-main"}], defaults: {workspace: "rel"}}}"#,
    )
    .unwrap();
    let host = Host::open(&Options::default(), &env_for(&h)).unwrap();
    assert_eq!(
        workspace_for(&host, "main"),
        (h.path().join("ws-main"), SOURCE_AGENT_LIST)
    );
    assert_eq!(
        workspace_for(&host, "other"),
        (h.state().join("rel"), SOURCE_DEFAULTS)
    );
    std::fs::write(h.state().join("openclaw.json"), "{}").unwrap();
    let host = Host::open(&Options::default(), &env_for(&h)).unwrap();
    assert_eq!(
        workspace_for(&host, "main"),
        (h.state().join("workspace"), SOURCE_DEFAULT)
    );
}

#[test]
fn config_agents_are_included() {
    let h = Home::host_a();
    std::fs::write(
        h.state().join("openclaw.json"),
        r#"{agents: {list: [{id: "ops"}, {id: "../evil"}]}}"#,
    )
    .unwrap();
    let host = Host::open(&Options::default(), &env_for(&h)).unwrap();
    let ids: Vec<_> = host.agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["main", "ops"]);
    assert!(host.warnings[0].contains("../evil"), "{:?}", host.warnings);
    assert!(!host.agent("ops").unwrap().has_store);
}

#[test]
fn session_id_fallback_and_inside_session_file() {
    let h = Home::host_a();
    let store = r#"{"a": {"sessionId": "eac41430-1d8c-40e8-add8-b2ec20a92074"},
                    "b": {"sessionId": "zzz", "sessionFile": "eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl"}}"#;
    std::fs::write(h.store(), store).unwrap();
    let host = Host::open(&Options::default(), &env_for(&h)).unwrap();
    let l = host.load_sessions(None);
    assert_eq!(l.sessions[0].transcript_how, TranscriptHow::SessionId);
    assert_eq!(l.sessions[1].transcript_how, TranscriptHow::SessionFile);
    assert_eq!(
        l.sessions[1].transcript.as_deref(),
        Some(h.transcript().as_path())
    );
}

#[test]
fn demo_extracts_and_cleans_up() {
    assert!(store::demo::DemoDir::file_count() > 3);
    let host = Host::demo().unwrap();
    assert!(host.is_demo);
    assert_eq!(host.state_source, StateDirSource::Demo);
    assert!(!host.agents.is_empty());
    let l = host.load_sessions(None);
    assert!(l.sessions.len() >= 2);
    let root = host.state_dir.parent().unwrap().to_path_buf();
    assert!(root.exists());
    drop(host);
    assert!(!root.exists(), "the extracted demo is removed");
}

#[test]
fn symlink_out_of_state_dir_is_not_read() {
    let h = Home::host_a();
    let outside = h.path().join("outside.jsonl");
    std::fs::write(&outside, format!("{HEADER}\n")).unwrap();
    std::fs::remove_file(h.transcript()).unwrap();
    std::os::unix::fs::symlink(&outside, h.transcript()).unwrap();
    let host = Host::open(&Options::default(), &env_for(&h)).unwrap();
    let l = host.load_sessions(None);
    assert_eq!(l.sessions[0].transcript, None);
    assert_eq!(l.sessions[0].transcript_how, TranscriptHow::Missing);
}

/// A state dir named through a link and `..` (`t/link/../host`, `t/link` -> `u/x`): the
/// kernel finds `u/host`, while the same text with `..` taken out by hand names `t/host`. A
/// transcript at that other place is never read for the session; its own, in the real
/// sessions dir, is.
#[test]
fn a_state_dir_named_through_a_link_and_dotdot_reads_no_file_outside_it() {
    let h = Home::host_a();
    let (u, t) = (h.path().join("u"), h.path().join("t"));
    std::fs::create_dir_all(u.join("x")).unwrap();
    std::fs::rename(h.state(), u.join("host")).unwrap();
    std::fs::create_dir_all(&t).unwrap();
    std::os::unix::fs::symlink(u.join("x"), t.join("link")).unwrap();
    let name = "eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl";
    let sessions = "agents/main/sessions";
    std::fs::write(
        u.join("host").join(sessions).join("sessions.json"),
        format!(r#"{{"b": {{"sessionId": "zzz", "sessionFile": "{name}"}}}}"#),
    )
    .unwrap();
    let decoy = t.join("host").join(sessions);
    std::fs::create_dir_all(&decoy).unwrap();
    std::fs::write(decoy.join(name), format!("{HEADER}\n")).unwrap();
    let opts = Options {
        state_dir: Some(t.join("link/../host")),
        ..Default::default()
    };
    let host = Host::open(&opts, &env_for(&h)).unwrap();
    let l = host.load_sessions(None);
    let read = l.sessions[0].transcript.as_deref().expect("its transcript");
    let real = u.join("host").canonicalize().unwrap();
    assert!(
        read.canonicalize().unwrap().starts_with(&real),
        "{} is not under {}",
        read.display(),
        real.display()
    );
}
