//! clawtop's figures against pi's own code (the oracle), on every fixture transcript.
//!
//! `node interop/pi_figures.mjs` runs pi-coding-agent 0.55.1 (installed by `.ci/run` with
//! `npm ci --prefix interop`) on copies of the files. Positions are compared by index, since
//! pi invents random ids for v1 files. This test fails (it does not skip) when pi is missing.

use clawtop::context;
use clawtop::plan;
use clawtop::tokens::{self, MessageView};
use clawtop::transcript::Transcript;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::fixtures;

const KEEPS: [u64; 5] = [2000, 8000, 20000, 50000, 100000];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        fixtures::fixture(fixtures::PI),
        fixtures::fixture(fixtures::HOST_A_SESSIONS),
        fixtures::fixture(fixtures::TRANSCRIPTS),
    ] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("fixtures missing at {}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        v.sort();
        files.extend(v);
    }
    assert!(
        files.len() >= 10,
        "expected the pi, host-a and edge-case fixtures, found {}",
        files.len()
    );
    files
}

fn pi_figures(files: &[PathBuf]) -> Value {
    let keeps = KEEPS
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let out = Command::new("node")
        .arg(root().join("interop/pi_figures.mjs"))
        .arg("--keep")
        .arg(&keeps)
        .args(files)
        .output()
        .expect("node is required for the pi interop test (Node 20+)");
    assert!(
        out.status.success(),
        "pi oracle failed (run `npm ci --prefix interop` first, as .ci/run does): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("pi oracle printed JSON")
}

fn opt_u64(v: &Value) -> Option<u64> {
    v.as_u64()
}

fn check_file(path: &Path, pi: &Value, errors: &mut Vec<String>) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut err = |what: String| errors.push(format!("{name}: {what}"));
    let t = Transcript::open(path).unwrap();
    let before = std::fs::read(path).unwrap();

    if pi["entries"].as_u64() != Some(t.len() as u64) {
        err(format!("entries: pi {} clawtop {}", pi["entries"], t.len()));
        return;
    }
    if pi["leafIndex"].as_u64() != t.leaf().map(u64::from) {
        err(format!(
            "leaf: pi {} clawtop {:?}",
            pi["leafIndex"],
            t.leaf()
        ));
    }
    let branch: Vec<u64> = t.active_branch().into_iter().map(u64::from).collect();
    let pi_branch: Vec<u64> = pi["branch"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    if branch != pi_branch {
        err(format!("branch: pi {pi_branch:?} clawtop {branch:?}"));
    }
    for rec in pi["perEntry"].as_array().unwrap() {
        let i = rec["index"].as_u64().unwrap() as u32;
        let kind = t.entries[i as usize].kind;
        let ours = if tokens::kind_yields_message(kind, MessageView::Compaction) {
            Some(tokens::estimate_entry(&t, i, MessageView::Compaction))
        } else {
            None
        };
        if opt_u64(&rec["estimate"]) != ours {
            err(format!(
                "entry {i} ({}) estimate: pi {} clawtop {ours:?}",
                rec["type"], rec["estimate"]
            ));
        }
    }
    // The context the model sees and its token figures.
    let ctx = context::build(&t, t.leaf());
    let msgs = context::messages(&t, &ctx);
    let pc = &pi["context"];
    if pc["messages"].as_u64() != Some(msgs.len() as u64) {
        err(format!(
            "context messages: pi {} clawtop {}",
            pc["messages"],
            msgs.len()
        ));
    }
    // Issue 8 item 2: clawtop's figure from the transcript is pi's estimateContextTokens of
    // the active branch's context, figure for figure (issue 17: as `used`'s transcript figure
    // whenever that usage is newer than the last compaction).
    let tc = clawtop::used::pi_estimate(&t);
    let facts = clawtop::used::facts(&t);
    if facts.context.basis == clawtop::used::Basis::Usage && facts.context.tokens != tc.tokens {
        err(format!(
            "transcript figure with a usage after the last compaction: pi {} clawtop {}",
            tc.tokens, facts.context.tokens
        ));
    }
    for (what, ours, theirs) in [
        ("tokens", tc.tokens, &pc["tokens"]),
        ("usageTokens", tc.usage_tokens, &pc["usageTokens"]),
        ("trailingTokens", tc.trailing_tokens, &pc["trailingTokens"]),
    ] {
        if theirs.as_u64() != Some(ours) {
            err(format!(
                "transcriptContext.{what}: pi {theirs} clawtop {ours}"
            ));
        }
    }
    if pc["lastUsageIndex"].is_null() != tc.entry_id.is_none() && t.version >= 2 {
        err(format!(
            "transcriptContext.entryId: pi lastUsageIndex {} clawtop {:?}",
            pc["lastUsageIndex"], tc.entry_id
        ));
    }
    let sum: u64 = msgs.iter().map(tokens::estimate_message).sum();
    if pc["estimateSum"].as_u64() != Some(sum) {
        err(format!(
            "context estimate sum: pi {} clawtop {sum}",
            pc["estimateSum"]
        ));
    }
    let full = tokens::estimate_context(&msgs);
    let lazy = context::estimate(&t, &ctx);
    if full != lazy {
        err(format!(
            "lazy context estimate {lazy:?} differs from full {full:?}"
        ));
    }
    for (k, ours) in [
        ("usageTokens", Some(full.usage_tokens)),
        ("trailingTokens", Some(full.trailing_tokens)),
        ("tokens", Some(full.tokens)),
    ] {
        if pc[k].as_u64() != ours {
            err(format!("context {k}: pi {} clawtop {ours:?}", pc[k]));
        }
    }
    if pc["lastUsageIndex"].as_u64() != full.last_usage_index.map(|x| x as u64) {
        err(format!(
            "lastUsageIndex: pi {} clawtop {:?}",
            pc["lastUsageIndex"], full.last_usage_index
        ));
    }
    if let Some(m) = pc["model"].as_object() {
        let want = (
            m["provider"].as_str().unwrap_or("").to_string(),
            m["modelId"].as_str().unwrap_or("").to_string(),
        );
        if ctx.model.as_ref() != Some(&want) {
            err(format!("model: pi {want:?} clawtop {:?}", ctx.model));
        }
    }
    if pc["thinkingLevel"].as_str() != Some(ctx.thinking_level.as_str()) {
        err(format!(
            "thinking level: pi {} clawtop {}",
            pc["thinkingLevel"], ctx.thinking_level
        ));
    }
    // pi's footer figure (null after a compaction until a newer usage exists).
    let usage = context::current_tokens(&t).map(|e| e.tokens);
    if let Some(pi_usage) = pi.get("sessionContextUsageTokens") {
        if pi_usage.as_u64().is_some() && pi_usage.as_u64() != usage && usage.is_some() {
            err(format!(
                "session context usage: pi {pi_usage} clawtop {usage:?}"
            ));
        }
        if pi_usage.is_null() && usage.is_some() {
            err(format!(
                "session context usage: pi null (unknown) clawtop {usage:?}"
            ));
        }
    }
    // The compaction plan at every keepRecentTokens value: pi's prepareCompaction with
    // OpenClaw 2026.9's range (SPEC §6.1; `rangePlans` in interop/pi_figures.mjs), figure for
    // figure, file lists included.
    for (k, pp) in KEEPS.iter().zip(pi["rangePlans"].as_array().unwrap()) {
        let ours = plan::prepare(&t, *k);
        // The TUI's "next cut" marker (a plan without its file lists) is this plan's cut.
        let marker = ours
            .as_ref()
            .ok()
            .filter(|p| !p.messages_to_summarize.is_empty() || !p.turn_prefix_messages.is_empty())
            .map(|p| p.first_kept_entry);
        if plan::next_cut_entry(&t, *k) != marker {
            err(format!(
                "keep {k}: next cut {:?}, the plan's {marker:?}",
                plan::next_cut_entry(&t, *k)
            ));
        }
        match (pp.is_null(), ours) {
            (true, Err(_)) => {}
            (true, Ok(p)) => err(format!(
                "keep {k}: pi has no plan, clawtop cuts at {}",
                p.first_kept_entry
            )),
            (false, Err(e)) => err(format!("keep {k}: pi plans, clawtop says {e}")),
            (false, Ok(p)) => {
                let turn_start = p.cut.turn_start.map(|s| p.path[s] as i64).unwrap_or(-1);
                let got = serde_json::json!({
                    "firstKeptIndex": p.first_kept_entry,
                    "firstKeptPathIndex": p.cut.first_kept,
                    "turnStartIndex": turn_start,
                    "isSplitTurn": p.cut.is_split_turn,
                    "tokensBefore": p.tokens_before,
                    "messagesToSummarize": p.messages_to_summarize.len(),
                    "turnPrefixMessages": p.turn_prefix_messages.len(),
                    "hasPreviousSummary": p.previous_summary.is_some(),
                    "readFiles": p.read_files,
                    "modifiedFiles": p.modified_files,
                });
                for (key, v) in got.as_object().unwrap() {
                    if &pp[key] != v {
                        err(format!("keep {k} {key}: pi {} clawtop {v}", pp[key]));
                    }
                }
                if t.version >= 2
                    && pp["firstKeptEntryId"].as_str() != t.entry_id(p.first_kept_entry).as_deref()
                {
                    err(format!(
                        "keep {k} firstKeptEntryId: pi {} clawtop {:?}",
                        pp["firstKeptEntryId"],
                        t.entry_id(p.first_kept_entry)
                    ));
                }
            }
        }
    }
    if pi["rangeStartPathIndex"].as_u64()
        != Some(plan::range_start_of(&t, &t.active_branch()) as u64)
    {
        err(format!(
            "range start: pi {} clawtop {}",
            pi["rangeStartPathIndex"],
            plan::range_start_of(&t, &t.active_branch())
        ));
    }
    assert_eq!(
        before,
        std::fs::read(path).unwrap(),
        "{name} was modified by reading it"
    );
}

#[test]
fn figures_equal_pi_on_every_fixture() {
    let files = fixture_files();
    let pi = pi_figures(&files);
    let results = pi["files"].as_array().expect("files array");
    assert_eq!(results.len(), files.len());
    let mut errors = Vec::new();
    for (path, rec) in files.iter().zip(results) {
        if let Some(e) = rec.get("error") {
            errors.push(format!("{}: pi failed: {e}", path.display()));
            continue;
        }
        check_file(path, rec, &mut errors);
    }
    assert!(
        errors.is_empty(),
        "{} mismatches with pi:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

/// `compact --dry-run --json` (the CLI, through the use case the commit uses) plans what pi's
/// prepareCompaction plans with OpenClaw 2026.9's range, on every fixture transcript and at
/// every keepRecentTokens: the same first kept entry (by index: pi invents ids for v1 files;
/// and by id on v2+), the same number of messages to summarize and of turn-prefix messages.
#[test]
fn dry_run_plans_as_pi_with_the_2026_9_range() {
    let files = fixture_files();
    let pi = pi_figures(&files);
    let results = pi["files"].as_array().expect("files array");
    let mut errors = Vec::new();
    let mut compared = 0;
    for (path, rec) in files.iter().zip(results) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Some(e) = rec.get("error") {
            errors.push(format!("{name}: pi failed: {e}"));
            continue;
        }
        let v2 = rec["originalVersion"].as_u64().is_some_and(|v| v >= 2);
        for (k, pp) in KEEPS.iter().zip(rec["rangePlans"].as_array().unwrap()) {
            let out = Command::new(env!("CARGO_BIN_EXE_clawtop"))
                .arg("compact")
                .arg(path)
                .args([
                    "--dry-run",
                    "--json",
                    "--keep-recent-tokens",
                    &k.to_string(),
                ])
                .env("HOME", std::env::temp_dir())
                .output()
                .unwrap();
            let ours: Option<Value> = out
                .status
                .success()
                .then(|| serde_json::from_slice(&out.stdout).unwrap());
            let ours = ours.filter(|o| {
                o["messagesToSummarize"].as_u64().unwrap_or(0)
                    + o["turnPrefixMessages"].as_u64().unwrap_or(0)
                    > 0
            });
            // pi plans where there is nothing to summarize (its compact() still calls the
            // model); clawtop refuses those ("nothing to compact").
            let pi_plan = Some(pp).filter(|p| {
                !p.is_null()
                    && p["messagesToSummarize"].as_u64().unwrap_or(0)
                        + p["turnPrefixMessages"].as_u64().unwrap_or(0)
                        > 0
            });
            match (pi_plan, ours) {
                (None, None) => {}
                (Some(_), None) => errors.push(format!(
                    "{name} keep {k}: pi plans, clawtop's dry run says {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )),
                (None, Some(o)) => errors.push(format!(
                    "{name} keep {k}: pi has nothing to summarize, clawtop keeps from {}",
                    o["firstKeptEntryId"]
                )),
                (Some(p), Some(o)) => {
                    compared += 1;
                    let mut pairs = vec![
                        ("firstKeptIndex", "firstKeptEntryIndex"),
                        ("messagesToSummarize", "messagesToSummarize"),
                        ("turnPrefixMessages", "turnPrefixMessages"),
                    ];
                    if v2 {
                        pairs.push(("firstKeptEntryId", "firstKeptEntryId"));
                    }
                    for (theirs, mine) in pairs {
                        if p[theirs] != o[mine] {
                            errors.push(format!(
                                "{name} keep {k} {mine}: pi {} clawtop {}",
                                p[theirs], o[mine]
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(compared >= 20, "only {compared} plans compared");
    assert!(
        errors.is_empty(),
        "{} mismatches with pi:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

/// host-a at keepRecentTokens 20,000: 2026.9's cut keeps from f9eefcdc and summarizes 5
/// messages plus a split-turn prefix of 1 (pi 0.55.1's range would keep from 0e49b72e).
#[test]
fn host_a_keeps_from_f9eefcdc() {
    let dir = fixtures::fixture(fixtures::HOST_A_SESSIONS);
    let file = dir.join("eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl");
    let t = Transcript::open(&file).unwrap();
    let p = plan::prepare(&t, 20_000).unwrap();
    assert_eq!(t.entry_id(p.first_kept_entry).as_deref(), Some("f9eefcdc"));
    assert_eq!(p.messages_to_summarize.len(), 5);
    assert_eq!(p.turn_prefix_messages.len(), 1);
    assert!(p.cut.is_split_turn);
    let pi = pi_figures(&[file]);
    let rec = &pi["files"][0];
    assert_eq!(rec["rangePlans"][2]["firstKeptEntryId"], "f9eefcdc");
    assert_eq!(rec["plans"][2]["firstKeptEntryId"], "0e49b72e");
}
