//! `Secret`: an API key that cannot be printed by accident.

use std::fmt;

/// An API key or token. `Debug` and `Display` print `***`; the only way to the value
/// is [`Secret::expose`], used when building a request header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The raw key. Call only to put it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Replace every occurrence of the key in `text` with `***` (for provider error
    /// bodies, which we quote to the operator and which could echo the key).
    pub fn scrub(&self, text: &str) -> String {
        // Very short "keys" (placeholders like "x") would mangle ordinary words and
        // are not secrets anyway.
        if self.0.len() < 6 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

/// `base` with `f` applied to its part before any `?`/`#` (trailing `/` trimmed); the
/// query string (a proxy's `?key=…`) stays after the new path.
pub(crate) fn with_path(base: &str, f: impl FnOnce(&str) -> String) -> String {
    let cut = base.find(['?', '#']).unwrap_or(base.len());
    let (path, rest) = base.split_at(cut);
    format!("{}{rest}", f(path.trim_end_matches('/')))
}

/// `url` with its userinfo and every query value replaced by `***`
/// (`http://***:***@host/v1?api_key=***`). Text that does not parse as a URL is cut at
/// the first `?` and stripped of anything before an `@` in its authority.
pub fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            if !u.username().is_empty() {
                let _ = u.set_username("***");
            }
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            if u.query().is_some() {
                let pairs: Vec<String> = u
                    .query_pairs()
                    .map(|(k, v)| {
                        if v.is_empty() && !u.query().unwrap_or("").contains('=') {
                            "***".to_string()
                        } else {
                            format!("{k}=***")
                        }
                    })
                    .collect();
                u.set_query(Some(&pairs.join("&")));
            }
            if u.fragment().is_some() {
                u.set_fragment(Some("***"));
            }
            // `set_query` percent-encodes `*`: show the placeholders as written.
            u.to_string().replace("%2A%2A%2A", "***")
        }
        Err(_) => {
            let mut s = url.split(['?', '#']).next().unwrap_or("").to_string();
            if s.len() < url.len() {
                s.push_str("?***");
            }
            if let Some(scheme_end) = s.find("://") {
                let rest = &s[scheme_end + 3..];
                let auth_end = rest.find('/').unwrap_or(rest.len());
                if let Some(at) = rest[..auth_end].rfind('@') {
                    s = format!("{}***@{}", &s[..scheme_end + 3], &rest[at + 1..]);
                }
            }
            s
        }
    }
}

/// Everything secret an endpoint carries besides the key: every configured header value
/// and the base URL's userinfo and query values (raw and percent-decoded).
fn endpoint_secrets(ep: &super::ModelEndpoint) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(k) = &ep.api_key {
        out.push(k.expose().to_string());
    }
    for (_, v) in &ep.headers {
        out.push(v.clone());
        // `Bearer TOKEN` echoed back without its scheme is still the token.
        if let Some((_, rest)) = v.split_once(' ') {
            out.push(rest.to_string());
        }
    }
    if let Ok(u) = reqwest::Url::parse(&ep.base_url) {
        out.push(u.username().to_string());
        if let Some(p) = u.password() {
            out.push(p.to_string());
        }
        for (_, v) in u.query_pairs() {
            out.push(v.into_owned());
        }
        if let Some(q) = u.query() {
            for part in q.split('&') {
                out.push(part.split_once('=').map_or(part, |(_, v)| v).to_string());
            }
        }
    }
    let mut decoded = Vec::new();
    for s in &out {
        if s.contains('%') {
            if let Ok(d) = reqwest::Url::parse(&format!("http://h/?v={s}")) {
                if let Some((_, v)) = d.query_pairs().next() {
                    decoded.push(v.into_owned());
                }
            }
        }
    }
    out.extend(decoded);
    // Very short values (`1`, `on`) are not secrets and replacing them would garble text.
    out.retain(|s| s.trim().len() >= 4);
    // Longest first, so a secret containing another is replaced whole.
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

/// `text` with the key, every configured header value and the base URL's credentials
/// replaced by `***`, and any URL in it redacted: for server messages and transport errors
/// that are shown or logged.
pub fn scrub_endpoint(ep: &super::ModelEndpoint, text: &str) -> String {
    let mut out = text.to_string();
    for s in endpoint_secrets(ep) {
        out = out.replace(&s, "***");
    }
    out
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_formats() {
        let s = Secret::new("sk-very-secret-123");
        assert_eq!(format!("{s:?}"), "***");
        assert_eq!(format!("{s}"), "***");
        assert_eq!(format!("{:?}", Some(s.clone())), "Some(***)");
        assert_eq!(s.expose(), "sk-very-secret-123");
    }

    #[test]
    fn urls_are_redacted_and_queries_kept_after_the_path() {
        assert_eq!(
            redact_url("http://u:KEY@host:8/v1?api_key=K&x=1"),
            "http://***:***@host:8/v1?api_key=***&x=***"
        );
        assert_eq!(redact_url("https://host/v1"), "https://host/v1");
        assert_eq!(redact_url("not a url?key=K"), "not a url?***");
        assert_eq!(redact_url("x://u:p@h/a"), "x://***:***@h/a");
        assert_eq!(
            with_path("http://h/v1/?k=1", |p| format!("{p}/m")),
            "http://h/v1/m?k=1"
        );
    }

    #[test]
    fn scrub_removes_key() {
        let s = Secret::new("sk-very-secret-123");
        assert_eq!(s.scrub("bad key sk-very-secret-123!"), "bad key ***!");
        assert_eq!(Secret::new("x").scrub("x marks"), "x marks");
    }
}
