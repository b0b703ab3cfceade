//! What pricing adds to `list --json` (issue 32's budget: at most 10 %), on a real-shaped host:
//!
//!     cargo run --release --example cost_overhead -- STATE_DIR
//!
//! `bench/cost.sh` runs it on the 2,000-session SQLite benchmark host and on the file-backed
//! one. Measured, best of 5 each (the machine is shared):
//! - `list`: the list use case as `clawtop list --json` runs it, serialized, every figure of
//!   every row (cost included), from a fresh host;
//! - `cost`: the same sessions' transcripts, opened beforehand as the list opens them, priced
//!   as the list prices them (what `Numbers::cost` does: the agent's catalogs, then the price
//!   tables), summed into the host totals (the benchmark hosts archive nothing).
//!
//! The share printed is `cost / (list - cost)`: what the list would take without pricing, and
//! how much pricing adds to it. A host whose sessions share transcripts is priced per session,
//! as the list does.

use clawtop::source::SessionSource;
use std::time::{Duration, Instant};

fn best(n: usize, mut f: impl FnMut()) -> Duration {
    (0..n)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn open(state: &std::path::Path) -> clawtop::source::SourceHandle {
    let opts = clawtop::store::Options {
        state_dir: Some(state.to_path_buf()),
        ..Default::default()
    };
    clawtop::source::for_host(
        clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).expect("a host"),
    )
}

fn main() {
    let state = std::env::args().nth(1).expect("STATE_DIR");
    let state = std::path::Path::new(&state);
    let mut rows = 0;
    let list = best(5, || {
        let host = open(state);
        let r = clawtop::usecase::list::build(host.as_ref(), &Default::default());
        rows = r.sessions.len();
        std::hint::black_box(clawtop::report::json::to_string(&r).len());
    });
    let host = open(state);
    let src: &dyn SessionSource = host.as_ref();
    let listing = src.list(None);
    let mut opened = Vec::new();
    for s in &listing.sessions {
        if s.transcript.is_none() {
            continue;
        }
        if let Ok(t) = src.open_transcript_for_figures(&s.reference) {
            opened.push((s.clone(), t));
        }
    }
    // Priced as `Numbers::cost` prices a row: the agent's models.json, then the config's
    // models, then the price tables (loaded once, outside the timing, as a run loads them
    // once).
    let prices = clawtop::cost::prices::Prices::load(&clawtop::paths::Env::from_process());
    let mut models = std::collections::HashMap::new();
    for (s, _) in &opened {
        models
            .entry(s.agent_id().to_string())
            .or_insert_with(|| src.models_json(s.agent_id()));
    }
    let now_ms = clawtop::cost::now_ms();
    let cost = best(5, || {
        let mut costs = Vec::with_capacity(opened.len());
        for (s, t) in &opened {
            let mut catalogs = Vec::new();
            if let Some(Some((_, v))) = models.get(s.agent_id()) {
                catalogs.push(v);
            }
            if let Some(m) = src.config().get("models") {
                catalogs.push(m);
            }
            let cx = clawtop::cost::Context {
                prices: &prices,
                host: clawtop::cost::prices::HostCatalogs { catalogs },
                config: Some(src.config()),
                now_ms,
            };
            costs.push((s.key().to_string(), clawtop::cost::of_transcript(t, &cx)));
        }
        let totals =
            clawtop::cost::host::HostTotals::of(costs.iter().map(|(k, c)| (k.as_str(), c)), None);
        std::hint::black_box(totals.spend_usd);
    });
    let without = list.saturating_sub(cost).as_secs_f64();
    let share = if without > 0.0 {
        cost.as_secs_f64() / without * 100.0
    } else {
        f64::NAN
    };
    println!(
        "{} rows, {} transcripts priced: list --json {:.1} ms, pricing {:.1} ms: cost adds {share:.1} % (budget 10 %)",
        rows,
        opened.len(),
        list.as_secs_f64() * 1e3,
        cost.as_secs_f64() * 1e3,
    );
}
