//! Issue 9 (dialog bullets) and issue 8 item 4 (keepRecentTokens typed in the Compact
//! dialog), headless: Esc asks before it throws edited text away, the editors' undo/redo,
//! `$EDITOR` through the effect (EDITOR is a small script that rewrites the file), and the
//! typed keepRecentTokens field re-planning as the operator types.

use crate::support::tui::*;
use clawtop::tui::action::Action;
use clawtop::tui::dialog::{KeepError, Phase, Prep, parse_keep, text_of};
use clawtop::tui::effects::{EffectCtx, drive, drive_collect};
use clawtop::tui::keymap::Mode;
use clawtop::tui::state::{AppState, Screen};
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use std::path::Path;
use std::sync::Arc;

const SMALL: (u16, u16) = (80, 24);
const BIG: (u16, u16) = (120, 40);

fn open_compact(state: &mut AppState, ctx: &EffectCtx) {
    drive(state, ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
    drive(state, ctx, ch('c'));
    assert_eq!(state.mode(), Mode::DialogEdit);
}

fn scrub(s: String, dir: &Path) -> String {
    s.replace(&dir.display().to_string(), "<host>")
}

fn generated(state: &mut AppState, ctx: &EffectCtx, text: &str) {
    skip_due_flush(state, ctx);
    let (_, pending) = drive_collect(state, ctx, ctrl('g'));
    let clawtop::tui::effects::Effect::Generate {
        dialog, generation, ..
    } = &pending[0]
    else {
        panic!("no generation")
    };
    let (dialog, generation) = (*dialog, *generation);
    drive(
        state,
        ctx,
        Action::GenDone {
            dialog,
            generation,
            result: Ok(clawtop::tui::dialog::Generated {
                text: text.into(),
                calls: 1,
                warnings: vec![],
                no_reply: false,
                current: None,
                audit: None,
            }),
        },
    );
    assert_eq!(state.mode(), Mode::DialogPreview);
}

/// A dialog with nothing typed closes on Esc at once; so does an unedited preview.
#[test]
fn esc_closes_an_untouched_dialog_at_once() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_compact(&mut state, &ctx);
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert!(state.dialog.is_none());
    assert_eq!(state.mode(), Mode::Session);
    // From the buttons too, and from the Flush dialog.
    drive(&mut state, &ctx, ch('f'));
    drive(&mut state, &ctx, key(KeyCode::Tab));
    assert_eq!(state.mode(), Mode::DialogModel);
    drive(&mut state, &ctx, key(KeyCode::Tab));
    assert_eq!(state.mode(), Mode::DialogButtons);
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert!(state.dialog.is_none());
    // Typing then undoing back to nothing is nothing typed.
    drive(&mut state, &ctx, ch('c'));
    type_str(&mut state, &ctx, "x");
    drive(&mut state, &ctx, ctrl('u'));
    assert_eq!(state.dialog.as_ref().unwrap().instructions_text(), None);
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert!(state.dialog.is_none());
    // An unedited preview closes at once.
    drive(&mut state, &ctx, ch('c'));
    generated(&mut state, &ctx, "a summary");
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert!(state.dialog.is_none());
}

/// An edited preview asks first; the question shows at 80×24; n keeps the edit.
#[test]
fn esc_on_an_edited_preview_asks_first() {
    let (dir, t, host) = host_a_host(None);
    let before = std::fs::read(&t).unwrap();
    let (mut state, ctx) = host_app(host, SMALL);
    open_compact(&mut state, &ctx);
    generated(&mut state, &ctx, "## Goal\nShip it.");
    type_str(&mut state, &ctx, "EDIT ");
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert_eq!(state.mode(), Mode::AskDiscard);
    let s = scrub(screen(&state), dir.path());
    assert!(s.contains("You edited the summary."), "{s}");
    assert!(
        s.contains("y discard and close · n/Esc keep editing"),
        "{s}"
    );
    assert_snapshot!("ask_discard_preview_80x24", s);
    // Esc answers "no": back to the preview with the edit.
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert_eq!(state.mode(), Mode::DialogPreview);
    assert_eq!(
        text_of(&state.dialog.as_ref().unwrap().preview),
        "EDIT ## Goal\nShip it."
    );
    // The commit confirmation still works as before (Ctrl-O asks, n goes back).
    drive(&mut state, &ctx, ctrl('o'));
    assert_eq!(state.mode(), Mode::Confirm);
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert_eq!(state.mode(), Mode::DialogPreview);
    drive(&mut state, &ctx, key(KeyCode::Esc));
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none());
    assert_eq!(std::fs::read(&t).unwrap(), before, "nothing written");
}

/// ratatui-textarea's history, bound in the keymap: Ctrl-U undo, Ctrl-R redo, in both editors.
#[test]
fn undo_and_redo_in_instructions_and_preview() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_compact(&mut state, &ctx);
    type_str(&mut state, &ctx, "abc");
    drive(&mut state, &ctx, ctrl('u'));
    let ins = |s: &AppState| s.dialog.as_ref().unwrap().instructions_text();
    assert_eq!(ins(&state).as_deref(), Some("ab"));
    drive(&mut state, &ctx, ctrl('u'));
    drive(&mut state, &ctx, ctrl('u'));
    assert_eq!(ins(&state), None);
    drive(&mut state, &ctx, ctrl('r'));
    drive(&mut state, &ctx, ctrl('r'));
    assert_eq!(ins(&state).as_deref(), Some("ab"));
    generated(&mut state, &ctx, "model text");
    type_str(&mut state, &ctx, "X");
    let pv = |s: &AppState| text_of(&s.dialog.as_ref().unwrap().preview);
    assert_eq!(pv(&state), "Xmodel text");
    drive(&mut state, &ctx, ctrl('u'));
    assert_eq!(pv(&state), "model text");
    drive(&mut state, &ctx, ctrl('r'));
    assert_eq!(pv(&state), "Xmodel text");
    // Documented in the keymap, so `?`/F1 help and the hints show them.
    let b = clawtop::tui::keymap::bindings();
    for (mode, action) in [
        (Mode::DialogEdit, "DialogUndo"),
        (Mode::DialogPreview, "DialogRedo"),
        (Mode::DialogEdit, "DialogExternalEdit"),
    ] {
        assert!(
            b.iter()
                .any(|x| x.mode == mode && format!("{:?}", x.action) == action),
            "{mode:?} {action}"
        );
    }
    assert!(screen(&state).contains("F1 help"));
}

/// A shell script standing in for the operator's editor.
fn editor_script(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    format!("sh {}", p.display())
}

fn with_env(ctx: &mut EffectCtx, vars: Vec<(&'static str, String)>) {
    ctx.env = Some(Arc::new(move |k: &str| {
        vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
    }));
}

/// Ctrl-T hands the text to `$EDITOR` through the effects layer; what it leaves in the file
/// comes back into the editor. The file is private (0600) and removed afterwards.
#[test]
fn external_editor_rewrites_instructions_and_preview() {
    let (dir, _t, host) = host_a_host(None);
    let scripts = tempfile::tempdir().unwrap();
    let seen = scripts.path().join("seen");
    // Records the file's mode, path and content, then rewrites it.
    let editor = editor_script(
        scripts.path(),
        "ed.sh",
        &format!(
            "stat -c %a \"$1\" > '{s}'; echo \"$1\" >> '{s}'; cat \"$1\" >> '{s}'\nprintf 'rewritten by the editor\\nsecond line\\n' > \"$1\"",
            s = seen.display()
        ),
    );
    let (mut state, mut ctx) = host_app(host, SMALL);
    // VISUAL wins over EDITOR.
    with_env(
        &mut ctx,
        vec![("VISUAL", editor), ("EDITOR", "false".into())],
    );
    open_compact(&mut state, &ctx);
    type_str(&mut state, &ctx, "typed first");
    let ran = drive(&mut state, &ctx, ctrl('t'));
    assert!(
        ran.iter()
            .any(|e| e.starts_with("ExternalEdit(Instructions")),
        "{ran:?}"
    );
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(
        d.instructions_text().as_deref(),
        Some("rewritten by the editor\nsecond line")
    );
    assert_eq!(d.error, None);
    let log = std::fs::read_to_string(&seen).unwrap();
    let mut lines = log.lines();
    assert_eq!(lines.next(), Some("600"), "the temp file is private");
    let path = lines.next().unwrap().to_string();
    assert_eq!(lines.next(), Some("typed first"), "the editor got the text");
    assert!(!Path::new(&path).exists(), "temp file removed: {path}");
    // One undo step brings the typed text back.
    drive(&mut state, &ctx, ctrl('u'));
    drive(&mut state, &ctx, ctrl('u'));
    assert_eq!(
        state
            .dialog
            .as_ref()
            .unwrap()
            .instructions_text()
            .as_deref(),
        Some("typed first")
    );
    drive(&mut state, &ctx, ctrl('r'));
    drive(&mut state, &ctx, ctrl('r'));
    // The preview too; and the edited text then counts as edited for Esc.
    generated(&mut state, &ctx, "model summary");
    let ran = drive(&mut state, &ctx, ctrl('t'));
    assert!(
        ran.iter().any(|e| e.starts_with("ExternalEdit(Preview")),
        "{ran:?}"
    );
    assert_eq!(
        text_of(&state.dialog.as_ref().unwrap().preview),
        "rewritten by the editor\nsecond line"
    );
    let _ = dir;
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert_eq!(state.mode(), Mode::AskDiscard);
}

/// A failing editor (non-zero exit, missing binary) leaves the text as it was and says why.
#[test]
fn failing_editor_leaves_the_text_unchanged() {
    let (_dir, _t, host) = host_a_host(None);
    let scripts = tempfile::tempdir().unwrap();
    let failing = editor_script(
        scripts.path(),
        "fail.sh",
        "printf 'half-written' > \"$1\"; exit 3",
    );
    let (mut state, mut ctx) = host_app(host, SMALL);
    with_env(&mut ctx, vec![("EDITOR", failing)]);
    open_compact(&mut state, &ctx);
    type_str(&mut state, &ctx, "keep me");
    drive(&mut state, &ctx, ctrl('t'));
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.instructions_text().as_deref(), Some("keep me"));
    let err = d.error.clone().unwrap_or_default();
    assert!(
        err.contains("exited with status 3") && err.contains("text is unchanged"),
        "{err}"
    );
    assert!(screen(&state).contains("exited with status 3"));
    // A missing binary.
    with_env(
        &mut ctx,
        vec![("EDITOR", "/nonexistent/clawtop-test-editor".into())],
    );
    drive(&mut state, &ctx, ctrl('t'));
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.instructions_text().as_deref(), Some("keep me"));
    let err = d.error.clone().unwrap_or_default();
    assert!(err.contains("not found"), "{err}");
}

#[test]
fn parse_keep_values() {
    assert_eq!(parse_keep("20000"), Ok(20_000));
    assert_eq!(parse_keep("20,000"), Ok(20_000));
    assert_eq!(parse_keep(" 20_000 "), Ok(20_000));
    assert_eq!(parse_keep("20k"), Ok(20_000));
    assert!(parse_keep("").is_err());
    assert!(parse_keep("0").is_err());
    assert_eq!(parse_keep("12a"), Err(KeepError::NotANumber));
    assert_eq!(parse_keep("0"), Err(KeepError::Zero));
    assert_eq!(parse_keep("20000k"), Err(KeepError::TooLarge));
    assert_eq!(KeepError::TooLarge.to_string(), "at most 10,000,000");
    assert!(parse_keep("-5").is_err());
    assert!(parse_keep("99999999999999999999999").is_err());
    assert!(parse_keep("20000k").is_err(), "beyond the maximum");
}

/// Issue 8 item 4: the operator types keepRecentTokens; the plan, the expected size and the
/// verdict follow each valid value; invalid text shows as invalid and blocks generation.
#[test]
fn typed_keep_recent_tokens_replans() {
    let (dir, _t, host) = host_a_host(None);
    for size in [SMALL, BIG] {
        let (mut state, ctx) = host_app(host.clone(), size);
        open_compact(&mut state, &ctx);
        let prep = |state: &AppState| match &state.dialog.as_ref().unwrap().prep {
            Some(Prep::Compact(c)) => c.clone(),
            _ => panic!("no compact plan"),
        };
        assert_eq!(prep(&state).keep_recent_tokens, 1000);
        drive(&mut state, &ctx, key(KeyCode::Tab));
        assert_eq!(state.mode(), Mode::DialogKeep);
        // Clear the field and type 3000: each valid value re-plans.
        for _ in 0..4 {
            drive(&mut state, &ctx, key(KeyCode::Backspace));
        }
        let d = state.dialog.as_ref().unwrap();
        assert!(d.keep_invalid.is_some(), "an empty field is not a value");
        let ran = drive(&mut state, &ctx, ch('3'));
        assert!(ran.iter().any(|e| e.starts_with("Prepare(Compact")));
        assert_eq!(prep(&state).keep_recent_tokens, 3);
        type_str(&mut state, &ctx, "000");
        let c = prep(&state);
        assert_eq!(c.keep_recent_tokens, 3000);
        let o = c.outlook.as_ref().expect("outlook at 3,000");
        assert!(o.expected_tokens_after.is_some());
        let s = scrub(screen(&state), dir.path());
        assert!(s.contains("keepRecentTokens [3000▏]: from"), "{s}");
        let name = if size == SMALL {
            "keep_field_80x24"
        } else {
            "keep_field_120x40"
        };
        assert_snapshot!(name, s);
        // A letter: shown as invalid, the last valid plan stays and says so; no new plan.
        let ran = drive(&mut state, &ctx, ch('x'));
        assert!(!ran.iter().any(|e| e.starts_with("Prepare")), "{ran:?}");
        let s = screen(&state);
        assert!(
            s.contains("[3000x▏] ✖ not a number; plan shown: 3,000"),
            "invalid shown: {s}"
        );
        // Generating is refused while the field is invalid.
        skip_due_flush(&mut state, &ctx);
        let (_, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
        assert!(pending.is_empty());
        let d = state.dialog.as_ref().unwrap();
        assert_eq!(d.phase, Phase::Edit);
        assert!(
            d.error
                .as_deref()
                .unwrap_or("")
                .starts_with("keepRecentTokens: not a number"),
            "{:?}",
            d.error
        );
        let name = if size == SMALL {
            "keep_field_invalid_80x24"
        } else {
            "keep_field_invalid_120x40"
        };
        assert_snapshot!(name, scrub(screen(&state), dir.path()));
        drive(&mut state, &ctx, key(KeyCode::Backspace));
        // + steps from the typed value and rewrites the field.
        drive(&mut state, &ctx, ch('+'));
        assert_eq!(prep(&state).keep_recent_tokens, 4000);
        assert!(screen(&state).contains("[4000▏]"));
        // The generation goes with the plan of the value on screen.
        skip_due_flush(&mut state, &ctx);
        let (_, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
        let clawtop::tui::effects::Effect::Generate { job, .. } = &pending[0] else {
            panic!()
        };
        let clawtop::tui::effects::GenJob::Compact { prep: p, .. } = job.as_ref() else {
            panic!()
        };
        assert_eq!(p.keep_recent_tokens, 4000);
    }
}

/// Typing faster than the plan is made: the answer for an older value is not shown, and one
/// more plan is requested for the value on screen (at most one running, one queued).
#[test]
fn keep_typing_coalesces_plans() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_compact(&mut state, &ctx);
    drive(&mut state, &ctx, key(KeyCode::Tab));
    // Run update only (no effects): the first keystroke asks for a plan, the next ones queue.
    let mut fx = clawtop::tui::update::update(&mut state, ch('0'));
    assert_eq!(fx.len(), 1, "{fx:?}");
    fx.extend(clawtop::tui::update::update(&mut state, ch('0')));
    assert_eq!(fx.len(), 1, "the second value waits: {fx:?}");
    // The first plan (for 10,000) answers: dropped, and the plan for 100,000 is requested.
    let first = fx.remove(0);
    let answer = clawtop::tui::effects::run_blocking(first, &ctx).unwrap();
    let ran = drive(&mut state, &ctx, answer);
    assert!(
        ran.iter().any(|e| e.starts_with("Prepare(Compact")),
        "{ran:?}"
    );
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.keep, Some(100_000));
    assert!(!d.prep_running);
    // What is shown is the answer for 100,000, not the 1,000 or 10,000 plan: at 100,000
    // OpenClaw 2026.9's cut (SPEC §6.1) keeps every message of host-a, so there is no plan,
    // and the dialog says why for that value.
    assert!(d.prep.is_none(), "a stale plan stayed on screen");
    let why = d.prep_error.as_deref().unwrap_or_default();
    assert!(why.contains("keepRecentTokens 100,000"), "{why}");
}
