//! Token arithmetic exactly as pi does it (docs/pi-compaction.md §3).
//!
//! Estimates are `ceil(chars / 4)` with chars counted in UTF-16 units. Where pi's TypeScript
//! would throw on a malformed block (missing `text` or `arguments`), clawtop counts 0 for the
//! missing part instead of failing the whole figure.

pub(crate) mod fast;

use crate::jsjson::{ceil_div4, stringify_len, utf16_len};
use crate::transcript::{
    EntryKind, MessageClass, MessageFigures, Role, Transcript, TranscriptError,
};
use serde_json::{Map, Value};

fn str_len(v: Option<&Value>) -> usize {
    v.and_then(Value::as_str).map(utf16_len).unwrap_or(0)
}

/// `estimateTokens(message)`: the message is an AgentMessage object (`role`, `content`, ...).
pub fn estimate_message(msg: &Value) -> u64 {
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    let content = msg.get("content");
    let chars = match role {
        "user" => match content {
            Some(Value::String(s)) => utf16_len(s),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| str_len(b.get("text")))
                .sum(),
            _ => 0,
        },
        "assistant" => match content {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => str_len(b.get("text")),
                    Some("thinking") => str_len(b.get("thinking")),
                    Some("toolCall") => {
                        str_len(b.get("name"))
                            + match b.get("arguments") {
                                Some(a) => stringify_len(a),
                                None => 0,
                            }
                    }
                    _ => 0,
                })
                .sum(),
            _ => 0,
        },
        "custom" | "toolResult" => match content {
            Some(Value::String(s)) => utf16_len(s),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => str_len(b.get("text")),
                    // pi counts an image as 4800 characters (1200 tokens).
                    Some("image") => 4800,
                    _ => 0,
                })
                .sum(),
            _ => 0,
        },
        "bashExecution" => str_len(msg.get("command")) + str_len(msg.get("output")),
        "branchSummary" | "compactionSummary" => str_len(msg.get("summary")),
        _ => 0,
    };
    ceil_div4(chars)
}

fn num(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

/// `calculateContextTokens(usage)`: `totalTokens`, or the sum of the parts when it is 0 or absent.
pub fn context_tokens_from_usage(usage: &Value) -> u64 {
    context_tokens_of(|k| usage.get(k))
}

/// [`context_tokens_from_usage`] of a usage whose fields `field` gives (a [`UsageFields`]).
pub fn context_tokens_of<'a>(field: impl Fn(&str) -> Option<&'a Value>) -> u64 {
    let total = num(field("totalTokens"));
    let t = if total != 0.0 {
        total
    } else {
        num(field("input"))
            + num(field("output"))
            + num(field("cacheRead"))
            + num(field("cacheWrite"))
    };
    if t.is_finite() && t > 0.0 {
        t as u64
    } else {
        0
    }
}

/// The fields of a `usage` any measure reads, from its text, without building the object
/// (its `cost` and the rest are checked as a decode would check them, and dropped).
#[derive(Debug, Default)]
pub struct UsageFields {
    /// The text is an object (a measure reads only an object).
    pub object: bool,
    fields: [Option<Value>; 5],
}

const USAGE_FIELDS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];

impl UsageFields {
    /// None when a decode of the whole text refuses it (then so would a decode of the line
    /// holding it). A text in the shape replies write is read without serde_json
    /// ([`crate::transcript::usage_text`]).
    pub fn parse(text: &str) -> Option<UsageFields> {
        match crate::transcript::usage_text::read(text) {
            Some(u) => Some(UsageFields {
                object: true,
                fields: [
                    u.input,
                    u.output,
                    u.cache_read,
                    u.cache_write,
                    u.total_tokens,
                ],
            }),
            None => serde_json::from_str(text).ok(),
        }
    }

    /// The field `key` as written (a later repeat wins, as in a decode); None for a field no
    /// measure reads.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let k = USAGE_FIELDS.iter().position(|f| *f == key)?;
        self.fields[k].as_ref()
    }
}

impl<'de> serde::Deserialize<'de> for UsageFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = UsageFields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<UsageFields, A::Error> {
                let mut out = UsageFields {
                    object: true,
                    ..UsageFields::default()
                };
                // Keys borrowed from the text (a `Cow<str>` key allocates every one).
                while let Some(k) = a.next_key::<crate::transcript::parse::AnyStr<'de>>()? {
                    let k = k.0.as_deref().unwrap_or("");
                    match USAGE_FIELDS.iter().position(|f| *f == k) {
                        Some(i) => out.fields[i] = Some(a.next_value()?),
                        None => {
                            a.next_value::<fast::Skip>()?;
                        }
                    }
                }
                Ok(out)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<UsageFields, A::Error> {
                while a.next_element::<fast::Skip>()?.is_some() {}
                Ok(UsageFields::default())
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<UsageFields, E> {
                Ok(UsageFields::default())
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<UsageFields, E> {
                Ok(UsageFields::default())
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<UsageFields, E> {
                Ok(UsageFields::default())
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<UsageFields, E> {
                Ok(UsageFields::default())
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<UsageFields, E> {
                Ok(UsageFields::default())
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<UsageFields, E> {
                Ok(UsageFields::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// The status notice OpenClaw's gateway stores after `/compact` ("⚙️ Compacted (… → …)"): an
/// assistant message from provider `openclaw`, model `gateway-injected`, with zero usage
/// (docs/sqlite-host.md §4). It measured nothing, so it is never a usage figure.
pub fn is_gateway_notice(msg: &Value) -> bool {
    msg.get("role").and_then(Value::as_str) == Some("assistant")
        && is_gateway_model(
            msg.get("provider").and_then(Value::as_str),
            msg.get("model").and_then(Value::as_str),
        )
}

/// The `provider` and `model` of [`is_gateway_notice`].
pub fn is_gateway_model(provider: Option<&str>, model: Option<&str>) -> bool {
    provider == Some("openclaw") && model == Some("gateway-injected")
}

/// The usage object of an assistant message that pi accepts as a context measurement:
/// stopReason neither `aborted` nor `error`, and a truthy `usage`. The gateway's `/compact`
/// notice is skipped ([`is_gateway_notice`]); pi never writes one.
pub fn valid_usage(msg: &Value) -> Option<&Value> {
    if msg.get("role").and_then(Value::as_str) != Some("assistant") || is_gateway_notice(msg) {
        return None;
    }
    if measured_nothing(msg.get("stopReason").and_then(Value::as_str)) {
        return None;
    }
    match msg.get("usage") {
        Some(u @ Value::Object(_)) => Some(u),
        _ => None,
    }
}

/// A reply that stopped this way measured nothing pi counts ([`valid_usage`]).
pub fn measured_nothing(stop_reason: Option<&str>) -> bool {
    matches!(stop_reason, Some("aborted") | Some("error"))
}

/// `estimateContextTokens(messages)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextEstimate {
    pub tokens: u64,
    pub usage_tokens: u64,
    pub trailing_tokens: u64,
    /// Position (in the message list) of the message whose usage was used.
    pub last_usage_index: Option<usize>,
}

pub fn estimate_context(messages: &[Value]) -> ContextEstimate {
    for k in (0..messages.len()).rev() {
        if let Some(u) = valid_usage(&messages[k]) {
            let usage_tokens = context_tokens_from_usage(u);
            let trailing: u64 = messages[k + 1..].iter().map(estimate_message).sum();
            return ContextEstimate {
                tokens: usage_tokens + trailing,
                usage_tokens,
                trailing_tokens: trailing,
                last_usage_index: Some(k),
            };
        }
    }
    let trailing: u64 = messages.iter().map(estimate_message).sum();
    ContextEstimate {
        tokens: trailing,
        usage_tokens: 0,
        trailing_tokens: trailing,
        last_usage_index: None,
    }
}

/// Which message an entry contributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageView {
    /// `buildSessionContext`: empty branch summaries are left out, compactions are handled
    /// by the caller.
    Context,
    /// `getMessageFromEntry` in compaction: every branch summary and compaction counts.
    Compaction,
}

/// Whether an entry of this kind yields a message, judged from the envelope alone.
pub fn kind_yields_message(kind: EntryKind, view: MessageView) -> bool {
    match kind {
        EntryKind::Message(_) | EntryKind::CustomMessage | EntryKind::BranchSummary => true,
        EntryKind::Compaction => view == MessageView::Compaction,
        _ => false,
    }
}

fn timestamp_ms(entry: &Value) -> Value {
    entry
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|d| Value::from(d.timestamp_millis()))
        .unwrap_or(Value::Null)
}

/// The AgentMessage an entry contributes (already decoded), or None.
pub fn message_of_entry(entry: &Value, view: MessageView) -> Option<Value> {
    match entry.get("type").and_then(Value::as_str)? {
        "message" => {
            let m = entry.get("message")?;
            if m.is_object() { Some(m.clone()) } else { None }
        }
        "custom_message" => {
            let mut m = Map::new();
            m.insert("role".into(), "custom".into());
            m.insert(
                "customType".into(),
                entry.get("customType").cloned().unwrap_or(Value::Null),
            );
            m.insert(
                "content".into(),
                entry.get("content").cloned().unwrap_or(Value::Null),
            );
            m.insert(
                "display".into(),
                entry.get("display").cloned().unwrap_or(Value::Null),
            );
            if let Some(d) = entry.get("details") {
                m.insert("details".into(), d.clone());
            }
            m.insert("timestamp".into(), timestamp_ms(entry));
            Some(Value::Object(m))
        }
        "branch_summary" => {
            let summary = entry.get("summary").and_then(Value::as_str).unwrap_or("");
            if view == MessageView::Context && summary.is_empty() {
                return None;
            }
            let mut m = Map::new();
            m.insert("role".into(), "branchSummary".into());
            m.insert(
                "summary".into(),
                entry.get("summary").cloned().unwrap_or(Value::Null),
            );
            m.insert(
                "fromId".into(),
                entry.get("fromId").cloned().unwrap_or(Value::Null),
            );
            m.insert("timestamp".into(), timestamp_ms(entry));
            Some(Value::Object(m))
        }
        "compaction" if view == MessageView::Compaction => Some(compaction_summary_message(entry)),
        _ => None,
    }
}

/// The `compactionSummary` message a compaction entry becomes.
pub fn compaction_summary_message(entry: &Value) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), "compactionSummary".into());
    m.insert(
        "summary".into(),
        entry.get("summary").cloned().unwrap_or(Value::Null),
    );
    m.insert(
        "tokensBefore".into(),
        entry.get("tokensBefore").cloned().unwrap_or(Value::Null),
    );
    m.insert("timestamp".into(), timestamp_ms(entry));
    Value::Object(m)
}

/// Characters of an assistant message by kind: text, thinking, tool calls (name plus
/// `JSON.stringify(arguments)`), as [`estimate_message`] counts them.
pub fn assistant_chars(m: &Value) -> [usize; 3] {
    let mut acc = [0usize; 3];
    if let Some(Value::Array(blocks)) = m.get("content") {
        for b in blocks {
            match b.get("type").and_then(Value::as_str) {
                Some("text") => acc[0] += str_len(b.get("text")),
                Some("thinking") => acc[1] += str_len(b.get("thinking")),
                Some("toolCall") => {
                    acc[2] +=
                        str_len(b.get("name")) + b.get("arguments").map(stringify_len).unwrap_or(0)
                }
                _ => {}
            }
        }
    }
    acc
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The figures of a decoded entry: the message it yields in the compaction view
/// ([`message_of_entry`]), its [`estimate_message`], and an assistant's characters by kind.
/// The reference for the fast path, which must agree with it on every entry.
pub fn figures_of_entry(entry: &Value) -> MessageFigures {
    let compaction = entry.get("type").and_then(Value::as_str) == Some("compaction");
    let Some(m) = message_of_entry(entry, MessageView::Compaction) else {
        return MessageFigures {
            compaction,
            ..Default::default()
        };
    };
    let mut f = MessageFigures {
        tokens: to_u32(estimate_message(&m)),
        compaction,
        class: MessageClass::Other,
        ..Default::default()
    };
    match m.get("role").and_then(Value::as_str) {
        Some("user") => f.class = MessageClass::User,
        Some("toolResult") => f.class = MessageClass::ToolResult,
        Some("assistant") => {
            let [text, thinking, tool] = assistant_chars(&m);
            f.class = MessageClass::Assistant;
            f.text = to_u32(text as u64);
            f.thinking = to_u32(thinking as u64);
            f.tool = to_u32(tool as u64);
        }
        _ => {}
    }
    f
}

/// Opens `path` with every entry's figures computed in the parse that indexes it
/// ([`Transcript::open_with_figures`]): for a caller that sums the whole context, which then
/// reads no entry a second time for its figures.
pub fn open_with_figures(path: &std::path::Path) -> Result<Transcript, TranscriptError> {
    Transcript::open_with_figures(path, fast::head_and_figures)
}

/// The figures of entry `idx` from its raw text: the fast path, else the decoded one.
fn figures_of_raw(t: &Transcript, idx: u32, raw: &[u8]) -> MessageFigures {
    if let Some(f) = fast::figures(raw, t.version < 3) {
        return f;
    }
    match t.entry_json(idx) {
        Ok(v) => figures_of_entry(&v),
        Err(_) => MessageFigures::default(),
    }
}

/// The estimate `figures` give in `view`: a compaction's summary is a message only in the
/// compaction view.
pub fn view_tokens(f: &MessageFigures, view: MessageView) -> u64 {
    match view {
        MessageView::Context if f.compaction => 0,
        _ => u64::from(f.tokens),
    }
}

/// Which estimate table an entry's estimate in `view` lives in: only branch summaries and
/// compactions read differently in the two views, every other entry shares one table (one
/// decode serves both).
fn estimate_table(kind: EntryKind, view: MessageView) -> usize {
    match (view, kind) {
        (MessageView::Compaction, EntryKind::BranchSummary | EntryKind::Compaction) => 1,
        _ => 0,
    }
}

/// Keeps `f` as entry `idx`'s figures, and its estimates in both views.
fn remember(t: &Transcript, idx: u32, f: MessageFigures) -> MessageFigures {
    let kind = t.entries[idx as usize].kind;
    for view in [MessageView::Context, MessageView::Compaction] {
        t.memo_estimate(idx, estimate_table(kind, view), || view_tokens(&f, view));
    }
    t.memo_figures(idx, || f)
}

/// The figures of entry `idx` (all zero for an entry that cannot be read), decoded once per
/// transcript. An entry too large to decode has none: its estimate is [`TooLarge`]'s.
///
/// [`TooLarge`]: crate::transcript::TooLarge
pub fn entry_figures(t: &Transcript, idx: u32) -> MessageFigures {
    if t.has_figures(idx) {
        return t.memo_figures(idx, MessageFigures::default);
    }
    let f = match t.raw_line(idx) {
        Ok(raw) => figures_of_raw(t, idx, &raw),
        Err(_) => MessageFigures::default(),
    };
    remember(t, idx, f)
}

/// Computes the figures of every entry of `idxs` that yields a message and is not known yet,
/// reading them in passes of [`PREFILL_BATCH`] entries (a database's rows in one query each).
/// A pass's figures are kept once the pass is known good; in batches, so a million-entry
/// context never holds a million pending figures and keys besides the table.
pub fn prefill_figures(t: &Transcript, idxs: &[u32]) {
    let mut rest = idxs.iter().copied().filter(|&i| {
        let e = &t.entries[i as usize];
        kind_yields_message(e.kind, MessageView::Compaction)
            && e.too_large().is_none()
            && !t.has_figures(i)
    });
    let mut todo = Vec::with_capacity(PREFILL_BATCH);
    let mut got = Vec::with_capacity(PREFILL_BATCH);
    loop {
        todo.clear();
        got.clear();
        todo.extend(rest.by_ref().take(PREFILL_BATCH));
        if todo.is_empty() {
            return;
        }
        if t.for_each_raw(&todo, |i, raw| got.push((i, figures_of_raw(t, i, raw)))) {
            for &(i, f) in &got {
                remember(t, i, f);
            }
        }
    }
}

/// Entries read per pass by [`prefill_figures`].
const PREFILL_BATCH: usize = 4096;

/// Hands the figures of each entry of `idxs` to `each`, for figures that sum many entries:
/// from the table, filled in one pass, where the transcript keeps one; else read in passes as
/// [`prefill_figures`] reads them and not kept ([`Transcript::keeps_figures`]), where asking
/// [`entry_figures`] entry by entry would read the entries one at a time. An entry that
/// cannot be read counts zero.
pub fn each_figures(t: &Transcript, idxs: &[u32], mut each: impl FnMut(u32, MessageFigures)) {
    if t.keeps_figures() {
        prefill_figures(t, idxs);
        for &i in idxs {
            each(i, entry_figures(t, i));
        }
        return;
    }
    // A pass that was not read whole is read again entry by entry.
    let mut got = Vec::with_capacity(PREFILL_BATCH);
    for batch in idxs.chunks(PREFILL_BATCH) {
        got.clear();
        if t.for_each_raw(batch, |i, raw| got.push((i, figures_of_raw(t, i, raw)))) {
            for &(i, f) in &got {
                each(i, f);
            }
        } else {
            for &i in batch {
                each(i, entry_figures(t, i));
            }
        }
    }
}

/// Token estimate of one entry (0 for entries that carry no message).
pub fn estimate_entry(t: &Transcript, idx: u32, view: MessageView) -> u64 {
    let kind = t.entries[idx as usize].kind;
    if !kind_yields_message(kind, view) {
        return 0;
    }
    if let Some(big) = t.entries[idx as usize].too_large() {
        return big.est_tokens;
    }
    t.memo_estimate(idx, estimate_table(kind, view), || {
        if t.has_figures(idx) {
            return view_tokens(&entry_figures(t, idx), view);
        }
        match t.raw_line(idx) {
            Ok(raw) => view_tokens(&figures_of_raw(t, idx, &raw), view),
            Err(_) => 0,
        }
    })
}

/// `estimateContextTokens` over the messages of `entries` (transcript indices, in order),
/// scanning backwards so only the tail after the last usable usage is decoded.
pub fn estimate_context_of_entries(
    t: &Transcript,
    entries: &[u32],
    view: MessageView,
) -> ContextEstimate {
    let mut trailing = 0u64;
    let mut after = 0usize;
    let mut total_msgs = 0usize;
    for &i in entries {
        if kind_yields_message(t.entries[i as usize].kind, view) {
            total_msgs += 1;
        }
    }
    let mut seen = 0usize;
    for &i in entries.iter().rev() {
        let kind = t.entries[i as usize].kind;
        if !kind_yields_message(kind, view) {
            continue;
        }
        if let Some(big) = t.entries[i as usize].too_large() {
            // Not decodable, so no usage can come from it; its size-based estimate counts.
            seen += 1;
            trailing += big.est_tokens;
            after += 1;
            continue;
        }
        let Ok(v) = t.entry_json(i) else { continue };
        let Some(m) = message_of_entry(&v, view) else {
            continue;
        };
        seen += 1;
        if kind == EntryKind::Message(Role::Assistant) {
            if let Some(u) = valid_usage(&m) {
                let usage_tokens = context_tokens_from_usage(u);
                return ContextEstimate {
                    tokens: usage_tokens + trailing,
                    usage_tokens,
                    trailing_tokens: trailing,
                    last_usage_index: Some(total_msgs.saturating_sub(seen)),
                };
            }
        }
        trailing += estimate_message(&m);
        after += 1;
    }
    let _ = after;
    ContextEstimate {
        tokens: trailing,
        usage_tokens: 0,
        trailing_tokens: trailing,
        last_usage_index: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A text read by [`crate::transcript::usage_text`] gives the fields serde_json's decode through
    /// `UsageFields`'s own `Deserialize` gives, and so does one it leaves to serde_json.
    #[test]
    fn usage_fields_read_without_serde_json_are_the_decoded_ones() {
        for text in crate::transcript::usage_text::sample_texts() {
            let decoded = serde_json::from_str::<UsageFields>(&text).ok();
            assert_eq!(
                format!("{:?}", UsageFields::parse(&text)),
                format!("{decoded:?}"),
                "{text}"
            );
        }
    }

    /// What a decode of `usage` gives and what [`UsageFields`] read of its text agree: the
    /// refusals, whether it is an object, and every figure read from it.
    #[test]
    fn usage_fields_read_as_the_decoded_usage() {
        let texts = [
            r#"{"input":100,"output":20,"cacheRead":5,"cacheWrite":1,"totalTokens":126,"cost":{"input":0.1,"total":0.2}}"#,
            r#"{"input":1,"input":7000,"totalTokens":0}"#,
            r#"{"input":-5,"output":2.5,"cacheRead":"9","cacheWrite":null,"totalTokens":1e300}"#,
            r#"{"input":1,"cost":{"x":1e400}}"#,
            r#"{"input":1,"note":"\ud800"}"#,
            r#"{"\ud800":1}"#,
            r#"{"totalTokens":{"a":[1,2]},"input":9007199254740993}"#,
            r#"[1,{"input":3}]"#,
            r#""text""#,
            "12",
            "true",
            "{}",
            "{",
        ];
        for text in texts {
            let decoded = serde_json::from_str::<Value>(text).ok();
            let read = UsageFields::parse(text);
            assert_eq!(decoded.is_some(), read.is_some(), "{text}");
            let (Some(v), Some(f)) = (decoded, read) else {
                continue;
            };
            assert_eq!(v.is_object(), f.object, "{text}");
            assert_eq!(
                context_tokens_from_usage(&v),
                context_tokens_of(|k| f.get(k)),
                "{text}"
            );
            for k in USAGE_FIELDS {
                assert_eq!(v.get(k).filter(|_| f.object), f.get(k), "{text} {k}");
            }
        }
    }

    #[test]
    fn gateway_notice_is_not_a_measurement() {
        let zero =
            json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0});
        let notice = json!({"role": "assistant", "content": [{"type": "text", "text": "⚙️ Compacted (37k → 15k) • Context 15k/48k (31%)"}],
            "provider": "openclaw", "model": "gateway-injected", "usage": zero, "stopReason": "stop"});
        assert!(is_gateway_notice(&notice));
        assert!(valid_usage(&notice).is_none());
        let real = json!({"role": "assistant", "content": [], "provider": "fake", "model": "fake-model",
            "usage": {"input": 29144, "output": 2372, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 31516}});
        let user = json!({"role": "user", "content": "hello there"});
        // The estimate takes the real reply's usage and counts the notice as trailing text.
        let e = estimate_context(&[user, real, notice.clone()]);
        assert_eq!(e.usage_tokens, 31516);
        assert_eq!(e.last_usage_index, Some(1));
        assert_eq!(e.trailing_tokens, estimate_message(&notice));
    }

    #[test]
    fn usage_fallback_to_sum() {
        assert_eq!(
            context_tokens_from_usage(
                &json!({"input":1000,"output":500,"cacheRead":200,"cacheWrite":100,"totalTokens":1800})
            ),
            1800
        );
        assert_eq!(
            context_tokens_from_usage(&json!({"input":1,"output":2,"cacheRead":3,"cacheWrite":4})),
            10
        );
        assert_eq!(
            context_tokens_from_usage(
                &json!({"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":0})
            ),
            10
        );
    }

    #[test]
    fn serialization_vector_estimates() {
        // docs/pi-compaction.md §9: user with an image counts "ab" → 1; the assistant → 19;
        // image-only toolResult → 1200.
        let user = json!({"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"b"}]});
        assert_eq!(estimate_message(&user), 1);
        let asst = json!({"role":"assistant","content":[
            {"type":"thinking","thinking":"think1"},{"type":"text","text":"t1"},
            {"type":"toolCall","id":"1","name":"read","arguments":{"path":"foo.ts","offset":10}},
            {"type":"thinking","thinking":"think2"},{"type":"text","text":"t2"},
            {"type":"toolCall","id":"2","name":"bash","arguments":{"command":"ls \"x\""}}]});
        assert_eq!(estimate_message(&asst), 19);
        let img = json!({"role":"toolResult","content":[{"type":"image","data":"x","mimeType":"image/png"}]});
        assert_eq!(estimate_message(&img), 1200);
    }

    #[test]
    fn aborted_usage_is_skipped() {
        let msgs = vec![
            json!({"role":"user","content":"u"}),
            json!({"role":"assistant","content":[],"usage":{"input":100,"output":50,"cacheRead":0,"cacheWrite":0,"totalTokens":150},"stopReason":"stop"}),
            json!({"role":"assistant","content":[],"usage":{"input":300,"output":150,"totalTokens":450},"stopReason":"aborted"}),
        ];
        let e = estimate_context(&msgs);
        assert_eq!(e.usage_tokens, 150);
        assert_eq!(e.last_usage_index, Some(1));
    }
}
