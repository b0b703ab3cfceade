//! Which gateway to talk to and with which token, found the way OpenClaw's own CLI finds them
//! (docs shipped with 2026.9.6: `gateway/remote.md` "Credential precedence",
//! `gateway/config-gateway.md`), plus clawtop's overrides.
//!
//! Address:
//! 1. `--gateway ws://HOST:PORT` (a tunnelled host);
//! 2. `OPENCLAW_GATEWAY_URL`;
//! 3. `gateway.mode: "remote"` → `gateway.remote.url`;
//! 4. local: `ws://127.0.0.1:<port>`, port from `OPENCLAW_GATEWAY_PORT`, `gateway.port`, 18789.
//!
//! Token (never from a command-line argument, so it stays out of `ps` and shell history):
//! * `--gateway-token-file FILE` always wins;
//! * an explicit address (1, 2) uses only `OPENCLAW_GATEWAY_TOKEN` — like OpenClaw, an address
//!   given by hand never picks up credentials from the config, which belong to another gateway;
//! * remote mode: `gateway.remote.token`, `OPENCLAW_GATEWAY_TOKEN`, `gateway.auth.token`;
//! * local mode: `gateway.auth.token`, `OPENCLAW_GATEWAY_TOKEN`, `gateway.remote.token`.
//!
//! A config token may be a plain string, a whole-string `${VAR}` reference, or a SecretRef
//! `{source: "env", id: VAR}`; other SecretRef sources (file, exec, …) are named and refused
//! with the fix rather than guessed at.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::GatewayError;
use crate::llm::Secret;

pub const DEFAULT_PORT: u16 = 18789;

/// The gateway environment variables clawtop reads, captured once so resolution is testable.
#[derive(Debug, Clone, Default)]
pub struct GatewayEnv {
    pub url: Option<String>,
    pub port: Option<String>,
    pub token: Option<Secret>,
    /// Every variable, for `${VAR}` and `{source:"env"}` references in the config.
    pub lookup: Vec<(String, String)>,
}

impl GatewayEnv {
    pub fn from_process() -> GatewayEnv {
        let var = |k: &str| {
            std::env::var(k)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        GatewayEnv {
            url: var("OPENCLAW_GATEWAY_URL"),
            port: var("OPENCLAW_GATEWAY_PORT"),
            token: var("OPENCLAW_GATEWAY_TOKEN").map(Secret::new),
            lookup: std::env::vars().collect(),
        }
    }

    fn get(&self, name: &str) -> Option<String> {
        self.lookup
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.trim().is_empty())
    }
}

/// clawtop's flags.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--gateway ws://HOST:PORT`
    pub url: Option<String>,
    /// `--gateway-token-file FILE`
    pub token_file: Option<PathBuf>,
    /// `--allow-insecure-gateway`: a plain `ws://` to an address that is not loopback (the
    /// token and every transcript would cross the network unencrypted).
    pub allow_insecure: bool,
}

/// A resolved gateway. `Debug` never shows the token.
#[derive(Debug, Clone)]
pub struct GatewayTarget {
    pub url: String,
    /// Where the address came from (for messages and `--json`).
    pub url_source: String,
    pub token: Option<Secret>,
    /// Where the token came from (never the token).
    pub token_source: String,
    /// True when the address names this machine (silent pairing applies only there).
    pub loopback: bool,
}

pub fn resolve(
    config: &Value,
    env: &GatewayEnv,
    overrides: &Overrides,
) -> Result<GatewayTarget, GatewayError> {
    // Borrowed, not copied: `list` asks this of every session (who may compact it).
    let gw = config.get("gateway").unwrap_or(&Value::Null);
    let remote_mode = gw.get("mode").and_then(Value::as_str) == Some("remote");
    let (url, url_source, explicit) = if let Some(u) = &overrides.url {
        (u.clone(), "--gateway".to_string(), true)
    } else if let Some(u) = &env.url {
        (u.clone(), "OPENCLAW_GATEWAY_URL".to_string(), true)
    } else if remote_mode {
        let u = gw
            .pointer("/remote/url")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .ok_or_else(|| GatewayError::BadUrl {
                url: "(none)".into(),
                problem: "gateway.mode is \"remote\" but gateway.remote.url is not set; pass --gateway ws://HOST:PORT".into(),
            })?;
        (u.to_string(), "gateway.remote.url".to_string(), false)
    } else {
        let (port, src) = if let Some(p) = &env.port {
            let port = p.parse::<u16>().map_err(|_| GatewayError::BadUrl {
                url: format!("port {p:?}"),
                problem: "OPENCLAW_GATEWAY_PORT is not a port number".into(),
            })?;
            (port, "OPENCLAW_GATEWAY_PORT")
        } else if let Some(p) = gw.get("port") {
            let port = p
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p > 0)
                .ok_or_else(|| GatewayError::BadUrl {
                    url: format!("port {p}"),
                    problem: "gateway.port in the config is not a port number".into(),
                })?;
            (port, "gateway.port")
        } else {
            (DEFAULT_PORT, "default port")
        };
        (
            format!("ws://127.0.0.1:{port}"),
            format!("local gateway ({src})"),
            false,
        )
    };
    let loopback = check_url(&url)?;
    if !loopback && !overrides.allow_insecure {
        let port = super::error::url_port(&url);
        return Err(GatewayError::BadUrl {
            url: redact_userinfo(&url),
            problem: format!(
                "not a loopback address, and ws:// is unencrypted: the gateway token and the transcripts would cross the network in clear. Open an ssh tunnel (ssh -N -L {port}:127.0.0.1:{port} HOST) and use --gateway ws://127.0.0.1:{port}, or pass --allow-insecure-gateway on a network you trust"
            ),
        });
    }

    let (token, token_source) = if let Some(f) = &overrides.token_file {
        (
            Some(read_token_file(f)?),
            "--gateway-token-file".to_string(),
        )
    } else if explicit {
        match &env.token {
            Some(t) => (Some(t.clone()), "OPENCLAW_GATEWAY_TOKEN".to_string()),
            None => (None, String::new()),
        }
    } else {
        let order: [(&str, Option<&Value>); 3] = if remote_mode {
            [
                ("gateway.remote.token", gw.pointer("/remote/token")),
                ("OPENCLAW_GATEWAY_TOKEN", None),
                ("gateway.auth.token", gw.pointer("/auth/token")),
            ]
        } else {
            [
                ("gateway.auth.token", gw.pointer("/auth/token")),
                ("OPENCLAW_GATEWAY_TOKEN", None),
                ("gateway.remote.token", gw.pointer("/remote/token")),
            ]
        };
        let mut found = None;
        for (name, value) in order {
            let t = if name == "OPENCLAW_GATEWAY_TOKEN" {
                env.token.clone()
            } else {
                match value {
                    Some(v) => config_secret(v, name, env)?,
                    None => None,
                }
            };
            if let Some(t) = t {
                found = Some((t, name.to_string()));
                break;
            }
        }
        match found {
            Some((t, s)) => (Some(t), s),
            None => (None, String::new()),
        }
    };
    Ok(GatewayTarget {
        url,
        url_source,
        token,
        token_source,
        loopback,
    })
}

/// `ws://host:port[/]` only; returns whether the host is loopback.
/// Whether something accepts TCP connections at a `ws://HOST:PORT` address: a cheap check that
/// needs no identity or token, made before anything that would create clawtop's device key.
pub async fn accepts_connections(url: &str, within: std::time::Duration) -> bool {
    let Some(rest) = url.strip_prefix("ws://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let has_port = if authority.starts_with('[') {
        authority.contains("]:")
    } else {
        authority.contains(':')
    };
    let addr = if has_port {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    matches!(
        tokio::time::timeout(within, tokio::net::TcpStream::connect(addr)).await,
        Ok(Ok(_))
    )
}

fn check_url(url: &str) -> Result<bool, GatewayError> {
    let bad = |problem: &str| GatewayError::BadUrl {
        url: redact_userinfo(url),
        problem: problem.to_string(),
    };
    let rest = if let Some(r) = url.strip_prefix("ws://") {
        r
    } else if url.starts_with("wss://") {
        return Err(bad(
            "wss:// is not supported yet; reach the gateway through an ssh tunnel (ssh -N -L 18789:127.0.0.1:18789 HOST) and use ws://127.0.0.1:18789",
        ));
    } else {
        return Err(bad("expected ws://HOST:PORT"));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return Err(bad(
            "credentials in the address are not accepted; put the token in OPENCLAW_GATEWAY_TOKEN or a --gateway-token-file",
        ));
    }
    let host = if let Some(h) = authority.strip_prefix('[') {
        h.split(']').next().unwrap_or("")
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    if host.is_empty() {
        return Err(bad("no host"));
    }
    Ok(matches!(host, "127.0.0.1" | "localhost" | "::1") || host.starts_with("127."))
}

/// The address for messages: neutralised, with any `user:password@` replaced by `***@`.
pub fn redact_userinfo(url: &str) -> String {
    let shown = match url.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            match rest[..end].rfind('@') {
                Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
                None => url.to_string(),
            }
        }
        None => url.to_string(),
    };
    crate::sanitize::one_line(&shown)
}

fn read_token_file(path: &Path) -> Result<Secret, GatewayError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        GatewayError::TokenSource(format!(
            "cannot read --gateway-token-file {}: {e}",
            path.display()
        ))
    })?;
    let t = text.trim();
    if t.is_empty() {
        return Err(GatewayError::TokenSource(format!(
            "--gateway-token-file {} is empty",
            path.display()
        )));
    }
    if t.lines().count() > 1 {
        return Err(GatewayError::TokenSource(format!(
            "--gateway-token-file {} has more than one line; it must hold only the token",
            path.display()
        )));
    }
    Ok(Secret::new(t))
}

fn config_secret(v: &Value, name: &str, env: &GatewayEnv) -> Result<Option<Secret>, GatewayError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            if let Some(var) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
                return match env.get(var) {
                    Some(val) => Ok(Some(Secret::new(val.trim()))),
                    None => Err(GatewayError::TokenSource(format!(
                        "{name} is ${{{var}}} and {var} is not set; set it or OPENCLAW_GATEWAY_TOKEN"
                    ))),
                };
            }
            Ok(Some(Secret::new(s)))
        }
        Value::Object(o) => {
            let source = o.get("source").and_then(Value::as_str).unwrap_or("");
            let id = o.get("id").and_then(Value::as_str).unwrap_or("");
            if source == "env" && !id.is_empty() {
                return match env.get(id) {
                    Some(val) => Ok(Some(Secret::new(val.trim()))),
                    None => Err(GatewayError::TokenSource(format!(
                        "{name} refers to the environment variable {id}, which is not set"
                    ))),
                };
            }
            Err(GatewayError::TokenSource(format!(
                "{name} is a SecretRef with source {:?}, which clawtop does not resolve; set OPENCLAW_GATEWAY_TOKEN or pass --gateway-token-file FILE",
                crate::sanitize::one_line(source)
            )))
        }
        _ => Err(GatewayError::TokenSource(format!(
            "{name} in the config is neither a string nor a SecretRef"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(pairs: &[(&str, &str)]) -> GatewayEnv {
        let get = |k: &str| {
            pairs
                .iter()
                .find(|(a, _)| *a == k)
                .map(|(_, v)| v.to_string())
        };
        GatewayEnv {
            url: get("OPENCLAW_GATEWAY_URL"),
            port: get("OPENCLAW_GATEWAY_PORT"),
            token: get("OPENCLAW_GATEWAY_TOKEN").map(Secret::new),
            lookup: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn local_mode_from_config_then_env() {
        let cfg = json!({"gateway":{"mode":"local","port":18795,"auth":{"mode":"token","token":"cfg-token"}}});
        let t = resolve(
            &cfg,
            &env(&[("OPENCLAW_GATEWAY_TOKEN", "env-token")]),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(t.url, "ws://127.0.0.1:18795");
        assert_eq!(t.token.as_ref().unwrap().expose(), "cfg-token");
        assert_eq!(t.token_source, "gateway.auth.token");
        assert!(t.loopback);
        // Env port beats the config; env token fills in when the config has none.
        let cfg = json!({"gateway":{"port":18795}});
        let t = resolve(
            &cfg,
            &env(&[
                ("OPENCLAW_GATEWAY_PORT", "19000"),
                ("OPENCLAW_GATEWAY_TOKEN", "env-token"),
            ]),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(t.url, "ws://127.0.0.1:19000");
        assert_eq!(t.token_source, "OPENCLAW_GATEWAY_TOKEN");
        // Nothing at all: default port, no token.
        let t = resolve(&json!({}), &env(&[]), &Overrides::default()).unwrap();
        assert_eq!(t.url, "ws://127.0.0.1:18789");
        assert!(t.token.is_none());
    }

    #[test]
    fn explicit_address_never_takes_config_credentials() {
        let cfg = json!({"gateway":{"auth":{"token":"cfg-token"}}});
        let ov = Overrides {
            url: Some("ws://127.0.0.1:18789".into()),
            token_file: None,
            allow_insecure: false,
        };
        let t = resolve(&cfg, &env(&[]), &ov).unwrap();
        assert!(t.token.is_none());
        let t = resolve(&cfg, &env(&[("OPENCLAW_GATEWAY_TOKEN", "e")]), &ov).unwrap();
        assert_eq!(t.token.unwrap().expose(), "e");
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("tok");
        std::fs::write(&f, "file-token\n").unwrap();
        let ov = Overrides {
            url: Some("ws://10.0.0.5:18789".into()),
            token_file: Some(f.clone()),
            allow_insecure: false,
        };
        let refused = resolve(&cfg, &env(&[("OPENCLAW_GATEWAY_TOKEN", "e")]), &ov)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("not a loopback address") && refused.contains("18789:127.0.0.1:18789"),
            "{refused}"
        );
        let ov = Overrides {
            url: Some("ws://10.0.0.5:18789".into()),
            token_file: Some(f),
            allow_insecure: true,
        };
        let t = resolve(&cfg, &env(&[("OPENCLAW_GATEWAY_TOKEN", "e")]), &ov).unwrap();
        assert_eq!(t.token.unwrap().expose(), "file-token");
        assert!(!t.loopback);
    }

    #[test]
    fn remote_mode_and_secret_refs() {
        let cfg = json!({"gateway":{"mode":"remote","remote":{"url":"ws://127.0.0.1:2222","token":{"source":"env","provider":"default","id":"GW_TOK"}},"auth":{"token":"local"}}});
        let t = resolve(&cfg, &env(&[("GW_TOK", "from-ref")]), &Overrides::default()).unwrap();
        assert_eq!(t.url, "ws://127.0.0.1:2222");
        assert_eq!(t.token.unwrap().expose(), "from-ref");
        let e = resolve(&cfg, &env(&[]), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains("GW_TOK"), "{e}");
        let cfg = json!({"gateway":{"auth":{"token":{"source":"exec","id":"x"}}}});
        let e = resolve(&cfg, &env(&[]), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains("OPENCLAW_GATEWAY_TOKEN"), "{e}");
        let cfg = json!({"gateway":{"auth":{"token":"${MY_TOK}"}}});
        let t = resolve(&cfg, &env(&[("MY_TOK", "sub")]), &Overrides::default()).unwrap();
        assert_eq!(t.token.unwrap().expose(), "sub");
    }

    #[test]
    fn bad_addresses_and_token_files() {
        for (url, want) in [
            ("http://x:1", "ws://"),
            ("wss://x:1", "tunnel"),
            ("ws://user:pw@127.0.0.1:1", "credentials"),
            ("ws://:1", "no host"),
        ] {
            let ov = Overrides {
                url: Some(url.into()),
                token_file: None,
                allow_insecure: false,
            };
            let e = resolve(&json!({}), &env(&[]), &ov).unwrap_err();
            assert!(e.to_string().contains(want), "{url}: {e}");
            assert!(!e.to_string().contains("pw@"), "{e}");
        }
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("empty");
        std::fs::write(&f, "\n").unwrap();
        let ov = Overrides {
            url: None,
            token_file: Some(f),
            allow_insecure: false,
        };
        assert!(
            resolve(&json!({}), &env(&[]), &ov)
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        let ov = Overrides {
            url: None,
            token_file: Some(dir.path().join("missing")),
            allow_insecure: false,
        };
        assert!(resolve(&json!({}), &env(&[]), &ov).is_err());
    }
}
