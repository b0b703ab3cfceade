//! Read-side benchmarks on deterministic generated data (no fixtures needed):
//! - opening + planning a compaction on a ~25 MB v3 transcript (`bench/run.sh` does 100 MB
//!   and compares with pi), and with the diagnosis's whole-context figures (overhead and
//!   breakdown) as `compact --dry-run` computes them;
//! - decoding one screenful of entries at the start and at the end of that transcript, which
//!   must cost the same (scrolling cost must not grow with transcript length);
//! - `list` on a 2,000-session / ~30 MB store made by `bench/gen_store.py` (needs python3);
//! - the TUI's first frame on that store (load + state + draw into a test backend);
//! - `clawtop audit` of every compaction of a ~100 MB transcript (issue 19: ≤ 1 s, ≤ 64 MB;
//!   the peak resident memory of one audit is printed, measured by resetting the process's
//!   high-water mark first).

use clawtop::diagnosis::{breakdown, overhead};
use clawtop::plan;
use clawtop::tokens::{self, MessageView};
use clawtop::transcript::Transcript;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes a linear v3 transcript of about `mb` megabytes (same content every run).
fn generate_transcript(dir: &Path, mb: usize) -> PathBuf {
    let path = dir.join(format!("bench-{mb}mb.jsonl"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(w, r#"{{"type":"session","version":3,"id":"bench","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}}"#).unwrap();
    let mut written = 0usize;
    let mut n = 0u64;
    let mut parent = String::from("null");
    let filler = "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(40);
    while written < mb << 20 {
        let id = format!("{n:08x}");
        let line = match n % 4 {
            0 => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":[{{"type":"text","text":"step {n}: {filler}"}}],"timestamp":1}}}}"#
            ),
            1 => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"{filler}"}},{{"type":"toolCall","id":"c{n}","name":"read","arguments":{{"path":"src/file{}.rs"}}}}],"api":"anthropic-messages","provider":"anthropic","model":"claude","usage":{{"input":{},"output":50,"cacheRead":0,"cacheWrite":0,"totalTokens":{}}},"stopReason":"toolUse","timestamp":1}}}}"#,
                n % 50,
                1000 + n,
                1050 + n
            ),
            2 => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"toolResult","toolCallId":"c{}","toolName":"read","content":[{{"type":"text","text":"{filler}{filler}"}}],"isError":false,"timestamp":1}}}}"#,
                n - 1
            ),
            _ => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{filler}"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude","usage":{{"input":{},"output":50,"cacheRead":0,"cacheWrite":0,"totalTokens":{}}},"stopReason":"stop","timestamp":1}}}}"#,
                1000 + n,
                1050 + n
            ),
        };
        written += line.len() + 1;
        writeln!(w, "{line}").unwrap();
        parent = format!("\"{id}\"");
        n += 1;
    }
    w.flush().unwrap();
    path
}

fn bench_transcript(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = generate_transcript(dir.path(), 25);
    let mut g = c.benchmark_group("transcript-25MB");
    g.sample_size(10);
    g.bench_function("open", |b| {
        b.iter(|| black_box(Transcript::open(&path).unwrap().len()))
    });
    g.bench_function("open+plan (compact --dry-run)", |b| {
        b.iter(|| {
            let t = Transcript::open(&path).unwrap();
            black_box(
                plan::prepare(&t, plan::DEFAULT_KEEP_RECENT_TOKENS)
                    .unwrap()
                    .tokens_before,
            )
        })
    });
    // What `compact --dry-run` adds to the plan: the overhead (the context before the last
    // call) and the context breakdown, each summing the whole context (issue 20's P2: every
    // context entry read once).
    g.bench_function("open+plan+overhead+breakdown (compact --dry-run)", |b| {
        b.iter(|| {
            let t = Transcript::open(&path).unwrap();
            let p = plan::prepare(&t, plan::DEFAULT_KEEP_RECENT_TOKENS).unwrap();
            let oh = overhead::measure(&t, None, None, 0);
            let bd = breakdown::breakdown(
                &t,
                oh.as_ref(),
                None,
                breakdown::Against {
                    used: None,
                    window: 200_000,
                    flush_at: None,
                    compact_at: 180_000,
                },
            );
            black_box((p.tokens_before, bd.total_tokens))
        })
    });
    let t = Transcript::open(&path).unwrap();
    let screen = 40u32;
    let decode = |start: u32| -> u64 {
        (start..start + screen)
            .map(|i| tokens::estimate_entry(&t, i, MessageView::Context))
            .sum()
    };
    g.bench_function("decode one screen at the top", |b| {
        b.iter(|| black_box(decode(0)))
    });
    let last = t.len() as u32 - screen;
    g.bench_function("decode one screen at the bottom", |b| {
        b.iter(|| black_box(decode(last)))
    });
    g.finish();
}

fn generate_store(dir: &Path) -> PathBuf {
    let out = dir.join("store");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/gen_store.py");
    let ok = std::process::Command::new("python3")
        .arg(&script)
        .arg(&out)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "python3 bench/gen_store.py failed");
    out
}

fn open_host(state: &Path) -> clawtop::source::SourceHandle {
    let opts = clawtop::store::Options {
        state_dir: Some(state.to_path_buf()),
        config: None,
        profile: None,
    };
    clawtop::source::for_host(
        clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).unwrap(),
    )
}

fn bench_store(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let state = generate_store(dir.path());
    let mut g = c.benchmark_group("store-2000-sessions");
    g.sample_size(10);
    g.bench_function("list (open + figures for every session)", |b| {
        b.iter(|| {
            let host = open_host(&state);
            black_box(
                clawtop::usecase::list::build(host.as_ref(), &Default::default())
                    .sessions
                    .len(),
            )
        })
    });
    g.bench_function("list --json (serialized)", |b| {
        b.iter(|| {
            let host = open_host(&state);
            let r = clawtop::usecase::list::build(host.as_ref(), &Default::default());
            black_box(clawtop::report::json::to_string(&r).len())
        })
    });
    g.bench_function("TUI first frame (load, state, draw 120x40)", |b| {
        use clawtop::tui::{TuiLaunch, app, effects};
        b.iter(|| {
            let host = open_host(&state);
            let launch = TuiLaunch {
                loader: Some(clawtop::tui::store_adapter::host_loader(host, None)),
                ..TuiLaunch::default()
            };
            let (mut st, fx, ctx) = app::init(&launch, 0, (120, 40));
            for e in fx {
                if let Some(a) = effects::run_blocking(e, &ctx) {
                    effects::drive(&mut st, &ctx, a);
                }
            }
            let mut term =
                ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
            term.draw(|f| clawtop::tui::draw::draw(f, &st)).unwrap();
            black_box(term.backend().buffer().area.width)
        })
    });
    // The TUI's file watcher stats every store and transcript once a second.
    g.bench_function("watcher poll (every store and transcript)", |b| {
        use clawtop::tui::{TuiLaunch, app, effects};
        let host = open_host(&state);
        let launch = TuiLaunch {
            loader: Some(clawtop::tui::store_adapter::host_loader(host, None)),
            ..TuiLaunch::default()
        };
        let (mut st, fx, ctx) = app::init(&launch, 0, (120, 40));
        for e in fx {
            if let Some(a) = effects::run_blocking(e, &ctx) {
                effects::drive(&mut st, &ctx, a);
            }
        }
        // The generated store's 2,000 sessions share 24 transcripts.
        assert!(ctx.files.paths().len() > 20, "the transcripts are watched");
        b.iter(|| black_box(ctx.files.poll().len()))
    });
    g.finish();
}

/// A linear v3 transcript of about `mb` megabytes with identifiers in every message (paths,
/// URLs, hashes, ticket ids, host:port) and a compaction every 2,000 entries that keeps the 40
/// entries before it and summarizes part of what it replaced.
fn generate_audit_transcript(dir: &Path, mb: usize) -> PathBuf {
    let path = dir.join(format!("audit-{mb}mb.jsonl"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(w, r#"{{"type":"session","version":3,"id":"audit","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/srv"}}"#).unwrap();
    let filler =
        "the exporter retries uploads with backoff while the cursor is committed ".repeat(20);
    let (mut written, mut n, mut parent) = (0usize, 0u64, String::from("null"));
    while written < mb << 20 {
        let id = format!("{n:08x}");
        let line = if n % 2000 == 1999 {
            let kept = format!("{:08x}", n - 40);
            format!(
                r###"{{"type":"compaction","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","summary":"## Decisions\n- deploy /srv/app/mod{}/main.rs to db{}.internal:5432\n## Open TODOs\n- PR https://git.example.com/o/r/pull/{}\n## Constraints/Rules\n## Pending user asks\n## Exact identifiers\nDEADBEEF{:08X}","firstKeptEntryId":"{kept}","tokensBefore":90000}}"###,
                n % 97,
                n % 13,
                n / 3,
                n - 7
            )
        } else {
            let role = if n % 2 == 0 { "user" } else { "assistant" };
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"step {n}: see /srv/app/mod{}/main.rs, https://git.example.com/o/r/pull/{} and db{}.internal:5432; commit deadbeef{n:08x}, ticket OPS-{:06}. {filler}"}}],"timestamp":1}}}}"#,
                n % 97,
                n / 3,
                n % 13,
                n % 1_000_000
            )
        };
        written += line.len() + 1;
        writeln!(w, "{line}").unwrap();
        parent = format!("\"{id}\"");
        n += 1;
    }
    w.flush().unwrap();
    path
}

/// Peak resident memory (VmHWM) of this process in MB, after `f`, with the mark reset before
/// it (Linux; None elsewhere).
fn peak_rss_mb_of(f: impl FnOnce()) -> Option<f64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    f();
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

fn bench_audit(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = generate_audit_transcript(dir.path(), 100);
    let host = clawtop::audit::HostFacts {
        rules: clawtop::thresholds::Rules::V2026_2,
        summaries_unreadable: None,
    };
    let audit_once = || {
        let t = Transcript::open(&path).unwrap();
        black_box(clawtop::audit::audit_transcript(&t, &host))
    };
    let a = audit_once();
    eprintln!(
        "audit-100MB: {} compactions, {} identifiers lost, {} messages dropped unsummarized",
        a.totals.compactions, a.totals.identifiers_lost, a.totals.messages_dropped_unsummarized
    );
    drop(a);
    if let Some(mb) = peak_rss_mb_of(|| {
        audit_once();
    }) {
        eprintln!("audit-100MB: peak resident memory of one open + audit: {mb:.1} MB (target 64)");
    }
    let mut g = c.benchmark_group("audit-100MB");
    g.sample_size(10);
    g.bench_function("open + audit every compaction", |b| b.iter(audit_once));
    g.finish();
}

criterion_group!(benches, bench_transcript, bench_store, bench_audit);
criterion_main!(benches);
