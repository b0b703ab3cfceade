//! The Summaries screen's export (a file, never overwritten without asking) and diff (what a
//! compaction dropped from the summary before it and what it added), headless, with
//! snapshots at 80×24 and 120×40.

use crate::support::fixtures::AUDIT_PLANTED;
use crate::support::tui::*;
use clawtop::tui::action::Action;
use clawtop::tui::effects::drive;
use clawtop::tui::state::Screen;
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use ratatui::style::Modifier;

const TWO: &str = "transcripts/v3-two-compactions.jsonl";

/// The two-compaction transcript on its Summaries screen, the second compaction selected.
fn on_second(
    size: (u16, u16),
) -> (
    clawtop::tui::state::AppState,
    clawtop::tui::effects::EffectCtx,
) {
    let (mut state, ctx) = file_app(&fixture(TWO), size);
    press(&mut state, &ctx, &[ch('S')]);
    assert_eq!(state.screen(), Screen::Summaries);
    if state.summaries.selected == 0 {
        press(&mut state, &ctx, &[ch('n')]);
    }
    assert_eq!(state.summaries.selected, 1);
    (state, ctx)
}

fn replace_prompt_text(
    state: &mut clawtop::tui::state::AppState,
    ctx: &clawtop::tui::effects::EffectCtx,
    text: &str,
) {
    let n = state
        .session
        .as_ref()
        .and_then(|v| v.prompt.as_ref())
        .map(|p| p.text.chars().count())
        .expect("a prompt");
    for _ in 0..n {
        drive(state, ctx, key(KeyCode::Backspace));
    }
    type_str(state, ctx, text);
}

#[test]
fn the_diff_shows_what_the_compaction_dropped_and_added() {
    for (size, name) in [
        ((80, 24), "summaries_diff_80x24"),
        ((120, 40), "summaries_diff_120x40"),
    ] {
        let (mut state, ctx) = on_second(size);
        press(&mut state, &ctx, &[ch('d')]);
        let s = screen(&state);
        assert!(s.contains("Against compaction 1/2 621c5587"), "{s}");
        // Both summaries keep the constraint; the goal line was rewritten.
        assert!(
            s.contains("- Audit the config loader and add an export-bucket override."),
            "{s}"
        );
        assert!(
            s.contains("+ Audit the config loader; add and document an export-bucket override."),
            "{s}"
        );
        assert!(s.contains("  - Keep the public CLI flags unchanged"), "{s}");
        assert_snapshot!(name, s);
    }
    // The first compaction has nothing before it; `d` again shows the summary.
    let (mut state, ctx) = on_second((80, 24));
    press(&mut state, &ctx, &[ch('d'), ch('p')]);
    assert!(screen(&state).contains("The first compaction"));
    press(&mut state, &ctx, &[ch('d')]);
    assert!(screen(&state).contains("── summary ──"));
}

#[test]
fn export_writes_the_raw_summary_and_asks_before_overwriting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("second.md");
    let (mut state, ctx) = on_second((80, 24));
    press(&mut state, &ctx, &[ch('e')]);
    // The default: the session's file name (a bare file has no key) and the compaction's number.
    let s = screen(&state);
    assert_snapshot!("summaries_export_prompt_80x24", s);
    let typed = state
        .session
        .as_ref()
        .unwrap()
        .prompt
        .as_ref()
        .unwrap()
        .text
        .clone();
    assert!(
        typed.starts_with("./") && typed.ends_with("-compaction-2.md"),
        "{typed}"
    );
    // Letters type into the prompt; `q` and `d` do not run commands.
    replace_prompt_text(&mut state, &ctx, &out.display().to_string());
    assert_eq!(state.screen(), Screen::Summaries);
    assert!(!state.summaries.diff);
    drive(&mut state, &ctx, key(KeyCode::Enter));
    let written = std::fs::read_to_string(&out).expect("exported");
    let raw = std::fs::read_to_string(fixture(TWO)).expect("fixture");
    let entry: serde_json::Value = raw
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["id"] == "fe633579")
        .expect("second compaction");
    let summary = entry["summary"].as_str().expect("summary");
    assert!(
        written.starts_with("<!-- clawtop export: summary of compaction fe633579 (2 of 2)"),
        "{written}"
    );
    assert!(
        written.ends_with(&format!("\n\n{summary}\n"))
            || written.ends_with(&format!("\n\n{summary}")),
        "{written}"
    );
    assert!(
        screen(&state).contains("Summary written to"),
        "{}",
        screen(&state)
    );

    // Again to the same file: asked, and `n` keeps it.
    std::fs::write(&out, "mine\n").expect("write");
    press(&mut state, &ctx, &[ch('p'), ch('e')]);
    replace_prompt_text(&mut state, &ctx, &out.display().to_string());
    drive(&mut state, &ctx, key(KeyCode::Enter));
    let s = screen(&state);
    assert!(s.contains("exists. Overwrite? y + Enter"), "{s}");
    let prompt = s.lines().last().unwrap_or("").to_string();
    assert!(
        prompt.ends_with("second.md exists. Overwrite? y + Enter: ▏  Esc keep it"),
        "{prompt}"
    );
    type_str(&mut state, &ctx, "n\n");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine\n");
    assert!(screen(&state).contains("is kept; nothing written"));
    // Esc keeps it too.
    press(&mut state, &ctx, &[ch('e')]);
    replace_prompt_text(&mut state, &ctx, &out.display().to_string());
    drive(&mut state, &ctx, key(KeyCode::Enter));
    drive(&mut state, &ctx, key(KeyCode::Esc));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine\n");
    assert_eq!(
        state.screen(),
        Screen::Summaries,
        "Esc closed the prompt only"
    );
    // `y` replaces it with the first summary.
    press(&mut state, &ctx, &[ch('e')]);
    replace_prompt_text(&mut state, &ctx, &out.display().to_string());
    type_str(&mut state, &ctx, "\ny\n");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains("compaction 621c5587 (1 of 2)"),
        "{written}"
    );
    // A directory that does not exist: an error naming the file, nothing else.
    press(&mut state, &ctx, &[ch('e')]);
    let bad = dir.path().join("no/such/dir/x.md");
    replace_prompt_text(&mut state, &ctx, &bad.display().to_string());
    drive(&mut state, &ctx, key(KeyCode::Enter));
    let err = state.status.error.clone().expect("an error");
    assert!(
        err.contains("cannot write") && err.contains("x.md"),
        "{err}"
    );
    let _ = Action::Refresh;
}

#[test]
fn the_export_prompt_at_120x40() {
    let (mut state, ctx) = on_second((120, 40));
    press(&mut state, &ctx, &[ch('e')]);
    assert_snapshot!("summaries_export_prompt_120x40", screen(&state));
}

/// Issue 19 item 2: on the Summaries screen `]` picks a lost identifier of the selected
/// compaction (marked `›` in the body) and Enter goes back to the Session screen on the entry
/// that held it. The planted transcript's first compaction loses `/var/log/api/error.log`,
/// which first appears in entry `a0000003` (tests/fixtures/README.md).
#[test]
fn a_lost_identifier_jumps_to_the_entry_that_held_it() {
    let (mut state, ctx) = file_app(&fixture(AUDIT_PLANTED), (120, 40));
    press(&mut state, &ctx, &[ch('S')]);
    assert_eq!(state.screen(), Screen::Summaries);
    // Opened on the latest compaction (c0000002): back to the first one.
    press(&mut state, &ctx, &[ch('p')]);
    assert_eq!(state.summaries.selected, 0);
    let lost: Vec<(String, String)> = {
        let l = state.session.as_ref().unwrap().loaded.as_ref().unwrap();
        let card = &l.summaries[0];
        assert_eq!(card.id, "c0000001");
        let i = card.audit.as_ref().unwrap().identifiers.as_ref().unwrap();
        i.lost
            .iter()
            .map(|h| (h.value.clone(), h.entry_id.clone()))
            .collect()
    };
    let mut values: Vec<&str> = lost.iter().map(|(v, _)| v.as_str()).collect();
    values.sort();
    assert_eq!(
        values,
        [
            "/var/log/api/error.log",
            "ABCDEF0123",
            "OPS-204817",
            "db.internal:5432"
        ]
    );
    // Enter before a pick moves nothing and says how to pick.
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(state.screen(), Screen::Summaries);
    assert!(screen(&state).contains("Pick a lost identifier with ]"));
    let k = lost
        .iter()
        .position(|(v, _)| v == "/var/log/api/error.log")
        .unwrap();
    for _ in 0..=k {
        press(&mut state, &ctx, &[ch(']')]);
    }
    assert_eq!(state.summaries.lost, Some(k));
    let s = screen(&state);
    let marked: Vec<&str> = s.lines().filter(|l| l.contains("│› lost")).collect();
    assert_eq!(marked.len(), 1, "{s}");
    assert!(
        marked[0].contains("/var/log/api/error.log  (entry a0000003)"),
        "{s}"
    );
    assert_snapshot!(
        "summaries_lost_picked_120x40",
        s.replace(
            &fixture(AUDIT_PLANTED).display().to_string(),
            "<transcript>"
        )
    );
    // `[` goes back round the list; `]` returns to the same pick.
    press(&mut state, &ctx, &[ch('['), ch(']')]);
    assert_eq!(state.summaries.lost, Some(k));

    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    assert_eq!(state.screen(), Screen::Session);
    let v = state.session.as_ref().unwrap();
    let t = &v.loaded.as_ref().unwrap().transcript;
    assert_eq!(t.display_id(v.selected), "a0000003");
    // The entry landed on holds the identifier.
    let raw = t.raw_line(v.selected).unwrap();
    assert!(String::from_utf8_lossy(&raw).contains("/var/log/api/error.log"));
    let s = screen(&state);
    assert!(
        s.contains("Entry a0000003 held /var/log/api/error.log (lost by compaction c0000001)."),
        "{s}"
    );
    assert_snapshot!(
        "session_after_lost_jump_120x40",
        s.replace(
            &fixture(AUDIT_PLANTED).display().to_string(),
            "<transcript>"
        )
    );
}

/// After the jump the held entry is the one row drawn with the selection style.
#[test]
fn after_the_jump_the_held_entry_is_the_selected_row() {
    let (mut state, ctx) = file_app(&fixture(AUDIT_PLANTED), (120, 40));
    press(&mut state, &ctx, &[ch('S'), ch('p'), ch(']')]);
    let held = {
        let l = state.session.as_ref().unwrap().loaded.as_ref().unwrap();
        let i = l.summaries[0].audit.as_ref().unwrap();
        i.identifiers.as_ref().unwrap().lost[0].entry_id.clone()
    };
    press(&mut state, &ctx, &[key(KeyCode::Enter)]);
    let buf = render(&state);
    let reversed = |x: u16, y: u16| buf[(x, y)].modifier.contains(Modifier::REVERSED);
    let rows: Vec<String> = (0..buf.area.height)
        .filter(|&y| (0..buf.area.width).any(|x| reversed(x, y)))
        .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].contains(&held), "{rows:?} {held}");
}

/// A legacy v1 file has no entry ids: the audit names entries `#index`, and the jump lands
/// on that index (pi's own `before-compaction` session, whose second compaction loses
/// identifiers first held by entry #361).
#[test]
fn a_lost_identifier_of_a_v1_file_jumps_to_its_index() {
    let path = fixture(&format!(
        "{}/before-compaction.jsonl",
        crate::support::fixtures::PI
    ));
    let (mut state, ctx) = file_app(&path, (120, 40));
    press(&mut state, &ctx, &[ch('S')]);
    assert_eq!(state.screen(), Screen::Summaries);
    let (value, held) = {
        let l = state.session.as_ref().unwrap().loaded.as_ref().unwrap();
        let card = &l.summaries[state.summaries.selected];
        let i = card.audit.as_ref().unwrap().identifiers.as_ref().unwrap();
        (i.lost[0].value.clone(), i.lost[0].entry_id.clone())
    };
    assert_eq!(held, "#361");
    press(&mut state, &ctx, &[ch(']'), key(KeyCode::Enter)]);
    assert_eq!(state.screen(), Screen::Session);
    let v = state.session.as_ref().unwrap();
    assert_eq!(v.selected, 361);
    let t = &v.loaded.as_ref().unwrap().transcript;
    let raw = t.raw_line(v.selected).unwrap();
    assert!(String::from_utf8_lossy(&raw).contains(&value), "{value}");
}
