//! Every figure follows file changes (issue 9): an appended turn reaches the Session header
//! and the Sessions list through the poll tick, a change made before the first poll is not
//! missed, and a store figure older than the transcript's last entry is marked stale. The
//! poll is driven by hand: no sleeps.

use crate::support::tui::*;
use clawtop::tui::action::Action;
use clawtop::tui::effects::{drive, poll_files};
use clawtop::tui::state::Screen;
use crossterm::event::KeyCode;
use std::io::Write;
use std::path::Path;

/// One assistant turn after the fixture's last entry (`0d090fcc`, 04:22:23.655Z), with usage.
fn turn(id: &str, parent: &str, at: &str, input: u64) -> String {
    format!(
        "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":\"{parent}\",\"timestamp\":\"{at}\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"more\"}}],\"api\":\"openai-completions\",\"provider\":\"fake\",\"model\":\"fake-model\",\"usage\":{{\"input\":{input},\"output\":100,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":{},\"cost\":{{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}}}},\"stopReason\":\"stop\",\"timestamp\":1795234999000}}}}\n",
        input + 100
    )
}

fn append(p: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(p)
        .expect("open");
    f.write_all(line.as_bytes()).expect("append");
}

/// The store entry without a usable totalTokens: its figure is estimated from the transcript.
fn drop_store_figure(store: &Path) {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(store).expect("store")).expect("json");
    let e = v["agent:main:main"].as_object_mut().expect("entry");
    e.remove("totalTokens");
    e.remove("totalTokensFresh");
    std::fs::write(store, serde_json::to_string_pretty(&v).expect("json")).expect("write");
}

#[test]
fn an_appended_turn_reaches_the_header_and_the_list_of_an_estimated_session() {
    let (dir, t, _) = host_a_host(None);
    drop_store_figure(&t.with_file_name("sessions.json"));
    let opts = clawtop::store::Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).expect("host");
    let (mut state, ctx) = host_app(clawtop::source::for_host(host), (120, 40));
    let row = &state.sessions.rows[0];
    assert_eq!(row.used_source, clawtop::tui::Provenance::Transcript);
    let before = row.used.expect("estimated");
    // The transcript is watched with the store (a list of estimated figures follows it).
    assert!(ctx.files.paths().contains(&t), "{:?}", ctx.files.paths());
    drive(&mut state, &ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);

    // Appended before the app ever polled: the first poll still reports it, because the
    // load stamped the file before reading it.
    append(
        &t,
        &turn("a1b2c3d4", "0d090fcc", "2026-11-21T04:23:19.000Z", 150_000),
    );
    let Some(Action::FilesChanged(changed)) = poll_files(&ctx) else {
        panic!("the first poll missed the appended turn");
    };
    assert!(changed.contains(&t), "{changed:?}");
    state.now_ms = NOW_MS + 60_000;
    drive(&mut state, &ctx, Action::FilesChanged(changed));
    let after = state.sessions.rows[0].used.expect("estimated");
    assert_eq!(
        after, 150_100,
        "the estimate is the new turn's usage (was {before})"
    );
    let v = state.session.as_ref().expect("session");
    assert_eq!(v.row.used, Some(150_100), "the header follows the list");
    assert_eq!(v.row.status, clawtop::thresholds::Status::Over);
    let s = screen(&state);
    assert!(s.contains("150,100 ~ transcript"), "{s}");
    // 04:23:30 is NOW_MS + 60 s: when the figures were read.
    assert!(s.contains("read 04:23:30"), "{s}");
    assert!(poll_files(&ctx).is_none(), "reported once");
    drive(&mut state, &ctx, key(KeyCode::Esc));
    let s = screen(&state);
    assert!(s.contains("150k/48k ~"), "{s}");
}

#[test]
fn a_store_figure_older_than_the_transcript_is_marked_stale() {
    let (_dir, t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, (120, 40));
    assert_eq!(
        state.sessions.rows[0].stale, None,
        "{:?}",
        state.sessions.rows[0]
    );
    drive(&mut state, &ctx, key(KeyCode::Enter));
    // The store's run-sum is not the figure used; it is named beside it.
    let s = screen(&state);
    assert!(s.contains("40,378 ~ transcript"), "{s}");
    assert!(s.contains("the store says 75,943 (run-sum)"), "{s}");
    append(
        &t,
        &turn("a1b2c3d4", "0d090fcc", "2026-11-21T04:23:19.000Z", 150_000),
    );
    let a = poll_files(&ctx).expect("a change");
    drive(&mut state, &ctx, a);
    // The store still says 75,943, written before the new turn: the transcript's figure is
    // used, the store's beside it as stale.
    let s = screen(&state);
    assert!(s.contains("150,100 ~ transcript"), "{s}");
    assert!(
        s.contains("stale: the store's 75,943 was written 55.3 s before the newest model call"),
        "{s}"
    );
    drive(&mut state, &ctx, key(KeyCode::Esc));
    let s = screen(&state);
    let line = s.lines().find(|l| l.contains("main")).expect("row");
    assert!(line.starts_with("›!"), "the row's marker: {line}");
}

#[test]
fn a_failed_reload_is_marked_and_the_old_figures_stay() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (_dir, t) = host_a();
    let store = t.with_file_name("sessions.json");
    let (row, watch) = (host_a_row(&t), vec![store.clone()]);
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    // A source that answers once, then fails (a Gateway that went away, an unreadable dir).
    let loader: clawtop::tui::SessionLoader = Arc::new(move || {
        if c.fetch_add(1, Ordering::SeqCst) > 0 {
            return Err(clawtop::tui::ReloadError::Unreadable(vec![
                "the source went away".into(),
            ]));
        }
        Ok(clawtop::tui::SessionsSnapshot {
            rows: vec![row.clone()],
            watch: watch.clone(),
            ..Default::default()
        })
    });
    let (mut state, ctx) = start(
        clawtop::tui::TuiLaunch {
            loader: Some(loader),
            ..Default::default()
        },
        (120, 40),
    );
    // This loader stamps nothing: the first poll is the baseline.
    assert!(poll_files(&ctx).is_none());
    append(&store, " ");
    let a = poll_files(&ctx).expect("the store changed");
    state.now_ms = NOW_MS + 5_000;
    drive(&mut state, &ctx, a);
    let s = screen(&state);
    let title = s.lines().next().unwrap();
    assert!(
        title.contains("read 04:22:30") && title.contains("reload FAILED 04:22:35"),
        "{s}"
    );
    assert!(s.contains("40k/48k"), "the old figures stay: {s}");
    drive(&mut state, &ctx, key(KeyCode::Enter));
    assert!(
        screen(&state)
            .lines()
            .next()
            .unwrap()
            .contains("reload FAILED")
    );
    // The next good reload clears the mark.
    calls.store(0, Ordering::SeqCst);
    drive(&mut state, &ctx, Action::Refresh);
    assert!(!screen(&state).contains("FAILED"));
}

/// The context view (`i`) stays open across a reload and shows the reloaded figures.
#[test]
fn the_context_view_follows_an_appended_turn() {
    let (_dir, t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, (120, 40));
    drive(&mut state, &ctx, key(KeyCode::Enter));
    drive(&mut state, &ctx, ch('i'));
    let before = state
        .session
        .as_ref()
        .unwrap()
        .detail
        .clone()
        .expect("context view");
    append(
        &t,
        &turn("a1b2c3d4", "0d090fcc", "2026-11-21T04:23:19.000Z", 150_000),
    );
    let a = poll_files(&ctx).expect("a change");
    drive(&mut state, &ctx, a);
    let after = state
        .session
        .as_ref()
        .unwrap()
        .detail
        .clone()
        .expect("still open");
    assert_eq!(after.idx, u32::MAX);
    assert_ne!(after.body, before.body, "the figures were recomputed");
    assert!(after.body.contains("150,100"), "{}", after.body);
}

/// Pushed changes (a Gateway source's session events): the list reloads at once, the title
/// says "live" while the channel is up and "reconnecting" while it is not.
#[test]
fn pushed_changes_reload_and_show_the_live_marker() {
    use clawtop::source::Change;
    let (_dir, _t, host) = crate::support::tui::host_a_host(None);
    let (mut state, ctx) = crate::support::tui::host_app(host, (120, 40));
    let s = crate::support::tui::screen(&state);
    assert!(
        !s.contains("live"),
        "a polled source shows no live marker: {s}"
    );
    drive(&mut state, &ctx, Action::SourceChanged(Change::Live(true)));
    let s = crate::support::tui::screen(&state);
    assert!(s.lines().next().unwrap().contains("● live"), "{s}");
    let ran = drive(&mut state, &ctx, Action::SourceChanged(Change::Sessions));
    assert!(ran.iter().any(|e| e == "LoadSessions"), "{ran:?}");
    drive(&mut state, &ctx, Action::SourceChanged(Change::Live(false)));
    let s = crate::support::tui::screen(&state);
    assert!(
        s.lines().next().unwrap().contains("live: reconnecting"),
        "{s}"
    );
}

#[test]
fn a_failed_reload_keeps_the_rows_and_says_why() {
    // Issue 17 item 5: a source that can no longer be read is a failure, not "no sessions":
    // the rows stay, marked with their age, and the status line names the cause.
    let (dir, _t, host) = host_a_host(None);
    let (mut state, ctx) = host_app(host, (120, 40));
    assert_eq!(state.sessions.rows.len(), 1);
    let store = dir.path().join("agents/main/sessions/sessions.json");
    std::fs::remove_file(&store).unwrap();
    std::fs::create_dir(&store).unwrap();
    state.now_ms = NOW_MS + 90_000;
    drive(&mut state, &ctx, ch('r'));
    let s = screen(&state);
    assert!(!s.contains("No sessions found"), "{s}");
    assert_eq!(state.sessions.rows.len(), 1, "the old rows stay");
    assert!(s.contains("40k/48k"), "{s}");
    assert!(s.contains("reload FAILED"), "{s}");
    let err = state.status.error.clone().unwrap_or_default();
    assert!(
        err.starts_with("reload failed: ")
            && err.contains("sessions.json")
            && err.contains("directory"),
        "{err}"
    );
    assert!(err.contains("ago"), "the rows' age: {err}");
}

#[test]
fn a_stale_lock_is_on_the_session_screen() {
    // Issue 17 item 3: what `check` reports as busy-stale-lock, the Session screen says too.
    let (_dir, t, host) = host_a_host(None);
    let pid = crate::support::commit::dead_pid();
    let mut lock = t.clone().into_os_string();
    lock.push(".lock");
    std::fs::write(
        &lock,
        crate::support::commit::lock_payload(pid, &crate::support::commit::now_iso()),
    )
    .unwrap();
    let (mut state, ctx) = host_app(host, (160, 40));
    drive(&mut state, &ctx, key(KeyCode::Enter));
    let s = screen(&state);
    assert!(
        s.contains(&format!(
            "stale transcript lock: its holder (pid {pid}) is dead"
        )),
        "{s}"
    );
}

/// A host whose list takes longer than the poll interval: changes seen while the sessions are
/// read ask for one more read after it, never a second read beside it (they would pile up,
/// and an older read landing last would put older rows back).
#[test]
fn reads_of_the_sessions_never_overlap() {
    use clawtop::tui::update::update;
    let watched = std::path::PathBuf::from("/srv/openclaw/agents/main/sessions/sessions.json");
    let launch = clawtop::tui::TuiLaunch {
        loader: Some(loader(status_rows(None), vec![watched.clone()])),
        ..Default::default()
    };
    let (mut state, fx, ctx) = clawtop::tui::app::init(&launch, NOW_MS, (120, 40));
    let loads = |fx: &[clawtop::tui::effects::Effect]| {
        fx.iter()
            .filter(|e| format!("{e:?}") == "LoadSessions")
            .count()
    };
    assert_eq!(loads(&fx), 1);
    let first =
        clawtop::tui::effects::run_blocking(fx.into_iter().next().unwrap(), &ctx).expect("rows");
    // The first read is under way: its watch list is not set yet, so say what it will watch.
    state.sessions.watch = vec![watched.clone()];
    for _ in 0..3 {
        let fx = update(&mut state, Action::FilesChanged(vec![watched.clone()]));
        assert_eq!(loads(&fx), 0, "no second read beside the first");
        let fx = update(&mut state, Action::Refresh);
        assert_eq!(loads(&fx), 0);
    }
    let fx = update(&mut state, first.clone());
    assert_eq!(loads(&fx), 1, "one more read for all the changes seen");
    assert!(state.sessions.loaded);
    let fx = update(&mut state, first);
    assert_eq!(loads(&fx), 0, "nothing changed during the second");
    let fx = update(&mut state, Action::Refresh);
    assert_eq!(loads(&fx), 1, "idle again: a change reads at once");
}

/// A change to a watched store on the Sessions screen is `quiet` (the runtime draws nothing
/// for it): the screen drawn after it is the one drawn before, and the answer it asks for is
/// drawn. With the Session screen open on a changed transcript it is not quiet (the screen
/// says it is reading).
#[test]
fn a_store_change_alone_changes_nothing_on_screen_until_its_answer() {
    use clawtop::tui::update::{quiet, update};
    let (dir, t, _) = host_a_host(None);
    let store = t.with_file_name("sessions.json");
    drop_store_figure(&store);
    let opts = clawtop::store::Options {
        state_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).expect("host");
    let (mut state, ctx) = host_app(clawtop::source::for_host(host), (120, 40));
    append(
        &t,
        &turn("a1b2c3d4", "0d090fcc", "2026-11-21T04:23:19.000Z", 150_000),
    );
    let change = Action::FilesChanged(vec![store.clone(), t.clone()]);
    assert!(quiet(&state, &change));
    let before = screen(&state);
    let fx = update(&mut state, change.clone());
    assert_eq!(
        screen(&state),
        before,
        "a quiet action left the screen as it was"
    );
    assert_eq!(fx.len(), 1, "{fx:?}");
    let answer =
        clawtop::tui::effects::run_blocking(fx.into_iter().next().unwrap(), &ctx).expect("rows");
    update(&mut state, answer);
    assert_ne!(screen(&state), before, "the answer is drawn");

    drive(&mut state, &ctx, key(KeyCode::Enter));
    assert_eq!(state.screen(), Screen::Session);
    assert!(!quiet(&state, &change), "the open transcript changed");
    assert!(quiet(&state, &Action::FilesChanged(vec![store])));
    assert!(!quiet(&state, &Action::Tick { now_ms: NOW_MS }));
}
