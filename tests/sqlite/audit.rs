//! `clawtop audit` on a copy of host-f (OpenClaw 2026.9.6): its one auto-compaction audits
//! with 2026.9's boundary and required headings, and the copy is left as it was.

use super::common::*;
use super::support::cli::run_with;

#[test]
fn host_f_compaction_audits_without_error() {
    let h = HostF::new();
    let state = h.state();
    let before = (snapshot(&state), contents(&state));
    let o = run_with(
        h.root(),
        &[
            "--state-dir",
            state.to_str().unwrap(),
            "audit",
            "agent:main:incident-7",
            "--json",
        ],
        &[],
    );
    o.expect(0);
    let v = o.json();
    assert_eq!(v["boundary"], "openclaw-2026.9");
    assert_eq!(v["totals"]["compactions"], 1);
    let c = &v["compactions"][0];
    assert_eq!(
        c["firstKeptEntryId"],
        "ea58316f-53f3-49ad-a83c-135185957435"
    );
    // OpenClaw 2026.9.6 wrote it through its own guard: every heading is there.
    assert_eq!(c["missingSections"], serde_json::json!([]));
    assert_eq!(c["guard"]["verdict"], "pass");
    assert!(c["summaryChars"].as_u64().unwrap() <= 16_000);
    assert!(c["span"]["entries"].as_u64().unwrap() > 0);
    assert_eq!(c["droppedUnsummarized"]["messages"], 0);
    assert_eq!(before, (snapshot(&state), contents(&state)));
}
