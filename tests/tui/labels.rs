//! Labels that say what is true (issue 17 item 10): `c` on a session without a transcript,
//! the demo, keys on the dialog's buttons that must not lose typed text.

use crate::support::tui::*;
use clawtop::tui::action::Action;
use clawtop::tui::dialog::{Focus, Generated, Phase};
use clawtop::tui::effects::{Effect, drive, drive_collect};
use clawtop::tui::keymap::Mode;
use clawtop::tui::state::Screen;
use crossterm::event::KeyCode;

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
            }),
        },
    );
    type_str(&mut state, &ctx, "EDIT ");
    let edited = clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview);
    assert!(edited.contains("EDIT"), "{edited}");
    // Ctrl-G (regenerate) asks; n keeps the edit.
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
