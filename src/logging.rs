//! What clawtop's log (`$XDG_STATE_HOME/clawtop/clawtop.log`) may contain.
//!
//! `CLAWTOP_LOG` takes `tracing` filter directives (`trace`, `clawtop=debug`, ...), but the
//! transport libraries under clawtop log what they send: tungstenite traces every WebSocket
//! frame (the gateway's `connect` frame carries the token) and the HTTP request it upgrades,
//! and reqwest can trace raw connection bytes (an API key in a header). No directive may open
//! those up, so a second filter, applied after the operator's, caps each such library at
//! `info`, where none of them logs a payload. clawtop's own events never carry a secret (see
//! `llm::secret`), so they pass at whatever level was asked for.
//!
//! Reads that must happen once per listing (a store's `sessions.json` parsed, the gateway's
//! port probed, a transcript measured or found in the figures cache) each log a `debug` event
//! with target `clawtop::io` and a field `io` naming the read. `CLAWTOP_LOG=clawtop::io=debug`
//! shows them to an operator; the tests count them (a listing that parses its store twice, or
//! re-reads a transcript the cache already knows, fails a test, not a stopwatch).

use tracing_subscriber::filter::{LevelFilter, Targets};

/// Libraries that log request or frame contents below `info`.
const TRANSPORT: [&str; 9] = [
    "tungstenite",
    "tokio_tungstenite",
    "reqwest",
    "hyper",
    "hyper_util",
    "h2",
    "rustls",
    "tokio_rustls",
    "hyper_rustls",
];

/// The cap of the module docs: everything at any level, except the transport libraries
/// above `info`.
pub fn transport_cap() -> Targets {
    TRANSPORT.iter().fold(
        Targets::new().with_default(LevelFilter::TRACE),
        |t, name| t.with_target(*name, LevelFilter::INFO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::Level;

    #[test]
    fn the_cap_stops_transport_traces_and_lets_clawtop_through() {
        let t = transport_cap();
        assert!(!t.would_enable("tungstenite::protocol", &Level::TRACE));
        assert!(!t.would_enable("tokio_tungstenite", &Level::DEBUG));
        assert!(!t.would_enable("reqwest::connect", &Level::TRACE));
        assert!(t.would_enable("tungstenite::protocol", &Level::INFO));
        assert!(t.would_enable("clawtop::gateway::client", &Level::TRACE));
    }
}
