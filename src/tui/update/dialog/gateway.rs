//! The Compact dialog when OpenClaw's gateway compacts (a SQLite host, or `C` on a
//! file-backed host whose gateway runs): no plan and no preview; the instructions are checked
//! against OpenClaw's cap, a popup says what will be asked, one effect sends it, and what
//! OpenClaw wrote is shown read-only ([`Phase::Done`]) and scrolled here.

use super::*;

/// `C`: the Compact dialog through a file-backed host's running gateway. Needs no transcript
/// (OpenClaw plans), so it opens from the Sessions screen too.
pub fn open_compact_via_gateway(state: &mut AppState) {
    let on_list = state.screen() == crate::tui::model::state::Screen::Sessions;
    let (row, session) = match (&state.session, on_list) {
        (Some(v), false) => (v.row.clone(), v.session.clone()),
        _ => match state.sessions.selected_row() {
            Some(r) => (r.clone(), r.session.clone()),
            None => return,
        },
    };
    let Some(session) = session else {
        state.status.info = Some("This session has no host to compact through.".into());
        return;
    };
    let door = Door::HostGateway {
        seen_port: state.sessions.running_gateway,
    };
    match crate::usecase::route::route(&session, crate::source::Operation::Compact, door) {
        Route::Gateway(r) => open_gateway_compact(state, session, who_of(&row), *r),
        Route::ReadOnly(why) => {
            state.status.info = Some(format!("Cannot compact through a gateway here: {why}."));
        }
        Route::Local(_) => {
            state.status.info = Some("This session is compacted here: press c.".into());
        }
    }
}

/// The Compact dialog for a session OpenClaw's Gateway compacts ([`Route::Gateway`]). Nothing
/// is planned (OpenClaw plans); the connection is made when the operator sends.
pub(super) fn open_gateway_compact(
    state: &mut AppState,
    session: crate::source::SessionHandle,
    who: String,
    route: crate::usecase::route::GatewayRoute,
) {
    let id = crate::tui::model::state::take_generation(&mut state.next_generation);
    let mut d = Dialog::new(
        id,
        DialogKind::Compact,
        who,
        session.clone(),
        state.no_color,
    );
    d.prep = Some(Prep::Gateway(Box::new(GatewayPrep {
        target: route.target,
        key: session.session.key.clone(),
        via: route.via,
        note: route.note,
        model: Err(crate::usecase::NoModel::Gateway),
        identity_dir: crate::gateway::identity::config_dir(),
        done: false,
        vouch_idle: route.vouch_idle,
    })));
    // Nothing to plan: the instructions can be typed and sent at once.
    d.phase = Phase::Edit;
    d.prep_running = false;
    state.dialog = Some(d);
}

/// Why the gateway's Compact dialog cannot send.
#[derive(Debug, thiserror::Error)]
enum Unsendable {
    #[error("OpenClaw has already compacted this session; close the dialog (q).")]
    Done,
    /// Over OpenClaw's cap (it would cut longer text silently).
    #[error(transparent)]
    Instructions(#[from] crate::usecase::gateway_compact::GatewayCompactError),
    #[error("No config dir for clawtop's device identity: set HOME or CLAWTOP_CONFIG_DIR.")]
    NoIdentityDir,
}

/// What sending would do, checked: the instructions within OpenClaw's cap and an identity to
/// connect with.
fn gateway_send(
    d: &Dialog,
    g: &GatewayPrep,
) -> Result<(Option<String>, std::path::PathBuf), Unsendable> {
    if g.done {
        return Err(Unsendable::Done);
    }
    let instructions =
        crate::usecase::gateway_compact::instructions(d.instructions_text().as_deref())?;
    let identity_dir = g.identity_dir.clone().ok_or(Unsendable::NoIdentityDir)?;
    Ok((instructions, identity_dir))
}

/// Ctrl-G in the gateway's Compact dialog: OpenClaw compacts and saves at once (no preview,
/// nothing clawtop can undo), so the popup names what will be asked before anything is sent.
pub(super) fn ask_gateway_send(d: &mut Dialog, g: &GatewayPrep) {
    let instructions = match gateway_send(d, g) {
        Ok((i, _)) => i,
        Err(e) => {
            d.error = Some(e.to_string());
            return;
        }
    };
    let how = match &instructions {
        Some(_) => "/compact with your instructions as focus text",
        None => "sessions.compact, no instructions",
    };
    let lines = vec![
        format!(
            "Ask {} to compact {} now ({how}).",
            g.via,
            crate::sanitize::one_line(&g.key)
        ),
        "OpenClaw writes the summary with its own model and saves it at once: there is no preview, and clawtop cannot undo it.".into(),
        "Refused, nothing sent, while a run is active on the session.".into(),
    ];
    d.error = None;
    d.confirm = Some(PendingCommit {
        text: instructions.unwrap_or_default(),
        lines,
    });
}

/// Sends the compaction to the gateway (after [`ask_gateway_send`]'s popup): one
/// [`Effect::GatewayCompact`] runs it.
pub(super) fn start_gateway_compaction(
    d: &mut Dialog,
    g: &GatewayPrep,
    now: i64,
    fx: &mut Vec<Effect>,
) {
    let (instructions, identity_dir) = match gateway_send(d, g) {
        Ok(x) => x,
        Err(e) => {
            d.error = Some(e.to_string());
            return;
        }
    };
    let (gen_id, cancel) = d.start_running(now, "connecting to the gateway");
    fx.push(Effect::GatewayCompact {
        dialog: d.id,
        generation: gen_id,
        cancel,
        job: Box::new(crate::tui::model::effect::GatewayJob {
            target: g.target.clone(),
            session: d.session.clone(),
            identity_dir,
            instructions,
            vouch_idle: g.vouch_idle,
        }),
    });
}

pub(super) fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::GatewayDone {
            dialog,
            generation,
            result,
        } => {
            let Some(d) = awaiting(&mut state.dialog, *dialog, *generation) else {
                return true;
            };
            d.running = None;
            d.button = 0;
            match result {
                Ok(r) => {
                    if let Some(Prep::Gateway(gp)) = d.prep.as_mut() {
                        gp.done = true;
                    }
                    d.result = Some(r.clone());
                    d.result_scroll = 0;
                    d.phase = Phase::Done;
                    d.focus = Focus::Buttons;
                    d.error = None;
                    state.status.info = Some(format!(
                        "OpenClaw compacted {} through its gateway and saved it on the host.",
                        crate::sanitize::one_line(&d.who)
                    ));
                    // OpenClaw changed the session: the list and the open transcript follow.
                    after_commit(state, fx);
                }
                Err(GenFailure::Cancelled) => d.phase = Phase::Edit,
                Err(GenFailure::Failed(e)) => {
                    d.phase = Phase::Edit;
                    d.focus = Focus::Text;
                    d.error = Some(e.clone());
                }
            }
            if let Some(d) = state.dialog.as_mut() {
                d.restyle();
            }
        }
        // Routed to another module by `super::update`.
        _ => return false,
    }
    true
}

/// Up/Down/PageUp/PageDown/Top/Bottom on the read-only result of a gateway compaction (the
/// dialog routes them here once it is done): scrolls OpenClaw's summary.
pub(super) fn scroll_result(state: &mut AppState, action: &Action) -> bool {
    let width = state.size.0.saturating_sub(4).max(1) as usize;
    let page = state.size.1.saturating_sub(12).max(1);
    let Some(d) = state.dialog.as_mut() else {
        return true;
    };
    let lines = d
        .result
        .as_ref()
        .and_then(|r| r.written.summary.as_deref())
        .map(|s| crate::tui::layout::wrap(s, width).len())
        .unwrap_or(0);
    let last = u16::try_from(lines).unwrap_or(u16::MAX).saturating_sub(1);
    d.result_scroll = match action {
        Action::Up => d.result_scroll.saturating_sub(1),
        Action::Down => d.result_scroll.saturating_add(1),
        Action::PageUp => d.result_scroll.saturating_sub(page),
        Action::PageDown => d.result_scroll.saturating_add(page),
        Action::Bottom => last,
        _ => 0,
    }
    .min(last);
    true
}
