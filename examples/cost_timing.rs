//! Ad-hoc timing of what cost adds to a transcript read, as `list` reads one (indexed with
//! its figures, then `used`'s facts) against pricing its calls:
//! `cargo run --release --example cost_timing FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("FILE");
    let path = std::path::Path::new(&path);
    let t0 = std::time::Instant::now();
    let t = clawtop::tokens::open_with_figures(path).expect("open");
    let _facts = clawtop::used::facts(&t);
    let read = t0.elapsed();
    let prices = clawtop::cost::prices::Prices::builtin_only();
    let cx = clawtop::cost::Context {
        prices: &prices,
        host: clawtop::cost::prices::HostCatalogs { catalogs: vec![] },
        config: None,
        now_ms: clawtop::cost::now_ms(),
    };
    let idxs: Vec<u32> = (0..t.len() as u32)
        .filter(|&i| {
            t.entries[i as usize].kind
                == clawtop::transcript::EntryKind::Message(clawtop::transcript::Role::Assistant)
        })
        .collect();
    let t2 = std::time::Instant::now();
    let mut bytes = 0usize;
    t.for_each_raw(&idxs, |_, raw| bytes += raw.len());
    println!(
        "reading {} assistant lines ({bytes} bytes): {:?}",
        idxs.len(),
        t2.elapsed()
    );
    let t1 = std::time::Instant::now();
    let c = clawtop::cost::of_transcript(&t, &cx);
    let cost = t1.elapsed();
    println!(
        "entries {} calls {} read {:?} cost {:?} (+{:.1} %) spend {}",
        t.len(),
        c.calls,
        read,
        cost,
        cost.as_secs_f64() / read.as_secs_f64() * 100.0,
        c.spend_label()
    );
}
