//! The demo a new user meets (issue 9): compact and flush work end to end on the demo's
//! private temporary copy with the offline demo summarizer (no network, labelled, built
//! from the messages), everything is written to the copy and never to the shipped demo
//! files, and the copy is gone once clawtop lets go of it. Headless; snapshots at 80×24 and
//! 120×40 of the demo's Compact dialog and preview.

use crate::support::tui::*;
use clawtop::llm::offline_demo;
use clawtop::tui::TuiLaunch;
use clawtop::tui::dialog::Prep;
use clawtop::tui::effects::{Effect, EffectCtx, drive, drive_collect, run_generation};
use clawtop::tui::keymap::Mode;
use clawtop::tui::state::{AppState, Screen};
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use std::path::{Path, PathBuf};

/// flush-due: the session a flush is tried on.
const TELEGRAM: &str = "agent:main:telegram:direct:12345";
/// over its window: the session a compaction is tried on (the demo config keeps 2,000
/// recent tokens, so its short transcript has messages to summarize).
const OPS: &str = "agent:ops:main";
const OPS_FILE: &str = "agents/ops/sessions/f9f4db30-5dc5-4987-a68e-5312950a90d3.jsonl";

fn shipped(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/demo")
        .join(rel)
}

/// The demo host as `clawtop --demo` opens it, and its temporary state dir.
fn demo_app(size: (u16, u16), filter: &str, want: &str) -> (AppState, EffectCtx, PathBuf) {
    let host = clawtop::store::Host::demo().expect("demo");
    let dir = host.state_dir.clone();
    let launch = TuiLaunch::from_store(clawtop::store::Launch {
        host: Some(host),
        file: None,
        agent: None,
    });
    assert!(launch.demo);
    let (mut state, mut ctx) = start(launch, size);
    // No API key from the test's environment can matter: nothing is sent anywhere.
    ctx.env = Some(std::sync::Arc::new(|_: &str| None));
    // Open the session through the filter, as a user would.
    drive(&mut state, &ctx, ch('/'));
    type_str(&mut state, &ctx, &format!("{filter}\n"));
    drive(&mut state, &ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
    assert_eq!(state.session.as_ref().unwrap().row.key(), want);
    (state, ctx, dir)
}

fn scrub(s: String, dir: &Path) -> String {
    scrub_today(&s.replace(&dir.display().to_string(), "<demo copy>"))
}

/// Ctrl-G, and the generation effect run for real (offline) until it reports back.
fn generate(state: &mut AppState, ctx: &EffectCtx) {
    skip_due_flush(state, ctx);
    let (_, mut pending) = drive_collect(state, ctx, ctrl('g'));
    assert_eq!(pending.len(), 1);
    let Effect::Generate {
        dialog,
        generation,
        model,
        cancel,
        job,
    } = pending.remove(0)
    else {
        panic!("not a generation")
    };
    assert_eq!(model.endpoint.provider, offline_demo::PROVIDER);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    rt.block_on(run_generation(
        dialog,
        generation,
        *model,
        cancel,
        *job,
        ctx.client.clone(),
        tx,
    ));
    while let Ok(a) = rx.try_recv() {
        drive(state, ctx, a);
    }
    assert_eq!(state.mode(), Mode::DialogPreview, "{:?}", state.status);
}

fn preview(state: &AppState) -> String {
    clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview)
}

#[test]
fn demo_compaction_end_to_end_on_the_private_copy() {
    let shipped_before = std::fs::read(shipped(OPS_FILE)).expect("shipped transcript");
    for (size, name) in [((120, 40), "120x40"), ((80, 24), "80x24")] {
        let (mut state, ctx, dir) = demo_app(size, "ops:main", OPS);
        drive(&mut state, &ctx, ch('c'));
        let d = state.dialog.as_ref().expect("compact dialog");
        let Some(Prep::Compact(c)) = &d.prep else {
            panic!("no plan on the demo copy: {:?}", d.prep_error)
        };
        assert!(c.transcript.starts_with(&dir), "{:?}", c.transcript);
        let m = c.model.as_ref().expect("the offline model");
        assert_eq!(m.endpoint.model, offline_demo::MODEL);
        assert_snapshot!(
            format!("demo_compact_dialog_{name}"),
            scrub(screen(&state), &dir)
        );
        type_str(&mut state, &ctx, "Keep the firewall ticket");
        generate(&mut state, &ctx);
        let text = preview(&state);
        assert!(text.starts_with(offline_demo::LABEL), "{text}");
        assert!(
            text.contains("Operator's instructions: Keep the firewall ticket"),
            "{text}"
        );
        // Built from this session's messages.
        let first_user = first_user_line(&dir.join(OPS_FILE));
        assert!(
            text.contains(&format!("(demo) {first_user}")),
            "{first_user:?} not in {text}"
        );
        assert_snapshot!(
            format!("demo_compact_preview_{name}"),
            scrub(screen(&state), &dir)
        );
        // Commit: written to the copy.
        drive(&mut state, &ctx, ctrl('o'));
        drive(&mut state, &ctx, ch('y'));
        assert!(state.dialog.is_none(), "{:?}", state.status);
        let t = clawtop::transcript::Transcript::open(&dir.join(OPS_FILE)).unwrap();
        let last = t.entry_json(t.leaf().unwrap()).unwrap();
        assert_eq!(last["type"], "compaction");
        assert_eq!(last["summary"].as_str(), Some(text.as_str()));
        // The copy goes when the app lets go of the host.
        drop(state);
        drop(ctx);
        assert!(!dir.exists(), "demo copy left behind: {}", dir.display());
    }
    assert_eq!(
        std::fs::read(shipped(OPS_FILE)).unwrap(),
        shipped_before,
        "the shipped demo transcript is untouched"
    );
}

#[test]
fn demo_flush_end_to_end_on_the_private_copy() {
    let (mut state, ctx, dir) = demo_app((80, 24), "telegram", TELEGRAM);
    drive(&mut state, &ctx, ch('f'));
    let d = state.dialog.as_ref().expect("flush dialog");
    let Some(Prep::Flush(f)) = &d.prep else {
        panic!("no flush plan on the demo copy: {:?}", d.prep_error)
    };
    assert!(f.read_only.is_none(), "{:?}", f.read_only);
    assert!(
        f.target.starts_with(&dir),
        "notes go to the copy: {:?}",
        f.target
    );
    let target = f.target.clone();
    generate(&mut state, &ctx);
    let text = preview(&state);
    assert!(text.starts_with(offline_demo::LABEL), "{text}");
    drive(&mut state, &ctx, ctrl('o'));
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none(), "{:?}", state.status);
    let notes = std::fs::read_to_string(&target).expect("notes written in the copy");
    assert!(notes.contains(offline_demo::LABEL), "{notes}");
    let store: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("agents/main/sessions/sessions.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(store[TELEGRAM]["memoryFlushCompactionCount"], 1);
    // Nothing reached the shipped files.
    let shipped_target = shipped("workspace/memory").join(target.file_name().unwrap());
    assert!(
        !shipped_target.exists()
            || !std::fs::read_to_string(&shipped_target)
                .unwrap()
                .contains(offline_demo::LABEL),
        "{}",
        shipped_target.display()
    );
}

fn first_user_line(transcript: &Path) -> String {
    let t = clawtop::transcript::Transcript::open(transcript).unwrap();
    for i in 0..t.len() as u32 {
        let v = t.entry_json(i).unwrap();
        if v["message"]["role"] == "user" {
            let c = &v["message"]["content"];
            let text = c
                .as_str()
                .map(str::to_string)
                .or_else(|| c[0]["text"].as_str().map(str::to_string))
                .unwrap_or_default();
            return text
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(99)
                .collect();
        }
    }
    panic!("no user message");
}

/// A panic in the app unwinds through whatever owns the demo host: the copy goes with it
/// (the terminal's panic hook only restores the terminal; removal is the host's drop, so a
/// panic that is caught and survived, as a loader's is, leaves the running demo intact).
#[test]
fn a_panic_removes_the_demo_copy() {
    let mut dir = None;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let (state, ctx, d) = demo_app((80, 24), "ops:main", OPS);
        dir = Some(d);
        let _keep = (state, ctx);
        panic!("boom");
    }));
    assert!(r.is_err());
    let dir = dir.expect("started");
    assert!(!dir.exists(), "demo copy left behind: {}", dir.display());
}
