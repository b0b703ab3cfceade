//! Naming one session on a SQLite host (`clawtop show KEY`, `clawtop KEY`): a full key is read
//! by the table's primary key instead of with every row (`SessionSource::listing_for`), and
//! the session it names is the one the whole list names; anything else reads every row.

use super::common::*;
use clawtop::source::lookup::Lookup;

#[test]
fn a_full_key_reads_its_own_row_and_names_what_the_list_names() {
    let h = HostF::new();
    super::support::lookup::named_listings_agree_with_the_list(&h.source());
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
