//! Live session updates: a task that stays connected to the gateway, subscribes to session
//! events and reports them, reconnecting with backoff when the gateway goes away.
//!
//! The front-ends treat [`LiveEvent::Connected`] as "live" (show the marker, stop polling) and
//! [`LiveEvent::Disconnected`] as "fall back to polling"; a change event only says *which*
//! session changed — the screen re-reads its figures from its source. Handshake failures that
//! retrying cannot fix (wrong token, protocol, pairing, scopes, identity) end the task with
//! [`LiveEvent::Failed`] instead of hammering the gateway.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::client::{GatewayClient, Timeouts};
use super::error::GatewayError;
use super::identity::DeviceIdentity;
use super::target::GatewayTarget;

#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent {
    Connected {
        server_version: Option<String>,
    },
    /// `sessions.changed`, `session.message` or `session.operation` for `key` (None when the
    /// event names no session).
    SessionChanged {
        key: Option<String>,
        event: String,
        /// `reason` or `phase`, when the event has one.
        detail: Option<String>,
    },
    Disconnected {
        reason: String,
        retry_in: Duration,
    },
    /// A failure retrying cannot fix; the task has ended.
    Failed {
        message: String,
    },
}

pub use crate::retry::Backoff;

/// The watcher's reconnects: 500 ms, doubling to 15 s, for as long as the gateway is away.
pub const RECONNECT: Backoff = Backoff {
    first: Duration::from_millis(500),
    max: Duration::from_secs(15),
};

impl Default for Backoff {
    fn default() -> Self {
        RECONNECT
    }
}

/// Starts the watcher. It stops when `cancel` fires or the receiver is dropped.
pub fn watch(
    target: GatewayTarget,
    identity: Arc<DeviceIdentity>,
    timeouts: Timeouts,
    backoff: Backoff,
    cancel: CancellationToken,
) -> mpsc::Receiver<LiveEvent> {
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(async move {
        let mut failures = 0u32;
        loop {
            let reason = match GatewayClient::connect(&target, &identity, timeouts).await {
                Ok(client) => match session_stream(&client, &tx, &cancel).await {
                    Ok(Some(reason)) => {
                        failures = 0;
                        reason
                    }
                    Ok(None) => return,
                    Err(e) => e.to_string(),
                },
                Err(e) if permanent(&e) => {
                    let _ = tx
                        .send(LiveEvent::Failed {
                            message: e.to_string(),
                        })
                        .await;
                    return;
                }
                Err(e) => e.to_string(),
            };
            let retry_in = backoff.delay(failures);
            failures = failures.saturating_add(1);
            if tx
                .send(LiveEvent::Disconnected { reason, retry_in })
                .await
                .is_err()
            {
                return;
            }
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep(retry_in) => {}
            }
        }
    });
    rx
}

fn permanent(e: &GatewayError) -> bool {
    matches!(
        e,
        GatewayError::TokenMismatch
            | GatewayError::TokenMissing { .. }
            | GatewayError::PasswordAuth { .. }
            | GatewayError::ProtocolMismatch { .. }
            | GatewayError::MissingScope { .. }
            | GatewayError::PairingRequired { .. }
            | GatewayError::DeviceAuth { .. }
            | GatewayError::Identity { .. }
            | GatewayError::BadUrl { .. }
    )
}

/// Forwards session events until the connection ends (`Ok(Some(reason))`), the watcher is
/// cancelled or its receiver dropped (`Ok(None)`).
async fn session_stream(
    client: &GatewayClient,
    tx: &mpsc::Sender<LiveEvent>,
    cancel: &CancellationToken,
) -> Result<Option<String>, GatewayError> {
    let mut events = client.events();
    client.subscribe_sessions().await?;
    let connected = LiveEvent::Connected {
        server_version: client.hello().server_version.clone(),
    };
    if tx.send(connected).await.is_err() {
        return Ok(None);
    }
    loop {
        let ev = tokio::select! {
            _ = cancel.cancelled() => { client.close().await; return Ok(None) }
            reason = client.closed() => return Ok(Some(reason)),
            ev = events.recv() => ev,
        };
        let ev = match ev {
            Ok(ev) => ev,
            // Missed events: say "something changed" so the screen re-reads everything.
            Err(RecvError::Lagged(_)) => super::client::GatewayEvent {
                event: "sessions.changed".into(),
                payload: Value::Null,
            },
            Err(RecvError::Closed) => return Ok(Some(client.closed().await)),
        };
        if !matches!(
            ev.event.as_str(),
            "sessions.changed" | "session.operation" | "session.message"
        ) {
            continue;
        }
        let p = &ev.payload;
        let s = |ptr: &str| p.pointer(ptr).and_then(Value::as_str).map(str::to_string);
        let key = s("/sessionKey")
            .or_else(|| s("/key"))
            .or_else(|| s("/session/key"));
        let detail = s("/reason").or_else(|| s("/phase"));
        let out = LiveEvent::SessionChanged {
            key,
            event: ev.event,
            detail,
        };
        if tx.send(out).await.is_err() {
            return Ok(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnects_double_from_half_a_second_to_fifteen() {
        let b = Backoff::default();
        assert_eq!(b.delay(0), Duration::from_millis(500));
        assert_eq!(b.delay(1), Duration::from_secs(1));
        assert_eq!(b.delay(3), Duration::from_secs(4));
        assert_eq!(b.delay(10), Duration::from_secs(15));
        assert_eq!(b.delay(u32::MAX), Duration::from_secs(15));
    }
}
