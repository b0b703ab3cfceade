//! Which door an operation on a session goes through: clawtop writes it ([`Route::Local`]),
//! OpenClaw's Gateway writes it ([`Route::Gateway`]), or nothing may ([`Route::ReadOnly`]).
//!
//! This is the only place that decides. `compact --dry-run`, `compact`, `flush`, the TUI's
//! `c`, `C` and `f` all start here and render what comes back, so a dry run cannot plan what
//! the commit would refuse and the two front-ends cannot disagree about where a write goes.
//!
//! Order, and why: the source answers first ([`crate::source::SessionSource::writer`]: a SQLite
//! host and a `--gateway` host are written only by their Gateway; a bare transcript has
//! nothing to flush into), because only the source knows its era and what it can reach. Only
//! then is the operator's ask for a file-backed host's own running Gateway
//! ([`Door::HostGateway`]) honoured, and only where it makes sense: a file-backed host (not
//! the demo) whose Gateway is on this machine (a tunnelled or remote address would compact a
//! different host's copy of the session than the one clawtop read).

use crate::gateway::{GatewayEnv, GatewayTarget, Overrides};
use crate::source::{LocalWriter, Operation, SessionHandle, SourceKind, Writer};

/// What the operator asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Door {
    /// Wherever the session's host writes (the normal case).
    #[default]
    Default,
    /// A file-backed host's own running Gateway (`compact --via-gateway`, the TUI's `C`).
    /// `seen_port`: the port a running Gateway was seen listening on, when one was looked
    /// for (the TUI's Sessions title, the CLI's probe); `None` when none was seen.
    HostGateway { seen_port: Option<u16> },
}

/// Where an operation goes.
#[derive(Debug, Clone)]
pub enum Route {
    /// clawtop writes exactly the previewed text.
    Local(LocalWriter),
    /// OpenClaw's Gateway writes its own text; clawtop sends the request.
    Gateway(Box<GatewayRoute>),
    /// Nothing may be written; the reason says why and what the operator can do instead.
    ReadOnly(String),
}

/// A compaction OpenClaw's Gateway performs.
#[derive(Debug, Clone)]
pub struct GatewayRoute {
    pub target: GatewayTarget,
    /// Who writes, in words, for titles and messages.
    pub via: String,
    /// What differs from a local compaction, said before the operator types.
    pub note: String,
    /// clawtop checked OpenClaw's transcript lock itself (a file-backed host's Gateway before
    /// 2026.7.2 does not report active runs), so the Gateway is told the session is idle.
    pub vouch_idle: bool,
}

/// What differs when a file-backed host's own Gateway compacts, said before the operator types.
pub const FILE_HOST_GATEWAY_NOTE: &str = "OpenClaw's running gateway compacts and saves the summary with its own model: no preview to edit, nothing for clawtop to write (the gateway keeps sessions.json in memory). Instructions go as /compact <instructions> (800 characters at most; OpenClaw may first start a new session if this one is past its reset time); without them, sessions.compact. Refused while OpenClaw's transcript lock is held";

/// Decides where `op` on `session` goes. No I/O: the source answers from what it knows and a
/// Gateway address is resolved from the host's config and the environment.
pub fn route(session: &SessionHandle, op: Operation, door: Door) -> Route {
    route_with_env(session, op, door, &GatewayEnv::from_process())
}

/// [`route`] with a given environment (tests).
pub fn route_with_env(
    session: &SessionHandle,
    op: Operation,
    door: Door,
    env: &GatewayEnv,
) -> Route {
    let writer = session.writer(op);
    let Door::HostGateway { seen_port } = door else {
        return from_writer(writer);
    };
    if op != Operation::Compact {
        return Route::ReadOnly(
            "OpenClaw has no flush request: a memory flush is written by clawtop or by OpenClaw's own turn, never sent to a gateway".into(),
        );
    }
    match writer {
        // A SQLite or `--gateway` host: its Gateway is the only door anyway.
        Writer::Remote(_) => return from_writer(writer),
        Writer::ReadOnly(why) => return Route::ReadOnly(why),
        Writer::Local(_) => {}
    }
    let source = &session.source;
    if source.kind() != SourceKind::Files || source.is_demo() {
        return Route::ReadOnly(
            "a host's own gateway compacts sessions of a file-backed host; a bare transcript or the demo state has none".into(),
        );
    }
    let Some(port) = seen_port else {
        return Route::ReadOnly(
            "no running gateway seen on this host (OpenClaw's gateway is not listening on the port its config names); compact here instead".into(),
        );
    };
    let target = match crate::gateway::target::resolve(source.config(), env, &Overrides::default())
    {
        Ok(t) => t,
        Err(e) => return Route::ReadOnly(format!("cannot compact through the gateway: {e}")),
    };
    if !target.loopback {
        return Route::ReadOnly(format!(
            "this host's own gateway was asked for, but its config points to {} (gateway.mode \"remote\" or OPENCLAW_GATEWAY_URL)",
            crate::gateway::target::redact_userinfo(&target.url)
        ));
    }
    Route::Gateway(Box::new(GatewayRoute {
        target,
        via: format!("this host's running gateway (127.0.0.1:{port})"),
        note: FILE_HOST_GATEWAY_NOTE.into(),
        vouch_idle: true,
    }))
}

impl Route {
    /// Why clawtop cannot write `op` itself on this route, in the one wording every surface
    /// shows (None: it can, [`Route::Local`]). A Gateway route is a refusal for clawtop's own
    /// preview-and-commit: OpenClaw plans and writes there.
    pub fn refusal(&self, op: Operation) -> Option<String> {
        match self {
            Route::Local(_) => None,
            Route::ReadOnly(why) => Some(why.clone()),
            Route::Gateway(r) => Some(match op {
                Operation::Compact => format!(
                    "this session is compacted through {}: OpenClaw plans and writes the summary ({})",
                    r.via, r.note
                ),
                Operation::Flush => format!(
                    "this session's flush goes through {}, which clawtop cannot drive ({})",
                    r.via, r.note
                ),
            }),
        }
    }
}

fn from_writer(writer: Writer) -> Route {
    match writer {
        Writer::Local(w) => Route::Local(w),
        Writer::ReadOnly(why) => Route::ReadOnly(why),
        Writer::Remote(r) => Route::Gateway(Box::new(GatewayRoute {
            target: r.target,
            via: r.via,
            note: r.note,
            vouch_idle: false,
        })),
    }
}
