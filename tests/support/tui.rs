//! Helpers for the TUI tests: fixture hosts and rows, the headless app, keys, rendering.
#![allow(dead_code)]

use clawtop::source::SourceHandle;
use clawtop::source::transcript_file::TranscriptFile;
use clawtop::tui::TuiLaunch;
use clawtop::tui::action::Action;
use clawtop::tui::app;
use clawtop::tui::effects::{EffectCtx, drive};
use clawtop::tui::state::AppState;
use clawtop::tui::view::{Provenance, SessionLoader, SessionRow, SessionsSnapshot};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Fixed "now" (just after the host-a fixture's last update) so ages are deterministic.
pub const NOW_MS: i64 = 1_795_234_950_000;

use super::fixtures;
pub use super::fixtures::fixture;

pub const HOST_A_TRANSCRIPT: &str =
    "agents/main/sessions/eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl";
pub const LARGE: &str = "pi/large-session.jsonl";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// host-a copied into a temp dir (the TUI never writes, but tests must not risk the fixture).
pub fn host_a() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture(fixtures::HOST_A), dir.path());
    // No gateway: what the screens show must not depend on what listens on this machine's
    // 18789 (a file-backed host with a running gateway is marked). Port 1 refuses at once.
    let cfg = dir.path().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).expect("config");
    let pinned = text.replacen('{', &format!("{{\n  {NO_GATEWAY},"), 1);
    std::fs::write(&cfg, pinned).expect("write config");
    let t = dir.path().join(HOST_A_TRANSCRIPT);
    (dir, t)
}

/// The gateway setting [`host_a`] writes into the copy's config.
pub const NO_GATEWAY: &str = "gateway: { port: 1 }";

pub fn large_session() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = dir.path().join("large-session.jsonl");
    std::fs::copy(fixture(LARGE), &t).expect("copy");
    (dir, t)
}

/// The host-a session as the store reports it (through `store::Host` and the TUI adapter):
/// contextTokens 48000, totalTokens 75943 fresh, compactionCount 12.
pub fn host_a_row(transcript: &Path) -> SessionRow {
    let state_dir = transcript.ancestors().nth(4).expect("state dir");
    let opts = clawtop::store::Options {
        state_dir: Some(state_dir.to_path_buf()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).expect("host");
    let mut snap = clawtop::tui::store_adapter::snapshot(&clawtop::source::for_host(host), None);
    assert_eq!(snap.rows.len(), 1, "{:?}", snap.warnings);
    snap.rows.remove(0)
}

/// One row per status: ok, flush-due, flushed, compact-due, over (>100 %), unknown.
pub fn status_rows(transcript: Option<&Path>) -> Vec<SessionRow> {
    let mk = |agent: &str,
              key: &str,
              model: &str,
              window: u64,
              used: Option<u64>,
              prov: Provenance,
              cc: u64,
              flushed: Option<u64>,
              age_s: i64| {
        let counters = clawtop::thresholds::Counters {
            compaction_count: Some(cc),
            memory_flush_compaction_count: flushed,
            memory_flush_at: flushed.map(|_| NOW_MS - 7_200_000),
            ..Default::default()
        };
        let mut r = SessionRow::with_counters(agent, key, window, used, prov, &counters);
        r.session_id = Some(format!("{agent}-{cc}"));
        r.model = Some(model.into());
        r.updated_at = Some(NOW_MS - age_s * 1000);
        // Rows built by hand have the transcript file as their source.
        r.session = transcript.map(|p| {
            let f = TranscriptFile::new(p);
            let reference = f.reference();
            clawtop::source::SessionHandle::new(Arc::new(f), reference)
        });
        r.transcript = transcript.map(|p| p.display().to_string());
        r
    };
    vec![
        mk(
            "main",
            "agent:main:main",
            "claude-sonnet-4-5",
            200_000,
            Some(41_200),
            Provenance::Fresh,
            0,
            None,
            42,
        ),
        mk(
            "main",
            "agent:main:telegram:direct:55512345",
            "claude-sonnet-4-5",
            200_000,
            Some(177_500),
            Provenance::Fresh,
            3,
            Some(2),
            310,
        ),
        mk(
            "ops",
            "agent:ops:cron:nightly-backup",
            "gpt-5.1",
            200_000,
            Some(177_100),
            Provenance::Transcript,
            7,
            Some(7),
            86_400,
        ),
        mk(
            "ops",
            "agent:ops:discord:channel:1234567890123",
            "gpt-5.1",
            200_000,
            Some(185_000),
            Provenance::Legacy,
            5,
            None,
            3_600,
        ),
        mk(
            "research",
            "agent:research:main",
            "qwen3-coder",
            32_768,
            Some(41_000),
            Provenance::Fresh,
            12,
            Some(11),
            5,
        ),
        mk(
            "research",
            "agent:research:subagent:7f3e",
            "qwen3-coder",
            128_000,
            None,
            Provenance::Unknown,
            0,
            None,
            600_000,
        ),
    ]
}

pub fn loader(rows: Vec<SessionRow>, watch: Vec<PathBuf>) -> SessionLoader {
    Arc::new(move || {
        Ok(SessionsSnapshot {
            rows: rows.clone(),
            watch: watch.clone(),
            label: "/srv/openclaw".into(),
            ..Default::default()
        })
    })
}

/// Starts the app headless (initial effects run synchronously).
pub fn start(launch: TuiLaunch, size: (u16, u16)) -> (AppState, EffectCtx) {
    let (mut state, fx, ctx) = app::init(&launch, NOW_MS, size);
    // Feed the initial effects through the same driver the tests use.
    for e in fx {
        if let Some(a) = clawtop::tui::effects::run_blocking(e, &ctx) {
            drive(&mut state, &ctx, a);
        }
    }
    (state, ctx)
}

pub fn sessions_app(rows: Vec<SessionRow>, size: (u16, u16)) -> (AppState, EffectCtx) {
    start(
        TuiLaunch {
            loader: Some(loader(rows, vec![])),
            ..TuiLaunch::default()
        },
        size,
    )
}

pub fn file_app(path: &Path, size: (u16, u16)) -> (AppState, EffectCtx) {
    start(
        TuiLaunch {
            file: Some(path.to_path_buf()),
            ..TuiLaunch::default()
        },
        size,
    )
}

pub fn key(code: KeyCode) -> Action {
    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn ch(c: char) -> Action {
    key(KeyCode::Char(c))
}

pub fn press(state: &mut AppState, ctx: &EffectCtx, actions: &[Action]) {
    for a in actions {
        drive(state, ctx, a.clone());
    }
}

/// Renders the state into a TestBackend of the state's size.
pub fn render(state: &AppState) -> Buffer {
    let (w, h) = state.size;
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    term.draw(|f| clawtop::tui::draw::draw(f, state))
        .expect("draw");
    term.backend().buffer().clone()
}

/// Buffer as text, one line per row, trailing spaces kept out of the snapshot.
pub fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub fn screen(state: &AppState) -> String {
    text(&render(state))
}

/// host-a copied into a temp dir with its workspace pointed into the copy (a flush must never
/// write the real `~/.openclaw`) and, when given, the `fake` provider's baseUrl pointed at a
/// fake model server (config and the agent's models.json both name it).
pub fn host_a_host(base_url: Option<&str>) -> (tempfile::TempDir, PathBuf, SourceHandle) {
    let (dir, t) = host_a();
    let cfg = dir.path().join("openclaw.json");
    let ws = dir.path().join("workspace");
    let mut text = std::fs::read_to_string(&cfg)
        .expect("config")
        .replace("~/.openclaw/workspace", &ws.display().to_string())
        // host-a's context since its last compaction is small: keep less so there is a plan.
        .replace(
            r#"compaction: { mode: "safeguard" }"#,
            r#"compaction: { mode: "safeguard", keepRecentTokens: 1000 }"#,
        );
    assert!(
        text.contains("keepRecentTokens: 1000"),
        "host-a config changed shape"
    );
    let models = dir.path().join("agents/main/agent/models.json");
    if let Some(url) = base_url {
        text = text.replace("http://127.0.0.1:18999", url);
        let m = std::fs::read_to_string(&models)
            .expect("models.json")
            .replace("http://127.0.0.1:18999", url);
        std::fs::write(&models, m).expect("write models.json");
    }
    std::fs::write(&cfg, text).expect("write config");
    let opts = clawtop::store::Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).expect("host");
    (dir, t, clawtop::source::for_host(host))
}

/// The app on a host-a copy (the real host behind the loader, so the dialogs see its config).
pub fn host_app(host: SourceHandle, size: (u16, u16)) -> (AppState, EffectCtx) {
    let loader = clawtop::tui::store_adapter::host_loader(host, None);
    let (state, mut ctx) = start(
        TuiLaunch {
            loader: Some(loader),
            ..TuiLaunch::default()
        },
        size,
    );
    // No API keys from the test process's environment.
    ctx.env = Some(Arc::new(|_: &str| None));
    (state, ctx)
}

pub fn ctrl(c: char) -> Action {
    Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

pub fn type_str(state: &mut AppState, ctx: &EffectCtx, s: &str) {
    for c in s.chars() {
        drive(
            state,
            ctx,
            if c == '\n' {
                key(KeyCode::Enter)
            } else {
                ch(c)
            },
        );
    }
}

/// The History pane's data: the history the loader computed for the open session.
pub fn pane_history(state: &AppState) -> &clawtop::history::History {
    state
        .session
        .as_ref()
        .and_then(|v| v.loaded.as_ref())
        .and_then(|l| l.history.as_ref())
        .expect("the loader computed the history")
}

/// `clawtop history KEY --json --state-dir STATE` (and `extra`), run from `home`: what the
/// pane is compared with.
pub fn history_json(home: &Path, state: &Path, key: &str, extra: &[&str]) -> serde_json::Value {
    let state = state.display().to_string();
    let mut args = vec!["history", key, "--json", "--state-dir", &state];
    args.extend(extra);
    let out = super::cli::run_with(home, &args, &[]);
    out.expect(0);
    out.json()
}

/// F7 in the Compact dialog when its plan has a flush due first (host-a is past its flush
/// line): the operator's explicit skip, for tests about something else than flushing.
pub fn skip_due_flush(state: &mut AppState, ctx: &EffectCtx) {
    let due = match state.dialog.as_ref().and_then(|d| d.prep.as_ref()) {
        Some(clawtop::tui::dialog::Prep::Compact(c)) => {
            clawtop::usecase::compact::flush_due(c).is_some()
        }
        _ => false,
    };
    if due {
        clawtop::tui::effects::drive(state, ctx, key(crossterm::event::KeyCode::F(7)));
    }
}

/// Issue 33 item 1: `msg` is on the screen whole (its words in order over the bottom lines,
/// however they wrap) and the last line, the footer, ends in the key to help (`? help`).
pub fn assert_whole_with_help(screen: &str, msg: &str) {
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let lines: Vec<&str> = screen.lines().collect();
    let found = (0..lines.len()).any(|from| words(&lines[from..].join(" ")).contains(&words(msg)));
    assert!(found, "message not whole:\n{msg}\n---\n{screen}");
    let last = lines.last().copied().unwrap_or("").trim_end();
    assert!(last.ends_with("? help"), "footer: {last:?}\n{screen}");
}

/// The Sessions title with the state dir (a temp dir's random name, shortened to fit) as
/// `<state>`: what follows the title's last ` · `.
pub fn scrub_title(screen: &str) -> String {
    let mut lines: Vec<String> = screen.lines().map(str::to_string).collect();
    if let Some(first) = lines.first_mut()
        && let Some(at) = first.rfind(" · ")
    {
        first.truncate(at);
        first.push_str(" · <state>");
    }
    lines.join("\n")
}

/// Today's date (the memory file a flush writes is named by it) as `<date>`, whole or cut
/// short by a column's width ("2026-11-2…"): a snapshot must not change with the calendar.
pub fn scrub_today(screen: &str) -> String {
    let today = clawtop::flush::today();
    let mut s = screen.replace(&today, "<date>");
    for cut in (5..today.len()).rev() {
        s = s.replace(&format!("{}…", &today[..cut]), "<date>…");
    }
    s
}
