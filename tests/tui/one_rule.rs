//! Rules that were written more than once and disagreed, each now one function: the TUI and
//! the CLI must give the same answer (issue 18, item 2). Each test fails if a second copy
//! comes back with its own result.

use crate::support::tui::*;
use clawtop::source::transcript_file::TranscriptFile;
use clawtop::store::{Env, Host, Options};
use clawtop::tui::store_adapter;

/// keepRecentTokens 0 from the Session screen means "the config's". The TUI's transcript
/// loader turned 0 into the built-in 20000 while the CLI and the use cases read the config
/// (`thresholds::Settings::keep_recent` is now the one rule).
#[test]
fn keep_recent_tokens_zero_is_the_configs_in_the_tui_as_in_the_use_cases() {
    let (dir, _t) = host_a();
    let cfg = dir.path().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).expect("config");
    let text = text.replacen(
        r#"compaction: { mode: "safeguard" }"#,
        r#"compaction: { mode: "safeguard", keepRecentTokens: 5000 }"#,
        1,
    );
    assert!(text.contains("keepRecentTokens: 5000"), "fixture changed");
    std::fs::write(&cfg, text).expect("write config");
    let opts = Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    let source = clawtop::source::for_host(Host::open(&opts, &Env::default()).expect("host"));
    let settings = clawtop::thresholds::Settings::from_config(source.config());
    assert_eq!(settings.keep_recent(Some(0)).value, 5000);
    assert_eq!(settings.keep_recent(None).value, 5000);
    assert_eq!(settings.keep_recent(Some(7000)).value, 7000);

    let snap = store_adapter::snapshot(&source, None);
    let handle = snap.rows[0].session.clone().expect("a listed session");
    let loaded = clawtop::tui::runtime::transcript::load_transcript(
        &handle,
        0,
        &[],
        &mut Default::default(),
    )
    .expect("transcript");
    assert_eq!(
        loaded.keep_recent_tokens, 5000,
        "the TUI reads the config too"
    );
    let typed = clawtop::tui::runtime::transcript::load_transcript(
        &handle,
        9000,
        &[],
        &mut Default::default(),
    )
    .expect("transcript");
    assert_eq!(typed.keep_recent_tokens, 9000);
}

/// A bare transcript's numbers: `show FILE` and the TUI's row for a bare file computed the
/// window and settings each their own way (different window wording, an empty config object
/// against null). Both now come from one function; every figure and its wording agree.
#[test]
fn a_bare_transcripts_numbers_agree_between_show_and_the_tui() {
    let path = fixture("pi/large-session.jsonl");
    let file = TranscriptFile::new(&path);
    let (report, t) = clawtop::report::show::for_file(&file, None, false).expect("show FILE");
    let row = store_adapter::bare_row(Some(&t));
    let shown = &report.row;
    assert_eq!(
        (
            row.window,
            row.used,
            row.reserve,
            row.compact_at,
            row.flush_at
        ),
        (
            shown.window,
            shown.used,
            shown.reserve,
            shown.compact_at,
            shown.flush_at
        )
    );
    assert!(row.used.is_some(), "used comes from the transcript");
    // The TUI adds the source in brackets (`[default]`); the words are show's.
    assert!(
        row.sources
            .window
            .starts_with(&report.sources.window_detail),
        "{} / {}",
        row.sources.window,
        report.sources.window_detail
    );
    assert_eq!(row.window, 200_000);
}

/// Issue 33 item 4: one mark per meaning on both surfaces. The same row, estimated after a
/// compaction, no compaction count and no forecast, reads `*` and `-` in `list` and on the
/// Sessions screen (the TUI once drew `≈` and `—`), and both legends give the mark the
/// same word.
#[test]
fn list_and_the_sessions_screen_mark_a_figure_alike() {
    use clawtop::report::marks;
    let mut row = clawtop::tui::view::SessionRow::with_counters(
        "main",
        "agent:main:main",
        200_000,
        Some(30_000),
        clawtop::thresholds::UsedSource::Estimated,
        &Default::default(),
    );
    row.compaction_count = None;
    let report = clawtop::report::list::ListReport {
        sessions: vec![row.list.clone()],
        ..Default::default()
    };
    let cli = clawtop::report::list::render(&report, NOW_MS, Some(120));
    let cli_row = cli.lines().nth(1).unwrap();
    assert!(cli_row.contains(" *30k/200k "), "{cli}");
    let cells: Vec<&str> = cli_row.split_whitespace().collect();
    // CMP and ETA, the last two cells.
    assert_eq!(
        cells[cells.len() - 2..],
        [marks::NONE, marks::NONE],
        "{cli}"
    );

    let (state, _) = sessions_app(vec![row], (120, 12));
    let s = screen(&state);
    assert!(!s.contains('≈') && !s.contains('—'), "{s}");
    let tui_row = s.lines().find(|l| l.starts_with('›')).unwrap();
    assert!(tui_row.contains("30k/200k * "), "{s}");
    let header = s.lines().find(|l| l.contains("AGENT")).unwrap();
    for col in ["CMP", "ETA"] {
        let at = header.find(col).unwrap_or_else(|| panic!("{col}: {s}")) + col.len() - 1;
        assert_eq!(tui_row.chars().nth(at), Some('-'), "{col}: {s}");
    }
    for (m, word, _) in marks::USED.iter().filter(|(m, _, _)| m.is_ascii()) {
        let entry = format!("{m} {word}");
        assert!(cli.contains(&entry), "list's legend lacks {entry}: {cli}");
        assert!(s.contains(&entry), "the screen's legend lacks {entry}: {s}");
    }
}
