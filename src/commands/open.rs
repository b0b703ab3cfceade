//! The TUI from the command line: `clawtop`, `clawtop KEY`, `clawtop FILE.jsonl`, `clawtop
//! open FILE`, `clawtop --gateway URL`.

use super::args::*;
use super::host::*;
use crate::source::lookup::Lookup;
use crate::store::{Host, Launch, StoreError};
use crate::usecase::Exit;
use std::path::Path;

pub(crate) fn open_file(g: &Global, file: &Path) -> i32 {
    if !file.is_file() {
        return fail(format!("transcript file {} not found", file.display()));
    }
    run_tui(
        g,
        Launch {
            host: None,
            file: Some(file.to_path_buf()),
            agent: g.agent.clone(),
        },
        None,
    )
}

pub(crate) const SUBCOMMANDS: [&str; 7] = [
    "list", "check", "metrics", "show", "compact", "flush", "open",
];

/// The subcommand `word` is probably a typo of (`lsit` → `list`).
pub(crate) fn suggest_subcommand(word: &str) -> Option<&'static str> {
    SUBCOMMANDS
        .iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= 2 && *d < c.len())
        .min()
        .map(|(_, c)| c)
}

/// `clawtop KEY` (or `clawtop FILE.jsonl`): the TUI opened on that session. A word that names
/// no session but looks like a mistyped subcommand is a usage error with the suggestion.
pub(crate) fn open_target(g: &Global, target: &str) -> i32 {
    if Path::new(target).is_file() || target.ends_with(".jsonl") {
        return open_file(g, Path::new(target));
    }
    let typo = |why: &str| -> i32 {
        match suggest_subcommand(target) {
            Some(c) => usage(&format!(
                "unrecognized subcommand {target:?}; did you mean `clawtop {c}`? (`clawtop --help` lists the commands; a KEY opens a session)"
            )),
            None => fail(why),
        }
    };
    let host = match open_host(g) {
        Ok(h) => h,
        Err(e) => return typo(&e.to_string()),
    };
    let source = crate::source::for_host(host);
    if let Some(why) = source.unreadable() {
        return typo(&why);
    }
    let loaded = source.listing_for(g.agent.as_deref(), target);
    let open = match loaded.find(target) {
        Ok(s) => (s.agent_id().to_string(), s.key().to_string()),
        Err(l) => {
            let why = l.words(
                target,
                &source.label(),
                loaded.sessions.len(),
                ", and no file of that name",
                g.agent.is_some(),
            );
            return match l {
                Lookup::NotFound => typo(&why),
                Lookup::Ambiguous(_) => fail(why),
            };
        }
    };
    drop(loaded);
    let host = match open_host(g) {
        Ok(h) => h,
        Err(e) => return fail(e.to_string()),
    };
    run_tui(
        g,
        Launch {
            host: Some(host),
            file: None,
            agent: g.agent.clone(),
        },
        Some(open),
    )
}

/// No subcommand: the TUI on the resolved host; the demo when no state dir exists at all.
pub(crate) fn tui_default(g: &Global) -> i32 {
    let mut notice = None;
    let host = match open_host(g) {
        Ok(h) => h,
        Err(StoreError::NoStateDir { looked, .. }) => {
            let places: Vec<String> = looked.iter().map(ToString::to_string).collect();
            tracing::info!("no state dir ({}); using the demo", places.join(", "));
            notice = Some(first_run_notice(&places));
            match Host::demo() {
                Ok(h) => h,
                Err(e) => return fail(e.to_string()),
            }
        }
        Err(e) => return fail(e.to_string()),
    };
    run_tui_with(
        g,
        Launch {
            host: Some(host),
            file: None,
            agent: g.agent.clone(),
        },
        None,
        notice,
    )
}

/// The TUI on a host reached through its gateway (`clawtop --gateway URL [KEY]`).
pub(crate) fn tui_gateway(g: &Global, target: Option<&str>) -> i32 {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "clawtop: the TUI needs a terminal (stdin/stdout is not a tty); for scripts use `clawtop list --gateway URL` or `clawtop show --gateway URL KEY`"
        );
        return Exit::FAILED;
    }
    let source = match source_for(g) {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    let open = match target {
        None => None,
        Some(t) => match resolve_target(g, t, Exit::FAILED) {
            Ok(Target::Session { session, .. }) => {
                Some((session.agent_id().to_string(), session.key().to_string()))
            }
            Ok(Target::File(_)) => {
                return usage("a transcript file is local; drop --gateway to open it");
            }
            Err(code) => return code,
        },
    };
    let mut launch = crate::tui::TuiLaunch::from_store(Launch {
        host: None,
        file: None,
        agent: g.agent.clone(),
    });
    launch.loader = Some(crate::tui::store_adapter::remembering_loader(
        source.clone(),
        g.agent.clone(),
        g.cache_dir(),
    ));
    // Live updates: the gateway's session events, pushed (the TUI subscribes).
    launch.live = Some(source);
    launch.session_only = g.session_only && open.is_some();
    launch.open = open;
    launch.logs = g.logs.clone();
    match crate::tui::run(launch) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("clawtop: {e:#}");
            Exit::FAILED
        }
    }
}

/// What a first run without OpenClaw state says: where clawtop looked, that this is the demo,
/// and how to point it at a real host.
pub fn first_run_notice(looked: &[String]) -> String {
    format!(
        "DEMO data: no OpenClaw state found. Real host: clawtop --state-dir DIR (or OPENCLAW_STATE_DIR). Looked at {}.",
        looked.join(", ")
    )
}

/// Hands over to the TUI (a terminal is required; scripts use `list` and `show`); `open`:
/// (agent, key) of the session to open once listed.
pub(crate) fn run_tui(g: &Global, launch: Launch, open: Option<(String, String)>) -> i32 {
    run_tui_with(g, launch, open, None)
}

pub(crate) fn run_tui_with(
    g: &Global,
    launch: Launch,
    open: Option<(String, String)>,
    notice: Option<String>,
) -> i32 {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "clawtop: the TUI needs a terminal (stdin/stdout is not a tty); for scripts use `clawtop list` or `clawtop show`"
        );
        return Exit::FAILED;
    }
    let agent = launch.agent.clone();
    let mut launch = crate::tui::TuiLaunch::from_store(launch);
    // The rows the last run remembered (docs/cache.md); not for the demo, a throwaway copy.
    let cache = g.cache_dir().filter(|_| !launch.demo);
    if let (Some(source), Some(_)) = (&launch.live, &cache) {
        launch.loader = Some(crate::tui::store_adapter::remembering_loader(
            source.clone(),
            agent,
            cache.clone(),
        ));
    }
    if let (Some((agent, key)), Some(source)) = (&open, &launch.live) {
        launch.named_loader = Some(crate::tui::store_adapter::named_loader(
            source.clone(),
            agent.clone(),
            key.clone(),
            cache,
        ));
    }
    launch.session_only = g.session_only && open.is_some();
    launch.open = open;
    launch.notice = notice;
    launch.logs = g.logs.clone();
    if g.no_live {
        launch.live = None;
    }
    match crate::tui::run(launch) {
        Ok(()) => 0,
        Err(e)
            if e.downcast_ref::<crate::tui::terminal::EndedBySignal>()
                .is_some() =>
        {
            let sig = e
                .downcast_ref::<crate::tui::terminal::EndedBySignal>()
                .map_or(0, |s| s.0);
            tracing::info!("{e}");
            128 + sig
        }
        Err(e) => {
            eprintln!("clawtop: {e:#}");
            Exit::FAILED
        }
    }
}
