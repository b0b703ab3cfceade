//! Naming one session on a file-backed host (`clawtop KEY`, `show KEY`): a full key gives a
//! listing of that session alone, which names what the whole list names, so the TUI opens
//! its Session screen without measuring every other session's transcript first; any other
//! name gets the whole list. On the demo host (two agents, several sessions).

use crate::support::lookup::{named_listings_agree_with_the_list, opens_before_the_list};

fn demo() -> clawtop::source::SourceHandle {
    clawtop::source::for_host(clawtop::store::Host::demo().expect("the demo host"))
}

#[test]
fn a_full_key_gives_its_own_listing_naming_what_the_list_names() {
    named_listings_agree_with_the_list(&demo());
}

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
    opens_before_the_list(&src, (s.agent_id().to_string(), s.key().to_string()));
}
