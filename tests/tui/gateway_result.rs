//! The Compact dialog through OpenClaw's Gateway, headless (issue 17 item 6): Ctrl-G asks
//! before anything is sent, and a compaction OpenClaw ran is shown read-only (what it wrote,
//! one key to close), never as a draft to commit, regenerate or discard.

use crate::support::cli::Home;
use crate::support::tui::*;
use clawtop::gateway::{CompactOutcome, SessionRow};
use clawtop::tui::action::Action;
use clawtop::tui::dialog::{GenFailure, Phase};
use clawtop::tui::effects::{Effect, EffectCtx, drive, drive_collect};
use clawtop::tui::state::AppState;
use clawtop::usecase::gateway_compact::{GatewayCompaction, GatewayReport, Written};
use crossterm::event::KeyCode;
use insta::assert_snapshot;

const SMALL: (u16, u16) = (80, 24);

fn row(total: u64) -> SessionRow {
    SessionRow {
        key: "agent:main:main".into(),
        agent_id: Some("main".into()),
        session_id: None,
        display_name: None,
        updated_at: None,
        total_tokens: Some(total),
        total_tokens_fresh: Some(true),
        context_tokens: Some(48_000),
        input_tokens: None,
        output_tokens: None,
        model: None,
        has_active_run: Some(false),
        status: None,
    }
}

fn report(summary: Option<&str>) -> Box<GatewayReport> {
    Box::new(GatewayReport {
        compaction: GatewayCompaction {
            before: row(37_946),
            after: row(15_042),
            outcome: CompactOutcome::Compacted {
                summary: None,
                tokens_before: None,
                tokens_after: None,
                notice: Some("⚙️ Compacted (38k → 15k) • Context 15k/48k (31%)".into()),
            },
        },
        written: Written {
            summary: summary.map(str::to_string),
            summary_from: "read back from the session's new compaction entry on the host".into(),
            tokens_before: Some(37_946),
            tokens_after: Some(15_042),
            compaction_count_before: Some(12),
            compaction_count: Some(13),
        },
    })
}

/// The gateway Compact dialog (`C`) on a host-a copy whose gateway is said to run on 18789
/// (nothing listens: no effect is run here, the tests answer them).
fn open() -> (Home, AppState, EffectCtx) {
    let h = Home::host_a();
    h.set_gateway("18789", "result-test-token-0123456789");
    let host = crate::support::open_host(h.state());
    let (mut state, ctx) = host_app(clawtop::source::for_host(host), SMALL);
    state.sessions.running_gateway = Some(18789);
    drive(&mut state, &ctx, Action::OpenCompactViaGateway);
    assert!(state.dialog.is_some(), "{}", screen(&state));
    (h, state, ctx)
}

/// Ctrl-G, then `y`: the one gateway effect's dialog and generation ids.
fn send(state: &mut AppState, ctx: &EffectCtx) -> (u64, u64) {
    let (_, pending) = drive_collect(state, ctx, ctrl('g'));
    assert!(pending.is_empty(), "nothing sent before the confirmation");
    let (_, mut pending) = drive_collect(state, ctx, ch('y'));
    match pending.pop() {
        Some(Effect::GatewayCompact {
            dialog, generation, ..
        }) => (dialog, generation),
        other => panic!("one gateway effect, got {other:?}"),
    }
}

#[test]
fn ctrl_g_asks_before_it_sends() {
    let (_h, mut state, ctx) = open();
    type_str(&mut state, &ctx, "Keep ticket QK-58.");
    let (ran, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
    assert!(pending.is_empty() && !ran.iter().any(|e| e.contains("GatewayCompact")));
    let d = state.dialog.as_ref().unwrap();
    assert!(
        d.confirm.is_some(),
        "a confirmation carries the pending send"
    );
    let s = screen(&state);
    assert!(
        s.contains("Send this compaction to OpenClaw?") && s.contains("/compact with your"),
        "{s}"
    );
    assert_snapshot!("gateway_send_confirm_80x24", s);
    // n: back to the instructions, nothing sent, text kept.
    let (_, pending) = drive_collect(&mut state, &ctx, ch('n'));
    assert!(pending.is_empty());
    let d = state.dialog.as_ref().unwrap();
    assert!(d.confirm.is_none() && d.phase == Phase::Edit);
    assert_eq!(d.instructions_text().as_deref(), Some("Keep ticket QK-58."));
    // Again, y: sent with the instructions.
    drive(&mut state, &ctx, ctrl('g'));
    let (_, mut pending) = drive_collect(&mut state, &ctx, ch('y'));
    match pending.pop() {
        Some(Effect::GatewayCompact { job, .. }) => {
            assert_eq!(job.instructions.as_deref(), Some("Keep ticket QK-58."))
        }
        other => panic!("one gateway effect, got {other:?}"),
    }
}

#[test]
fn result_is_read_only_with_one_key_to_close() {
    let (_h, mut state, ctx) = open();
    let (dialog, generation) = send(&mut state, &ctx);
    let summary =
        "## Decisions\nFAKE-SUMMARY 18: keep the DR drill on Friday.\n## Open TODOs\n- QK-58";
    let ran = drive(
        &mut state,
        &ctx,
        Action::GatewayDone {
            dialog,
            generation,
            result: Ok(report(Some(summary))),
        },
    );
    assert!(
        ran.iter().any(|e| e.contains("LoadSessions")),
        "the list follows what OpenClaw changed: {ran:?}"
    );
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.phase, Phase::Done);
    let s = screen(&state);
    for want in [
        "tokensBefore 37,946 → tokensAfter 15,042",
        "compactionCount 12 → 13",
        "FAKE-SUMMARY 18",
        "read-only",
        "saved on the host",
    ] {
        assert!(s.contains(want), "{want:?} missing:\n{s}");
    }
    for never in ["Commit", "Regenerate", "Discard", "editable"] {
        assert!(!s.contains(never), "{never:?} shown:\n{s}");
    }
    assert_snapshot!("gateway_result_80x24", s);

    // Typing does not edit it; Ctrl-O commits nothing.
    type_str(&mut state, &ctx, "xyz");
    drive(&mut state, &ctx, ctrl('o'));
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.phase, Phase::Done);
    assert!(d.confirm.is_none());
    assert_eq!(
        d.result.as_ref().unwrap().written.summary.as_deref(),
        Some(summary)
    );
    assert!(screen(&state).contains("FAKE-SUMMARY 18"));

    // One key closes; it does not say anything was discarded.
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert!(state.dialog.is_none());
    let info = state.status.info.clone().unwrap_or_default();
    assert!(
        info.contains("saved on the host") && !info.contains("discarded"),
        "{info}"
    );
}

#[test]
fn result_with_an_unknown_summary_says_why() {
    let (_h, mut state, ctx) = open();
    let (dialog, generation) = send(&mut state, &ctx);
    let mut r = report(None);
    r.written.summary_from = "unknown: OpenClaw's gateway returns no summary for /compact".into();
    r.written.compaction_count_before = None;
    r.written.compaction_count = None;
    drive(
        &mut state,
        &ctx,
        Action::GatewayDone {
            dialog,
            generation,
            result: Ok(r),
        },
    );
    let s = screen(&state);
    assert!(
        s.contains("unknown: OpenClaw's gateway returns no summary")
            && s.contains("compactionCount unknown"),
        "{s}"
    );
    drive(&mut state, &ctx, ch('q'));
    assert!(state.dialog.is_none());
}

/// A compaction OpenClaw skipped is not a result: the dialog stays on the instructions with
/// OpenClaw's reason.
#[test]
fn skipped_compaction_is_an_error_not_a_result() {
    let (_h, mut state, ctx) = open();
    type_str(&mut state, &ctx, "Keep QK-1.");
    let (dialog, generation) = send(&mut state, &ctx);
    drive(
        &mut state,
        &ctx,
        Action::GatewayDone {
            dialog,
            generation,
            result: Err(GenFailure::Failed(
                "OpenClaw did not compact the session: Already compacted".into(),
            )),
        },
    );
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.phase, Phase::Edit);
    assert_eq!(d.instructions_text().as_deref(), Some("Keep QK-1."));
    assert!(
        screen(&state).contains("Already compacted"),
        "{}",
        screen(&state)
    );
}
