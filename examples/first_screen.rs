//! What an operator waits for when opening a session (`clawtop KEY`): the session named by its
//! key (on a SQLite host, its own row: `SessionSource::listing_for`; the TUI opens its screen
//! before the rest of the list is read), the transcript indexed, one screen of entries decoded,
//! and the compaction plan (no diagnosis). `bench/run.sh` measures it on the
//! generated SQLite host:
//!
//!     cargo run --release --example first_screen -- STATE_DIR KEY
//!
//! Prints one JSON line with the milliseconds of each step.

/// Rows on a 120×40 Session screen.
const SCREEN: usize = 40;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(state), Some(key)) = (args.next(), args.next()) else {
        eprintln!("usage: first_screen STATE_DIR KEY");
        std::process::exit(2);
    };
    let t0 = std::time::Instant::now();
    let host = clawtop::store::Host::open(
        &clawtop::store::Options {
            state_dir: Some(state.into()),
            ..Default::default()
        },
        &clawtop::store::Env::default(),
    )
    .unwrap_or_else(|e| fail(&e.to_string()));
    let source = clawtop::source::for_host(host);
    // Named as `clawtop show KEY` and `clawtop KEY` name it.
    let listing = source.listing_for(None, &key);
    let Ok(session) = listing.find(&key) else {
        fail(&format!("no session {key}"));
    };
    let t = source
        .open_transcript(&session.reference)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let opened = t0.elapsed();
    // The Session screen opens at the end of the transcript: decode its last screen.
    let n = t.entries.len();
    let mut bytes = 0usize;
    for i in n.saturating_sub(SCREEN)..n {
        if let Ok(v) = t.entry_json(i as u32) {
            bytes += v.to_string().len();
        }
    }
    let screen = t0.elapsed();
    let plan = clawtop::plan::prepare(&t, clawtop::plan::DEFAULT_KEEP_RECENT_TOKENS);
    let planned = t0.elapsed();
    println!(
        "{}",
        serde_json::json!({
            "entries": n,
            "screenBytes": bytes,
            "openMs": opened.as_millis() as u64,
            "firstScreenMs": screen.as_millis() as u64,
            "planMs": planned.as_millis() as u64,
            "tokensBefore": plan.as_ref().ok().map(|p| p.tokens_before),
        })
    );
}

fn fail(msg: &str) -> ! {
    eprintln!("first_screen: {msg}");
    std::process::exit(1);
}
