//! Ad-hoc timing of what cost adds to a transcript read, as `list` reads one (indexed with
//! its figures, then `used`'s facts) against pricing its calls (best of 5 each, the machine
//! being shared): `cargo run --release --example cost_timing FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("FILE");
    let path = std::path::Path::new(&path);
    let best = |f: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let t0 = std::time::Instant::now();
                f();
                t0.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let read = best(&mut || {
        let t = clawtop::tokens::open_with_figures(path).expect("open");
        let _ = clawtop::used::facts(&t);
    });
    let t = clawtop::tokens::open_with_figures(path).expect("open");
    let prices = clawtop::cost::prices::Prices::builtin_only();
    let cx = clawtop::cost::Context {
        prices: &prices,
        host: clawtop::cost::prices::HostCatalogs { catalogs: vec![] },
        config: None,
        now_ms: clawtop::cost::now_ms(),
    };
    let parse = best(&mut || {
        for c in &t.calls {
            let _: Option<serde_json::Value> = c
                .usage
                .as_deref()
                .and_then(|u| serde_json::from_str(u).ok());
        }
    });
    println!("parsing the captured usages: {parse:?}");
    let mut c = None;
    let cost = best(&mut || c = Some(clawtop::cost::of_transcript(&t, &cx)));
    let c = c.expect("priced");
    println!(
        "entries {} calls {} (captured by the scan: {}) read {:?} cost {:?} (+{:.1} %) spend {}",
        t.len(),
        c.calls,
        t.calls.len(),
        read,
        cost,
        cost.as_secs_f64() / read.as_secs_f64() * 100.0,
        c.spend_label()
    );
}
