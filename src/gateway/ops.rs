//! The gateway methods clawtop uses, with typed results (docs/openclaw-2026.9.md §8).
//!
//! Compaction always checks for an active run first and sends nothing while one runs: a
//! `sessions.compact` would be refused anyway, and `/compact` would *abort* the operator's
//! running turn (OpenClaw's `handleCompactCommand`), which clawtop must never do behind the
//! operator's back.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::client::GatewayClient;
use super::error::{GatewayError, MAX_COMPACT_INSTRUCTIONS, untrusted};

/// One row of `sessions.list` / `sessions.describe`. Fields the gateway does not send stay
/// `None` (it never sends `compactionCount`, `memoryFlush` or summaries, §9).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub key: String,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub display_name: Option<String>,
    pub updated_at: Option<i64>,
    pub total_tokens: Option<u64>,
    pub total_tokens_fresh: Option<bool>,
    pub context_tokens: Option<u64>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub model: Option<String>,
    pub has_active_run: Option<bool>,
    pub status: Option<String>,
}

impl SessionRow {
    pub fn from_json(v: &Value) -> Option<SessionRow> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let n = |k: &str| v.get(k).and_then(Value::as_u64);
        Some(SessionRow {
            key: s("key")?,
            agent_id: s("agentId"),
            session_id: s("sessionId"),
            display_name: s("displayName"),
            updated_at: v.get("updatedAt").and_then(Value::as_i64),
            total_tokens: n("totalTokens"),
            total_tokens_fresh: v.get("totalTokensFresh").and_then(Value::as_bool),
            context_tokens: n("contextTokens"),
            input_tokens: n("inputTokens"),
            output_tokens: n("outputTokens"),
            model: s("model"),
            has_active_run: v.get("hasActiveRun").and_then(Value::as_bool),
            status: s("status"),
        })
    }
}

/// `chat.history`: the messages as the gateway sends them (compactions are markers without
/// their summary).
#[derive(Debug, Clone)]
pub struct ChatHistory {
    pub session_id: Option<String>,
    pub messages: Vec<Value>,
    pub has_more: bool,
    pub total_messages: Option<u64>,
    /// Where the next (older) page starts, when there is one.
    pub next_offset: Option<u64>,
}

impl ChatHistory {
    fn from_payload(p: &Value, url: &str) -> Result<ChatHistory, GatewayError> {
        let messages = p
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| GatewayError::Malformed {
                url: url.to_string(),
                detail: "chat.history without a messages array".into(),
            })?;
        Ok(ChatHistory {
            session_id: p
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string),
            messages,
            has_more: p.get("hasMore").and_then(Value::as_bool).unwrap_or(false),
            total_messages: p.get("totalMessages").and_then(Value::as_u64),
            next_offset: p.get("nextOffset").and_then(Value::as_u64),
        })
    }
}

/// What a compaction through the gateway did.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactOutcome {
    Compacted {
        /// From a `sessions.compact` result; `/compact` returns only a status notice.
        summary: Option<String>,
        tokens_before: Option<u64>,
        tokens_after: Option<u64>,
        /// The `/compact` status notice (`⚙️ Compacted (…)`), neutralised.
        notice: Option<String>,
    },
    /// OpenClaw answered but did not compact (`Already compacted`, `no sessionId`, or a
    /// `/compact` notice that is not a success), neutralised.
    NotCompacted { reason: String },
}

/// How long a compaction may take before clawtop stops waiting (OpenClaw may still finish).
pub const COMPACT_WAIT: Duration = Duration::from_secs(300);

/// The most one paged read (`sessions.list`, `chat.history`) takes in across its pages, as
/// text received; with [`super::client::REPLY_MAX_BYTES`] per reply, it bounds what a gateway
/// can make clawtop hold (a history is cut there to its newest messages, a listing fails).
pub const PAGED_MAX_BYTES: u64 = 64 * 1024 * 1024;

impl GatewayClient {
    /// Every session of every agent (`sessions.list`, paged).
    pub async fn sessions_list(&self) -> Result<Vec<SessionRow>, GatewayError> {
        const PAGE: u64 = 500;
        let mut rows = Vec::new();
        let mut offset = 0u64;
        let start = self.received_bytes();
        loop {
            let p = self
                .request("sessions.list", json!({"limit": PAGE, "offset": offset}))
                .await?;
            let page = p.get("sessions").and_then(Value::as_array).ok_or_else(|| {
                GatewayError::Malformed {
                    url: self.url().to_string(),
                    detail: "sessions.list without a sessions array".into(),
                }
            })?;
            rows.extend(page.iter().filter_map(SessionRow::from_json));
            let more = p.get("hasMore").and_then(Value::as_bool) == Some(true);
            if !more || page.is_empty() || rows.len() > 1_000_000 {
                return Ok(rows);
            }
            if self.received_bytes().saturating_sub(start) > PAGED_MAX_BYTES {
                return Err(GatewayError::TooLarge {
                    url: self.url().to_string(),
                    what: format!("sessions.list ({} sessions so far)", rows.len()),
                    limit: PAGED_MAX_BYTES,
                });
            }
            offset += page.len() as u64;
        }
    }

    /// One session's row (`sessions.describe`); `None` for an unknown key.
    pub async fn describe(&self, key: &str) -> Result<Option<SessionRow>, GatewayError> {
        match self.request("sessions.describe", json!({"key": key})).await {
            Ok(p) => Ok(p.get("session").and_then(SessionRow::from_json)),
            Err(GatewayError::Rpc { message, .. })
                if message.contains("not found") || message.contains("unknown session") =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether a run is active or queued on `key`: `sessions.list {activeOnly}` (2026.9); a
    /// gateway that does not know `activeOnly` (2026.7.1 rejects it) is asked for the plain
    /// list, whose rows carry `hasActiveRun` only from 2026.9: `None` when it does not say. The
    /// `sessions.describe` row has no `hasActiveRun`. An unknown key is an error.
    pub async fn run_state(&self, key: &str) -> Result<Option<bool>, GatewayError> {
        if self.describe(key).await?.is_none() {
            return Err(GatewayError::UnknownSession {
                key: crate::sanitize::one_line(key),
            });
        }
        let rows = match self
            .request("sessions.list", json!({"activeOnly": true, "limit": 1000}))
            .await
        {
            Ok(p) => p
                .get("sessions")
                .and_then(Value::as_array)
                .ok_or_else(|| GatewayError::Malformed {
                    url: self.url().to_string(),
                    detail: "sessions.list without a sessions array".into(),
                })?
                .iter()
                .filter_map(SessionRow::from_json)
                .collect::<Vec<_>>(),
            Err(GatewayError::Rpc { message, .. }) if message.contains("activeOnly") => {
                let row = self
                    .sessions_list()
                    .await?
                    .into_iter()
                    .find(|r| r.key == key);
                return Ok(row.and_then(|r| r.has_active_run));
            }
            Err(e) => return Err(e),
        };
        Ok(Some(
            rows.iter()
                .any(|r| r.key == key && r.has_active_run != Some(false)),
        ))
    }

    /// True while a run is active or queued on `key` ([`Self::run_state`]). Where the gateway
    /// does not say, the caller's own check stands if it vouched ([`GatewayClient::vouch_idle`]);
    /// otherwise [`GatewayError::RunStateUnknown`]: nothing may be sent on a guess.
    pub async fn has_active_run(&self, key: &str) -> Result<bool, GatewayError> {
        match self.run_state(key).await? {
            Some(b) => Ok(b),
            None if self.idle_vouched() => Ok(false),
            None => Err(GatewayError::RunStateUnknown {
                url: self.url().to_string(),
                version: self
                    .hello()
                    .server_version
                    .clone()
                    .map(|v| crate::sanitize::one_line(&v))
                    .unwrap_or_else(|| "of unknown version".into()),
                key: crate::sanitize::one_line(key),
            }),
        }
    }

    /// The last `limit` messages of `key` (`chat.history`).
    pub async fn chat_history(&self, key: &str, limit: u32) -> Result<ChatHistory, GatewayError> {
        let p = self
            .request("chat.history", json!({"sessionKey": key, "limit": limit}))
            .await?;
        ChatHistory::from_payload(&p, self.url())
    }

    /// The whole history of `key` (at most `max` messages, the newest kept), oldest first,
    /// read in pages of `page` (at most 1,000, OpenClaw's cap per call): each page's `nextOffset`
    /// names where the next, older page starts. `has_more` stays true when `max` cut it short.
    pub async fn chat_history_all(
        &self,
        key: &str,
        page: u32,
        max: usize,
    ) -> Result<ChatHistory, GatewayError> {
        let start = self.received_bytes();
        let mut first = self.chat_history(key, page).await?;
        let mut pages = vec![std::mem::take(&mut first.messages)];
        let mut total = pages[0].len();
        let mut next = first.next_offset;
        while let (true, Some(offset)) = (first.has_more, next) {
            // Pages come newest first: stopping keeps the newest, and `has_more` says the
            // rest is left out.
            if total >= max || self.received_bytes().saturating_sub(start) > PAGED_MAX_BYTES {
                break;
            }
            let p = self
                .request(
                    "chat.history",
                    json!({"sessionKey": key, "limit": page, "offset": offset}),
                )
                .await?;
            let h = ChatHistory::from_payload(&p, self.url())?;
            // A page that moves nowhere would loop forever: stop, saying there is more.
            if h.messages.is_empty() || h.next_offset.is_some_and(|n| n <= offset) {
                break;
            }
            total += h.messages.len();
            first.has_more = h.has_more;
            next = h.next_offset;
            pages.push(h.messages);
        }
        let mut messages: Vec<Value> = pages.into_iter().rev().flatten().collect();
        if messages.len() > max {
            messages.drain(..messages.len() - max);
            first.has_more = true;
        }
        first.messages = messages;
        Ok(first)
    }

    /// Session events (`sessions.changed`, `session.operation`, …) arrive only after this.
    pub async fn subscribe_sessions(&self) -> Result<(), GatewayError> {
        self.request("sessions.subscribe", json!({})).await?;
        Ok(())
    }

    /// LLM compaction with OpenClaw's own summarizer and no instructions (`sessions.compact`,
    /// admin scope). Refused with [`GatewayError::ActiveRun`] while a run is active.
    pub async fn compact(&self, key: &str) -> Result<CompactOutcome, GatewayError> {
        if self.has_active_run(key).await? {
            return Err(GatewayError::ActiveRun {
                key: crate::sanitize::one_line(key),
            });
        }
        let p = match self
            .request_with_timeout("sessions.compact", json!({"key": key}), COMPACT_WAIT)
            .await
        {
            Err(GatewayError::Rpc { message, .. }) if message.contains("has an active run") => {
                return Err(GatewayError::ActiveRun {
                    key: crate::sanitize::one_line(key),
                });
            }
            other => other?,
        };
        if p.get("compacted").and_then(Value::as_bool) == Some(true) {
            let r = p.get("result").cloned().unwrap_or(Value::Null);
            Ok(CompactOutcome::Compacted {
                summary: r.get("summary").and_then(Value::as_str).map(str::to_string),
                tokens_before: r.get("tokensBefore").and_then(Value::as_u64),
                tokens_after: r.get("tokensAfter").and_then(Value::as_u64),
                notice: None,
            })
        } else {
            let reason = p
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("the gateway did not compact and gave no reason");
            Ok(CompactOutcome::NotCompacted {
                reason: untrusted(reason, None),
            })
        }
    }

    /// Focused compaction: `/compact <instructions>` through `chat.send` (write scope). The
    /// instructions reach OpenClaw's summarizer as focus text; OpenClaw writes the summary.
    /// Waits for the command's final chat event (at most `wait`).
    pub async fn compact_with_instructions(
        &self,
        key: &str,
        instructions: &str,
        wait: Duration,
    ) -> Result<CompactOutcome, GatewayError> {
        let instructions = check_instructions(instructions)?;
        if instructions.is_empty() {
            return self.compact(key).await;
        }
        if self.has_active_run(key).await? {
            return Err(GatewayError::ActiveRun {
                key: crate::sanitize::one_line(key),
            });
        }
        let mut events = self.events();
        let run_id = uuid::Uuid::new_v4().to_string();
        let res = self
            .request(
                "chat.send",
                json!({"sessionKey": key, "message": format!("/compact {instructions}"), "idempotencyKey": run_id}),
            )
            .await?;
        let run_id = res
            .get("runId")
            .and_then(Value::as_str)
            .unwrap_or(&run_id)
            .to_string();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let ev = tokio::select! {
                ev = events.recv() => ev,
                reason = self.closed() => return Err(GatewayError::Disconnected { reason }),
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(GatewayError::Timeout {
                        url: self.url().to_string(),
                        what: "finish /compact (OpenClaw may still finish it; the Sessions screen will show the new figures)".into(),
                        after: wait,
                    });
                }
            };
            let ev = match ev {
                Ok(ev) => ev,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => {
                    return Err(GatewayError::Disconnected {
                        reason: self.closed_reason().unwrap_or_default(),
                    });
                }
            };
            if ev.event != "chat" {
                continue;
            }
            let p = &ev.payload;
            if p.get("runId").and_then(Value::as_str) != Some(run_id.as_str()) {
                continue;
            }
            match p.get("state").and_then(Value::as_str) {
                Some("final") => {
                    let text = message_text(p.get("message").unwrap_or(&Value::Null));
                    let notice = untrusted(&text, None);
                    return Ok(if is_compacted_notice(&text) {
                        CompactOutcome::Compacted {
                            summary: None,
                            tokens_before: None,
                            tokens_after: None,
                            notice: Some(notice),
                        }
                    } else {
                        CompactOutcome::NotCompacted { reason: notice }
                    });
                }
                Some("error" | "aborted") => {
                    let msg = p
                        .get("errorMessage")
                        .or_else(|| p.get("error"))
                        .map(|v| match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .unwrap_or_else(|| "the run ended without a result".into());
                    return Err(GatewayError::Rpc {
                        method: "/compact".into(),
                        code: p
                            .get("state")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        message: untrusted(&msg, None),
                    });
                }
                _ => {}
            }
        }
    }
}

/// Trims and checks `/compact` instructions: at most [`MAX_COMPACT_INSTRUCTIONS`] characters
/// (code points, as OpenClaw counts them).
pub fn check_instructions(text: &str) -> Result<&str, GatewayError> {
    match crate::instructions::Instructions::new(text) {
        Some(i) => i
            .within_cap(MAX_COMPACT_INSTRUCTIONS)
            .map_err(|len| GatewayError::InstructionsTooLong { len })
            // Trimming only shortens the text: the checked text is a slice of `text`.
            .map(|_| text.trim()),
        None => Ok(""),
    }
}

/// The text parts of a chat message (`content` string or `[{type:"text", text}]`).
fn message_text(m: &Value) -> String {
    match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Asks the gateway whether a run is active on `key`, from synchronous code: on its own
/// thread with its own small runtime (so it works whether or not the caller is inside one),
/// with short limits — this is a check before a local write, not a long operation.
pub fn active_run_blocking(
    target: &super::GatewayTarget,
    identity_dir: &std::path::Path,
    key: &str,
) -> Result<bool, GatewayError> {
    let (target, dir, key) = (target.clone(), identity_dir.to_path_buf(), key.to_string());
    let timeouts = super::Timeouts {
        connect: Duration::from_secs(3),
        handshake: Duration::from_secs(5),
        request: Duration::from_secs(10),
    };
    let url = target.url.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| GatewayError::Unreachable {
                url: target.url.clone(),
                cause: format!("cannot start the network runtime: {e}"),
            })?;
        rt.block_on(async {
            // No gateway listening: say so before creating clawtop's device key for nothing.
            if !super::target::accepts_connections(&target.url, timeouts.connect).await {
                return Err(GatewayError::Unreachable {
                    url: super::target::redact_userinfo(&target.url),
                    cause: "nothing accepts connections there".into(),
                });
            }
            let id = super::DeviceIdentity::load_or_create(&dir)?;
            let client = GatewayClient::connect(&target, &id, timeouts).await?;
            let busy = client.has_active_run(&key).await;
            client.close().await;
            busy
        })
    })
    .join()
    .unwrap_or_else(|_| {
        Err(GatewayError::Unreachable {
            url,
            cause: "the check for an active run failed unexpectedly".into(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_cap_counts_code_points() {
        let ok = "é".repeat(800);
        assert_eq!(check_instructions(&ok).unwrap().chars().count(), 800);
        let long = "é".repeat(801);
        let e = check_instructions(&long).unwrap_err();
        assert!(
            e.to_string().contains("801") && e.to_string().contains("800"),
            "{e}"
        );
        assert_eq!(check_instructions("  focus  ").unwrap(), "focus");
    }

    #[test]
    fn session_row_from_real_list_row() {
        // A trimmed sessions.list row from a 2026.9.6 gateway on host-f (reference §8).
        let v: Value = serde_json::from_str(r#"{"key":"agent:main:incident-7","kind":"direct","agentId":"main","sessionId":"f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93","updatedAt":1795457042282,"inputTokens":29144,"outputTokens":2372,"totalTokens":29144,"totalTokensFresh":true,"model":"fake-model","contextTokens":48000,"hasActiveRun":false,"activeRunIds":[]}"#).unwrap();
        let r = SessionRow::from_json(&v).unwrap();
        assert_eq!(r.total_tokens, Some(29144));
        assert_eq!(r.context_tokens, Some(48000));
        assert_eq!(r.has_active_run, Some(false));
        assert!(SessionRow::from_json(&serde_json::json!({"nokey": 1})).is_none());
    }
}

/// Whether a `/compact` status notice reports a compaction. OpenClaw 2026.9.6 words success
/// two ways: `⚙️ Compacted (<n>k → <n>k) • Context …` when it knows the size after, and
/// `⚙️ Compaction finished (resulting context unknown) • Context ?/…` when it does not (seen
/// on a real gateway compacting a session a second time; the database gained the entry).
fn is_compacted_notice(text: &str) -> bool {
    (text.contains("Compacted") || text.contains("Compaction finished")) && !text.contains("failed")
}

#[cfg(test)]
mod notice_tests {
    use super::is_compacted_notice;

    #[test]
    fn both_success_wordings_and_no_failure() {
        assert!(is_compacted_notice(
            "⚙️ Compacted (31k → 9k) • Context 9k/48k (19%)"
        ));
        assert!(is_compacted_notice(
            "⚙️ Compaction finished (resulting context unknown) • Context ?/200k"
        ));
        assert!(!is_compacted_notice("⚙️ Compaction failed: no sessionId"));
        assert!(!is_compacted_notice("Already compacted"));
    }
}
