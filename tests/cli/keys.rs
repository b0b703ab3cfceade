//! Naming sessions on the command line (issue 9): full keys, keys without `agent:<id>:`,
//! sessionIds and their prefixes, ambiguity, `clawtop KEY`, typos, help, `--json` errors.
use crate::support::cli::*;

fn demo(args: &[&str]) -> Out {
    let h = Home::empty();
    let mut a = vec!["--demo"];
    a.extend_from_slice(args);
    run_with(h.path(), &a, &[])
}

fn shown_key(o: &Out) -> String {
    o.expect(0);
    o.json()["sessionKey"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", o.text()))
        .to_string()
}

#[test]
fn show_accepts_every_form_of_a_key() {
    let want = "agent:main:telegram:direct:12345";
    for name in [
        want,
        "telegram:direct:12345",
        "2987e6c1-405b-489f-8f31-371ab4fa8ed1",
        "2987e6c1",
        "2987",
    ] {
        assert_eq!(shown_key(&demo(&["show", name, "--json"])), want, "{name}");
    }
    // Without its agent prefix "main" names two sessions; --agent picks one.
    assert_eq!(
        shown_key(&demo(&["show", "main", "--agent", "ops", "--json"])),
        "agent:ops:main"
    );
}

#[test]
fn ambiguous_names_list_the_candidates() {
    let o = demo(&["show", "main"]);
    o.expect(1);
    assert!(o.stderr.contains("ambiguous: \"main\""), "{}", o.stderr);
    assert!(
        o.stderr.contains("agent:main:main (9e08b9f6")
            && o.stderr.contains("agent:ops:main (f9f4db30")
            && o.stderr.contains("--agent"),
        "{}",
        o.stderr
    );
    // compact and flush resolve the same way (a dry run writes nothing).
    let c = demo(&["compact", "main", "--dry-run"]);
    assert!(c.stderr.contains("ambiguous"), "{}", c.stderr);
    let c = demo(&["compact", "c07ops", "--dry-run"]);
    assert!(!c.stderr.contains("ambiguous"), "{}", c.stderr);
    let f = demo(&["flush", "main", "--dry-run"]);
    assert!(f.stderr.contains("ambiguous"), "{}", f.stderr);
    let f = demo(&["flush", "telegram:direct:12345", "--dry-run"]);
    assert!(
        !f.stderr.contains("ambiguous") && !f.stderr.contains("no session"),
        "{}",
        f.stderr
    );
}

#[test]
fn unknown_name_says_what_was_tried() {
    let o = demo(&["show", "nope"]);
    o.expect(1);
    assert!(
        o.stderr.contains("sessionId prefix") && o.stderr.contains("\"nope\""),
        "{}",
        o.stderr
    );
}

#[test]
fn clawtop_key_is_a_session_not_a_file() {
    // Resolved before the TUI starts: errors name the session, never "transcript file".
    let o = demo(&["agent:ops:main"]);
    o.expect(1);
    assert!(o.stderr.contains("needs a terminal"), "{}", o.stderr);
    assert!(!o.stderr.contains("transcript file"), "{}", o.stderr);
    let o = demo(&["main"]);
    o.expect(1);
    assert!(o.stderr.contains("ambiguous"), "{}", o.stderr);
}

#[test]
fn mistyped_subcommand_is_a_usage_error_with_a_suggestion() {
    for (typo, want) in [
        ("lsit", "list"),
        ("shwo", "show"),
        ("chek", "check"),
        ("metric", "metrics"),
    ] {
        let o = demo(&[typo]);
        o.expect(2);
        assert!(
            o.stderr.contains(&format!("did you mean `clawtop {want}`")),
            "{typo}: {}",
            o.stderr
        );
    }
    // Also without any host.
    let h = Home::empty();
    let o = h.run(&["lsit"]);
    o.expect(2);
    assert!(o.stderr.contains("clawtop list"), "{}", o.stderr);
    // A word far from every command is not a typo: the session lookup's error, exit 1.
    demo(&["zzzzzzzz"]).expect(1);
}

#[test]
fn help_documents_every_flag_and_shows_a_key() {
    use clap::CommandFactory;
    let cmd = clawtop::cli::Cli::command();
    fn walk(c: &clap::Command, path: &str) {
        for a in c.get_arguments() {
            let id = a.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            assert!(a.get_help().is_some(), "{path} {id} has no help text");
        }
        for s in c.get_subcommands() {
            walk(s, &format!("{path} {}", s.get_name()));
        }
    }
    walk(&cmd, "clawtop");
    let h = Home::empty();
    let o = h.run(&["--help"]);
    o.expect(0);
    let t = o.text();
    assert!(t.contains("agent:main:telegram:direct:12345"), "{t}");
    assert!(t.contains("without agent:<id>:"), "{t}");
}

#[test]
fn json_failures_print_an_error_object() {
    let o = demo(&["show", "nope", "--json"]);
    o.expect(1);
    let v = o.json();
    assert_eq!(v["exitCode"], 1);
    assert!(v["error"].as_str().unwrap().contains("nope"), "{v}");
    // A usage error under --json, too.
    let o = demo(&["list", "--json", "--bogus"]);
    o.expect(2);
    assert_eq!(o.json()["exitCode"], 2);
    // Refused (a session whose transcript is missing) through compact --json.
    let o = demo(&["compact", "agent:main:subagent:3b9e1d44", "--json", "--yes"]);
    o.expect(3);
    let v = o.json();
    assert_eq!(v["exitCode"], o.code, "{v}");
}
