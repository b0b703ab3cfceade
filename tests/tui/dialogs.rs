//! The Compact and Flush dialogs, headless: `update` + effects run inline, the generation
//! effect answered by the test (actions injected) or run for real against the fake model.
//! Everything writes into temp copies of the fixtures.

use crate::support::fake_model::{FakeModel, Reply};
use crate::support::tui::*;
use clawtop::compaction::model::GenProgress;
use clawtop::tui::action::Action;
use clawtop::tui::dialog::{GenFailure, Generated, Phase, Prep};
use clawtop::tui::effects::{Effect, EffectCtx, drive, drive_collect, run_generation};
use clawtop::tui::keymap::Mode;
use clawtop::tui::state::{AppState, Screen};
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use serde_json::Value;
use std::path::Path;

const SMALL: (u16, u16) = (80, 24);
const BIG: (u16, u16) = (120, 40);

fn open_session(state: &mut AppState, ctx: &EffectCtx) {
    drive(state, ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
}

/// Presses Ctrl-G and returns the (unrun) generation effect.
fn start_generation(state: &mut AppState, ctx: &EffectCtx) -> Effect {
    skip_due_flush(state, ctx);
    let (_, mut pending) = drive_collect(state, ctx, ctrl('g'));
    assert_eq!(pending.len(), 1, "one generation effect");
    pending.remove(0)
}

fn ids(e: &Effect) -> (u64, u64) {
    match e {
        Effect::Generate {
            dialog, generation, ..
        } => (*dialog, *generation),
        other => panic!("not a generation: {other:?}"),
    }
}

fn done(state: &mut AppState, ctx: &EffectCtx, e: &Effect, text: &str) {
    let (dialog, generation) = ids(e);
    let g = Generated {
        text: text.into(),
        calls: 1,
        warnings: vec![],
        no_reply: false,
        current: None,
        audit: None,
    };
    drive(
        state,
        ctx,
        Action::GenDone {
            dialog,
            generation,
            result: Ok(g),
        },
    );
}

fn last_entry(path: &Path) -> Value {
    let t = clawtop::transcript::Transcript::open(path).expect("reopen transcript");
    t.entry_json(t.leaf().expect("leaf")).expect("last entry")
}

fn store_entry(dir: &Path) -> Value {
    let s: Value = serde_json::from_slice(
        &std::fs::read(dir.join("agents/main/sessions/sessions.json")).unwrap(),
    )
    .unwrap();
    s["agent:main:main"].clone()
}

fn scrub(s: String, dir: &Path) -> String {
    scrub_today(&s.replace(&dir.display().to_string(), "<host>"))
}

#[test]
fn compact_open_edit_generate_preview_edit_commit() {
    let (dir, t, host) = host_a_host(None);
    let before_len = std::fs::metadata(&t).unwrap().len();
    // 120×40 first: only the 80×24 pass commits (a committed file has nothing left to plan).
    for size in [BIG, SMALL] {
        let (mut state, ctx) = host_app(host.clone(), size);
        open_session(&mut state, &ctx);
        let ran = drive(&mut state, &ctx, ch('c'));
        assert!(
            ran.iter().any(|e| e.starts_with("Prepare(Compact")),
            "{ran:?}"
        );
        let d = state.dialog.as_ref().expect("dialog");
        assert_eq!(d.phase, Phase::Edit);
        assert_eq!(state.mode(), Mode::DialogEdit);
        let Some(Prep::Compact(c)) = &d.prep else {
            panic!("plan: {:?}", d.prep_error)
        };
        assert!(c.messages > 0);
        assert_eq!(c.tokens_before, c.prepared.plan.tokens_before);
        let m = c.model.as_ref().expect("endpoint from config");
        assert_eq!(
            (m.endpoint.provider.as_str(), m.endpoint.model.as_str()),
            ("fake", "fake-model")
        );
        // Typing goes into the editor (`q` and `?` included).
        type_str(&mut state, &ctx, "Keep the open PR numbers?");
        assert_eq!(
            state
                .dialog
                .as_ref()
                .unwrap()
                .instructions_text()
                .as_deref(),
            Some("Keep the open PR numbers?")
        );
        assert!(!state.should_quit && state.help.is_none());
        let name = if size == SMALL {
            "compact_dialog_80x24"
        } else {
            "compact_dialog_120x40"
        };
        assert_snapshot!(name, scrub(screen(&state), dir.path()));

        // Generate: the effect carries the instructions; progress shows call label, size, time.
        let e = start_generation(&mut state, &ctx);
        assert_eq!(state.mode(), Mode::Generating);
        let (dialog, generation) = ids(&e);
        for ev in [
            GenProgress::Call {
                call: 1,
                label: "history, part 1 of 2".into(),
            },
            GenProgress::Delta {
                chars: 1234,
                tokens: None,
            },
        ] {
            drive(
                &mut state,
                &ctx,
                Action::GenProgress {
                    dialog,
                    generation,
                    event: ev,
                    elapsed_ms: 3_200,
                },
            );
        }
        let g = state
            .dialog
            .as_ref()
            .unwrap()
            .running
            .as_ref()
            .expect("running");
        assert_eq!(
            (g.call, g.label.as_str(), g.chars),
            (1, "history, part 1 of 2", 1234)
        );
        let s = screen(&state);
        assert!(
            s.contains(
                "call 1 · history, part 1 of 2 · 1,234 chars ≈309 tokens · 3s · Esc cancels"
            ),
            "{s}"
        );
        let name = if size == SMALL {
            "compact_generating_80x24"
        } else {
            "compact_generating_120x40"
        };
        assert_snapshot!(name, scrub(s, dir.path()));

        // The result lands in the editable preview.
        done(
            &mut state,
            &ctx,
            &e,
            "## Goal\nShip the release.\n\n## Next Steps\n- merge PR #42",
        );
        assert_eq!(state.mode(), Mode::DialogPreview);
        let name = if size == SMALL {
            "compact_preview_80x24"
        } else {
            "compact_preview_120x40"
        };
        assert_snapshot!(name, scrub(screen(&state), dir.path()));
        if size == BIG {
            continue;
        }
        // Edit the preview: a line on top.
        type_str(&mut state, &ctx, "EDITED by the operator\n");
        let edited = clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview);
        assert!(edited.starts_with("EDITED by the operator\n## Goal\n"));
        // Commit asks first; the popup carries exactly the previewed text.
        drive(&mut state, &ctx, ctrl('o'));
        assert_eq!(state.mode(), Mode::Confirm);
        let p = state
            .dialog
            .as_ref()
            .unwrap()
            .confirm
            .clone()
            .expect("pending commit");
        assert_eq!(p.text, edited);
        let all = p.lines.join(" ");
        assert!(
            all.contains("Append 1 compaction entry (") && all.contains("compactionCount 12→13"),
            "{all}"
        );
        // Issue 8 item 7: every field that changes, the cleared ones, updatedAt and the mode.
        for want in [
            "totalTokensFresh→true",
            "updatedAt→now",
            "clear inputTokens, outputTokens, cacheRead, cacheWrite",
            "File mode 0644→0600",
        ] {
            assert!(all.contains(want), "{want:?} missing: {all}");
        }
        assert_snapshot!("compact_confirm_80x24", scrub(screen(&state), dir.path()));
        let s = screen(&state);
        assert!(s.contains("EDITED by the operator"));
        // n goes back, nothing written; then y writes.
        drive(&mut state, &ctx, ch('n'));
        assert_eq!(state.mode(), Mode::DialogPreview);
        assert_eq!(std::fs::metadata(&t).unwrap().len(), before_len);
        drive(&mut state, &ctx, ctrl('o'));
        let ran = drive(&mut state, &ctx, ch('y'));
        assert!(
            ran.iter().any(|e| e.starts_with("Commit(compact")),
            "{ran:?}"
        );
        // Closed, reloaded: the session shows the new compaction.
        assert!(state.dialog.is_none(), "{:?}", state.status);
        assert!(
            ran.iter().any(|e| e.starts_with("LoadSessions"))
                && ran.iter().any(|e| e.starts_with("OpenTranscript")),
            "{ran:?}"
        );
        let info = state.status.info.clone().unwrap_or_default();
        assert!(info.starts_with("Committed compaction"), "{info}");
        let last = last_entry(&t);
        // Issue 33 item 1: the message after a commit is read whole at 80×24 (it was cut at
        // "expected after ≈26,568 (…"), and the footer still ends in `? help`.
        let id = last["id"].as_str().unwrap_or_default().to_string();
        let s = scrub(screen(&state), dir.path()).replace(&id, "<id>");
        assert_whole_with_help(&s, &scrub(info.clone(), dir.path()).replace(&id, "<id>"));
        assert_snapshot!("status_after_commit_80x24", s);
        assert_eq!(last["type"], "compaction");
        assert_eq!(last["summary"].as_str(), Some(edited.as_str()));
        // The byte count in the confirmation was exact.
        let grown = std::fs::metadata(&t).unwrap().len() - before_len;
        assert!(
            all.contains(&format!("({} bytes)", grown)),
            "{all} vs {grown}"
        );
        let e = store_entry(dir.path());
        assert_eq!(e["compactionCount"], 13);
        // Issue 30: every figure the confirmation stated is what landed in sessions.json.
        let total = e["totalTokens"].as_u64().unwrap();
        assert!(
            all.contains(&format!(
                "totalTokens→{},",
                clawtop::tui::view::thousands(total)
            )),
            "{all} vs sessions.json totalTokens {total}"
        );
        assert_eq!(e["totalTokensFresh"], true);
        let v = state.session.as_ref().unwrap();
        assert_eq!(v.loaded.as_ref().unwrap().summaries.len(), 2);
        assert_eq!(state.sessions.rows[0].compaction_count, Some(13));
        // The Session screen's header shows the new figures, not the pre-commit ones.
        assert_eq!(v.row.compaction_count, Some(13));
        assert_eq!(v.row.used, e["totalTokens"].as_u64());
    }
}

#[test]
fn esc_cancels_generation_back_to_the_editor() {
    let (_dir, t, host) = host_a_host(None);
    let before = std::fs::read(&t).unwrap();
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    type_str(&mut state, &ctx, "focus on tests");
    let e = start_generation(&mut state, &ctx);
    let Effect::Generate { cancel, .. } = &e else {
        unreachable!()
    };
    assert!(!cancel.is_cancelled());
    let ran = drive(&mut state, &ctx, key(KeyCode::Esc));
    assert!(ran.iter().any(|e| e == "Cancel"), "{ran:?}");
    assert!(cancel.is_cancelled(), "the token is triggered");
    let d = state.dialog.as_ref().expect("dialog stays open");
    assert_eq!(d.phase, Phase::Edit);
    assert_eq!(d.instructions_text().as_deref(), Some("focus on tests"));
    // The cancelled task's late answer is dropped.
    done(&mut state, &ctx, &e, "late");
    assert_eq!(state.dialog.as_ref().unwrap().phase, Phase::Edit);
    // A failed generation says why and keeps the editor.
    let e = start_generation(&mut state, &ctx);
    let (dialog, generation) = ids(&e);
    drive(
        &mut state,
        &ctx,
        Action::GenDone {
            dialog,
            generation,
            result: Err(GenFailure::Failed("history: HTTP 500".into())),
        },
    );
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.phase, Phase::Edit);
    assert!(d.error.as_deref().unwrap_or("").contains("HTTP 500"));
    assert_eq!(std::fs::read(&t).unwrap(), before);
    // Issue 9: Esc closes a dialog, but typed instructions are not thrown away on a reflex
    // Esc: it asks first; n keeps editing with the text intact, y closes.
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert_eq!(state.mode(), Mode::AskDiscard);
    let s = screen(&state);
    assert!(
        s.contains("Discard your edits?") && s.contains("You edited the instructions."),
        "{s}"
    );
    // Letters answer the question; they are not typed into the editor behind it.
    drive(&mut state, &ctx, ch('n'));
    assert_eq!(state.mode(), Mode::DialogEdit);
    let d = state.dialog.as_ref().expect("n keeps the dialog");
    assert_eq!(d.instructions_text().as_deref(), Some("focus on tests"));
    drive(&mut state, &ctx, key(KeyCode::Esc));
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none(), "y discards and closes");
    assert_eq!(state.mode(), Mode::Session);
    assert_eq!(std::fs::read(&t).unwrap(), before);
}

#[test]
fn regenerate_keeps_instructions_and_discard_writes_nothing() {
    let (_dir, t, host) = host_a_host(None);
    let before = std::fs::read(&t).unwrap();
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    type_str(&mut state, &ctx, "v1");
    let e = start_generation(&mut state, &ctx);
    done(&mut state, &ctx, &e, "first summary");
    // Regenerate: back to the editor, instructions kept; change them and generate again.
    skip_due_flush(&mut state, &ctx);
    drive(&mut state, &ctx, ctrl('g'));
    assert_eq!(state.mode(), Mode::DialogEdit);
    type_str(&mut state, &ctx, "+v2");
    let e = start_generation(&mut state, &ctx);
    let Effect::Generate { job, .. } = &e else {
        unreachable!()
    };
    let clawtop::tui::effects::GenJob::Compact { instructions, .. } = job.as_ref() else {
        panic!()
    };
    assert_eq!(instructions.as_deref(), Some("v1+v2"));
    done(&mut state, &ctx, &e, "second summary");
    assert_eq!(
        clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview),
        "second summary"
    );
    // Discard through the buttons: Tab, then d.
    drive(&mut state, &ctx, key(KeyCode::Tab));
    assert_eq!(state.mode(), Mode::DialogButtons);
    drive(&mut state, &ctx, ch('d'));
    assert!(state.dialog.is_none());
    assert_eq!(std::fs::read(&t).unwrap(), before);
    assert_eq!(state.mode(), Mode::Session);
}

#[test]
fn refused_commit_when_the_transcript_changed_writes_nothing() {
    let (_dir, t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    let e = start_generation(&mut state, &ctx);
    done(&mut state, &ctx, &e, "a summary");
    // OpenClaw appends a turn meanwhile.
    let leaf = last_entry(&t);
    let line = format!(
        "{{\"type\":\"message\",\"id\":\"feedbeef\",\"parentId\":{},\"timestamp\":\"2026-11-21T10:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}}}\n",
        leaf["id"]
    );
    let mut bytes = std::fs::read(&t).unwrap();
    bytes.extend_from_slice(line.as_bytes());
    std::fs::write(&t, &bytes).unwrap();
    drive(&mut state, &ctx, ctrl('o'));
    drive(&mut state, &ctx, ch('y'));
    let d = state.dialog.as_ref().expect("dialog stays");
    assert_eq!(d.phase, Phase::Preview);
    let err = d.error.clone().unwrap_or_default();
    assert!(err.starts_with("Commit refused, nothing written"), "{err}");
    assert!(state.status.error.is_some());
    assert_eq!(std::fs::read(&t).unwrap(), bytes, "nothing appended");
    assert!(screen(&state).contains("Commit refused"));
}

#[test]
fn model_output_is_stripped_of_control_characters() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    let e = start_generation(&mut state, &ctx);
    done(
        &mut state,
        &ctx,
        &e,
        "ok\u{1b}]52;c;aGVsbG8=\u{7}\u{1b}[2J done\r\n\u{9b}x\u{202e}y",
    );
    let text = clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview);
    assert_eq!(text, "ok]52;c;aGVsbG8=[2J done\nxy");
    let s = screen(&state);
    assert!(!s.chars().any(|c| c.is_control() && c != '\n'), "{s:?}");
}

#[test]
fn compact_a_bare_transcript_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("v3-two-compactions.jsonl");
    std::fs::copy(fixture("transcripts/v3-two-compactions.jsonl"), &f).unwrap();
    let (mut state, ctx) = file_app(&f, SMALL);
    // Keep less so this small file has something to summarize.
    state.session.as_mut().unwrap().row.keep_recent_tokens = 200;
    drive(&mut state, &ctx, ch('c'));
    let d = state.dialog.as_ref().expect("dialog");
    let Some(Prep::Compact(c)) = &d.prep else {
        panic!("{:?}", d.prep_error)
    };
    assert!(c.store.is_none());
    // No store and no config: the plan shows, the model line says why it cannot generate.
    let s = screen(&state);
    assert!(s.contains("summarize"), "{s}");
    // Commit a preview the test provides (as if generated), then check the file.
    let Some(Prep::Compact(_)) = &d.prep else {
        unreachable!()
    };
    let id = d.id;
    let fake_model = clawtop::tui::dialog::ModelInfo {
        endpoint: clawtop::llm::resolve_endpoint(
            &serde_json::json!({}),
            None,
            Some("anthropic"),
            Some("claude-x"),
            &Default::default(),
            &|_| Some("k".into()),
        )
        .unwrap(),
        endpoint_note: None,
        budget: clawtop::summary::Budget {
            context_window: 200_000,
            reserve_tokens: 20_000,
            reasoning: false,
        },
    };
    if let Some(Prep::Compact(c)) = state.dialog.as_mut().unwrap().prep.as_mut() {
        c.model = Ok(fake_model);
    }
    let e = start_generation(&mut state, &ctx);
    assert_eq!(ids(&e).0, id);
    done(&mut state, &ctx, &e, "bare summary");
    drive(&mut state, &ctx, ctrl('o'));
    let p = state.dialog.as_ref().unwrap().confirm.clone().unwrap();
    assert!(
        p.lines
            .iter()
            .any(|l| l.starts_with("Bare file: the transcript only")),
        "{:?}",
        p.lines
    );
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none(), "{:?}", state.status);
    assert_eq!(last_entry(&f)["summary"], "bare summary");
}

#[test]
fn flush_dialog_preview_and_commit() {
    let (dir, _t, host) = host_a_host(None);
    let date = clawtop::flush::today();
    let target = dir.path().join(format!("workspace/memory/{date}.md"));
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(
        &target,
        "# Earlier notes\n- the deploy key lives in vault\u{1b}[31m\n",
    )
    .unwrap();
    for size in [SMALL, BIG] {
        let (mut state, ctx) = host_app(host.clone(), size);
        // From the Sessions list.
        let ran = drive(&mut state, &ctx, ch('f'));
        assert!(
            ran.iter().any(|e| e.starts_with("Prepare(Flush")),
            "{ran:?}"
        );
        let d = state.dialog.as_ref().expect("dialog");
        let Some(Prep::Flush(f)) = &d.prep else {
            panic!("{:?}", d.prep_error)
        };
        assert_eq!(f.target, target);
        assert_eq!(f.gate.compaction_count, 12);
        let name = if size == SMALL {
            "flush_dialog_80x24"
        } else {
            "flush_dialog_120x40"
        };
        let s = scrub(screen(&state), dir.path());
        assert!(s.contains("OpenClaw 2026.2.26 default"), "{s}");
        assert_snapshot!(name, s);
        let e = start_generation(&mut state, &ctx);
        done(&mut state, &ctx, &e, "## Notes\n- PR #42 waits for review");
        let name = if size == SMALL {
            "flush_preview_80x24"
        } else {
            "flush_preview_120x40"
        };
        let s = scrub(screen(&state), dir.path());
        assert!(s.contains("Earlier notes") && s.contains("PR #42"), "{s}");
        assert!(!s.contains('\u{1b}'));
        assert_snapshot!(name, s);
        if size == BIG {
            continue;
        }
        drive(&mut state, &ctx, ctrl('o'));
        let p = state.dialog.as_ref().unwrap().confirm.clone().unwrap();
        let all = p.lines.join(" ");
        assert!(
            all.contains("memoryFlushCompactionCount→12")
                && all.contains("memoryFlushAt→now")
                // host-a's store is 0644; the commit leaves it 0600: the confirmation says so.
                && all.contains("File mode 0644→0600")
                && all.contains(&target.display().to_string()),
            "{all}"
        );
        assert_snapshot!("flush_confirm_80x24", scrub(screen(&state), dir.path()));
        drive(&mut state, &ctx, ch('y'));
        assert!(state.dialog.is_none(), "{:?}", state.status);
        let written = std::fs::read_to_string(&target).unwrap();
        assert!(
            written.ends_with("\n## Notes\n- PR #42 waits for review\n"),
            "{written:?}"
        );
        let e = store_entry(dir.path());
        assert_eq!(e["memoryFlushCompactionCount"], 12);
        assert!(e["memoryFlushAt"].is_i64());
    }
}

#[test]
fn flush_no_reply_records_without_writing_notes() {
    let (dir, _t, host) = host_a_host(None);
    let target = dir
        .path()
        .join(format!("workspace/memory/{}.md", clawtop::flush::today()));
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('f'));
    let e = start_generation(&mut state, &ctx);
    let (dialog, generation) = ids(&e);
    let g = Generated {
        text: String::new(),
        calls: 1,
        warnings: vec![],
        no_reply: true,
        current: Some(String::new()),
        audit: None,
    };
    drive(
        &mut state,
        &ctx,
        Action::GenDone {
            dialog,
            generation,
            result: Ok(g),
        },
    );
    let s = screen(&state);
    assert!(s.contains("NO_REPLY — nothing worth keeping"), "{s}");
    drive(&mut state, &ctx, ctrl('o'));
    let p = state.dialog.as_ref().unwrap().confirm.clone().unwrap();
    assert!(p.lines[0].starts_with("NO_REPLY"), "{:?}", p.lines);
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none(), "{:?}", state.status);
    assert!(!target.exists(), "no notes written");
    assert_eq!(store_entry(dir.path())["memoryFlushCompactionCount"], 12);
}

/// The real generation effect against the fake model server, endpoint from the host's config.
#[test]
fn end_to_end_generation_with_the_fake_model() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let fake = rt.block_on(FakeModel::start());
    for _ in 0..4 {
        fake.push(Reply::text("## Goal\nFrom the fake model."));
    }
    let (_dir, t, host) = host_a_host(Some(&fake.base_url()));
    let (mut state, mut ctx) = host_app(host, SMALL);
    ctx.client.max_attempts = 1;
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    type_str(&mut state, &ctx, "Keep PR #42");
    let e = start_generation(&mut state, &ctx);
    let Effect::Generate {
        dialog,
        generation,
        model,
        cancel,
        job,
    } = e
    else {
        unreachable!()
    };
    assert!(
        model
            .label()
            .starts_with("fake/fake-model @ http://127.0.0.1:")
    );
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
    let mut actions = Vec::new();
    while let Ok(a) = rx.try_recv() {
        actions.push(a);
    }
    assert!(actions.iter().any(|a| matches!(
        a,
        Action::GenProgress {
            event: GenProgress::Call { .. },
            ..
        }
    )));
    assert!(
        matches!(actions.last(), Some(Action::GenDone { result: Ok(_), .. })),
        "{:?}",
        actions.last()
    );
    for a in actions {
        drive(&mut state, &ctx, a);
    }
    assert_eq!(state.mode(), Mode::DialogPreview);
    let text = clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview);
    assert!(text.starts_with("## Goal\nFrom the fake model."), "{text}");
    let reqs = fake.requests();
    assert!(!reqs.is_empty());
    assert!(reqs[0].raw_body.contains("Keep PR #42"));
    drive(&mut state, &ctx, ctrl('o'));
    drive(&mut state, &ctx, ch('y'));
    assert!(state.dialog.is_none(), "{:?}", state.status);
    assert_eq!(last_entry(&t)["summary"].as_str(), Some(text.as_str()));
}

/// Issue 8 items 3 and 4: the Compact dialog says whether this compaction lands under the
/// compaction line, and +/- change keepRecentTokens with the plan and the expected size
/// re-prepared as the operator presses them.
#[test]
fn compact_dialog_keep_recent_tokens_and_expected_size() {
    let (dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    let prep = |state: &AppState| match &state.dialog.as_ref().unwrap().prep {
        Some(Prep::Compact(c)) => c.clone(),
        _ => panic!("no compact plan"),
    };
    let c = prep(&state);
    assert_eq!(c.keep_recent_tokens, 1000, "host_a_host configures 1,000");
    let o = c.outlook.as_ref().expect("outlook");
    assert!(o.compaction_can_help, "keep 1,000 lands under the line");
    let s = scrub(screen(&state), dir.path());
    assert!(s.contains("≈17,346, under 28,000 (overhead 13,973)"), "{s}");
    assert_snapshot!("compact_dialog_outlook_80x24", s);

    drive(&mut state, &ctx, key(KeyCode::Tab));
    drive(&mut state, &ctx, ch('+'));
    let c = prep(&state);
    assert_eq!(c.keep_recent_tokens, 2000, "re-prepared at the new value");
    assert!(c.outlook.is_some());
    for _ in 0..4 {
        drive(&mut state, &ctx, ch('+'));
    }
    // 6,000: OpenClaw 2026.9's cut (SPEC §6.1) keeps the newest 6,000 tokens even where the
    // last compaction kept them, and summarizes the rest of what it kept: 23 messages and a
    // split turn's prefix of 1. It is the 6,000 plan, not a stale one.
    let c = prep(&state);
    assert_eq!(
        c.keep_recent_tokens, 6000,
        "the 2,000 plan must not stay on screen"
    );
    assert_eq!((c.messages, c.turn_prefix), (23, 1));
    let s = scrub(screen(&state), dir.path());
    assert!(s.contains("summarize  23 messages"), "{s}");
    for _ in 0..3 {
        drive(&mut state, &ctx, ch('-'));
    }
    let c = prep(&state);
    assert_eq!(c.keep_recent_tokens, 3000);
    assert!(c.messages + c.turn_prefix > 0);
}

/// Issue 18: the TUI and the CLI commit the same bytes for the same summary text, control
/// characters and all (one cleaning, `sanitize::committable`, in the use case's door).
#[test]
fn tui_and_cli_commit_the_same_bytes() {
    let raw =
        "## Goal\u{1b}[31m\tShip\r\n- merge PR #42\u{7}\u{202e}\n## Next Steps\n- deploy\u{9b}";
    // The TUI: the model's answer lands in the preview, committed as is.
    let (_dir, t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    let e = start_generation(&mut state, &ctx);
    done(&mut state, &ctx, &e, raw);
    drive(&mut state, &ctx, ctrl('o'));
    drive(&mut state, &ctx, ch('y'));
    let tui = last_entry(&t);
    assert_eq!(tui["type"], "compaction", "{:?}", state.status);
    // The CLI: the same text from a summary file, on another copy of the same host.
    let h = crate::support::cli::Home::host_a();
    let f = h.path().join("summary.md");
    std::fs::write(&f, raw).unwrap();
    let o = h.run(&[
        "compact",
        "agent:main:main",
        "--no-flush",
        "--keep-recent-tokens",
        "1000",
        "--summary-file",
        f.to_str().unwrap(),
        "--expect-leaf",
        "0d090fcc",
        "--yes",
    ]);
    o.expect(0);
    let cli = last_entry(&h.transcript());
    assert_eq!(tui["summary"], cli["summary"]);
    assert_eq!(tui["firstKeptEntryId"], cli["firstKeptEntryId"]);
    let s = cli["summary"].as_str().unwrap();
    assert!(
        !s.chars().any(|c| c.is_control() && c != '\n'),
        "no control character is committed: {s:?}"
    );
    assert!(s.contains("    Ship") && s.contains("PR #42"), "{s:?}");
}

/// Issue 19: the preview says what the draft would lose of the span it replaces (the previous
/// summary included), and F6 goes back to the instructions with "Keep these exact
/// identifiers: …" added, editable, which the next generation sends.
#[test]
fn preview_audit_and_regenerate_keeping_the_lost_identifiers() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let fake = rt.block_on(FakeModel::start());
    for _ in 0..2 {
        fake.push(Reply::text("## Goal\nShip https://staging.acme.dev/app"));
    }
    let (dir, t, host) = host_a_host(Some(&fake.base_url()));
    std::fs::copy(
        crate::support::fixtures::fixture(crate::support::fixtures::AUDIT_PLANTED),
        &t,
    )
    .unwrap();
    let (mut state, mut ctx) = host_app(host, (120, 40));
    ctx.client.max_attempts = 1;
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    let generate = |state: &mut AppState, ctx: &EffectCtx| {
        let Effect::Generate {
            dialog,
            generation,
            model,
            cancel,
            job,
        } = start_generation(state, ctx)
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
    };
    generate(&mut state, &ctx);
    assert_eq!(state.mode(), Mode::DialogPreview);
    let d = state.dialog.as_ref().unwrap();
    let lost: Vec<&str> = d
        .audit
        .as_ref()
        .unwrap()
        .identifiers
        .as_ref()
        .unwrap()
        .lost
        .iter()
        .map(|h| h.value.as_str())
        .collect();
    assert_eq!(
        lost,
        ["build-778899", "https://github.com/acme/api/pull/4711"]
    );
    let s = scrub(screen(&state), dir.path());
    assert!(
        s.contains("would lose 2:")
            && s.contains("build-778899, https://github.com/acme/api/pull/4711"),
        "{s}"
    );
    assert!(s.contains("audit (F6: ask again, keeping them)"), "{s}");

    drive(&mut state, &ctx, key(KeyCode::F(6)));
    assert_eq!(state.mode(), Mode::DialogEdit);
    let want = "Keep these exact identifiers: build-778899, https://github.com/acme/api/pull/4711";
    let asked = clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().instructions);
    assert_eq!(asked, want);
    // Editable before it is sent.
    type_str(&mut state, &ctx, " and INC-1");
    generate(&mut state, &ctx);
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs[1].raw_body.contains(&format!("{want} and INC-1")),
        "{}",
        reqs[1].raw_body
    );
}

/// Issue 30 item 3: host-a is past its flush line with nothing flushed this cycle. The Compact
/// dialog says so and will not generate until the operator chooses; F3 runs the flush first
/// (the Flush dialog, previewed and confirmed as `f`), then the compaction comes back with
/// its instructions, no flush due any more.
#[test]
fn compact_dialog_flushes_first_then_compacts() {
    let (dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    type_str(&mut state, &ctx, "keep PR numbers");
    let s = screen(&state);
    assert!(
        s.contains("due first: used 40,378 ≥ 24,000 · F3 flush first · F7 skip"),
        "{s}"
    );
    // Generate is refused with the reason, and no model is asked.
    let (_, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
    assert!(pending.is_empty(), "{pending:?}");
    let err = state.dialog.as_ref().unwrap().error.clone().unwrap();
    assert!(err.contains("flush is due") && err.contains("F3"), "{err}");
    // F3: the Flush dialog, remembering the compaction to come back to.
    drive(&mut state, &ctx, key(KeyCode::F(3)));
    let d = state.dialog.as_ref().expect("flush dialog");
    assert_eq!(d.kind, clawtop::tui::dialog::DialogKind::Flush);
    assert!(d.then_compact.is_some());
    let e = start_generation(&mut state, &ctx);
    done(&mut state, &ctx, &e, "- PR #42 is open");
    drive(&mut state, &ctx, ctrl('o'));
    assert_eq!(state.mode(), Mode::Confirm);
    drive(&mut state, &ctx, ch('y'));
    let store = store_entry(dir.path());
    assert_eq!(store["memoryFlushCompactionCount"], 12);
    // The compaction is back, with its instructions, and nothing is due any more.
    let d = state.dialog.as_ref().expect("compact dialog again");
    assert_eq!(d.kind, clawtop::tui::dialog::DialogKind::Compact);
    assert_eq!(d.instructions_text().as_deref(), Some("keep PR numbers"));
    let Some(Prep::Compact(c)) = &d.prep else {
        panic!("plan: {:?}", d.prep_error)
    };
    assert!(clawtop::usecase::compact::flush_due(c).is_none());
    assert!(!screen(&state).contains("F3 flush first"));
    let (_, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
    assert_eq!(pending.len(), 1, "the summary is generated now");
}

/// F7 skips the due flush explicitly: the compaction generates without it.
#[test]
fn compact_dialog_skips_the_flush_on_f7() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, SMALL);
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    drive(&mut state, &ctx, key(KeyCode::F(7)));
    assert!(screen(&state).contains("skipped (F7)"));
    let (_, pending) = drive_collect(&mut state, &ctx, ctrl('g'));
    assert_eq!(pending.len(), 1);
}

/// Issue 30 item 5: the preview's audit follows the draft. Each edit asks for the audit
/// again once the operator pauses (debounced on the clock, run as an effect, never in
/// draw); adding a lost identifier to the text moves it from lost to kept.
#[test]
fn editing_the_draft_re_runs_its_audit() {
    let (dir, t, host) = host_a_host(None);
    std::fs::copy(
        crate::support::fixtures::fixture(crate::support::fixtures::AUDIT_PLANTED),
        &t,
    )
    .unwrap();
    let (mut state, ctx) = host_app(host, (120, 40));
    open_session(&mut state, &ctx);
    drive(&mut state, &ctx, ch('c'));
    let e = start_generation(&mut state, &ctx);
    done(
        &mut state,
        &ctx,
        &e,
        "## Goal\nShip https://staging.acme.dev/app",
    );
    let t0 = state.now_ms;
    let ran = drive(&mut state, &ctx, Action::Tick { now_ms: t0 });
    assert!(ran.iter().any(|e| e.starts_with("AuditDraft")), "{ran:?}");
    let lost = |state: &AppState| -> Vec<String> {
        let a = state
            .dialog
            .as_ref()
            .unwrap()
            .audit
            .as_ref()
            .expect("audit");
        let i = a.identifiers.as_ref().unwrap();
        i.lost.iter().map(|h| h.value.clone()).collect()
    };
    let kept = |state: &AppState| -> Vec<String> {
        let a = state
            .dialog
            .as_ref()
            .unwrap()
            .audit
            .as_ref()
            .expect("audit");
        let i = a.identifiers.as_ref().unwrap();
        i.kept.iter().map(|h| h.value.clone()).collect()
    };
    assert_eq!(
        lost(&state),
        ["build-778899", "https://github.com/acme/api/pull/4711"]
    );
    assert!(!kept(&state).contains(&"build-778899".to_string()));
    // Type the lost identifier into the draft.
    drive(&mut state, &ctx, key(KeyCode::End));
    drive(&mut state, &ctx, ctrl('e'));
    type_str(&mut state, &ctx, " build-778899");
    let text = clawtop::tui::dialog::text_of(&state.dialog.as_ref().unwrap().preview);
    assert!(text.contains("build-778899"), "{text}");
    // Still typing (within the quiet time): no audit yet, the old one stays.
    let ran = drive(&mut state, &ctx, Action::Tick { now_ms: t0 });
    assert!(!ran.iter().any(|e| e.starts_with("AuditDraft")), "{ran:?}");
    // After the pause: audited again, the identifier counted kept.
    let later = t0 + 10 * clawtop::tui::dialog::AUDIT_QUIET_MS;
    let ran = drive(&mut state, &ctx, Action::Tick { now_ms: later });
    assert!(ran.iter().any(|e| e.starts_with("AuditDraft")), "{ran:?}");
    assert_eq!(lost(&state), ["https://github.com/acme/api/pull/4711"]);
    assert!(kept(&state).contains(&"build-778899".to_string()));
    let s = scrub(screen(&state), dir.path());
    assert!(s.contains("would lose 1:"), "{s}");
    // Nothing more to do until the next edit.
    let ran = drive(
        &mut state,
        &ctx,
        Action::Tick {
            now_ms: later + 5_000,
        },
    );
    assert!(!ran.iter().any(|e| e.starts_with("AuditDraft")), "{ran:?}");
}
