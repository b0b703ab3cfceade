//! Is an OpenClaw gateway running on this file-backed host? From 2026.5 a running gateway keeps
//! `sessions.json` in memory without a cross-process lock, deletes transcript locks held by
//! other programs, and aborts a running turn whose transcript changes (docs/running-gateway.md).
//!
//! What is observed, and why: the gateway's port (`OPENCLAW_GATEWAY_PORT`, else the config's
//! `gateway.port`, else 18789, as OpenClaw picks it) accepting a TCP connection on 127.0.0.1.
//! It is cheap (a refused loopback connect returns at once; the wait is capped), needs no
//! token, and does not depend on pid files OpenClaw does not write for the gateway. It cannot
//! prove the listener is OpenClaw, so the message says "likely".

use serde_json::Value;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

/// OpenClaw's default gateway port.
pub const DEFAULT_PORT: u16 = 18789;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningGateway {
    pub port: u16,
    /// Where the port came from (`OPENCLAW_GATEWAY_PORT`, `gateway.port`, `default`).
    pub port_from: &'static str,
}

impl RunningGateway {
    /// The operator-facing line: what was seen and what it means for writes.
    pub fn notice(&self) -> String {
        format!(
            "a gateway is likely running (127.0.0.1:{} accepts connections; port from {}): it keeps sessions.json in memory and aborts a turn whose transcript changes, so clawtop refuses to commit while a run is active (exit 3); `clawtop compact KEY --via-gateway` compacts through it",
            self.port, self.port_from
        )
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }
}

/// The port OpenClaw's gateway would use for this config.
pub fn port(config: &Value, env_port: Option<&str>) -> (u16, &'static str) {
    if let Some(p) = env_port.and_then(|p| p.trim().parse::<u16>().ok()) {
        return (p, "OPENCLAW_GATEWAY_PORT");
    }
    match config
        .pointer("/gateway/port")
        .and_then(Value::as_u64)
        .and_then(|p| u16::try_from(p).ok())
    {
        Some(p) if p > 0 => (p, "gateway.port"),
        _ => (DEFAULT_PORT, "default"),
    }
}

/// Probes the gateway's port on loopback (at most `wait`).
pub fn detect(config: &Value, env_port: Option<&str>, wait: Duration) -> Option<RunningGateway> {
    let (port, port_from) = port(config, env_port);
    // Counted by tests (target `clawtop::io`, see `crate::logging`): once per listing.
    tracing::debug!(target: "clawtop::io", io = "gateway probe", port, "gateway port probed");
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    TcpStream::connect_timeout(&addr, wait)
        .ok()
        .map(|_| RunningGateway { port, port_from })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn port_precedence() {
        let c = json!({"gateway": {"port": 18800}});
        assert_eq!(port(&c, Some("19001")), (19001, "OPENCLAW_GATEWAY_PORT"));
        assert_eq!(port(&c, None), (18800, "gateway.port"));
        assert_eq!(port(&c, Some("x")), (18800, "gateway.port"));
        assert_eq!(port(&json!({}), None), (DEFAULT_PORT, "default"));
    }

    #[test]
    fn detects_a_listener_and_not_a_closed_port() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        let c = json!({"gateway": {"port": p}});
        let seen = detect(&c, None, Duration::from_secs(2)).expect("listener seen");
        assert_eq!(seen.port, p);
        assert!(seen.notice().contains(&format!("127.0.0.1:{p}")));
        drop(l);
        assert_eq!(detect(&c, None, Duration::from_secs(2)), None);
    }
}
