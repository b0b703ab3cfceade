//! The cost figures on `tests/fixtures/cost/host-c` (every figure computed by hand in
//! `tests/fixtures/cost/README.md`) and on bad input.

use super::economics::{self, PlanTokens};
use super::prices::{HostCatalogs, Prices, Rates};
use super::*;
use serde_json::json;

const TRANSCRIPT: &str =
    include_str!("../../tests/fixtures/cost/host-c/agents/main/sessions/cost-1.jsonl");
const MODELS: &str = include_str!("../../tests/fixtures/cost/host-c/agents/main/agent/models.json");
const CONFIG: &str = include_str!("../../tests/fixtures/cost/host-c/openclaw.json");
/// 2026-11-20T11:20:00Z: 48 minutes after the last call.
const NOW: i64 = 1_795_173_600_000;

/// The fixture host's catalog and config, what a [`Context`] on it borrows.
struct FixtureHost {
    models: Value,
    config: Value,
}

impl FixtureHost {
    fn new() -> FixtureHost {
        FixtureHost {
            models: serde_json::from_str(MODELS).unwrap(),
            config: serde_json::from_str(CONFIG).unwrap(),
        }
    }

    fn cx<'a>(&'a self, prices: &'a Prices, now_ms: i64) -> Context<'a> {
        Context {
            prices,
            host: HostCatalogs {
                catalogs: vec![&self.models],
            },
            config: Some(&self.config),
            now_ms,
        }
    }
}

fn fixture_cost(prices: &Prices, now: i64) -> SessionCost {
    let t = Transcript::from_bytes("cost-1.jsonl", TRANSCRIPT.as_bytes().to_vec());
    of_transcript(&t, &FixtureHost::new().cx(prices, now))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn fixture_figures_are_the_hand_computed_ones() {
    let c = fixture_cost(&Prices::builtin_only(), NOW);
    assert_eq!(c.calls, 10);
    assert_eq!(c.unpriced_calls, 2);
    assert!(close(c.spend_usd, 0.11837), "{}", c.spend_usd);
    assert_eq!(
        c.tokens,
        Tokens {
            input: 6150,
            output: 970,
            cache_read: 37300,
            cache_write: 26800
        }
    );
    assert!(close(c.per_hour_usd, 0.03521), "{}", c.per_hour_usd);
    assert!(close(c.cache_hit_ratio.unwrap(), 26600.0 / 59150.0));
    assert_eq!(c.cache_ttl_seconds, 3600);
    assert!(c.cache_warm);
    assert_eq!(c.cache_expires_in_seconds, Some(725));
    let busts: Vec<(&str, BustCause)> = c
        .cache_busts
        .iter()
        .map(|b| (b.entry_id.as_str(), b.cause))
        .collect();
    assert_eq!(
        busts,
        [
            ("a7", BustCause::Compaction),
            ("a8", BustCause::Idle),
            ("a9", BustCause::ModelChange)
        ]
    );
    assert_eq!(c.priced_by.get("recorded"), Some(&2));
    assert_eq!(c.priced_by.get("host"), Some(&4));
    assert_eq!(c.priced_by.get("builtIn"), Some(&2));
    assert!(!c.estimated);
    assert_eq!(c.spend_label(), "$0.12?");
    assert_eq!(c.per_hour_label(), "$0.035/h");
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("2 calls of local/mystery-model unpriced")),
        "{:?}",
        c.notes
    );
}

#[test]
fn without_tables_more_calls_are_unpriced_never_zero() {
    let c = fixture_cost(&Prices::host_only(), NOW);
    // The two haiku calls are in no host catalog.
    assert_eq!(c.unpriced_calls, 4);
    assert!(close(c.spend_usd, 0.11837 - 0.00785 - 0.001185));
    assert!(c.spend_label().ends_with('?'));
}

#[test]
fn an_hour_later_the_cache_is_cold_and_nothing_is_spent_per_hour() {
    let c = fixture_cost(&Prices::builtin_only(), NOW + 3_600_000);
    assert!(!c.cache_warm);
    assert_eq!(c.cache_expires_in_seconds, None);
    assert_eq!(c.per_hour_usd, 0.0);
    let h = c.hourly(NOW, 3);
    assert_eq!(h.len(), 3);
    assert!(close(h.iter().sum::<f64>(), 0.11837), "{h:?}");
}

fn one_call(usage: Value) -> SessionCost {
    let line = json!({"type":"message","id":"x","parentId":null,"timestamp":"2026-11-20T10:00:00Z",
        "message":{"role":"assistant","provider":"anthropic","model":"claude-haiku-4-5","usage":usage,"content":[]}});
    let text = format!(
        "{}\n{}\n",
        json!({"type":"session","version":3,"id":"s"}),
        line
    );
    let t = Transcript::from_bytes("bad.jsonl", text.into_bytes());
    let prices = Prices::builtin_only();
    let cx = Context {
        prices: &prices,
        host: HostCatalogs { catalogs: vec![] },
        config: None,
        now_ms: NOW,
    };
    of_transcript(&t, &cx)
}

#[test]
fn bad_usage_is_repaired_and_marked_never_a_panic() {
    let c = one_call(
        json!({"input": -5, "output": 1e300, "cacheRead": "many", "cacheWrite": 10,
        "cost": {"total": -3.0}}),
    );
    assert_eq!(c.calls, 1);
    assert!(c.estimated);
    assert_eq!(c.tokens.input, 0);
    assert_eq!(c.tokens.output, 0);
    assert_eq!(c.tokens.cache_write, 10);
    // Priced from the built-in table after the bad recorded total: 10 × 1.25 / 1e6.
    assert!(close(c.spend_usd, 0.0000125));
    assert!(c.spend_label().starts_with('~'), "{}", c.spend_label());
    assert!(
        c.notes.iter().any(|n| n.contains("usage.input")),
        "{:?}",
        c.notes
    );
    assert!(
        c.notes.iter().any(|n| n.contains("recorded cost -3.0")),
        "{:?}",
        c.notes
    );
    let absurd = one_call(json!({"input": 10, "cost": {"total": 1e9}}));
    assert!(absurd.estimated);
    assert!(close(absurd.spend_usd, 0.00001));
    let nan = one_call(json!({"input": 10, "cost": {"total": "NaN"}}));
    assert!(nan.estimated);
}

#[test]
fn a_user_price_file_overrides_the_table_and_names_its_bad_keys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prices.toml");
    std::fs::write(
        &path,
        "currency = \"EUR\"\n[models.\"anthropic/claude-haiku-4-5\"]\ninput = 2\noutput = 10\n\
         [models.\"anthropic/claude-sonnet-4-5\"]\ninput = 1\ncache_read = 0.1\n",
    )
    .unwrap();
    let p = Prices::with_user_file(&path);
    let (r, basis) = p
        .table_rates(Some("anthropic"), "claude-haiku-4-5")
        .unwrap();
    assert_eq!(basis, prices::Basis::UserFile);
    assert_eq!(r.input, 2.0);
    assert_eq!(r.cache_write, 0.0);
    // The entry with a misspelt key is left out: the built-in price stands.
    let (_, basis) = p
        .table_rates(Some("anthropic"), "claude-sonnet-4-5")
        .unwrap();
    assert_eq!(basis, prices::Basis::BuiltIn);
    assert!(
        p.notes.iter().any(|n| n.contains("\"currency\"")),
        "{:?}",
        p.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("cache_read")),
        "{:?}",
        p.notes
    );
    std::fs::write(&path, "models = [").unwrap();
    let bad = Prices::with_user_file(&path);
    assert!(bad.notes[0].contains("not TOML"), "{:?}", bad.notes);
}

#[test]
fn economics_follow_the_formulas() {
    let c = fixture_cost(&Prices::builtin_only(), NOW);
    let p_eff = economics::p_eff(&c).unwrap();
    assert!(close(p_eff, 0.10216 / 56950.0), "{p_eff}");
    let haiku = Rates {
        input: 1.0,
        output: 5.0,
        cache_read: 0.1,
        cache_write: 1.25,
    };
    let plan = PlanTokens {
        tokens_before: 40_000,
        expected_tokens_after: Some(10_000),
        summary_input_tokens: 30_000,
        summary_output_tokens: 1_000,
    };
    let e = economics::of_plan(&c, plan, Some((haiku, "anthropic/claude-haiku-4-5".into())));
    let savings = 30_000.0 * p_eff;
    let summary = (30_000.0 * 1.25 + 1_000.0 * 5.0) / 1e6;
    let premium = 10_000.0 * (1.25 - 0.1) / 1e6;
    assert!(close(e.savings_per_call_usd.unwrap(), savings));
    assert!(c.cache_warm && e.cache_warm);
    assert!(close(e.compaction_cost_usd.unwrap(), summary + premium));
    assert!(close(e.compaction_cost_cold_usd.unwrap(), summary));
    assert_eq!(
        e.payback_calls,
        Some(((summary + premium) / savings).ceil() as u64)
    );
    assert_eq!(
        e.payback_calls_cold,
        Some((summary / savings).ceil() as u64)
    );
    let line = e.line();
    assert!(
        line.starts_with("costs ≈$0.054, saves ≈$0.054 a call"),
        "{line}"
    );
    assert!(line.contains("pays back after"), "{line}");
    // Nothing saved: no payback.
    let none = economics::of_plan(
        &c,
        PlanTokens {
            expected_tokens_after: Some(50_000),
            ..plan
        },
        Some((haiku, "h".into())),
    );
    assert_eq!(none.payback_calls, None);
    assert!(none.line().contains("never pays back"), "{}", none.line());
}

#[test]
fn dollars_read_at_their_scale() {
    assert_eq!(usd_text(0.0), "$0");
    assert_eq!(usd_text(0.11), "$0.11");
    assert_eq!(usd_text(0.016), "$0.016");
    assert_eq!(usd_text(0.0042), "$0.0042");
    assert_eq!(usd_text(12.345), "$12.35");
    assert_eq!(usd_text(1234.5), "$1234");
    assert_eq!(usd_text(f64::NAN), "$?");
}

#[test]
fn captured_calls_read_as_the_lines_do() {
    let mut t = Transcript::from_bytes("cost-1.jsonl", TRANSCRIPT.as_bytes().to_vec());
    let assistants = t
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Message(Role::Assistant))
        .count();
    // Every assistant line was read whole by the scan: nothing is read back.
    assert_eq!(t.calls.len(), assistants);
    let (host, prices) = (FixtureHost::new(), Prices::builtin_only());
    let cx = host.cx(&prices, NOW);
    let captured = of_transcript(&t, &cx);
    // Without the captures every call is read back from its line: the same figures.
    t.calls.clear();
    let read = of_transcript(&t, &cx);
    assert_eq!(captured, read);
    assert_eq!(captured.calls, 10);
}

/// The calls streamed as the transcript hands them over and the calls held and sorted (what
/// a store that hands them over out of order gets) fold to the same figures, captured and
/// read-back calls interleaved.
#[test]
fn streamed_and_sorted_calls_fold_alike() {
    let mut t = Transcript::from_bytes("cost-1.jsonl", TRANSCRIPT.as_bytes().to_vec());
    let (host, prices) = (FixtureHost::new(), Prices::builtin_only());
    let cx = host.cx(&prices, NOW);
    let fold = |t: &Transcript, order: Order| {
        let mut on_branch = vec![false; t.entries.len()];
        for i in t.active_branch() {
            on_branch[i as usize] = true;
        }
        let mut tally = Tally::new(t, &cx, &on_branch);
        let notes = for_each_call(t, &cx, order, &mut |c| tally.add(c)).expect("in order");
        tally.finish(notes)
    };
    // Every other capture dropped: those calls are read back between the captured ones.
    let mut k = 0;
    t.calls.retain(|_| {
        k += 1;
        k % 2 == 0
    });
    let streamed = fold(&t, Order::AsRead);
    let sorted = fold(&t, Order::Sorted);
    assert_eq!(streamed, sorted);
    assert_eq!(streamed, of_transcript(&t, &cx));
    assert_eq!(streamed.calls, 10);
    assert!(!streamed.cache_busts.is_empty());
    assert_eq!(streamed.timeline.len(), 10);
    assert!(streamed.last_call.is_some());
    assert!(!streamed.branch_prompts.is_empty());
}

/// A store that hands rows over newest first (in no order a reader may rely on).
struct Backwards(std::collections::BTreeMap<u64, Vec<u8>>);

impl crate::transcript::RowFetch for Backwards {
    fn fetch(&self, key: u64) -> Result<Vec<u8>, crate::transcript::FetchError> {
        self.0
            .get(&key)
            .cloned()
            .ok_or_else(|| crate::transcript::FetchError::Stale("gone".into()))
    }

    fn fetch_each(&self, keys: &[u64], each: &mut dyn FnMut(u64, &[u8])) -> bool {
        for k in keys.iter().rev() {
            if let Some(b) = self.0.get(k) {
                each(*k, b);
            }
        }
        true
    }
}

/// Calls a store hands over out of file order give the figures calls in order give: the
/// streamed fold gives up and starts again sorted.
#[test]
fn calls_handed_over_out_of_order_fold_as_in_order() {
    let mut ix = crate::transcript::RowIndexer::default();
    let mut rows = std::collections::BTreeMap::new();
    for (n, line) in TRANSCRIPT.lines().enumerate() {
        ix.head(n as u64 + 1, line.as_bytes());
        rows.insert(n as u64 + 1, line.as_bytes().to_vec());
    }
    let mut backwards = ix.finish("rows", Box::new(Backwards(rows)), TRANSCRIPT.len() as u64);
    let mut in_order = Transcript::from_bytes("cost-1.jsonl", TRANSCRIPT.as_bytes().to_vec());
    // Every call read back from the store, none from the scan's captures.
    backwards.calls.clear();
    in_order.calls.clear();
    let (host, prices) = (FixtureHost::new(), Prices::builtin_only());
    let cx = host.cx(&prices, NOW);
    let tally_of = |t: &Transcript| {
        let on_branch = vec![false; t.entries.len()];
        let mut tally = Tally::new(t, &cx, &on_branch);
        for_each_call(t, &cx, Order::AsRead, &mut |c| tally.add(c)).is_some()
    };
    assert!(!tally_of(&backwards), "the streamed fold sees the disorder");
    assert!(tally_of(&in_order));
    let (got, want) = (
        of_transcript(&backwards, &cx),
        of_transcript(&in_order, &cx),
    );
    assert_eq!(got, want);
    assert_eq!(got.calls, 10);
    assert!(!got.cache_busts.is_empty());
}

#[test]
fn calls_past_the_capture_budget_are_read_back() {
    // Enough calls that their usage texts pass the scan's budget.
    let usage = json!({"input": 1000, "output": 10, "cacheRead": 0, "cacheWrite": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        "padding": "x".repeat(2000)});
    let n = crate::transcript::parse::CALL_CAPTURE_MAX / 2000 + 100;
    let mut text = format!("{}\n", json!({"type":"session","version":3,"id":"s"}));
    for i in 0..n {
        let parent = if i == 0 {
            Value::Null
        } else {
            json!(format!("a{}", i - 1))
        };
        text.push_str(&format!(
            "{}\n",
            json!({"type":"message","id":format!("a{i}"),"parentId":parent,
                "message":{"role":"assistant","provider":"anthropic","model":"claude-haiku-4-5","usage":usage,"content":[]}})
        ));
    }
    let t = Transcript::from_bytes("many.jsonl", text.into_bytes());
    assert!(t.calls.len() < n, "{} of {n} captured", t.calls.len());
    let prices = Prices::builtin_only();
    let cx = Context {
        prices: &prices,
        host: HostCatalogs { catalogs: vec![] },
        config: None,
        now_ms: NOW,
    };
    let c = of_transcript(&t, &cx);
    assert_eq!(c.calls, n as u64);
    assert_eq!(c.tokens.input, 1000 * n as u64);
    assert!(close(c.spend_usd, n as f64 * (1000.0 + 50.0) / 1e6));
}

/// Issue 31: a row kept past the time it was computed at holds what a new computation gives
/// until [`Clock::steady_until_ms`] (the countdown redone by [`Clock::apply`]), and the first
/// moment after it changes a figure.
#[test]
fn a_kept_cost_holds_until_its_clock_says() {
    let prices = Prices::builtin_only();
    let figures = |c: &SessionCost| {
        (
            c.per_hour_usd,
            c.spend_today_usd,
            c.unpriced_calls_last_hour,
            c.cache_warm,
            c.cache_expires_in_seconds,
        )
    };
    let base = fixture_cost(&prices, NOW);
    let clock = base.clock(NOW);
    assert!(clock.steady_until_ms > NOW);
    // Every second up to the moment it names, the kept figures are the computed ones.
    let mut at = NOW;
    while at < clock.steady_until_ms {
        let mut kept = base.clone().without_calls();
        clock.apply(&mut kept, at);
        assert_eq!(
            figures(&kept),
            figures(&fixture_cost(&prices, at)),
            "at {at}"
        );
        at += 1000;
    }
    // At that moment something moved (a call left the hour, the cache went cold, midnight).
    let mut kept = base.without_calls();
    clock.apply(&mut kept, clock.steady_until_ms);
    assert_ne!(
        figures(&kept),
        figures(&fixture_cost(&prices, clock.steady_until_ms))
    );
}

/// Rows indexed from their projection (a SQLite host's zstd rows) for a caller that also
/// walks the history have their calls captured from the whole row handed beside it: cost
/// reads none back, and its figures are the rows' own.
#[test]
fn calls_of_rows_captured_beside_their_projection_are_not_read_back() {
    let mut ix = crate::transcript::RowIndexer::capturing();
    let mut rows = std::collections::BTreeMap::new();
    for (n, line) in TRANSCRIPT.lines().enumerate() {
        let key = n as u64 + 1;
        match crate::transcript::envelope(line.as_bytes()) {
            Some(env) => {
                ix.head(key, &env);
                ix.capture_row(line.as_bytes());
            }
            None => ix.whole(key, line.as_bytes()),
        }
        rows.insert(key, b"{}".to_vec());
    }
    // A store that would hand back nothing of use: what cost finds came from the capture.
    let t = ix.finish("rows", Box::new(Backwards(rows)), TRANSCRIPT.len() as u64);
    let assistants = t
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Message(Role::Assistant))
        .count();
    assert_eq!(t.calls.len(), assistants);
    let whole = Transcript::from_bytes("cost-1.jsonl", TRANSCRIPT.as_bytes().to_vec());
    let (host, prices) = (FixtureHost::new(), Prices::builtin_only());
    let cx = host.cx(&prices, NOW);
    let got = of_transcript(&t, &cx);
    assert_eq!(got, of_transcript(&whole, &cx));
    assert_eq!(got.calls, 10);
}

/// A usage text read without serde_json ([`crate::transcript::usage_text`]) is the [`Usage`] its
/// `Deserialize` gives, the nested prices and a `cost` that is no object included; one it
/// leaves to serde_json is read by it.
#[test]
fn usages_read_without_serde_json_are_the_decoded_ones() {
    for text in crate::transcript::usage_text::sample_texts() {
        let decoded = serde_json::from_str::<Usage>(&text).ok();
        assert_eq!(Usage::from_text(&text), decoded, "{text}");
    }
}
