//! Compaction through OpenClaw's Gateway, for a host whose sessions only the gateway may change
//! (a SQLite host, or one reached with `--gateway` through a tunnel).
//!
//! Order, and why:
//! 1. The instructions are checked against OpenClaw's 800-character cap before connecting
//!    (OpenClaw would cut longer text silently).
//! 2. Connect with clawtop's own device identity; read the session's row (`sessions.list`) for
//!    the "before" figures (an unknown key stops here).
//! 3. Refuse while a run is active, sending nothing ([`crate::gateway::ops`] checks; `/compact`
//!    would abort the operator's turn).
//! 4. `sessions.compact` without instructions, `/compact <instructions>` with them; wait for the
//!    result, bounded (on timeout the error says OpenClaw may still finish).
//! 5. Read the row again: the "after" figures are the host's, not computed here.
//!
//! There is no preview or edited-text commit: OpenClaw writes the summary with its own model.

use std::time::Duration;

use crate::gateway::{
    CompactOutcome, DeviceIdentity, GatewayClient, GatewayError, GatewayTarget, SessionRow,
    Timeouts, identity, ops,
};

/// What a compaction through the gateway did, with the host's figures before and after.
#[derive(Debug, Clone)]
pub struct GatewayCompaction {
    pub before: SessionRow,
    pub after: SessionRow,
    pub outcome: CompactOutcome,
}

#[derive(Debug, thiserror::Error)]
pub enum GatewayCompactError {
    #[error(transparent)]
    Gateway(#[from] GatewayError),
    #[error("no config dir for clawtop's device identity: set HOME or CLAWTOP_CONFIG_DIR")]
    NoConfigDir,
}

impl GatewayCompactError {
    /// Exit code: refused (3) for an active run, usage (2) for bad instructions or address.
    pub fn exit_code(&self) -> i32 {
        use super::Exit;
        match self {
            GatewayCompactError::Gateway(
                GatewayError::ActiveRun { .. } | GatewayError::RunStateUnknown { .. },
            ) => Exit::REFUSED,
            GatewayCompactError::Gateway(
                GatewayError::InstructionsTooLong { .. } | GatewayError::BadUrl { .. },
            ) => Exit::USAGE,
            _ => Exit::FAILED,
        }
    }
}

/// Trimmed instructions within the cap; `None` when blank (then `sessions.compact` is used).
pub fn instructions(text: Option<&str>) -> Result<Option<String>, GatewayCompactError> {
    match text {
        Some(t) => Ok(Some(ops::check_instructions(t)?.to_string()).filter(|t| !t.is_empty())),
        None => Ok(None),
    }
}

/// Runs steps 2–5 (call [`instructions`] first) with clawtop's identity from its usual
/// config dir. `on_started` is called once the request is about to be sent (for a progress line).
pub async fn compact(
    target: &GatewayTarget,
    key: &str,
    instructions: Option<&str>,
    wait: Duration,
    vouch_idle: bool,
    on_started: impl FnOnce(),
) -> Result<GatewayCompaction, GatewayCompactError> {
    let dir = identity::config_dir().ok_or(GatewayCompactError::NoConfigDir)?;
    compact_as(
        &dir,
        target,
        key,
        instructions,
        wait,
        vouch_idle,
        on_started,
    )
    .await
}

/// [`compact`] with the device identity kept in `identity_dir`. `vouch_idle`: the caller saw
/// for itself that no OpenClaw run holds the session (a file-backed host's transcript lock is
/// free), which stands where the gateway does not report runs (before 2026.9).
pub async fn compact_as(
    identity_dir: &std::path::Path,
    target: &GatewayTarget,
    key: &str,
    instructions: Option<&str>,
    wait: Duration,
    vouch_idle: bool,
    on_started: impl FnOnce(),
) -> Result<GatewayCompaction, GatewayCompactError> {
    let id = DeviceIdentity::load_or_create(identity_dir)?;
    let client = GatewayClient::connect(target, &id, Timeouts::default()).await?;
    if vouch_idle {
        client.vouch_idle();
    }
    let before = row(&client, key).await?;
    on_started();
    let outcome = match instructions {
        Some(t) => client.compact_with_instructions(key, t, wait).await?,
        None => client.compact(key).await?,
    };
    let after = row(&client, key).await?;
    client.close().await;
    Ok(GatewayCompaction {
        before,
        after,
        outcome,
    })
}

async fn row(client: &GatewayClient, key: &str) -> Result<SessionRow, GatewayError> {
    client
        .sessions_list()
        .await?
        .into_iter()
        .find(|r| r.key == key)
        .ok_or_else(|| GatewayError::UnknownSession {
            key: key.to_string(),
        })
}
