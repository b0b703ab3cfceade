//! Naming one session (`clawtop KEY`, `show KEY`), checked the same way on every source that
//! reads a full key's session alone (`SessionSource::listing_named`): SQLite and file-backed.

use super::tui::{NOW_MS, key, press};
use clawtop::source::SourceHandle;
use clawtop::source::lookup::Lookup;
use clawtop::tui::effects::drive;
use clawtop::tui::state::Screen;
use clawtop::tui::store_adapter;
use crossterm::event::KeyCode;

/// Every full key's listing is that session alone and names what the whole list names (its
/// transcript opens through the reference it gives; `--agent` narrows as for the list); any
/// other name gets the whole list and the same answer.
pub fn named_listings_agree_with_the_list(source: &SourceHandle) {
    let all = source.list(None);
    assert!(all.sessions.len() >= 3, "a host of several sessions");
    for s in &all.sessions {
        let one = source.listing_for(None, s.key());
        assert_eq!(one.sessions.len(), 1, "{}: read alone", s.key());
        let found = one.find(s.key()).unwrap();
        assert_eq!(found.reference, s.reference);
        assert_eq!(found.transcript, s.transcript);
        assert_eq!(found.entry_from, s.entry_from);
        assert_eq!(found.warnings, s.warnings);
        assert_eq!(found.entry.total_tokens(), s.entry.total_tokens());
        if s.transcript.is_some() {
            let t = source.open_transcript(&found.reference).unwrap();
            assert_eq!(t.len(), source.open_transcript(&s.reference).unwrap().len());
        }
        let other = all
            .sessions
            .iter()
            .map(|o| o.agent_id())
            .find(|a| *a != s.agent_id());
        if let Some(other) = other {
            let narrowed = source.listing_for(Some(other), s.key());
            assert_eq!(narrowed.find(s.key()).unwrap_err(), Lookup::NotFound);
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

/// `clawtop KEY` launched on `want` (agent, key): the Session screen is open with the
/// session's figures before the list is read, which is asked for only once that first screen
/// is up; when the list comes, the row is the same, nothing reopens, and Esc lands on the
/// session in the list.
pub fn opens_before_the_list(src: &SourceHandle, want: (String, String)) {
    let launch = clawtop::tui::TuiLaunch {
        loader: Some(store_adapter::host_loader(src.clone(), None)),
        named_loader: Some(store_adapter::named_loader(
            src.clone(),
            want.0.clone(),
            want.1.clone(),
            None,
        )),
        open: Some(want.clone()),
        ..Default::default()
    };
    let (mut state, fx, ctx) = clawtop::tui::app::init(&launch, NOW_MS, (120, 40));
    let names: Vec<String> = fx.iter().map(|e| format!("{e:?}")).collect();
    assert_eq!(names, ["LoadNamed"], "the list waits for the first screen");
    // Every effect run in turn, the list's held back: it is asked for once the session's
    // transcript is on screen.
    let mut queue: std::collections::VecDeque<_> = fx.into();
    let mut list = None;
    while let Some(e) = queue.pop_front() {
        if matches!(e, clawtop::tui::effects::Effect::LoadSessions) {
            assert!(
                state.session.as_ref().is_some_and(|v| v.loaded.is_some()),
                "the list is asked for after the first screen"
            );
            list = Some(e);
            continue;
        }
        if let Some(a) = clawtop::tui::effects::run_blocking(e, &ctx) {
            queue.extend(clawtop::tui::update::update(&mut state, a));
        }
    }
    let list = list.expect("the list asked for");
    assert_eq!(state.screen(), Screen::Session, "open before the list");
    assert!(!state.sessions.loaded);
    let v = state.session.as_ref().unwrap();
    assert_eq!(
        (v.row.agent(), v.row.key()),
        (want.0.as_str(), want.1.as_str())
    );
    assert!(v.loaded.is_some(), "its transcript read");
    let first_row = v.row.clone();
    let generation = v.generation;
    let list = clawtop::tui::effects::run_blocking(list, &ctx).unwrap();
    drive(&mut state, &ctx, list);
    assert!(state.sessions.loaded);
    assert_eq!(state.screen(), Screen::Session);
    let v = state.session.as_ref().unwrap();
    assert_eq!(v.generation, generation, "not opened a second time");
    assert_eq!(v.row, first_row, "one row, read alone or with the list");
    let sel = state.sessions.selected_row().unwrap();
    assert_eq!((sel.agent(), sel.key()), (want.0.as_str(), want.1.as_str()));
    press(&mut state, &ctx, &[key(KeyCode::Esc)]);
    assert_eq!(state.screen(), Screen::Sessions);
}
