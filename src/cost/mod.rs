//! What a session spends (SPEC §10): every assistant call of its transcript priced once, and
//! the figures every surface shows from them — spend, $/h, the prompt cache's hit ratio, its
//! warmth and its busts.
//!
//! A call's price is what the transcript recorded (`usage.cost.total`) when that is above
//! zero; OpenClaw records $0 for providers it has no price for, so a zero falls through to
//! the host's catalogs, then clawtop's tables ([`prices`]); a call no table prices is
//! **unpriced**: counted, and the spend says so (`?`), never a silent $0. Usage that cannot
//! be a real call's (negative, NaN, absurd) is repaired to what can be read and the figure is
//! marked estimated (`~`).
//!
//! The calls are read from the transcript the caller already has open (its assistant
//! entries, through [`Transcript::for_each_raw`]: no second open, and a SQLite transcript
//! serves them from the rows its indexing kept). Every call counts, abandoned branches
//! included: they were paid for.

pub mod economics;
pub mod host;
pub mod prices;

use crate::transcript::{EntryKind, Role, Transcript};
use prices::{Basis, HostCatalogs, Parts, Prices, Rates};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Token counts of one call or a sum of calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl Tokens {
    /// What the call's prompt was: input, cache reads and cache writes.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    fn add(&mut self, o: &Tokens) {
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_write = self.cache_write.saturating_add(o.cache_write);
    }
}

/// More tokens than this in one part of one call cannot be real (the largest windows are a
/// few million tokens).
pub const ABSURD_TOKENS: f64 = 100_000_000.0;
/// More dollars than this recorded for one call cannot be real.
pub const ABSURD_CALL_USD: f64 = 1_000.0;
/// The prompt cache's lifetime after a call (Anthropic's default).
pub const CACHE_TTL_SECONDS: u64 = 300;
/// Its lifetime with OpenClaw's long cache retention (`cacheRetention: "long"`).
pub const LONG_CACHE_TTL_SECONDS: u64 = 3_600;
/// Calls of the active branch the hit ratio is taken over.
pub const HIT_RATIO_CALLS: usize = 20;

/// One assistant call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Its transcript entry.
    pub entry: u32,
    /// When it was made (ms since the epoch): the message's `timestamp`, else the entry's.
    pub at_ms: Option<i64>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub tokens: Tokens,
    /// Whether the usage had cache fields (`cacheRead` or `cacheWrite`).
    pub cache_fields: bool,
    /// Its dollars, None when unpriced.
    pub usd: Option<f64>,
    /// Each part's dollars, when known (the recorded parts, or the rates that priced it).
    pub parts: Option<Parts>,
    pub basis: Option<Basis>,
    /// Something in its usage or recorded cost was repaired.
    pub estimated: bool,
}

/// Why the prompt cache was rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BustCause {
    Compaction,
    Idle,
    ModelChange,
    Unknown,
}

impl BustCause {
    pub fn name(&self) -> &'static str {
        match self {
            BustCause::Compaction => "compaction",
            BustCause::Idle => "idle",
            BustCause::ModelChange => "model-change",
            BustCause::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheBust {
    /// The id (or position, in a v1 file) of the call that rewrote the cache.
    pub entry_id: String,
    pub cause: BustCause,
}

/// A session's spend and cache figures (`cost` on `show --json` and `list --json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionCost {
    /// Dollars of every priced call.
    pub spend_usd: f64,
    /// Calls no table prices: their dollars are missing from `spendUsd`.
    pub unpriced_calls: u64,
    /// Of those, the calls of the last 60 minutes (missing from `perHourUsd`).
    pub unpriced_calls_last_hour: u64,
    /// Assistant calls in the transcript, abandoned branches included.
    pub calls: u64,
    pub tokens: Tokens,
    /// Dollars of the calls of the last 60 minutes.
    pub per_hour_usd: f64,
    /// Dollars of the calls since midnight UTC.
    pub spend_today_usd: f64,
    /// cacheRead / (input + cacheRead + cacheWrite) over the last 20 calls of the active
    /// branch; null when those calls have no cache fields.
    pub cache_hit_ratio: Option<f64>,
    pub cache_warm: bool,
    /// Seconds until the cache expires, while it is warm.
    pub cache_expires_in_seconds: Option<u64>,
    /// 300, or 3600 with long cache retention.
    pub cache_ttl_seconds: u64,
    pub cache_busts: Vec<CacheBust>,
    /// Some figure rests on repaired usage or cost (shown with `~`).
    pub estimated: bool,
    /// Calls by what priced them (`recorded`, `host`, `userFile`, `builtIn`).
    pub priced_by: BTreeMap<String, u64>,
    /// What was repaired or could not be priced, in words.
    pub notes: Vec<String>,
    /// When each call with a time was made and its dollars, oldest first: the Cost pane's
    /// hours and the clock ([`Self::clock`]). Not part of the JSON, nor are the two below.
    #[serde(skip)]
    pub timeline: Vec<CallTime>,
    /// The active branch's last priced calls with a prompt, at most
    /// [`economics::P_EFF_CALLS`], oldest first: (the prompt's dollars, its tokens), what a
    /// compaction's `p_eff` is taken over.
    #[serde(skip)]
    pub branch_prompts: Vec<(f64, u64)>,
    /// The active branch's last call, the last call at all when the branch has none: whose
    /// model a session is charged at and when the cache's TTL runs from.
    #[serde(skip)]
    pub last_call: Option<LastCall>,
}

/// When a call was made and its dollars: 16 bytes a call (a million-call session keeps one
/// each), so unpriced is NaN inside rather than an `Option`'s extra word.
#[derive(Debug, Clone, Copy)]
pub struct CallTime {
    pub at_ms: i64,
    usd: f64,
}

const _: () = assert!(std::mem::size_of::<CallTime>() == 16);

impl CallTime {
    pub fn new(at_ms: i64, usd: Option<f64>) -> CallTime {
        CallTime {
            at_ms,
            usd: usd.unwrap_or(f64::NAN),
        }
    }

    /// Its dollars, None when unpriced.
    pub fn usd(&self) -> Option<f64> {
        (!self.usd.is_nan()).then_some(self.usd)
    }
}

impl PartialEq for CallTime {
    fn eq(&self, o: &CallTime) -> bool {
        self.at_ms == o.at_ms && self.usd.to_bits() == o.usd.to_bits()
    }
}

/// Who answered a call, and when.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastCall {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub at_ms: Option<i64>,
}

impl LastCall {
    fn of(c: &Call) -> LastCall {
        LastCall {
            provider: c.provider.clone(),
            model: c.model.clone(),
            at_ms: c.at_ms,
        }
    }

    /// Becomes `c`, copying its names only when they differ (a session's calls mostly share
    /// one model).
    fn take_from(&mut self, c: &Call) {
        if self.provider != c.provider {
            self.provider.clone_from(&c.provider);
        }
        if self.model != c.model {
            self.model.clone_from(&c.model);
        }
        self.at_ms = c.at_ms;
    }
}

/// What pricing a session needs besides its transcript.
pub struct Context<'a> {
    pub prices: &'a Prices,
    pub host: HostCatalogs<'a>,
    /// The host's config (its cache retention).
    pub config: Option<&'a Value>,
    pub now_ms: i64,
}

/// The assistant fields cost reads; everything else of the line is skipped unread.
#[derive(Deserialize)]
struct CallLine {
    #[serde(default)]
    timestamp: Value,
    #[serde(default)]
    message: Option<CallMsg>,
}

#[derive(Deserialize)]
struct CallMsg {
    #[serde(default)]
    provider: Value,
    #[serde(default)]
    model: Value,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    timestamp: Value,
}

/// The fields of a call's `usage` (and of its `cost`) that cost reads, each as written (a
/// count may be a string, negative or absurd: [`tokens_of`] judges it). Read without
/// building the whole object: other keys are skipped, and a key given twice takes its last
/// value, as `JSON.parse` does. Anything but an object reads as `not_object` (a usage that
/// is no usage: the line is no call; a cost that is no object: no recorded price).
#[derive(Debug, Default, PartialEq)]
struct Usage {
    input: Option<Value>,
    output: Option<Value>,
    cache_read: Option<Value>,
    cache_write: Option<Value>,
    /// `cost.total` (a usage's own `total`, which pi does not write, is read and unused).
    total: Option<Value>,
    /// `usage.cost`, read the same way.
    cost: Option<Box<Usage>>,
    not_object: bool,
}

impl<'de> Deserialize<'de> for Usage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Usage, D::Error> {
        struct V;
        fn other<E>() -> Result<Usage, E> {
            Ok(Usage {
                not_object: true,
                ..Default::default()
            })
        }
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Usage;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a usage object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Usage, A::Error> {
                let mut u = Usage::default();
                // Keys borrowed from the text (a `Cow<str>` key allocates every one).
                while let Some(k) = m.next_key::<crate::transcript::parse::AnyStr<'de>>()? {
                    let slot = match k.0.as_deref().unwrap_or("") {
                        "input" => &mut u.input,
                        "output" => &mut u.output,
                        "cacheRead" => &mut u.cache_read,
                        "cacheWrite" => &mut u.cache_write,
                        "total" => &mut u.total,
                        "cost" => {
                            let c: Usage = m.next_value()?;
                            u.cost = (!c.not_object).then(|| Box::new(c));
                            continue;
                        }
                        _ => {
                            m.next_value::<serde::de::IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(m.next_value()?);
                }
                Ok(u)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Usage, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                other()
            }
            fn visit_bool<E>(self, _: bool) -> Result<Usage, E> {
                other()
            }
            fn visit_i64<E>(self, _: i64) -> Result<Usage, E> {
                other()
            }
            fn visit_u64<E>(self, _: u64) -> Result<Usage, E> {
                other()
            }
            fn visit_f64<E>(self, _: f64) -> Result<Usage, E> {
                other()
            }
            fn visit_str<E>(self, _: &str) -> Result<Usage, E> {
                other()
            }
            fn visit_unit<E>(self) -> Result<Usage, E> {
                other()
            }
            fn visit_none<E>(self) -> Result<Usage, E> {
                other()
            }
        }
        d.deserialize_any(V)
    }
}

impl Usage {
    /// A usage's text read as [`Usage`]'s `Deserialize` reads it; one in the shape replies
    /// write is read without serde_json ([`crate::transcript::usage_text`]). None when serde_json
    /// refuses the text.
    fn from_text(text: &str) -> Option<Usage> {
        use crate::transcript::usage_text::{self, Cost};
        let Some(u) = usage_text::read(text) else {
            return serde_json::from_str(text).ok();
        };
        Some(Usage {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            total: u.total,
            cost: match u.cost {
                Cost::Object => Some(Box::new(Usage {
                    input: u.prices.input,
                    output: u.prices.output,
                    cache_read: u.prices.cache_read,
                    cache_write: u.prices.cache_write,
                    total: u.prices.total,
                    cost: None,
                    not_object: false,
                })),
                Cost::Absent | Cost::NotObject => None,
            },
            not_object: false,
        })
    }

    fn get(&self, k: &str) -> Option<&Value> {
        match k {
            "input" => self.input.as_ref(),
            "output" => self.output.as_ref(),
            "cacheRead" => self.cache_read.as_ref(),
            "cacheWrite" => self.cache_write.as_ref(),
            "total" => self.total.as_ref(),
            _ => None,
        }
    }
}

/// A token count as it can be used, and whether it had to be repaired.
fn tokens_of(v: Option<&Value>) -> (u64, bool) {
    match v {
        None | Some(Value::Null) => (0, false),
        Some(v) => match v.as_f64() {
            Some(n) if n.is_finite() && (0.0..=ABSURD_TOKENS).contains(&n) => {
                (n.round() as u64, false)
            }
            _ => (0, true),
        },
    }
}

fn time_of(line_ts: &Value, msg_ts: &Value) -> Option<i64> {
    if let Some(ms) = msg_ts.as_f64().filter(|n| n.is_finite() && *n > 0.0) {
        return Some(ms as i64);
    }
    let s = line_ts.as_str().or_else(|| msg_ts.as_str())?;
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.timestamp_millis())
}

/// Reads one assistant line into a call (before pricing); None when it is no call.
fn read_call(entry: u32, raw: &[u8], notes: &mut Vec<String>) -> Option<(Call, Recorded)> {
    let line: CallLine = crate::transcript::parse::from_bytes(raw).ok()?;
    let m = line.message?;
    let call = CallFields {
        provider: m.provider.as_str().map(str::to_string),
        model: m.model.as_str().map(str::to_string),
        at_ms: time_of(&line.timestamp, &m.timestamp),
    };
    call_of(entry, m.usage?, call, notes)
}

/// What a call is besides its usage.
struct CallFields {
    provider: Option<String>,
    model: Option<String>,
    at_ms: Option<i64>,
}

/// A call from the scan's capture (see [`crate::transcript::CallCapture`]): the same
/// reading as [`read_call`] of its line.
fn captured_call(
    t: &Transcript,
    c: &crate::transcript::CallCapture,
    notes: &mut Vec<String>,
) -> Option<(Call, Recorded)> {
    let usage = Usage::from_text(c.usage.as_deref()?)?;
    let (provider, model) = t
        .call_models
        .get(c.model as usize)
        .map(|(p, m)| {
            (
                p.as_deref().map(str::to_string),
                m.as_deref().map(str::to_string),
            )
        })
        .unwrap_or_default();
    let fields = CallFields {
        provider,
        model,
        at_ms: c.at_ms,
    };
    call_of(c.entry, usage, fields, notes)
}

/// A call from its usage; None when it is no call (no usage object, the gateway's injected
/// notice, or nothing was sent or received).
fn call_of(
    entry: u32,
    usage: Usage,
    f: CallFields,
    notes: &mut Vec<String>,
) -> Option<(Call, Recorded)> {
    if usage.not_object {
        return None;
    }
    let CallFields {
        provider,
        model,
        at_ms,
    } = f;
    if provider.as_deref() == Some("openclaw") && model.as_deref() == Some("gateway-injected") {
        return None;
    }
    let mut estimated = false;
    let mut part = |k: &str| {
        let (n, bad) = tokens_of(usage.get(k));
        if bad {
            estimated = true;
            notes.push(format!(
                "entry {}: usage.{k} {} is not a token count; read as 0",
                entry + 1,
                crate::sanitize::one_line(&usage.get(k).map(Value::to_string).unwrap_or_default())
            ));
        }
        n
    };
    let tokens = Tokens {
        input: part("input"),
        output: part("output"),
        cache_read: part("cacheRead"),
        cache_write: part("cacheWrite"),
    };
    let cache_fields = usage.get("cacheRead").is_some_and(Value::is_number)
        || usage.get("cacheWrite").is_some_and(Value::is_number);
    let cost = usage.cost.map(|c| *c).unwrap_or_default();
    let recorded_total = cost.get("total").and_then(Value::as_f64);
    if tokens == Tokens::default() && !recorded_total.is_some_and(|t| t > 0.0) && !estimated {
        return None;
    }
    // What pricing needs of the recorded cost, kept small: a transcript of a million calls
    // holds one of these per call until they are priced.
    let recorded = Recorded {
        parts: recorded_total.and_then(|t| recorded_parts(&cost, t)),
        total: cost.total,
    };
    Some((
        Call {
            entry,
            at_ms,
            provider,
            model,
            tokens,
            cache_fields,
            usd: None,
            parts: None,
            basis: None,
            estimated,
        },
        recorded,
    ))
}

/// A call's recorded `usage.cost`: its total as written and its parts when they add up.
struct Recorded {
    total: Option<Value>,
    parts: Option<Parts>,
}

/// The recorded parts of `usage.cost`, when each is a sane number and they add up to the total.
fn recorded_parts(cost: &Usage, total: f64) -> Option<Parts> {
    let p = |k: &str| {
        cost.get(k)
            .and_then(Value::as_f64)
            .filter(|n| n.is_finite() && *n >= 0.0)
    };
    let parts = Parts {
        input: p("input")?,
        output: p("output")?,
        cache_read: p("cacheRead")?,
        cache_write: p("cacheWrite")?,
    };
    ((parts.total() - total).abs() <= total * 1e-6 + 1e-9).then_some(parts)
}

/// The rates of a model: the host's catalogs, then the operator's file and the built-in table.
pub fn rates_for(cx: &Context<'_>, provider: Option<&str>, model: &str) -> Option<(Rates, Basis)> {
    if let Some(r) = cx.host.rates(provider, model) {
        return Some((r, Basis::Host));
    }
    cx.prices
        .table_rates(provider, model)
        .filter(|(r, _)| r.any())
}

/// The rates a session's model is charged at, named with where they came from
/// (`anthropic/claude-haiku-4-5 (builtIn)`): the store entry's model, else its last call's.
pub fn session_rates(
    cx: &Context<'_>,
    cost: &SessionCost,
    provider: Option<&str>,
    model: Option<&str>,
) -> Option<(Rates, String)> {
    let last = cost.last_call.as_ref();
    let (provider, model) = match model {
        Some(m) => (provider, m),
        None => (
            last.and_then(|c| c.provider.as_deref()),
            last.and_then(|c| c.model.as_deref())?,
        ),
    };
    let (r, basis) = rates_for(cx, provider, model)?;
    let basis = basis.name();
    let name = match provider {
        Some(p) => format!("{p}/{model} ({basis})"),
        None => format!("{model} ({basis})"),
    };
    Some((r, crate::sanitize::one_line(&name)))
}

/// Prices one call by the precedence of SPEC §10.
fn price(call: &mut Call, cost: &Recorded, rates: Option<(Rates, Basis)>, notes: &mut Vec<String>) {
    let total = cost.total.as_ref();
    match total.and_then(Value::as_f64) {
        Some(t) if t.is_finite() && t > 0.0 && t <= ABSURD_CALL_USD => {
            call.usd = Some(t);
            call.basis = Some(Basis::Recorded);
            call.parts = cost
                .parts
                .or_else(|| rates.map(|(r, _)| r.charge(&call.tokens)));
            return;
        }
        Some(0.0) => {}
        None if total.is_none_or(Value::is_null) => {}
        _ => {
            call.estimated = true;
            notes.push(format!(
                "entry {}: recorded cost {} is not a call's price; priced from the tables",
                call.entry + 1,
                crate::sanitize::one_line(&total.map(Value::to_string).unwrap_or_default())
            ));
        }
    }
    if let Some((r, basis)) = rates {
        let parts = r.charge(&call.tokens);
        call.usd = Some(parts.total());
        call.parts = Some(parts);
        call.basis = Some(basis);
    }
}

/// The cache's lifetime for a model: an hour when the config asks for long retention
/// (`agents.defaults.models["provider/model"].params.cacheRetention: "long"`, OpenClaw's
/// per-model parameters), else five minutes.
pub fn cache_ttl_seconds(
    config: Option<&Value>,
    provider: Option<&str>,
    model: Option<&str>,
) -> u64 {
    let (Some(c), Some(m)) = (config, model) else {
        return CACHE_TTL_SECONDS;
    };
    // Asked once per session of a listing: most configs name no models, and then no key
    // is built.
    let Some(models) = c.pointer("/agents/defaults/models") else {
        return CACHE_TTL_SECONDS;
    };
    let key = match provider {
        Some(p) if m.strip_prefix(p).is_none_or(|rest| !rest.starts_with('/')) => {
            format!("{p}/{m}")
        }
        _ => m.to_string(),
    };
    let long = models
        .get(&key)
        .and_then(|e| e.pointer("/params/cacheRetention"))
        .and_then(Value::as_str)
        == Some("long");
    if long {
        LONG_CACHE_TTL_SECONDS
    } else {
        CACHE_TTL_SECONDS
    }
}

/// Hands every call of `t` to `each`, priced, in file order, and returns what reading and
/// pricing said (the read notes in the order the calls were read, then the pricing notes by
/// entry). `order` says how: [`Order::AsRead`] streams the calls as the transcript hands them
/// over and gives up (None, having handed over some calls) the moment one arrives out of file
/// order; [`Order::Sorted`] holds them all and sorts them first. A million calls streamed
/// hold none of them at once.
fn for_each_call(
    t: &Transcript,
    cx: &Context<'_>,
    order: Order,
    each: &mut dyn FnMut(Call),
) -> Option<Vec<String>> {
    // Each call priced as it is read: what its usage recorded is not kept past it.
    let mut pricer = Pricer {
        cx,
        memo: Vec::new(),
        notes: Vec::new(),
    };
    // The calls the index scan captured; only the others are read back.
    let mut captured_at = t.calls.iter().peekable();
    let mut captured = Vec::new();
    let mut rest = Vec::new();
    for (i, e) in t.entries.iter().enumerate() {
        if e.kind != EntryKind::Message(Role::Assistant) {
            continue;
        }
        let i = i as u32;
        while captured_at.next_if(|c| c.entry < i).is_some() {}
        match captured_at.next_if(|c| c.entry == i) {
            Some(c) => captured.push(c),
            None => rest.push(i),
        }
    }
    let (mut captured_notes, mut read_notes) = (Vec::new(), Vec::new());
    let complete = match order {
        Order::AsRead => {
            let mut captured = captured.iter().peekable();
            let mut last = None;
            let mut disordered = false;
            let complete = t.for_each_raw(&rest, |i, raw| {
                if disordered || last.is_some_and(|l| i < l) {
                    disordered = true;
                    return;
                }
                last = Some(i);
                while let Some(c) = captured.next_if(|c| c.entry < i) {
                    if let Some(c) = captured_call(t, c, &mut captured_notes) {
                        each(pricer.price(c));
                    }
                }
                if let Some(c) = read_call(i, raw, &mut read_notes) {
                    each(pricer.price(c));
                }
            });
            if disordered {
                return None;
            }
            for c in captured {
                if let Some(c) = captured_call(t, c, &mut captured_notes) {
                    each(pricer.price(c));
                }
            }
            complete
        }
        Order::Sorted => {
            let mut read: Vec<Call> = Vec::new();
            for c in captured {
                if let Some(c) = captured_call(t, c, &mut captured_notes) {
                    read.push(pricer.price(c));
                }
            }
            let complete = t.for_each_raw(&rest, |i, raw| {
                if let Some(c) = read_call(i, raw, &mut read_notes) {
                    read.push(pricer.price(c));
                }
            });
            read.sort_by_key(|c| c.entry);
            read.into_iter().for_each(&mut *each);
            complete
        }
    };
    let mut notes = captured_notes;
    notes.append(&mut read_notes);
    if !complete {
        notes.push(PARTLY_READ.into());
    }
    // What pricing said, after what reading said, in the calls' order.
    pricer.notes.sort_by_key(|(entry, _)| *entry);
    notes.extend(pricer.notes.into_iter().map(|(_, n)| n));
    Some(notes)
}

/// How [`for_each_call`] puts the calls in file order.
#[derive(Clone, Copy)]
enum Order {
    AsRead,
    Sorted,
}

/// A call's (provider, model).
type ModelKey = (Option<String>, Option<String>);

/// Prices calls one at a time; a transcript has few models, each looked up once.
struct Pricer<'a, 'c> {
    cx: &'a Context<'c>,
    memo: Vec<(ModelKey, Option<(Rates, Basis)>)>,
    /// Each call's notes from pricing, by entry.
    notes: Vec<(u32, String)>,
}

impl Pricer<'_, '_> {
    fn price(&mut self, (mut c, cost): (Call, Recorded)) -> Call {
        let found = self
            .memo
            .iter()
            .find(|(k, _)| k.0 == c.provider && k.1 == c.model)
            .map(|(_, r)| *r);
        let rates = match found {
            Some(r) => r,
            None => {
                let r = c
                    .model
                    .as_deref()
                    .and_then(|m| rates_for(self.cx, c.provider.as_deref(), m));
                self.memo.push(((c.provider.clone(), c.model.clone()), r));
                r
            }
        };
        let mut said = Vec::new();
        price(&mut c, &cost, rates, &mut said);
        self.notes.extend(said.into_iter().map(|n| (c.entry, n)));
        c
    }
}

/// The note of a spend summed from a transcript that changed while it was read: calls may be
/// missing from it (the rows cache keeps no such row).
pub const PARTLY_READ: &str = "the transcript changed while it was read; calls may be missing";

/// A session's cost figures from its open transcript: one pass over its calls, none of
/// them kept ([`Tally`]).
pub fn of_transcript(t: &Transcript, cx: &Context<'_>) -> SessionCost {
    let mut on_branch = vec![false; t.entries.len()];
    for i in t.active_branch() {
        if let Some(b) = on_branch.get_mut(i as usize) {
            *b = true;
        }
    }
    let mut tally = Tally::new(t, cx, &on_branch);
    let notes = match for_each_call(t, cx, Order::AsRead, &mut |c| tally.add(c)) {
        Some(notes) => notes,
        None => {
            // A store that handed calls over out of file order: start again, sorted.
            tally = Tally::new(t, cx, &on_branch);
            for_each_call(t, cx, Order::Sorted, &mut |c| tally.add(c)).unwrap_or_default()
        }
    };
    tally.finish(notes)
}

/// A session's figures folded one call at a time, in file order: the sums, the cache busts
/// (each call against the one before), and of the active branch only what the figures read
/// at the end (its last [`HIT_RATIO_CALLS`] calls, its last priced prompts for `p_eff`, its
/// last call).
struct Tally<'a> {
    t: &'a Transcript,
    config: Option<&'a Value>,
    now_ms: i64,
    on_branch: &'a [bool],
    cost: SessionCost,
    unpriced_models: BTreeMap<String, u64>,
    /// The call before the one being added (the last call, once all are in).
    prev: Option<Call>,
    /// The active branch's last calls, oldest first: (cache fields, cache reads, prompt).
    recent: std::collections::VecDeque<(bool, u64, u64)>,
    /// The active branch's last call.
    last_on_branch: Option<LastCall>,
}

impl<'a> Tally<'a> {
    fn new(t: &'a Transcript, cx: &Context<'a>, on_branch: &'a [bool]) -> Tally<'a> {
        Tally {
            t,
            config: cx.config,
            now_ms: cx.now_ms,
            on_branch,
            // Sized once from the calls the scan captured: a million-row session's timeline
            // grown by doubling held two copies at its last growth.
            cost: SessionCost {
                timeline: Vec::with_capacity(t.calls.len()),
                ..SessionCost::default()
            },
            unpriced_models: BTreeMap::new(),
            prev: None,
            recent: Default::default(),
            last_on_branch: None,
        }
    }

    fn add(&mut self, call: Call) {
        let (c, now_ms) = (&mut self.cost, self.now_ms);
        c.calls += 1;
        c.tokens.add(&call.tokens);
        c.estimated |= call.estimated;
        match (call.usd, call.basis) {
            (Some(usd), Some(b)) => {
                c.spend_usd += usd;
                if call.at_ms.is_some_and(|t| in_last_hour(t, now_ms)) {
                    c.per_hour_usd += usd;
                }
                if call.at_ms.is_some_and(|t| is_today(t, now_ms)) {
                    c.spend_today_usd += usd;
                }
                match c.priced_by.get_mut(b.name()) {
                    Some(n) => *n += 1,
                    None => {
                        c.priced_by.insert(b.name().to_string(), 1);
                    }
                }
            }
            _ => {
                c.unpriced_calls += 1;
                if call.at_ms.is_some_and(|t| in_last_hour(t, now_ms)) {
                    c.unpriced_calls_last_hour += 1;
                }
                let m = format!(
                    "{}/{}",
                    call.provider.as_deref().unwrap_or("?"),
                    call.model.as_deref().unwrap_or("?")
                );
                *self.unpriced_models.entry(m).or_default() += 1;
            }
        }
        if let Some(at_ms) = call.at_ms {
            c.timeline.push(CallTime::new(at_ms, call.usd));
        }
        if let Some(prev) = &self.prev {
            if let Some(cause) = bust_cause(self.t, prev, &call, self.config) {
                c.cache_busts.push(CacheBust {
                    entry_id: self.t.display_id(call.entry),
                    cause,
                });
            }
        }
        if self.on_branch.get(call.entry as usize) == Some(&true) {
            let prompt = call.tokens.prompt();
            if self.recent.len() == HIT_RATIO_CALLS {
                self.recent.pop_front();
            }
            self.recent
                .push_back((call.cache_fields, call.tokens.cache_read, prompt));
            if let Some(p) = call.parts.filter(|_| prompt > 0) {
                if c.branch_prompts.len() == economics::P_EFF_CALLS {
                    c.branch_prompts.remove(0);
                }
                c.branch_prompts.push((p.prompt_side(), prompt));
            }
            let last = self.last_on_branch.get_or_insert_with(LastCall::default);
            last.take_from(&call);
        }
        self.prev = Some(call);
    }

    fn finish(self, mut notes: Vec<String>) -> SessionCost {
        let mut c = self.cost;
        c.last_call = self
            .last_on_branch
            .or_else(|| self.prev.as_ref().map(LastCall::of));
        c.cache_ttl_seconds = cache_ttl_seconds(
            self.config,
            c.last_call.as_ref().and_then(|l| l.provider.as_deref()),
            c.last_call.as_ref().and_then(|l| l.model.as_deref()),
        );
        for (m, n) in self.unpriced_models {
            notes.push(format!(
                "{n} call{} of {} unpriced: no price recorded and the model is in no price table",
                if n == 1 { "" } else { "s" },
                crate::sanitize::one_line(&m)
            ));
        }
        if self.recent.iter().any(|r| r.0) {
            let read: u64 = self.recent.iter().map(|r| r.1).sum();
            let prompt: u64 = self.recent.iter().map(|r| r.2).sum();
            c.cache_hit_ratio = (prompt > 0).then(|| read as f64 / prompt as f64);
        }
        c.notes = notes;
        if let Some(secs) = c.cache_left_seconds(self.now_ms) {
            c.cache_warm = true;
            c.cache_expires_in_seconds = Some(secs);
        }
        c
    }
}

/// Whether `c` rewrote most of its prompt into the cache, and why, against the call before
/// it: a compaction, idle time past the cache's lifetime, a model change since the call
/// before, else unknown (SPEC §10).
fn bust_cause(t: &Transcript, prev: &Call, c: &Call, config: Option<&Value>) -> Option<BustCause> {
    let prompt = c.tokens.prompt();
    if prompt == 0 || c.tokens.cache_write * 2 <= prompt {
        return None;
    }
    let between = t
        .entries
        .get((prev.entry as usize + 1)..(c.entry as usize))
        .unwrap_or_default();
    let ttl = cache_ttl_seconds(config, c.provider.as_deref(), c.model.as_deref());
    Some(if between.iter().any(|e| e.kind == EntryKind::Compaction) {
        BustCause::Compaction
    } else if matches!((prev.at_ms, c.at_ms), (Some(a), Some(b)) if b - a > ttl as i64 * 1000) {
        BustCause::Idle
    } else if between.iter().any(|e| e.kind == EntryKind::ModelChange)
        || prev.provider != c.provider
        || prev.model != c.model
    {
        BustCause::ModelChange
    } else {
        BustCause::Unknown
    })
}

/// The clock's windows, one definition for [`Tally::add`] and [`SessionCost::clock`]: a call
/// counts in the last hour while `at <= now < at + 1 h`, and today from its time until the
/// next UTC midnight.
const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 86_400_000;

fn in_last_hour(at: i64, now_ms: i64) -> bool {
    at > now_ms - HOUR_MS && at <= now_ms
}

fn midnight_before(now_ms: i64) -> i64 {
    now_ms - now_ms.rem_euclid(DAY_MS)
}

fn is_today(at: i64, now_ms: i64) -> bool {
    at >= midnight_before(now_ms) && at <= now_ms
}

/// Seconds the prompt cache stays warm at `now_ms` after a call at `at` with a TTL of
/// `ttl_seconds`; None when it is cold (or the call is from the future).
fn cache_left(at: i64, ttl_seconds: u64, now_ms: i64) -> Option<u64> {
    let expires = at.saturating_add(ttl_seconds as i64 * 1000);
    (expires > now_ms && at <= now_ms).then(|| ((expires - now_ms) as u64).div_ceil(1000))
}

impl SessionCost {
    /// The figures without the per-call list (what a list row keeps).
    pub fn without_calls(mut self) -> SessionCost {
        self.timeline = Vec::new();
        self.branch_prompts = Vec::new();
        self.last_call = None;
        self
    }

    /// The spend as shown everywhere: `$1.23`, `~` in front when some usage was repaired,
    /// `?` after when some calls are unpriced (their dollars are missing).
    pub fn spend_label(&self) -> String {
        self.marked(self.spend_usd, self.unpriced_calls)
    }

    /// $/h as shown everywhere, marked as the spend is.
    pub fn per_hour_label(&self) -> String {
        format!(
            "{}/h",
            self.marked(self.per_hour_usd, self.unpriced_calls_last_hour)
        )
    }

    fn marked(&self, usd: f64, unpriced: u64) -> String {
        let mark = if self.estimated { "~" } else { "" };
        format!("{mark}{}", usd_marked(usd, unpriced))
    }

    /// Seconds the prompt cache stays warm at `now_ms`: the TTL after the active branch's
    /// last call (the last call at all when the branch has none); None when it is cold or
    /// no call has a time. Needs the per-call list.
    pub fn cache_left_seconds(&self, now_ms: i64) -> Option<u64> {
        cache_left(self.cache_from_ms()?, self.cache_ttl_seconds, now_ms)
    }

    /// The time of the call the prompt cache's TTL runs from: the active branch's last call
    /// (the last call at all when the branch has none).
    fn cache_from_ms(&self) -> Option<i64> {
        self.last_call.as_ref()?.at_ms
    }

    /// What the figures that move with the clock alone (the last hour's and today's spend,
    /// the prompt cache's countdown) need to be kept past `now_ms` without the per-call
    /// list: a row built now holds until [`Clock::steady_until_ms`], its countdown redone by
    /// [`Clock::apply`]. Needs the per-call list (call it before [`Self::without_calls`]).
    pub fn clock(&self, now_ms: i64) -> Clock {
        // Tally::add's windows (in_last_hour, is_today) change at the next UTC midnight, when
        // a call leaves the hour, and when a call from the future enters them.
        let mut until = midnight_before(now_ms) + DAY_MS;
        for at in self.timeline.iter().map(|c| c.at_ms) {
            if at > now_ms {
                until = until.min(at);
            } else if in_last_hour(at, now_ms) {
                until = until.min(at + HOUR_MS);
            }
        }
        let cache_from_ms = self.cache_from_ms();
        if let Some(at) = cache_from_ms {
            let expires = at.saturating_add(self.cache_ttl_seconds as i64 * 1000);
            if expires > now_ms {
                until = until.min(expires);
            }
        }
        Clock {
            cache_from_ms,
            steady_from_ms: now_ms,
            steady_until_ms: until,
        }
    }

    /// Dollars per hour in each of the last `hours` hours before `now_ms`, oldest first (the
    /// Cost pane's sparkline).
    pub fn hourly(&self, now_ms: i64, hours: usize) -> Vec<f64> {
        let mut out = vec![0.0; hours];
        for c in &self.timeline {
            let (at, Some(usd)) = (c.at_ms, c.usd()) else {
                continue;
            };
            if at > now_ms {
                continue;
            }
            let ago = ((now_ms - at) / HOUR_MS) as usize;
            if ago < hours {
                out[hours - 1 - ago] += usd;
            }
        }
        out
    }
}

/// When a session's clock-bound figures next change ([`SessionCost::clock`]). Kept with a
/// remembered row ([`crate::usecase::rows_cache`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Clock {
    /// The time of the call the prompt cache's TTL runs from.
    pub cache_from_ms: Option<i64>,
    /// From when (the moment they were computed) until [`Self::steady_until_ms`] the hour's
    /// and today's figures and the cache's warmth stay as they were computed; only the
    /// countdown moves. Before it (a clock set back) they may differ.
    pub steady_from_ms: i64,
    pub steady_until_ms: i64,
}

impl Clock {
    /// The figures computed under this clock still hold at `now_ms`.
    pub fn holds_at(&self, now_ms: i64) -> bool {
        (self.steady_from_ms..self.steady_until_ms).contains(&now_ms)
    }
}

impl Clock {
    /// The cache's countdown at `now_ms`, as [`SessionCost::cache_left_seconds`] computes it.
    pub fn apply(&self, c: &mut SessionCost, now_ms: i64) {
        let left = self
            .cache_from_ms
            .and_then(|at| cache_left(at, c.cache_ttl_seconds, now_ms));
        c.cache_warm = left.is_some();
        c.cache_expires_in_seconds = left;
    }
}

/// Dollars in words with `?` after when `unpriced` calls are missing from them: the one mark
/// of an incomplete sum, on a session's spend, a host's and the fleet's.
pub fn usd_marked(usd: f64, unpriced: u64) -> String {
    let mark = if unpriced > 0 { "?" } else { "" };
    format!("{}{mark}", usd_text(usd))
}

/// Dollars in words: cents above a dollar's hundredth, else enough digits to see the amount.
pub fn usd_text(usd: f64) -> String {
    if !usd.is_finite() {
        return "$?".into();
    }
    let a = usd.abs();
    if a == 0.0 {
        "$0".into()
    } else if a >= 100.0 {
        format!("${usd:.0}")
    } else if a >= 0.1 {
        format!("${usd:.2}")
    } else if a >= 0.01 {
        format!("${usd:.3}")
    } else {
        format!("${usd:.4}")
    }
}

/// The current time for cost figures (a test build may pin it with `CLAWTOP_TEST_NOW_MS`, so
/// the last hour's spend of a fixture is a fixed figure).
pub fn now_ms() -> i64 {
    pinned_now_ms().unwrap_or_else(|| chrono::Utc::now().timestamp_millis())
}

/// `CLAWTOP_TEST_NOW_MS`, in a build with the `test-hooks` feature only.
#[cfg(feature = "test-hooks")]
fn pinned_now_ms() -> Option<i64> {
    std::env::var("CLAWTOP_TEST_NOW_MS")
        .ok()
        .and_then(|v| v.parse().ok())
}

#[cfg(not(feature = "test-hooks"))]
fn pinned_now_ms() -> Option<i64> {
    None
}

#[cfg(test)]
mod tests;
