//! Naming one session on a SQLite host (`clawtop show KEY`, `clawtop KEY`): a full key is read
//! by the table's primary key instead of with every row (`SessionSource::listing_for`), and
//! the session it names is the one the whole list names; anything else reads every row.

use super::common::*;
use clawtop::source::lookup::Lookup;

#[test]
fn a_full_key_reads_its_own_row_and_names_what_the_list_names() {
    let h = HostF::new();
    let source = h.source();
    let all = source.list(None);
    assert!(all.sessions.len() >= 3, "host-f has several sessions");
    for s in &all.sessions {
        let one = source.listing_for(None, s.key());
        assert_eq!(one.sessions.len(), 1, "{}: read by its key alone", s.key());
        let found = one.find(s.key()).unwrap();
        assert_eq!(found.reference, s.reference);
        assert_eq!(found.transcript, s.transcript);
        assert_eq!(found.entry_from, s.entry_from);
        assert_eq!(found.entry.total_tokens(), s.entry.total_tokens());
        // The transcript opens through the reference the short listing gave.
        let t = source.open_transcript(&found.reference).unwrap();
        assert_eq!(t.len(), source.open_transcript(&s.reference).unwrap().len());
        // --agent narrows as it does for the list.
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
}

#[test]
fn other_names_read_every_row_and_get_the_same_answer() {
    let h = HostF::new();
    let source = h.source();
    let all = source.list(None);
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
            "{name}: every row"
        );
        assert_eq!(
            listed.find(name).map(|f| f.reference.clone()),
            all.find(name).map(|f| f.reference.clone()),
            "{name}"
        );
    }
}

#[test]
fn an_unreadable_row_named_by_key_says_why() {
    let h = HostF::new();
    let source = h.source();
    let s = source.list(Some("main")).sessions[0].clone();
    h.writer("main")
        .execute(
            "UPDATE session_nodes SET entry_json = '[]' WHERE session_key = ?1",
            [s.key()],
        )
        .unwrap();
    let listed = source.listing_for(None, s.key());
    assert_eq!(listed.find(s.key()).unwrap_err(), Lookup::NotFound);
    let why = listed.why_skipped(s.key()).expect("the skip reason");
    assert!(why.contains("skipped"), "{why}");
}
