//! The fleet TUI headless: state + update + effects driven by hand (no sleeps, no threads),
//! the screens rendered into a TestBackend.

use crate::fake::Fleet;
use crate::support::tui::{NOW_MS, text};
use clawtop::fleet::{HostResult, hosts};
use clawtop::tui::draw::fleet::draw;
use clawtop::tui::model::fleet::{FleetAction, FleetEffect, FleetItem, FleetScreen, FleetState};
use clawtop::tui::update::fleet::{init, update};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn screen(s: &FleetState, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(f, s)).unwrap();
    text(term.backend().buffer())
}

fn key(s: &mut FleetState, code: KeyCode) -> Vec<FleetEffect> {
    update(s, FleetAction::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// Runs the reads asked for, as the app's threads would, answering at `at_ms`. The ssh
/// host's answer is the JSON clawtop prints on that host, read back as a remote's.
fn answer(f: &Fleet, s: &mut FleetState, fx: Vec<FleetEffect>, at_ms: i64) {
    for e in fx {
        let FleetEffect::Read(i) = e else {
            panic!("not a read: {e:?}")
        };
        let spec = s.hosts[i].spec.clone();
        let mut result: HostResult = match &spec.transport {
            hosts::Transport::Ssh { .. } => {
                let json = f.local_list("remote f/state");
                let bytes = serde_json::to_vec(&json).unwrap();
                HostResult {
                    name: spec.name.clone(),
                    kind: "ssh",
                    at_ms,
                    took_ms: 0,
                    outcome: clawtop::fleet::parse_remote(&spec.name, &bytes, 0, ""),
                }
            }
            _ => clawtop::fleet::read_host(&spec, Some(f.path())),
        };
        result.at_ms = at_ms;
        assert!(
            update(
                s,
                FleetAction::HostRead {
                    index: i,
                    result: Box::new(result)
                }
            )
            .is_empty()
        );
    }
}

fn fleet_state(f: &Fleet) -> FleetState {
    let d = f.path();
    let text = format!(
        "[[host]]\nname = \"a\"\nstate_dir = {:?}\n\n\
         [[host]]\nname = \"f\"\nstate_dir = {:?}\n\n\
         [[host]]\nname = \"p1\"\nssh = \"ops@f\"\nstate_dir = \"~/remote f/state\"\n\n\
         [[host]]\nname = \"down\"\nstate_dir = {:?}\n",
        d.join("here/.openclaw").display().to_string(),
        d.join("remote f/state").display().to_string(),
        d.join("nowhere").display().to_string(),
    );
    let specs = hosts::parse(&text, std::path::Path::new("hosts.toml"), Some(d)).unwrap();
    FleetState::new(specs, NOW_MS, "clawtop-under-test".into())
}

#[test]
fn fleet_screen_then_a_host_then_its_session_on_the_host_and_back() {
    let f = Fleet::new();
    let mut s = fleet_state(&f);
    let fx = init(&mut s);
    assert_eq!(fx, (0..4).map(FleetEffect::Read).collect::<Vec<_>>());
    // Nothing read yet: the screen says so, without blocking on any host.
    assert!(screen(&s, 110, 9).contains("reading 4"));
    answer(&f, &mut s, fx, NOW_MS - 5_000);
    let fleet = screen(&s, 110, 9);
    insta::assert_snapshot!(
        "fleet_screen",
        fleet.replace(&f.path().display().to_string(), "<tmp>")
    );

    // A failing host is asked again later than the others (backoff), and `r` asks everyone.
    let fx = update(
        &mut s,
        FleetAction::Tick {
            now_ms: NOW_MS + 30_001,
        },
    );
    assert_eq!(
        fx,
        [
            FleetEffect::Read(0),
            FleetEffect::Read(1),
            FleetEffect::Read(2)
        ]
    );
    answer(&f, &mut s, fx, NOW_MS + 30_001);
    let fx = update(
        &mut s,
        FleetAction::Tick {
            now_ms: NOW_MS + 60_000,
        },
    );
    assert_eq!(fx, [FleetEffect::Read(3)]);
    answer(&f, &mut s, fx, NOW_MS + 60_000);
    assert_eq!(s.hosts[3].failures, 2);
    assert_eq!(s.hosts[3].next_due_ms, NOW_MS + 60_000 + 120_000);
    assert_eq!(key(&mut s, KeyCode::Char('r')).len(), 4);
    answer(
        &f,
        &mut s,
        (0..4).map(FleetEffect::Read).collect(),
        NOW_MS + 60_001,
    );

    // Enter into p1: its sessions only.
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Down);
    assert!(key(&mut s, KeyCode::Enter).is_empty());
    assert_eq!(s.screen, FleetScreen::Sessions);
    let sessions = screen(&s, 110, 8);
    insta::assert_snapshot!("fleet_sessions_of_p1", sessions);
    assert_eq!(s.sessions().len(), 3);
    assert!(s.sessions().iter().all(|it| it.host() == 2));
    // Enter on a session: the terminal goes to clawtop on p1, on that session, which ends
    // with it (`q` there is the fleet again in one step).
    let FleetItem::Session { row, .. } = s.sessions()[0] else {
        panic!("a session row")
    };
    let key_of_first = row.session_key.clone().unwrap();
    let fx = key(&mut s, KeyCode::Enter);
    assert_eq!(
        fx,
        [FleetEffect::Open {
            program: "ssh".into(),
            args: [
                "-t",
                "--",
                "ops@f",
                "clawtop",
                "--state-dir",
                "~/'remote f/state'",
                "--session-only",
                "--",
                &key_of_first
            ]
            .map(String::from)
            .to_vec(),
        }]
    );
    // Back from the host: every host is read again; Esc is the fleet again.
    let fx = update(&mut s, FleetAction::OpenDone(Ok(Some(0))));
    assert_eq!(fx.len(), 4);
    assert!(screen(&s, 110, 8).contains("back from the host"));
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.screen, FleetScreen::Hosts);
    // `h` on the Sessions screen walks the hosts, then every host.
    key(&mut s, KeyCode::Char('a'));
    assert_eq!(s.host_filter, None);
    key(&mut s, KeyCode::Char('h'));
    assert_eq!(s.host_filter, Some(0));
    // A local host opens with this clawtop and its state dir.
    let fx = key(&mut s, KeyCode::Enter);
    let FleetEffect::Open { program, args } = &fx[0] else {
        panic!()
    };
    assert_eq!(program, "clawtop-under-test");
    assert_eq!(args[0], "--state-dir");
    assert_eq!(args.last().unwrap(), "agent:main:main");
    key(&mut s, KeyCode::Char('q'));
    assert!(s.should_quit);
}

#[test]
fn help_is_made_from_the_keymap() {
    let f = Fleet::new();
    let mut s = fleet_state(&f);
    key(&mut s, KeyCode::Char('?'));
    let help = screen(&s, 110, 14);
    for b in clawtop::tui::model::keymap::for_mode(FleetScreen::Hosts.mode()) {
        assert!(help.contains(b.help), "{}: {help}", b.help);
    }
    // Any key closes it.
    key(&mut s, KeyCode::Char('x'));
    assert!(!s.show_help);
}

#[test]
fn a_host_that_stops_answering_keeps_its_sessions_with_their_age_and_remote_text_is_neutral() {
    let f = Fleet::new();
    let d = f.path();
    let text = format!(
        "[[host]]\nname = \"a\"\nstate_dir = {:?}\n\n[[host]]\nname = \"p1\"\nssh = \"ops@f\"\n",
        d.join("here/.openclaw").display().to_string(),
    );
    let specs = hosts::parse(&text, std::path::Path::new("hosts.toml"), Some(d)).unwrap();
    let mut s = FleetState::new(specs, NOW_MS, "clawtop".into());
    let fx = init(&mut s);
    // p1 answers with hostile text in its store fields.
    let mut json = f.local_list("remote f/state");
    json["sessions"][0]["sessionKey"] = "agent:main:\u{1b}]52;c;cHduZWQ=\u{7}evil".into();
    json["sessions"][0]["agentId"] = "m\u{202e}ain".into();
    let bytes = serde_json::to_vec(&json).unwrap();
    let remote = HostResult {
        name: "p1".into(),
        kind: "ssh",
        at_ms: NOW_MS - 5_000,
        took_ms: 0,
        outcome: clawtop::fleet::parse_remote("p1", &bytes, 0, ""),
    };
    let mut local = clawtop::fleet::read_host(&s.hosts[0].spec, Some(d));
    local.at_ms = NOW_MS - 5_000;
    assert_eq!(fx.len(), 2);
    update(
        &mut s,
        FleetAction::HostRead {
            index: 0,
            result: Box::new(local),
        },
    );
    update(
        &mut s,
        FleetAction::HostRead {
            index: 1,
            result: Box::new(remote),
        },
    );

    // Host a stops answering: its row says so and keeps its last sessions, with their age.
    update(
        &mut s,
        FleetAction::Tick {
            now_ms: NOW_MS + 40_000,
        },
    );
    let failed = HostResult {
        name: "a".into(),
        kind: "local",
        at_ms: NOW_MS + 40_000,
        took_ms: 0,
        // Made raw here (the readers neutralise what they put in): the screen neutralises too.
        outcome: Err(clawtop::fleet::HostError::Open {
            host: "a".into(),
            detail: "\u{1b}[2Jgone".into(),
        }),
    };
    update(
        &mut s,
        FleetAction::HostRead {
            index: 0,
            result: Box::new(failed),
        },
    );
    let fleet = screen(&s, 110, 8);
    let row_a = fleet.lines().find(|l| l.contains(" a ")).unwrap();
    for want in [" no ", " 1 ", "compact-due", "45s ago", "␛[2Jgone"] {
        assert!(row_a.contains(want), "{want:?} in {row_a:?}\n{fleet}");
    }
    key(&mut s, KeyCode::Char('a'));
    let sessions = screen(&s, 110, 10);
    assert!(sessions.contains("agent:main:main"), "{sessions}");
    assert!(
        sessions.contains("agent:main:␛]52;c;cHduZWQ=␇evil"),
        "{sessions}"
    );
    assert!(sessions.contains("m�ain"), "{sessions}");
    assert!(
        !sessions
            .chars()
            .chain(fleet.chars())
            .any(|c| c.is_control() && c != '\n')
    );
}

fn type_keys(s: &mut FleetState, text: &str) {
    for c in text.chars() {
        key(s, KeyCode::Char(c));
    }
}

/// The temp dir's path, or what a column left of it, as `<tmp>` (a snapshot holds no random
/// name).
fn redact(screen: &str, tmp: &str) -> String {
    let mut out = screen.to_string();
    for k in (8..=tmp.len()).rev() {
        if tmp.is_char_boundary(k) {
            out = out.replace(&tmp[..k], "<tmp>");
        }
    }
    out
}

fn last_line(screen: &str) -> String {
    screen.lines().last().unwrap_or("").trim_end().to_string()
}

/// Issue 34, items 3 and 4: the every-host view lists the host that could not be read as one
/// row with its cause; `/` and `s` work there as on one host; at 80×24 the footers end with
/// `? help` and Enter on the failed host shows its whole error.
#[test]
fn every_host_lists_the_failed_host_filters_sorts_and_fits_80_columns() {
    let f = Fleet::new();
    let mut s = fleet_state(&f);
    let fx = init(&mut s);
    answer(&f, &mut s, fx, NOW_MS - 5_000);
    let tmp = f.path().display().to_string();
    let fleet = screen(&s, 80, 24);
    assert!(last_line(&fleet).ends_with("? help"), "{fleet}");
    assert!(fleet.lines().next().unwrap().contains("today"), "{fleet}");
    insta::assert_snapshot!("fleet_screen_80x24", redact(&fleet, &tmp));

    // The failed host: Enter shows all of its error, wrapped; any key closes it.
    let cause = s.hosts[3].error.clone().expect("host down failed");
    assert!(cause.len() > 60, "a cause longer than its column: {cause}");
    for _ in 0..3 {
        key(&mut s, KeyCode::Down);
    }
    assert!(key(&mut s, KeyCode::Enter).is_empty());
    assert_eq!(s.screen, FleetScreen::Hosts);
    let shown = screen(&s, 80, 24);
    let words: String = shown
        .lines()
        .map(|l| l.trim_matches(|c: char| c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat(&words).contains(&flat(&cause)), "{cause}\n{shown}");
    insta::assert_snapshot!("fleet_error_80x24", redact(&shown, &tmp));
    key(&mut s, KeyCode::Char('x'));
    assert!(s.detail.is_none());

    // Every host: the failed host is one row, first, with its cause.
    key(&mut s, KeyCode::Char('a'));
    let n_sessions = {
        let all = s.sessions();
        assert!(
            matches!(all[0], FleetItem::Failed { host: 3, cause: c } if c == cause),
            "{:?}",
            all[0]
        );
        assert!(
            all[1..]
                .iter()
                .all(|it| matches!(it, FleetItem::Session { .. }))
        );
        all.len() - 1
    };
    let every = screen(&s, 80, 24);
    let down = every.lines().find(|l| l.contains("down")).unwrap();
    assert!(
        down.contains("ERROR") && down.contains("state dir"),
        "{every}"
    );
    assert!(last_line(&every).ends_with("? help"), "{every}");
    insta::assert_snapshot!("fleet_every_host_80x24", redact(&every, &tmp));
    // Enter on that row: its whole error.
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.detail.as_deref(), Some(cause.as_str()));
    key(&mut s, KeyCode::Esc);

    // `/` filters as on one host (agent, key, model, status), and by host name.
    key(&mut s, KeyCode::Char('/'));
    type_keys(&mut s, "incident");
    assert!(screen(&s, 80, 24).contains("/incident"));
    key(&mut s, KeyCode::Enter);
    assert!(!s.filtering);
    let hits = s.sessions().len();
    assert!(hits > 0);
    for it in s.sessions() {
        let FleetItem::Session { row, .. } = it else {
            panic!("the failed host does not match: {it:?}")
        };
        assert!(row.key().contains("incident"), "{}", row.key());
    }
    // `q` typed into the filter is a character, not quit.
    key(&mut s, KeyCode::Char('/'));
    key(&mut s, KeyCode::Char('q'));
    assert!(!s.should_quit);
    assert!(s.sessions().is_empty());
    key(&mut s, KeyCode::Backspace);
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.sessions().len(), hits);
    // Esc clears the filter, then goes back.
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.sessions().len(), n_sessions + 1);
    assert_eq!(s.screen, FleetScreen::Sessions);
    key(&mut s, KeyCode::Char('/'));
    type_keys(&mut s, "p1");
    key(&mut s, KeyCode::Enter);
    assert!(s.sessions().iter().all(|it| it.host() == 2));
    assert!(!s.sessions().is_empty());
    key(&mut s, KeyCode::Esc);

    // `s` cycles the single host's orders; the rows follow its comparison.
    key(&mut s, KeyCode::Char('s'));
    assert_eq!(s.sort, clawtop::tui::model::state::SortKey::Updated);
    let rows: Vec<_> = s
        .sessions()
        .into_iter()
        .filter_map(|it| match it {
            FleetItem::Session { row, .. } => Some(row.clone()),
            FleetItem::Failed { .. } => None,
        })
        .collect();
    assert!(rows.windows(2).all(|w| {
        clawtop::tui::model::state::SortKey::Updated.compare(&w[0], &w[1])
            != std::cmp::Ordering::Greater
    }));
    assert!(screen(&s, 80, 24).contains("sorted by updated"));
    // The help at 80×24: every key's text whole (long ones wrap).
    key(&mut s, KeyCode::Char('?'));
    let help = screen(&s, 80, 24);
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let body = flat(
        &help
            .lines()
            .map(|l| l.trim_matches(|c: char| c == '│' || c == ' '))
            .collect::<Vec<_>>()
            .join(" "),
    );
    for b in clawtop::tui::model::keymap::for_mode(FleetScreen::Sessions.mode()) {
        assert!(body.contains(&flat(b.help)), "{}\n{help}", b.help);
    }
    insta::assert_snapshot!("fleet_sessions_help_80x24", redact(&help, &tmp));
    key(&mut s, KeyCode::Char('x'));
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.screen, FleetScreen::Hosts);
}
