//! The forecast (SPEC §3) of `list --json`, `show --json`, `metrics` and the list's ETA column,
//! on a generated host: one session growing a fixed amount per turn, one flat.

use super::support::cli::{HEADER, Home, assistant, user};

/// Writes a transcript of `inputs` (one turn each) and its store entry with `used` fresh.
fn session(h: &Home, id: &str, inputs: &[u64]) -> serde_json::Value {
    let mut lines = vec![HEADER.to_string()];
    let mut parent: Option<String> = None;
    for (k, n) in inputs.iter().enumerate() {
        let (u, a) = (format!("u{k}"), format!("a{k}"));
        lines.push(user(&u, parent.as_deref(), "next step"));
        lines.push(assistant(&a, &u, "done", *n));
        parent = Some(a);
    }
    std::fs::write(
        h.sessions_dir().join(format!("{id}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
    // The helper's replies report totalTokens = input + 5.
    serde_json::json!({"sessionId": id, "updatedAt": 1_795_000_000_000i64, "contextTokens": 100_000,
        "totalTokens": inputs.last().unwrap() + 5, "totalTokensFresh": true, "compactionCount": 0})
}

#[test]
fn a_session_growing_a_fixed_amount_per_turn_gets_that_rate_and_the_turns_to_each_line() {
    let h = Home::empty();
    std::fs::create_dir_all(h.sessions_dir()).unwrap();
    // Window 100,000 and the defaults: compaction line 80,000, flush line 76,000.
    let growing: Vec<u64> = (0..20).map(|k| 10_000 + k * 1_500).collect();
    let store = serde_json::json!({
        "agent:main:growing": session(&h, "grow-1", &growing),
        "agent:main:flat": session(&h, "flat-1", &[30_000; 15]),
    });
    std::fs::write(h.store(), store.to_string()).unwrap();

    let v = h.run(&["list", "--json"]);
    v.expect(0);
    let v = v.json();
    let row = |key: &str| {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["sessionKey"] == key)
            .unwrap()
            .clone()
    };
    let g = row("agent:main:growing");
    assert_eq!(
        (
            g["used"].as_u64(),
            g["flushAt"].as_u64(),
            g["compactAt"].as_u64()
        ),
        (Some(38_505), Some(76_000), Some(80_000))
    );
    assert_eq!(g["forecast"]["tokensPerTurn"], 1_500);
    // (76,000 − 38,505) / 1,500 = 24.997 → 25; (80,000 − 38,505) / 1,500 = 27.66 → 28.
    assert_eq!(g["forecast"]["turnsToFlush"], 25);
    assert_eq!(g["forecast"]["turnsToCompaction"], 28);
    let f = row("agent:main:flat");
    assert!(f["forecast"]["tokensPerTurn"].is_null());
    assert!(f["forecast"]["turnsToFlush"].is_null());
    assert!(f["forecast"]["turnsToCompaction"].is_null());

    // show --json: the same figure, computed by the same function.
    let s = h.run(&["show", "agent:main:growing", "--json"]);
    s.expect(0);
    assert_eq!(s.json()["forecast"], g["forecast"]);

    let m = h.run(&["metrics"]);
    m.expect(0);
    let m = m.text();
    assert!(m.contains("clawtop_session_turns_to_compaction{agent=\"main\",session_key=\"agent:main:growing\",session_id=\"grow-1\"} 28"), "{m}");
    assert!(!m.contains(
        "session_key=\"agent:main:flat\",session_id=\"flat-1\"} 0\nclawtop_session_turns"
    ));
    assert_eq!(
        m.matches("clawtop_session_turns_to_compaction{").count(),
        1,
        "the flat one has no sample"
    );

    let t = h.run(&["list"]);
    t.expect(0);
    let text = t.text();
    let header = text.lines().next().unwrap();
    // ETA is the column before the spend and $/h.
    assert!(header.ends_with("ETA     SPEND         $/H"), "{header}");
    let eta = |l: &str| l.split_whitespace().rev().nth(2).map(str::to_string);
    let line = text.lines().find(|l| l.contains("growing")).unwrap();
    assert_eq!(eta(line).as_deref(), Some("28"), "{line}");
    let line = text.lines().find(|l| l.contains("flat")).unwrap();
    assert_eq!(eta(line).as_deref(), Some("-"), "{line}");
}

#[test]
fn show_json_of_a_bare_file_has_the_forecast_too() {
    let h = Home::empty();
    std::fs::create_dir_all(h.sessions_dir()).unwrap();
    let inputs: Vec<u64> = (0..12).map(|k| 50_000 + k * 3_000).collect();
    session(&h, "bare", &inputs);
    let f = h.sessions_dir().join("bare.jsonl");
    let o = h.run(&["show", f.to_str().unwrap(), "--json"]);
    o.expect(0);
    let v = o.json();
    // Window 200,000 (a bare file's default): compaction line 180,000, flush line 176,000;
    // used = the last usage, 83,005.
    assert_eq!(v["used"], 83_005);
    assert_eq!(v["forecast"]["tokensPerTurn"], 3_000);
    assert_eq!(v["forecast"]["turnsToFlush"], 31); // 92,995 / 3,000 = 30.998
    assert_eq!(v["forecast"]["turnsToCompaction"], 33); // 96,995 / 3,000 = 32.33
}
