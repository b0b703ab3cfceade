use super::*;
use serde_json::json;

fn line(v: Value) -> String {
    v.to_string()
}

fn msg(id: &str, parent: &str, role: &str, text: &str) -> String {
    line(json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}}))
}

fn compaction(id: &str, parent: &str, first_kept: &str, summary: &str) -> String {
    line(json!({"type": "compaction", "id": id, "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z", "summary": summary,
        "firstKeptEntryId": first_kept, "tokensBefore": 100}))
}

/// Two compactions: the second one's summary saw only what came after the first (pi).
fn two_compactions() -> Transcript {
    let lines = two_compaction_lines();
    Transcript::from_bytes("t.jsonl", (lines.join("\n") + "\n").into_bytes())
}

fn two_compaction_lines() -> Vec<String> {
    vec![
        line(
            json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}),
        ),
        msg(
            "u1",
            "",
            "user",
            "deploy https://ci.example.com/job/77 please",
        ),
        msg("a1", "u1", "assistant", "wrote /srv/app/one.yaml"),
        msg("u2", "a1", "user", "check db.internal:5432"),
        msg("a2", "u2", "assistant", "commit DEADBEEF01 ok"),
        compaction(
            "c1",
            "a2",
            "u2",
            "Deployed https://ci.example.com/job/77; wrote /srv/app/one.yaml",
        ),
        msg("u3", "c1", "user", "ticket INC-123456 and deadbeef01"),
        msg("a3", "u3", "assistant", "noted /srv/app/two.yaml"),
        msg("u4", "a3", "user", "next"),
        compaction(
            "c2",
            "u4",
            "u4",
            "INC-123456 done; see /opt/made/up and DEADBEEF01",
        ),
    ]
}

fn values(h: &[Held]) -> Vec<(&str, &str)> {
    h.iter()
        .map(|h| (h.value.as_str(), h.entry_id.as_str()))
        .collect()
}

#[test]
fn pi_boundary_drops_what_the_previous_compaction_kept() {
    let t = two_compactions();
    let host = HostFacts {
        rules: Rules::V2026_2,
        summaries_unreadable: None,
    };
    let a = audit_transcript(&t, &host);
    assert_eq!(a.compactions.len(), 2);
    let c1 = &a.compactions[0];
    let ids = c1.identifiers.as_ref().unwrap();
    assert_eq!(
        values(&ids.kept),
        [
            ("https://ci.example.com/job/77", "u1"),
            ("/srv/app/one.yaml", "a1")
        ]
    );
    assert!(ids.lost.is_empty() && ids.still_in_kept.is_empty() && ids.invented.is_empty());
    assert_eq!(c1.span.entries, 2);
    assert_eq!(c1.missing_sections, None);
    let c2 = &a.compactions[1];
    assert_eq!(c2.dropped_unsummarized.entry_ids, ["u2", "a2"]);
    let ids = c2.identifiers.as_ref().unwrap();
    // c1's summary and u3..a3 are the span; u2/a2 (db.internal:5432) were never summarized.
    assert_eq!(
        values(&ids.kept),
        [("INC-123456", "u3"), ("DEADBEEF01", "u3")]
    );
    assert_eq!(
        values(&ids.lost),
        [
            ("https://ci.example.com/job/77", "c1"),
            ("/srv/app/one.yaml", "c1"),
            ("/srv/app/two.yaml", "a3")
        ]
    );
    assert_eq!(ids.invented, ["/opt/made/up"]);
    assert_eq!(a.totals.identifiers_lost, 3);
    assert_eq!(a.totals.messages_dropped_unsummarized, 2);
    assert_eq!(c2.guard.verdict, Verdict::Fail);
}

#[test]
fn openclaw_2026_9_boundary_summarizes_them() {
    let t = two_compactions();
    let host = HostFacts {
        rules: Rules::V2026_9,
        summaries_unreadable: None,
    };
    let a = audit_transcript(&t, &host);
    let c2 = &a.compactions[1];
    assert_eq!(c2.dropped_unsummarized.messages, 0);
    assert_eq!(c2.span.entries, 4);
    let lost = values(&c2.identifiers.as_ref().unwrap().lost);
    assert!(lost.contains(&("db.internal:5432", "u2")), "{lost:?}");
    assert_eq!(c2.missing_sections.as_ref().unwrap().len(), 5);
}

#[test]
fn unreadable_summaries_are_unknown() {
    let t = two_compactions();
    let host = HostFacts {
        rules: Rules::V2026_9,
        summaries_unreadable: Some("not exposed by the gateway".into()),
    };
    let a = audit_transcript(&t, &host);
    assert_eq!(a.totals.unknown, 2);
    assert!(
        a.compactions
            .iter()
            .all(|c| c.identifiers.is_none() && c.guard.verdict == Verdict::Unknown)
    );
    assert!(
        a.compactions[0]
            .unknown
            .as_deref()
            .unwrap()
            .contains("gateway")
    );
}

#[test]
fn latest_only_agrees_with_the_full_audit() {
    let t = two_compactions();
    for rules in [Rules::V2026_2, Rules::V2026_9] {
        let host = HostFacts {
            rules,
            summaries_unreadable: None,
        };
        let full = audit_transcript(&t, &host);
        let latest = audit_latest(&t, &host).unwrap();
        assert_eq!(latest, Loss::of(full.latest().unwrap()));
        assert!(latest.is_lossy());
    }
}

/// A list row's audit works out only what its loss reads (`Scope::LatestLoss`): on every
/// fixture transcript, under either host's rules and with summaries readable or not, that loss
/// is the one the full audit gives of the latest compaction.
#[test]
fn the_latest_loss_alone_is_the_full_audits_on_every_fixture() {
    let mut compacted = 0;
    for path in crate::transcript::fixture_transcripts() {
        let t = Transcript::open(&path).unwrap();
        for rules in [Rules::V2026_2, Rules::V2026_9] {
            for summaries_unreadable in [None, Some("not exposed by the gateway".to_string())] {
                let host = HostFacts {
                    rules,
                    summaries_unreadable,
                };
                let full = audit_transcript(&t, &host);
                let latest = audit_latest(&t, &host);
                assert_eq!(latest, full.latest().map(Loss::of), "{}", path.display());
                compacted += usize::from(latest.is_some());
            }
        }
    }
    // Compacted fixtures exist (real OpenClaw and pi files, clawtop's edge cases): each counted
    // under the four hosts.
    assert!(compacted >= 4 * 6, "{compacted}");
}

/// `two_compactions` with c2 carrying `details`, and c2's firstKeptEntryId `first_kept`.
fn two_compactions_with(details: Value, first_kept: &str) -> Transcript {
    let mut lines = two_compaction_lines();
    let mut c2: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    c2["details"] = details;
    c2["firstKeptEntryId"] = first_kept.into();
    *lines.last_mut().unwrap() = c2.to_string();
    Transcript::from_bytes("t.jsonl", (lines.join("\n") + "\n").into_bytes())
}

#[test]
fn clawtop_record_gives_2026_9_boundary_on_a_2026_2_host() {
    let record = json!({"readFiles": [], "modifiedFiles": [],
        crate::plan::RECORD_KEY: crate::plan::record_value(20000)});
    let t = two_compactions_with(record, "u4");
    let host = HostFacts {
        rules: Rules::V2026_2,
        summaries_unreadable: None,
    };
    let a = audit_transcript(&t, &host);
    let c2 = &a.compactions[1];
    assert_eq!(c2.boundary, Boundary::PreviousFirstKept);
    assert_eq!(c2.dropped_unsummarized, Dropped::default());
    // u2/a2 are in its span: db.internal:5432 is lost by the summary, not dropped.
    assert_eq!(c2.span.entries, 4);
    assert_eq!(a.totals.messages_dropped_unsummarized, 0);
    // The first compaction (no previous one) is judged as before.
    assert_eq!(a.compactions[0].boundary, Boundary::AfterPrevious);
}

#[test]
fn a_cut_pi_cannot_make_without_a_record_is_unknown_not_a_loss() {
    // c2 keeps from a2, before c1: pi 0.55.1 only cuts after the previous compaction.
    let t = two_compactions_with(json!({"readFiles": [], "modifiedFiles": []}), "a2");
    let host = HostFacts {
        rules: Rules::V2026_2,
        summaries_unreadable: None,
    };
    let a = audit_transcript(&t, &host);
    let c2 = &a.compactions[1];
    assert_eq!(c2.boundary, Boundary::Unknown);
    assert_eq!(c2.dropped_unsummarized.messages, 0);
    assert!(c2.dropped_unsummarized.unknown.is_some());
    assert_eq!(a.totals.dropped_unknown, 1);
    let loss = audit_latest(&t, &host).unwrap();
    assert_eq!(loss.messages_dropped_unsummarized, 0);
    // Without a record, a cut after c1 on a 2026.2 host is pi's: u2/a2 dropped.
    let t = two_compactions_with(json!({}), "u4");
    let a = audit_transcript(&t, &host);
    assert_eq!(a.compactions[1].boundary, Boundary::AfterPrevious);
    assert_eq!(a.compactions[1].dropped_unsummarized.messages, 2);
}

/// Issue 33 item 8: many compactions all keeping from one early entry. Each keeps the same
/// early messages, so the kept range of each is as long as the branch before it: the audit
/// holds each as a range (not a list of positions) and reads each entry a bounded number of
/// times; here the results, `bench/run.sh` the time and memory of 20,000.
#[test]
fn many_compactions_keeping_from_an_early_entry() {
    let n = 2_000;
    let mut lines = vec![
        line(
            json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}),
        ),
        msg("m0", "", "user", "start"),
        msg("m1", "m0", "assistant", "kept /srv/keep/one"),
    ];
    let mut parent = "m1".to_string();
    for k in 0..n {
        let (u, c) = (format!("u{k}"), format!("c{k}"));
        lines.push(msg(&u, &parent, "user", &format!("turn about /srv/t{k}/x")));
        lines.push(compaction(
            &c,
            &u,
            "m1",
            &format!("summary {k} of /srv/keep/one"),
        ));
        parent = c;
    }
    let t = Transcript::from_bytes("t.jsonl", (lines.join("\n") + "\n").into_bytes());
    for rules in [Rules::V2026_2, Rules::V2026_9] {
        let a = audit_transcript(
            &t,
            &HostFacts {
                rules,
                summaries_unreadable: None,
            },
        );
        assert_eq!(a.totals.compactions, n);
        // pi's boundary: each summarized nothing (its span starts after the previous one,
        // past its own first kept entry) and kept m1 and every later message but compactions.
        let last = a.compactions.last().unwrap();
        assert_eq!(last.first_kept_entry_id.as_deref(), Some("m1"));
        assert_eq!(a.totals.unknown, 0);
        if rules == Rules::V2026_2 {
            assert_eq!(last.span.entries, 0);
            assert_eq!(a.totals.messages_dropped_unsummarized, 0);
        }
    }
}
