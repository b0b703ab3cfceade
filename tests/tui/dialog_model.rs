//! Issue 8 item 4: the model picker of the Compact (and Flush) dialog, against fake model
//! servers. openclaw.json and the agent's models.json name different base URLs (and name
//! the key differently); the dialog says which is used and why before any request, and the
//! request goes to the model and base URL the operator picked, with the instructions.

use crate::support::fake_model::{FakeModel, Reply};
use crate::support::tui::*;
use clawtop::source::SourceHandle;
use clawtop::tui::action::Action;
use clawtop::tui::dialog::Prep;
use clawtop::tui::effects::{Effect, EffectCtx, drive, drive_collect, run_generation};
use clawtop::tui::keymap::Mode;
use clawtop::tui::state::{AppState, Screen};
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use std::path::Path;

/// host-a with `fake` at `a` in openclaw.json and at `b` in models.json (whose key is an
/// unset `${FAKE_KEY_B}`, so the config's literal key is used), and a second provider `alt`
/// at `c` listed only in openclaw.json.
fn disagreeing_host(a: &str, b: &str, c: &str) -> (tempfile::TempDir, SourceHandle) {
    let (dir, _t, _host) = host_a_host(Some(a));
    let models = dir.path().join("agents/main/agent/models.json");
    let m = std::fs::read_to_string(&models)
        .unwrap()
        .replace(a, b)
        .replace("\"apiKey\": \"fake-key\"", "\"apiKey\": \"${FAKE_KEY_B}\"");
    assert!(
        m.contains(b) && m.contains("FAKE_KEY_B"),
        "models.json shape"
    );
    std::fs::write(&models, m).unwrap();
    let cfg = dir.path().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).unwrap().replacen(
        "providers: {",
        &format!(
            "providers: {{\n      alt: {{ baseUrl: \"{c}/v1\", api: \"openai-completions\", models: [ {{ id: \"alt-model\", contextWindow: 48000, maxTokens: 2048 }} ] }},"
        ),
        1,
    );
    assert!(text.contains("alt-model"));
    std::fs::write(&cfg, text).unwrap();
    let opts = clawtop::store::Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).expect("host");
    (dir, clawtop::source::for_host(host))
}

fn scrub(s: String, dir: &Path, ports: &[(&str, &str)]) -> String {
    let mut s = s.replace(&dir.display().to_string(), "<host>");
    for (url, name) in ports {
        s = s.replace(url, name);
    }
    s
}

fn compact_prep(state: &AppState) -> Box<clawtop::tui::dialog::CompactPrep> {
    match &state.dialog.as_ref().unwrap().prep {
        Some(Prep::Compact(c)) => c.clone(),
        other => panic!("no plan: {other:?}"),
    }
}

/// Generates for real against the fake servers; returns the preview text.
fn generate(state: &mut AppState, ctx: &EffectCtx, rt: &tokio::runtime::Runtime) -> String {
    skip_due_flush(state, ctx);
    let (_, mut pending) = drive_collect(state, ctx, ctrl('g'));
    assert_eq!(pending.len(), 1, "one generation");
    let Effect::Generate {
        dialog,
        generation,
        model,
        cancel,
        job,
    } = pending.remove(0)
    else {
        unreachable!()
    };
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
    assert_eq!(
        state.mode(),
        Mode::DialogPreview,
        "{:?}",
        state.dialog.as_ref().unwrap().error
    );
    clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview)
}

#[test]
fn picked_model_and_base_url_are_where_the_request_goes() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (fa, fb, fc) = rt.block_on(async {
        (
            FakeModel::start().await,
            FakeModel::start().await,
            FakeModel::start().await,
        )
    });
    for f in [&fa, &fb, &fc] {
        f.set_fallback(Reply::text("## Goal\nsummary"));
    }
    let (a, b, c) = (fa.base_url(), fb.base_url(), fc.base_url());
    let (dir, host) = disagreeing_host(&a, &b, &c);
    let ports = [
        (a.as_str(), "<A>"),
        (b.as_str(), "<B>"),
        (c.as_str(), "<C>"),
    ];
    for size in [(80, 24), (120, 40)] {
        let (mut state, mut ctx) = host_app(host.clone(), size);
        ctx.client.max_attempts = 1;
        drive(&mut state, &ctx, key(KeyCode::Enter));
        assert_eq!(state.screen(), Screen::Session);
        drive(&mut state, &ctx, ch('c'));
        let d = state.dialog.as_ref().unwrap();
        let labels: Vec<String> = d
            .models
            .iter()
            .map(|m| scrub(format!("{} [{}]", m.label, m.listed_in), dir.path(), &ports))
            .collect();
        assert_eq!(
            labels,
            [
                "the session's model []",
                "fake/fake-model @ <B>/v1 [models.json]",
                "fake/fake-model @ <A>/v1 [openclaw.json]",
                "alt/alt-model @ <C>/v1 [openclaw.json]",
            ]
        );
        // The default is the session's model as resolved today: models.json's URL, and the
        // dialog says so, and why, before anything is sent.
        let m = compact_prep(&state).model.clone().unwrap();
        assert_eq!(m.endpoint.base_url, format!("{b}/v1"));
        let note = m.endpoint_note.clone().unwrap_or_default();
        assert!(
            note.contains(
                "is used (the agent's models.json wins over openclaw.json, as in OpenClaw)"
            ) && note.contains(&format!("says {a}/v1"))
                && note.contains(
                    "openclaw.json names a literal key, models.json names env FAKE_KEY_B"
                ),
            "{note}"
        );
        // To the picker: Tab (keepRecentTokens), Tab (model); → picks openclaw.json's URL.
        drive(&mut state, &ctx, key(KeyCode::Tab));
        drive(&mut state, &ctx, key(KeyCode::Tab));
        assert_eq!(state.mode(), Mode::DialogModel);
        let ran = drive(&mut state, &ctx, key(KeyCode::Right));
        assert!(
            ran.iter().any(|e| e.starts_with("Prepare(Compact")),
            "{ran:?}"
        );
        // models.json's entry first (what resolution picks anyway), then openclaw.json's.
        let m = compact_prep(&state).model.clone().unwrap();
        assert_eq!(m.endpoint.base_url, format!("{b}/v1"));
        drive(&mut state, &ctx, key(KeyCode::Right));
        let m = compact_prep(&state).model.clone().unwrap();
        assert_eq!(m.endpoint.base_url, format!("{a}/v1"));
        assert!(
            m.endpoint_note
                .as_deref()
                .unwrap_or("")
                .contains("is used (chosen for this run)"),
            "{:?}",
            m.endpoint_note
        );
        let s = scrub(screen(&state), dir.path(), &ports);
        // Secrets never shown: the literal key's value is not on screen.
        assert!(!s.contains("fake-key"), "{s}");
        assert!(
            s.contains("◀ fake/fake-model @ <A>/v1 · 3/4 openclaw.json ▶"),
            "{s}"
        );
        let name = if size.0 == 80 {
            "model_picker_80x24"
        } else {
            "model_picker_120x40"
        };
        assert_snapshot!(name, s);
        if size.0 == 120 {
            continue;
        }
        // Instructions typed, then generated: the request goes to A, none to B.
        drive(&mut state, &ctx, key(KeyCode::Tab));
        drive(&mut state, &ctx, key(KeyCode::Tab));
        assert_eq!(state.mode(), Mode::DialogEdit);
        type_str(&mut state, &ctx, "Keep PR #42");
        let text = generate(&mut state, &ctx, &rt);
        assert!(text.starts_with("## Goal"), "{text}");
        let ra = fa.requests();
        assert!(!ra.is_empty(), "the picked base URL got the request");
        assert!(fb.requests().is_empty() && fc.requests().is_empty());
        assert!(ra.iter().all(|r| r.body["model"] == "fake-model"));
        assert!(
            ra.iter().all(|r| r.raw_body.contains("Keep PR #42")),
            "every request carries the instructions"
        );
        // Regenerate with the other provider's model.
        skip_due_flush(&mut state, &ctx);
        drive(&mut state, &ctx, ctrl('g'));
        drive(&mut state, &ctx, key(KeyCode::Tab));
        drive(&mut state, &ctx, key(KeyCode::Tab));
        drive(&mut state, &ctx, key(KeyCode::Right));
        let m = compact_prep(&state).model.clone().unwrap();
        assert_eq!(
            (m.endpoint.provider.as_str(), m.endpoint.model.as_str()),
            ("alt", "alt-model")
        );
        generate(&mut state, &ctx, &rt);
        let rc = fc.requests();
        assert!(!rc.is_empty());
        assert!(rc.iter().all(|r| r.body["model"] == "alt-model"));
        assert!(rc.iter().all(|r| r.raw_body.contains("Keep PR #42")));
        assert!(fb.requests().is_empty());
        // Wrapping round: ← from the session's model goes to the last one; the picker is
        // closed once a preview exists (the summary belongs to its model).
        let _ = Action::DialogModelPrev;
    }
}

/// The Flush dialog uses the same picker and resolution.
#[test]
fn flush_dialog_picks_a_model_too() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (fa, fb, fc) = rt.block_on(async {
        (
            FakeModel::start().await,
            FakeModel::start().await,
            FakeModel::start().await,
        )
    });
    for f in [&fa, &fb, &fc] {
        f.set_fallback(Reply::text("## Notes\n- from the fake"));
    }
    let (_dir, host) = disagreeing_host(&fa.base_url(), &fb.base_url(), &fc.base_url());
    let (mut state, mut ctx) = host_app(host, (80, 24));
    ctx.client.max_attempts = 1;
    drive(&mut state, &ctx, ch('f'));
    drive(&mut state, &ctx, key(KeyCode::Tab));
    assert_eq!(state.mode(), Mode::DialogModel);
    // ← wraps to the last model: alt.
    drive(&mut state, &ctx, key(KeyCode::Left));
    let Some(Prep::Flush(f)) = &state.dialog.as_ref().unwrap().prep else {
        panic!()
    };
    assert_eq!(f.model.as_ref().unwrap().endpoint.model, "alt-model");
    drive(&mut state, &ctx, key(KeyCode::Tab));
    drive(&mut state, &ctx, key(KeyCode::Tab));
    type_str(&mut state, &ctx, "mention the deploy");
    generate(&mut state, &ctx, &rt);
    let rc = fc.requests();
    assert_eq!(rc.len(), 1);
    assert_eq!(rc[0].body["model"], "alt-model");
    assert!(rc[0].raw_body.contains("mention the deploy"));
    assert!(fa.requests().is_empty() && fb.requests().is_empty());
}
