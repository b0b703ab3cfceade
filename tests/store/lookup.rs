//! Naming one session on a file-backed host (`clawtop KEY`, `show KEY`): a full key gives a
//! listing of that session alone, which names what the whole list names, so the TUI opens
//! its Session screen without measuring every other session's transcript first; any other
//! name gets the whole list. On the demo host (two agents, several sessions).

use crate::support::tui::{NOW_MS, key, press};
use clawtop::tui::effects::drive;
use clawtop::tui::state::Screen;
use clawtop::tui::store_adapter;
use crossterm::event::KeyCode;

fn demo() -> clawtop::source::SourceHandle {
    clawtop::source::for_host(clawtop::store::Host::demo().expect("the demo host"))
}

#[test]
fn a_full_key_gives_its_own_listing_naming_what_the_list_names() {
    let source = demo();
    let all = source.list(None);
    assert!(
        all.sessions.len() >= 3,
        "the demo host has several sessions"
    );
    for s in &all.sessions {
        let one = source.listing_for(None, s.key());
        assert_eq!(one.sessions.len(), 1, "{}: alone", s.key());
        let found = one.find(s.key()).unwrap();
        assert_eq!(found.reference, s.reference);
        assert_eq!(found.transcript, s.transcript);
        assert_eq!(found.entry_from, s.entry_from);
        assert_eq!(found.warnings, s.warnings);
        assert_eq!(found.entry.total_tokens(), s.entry.total_tokens());
        assert_eq!(one.warnings, all.warnings);
        // --agent narrows as it does for the list.
        if let Some(other) = all
            .sessions
            .iter()
            .map(|o| o.agent_id())
            .find(|a| *a != s.agent_id())
        {
            let narrowed = source.listing_for(Some(other), s.key());
            assert_eq!(
                narrowed.find(s.key()).map(|f| f.reference.clone()),
                source
                    .list(Some(other))
                    .find(s.key())
                    .map(|f| f.reference.clone())
            );
        }
    }
    let s = &all.sessions[0];
    let short = clawtop::source::lookup::short_key(s.key()).to_string();
    let prefix = s.entry.session_id[..8].to_string();
    for name in [
        short.as_str(),
        s.entry.session_id.as_str(),
        prefix.as_str(),
        "no-such-session",
    ] {
        let listed = source.listing_for(None, name);
        assert_eq!(
            listed.sessions.len(),
            all.sessions.len(),
            "{name}: the whole list"
        );
        assert_eq!(
            listed.find(name).map(|f| f.reference.clone()),
            all.find(name).map(|f| f.reference.clone()),
            "{name}"
        );
    }
}

/// `clawtop KEY` on a file-backed host: the Session screen is open with the session's figures
/// before the list has been read; when the list comes, the row is the same and nothing reopens.
#[test]
fn launched_on_a_key_the_session_opens_before_the_list() {
    let src = demo();
    let listed = src.list(None);
    let s = listed
        .sessions
        .iter()
        .rev()
        .find(|s| s.transcript.is_some())
        .expect("a session with a transcript");
    let want = (s.agent_id().to_string(), s.key().to_string());
    let launch = clawtop::tui::TuiLaunch {
        loader: Some(store_adapter::host_loader(src.clone(), None)),
        named_loader: Some(store_adapter::named_loader(
            src.clone(),
            want.0.clone(),
            want.1.clone(),
        )),
        open: Some(want.clone()),
        ..Default::default()
    };
    let (mut state, fx, ctx) = clawtop::tui::app::init(&launch, NOW_MS, (120, 40));
    let names: Vec<String> = fx.iter().map(|e| format!("{e:?}")).collect();
    assert_eq!(names, ["LoadNamed", "LoadSessions"]);
    let mut fx = fx.into_iter();
    let named = clawtop::tui::effects::run_blocking(fx.next().unwrap(), &ctx).expect("read alone");
    drive(&mut state, &ctx, named);
    assert_eq!(state.screen(), Screen::Session, "open before the list");
    assert!(!state.sessions.loaded);
    let v = state.session.as_ref().unwrap();
    assert_eq!((&v.row.agent_id, &v.row.session_key), (&want.0, &want.1));
    assert!(v.loaded.is_some(), "its transcript read");
    let first_row = v.row.clone();
    let generation = v.generation;
    let list = clawtop::tui::effects::run_blocking(fx.next().unwrap(), &ctx).unwrap();
    drive(&mut state, &ctx, list);
    assert!(state.sessions.loaded);
    let v = state.session.as_ref().unwrap();
    assert_eq!(v.generation, generation, "not opened a second time");
    assert_eq!(v.row, first_row, "one row, read alone or with the list");
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert_eq!(state.screen(), Screen::Sessions);
    let sel = state.sessions.selected_row().unwrap();
    assert_eq!((&sel.agent_id, &sel.session_key), (&want.0, &want.1));
}
