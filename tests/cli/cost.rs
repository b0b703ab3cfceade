//! Cost on the CLI (SPEC §10), on a copy of `tests/fixtures/cost/host-c`, whose figures are
//! worked out by hand in its README; its token sums are ccusage's (`ccusage-session.json`).

use super::support::cli::{Home, Out, copy_dir, run_with};
use super::support::fixtures::fixture;
use serde_json::Value;

/// 2026-11-20T11:20:00Z: 48 minutes after the fixture's last call.
pub const NOW: &str = "1795173600000";

pub fn host_c() -> Home {
    let h = Home::empty();
    copy_dir(&fixture("cost/host-c"), &h.state());
    h
}

pub fn run(h: &Home, args: &[&str]) -> Out {
    let config = h.path().join(".config/clawtop");
    run_with(
        h.path(),
        args,
        &[
            ("CLAWTOP_TEST_NOW_MS", NOW),
            ("CLAWTOP_CONFIG_DIR", config.to_str().unwrap()),
        ],
    )
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-12)
}

/// The figures the README works out, wherever a `cost` object is printed.
pub fn assert_fixture_cost(c: &Value) {
    assert!(close(&c["spendUsd"], 0.11837), "{c}");
    assert_eq!(c["calls"], 10, "{c}");
    assert_eq!(c["unpricedCalls"], 2, "{c}");
    assert!(close(&c["perHourUsd"], 0.03521), "{c}");
    assert!(close(&c["cacheHitRatio"], 26600.0 / 59150.0), "{c}");
    let busts: Vec<(String, String)> = c["cacheBusts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["entryId"].as_str().unwrap().to_string(),
                b["cause"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        busts,
        [
            ("a7".to_string(), "compaction".to_string()),
            ("a8".into(), "idle".into()),
            ("a9".into(), "model-change".into())
        ]
    );
    assert_eq!(c["estimated"], false);
}

#[test]
fn list_and_show_carry_the_fixture_cost_and_ccusage_token_sums() {
    let h = host_c();
    let list = run(&h, &["list", "--json"]);
    list.expect(0);
    let v = list.json();
    let c = &v["sessions"][0]["cost"];
    assert_fixture_cost(c);
    // The long cache retention of haiku in openclaw.json: an hour, so still warm.
    assert_eq!(c["cacheTtlSeconds"], 3600);
    assert_eq!(c["cacheWarm"], true);
    assert_eq!(c["cacheExpiresInSeconds"], 725);
    // Token sums equal ccusage's on the same file.
    let cc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("cost/ccusage-session.json")).unwrap(),
    )
    .unwrap();
    let s = &cc["sessions"][0];
    assert_eq!(s["sessionId"], "cost-1");
    assert_eq!(c["tokens"]["input"], s["inputTokens"]);
    assert_eq!(c["tokens"]["output"], s["outputTokens"]);
    assert_eq!(c["tokens"]["cacheRead"], s["cacheReadTokens"]);
    assert_eq!(c["tokens"]["cacheWrite"], s["cacheCreationTokens"]);
    // ccusage counts the zero-recorded calls as $0; clawtop prices them.
    assert!(c["spendUsd"].as_f64().unwrap() > s["totalCost"].as_f64().unwrap() + 0.07);
    // show gives the same object.
    let show = run(&h, &["show", "agent:main:main", "--json"]);
    show.expect(0);
    assert_eq!(show.json()["cost"], *c);
}

#[test]
fn text_list_shows_spend_and_rate() {
    let h = host_c();
    let o = run(&h, &["list"]);
    o.expect(0);
    let t = o.text();
    let header = t.lines().next().unwrap();
    assert!(header.contains("SPEND") && header.contains("$/H"), "{t}");
    let row = t.lines().nth(1).unwrap();
    assert!(row.contains("$0.12?"), "{t}");
    assert!(row.contains("$0.035/h"), "{t}");
    // show says it in words.
    let o = run(&h, &["show", "agent:main:main"]);
    o.expect(0);
    assert!(
        o.text().contains(
            "$0.12? ($0.035/h) over 10 calls, 2 unpriced; cache hit 45%, warm; busts: a7 compaction, a8 idle, a9 model-change"
        ),
        "{}",
        o.text()
    );
}

#[test]
fn metrics_export_the_cost_series() {
    let h = host_c();
    let o = run(&h, &["metrics"]);
    o.expect(0);
    let t = o.text();
    let labels = "{agent=\"main\",session_key=\"agent:main:main\",session_id=\"cost-1\"}";
    for (name, want) in [
        ("clawtop_session_cost_usd", 0.11837),
        ("clawtop_session_cost_per_hour_usd", 0.03521),
        ("clawtop_session_cache_hit_ratio", 26600.0 / 59150.0),
        ("clawtop_session_unpriced_calls", 2.0),
    ] {
        let line = t
            .lines()
            .find(|l| l.starts_with(&format!("{name}{labels} ")))
            .unwrap_or_else(|| panic!("no {name}: {t}"));
        let v: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((v - want).abs() < 1e-12, "{line}");
    }
    // The exposition parses.
    let lines = t.lines().map(|l| Ok(l.to_string()));
    prometheus_parse::Scrape::parse(lines).unwrap();
}

#[test]
fn check_burn_is_opt_in() {
    let h = host_c();
    // Without the flag: no burn, whatever the spend.
    let o = run(&h, &["check"]);
    assert!(!o.text().contains("burn"), "{}", o.text());
    let o = run(&h, &["check", "--max-cost-per-hour", "0.01"]);
    o.expect(1);
    assert!(
        o.text()
            .contains("WARNING burn agent:main:main: $0.035 in the last hour, over $0.010/h"),
        "{}",
        o.text()
    );
    run(
        &h,
        &["check", "--max-cost-per-hour", "0.01", "--crit", "burn"],
    )
    .expect(2);
    let o = run(&h, &["check", "--max-cost-per-hour", "0.05"]);
    o.expect(0);
    let bad = run(&h, &["check", "--max-cost-per-hour", "lots"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("dollars"), "{}", bad.stderr);
}

#[test]
fn a_bad_price_file_is_named_and_does_not_price_at_zero() {
    let h = host_c();
    let dir = h.path().join(".config/clawtop");
    std::fs::create_dir_all(&dir).unwrap();
    // The unknown key leaves that model out: its calls stay unpriced, never $0.
    std::fs::write(
        dir.join("prices.toml"),
        "[models.\"local/mystery-model\"]\ninput = 1\ncache_read = 0.1\n",
    )
    .unwrap();
    let v = run(&h, &["list", "--json"]).json();
    assert_eq!(v["sessions"][0]["cost"]["unpricedCalls"], 2);
    let w = v["warnings"].to_string();
    assert!(w.contains("prices.toml") && w.contains("cache_read"), "{w}");
    // A good entry prices them: 2200 input tokens at $1/M, 110 output at $2/M.
    std::fs::write(
        dir.join("prices.toml"),
        "[models.\"local/mystery-model\"]\ninput = 1\noutput = 2\n",
    )
    .unwrap();
    let v = run(&h, &["list", "--json"]).json();
    let c = &v["sessions"][0]["cost"];
    assert_eq!(c["unpricedCalls"], 0);
    assert!(close(&c["spendUsd"], 0.11837 + 0.0022 + 0.00022), "{c}");
    assert_eq!(c["pricedBy"]["userFile"], 2);
}

/// `compact --dry-run --json` carries `economics` whose figures follow SPEC §10's formulas
/// from the figures it reports (the demo host: Sonnet calls priced by its models.json).
#[test]
fn dry_run_economics_follow_the_formulas() {
    let h = Home::empty();
    let o = run(
        &h,
        &[
            "--demo",
            "compact",
            "agent:main:slack:channel:c07ops",
            "--dry-run",
            "--json",
        ],
    );
    o.expect(0);
    let v = o.json();
    let e = &v["economics"];
    let f = |k: &str| e[k].as_f64().unwrap_or_else(|| panic!("{k}: {e}"));
    let before = v["tokensBefore"].as_u64().unwrap();
    let after = v["expectedTokensAfter"].as_u64().unwrap();
    assert!(before > after, "{v}");
    assert_eq!(e["tokensSavedPerCall"], before - after);
    let p_eff = f("pEff");
    assert!(p_eff > 0.0, "{e}");
    assert!(((before - after) as f64 * p_eff - f("savingsPerCallUsd")).abs() < 1e-12);
    let r: Vec<f64> = e["rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(r, [3.0, 15.0, 0.3, 3.75], "{e}");
    assert_eq!(e["summaryOutputTokens"], v["summaryAllowance"]["tokens"]);
    let summary = (f("summaryInputTokens") * 3.75 + f("summaryOutputTokens") * 15.0) / 1e6;
    assert!((f("compactionCostColdUsd") - summary).abs() < 1e-12, "{e}");
    let premium = after as f64 * (3.75 - 0.3) / 1e6;
    let want = if e["cacheWarm"] == true {
        summary + premium
    } else {
        summary
    };
    assert!((f("compactionCostUsd") - want).abs() < 1e-12, "{e}");
    let payback = (want / f("savingsPerCallUsd")).ceil() as u64;
    assert_eq!(e["paybackCalls"], payback, "{e}");
    // The text plan says the same in one line.
    let t = run(
        &h,
        &[
            "--demo",
            "compact",
            "agent:main:slack:channel:c07ops",
            "--dry-run",
        ],
    );
    t.expect(0);
    assert!(
        t.text()
            .contains(&format!("pays back after {payback} calls")),
        "{}",
        t.text()
    );
}

/// The host's totals (SPEC §10): today's spend, $/h, spend by kind of key, the top sessions
/// and the archived transcripts (`/reset` and deleted ones, plain and zstd), which count.
#[test]
fn host_totals_count_every_kind_and_the_archives() {
    let h = host_c();
    let sessions = h.sessions_dir();
    let transcript = std::fs::read(sessions.join("cost-1.jsonl")).unwrap();
    // A heartbeat session with a transcript of its own (the same calls).
    std::fs::write(sessions.join("hb-1.jsonl"), &transcript).unwrap();
    let store = h.store();
    let mut v: Value = serde_json::from_slice(&std::fs::read(&store).unwrap()).unwrap();
    let mut hb = v["agent:main:main"].clone();
    hb["sessionId"] = "hb-1".into();
    v["agent:main:main:heartbeat"] = hb;
    std::fs::write(&store, serde_json::to_vec(&v).unwrap()).unwrap();
    // Two archives: a plain /reset one and a zstd-compressed deleted one.
    std::fs::write(
        sessions.join("old-1.jsonl.reset.2026-11-20T09-00-00.000Z"),
        &transcript,
    )
    .unwrap();
    std::fs::write(
        sessions.join("old-2.jsonl.deleted.2026-11-20T09-30-00.000Z.zst"),
        zstd::encode_all(&transcript[..], 3).unwrap(),
    )
    .unwrap();
    let o = run(&h, &["list", "--json"]);
    o.expect(0);
    let t = &o.json()["totals"];
    let one = 0.11837;
    assert!(close(&t["spendTodayUsd"], 4.0 * one), "{t}");
    assert!(close(&t["spendUsd"], 4.0 * one), "{t}");
    assert!(close(&t["perHourUsd"], 2.0 * 0.03521), "{t}");
    assert_eq!(t["unpricedCalls"], 8, "{t}");
    assert_eq!(t["archived"]["transcripts"], 2, "{t}");
    assert!(close(&t["archived"]["spendUsd"], 2.0 * one), "{t}");
    assert_eq!(t["archived"]["unread"], serde_json::json!([]), "{t}");
    assert!(
        close(&t["byKind"]["heartbeat"]["spendTodayUsd"], one),
        "{t}"
    );
    assert!(
        close(&t["byKind"]["direct/channel"]["spendTodayUsd"], one),
        "{t}"
    );
    assert_eq!(t["top"].as_array().unwrap().len(), 2, "{t}");
    // The text list says the same on one line.
    let text = run(&h, &["list"]).text();
    let line = text.lines().find(|l| l.starts_with("spend: ")).unwrap();
    assert_eq!(
        line,
        "spend: today $0.47? | $0.070/h | direct/channel $0.12, heartbeat $0.12 | archived 2 ($0.24 today) | top: agent:main:main $0.035/h, agent:main:main:heartbeat $0.035/h | 8 calls unpriced",
        "{text}"
    );
}

/// Issue 32, checked against ccusage itself (npm `ccusage` 20.0.24, installed by `npm ci
/// --prefix interop`): `ccusage openclaw session --json --offline` on a copy of the cost
/// fixture sums the same tokens per session as clawtop's `list --json` on it. The recorded
/// `ccusage-session.json` is what this run printed; this test runs the tool.
#[test]
fn ccusage_itself_sums_the_tokens_clawtop_sums() {
    let h = host_c();
    let bin =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/node_modules/.bin/ccusage");
    assert!(
        bin.exists(),
        "{} is missing: run `npm ci --prefix interop` (the README's test command does)",
        bin.display()
    );
    let out = std::process::Command::new(&bin)
        .args([
            "openclaw",
            "session",
            "--json",
            "--offline",
            "--open-claw-path",
        ])
        .arg(h.state())
        .env("HOME", h.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("ccusage runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cc: Value = serde_json::from_slice(&out.stdout).expect("ccusage prints JSON");
    let s = cc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == "cost-1")
        .unwrap_or_else(|| panic!("no cost-1 in {cc}"));
    let list = run(&h, &["list", "--json"]);
    list.expect(0);
    let c = &list.json()["sessions"][0]["cost"];
    assert_eq!(c["tokens"]["input"], s["inputTokens"], "{s}");
    assert_eq!(c["tokens"]["output"], s["outputTokens"], "{s}");
    assert_eq!(c["tokens"]["cacheRead"], s["cacheReadTokens"], "{s}");
    assert_eq!(c["tokens"]["cacheWrite"], s["cacheCreationTokens"], "{s}");
}

/// A remembered row's cost is brought to the run's clock (docs/cache.md): ten seconds on, the
/// cache's countdown moved; an hour on, the last hour's calls left it. Each warm run prints
/// what a run without the cache prints.
#[test]
fn a_remembered_rows_cost_follows_the_clock() {
    let h = host_c();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let config = h.path().join(".config/clawtop");
    let at = |now: i64, extra: &[&str]| {
        let now = now.to_string();
        let args: Vec<&str> = ["list", "--json"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let o = run_with(
            h.path(),
            &args,
            &[
                ("CLAWTOP_TEST_NOW_MS", now.as_str()),
                ("CLAWTOP_CONFIG_DIR", config.to_str().unwrap()),
            ],
        );
        o.expect(0);
        o.text()
    };
    let now: i64 = NOW.parse().unwrap();
    let first = at(now, &[]);
    assert_eq!(first, at(now, &["--no-cache"]));
    let rows = h.path().join(".xdg-cache/clawtop/rows");
    assert_eq!(std::fs::read_dir(&rows).unwrap().count(), 1, "remembered");
    let cost = |text: &str| {
        let v: Value = serde_json::from_str(text).unwrap();
        v["sessions"][0]["cost"].clone()
    };
    // And a clock set back an hour (NTP, a restored VM): the last hour's calls are then in
    // the future, counted in neither the hour nor today.
    for later in [
        now + 10_000,
        now + 3_600_000,
        now + 86_400_000,
        now - 3_600_000,
    ] {
        let warm = at(later, &[]);
        assert_eq!(warm, at(later, &["--no-cache"]), "at {later}");
        assert_ne!(cost(&warm), cost(&first), "at {later} the cost moved");
    }
}
