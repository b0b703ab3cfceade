//! The first screen of a session comes before its details (issue 31): the transcript, the
//! next cut and the header's numbers are drawn from the first load, the diagnosis, history
//! and audits (each a pass over the whole transcript) land after it, for the generation
//! they were made for, and a reload keeps the previous ones on screen until its own arrive.
//! The details effects are held back by hand here: no threads, no sleeps.

use crate::support::tui::*;
use clawtop::tui::action::Action;
use clawtop::tui::effects::{Effect, EffectCtx, poll_files, run_blocking};
use clawtop::tui::rows::Details;
use clawtop::tui::state::{AppState, Screen};
use crossterm::event::KeyCode;
use std::collections::VecDeque;
use std::io::Write;

/// Like `drive`, but the details effects are handed back unrun.
fn drive_holding(state: &mut AppState, ctx: &EffectCtx, action: Action) -> Vec<Effect> {
    let mut held = Vec::new();
    let mut queue = VecDeque::from([action]);
    while let Some(a) = queue.pop_front() {
        for e in clawtop::tui::update::update(state, a) {
            if matches!(e, Effect::LoadTranscriptDetails { .. }) {
                held.push(e);
            } else if let Some(next) = run_blocking(e, ctx) {
                queue.push_back(next);
            }
        }
    }
    held
}

fn generation_of(e: &Effect) -> u64 {
    match e {
        Effect::LoadTranscriptDetails { generation, .. } => *generation,
        other => panic!("not a details effect: {other:?}"),
    }
}

fn details(state: &AppState) -> Details {
    state
        .session
        .as_ref()
        .and_then(|v| v.loaded.as_ref())
        .expect("loaded")
        .details
}

fn append_turn(t: &std::path::Path) {
    // One assistant turn after host-a's last entry (`0d090fcc`).
    let line = "{\"type\":\"message\",\"id\":\"a1b2c3d4\",\"parentId\":\"0d090fcc\",\"timestamp\":\"2026-11-21T04:23:19.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"more\"}],\"api\":\"openai-completions\",\"provider\":\"fake\",\"model\":\"fake-model\",\"usage\":{\"input\":30000,\"output\":100,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":30100,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"stop\",\"timestamp\":1795234999000}}\n";
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(t)
        .expect("open");
    f.write_all(line.as_bytes()).expect("append");
}

#[test]
fn the_transcript_and_its_next_cut_show_before_the_details_which_then_land() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, (120, 40));
    let held = drive_holding(&mut state, &ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
    assert_eq!(held.len(), 1, "one details effect: {held:?}");
    let s = screen(&state);
    // The first screen: the entries, the next cut, the header's numbers.
    assert!(s.contains("next cut"), "{s}");
    assert!(s.contains("window"), "{s}");
    let v = state.session.as_ref().expect("session");
    let l = v.loaded.as_ref().expect("loaded");
    assert!(l.numbers.is_some(), "the header's numbers come first");
    assert!(l.next_cut.is_some());
    assert_eq!(l.details, Details::Pending);
    assert!(l.diagnosis.is_none() && l.history.is_none());
    // Pending says so, never "no figures" nor an empty pane.
    assert!(s.contains("measuring…"), "{s}");
    drive_holding(&mut state, &ctx, ch('$'));
    let s = screen(&state);
    assert!(s.contains("cost: still measuring"), "{s}");
    drive_holding(&mut state, &ctx, ch('H'));
    let s = screen(&state);
    assert!(s.contains("still reading the history"), "{s}");
    drive_holding(&mut state, &ctx, ch('i'));
    let s = screen(&state);
    assert!(s.contains("Still measuring the context"), "{s}");
    assert!(s.contains("loading…"), "{s}");
    assert!(
        !state
            .status
            .info
            .as_deref()
            .unwrap_or("")
            .contains("No figures"),
        "{:?}",
        state.status.info
    );

    // The details land: the popup fills, the marks go.
    let answer = run_blocking(held.into_iter().next().expect("held"), &ctx).expect("an answer");
    assert!(matches!(answer, Action::TranscriptDetailsLoaded { .. }));
    assert!(drive_holding(&mut state, &ctx, answer).is_empty());
    assert_eq!(details(&state), Details::Ready);
    let l = state.session.as_ref().unwrap().loaded.as_ref().unwrap();
    assert!(l.diagnosis.is_some() && l.history.is_some());
    let s = screen(&state);
    assert!(s.contains("context · figures · advice"), "{s}");
    assert!(!s.contains("Still measuring"), "{s}");
    assert!(!s.contains("measuring…"), "{s}");
}

#[test]
fn details_of_an_older_load_are_dropped_and_the_newest_land() {
    let (_dir, t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, (120, 40));
    let first = drive_holding(&mut state, &ctx, key(KeyCode::Enter));
    let old = first.into_iter().next().expect("held");
    // The file changes before the first details came back: a new generation.
    append_turn(&t);
    let changed = poll_files(&ctx).expect("a change");
    let second = drive_holding(&mut state, &ctx, changed);
    let new = second.into_iter().next().expect("held again");
    assert!(generation_of(&new) > generation_of(&old));
    let len = state.session.as_ref().unwrap().len();

    // Made on a thread that started before the newer read was dispatched, the old answer
    // (on the shorter transcript) arrives late: dropped.
    let before_the_newer_read = EffectCtx {
        newest_read: Default::default(),
        ..ctx.clone()
    };
    let late = run_blocking(old, &before_the_newer_read).expect("an answer");
    drive_holding(&mut state, &ctx, late);
    assert_eq!(
        details(&state),
        Details::Pending,
        "a stale answer was taken"
    );
    assert!(
        state
            .session
            .as_ref()
            .unwrap()
            .loaded
            .as_ref()
            .unwrap()
            .history
            .is_none()
    );

    let fresh = run_blocking(new, &ctx).expect("an answer");
    drive_holding(&mut state, &ctx, fresh);
    assert_eq!(details(&state), Details::Ready);
    let l = state.session.as_ref().unwrap().loaded.as_ref().unwrap();
    assert_eq!(l.transcript.len(), len as usize);
    let h = l.history.as_ref().expect("history");
    assert_eq!(
        h.turns.last().and_then(|t| t.tokens),
        Some(30_100),
        "the history of the appended turn"
    );

    // Two reads in a row before the first one's details ran: those are not even computed
    // (the newer read was dispatched), the newest are.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
        f.write_all(b"\n").unwrap();
        let changed = poll_files(&ctx).expect("a change");
        held.extend(drive_holding(&mut state, &ctx, changed));
    }
    assert_eq!(held.len(), 2, "{held:?}");
    let newest = held.pop().unwrap();
    let superseded = held.pop().unwrap();
    assert!(generation_of(&superseded) < generation_of(&newest));
    assert!(
        run_blocking(superseded, &ctx).is_none(),
        "a superseded read's details were computed"
    );
    let fresh = run_blocking(newest, &ctx).expect("the newest read's details");
    drive_holding(&mut state, &ctx, fresh);
    assert_eq!(details(&state), Details::Ready);
}

#[test]
fn a_reload_keeps_the_previous_details_on_screen_until_its_own_arrive() {
    let (_dir, t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, (120, 40));
    // Opened fully (the details run with it), the context view open.
    let held = drive_holding(&mut state, &ctx, key(KeyCode::Enter));
    for e in held {
        let a = run_blocking(e, &ctx).expect("an answer");
        drive_holding(&mut state, &ctx, a);
    }
    drive_holding(&mut state, &ctx, ch('i'));
    let before = screen(&state);
    assert!(before.contains("context · figures · advice"), "{before}");
    let last_before = pane_history(&state).turns.last().and_then(|t| t.tokens);
    assert_ne!(last_before, Some(30_100));

    append_turn(&t);
    let changed = poll_files(&ctx).expect("a change");
    let held = drive_holding(&mut state, &ctx, changed);
    assert_eq!(held.len(), 1, "{held:?}");
    // Reloaded: the new transcript is on screen, the previous figures with it (no blank).
    assert_eq!(details(&state), Details::Previous);
    let l = state.session.as_ref().unwrap().loaded.as_ref().unwrap();
    assert!(l.diagnosis.is_some(), "the diagnosis flickered away");
    assert_eq!(
        pane_history(&state).turns.last().and_then(|t| t.tokens),
        last_before
    );
    let s = screen(&state);
    assert!(s.contains("context · figures · advice"), "{s}");
    assert!(!s.contains("Still measuring"), "{s}");
    assert!(!s.contains("measuring…"), "{s}");

    let a = run_blocking(held.into_iter().next().unwrap(), &ctx).expect("an answer");
    drive_holding(&mut state, &ctx, a);
    assert_eq!(details(&state), Details::Ready);
    assert_eq!(
        pane_history(&state).turns.last().and_then(|t| t.tokens),
        Some(30_100),
        "the new history"
    );
}

#[test]
fn the_first_load_and_its_details_equal_the_whole_load() {
    let (_dir, _t, host) = host_a_host(None);
    let snap = clawtop::tui::store_adapter::snapshot(&host, None);
    let handle = snap.rows[0].session.clone().expect("a listed session");
    let whole = clawtop::tui::runtime::transcript::load_transcript(
        &handle,
        0,
        &[],
        &mut Default::default(),
    )
    .expect("whole");
    let mut first = clawtop::tui::runtime::transcript::load_first(&handle, 0).expect("first");
    assert_eq!(first.details, Details::Pending);
    assert_eq!(first.numbers, whole.numbers);
    let basis = first.basis.clone().expect("basis");
    let d = clawtop::tui::runtime::transcript::load_details(
        &handle,
        &first.transcript,
        first.keep_recent_tokens,
        &basis,
        &[],
        &mut Default::default(),
        &|| false,
    )
    .expect("not superseded");
    first.set_details(d);
    assert_eq!(
        format!("{:?}", first.diagnosis),
        format!("{:?}", whole.diagnosis)
    );
    assert_eq!(
        format!("{:?}", first.history),
        format!("{:?}", whole.history)
    );
    assert_eq!(first.summaries, whole.summaries);
    // And the diagnosis is `show`'s: one function for both.
    let (d, _, _) = clawtop::diagnosis::gather::for_handle(
        &handle,
        &first.transcript,
        first.keep_recent_tokens,
    );
    assert_eq!(
        format!("{:?}", first.diagnosis.as_deref()),
        format!("{:?}", d.as_ref())
    );
}

#[test]
fn compactions_say_they_are_being_audited_until_the_audits_land() {
    let (_dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, (120, 40));
    let held = drive_holding(&mut state, &ctx, key(KeyCode::Enter));
    drive_holding(&mut state, &ctx, ch('S'));
    assert_eq!(state.screen(), Screen::Summaries);
    let s = screen(&state);
    assert!(s.contains("auditing…"), "{s}");
    // `]` picks a lost identifier: not "no audit" while it is being made.
    drive_holding(&mut state, &ctx, ch(']'));
    let info = state.status.info.clone().unwrap_or_default();
    assert!(info.contains("Still auditing"), "{info}");
    for e in held {
        let a = run_blocking(e, &ctx).expect("an answer");
        drive_holding(&mut state, &ctx, a);
    }
    let s = screen(&state);
    assert!(!s.contains("auditing…"), "{s}");
    let l = state.session.as_ref().unwrap().loaded.as_ref().unwrap();
    assert!(
        l.summaries.iter().any(|c| c.audit.is_some()),
        "the audits landed on their cards"
    );
    assert!(s.contains(" lost"), "a badge: {s}");
}

/// The Compact dialog opened before the diagnosis landed, on a session whose own
/// keepRecentTokens leaves nothing to summarize (labels.rs's host): once the suggestion is
/// known the plan is asked again and the suggestion prefilled, as when it was known at once.
#[test]
fn a_compact_dialog_opened_before_the_diagnosis_gets_its_suggestion() {
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
    assert!(text.contains("keepRecentTokens: 100000"), "host-a changed");
    std::fs::write(&cfg, text).unwrap();
    let opts = clawtop::store::Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).unwrap();
    let (mut state, ctx) = host_app(clawtop::source::for_host(host), (120, 40));
    let held = drive_holding(&mut state, &ctx, key(KeyCode::Enter));
    drive_holding(&mut state, &ctx, ch('c'));
    let d = state.dialog.as_ref().expect("the Compact dialog");
    assert_eq!(d.keep, None, "nothing to prefill yet");
    assert!(
        d.prep.is_none() && d.prep_error.is_some(),
        "no plan at 100,000"
    );
    for e in held {
        let a = run_blocking(e, &ctx).expect("an answer");
        drive_holding(&mut state, &ctx, a);
    }
    let suggested = state
        .session
        .as_ref()
        .and_then(|v| v.loaded.as_ref())
        .and_then(|l| l.diagnosis.as_ref())
        .and_then(|d| d.suggested_keep_recent_tokens)
        .expect("a suggestion");
    let d = state.dialog.as_ref().unwrap();
    assert_eq!(d.keep, Some(suggested), "prefilled once known");
    let Some(clawtop::tui::dialog::Prep::Compact(c)) = &d.prep else {
        panic!("the plan for the suggestion: {:?}", d.prep_error)
    };
    assert_eq!(c.keep_recent_tokens, suggested);
}
