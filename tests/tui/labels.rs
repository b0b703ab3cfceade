//! Labels that say what is true (issue 17 item 10): `c` on a session without a transcript,
//! the demo, keys on the dialog's buttons that must not lose typed text.

use crate::support::tui::*;
use clawtop::tui::action::Action;
use clawtop::tui::dialog::{Focus, Generated, Phase};
use clawtop::tui::effects::{Effect, drive, drive_collect};
use clawtop::tui::keymap::Mode;
use clawtop::tui::state::Screen;
use crossterm::event::KeyCode;
use insta::assert_snapshot;

const SMALL: (u16, u16) = (80, 24);

/// A real session whose transcript is gone: `c` says that, not "demo data".
#[test]
fn c_without_a_transcript_says_so() {
    let (_dir, t, host) = host_a_host(None);
    std::fs::remove_file(&t).unwrap();
    let (mut state, ctx) = host_app(host, SMALL);
    drive(&mut state, &ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
    let (_, pending) = drive_collect(&mut state, &ctx, ch('c'));
    assert!(pending.is_empty() && state.dialog.is_none());
    let info = state.status.info.clone().unwrap_or_default();
    assert!(
        info.contains("No transcript for agent:main:main") && !info.contains("demo"),
        "{info}"
    );
    // Issue 33 item 1: whole at 80×24 (it was cut at "nothing to compact here …").
    let s = screen(&state).replace(&_dir.path().display().to_string(), "<host>");
    assert_whole_with_help(&s, &info);
    assert_snapshot!("status_no_transcript_80x24", s);
}

/// The demo's rows have no session: `c` says it is the demo.
#[test]
fn c_on_the_demo_says_demo() {
    let (mut state, ctx) = start(
        clawtop::tui::TuiLaunch {
            demo: true,
            ..Default::default()
        },
        SMALL,
    );
    drive(&mut state, &ctx, key(KeyCode::Enter));
    drive(&mut state, &ctx, ch('c'));
    let info = state.status.info.clone().unwrap_or_default();
    assert!(info.contains("demo row"), "{info}");
}

/// Space on the buttons is text, not a press: the operator who typed it meant the text, so
/// it goes there (focus back) and nothing runs; Enter presses the selected button.
#[test]
fn space_on_a_button_types_into_the_text_and_enter_presses() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    drive(&mut state, &ctx, key(KeyCode::Enter));
    drive(&mut state, &ctx, ch('c'));
    type_str(&mut state, &ctx, "keep PR 12");
    while state.mode() != Mode::DialogButtons {
        drive(&mut state, &ctx, key(KeyCode::Tab));
    }
    let (ran, pending) = drive_collect(&mut state, &ctx, ch(' '));
    assert!(
        pending.is_empty() && !ran.iter().any(|e| e.contains("Generate")),
        "Space ran {ran:?}"
    );
    type_str(&mut state, &ctx, "and 13");
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.focus, Focus::Text);
    assert_eq!(d.instructions_text().as_deref(), Some("keep PR 12 and 13"));
    // Enter on the selected button (Generate) presses it.
    while state.mode() != Mode::DialogButtons {
        drive(&mut state, &ctx, key(KeyCode::Tab));
    }
    skip_due_flush(&mut state, &ctx);
    let (_, pending) = drive_collect(&mut state, &ctx, key(KeyCode::Enter));
    assert!(
        matches!(pending.as_slice(), [Effect::Generate { .. }]),
        "{pending:?}"
    );
}

/// Regenerate and Discard of an edited preview ask first, whatever key pressed them: typed
/// text is never thrown away silently.
#[test]
fn regenerate_or_discard_of_an_edited_preview_asks_first() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    drive(&mut state, &ctx, key(KeyCode::Enter));
    drive(&mut state, &ctx, ch('c'));
    skip_due_flush(&mut state, &ctx);
    let (_, mut pending) = drive_collect(&mut state, &ctx, ctrl('g'));
    let Some(Effect::Generate {
        dialog, generation, ..
    }) = pending.pop()
    else {
        panic!("a generation")
    };
    drive(
        &mut state,
        &ctx,
        Action::GenDone {
            dialog,
            generation,
            result: Ok(Generated {
                text: "summary".into(),
                calls: 1,
                warnings: vec![],
                no_reply: false,
                current: None,
                audit: None,
            }),
        },
    );
    type_str(&mut state, &ctx, "EDIT ");
    let edited = clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview);
    assert!(edited.contains("EDIT"), "{edited}");
    // Ctrl-G (regenerate) asks; n keeps the edit.
    skip_due_flush(&mut state, &ctx);
    drive(&mut state, &ctx, ctrl('g'));
    assert_eq!(state.mode(), Mode::AskDiscard);
    assert!(screen(&state).contains("Regenerating throws the edits away"));
    drive(&mut state, &ctx, ch('n'));
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.phase, Phase::Preview);
    assert_eq!(clawtop::tui::dialog::text_of(&d.preview), edited);
    // d on the buttons asks too; y discards.
    drive(&mut state, &ctx, key(KeyCode::Tab));
    drive(&mut state, &ctx, ch('d'));
    assert_eq!(state.mode(), Mode::AskDiscard);
    assert!(state.dialog.is_some());
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none());
}

/// The Compact dialog on a compact-due session whose own keepRecentTokens (100,000 in its
/// config) leaves nothing to summarize (host-a up to just before its compaction: since SPEC
/// §6.1 a plan after a compaction always summarizes what that compaction kept): the reason in
/// plain words leads (no path, wrapped, not cut), the diagnosis's suggested keepRecentTokens
/// is prefilled, and the plan it gives is shown, ready to generate.
#[test]
fn compact_dialog_without_a_plan_prefills_the_suggestion() {
    let (dir, t) = host_a();
    let text = std::fs::read_to_string(&t).unwrap();
    let before: Vec<&str> = text
        .lines()
        .take_while(|l| !l.contains("\"type\":\"compaction\""))
        .collect();
    std::fs::write(&t, before.join("\n") + "\n").unwrap();
    let cfg = dir.path().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        r#"compaction: { mode: "safeguard" }"#,
        r#"compaction: { mode: "safeguard", keepRecentTokens: 100000 }"#,
    );
    assert!(
        text.contains("keepRecentTokens: 100000"),
        "host-a config changed shape"
    );
    std::fs::write(&cfg, text).unwrap();
    let opts = clawtop::store::Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).unwrap();
    let (mut state, ctx) = host_app(clawtop::source::for_host(host), SMALL);
    drive(&mut state, &ctx, key(KeyCode::Enter));
    let suggested = state
        .session
        .as_ref()
        .and_then(|v| v.loaded.as_ref())
        .and_then(|l| l.diagnosis.as_ref())
        .and_then(|d| d.suggested_keep_recent_tokens)
        .expect("the diagnosis suggests a keepRecentTokens for host-a");
    drive(&mut state, &ctx, ch('c'));
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.keep, Some(suggested), "prefilled");
    let Some(clawtop::tui::dialog::Prep::Compact(c)) = &d.prep else {
        panic!("the plan for the suggestion: {:?}", d.prep_error)
    };
    assert_eq!(c.keep_recent_tokens, suggested);
    let s = screen(&state);
    let dir_text = dir.path().display().to_string();
    assert!(!s.contains(&dir_text) && !s.contains(".jsonl"), "{s}");
    assert!(
        !s.contains("too small") && !s.contains("keepRecentTokens ?"),
        "{s}"
    );
    assert!(
        s.lines()
            .nth(1)
            .is_some_and(|l| l.contains("Nothing to summarize at keepRecentTokens 100,000")),
        "the reason leads: {s}"
    );
    assert_snapshot!("compact_no_plan_80x24", s);
}

/// Why there is no plan, in words: the reason first, the file's name (not its path) after it.
#[test]
fn no_plan_reason_leads_with_the_reason() {
    use clawtop::plan::NoPlan;
    use clawtop::tui::update::dialog::no_plan_reason;
    use clawtop::usecase::Problem;
    let no_plan = |reason| Problem::NoPlan {
        transcript: "/a/b/s1.jsonl".into(),
        reason,
    };
    assert_eq!(
        no_plan_reason(&no_plan(NoPlan::TooSmall), 20_000),
        "Nothing to summarize at keepRecentTokens 20,000: it would keep every message a compaction could summarize."
    );
    assert_eq!(
        no_plan_reason(&no_plan(NoPlan::AlreadyCompacted), 20_000),
        "already compacted: the last entry of the branch is a compaction (s1.jsonl)"
    );
    // The CLI's words for the same problem: the path, then the reason.
    assert_eq!(
        no_plan(NoPlan::TooSmall).to_string(),
        "/a/b/s1.jsonl: nothing to compact (session too small)"
    );
    assert_eq!(no_plan(NoPlan::TooSmall).exit_code(), 1);
}
