//! Issue 29: one road for every figure. The TUI's Sessions screen and `list --json` render the
//! same rows (`clawtop::usecase::list::SessionRow`, built by the one list use case) on every
//! fixture host of both eras and the demo: read back through that type, `list --json`'s rows
//! equal the screen's, field for field, problems included; and the screen shows each of them.

use crate::support::cli::{copy_dir, run_with};
use crate::support::fixtures::{self, fixture};
use crate::support::tui::*;
use clawtop::usecase::list::SessionRow;
use crossterm::event::KeyCode;

/// The rows of `list --json` run in `home` with `global`, read back through the row type.
fn cli_rows(home: &std::path::Path, global: &[&str]) -> Vec<SessionRow> {
    let mut args = global.to_vec();
    args.extend(["list", "--json"]);
    let out = run_with(home, &args, &[]);
    out.expect(0);
    let v = out.json();
    v["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| serde_json::from_value(s.clone()).expect("a list --json row reads back"))
        .collect()
}

/// The Sessions screen's rows (what its loader hands it) for the host `source`, after the
/// screen has drawn them: every key is on the screen.
fn tui_rows(source: clawtop::source::SourceHandle) -> Vec<SessionRow> {
    let snap = clawtop::tui::store_adapter::snapshot(&source, None);
    let rows: Vec<SessionRow> = snap.rows.iter().map(|r| r.list.clone()).collect();
    let (state, _ctx) = host_app(source, (200, 40));
    let screen = screen(&state);
    for r in &rows {
        let short = r.key().rsplit(':').next().unwrap();
        assert!(
            screen.contains(short),
            "{} not on the screen:\n{screen}",
            r.key()
        );
    }
    assert_eq!(state.sessions.rows.len(), rows.len());
    rows
}

/// The same sessions in the same order (the screen sorts; `list` keeps the store's order),
/// compared as `list --json` prints them, problems included.
fn assert_same(mut tui: Vec<SessionRow>, mut cli: Vec<SessionRow>, host: &str) {
    assert!(!cli.is_empty(), "{host}: no sessions");
    let by_key = |a: &SessionRow, b: &SessionRow| (a.agent(), a.key()).cmp(&(b.agent(), b.key()));
    tui.sort_by(by_key);
    cli.sort_by(by_key);
    assert_eq!(tui.len(), cli.len(), "{host}");
    // The demo state is unpacked into a new temp dir by each process: its paths differ.
    let json = |r: &SessionRow| {
        let text = serde_json::to_string(r).unwrap();
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("clawtop-demo-") {
            out.push_str(&rest[..at]);
            out.push_str("DEMO");
            rest = &rest[at..];
            rest = &rest[rest.find('/').unwrap_or(rest.len())..];
        }
        out.push_str(rest);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    for (t, c) in tui.iter().zip(&cli) {
        assert_eq!(
            json(t),
            json(c),
            "{host}: {} differs between the Sessions screen and list --json",
            c.key()
        );
    }
}

fn open(state_dir: &std::path::Path) -> clawtop::source::SourceHandle {
    let opts = clawtop::store::Options {
        state_dir: Some(state_dir.to_path_buf()),
        ..Default::default()
    };
    clawtop::source::for_host(
        clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).expect("host"),
    )
}

#[test]
fn sessions_screen_and_list_json_are_the_same_rows_on_every_fixture_host() {
    // 2026.2.26, file-backed: its one session is compact-due and compacted before.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a/.openclaw");
    copy_dir(&fixture(fixtures::HOST_A), &a);
    let sd = a.display().to_string();
    let cli = cli_rows(dir.path(), &["--state-dir", &sd]);
    assert!(
        cli.iter()
            .any(|r| r.problems.iter().any(|p| p.code == "compact-due")),
        "host-a's row carries its problems: {:?}",
        cli.iter().map(|r| &r.problems).collect::<Vec<_>>()
    );
    assert_same(tui_rows(open(&a)), cli, "host-a");
    // 2026.9.6, SQLite.
    let f = dir.path().join("f");
    copy_dir(&fixture(fixtures::HOST_F), &f);
    let state = f.join("state");
    let sd = state.display().to_string();
    assert_same(
        tui_rows(open(&state)),
        cli_rows(dir.path(), &["--state-dir", &sd]),
        "host-f",
    );
    // The demo host.
    let e = tempfile::tempdir().unwrap();
    let demo = clawtop::source::for_host(clawtop::store::Host::demo().expect("demo"));
    assert_same(tui_rows(demo), cli_rows(e.path(), &["--demo"]), "demo");
}

/// Issue 30 item 6: one context figure on the Session screen. On the 2026.9.6 session whose
/// store holds the last call's prompt (29,144) while the transcript's figure adds that call's
/// reply (31,516), the context view measures the room to each line from `used`, in the words
/// `show` prints, and names the transcript's figure where its parts are summed — no second
/// unnamed "in context" figure, and no "over the flush line" beside a verdict that says the
/// flush line is not reached.
#[test]
fn the_context_view_says_one_figure_and_names_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    copy_dir(&fixture(fixtures::HOST_F), &f);
    let state = f.join("state");
    let sd = state.display().to_string();
    let k = "agent:main:incident-7";
    let show = run_with(dir.path(), &["--state-dir", &sd, "show", k], &[]);
    show.expect(0);
    let text = show.text();
    let context = text
        .lines()
        .find(|l| l.starts_with("context "))
        .expect("a context line")["context".len()..]
        .trim()
        .to_string();
    assert!(
        context.starts_with("used 29,144 of window 48,000;")
            && context.contains("to flush line 30,000: 856 free"),
        "{context}"
    );
    assert!(
        text.contains("its parts: the transcript's context 31,516"),
        "{text}"
    );
    let json = run_with(dir.path(), &["--state-dir", &sd, "show", k, "--json"], &[]);
    let v = json.json();
    let b = &v["contextBreakdown"];
    let parts: u64 = b["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(
        b["totalTokens"], parts,
        "the parts sum to the figure they break down"
    );
    assert_eq!(b["totalTokens"], v["transcriptContext"]["tokens"]);
    assert_eq!(b["breaksDown"], "transcriptContext");
    assert_eq!(b["used"], v["used"]);
    assert_eq!(b["freeToFlush"], 30000 - 29144);

    let (mut st, ctx) = host_app(open(&state), (120, 40));
    press(&mut st, &ctx, &[ch('/')]);
    type_str(&mut st, &ctx, "incident-7");
    press(&mut st, &ctx, &[key(KeyCode::Enter), key(KeyCode::Enter)]);
    let screen_text = screen(&st);
    assert!(screen_text.contains("29,144"), "{screen_text}");
    press(&mut st, &ctx, &[ch('i')]);
    let body = &st.session.as_ref().unwrap().detail.as_ref().unwrap().body;
    assert!(
        body.contains(&context),
        "the show line {context:?} in:\n{body}"
    );
    assert!(
        body.contains("its parts: the transcript's context 31,516"),
        "{body}"
    );
    assert!(!body.contains("in context:"), "{body}");
}
