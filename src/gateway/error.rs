//! Gateway failures, each with what the operator can do about it.
//!
//! Text that came from the gateway (error messages, close reasons) is untrusted: it is cut to one
//! line and neutralised with [`crate::sanitize::one_line`] when the error is built, and the token
//! is scrubbed from it, so an error can be printed as is.

use std::path::PathBuf;
use std::time::Duration;

use crate::llm::Secret;

/// OpenClaw caps `/compact` instructions at this many characters (code points) and silently
/// cuts the rest (`MAX_INSTRUCTION_LENGTH`, reference §8); clawtop refuses longer text instead.
pub const MAX_COMPACT_INSTRUCTIONS: usize = 800;

/// The port of a `ws://HOST:PORT` address, for the tunnel hint (the gateway's default when the
/// address names none).
pub fn url_port(url: &str) -> u16 {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let port = match authority.rsplit_once(':') {
        Some((host, p)) if !host.ends_with('[') && !p.contains(']') => p.parse().ok(),
        _ => None,
    };
    port.unwrap_or(crate::diagnosis::running_gateway::DEFAULT_PORT)
}

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("gateway address {url}: {problem}")]
    BadUrl { url: String, problem: String },

    #[error("gateway token: {0}")]
    TokenSource(String),

    #[error(
        "no gateway token found ({looked}); set OPENCLAW_GATEWAY_TOKEN or pass --gateway-token-file FILE"
    )]
    NoToken { looked: String },

    #[error("clawtop's device identity {path}: {problem}")]
    Identity { path: PathBuf, problem: String },

    #[error(
        "cannot reach the gateway at {url}: {cause}. Is it running (`openclaw gateway status` on the host)? \
         For a remote host, open the tunnel first: ssh -N -L {p}:127.0.0.1:{p} HOST", p = url_port(.url)
    )]
    Unreachable { url: String, cause: String },

    #[error(
        "the gateway at {url} did not {what} within {after:?}; nothing was sent to the session"
    )]
    Timeout {
        url: String,
        what: String,
        after: Duration,
    },

    #[error("the gateway at {url} closed the connection during the handshake{}", reason_suffix(.code, .reason))]
    ClosedDuringHandshake {
        url: String,
        code: Option<u16>,
        reason: String,
    },

    #[error("the gateway at {url} sent a frame clawtop cannot read ({detail})")]
    Malformed { url: String, detail: String },

    #[error(
        "the gateway rejected the token (token mismatch): use this gateway's gateway.auth.token \
         (OPENCLAW_GATEWAY_TOKEN or --gateway-token-file FILE; `openclaw gateway auth-token --show` on the host prints it)"
    )]
    TokenMismatch,

    #[error(
        "the gateway wants a token and none was accepted ({code}): set OPENCLAW_GATEWAY_TOKEN or pass --gateway-token-file FILE"
    )]
    TokenMissing { code: String },

    #[error(
        "this gateway uses password auth ({code}); clawtop supports token auth only: switch the gateway to gateway.auth.mode \"token\" or use OpenClaw's own CLI"
    )]
    PasswordAuth { code: String },

    #[error(
        "protocol mismatch: clawtop speaks gateway protocol {ours}, the gateway expects {theirs}; use OpenClaw 2026.9.x or a clawtop release that supports protocol {theirs}"
    )]
    ProtocolMismatch { ours: u32, theirs: String },

    #[error(
        "the gateway did not grant {scope} (missing scope) for {what}; connect with the shared gateway token (it grants operator scopes on loopback), \
         or approve the scope upgrade on the host: `openclaw devices list`, then `openclaw devices approve <requestId>`"
    )]
    MissingScope { scope: String, what: String },

    #[error(
        "pairing required: the gateway has not approved clawtop's device {device_id}{}. On the gateway host run `openclaw devices list`, \
         then `openclaw devices approve {}`, and try again", request_suffix(.request_id), .request_id.as_deref().unwrap_or("<requestId>")
    )]
    PairingRequired {
        device_id: String,
        request_id: Option<String>,
    },

    #[error(
        "the gateway rejected clawtop's device signature ({code}: {message}); check that both clocks are right (±2 minutes), \
         or move clawtop's device-identity.json aside to create a new identity"
    )]
    DeviceAuth { code: String, message: String },

    #[error("the gateway refused the connection ({code}): {message}")]
    Rejected { code: String, message: String },

    #[error("the gateway connection was lost ({reason}); OpenClaw may still finish what was asked")]
    Disconnected { reason: String },

    #[error("{method} failed on the gateway ({code}): {message}")]
    Rpc {
        method: String,
        code: String,
        message: String,
    },

    #[error(
        "session {key} has an active run; nothing was sent. Wait for the run to finish (the Sessions screen shows it), then try again"
    )]
    ActiveRun { key: String },

    #[error(
        "the gateway at {url} (OpenClaw {version}) does not say whether a run is active on {key} (only 2026.9 and later report it), and a compaction could abort a running turn; nothing was sent. \
         On the host itself, where clawtop sees OpenClaw's transcript lock, run `clawtop compact {key} --via-gateway`"
    )]
    RunStateUnknown {
        url: String,
        version: String,
        key: String,
    },

    #[error(
        "the instructions are {len} characters; OpenClaw's /compact accepts at most {MAX_COMPACT_INSTRUCTIONS} \
         (it would cut the rest silently). Shorten them; nothing was sent"
    )]
    InstructionsTooLong { len: usize },

    #[error("unknown session {key} on the gateway")]
    UnknownSession { key: String },

    #[error(
        "the gateway at {url} sent more than {} MiB for {what}; clawtop stopped reading there (a bound on what one read may hold)",
        .limit / (1024 * 1024)
    )]
    TooLarge {
        url: String,
        what: String,
        limit: u64,
    },
    /// clawtop's device identity has nowhere to live.
    #[error("no config dir for clawtop's device identity: set HOME or CLAWTOP_CONFIG_DIR")]
    NoConfigDir,
    #[error("cannot start the gateway runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The task that talked to the gateway stopped before it answered (it panicked).
    #[error("the gateway task at {url} ended without an answer")]
    TaskEnded { url: String },
}

fn reason_suffix(code: &Option<u16>, reason: &str) -> String {
    match (code, reason.is_empty()) {
        (Some(c), false) => format!(" (close {c}: {reason})"),
        (Some(c), true) => format!(" (close {c})"),
        (None, false) => format!(" ({reason})"),
        (None, true) => {
            " (no close frame): is this an OpenClaw gateway, and is the address right?".into()
        }
    }
}

fn request_suffix(id: &Option<String>) -> String {
    match id {
        Some(id) => format!(" (request {id})"),
        None => String::new(),
    }
}

/// One line of untrusted server text, neutralised, the token scrubbed, at most 300 chars.
pub(crate) fn untrusted(text: &str, token: Option<&Secret>) -> String {
    let text = match token {
        Some(t) => t.scrub(text),
        None => text.to_string(),
    };
    let one = crate::sanitize::one_line(text.trim());
    if one.chars().count() > 300 {
        let cut: String = one.chars().take(300).collect();
        format!("{cut}…")
    } else {
        one
    }
}

/// Maps a gateway `error` object (`{code, message, details?}`) from a `connect` or method
/// response to the error that says what to do. `what` names the call for scope errors.
pub(crate) fn from_error_object(
    err: &serde_json::Value,
    method: &str,
    device_id: &str,
    token: Option<&Secret>,
) -> GatewayError {
    let s = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).unwrap_or("").to_string();
    let top_code = s(err.get("code"));
    let details = err.get("details");
    let detail_code = s(details.and_then(|d| d.get("code")));
    let code = if detail_code.is_empty() {
        top_code.clone()
    } else {
        detail_code
    };
    let message = untrusted(&s(err.get("message")), token);
    let code_clean = untrusted(&code, token);
    match code.as_str() {
        "AUTH_TOKEN_MISMATCH" | "AUTH_DEVICE_TOKEN_MISMATCH" => GatewayError::TokenMismatch,
        "AUTH_TOKEN_MISSING"
        | "AUTH_REQUIRED"
        | "AUTH_UNAUTHORIZED"
        | "AUTH_TOKEN_NOT_CONFIGURED" => GatewayError::TokenMissing { code: code_clean },
        c if c.starts_with("AUTH_PASSWORD") => GatewayError::PasswordAuth { code: code_clean },
        "PROTOCOL_MISMATCH" => GatewayError::ProtocolMismatch {
            ours: super::client::PROTOCOL,
            theirs: details
                .and_then(|d| d.get("expectedProtocol"))
                .map(|v| untrusted(&v.to_string(), token))
                .unwrap_or_else(|| "another version".into()),
        },
        "MISSING_SCOPE" | "AUTH_SCOPE_MISMATCH" => GatewayError::MissingScope {
            scope: details
                .and_then(|d| d.get("missingScope"))
                .and_then(|v| v.as_str())
                .map(|v| untrusted(v, token))
                .unwrap_or_else(|| message.clone()),
            what: method.to_string(),
        },
        "PAIRING_REQUIRED" | "NOT_PAIRED" => GatewayError::PairingRequired {
            device_id: device_id.to_string(),
            request_id: details
                .and_then(|d| d.get("requestId"))
                .and_then(|v| v.as_str())
                .map(|v| untrusted(v, token)),
        },
        c if c.starts_with("DEVICE_AUTH") || c == "DEVICE_IDENTITY_REQUIRED" => {
            GatewayError::DeviceAuth {
                code: code_clean,
                message,
            }
        }
        _ if top_code == "FORBIDDEN" && message.starts_with("missing scope") => {
            GatewayError::MissingScope {
                scope: message
                    .trim_start_matches("missing scope:")
                    .trim()
                    .to_string(),
                what: method.to_string(),
            }
        }
        _ if method == "connect" => GatewayError::Rejected {
            code: code_clean,
            message,
        },
        _ => GatewayError::Rpc {
            method: method.to_string(),
            code: code_clean,
            message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn real_error_objects_map_to_advice() {
        // Frames as observed on 2026.9.6 (reference §7 "Errors").
        let e = from_error_object(
            &json!({"code":"INVALID_REQUEST","message":"unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)","details":{"code":"AUTH_TOKEN_MISMATCH","authReason":"token_mismatch","canRetryWithDeviceToken":true}}),
            "connect",
            "dev",
            None,
        );
        assert!(matches!(e, GatewayError::TokenMismatch));
        assert!(e.to_string().contains("OPENCLAW_GATEWAY_TOKEN"));
        let e = from_error_object(
            &json!({"code":"INVALID_REQUEST","message":"protocol mismatch","details":{"code":"PROTOCOL_MISMATCH","clientMinProtocol":3,"clientMaxProtocol":3,"expectedProtocol":4}}),
            "connect",
            "dev",
            None,
        );
        assert!(e.to_string().contains("expects 4"), "{e}");
        let e = from_error_object(
            &json!({"code":"FORBIDDEN","message":"missing scope: operator.admin","details":{"code":"MISSING_SCOPE","missingScope":"operator.admin","requiredScopes":["operator.admin"]}}),
            "sessions.compact",
            "dev",
            None,
        );
        assert!(
            e.to_string().contains("operator.admin") && e.to_string().contains("sessions.compact"),
            "{e}"
        );
        let e = from_error_object(
            &json!({"code":"INVALID_REQUEST","message":"pairing required","details":{"code":"PAIRING_REQUIRED","requestId":"req-9"}}),
            "connect",
            "abc",
            None,
        );
        assert!(
            e.to_string().contains("openclaw devices approve req-9"),
            "{e}"
        );
        let e = from_error_object(
            &json!({"code":"INVALID_REQUEST","message":"Session agent:main:x has an active run; retry after it finishes."}),
            "sessions.compact",
            "dev",
            None,
        );
        assert!(matches!(e, GatewayError::Rpc { .. }));
    }

    #[test]
    fn server_text_is_neutralised_and_scrubbed() {
        let tok = Secret::new("tok-secret-123456");
        let e = from_error_object(
            &json!({"code":"X","message":"bad \u{1b}]52;c;aGk=\u{7} tok-secret-123456\nsecond line"}),
            "chat.history",
            "dev",
            Some(&tok),
        );
        let s = e.to_string();
        assert!(!s.contains('\u{1b}') && !s.contains('\n'), "{s:?}");
        assert!(!s.contains("tok-secret-123456"), "{s}");
    }
}
