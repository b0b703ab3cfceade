//! The fleet TUI's `update` (its state is [`crate::tui::model::fleet`]): pure, it changes the
//! state and returns effects; the runtime ([`crate::tui::runtime::fleet`]) runs them.

use crate::tui::model::action::Action;
use crate::tui::model::fleet::{
    FleetAction, FleetEffect, FleetItem, FleetScreen, FleetState, MAX_BACKOFF_MS,
};
use crate::tui::model::keymap;

/// The start: read every host.
pub fn init(state: &mut FleetState) -> Vec<FleetEffect> {
    state.due(true)
}

pub fn update(state: &mut FleetState, action: FleetAction) -> Vec<FleetEffect> {
    match action {
        FleetAction::Tick { now_ms } => {
            state.now_ms = now_ms;
            state.due(false)
        }
        FleetAction::HostRead { index, result } => {
            let now = state.now_ms.max(result.at_ms);
            let interval = state.interval_ms;
            let Some(h) = state.hosts.get_mut(index) else {
                return Vec::new();
            };
            h.reading = false;
            let errors = result.errors();
            match result.outcome {
                Ok(mut list) => {
                    list.materialize();
                    h.totals = list.report.totals;
                    h.rows = list.report.sessions;
                    h.summary = Some(crate::fleet::summary(&h.rows));
                    h.last_ok_ms = Some(result.at_ms);
                    h.failures = 0;
                    h.error = (!errors.is_empty()).then(|| errors.join("; "));
                    h.next_due_ms = now + interval;
                }
                Err(e) => {
                    h.failures = h.failures.saturating_add(1);
                    h.error = Some(e.to_string());
                    let backoff = interval.saturating_mul(1 << h.failures.min(10));
                    h.next_due_ms = now + backoff.min(MAX_BACKOFF_MS).max(interval);
                }
            }
            // The row under the cursor may be gone.
            let n = state.sessions().len();
            state.session_sel = state.session_sel.min(n.saturating_sub(1));
            Vec::new()
        }
        FleetAction::OpenDone(r) => {
            state.status = Some(match r {
                Ok(Some(0)) => "back from the host".into(),
                Ok(Some(c)) => format!("the host's clawtop exited {c}"),
                Ok(None) => "the host's clawtop was ended by a signal".into(),
                Err(e) => crate::sanitize::one_line(&e.to_string()),
            });
            // Whatever was done there shows at once.
            state.due(true)
        }
        FleetAction::Key(k) => {
            if state.show_help || state.detail.is_some() {
                state.show_help = false;
                state.detail = None;
                return Vec::new();
            }
            let Some(cmd) = keymap::lookup(state.mode(), &k) else {
                return Vec::new();
            };
            on_cmd(state, cmd)
        }
    }
}

fn on_cmd(state: &mut FleetState, cmd: Action) -> Vec<FleetEffect> {
    let (sel, len) = match state.screen {
        FleetScreen::Hosts => (&mut state.host_sel, state.hosts.len()),
        FleetScreen::Sessions => {
            let len = state.sessions().len();
            (&mut state.session_sel, len)
        }
    };
    match cmd {
        Action::Up => *sel = sel.saturating_sub(1),
        Action::Down => *sel = (*sel + 1).min(len.saturating_sub(1)),
        Action::Quit => state.should_quit = true,
        Action::ToggleHelp => state.show_help = true,
        // The title counts the hosts being read.
        Action::Refresh => return state.due(true),
        Action::FleetAllSessions => {
            state.host_filter = None;
            state.session_sel = 0;
            state.screen = FleetScreen::Sessions;
        }
        // Esc clears the filter first, as on a single host; then it goes back.
        Action::Back if !state.filter.is_empty() => {
            state.filter.clear();
            state.session_sel = 0;
        }
        Action::Back => state.screen = FleetScreen::Hosts,
        Action::CycleSort => {
            state.sort = state.sort.next();
            state.session_sel = 0;
            state.status = Some(format!("sorted by {}", state.sort.name()));
        }
        Action::StartFilter => state.filtering = true,
        Action::FilterChar(c) => {
            state.filter.push(c);
            state.session_sel = 0;
        }
        Action::FilterBackspace => {
            state.filter.pop();
            state.session_sel = 0;
        }
        Action::ClearFilter => {
            state.filter.clear();
            state.filtering = false;
            state.session_sel = 0;
        }
        Action::AcceptFilter => state.filtering = false,
        Action::FleetNextHost => {
            state.host_filter = match state.host_filter {
                None if !state.hosts.is_empty() => Some(0),
                Some(i) if i + 1 < state.hosts.len() => Some(i + 1),
                _ => None,
            };
            state.session_sel = 0;
        }
        Action::Open => match state.screen {
            FleetScreen::Hosts => {
                let failed = state
                    .hosts
                    .get(state.host_sel)
                    .filter(|h| h.reachable() == Some(false))
                    .and_then(|h| h.error.clone());
                if let Some(cause) = failed {
                    state.detail = Some(cause);
                } else if state.host_sel < state.hosts.len() {
                    state.host_filter = Some(state.host_sel);
                    state.session_sel = 0;
                    state.screen = FleetScreen::Sessions;
                }
            }
            FleetScreen::Sessions => {
                let (i, row) = match state.sessions().get(state.session_sel).copied() {
                    Some(FleetItem::Session { host, row }) => (host, row),
                    Some(FleetItem::Failed { cause, .. }) => {
                        state.detail = Some(cause.to_string());
                        return Vec::new();
                    }
                    None => return Vec::new(),
                };
                let Some(key) = row.session_key.clone().or_else(|| row.session_id.clone()) else {
                    return Vec::new();
                };
                let (program, args) =
                    crate::fleet::open_command(&state.hosts[i].spec, &key, &state.this_exe);
                return vec![FleetEffect::Open { program, args }];
            }
        },
        // The fleet's modes bind no other action.
        _ => {}
    }
    Vec::new()
}
