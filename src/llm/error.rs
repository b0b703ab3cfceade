//! Errors of the model layer. Every message names the cause and, for network errors,
//! the URL (never a key: URLs are built from config base URLs, and provider text is
//! scrubbed before it gets here).

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// No provider could be determined.
    #[error("no model provider: {looked}")]
    NoProvider { looked: String },

    /// No model id could be determined.
    #[error("no model for provider `{provider}`: {looked}")]
    NoModel { provider: String, looked: String },

    /// The provider has no usable endpoint (no base URL / api anywhere).
    #[error("no endpoint for provider `{provider}`: {looked}")]
    UnknownProvider { provider: String, looked: String },

    /// The configured `api` is one clawtop does not speak.
    #[error(
        "unsupported api `{api}`{}: clawtop speaks anthropic-messages and openai-completions (use --api to override)",
        provider.as_deref().map(|p| format!(" for provider `{p}`")).unwrap_or_default()
    )]
    UnsupportedApi {
        provider: Option<String>,
        api: String,
    },

    /// No API key found for a non-loopback endpoint.
    #[error("no API key for provider `{provider}`: looked at {looked}")]
    MissingKey { provider: String, looked: String },

    /// The endpoint itself is unusable (bad base URL, bad header).
    #[error("invalid endpoint for provider `{provider}`: {reason}")]
    InvalidEndpoint { provider: String, reason: String },

    /// Could not connect or send the request (after `attempts` tries).
    #[error("cannot reach {url}: {reason}{}", attempts_note(*attempts))]
    Connect {
        url: String,
        reason: String,
        attempts: u32,
    },

    /// The server answered with a non-success status.
    #[error("HTTP {status} from {url}: {message}{}", attempts_note(*attempts))]
    Status {
        status: u16,
        url: String,
        /// The provider's error message, trimmed and length-capped.
        message: String,
        attempts: u32,
    },

    /// The idle limit: nothing (or, in a stream, nothing but keep-alives) arrived for
    /// `after` while `phase`.
    #[error("model at {url} hit the idle limit of {}s {phase}", after.as_secs_f64())]
    Timeout {
        url: String,
        phase: &'static str,
        after: Duration,
    },

    /// The generation deadline: the call (retries included) ran longer than `after`.
    #[error(
        "model at {url} did not finish within the generation deadline of {}s (set {} to allow longer)",
        after.as_secs_f64(),
        super::GENERATION_DEADLINE_ENV
    )]
    Deadline { url: String, after: Duration },

    /// The response ended before the model finished (no terminal event / connection lost).
    #[error("model response from {url} was cut off: {reason}")]
    Incomplete { url: String, reason: String },

    /// The response body could not be understood.
    #[error("unreadable model response from {url}: {reason}")]
    BadResponse { url: String, reason: String },

    /// The model or provider reported a failure inside a successful response
    /// (SSE `error` event, stop reason `error`/`refusal`/`content_filter`).
    #[error("model error from {url}: {message}{}", attempts_note(*attempts))]
    Provider {
        url: String,
        message: String,
        attempts: u32,
    },

    /// The caller's cancellation token fired.
    #[error("cancelled")]
    Cancelled,
}

fn attempts_note(attempts: u32) -> String {
    if attempts > 1 {
        format!(" (gave up after {attempts} attempts)")
    } else {
        String::new()
    }
}

impl LlmError {
    /// Record the number of attempts made, for errors that carry it.
    pub(crate) fn with_attempts(mut self, n: u32) -> Self {
        match &mut self {
            LlmError::Connect { attempts, .. }
            | LlmError::Status { attempts, .. }
            | LlmError::Provider { attempts, .. } => *attempts = n,
            _ => {}
        }
        self
    }
}

/// Make provider-supplied text safe to show: no character unsafe on a terminal
/// ([`crate::sanitize::is_unsafe_for_terminal`]), whitespace collapsed, at most `max`
/// characters.
pub(crate) fn tidy_message(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut last_space = true;
    for c in text.chars() {
        let c = if c.is_whitespace() || crate::sanitize::is_unsafe_for_terminal(c) {
            ' '
        } else {
            c
        };
        if c == ' ' {
            if last_space {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        if count == max {
            out.truncate(out.trim_end().len());
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The surfaces that write untrusted text their own way agree with `crate::sanitize` on what
    /// must not pass: the metrics label escaper and the provider error tidier once had their
    /// own, narrower lists (zero-width characters, bidi marks and isolates went through).
    #[test]
    fn every_surface_neutralises_the_same_characters() {
        let probe =
            "a\u{1b}[31m\u{9b}\u{7f}\u{200b}\u{200e}\u{200f}\u{202e}\u{2066}\u{feff}\u{2028}b";
        let outs = [
            crate::sanitize::one_line(probe),
            crate::report::metrics::label_value(probe),
            tidy_message(probe, 200),
        ];
        for out in &outs {
            assert!(
                !out.chars().any(crate::sanitize::is_unsafe_for_terminal),
                "{out:?}"
            );
            assert!(out.starts_with('a') && out.ends_with('b'), "{out:?}");
        }
    }

    #[test]
    fn tidy_strips_controls_and_caps() {
        assert_eq!(tidy_message("  a\n\n b\x1b[31m c ", 100), "a b [31m c");
        assert_eq!(tidy_message("abcdef", 3), "abc…");
        assert_eq!(tidy_message("", 3), "");
    }

    #[test]
    fn attempts_shown_only_when_retried() {
        let e = LlmError::Status {
            status: 500,
            url: "u".into(),
            message: "m".into(),
            attempts: 1,
        };
        assert_eq!(e.to_string(), "HTTP 500 from u: m");
        assert_eq!(
            e.with_attempts(3).to_string(),
            "HTTP 500 from u: m (gave up after 3 attempts)"
        );
    }
}
