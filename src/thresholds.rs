//! The numbers of docs/numbers.md, each with where it came from.
//!
//! Two releases' arithmetic, chosen by the host's version ([`Rules`]):
//! - OpenClaw 2026.2.26–2026.7.1 (docs/numbers.md §3, §4): reserve =
//!   max(reserveTokens, reserveTokensFloor), compact line = window − reserve, flush line =
//!   window − reserveTokensFloor − softThresholdTokens;
//! - OpenClaw 2026.9 (docs/numbers.md §7): reserve = min(max(reserveTokens,
//!   20000), floor(window × 0.25)), compact line = window − reserve, soft threshold capped at
//!   floor((window − reserve) / 2), flush line = compact line − soft.
//!
//! Lines never go below 0 (OpenClaw clamps the flush threshold at 0 too). Used figures are
//! never clamped and never invented: unknown stays unknown. Flushed-this-cycle is the same
//! test in both: the compaction count recorded at the last flush equals the current one.

pub mod catalog;
mod rules;

use crate::format::thousands;
pub use rules::{Release, Rules};
use serde::Serialize;
use serde_json::Value;

pub const DEFAULT_WINDOW: u64 = 200_000;
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;
pub const DEFAULT_RESERVE_FLOOR: u64 = 20_000;
pub const DEFAULT_SOFT_THRESHOLD: u64 = 4_000;

/// Where a number came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", from = "String")]
pub enum Source {
    /// The session's store entry.
    Entry,
    /// `openclaw.json`.
    Config,
    /// A model catalog: config `models.providers` or `agents/<id>/agent/models.json`.
    ModelCatalog,
    /// A command-line flag.
    Flag,
    #[default]
    Default,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Entry => "entry",
            Source::Config => "config",
            Source::ModelCatalog => "modelCatalog",
            Source::Flag => "flag",
            Source::Default => "default",
        }
    }
}

/// Provenance of the used figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", from = "String")]
pub enum UsedSource {
    /// `totalTokens` with `totalTokensFresh: true`.
    Fresh,
    /// `totalTokens` without a `totalTokensFresh` flag (older writers).
    Legacy,
    /// From the transcript: last valid assistant usage (newer than the last compaction) plus
    /// estimates of the messages after it.
    Transcript,
    /// Right after a compaction, before any call measured it: overhead + summary + kept
    /// messages (`used::expected_after`).
    Estimated,
    #[default]
    Unknown,
}

impl UsedSource {
    pub fn name(self) -> &'static str {
        match self {
            UsedSource::Fresh => "fresh",
            UsedSource::Legacy => "legacy",
            UsedSource::Transcript => "transcript",
            UsedSource::Estimated => "estimated",
            UsedSource::Unknown => "unknown",
        }
    }
}

/// Session status. Precedence (first that holds): `unknown` (no used figure), `over`
/// (used ≥ window), `compact-due` (used ≥ compact line), `flushed` / `flush-due`
/// (used ≥ flush line, flushed this cycle or not), `ok`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", from = "String")]
pub enum Status {
    Ok,
    FlushDue,
    Flushed,
    CompactDue,
    Over,
    #[default]
    Unknown,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::FlushDue => "flush-due",
            Status::Flushed => "flushed",
            Status::CompactDue => "compact-due",
            Status::Over => "over",
            Status::Unknown => "unknown",
        }
    }
}

/// A value and its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Sourced<T> {
    pub fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }
}

/// Compaction and flush settings from `agents.defaults.compaction` (docs/formats.md §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub reserve_tokens: Sourced<u64>,
    pub reserve_floor: Sourced<u64>,
    pub soft_threshold: Sourced<u64>,
    pub flush_enabled: Sourced<bool>,
    pub keep_recent_tokens: Sourced<u64>,
    /// `agents.defaults.contextTokens`.
    pub default_context_tokens: Option<u64>,
}

fn num(v: Option<&Value>) -> Option<u64> {
    v.and_then(crate::store_entry::non_negative)
}

impl Settings {
    pub fn from_config(config: &Value) -> Settings {
        let c = config.pointer("/agents/defaults/compaction");
        let get = |k: &str| c.and_then(|c| c.get(k));
        let mf = get("memoryFlush");
        let pick = |v: Option<u64>, d: u64| match v {
            Some(v) => Sourced::new(v, Source::Config),
            None => Sourced::new(d, Source::Default),
        };
        Settings {
            reserve_tokens: pick(num(get("reserveTokens")), DEFAULT_RESERVE_TOKENS),
            reserve_floor: pick(num(get("reserveTokensFloor")), DEFAULT_RESERVE_FLOOR),
            soft_threshold: pick(
                num(mf.and_then(|m| m.get("softThresholdTokens"))),
                DEFAULT_SOFT_THRESHOLD,
            ),
            // Only an explicit `false` disables the flush (OpenClaw: `enabled === false`).
            flush_enabled: match mf.and_then(|m| m.get("enabled")).and_then(Value::as_bool) {
                Some(b) => Sourced::new(b, Source::Config),
                None => Sourced::new(true, Source::Default),
            },
            keep_recent_tokens: pick(
                num(get("keepRecentTokens")).filter(|&n| n > 0),
                crate::plan::DEFAULT_KEEP_RECENT_TOKENS,
            ),
            default_context_tokens: num(config.pointer("/agents/defaults/contextTokens"))
                .filter(|&n| n > 0),
        }
    }

    /// `keepRecentTokens` for a compaction, the one rule for the CLI flag, the use cases and
    /// the TUI: the operator's value when given and above 0, else the config's
    /// `compaction.keepRecentTokens` (above 0), else 20000.
    pub fn keep_recent(&self, given: Option<u64>) -> Sourced<u64> {
        match given.filter(|&n| n > 0) {
            Some(n) => Sourced::new(n, Source::Flag),
            None => self.keep_recent_tokens,
        }
    }
}

/// A model catalog to look windows up in: an object with `providers.<p>.models[]`.
#[derive(Debug, Clone, Copy)]
pub struct Catalog<'a> {
    pub value: &'a Value,
    /// Names the file for the detail text.
    pub label: &'a str,
}

/// The window and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub tokens: u64,
    pub source: Source,
    pub detail: String,
}

/// Window (docs/numbers.md §1): entry `contextTokens`, else `agents.defaults.contextTokens`, else
/// the model's window from the catalogs in order, else 200000.
pub fn resolve_window(
    entry_context_tokens: Option<u64>,
    settings: &Settings,
    catalogs: &[Catalog<'_>],
    provider: Option<&str>,
    model: Option<&str>,
) -> Window {
    if let Some(n) = entry_context_tokens.filter(|&n| n > 0) {
        return Window {
            tokens: n,
            source: Source::Entry,
            detail: "entry contextTokens".into(),
        };
    }
    if let Some(n) = settings.default_context_tokens {
        return Window {
            tokens: n,
            source: Source::Config,
            detail: "config agents.defaults.contextTokens".into(),
        };
    }
    if let Some(model) = model {
        for c in catalogs {
            if let Some((n, what)) = catalog_window(c.value, provider, model) {
                return Window {
                    tokens: n,
                    source: Source::ModelCatalog,
                    detail: format!("{what} in {}", c.label),
                };
            }
        }
    }
    Window {
        tokens: DEFAULT_WINDOW,
        source: Source::Default,
        detail: "default 200000".into(),
    }
}

/// `models.providers.<p>.models[]` lookup (docs/numbers.md §1): a model whose `id` is the model or
/// `<p>/<model>`; its `contextTokens` wins, else `contextWindow`; then the provider's own.
/// Without a provider, a model id found under exactly one provider is used.
pub fn catalog_window(
    catalog: &Value,
    provider: Option<&str>,
    model: &str,
) -> Option<(u64, String)> {
    let providers = catalog::providers(catalog)?;
    let candidates: Vec<(&String, &Value)> = match provider {
        Some(p) => providers.iter().filter(|(k, _)| k.as_str() == p).collect(),
        None => providers.iter().collect(),
    };
    let mut found = Vec::new();
    for (p, pv) in candidates {
        let Some(pv) = pv.as_object() else { continue };
        let Some(m) = catalog::find_model(pv, p, model) else {
            continue;
        };
        let hit = [
            ("contextTokens", m),
            ("contextWindow", m),
            ("contextTokens", pv),
            ("contextWindow", pv),
        ]
        .into_iter()
        .find_map(|(k, obj)| num(obj.get(k)).filter(|&n| n > 0).map(|n| (n, k)));
        if let Some((n, k)) = hit {
            found.push((n, format!("models.providers.{p}.models[{model}].{k}")));
        }
    }
    if provider.is_none() && found.len() > 1 {
        return None;
    }
    found.into_iter().next()
}

/// What the numbers need from a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    pub total_tokens: Option<u64>,
    pub total_tokens_fresh: Option<bool>,
    pub compaction_count: Option<u64>,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
    /// 2026.9 `memoryFlush.kind` (`succeeded`, `failed`); None before 2026.9 or before a flush.
    pub memory_flush_kind: Option<String>,
    /// 2026.9 `totalTokensVersion` (1: `totalTokens` is the last call's prompt snapshot).
    pub total_tokens_version: Option<u64>,
}

impl Counters {
    pub fn from_entry(e: &crate::store_entry::StoreEntry) -> Counters {
        Counters {
            total_tokens: e.total_tokens(),
            total_tokens_fresh: e.total_tokens_fresh(),
            compaction_count: e.compaction_count,
            memory_flush_at: e.memory_flush_at,
            memory_flush_compaction_count: e.memory_flush_compaction_count,
            memory_flush_kind: e.memory_flush_kind.clone(),
            total_tokens_version: e.total_tokens_version,
        }
    }
}

/// Used (docs/numbers.md §2): `totalTokens` unless `totalTokensFresh` is `false`; else the
/// transcript estimate (`estimate` is only called then, so listing fresh sessions opens no
/// transcript).
pub fn resolve_used(
    c: &Counters,
    estimate: impl FnOnce() -> Option<u64>,
) -> (Option<u64>, UsedSource) {
    match (c.total_tokens, c.total_tokens_fresh) {
        (Some(n), Some(true)) => (Some(n), UsedSource::Fresh),
        (Some(n), None) => (Some(n), UsedSource::Legacy),
        _ => match estimate() {
            Some(n) => (Some(n), UsedSource::Estimated),
            None => (None, UsedSource::Unknown),
        },
    }
}

// The store-versus-transcript facts a `Thresholds` carries. They are computed in `used`
// (`used::resolve`), which sits above this module; the types live here so that the record
// of a session's numbers needs nothing from above.

/// The store figure against the transcript (`usedCheck`, docs/numbers.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", from = "String")]
pub enum UsedCheck {
    Equal,
    /// The store holds a compaction's `tokensAfter` (OpenClaw 2026.9), which leaves out the
    /// overhead: not the same figure as `used`, which adds it (issue 30 item 6).
    AfterCompaction,
    RunSum,
    Stale,
    Differs,
    #[default]
    Unknown,
}

impl UsedCheck {
    pub fn name(self) -> &'static str {
        match self {
            UsedCheck::Equal => "equal",
            UsedCheck::AfterCompaction => "after-compaction",
            UsedCheck::RunSum => "run-sum",
            UsedCheck::Stale => "stale",
            UsedCheck::Differs => "differs",
            UsedCheck::Unknown => "unknown",
        }
    }
}

/// How the transcript's figure was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// An assistant usage newer than the last compaction, plus estimates after it.
    Usage,
    /// No usage since the last compaction: overhead + summary + kept messages.
    AfterCompaction,
    /// Nothing measures it.
    None,
}

/// The transcript's view of the context now (`transcriptContext` in `--json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptContext {
    /// The figure (0 with basis `none`).
    pub tokens: u64,
    pub basis: Basis,
    /// The usage taken (basis `usage`): `calculateContextTokens` of the last valid reply.
    pub usage_tokens: u64,
    /// Estimate of the messages after that reply (basis `usage`), or of the summary and kept
    /// messages (basis `after-compaction`).
    pub trailing_tokens: u64,
    /// Id of the entry whose usage was taken.
    pub entry_id: Option<String>,
    /// Basis `after-compaction`: the overhead part (None: no call ever measured one).
    #[serde(default, skip_serializing_if = "crate::packed::none")]
    pub overhead_tokens: Option<u64>,
}

/// All numbers of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thresholds {
    pub window: u64,
    pub window_source: Source,
    pub window_detail: String,
    pub used: Option<u64>,
    pub used_source: UsedSource,
    /// The store's `totalTokens` where it is not the figure used (`used`).
    pub store_used: Option<u64>,
    /// The store figure against the transcript (`used::resolve`); `Unknown` with an
    /// empty reason when no transcript was consulted.
    pub used_check: UsedCheck,
    pub used_check_reason: String,
    /// The transcript's view of the context now, when the transcript was read.
    pub transcript_context: Option<TranscriptContext>,
    pub reserve: u64,
    /// The setting that won the max (reserveTokens or reserveTokensFloor) and its source.
    pub reserve_from: &'static str,
    pub reserve_source: Source,
    pub reserve_tokens: Sourced<u64>,
    pub reserve_floor: Sourced<u64>,
    pub soft_threshold: Sourced<u64>,
    pub flush_enabled: Sourced<bool>,
    pub compact_at: u64,
    pub flush_at: Option<u64>,
    pub compaction_count: Option<u64>,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
    pub memory_flush_kind: Option<String>,
    pub total_tokens_version: Option<u64>,
    pub flushed_this_cycle: bool,
    pub status: Status,
    pub flush_reason: String,
    /// Whose arithmetic made these numbers.
    pub rules: Rules,
    /// Inputs the source cannot read, with why ([`Thresholds::mask_not_exposed`]): the figures
    /// derived from them are unknown, never defaults.
    pub unknown: Vec<(&'static str, String)>,
}

/// The name in [`Thresholds::unknown`] (and a list row's `unknown`) of a transcript that is
/// there but could not be read: `used` and everything from it are unknown, and `check` says
/// UNKNOWN naming why.
pub const TRANSCRIPT_UNREAD: &str = "transcript";

impl Thresholds {
    /// Why the session's transcript could not be read, when it could not.
    pub fn transcript_unread(&self) -> Option<&str> {
        self.unknown(TRANSCRIPT_UNREAD)
    }

    /// What a source cannot read stays unknown instead of a default: the figures derived from
    /// it are masked (field names as in `source::SessionSource::not_exposed`). Every
    /// front-end gets its numbers through `numbers::Numbers`, which calls this.
    pub fn mask_not_exposed(&mut self, fields: &[(&'static str, String)]) {
        for (field, why) in fields {
            match *field {
                "memoryFlush" => {
                    self.flush_reason = format!("flush state unknown: memoryFlush is {why}");
                    self.memory_flush_compaction_count = None;
                    self.memory_flush_at = None;
                    self.memory_flush_kind = None;
                    // Whether the flush ran in this cycle cannot be told from here.
                    if matches!(self.status, Status::FlushDue | Status::Flushed) {
                        self.status = Status::Unknown;
                    }
                }
                // The flush line needs the host's softThresholdTokens setting.
                "flushAt" => self.flush_at = None,
                "compactionCount" => self.compaction_count = None,
                _ => {}
            }
            self.unknown.push((field, why.clone()));
        }
    }

    /// Why `field` is unknown, when the source cannot read it.
    pub fn unknown(&self, field: &str) -> Option<&str> {
        self.unknown
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, why)| why.as_str())
    }

    /// used / window in percent (may exceed 100; None when used is unknown).
    pub fn percent(&self) -> Option<f64> {
        let u = self.used?;
        if self.window == 0 {
            None
        } else {
            Some(u as f64 * 100.0 / self.window as f64)
        }
    }
}

/// 2026.9's fixed reserve floor (`DEFAULT_AGENT_COMPACTION_RESERVE_TOKENS_FLOOR`); its config
/// key `reserveTokensFloor` is rejected by 2026.9.
pub const RESERVE_FLOOR_2026_9: u64 = 20_000;

/// Computes every number of docs/numbers.md with the 2026.2 arithmetic.
pub fn compute(
    window: Window,
    used: (Option<u64>, UsedSource),
    settings: &Settings,
    c: &Counters,
) -> Thresholds {
    compute_with(Rules::V2026_2, window, used, settings, c)
}

/// Computes every §3 number with the arithmetic of `rules`.
pub fn compute_with(
    rules: Rules,
    window: Window,
    used: (Option<u64>, UsedSource),
    settings: &Settings,
    c: &Counters,
) -> Thresholds {
    let (used, used_source) = used;
    let rt = settings.reserve_tokens;
    let mut fl = settings.reserve_floor;
    let mut soft = settings.soft_threshold;
    let (reserve, reserve_from, reserve_source, compact_at, flush_at);
    match rules {
        Rules::V2026_2 => {
            // A floor of 0 disables it, which max() already expresses.
            (reserve, reserve_from, reserve_source) = if fl.value > rt.value {
                (fl.value, "reserveTokensFloor", fl.source)
            } else {
                (rt.value, "reserveTokens", rt.source)
            };
            compact_at = window.tokens.saturating_sub(reserve);
            flush_at = settings.flush_enabled.value.then(|| {
                window
                    .tokens
                    .saturating_sub(fl.value)
                    .saturating_sub(soft.value)
            });
        }
        Rules::V2026_9 => {
            fl = Sourced::new(RESERVE_FLOOR_2026_9, Source::Default);
            let cap = window.tokens / 4;
            let (maxed, from, src) = if rt.value > fl.value {
                (rt.value, "reserveTokens", rt.source)
            } else {
                (fl.value, "reserveTokensFloor", fl.source)
            };
            (reserve, reserve_from, reserve_source) = if cap < maxed {
                (cap, "window/4", window.source)
            } else {
                (maxed, from, src)
            };
            compact_at = window.tokens.saturating_sub(reserve);
            let half = compact_at / 2;
            if half < soft.value {
                soft = Sourced::new(half, window.source);
            }
            flush_at = settings
                .flush_enabled
                .value
                .then(|| compact_at.saturating_sub(soft.value));
        }
    }
    let flushed_this_cycle = flushed_this_cycle(c);
    let status = status_of(
        used,
        window.tokens,
        compact_at,
        flush_at,
        flushed_this_cycle,
    );
    let cc = c.compaction_count.unwrap_or(0);
    let recorded = match rules {
        Rules::V2026_2 => "memoryFlushCompactionCount",
        Rules::V2026_9 => "memoryFlush.compactionCount",
    };
    let failed = c.memory_flush_kind.as_deref() == Some("failed");
    let flush_reason = match (flush_at, used) {
        (None, _) => "no flush line: memoryFlush.enabled is false".to_string(),
        (Some(_), None) => "unknown: no fresh token count and the transcript has no usage since the last compaction".to_string(),
        (Some(f), Some(u)) if u >= f => {
            if flushed_this_cycle {
                let what = if failed { "a flush failed this cycle; OpenClaw does not retry it" } else { "flushed this cycle" };
                format!("no flush: {what} ({recorded} {} = compactionCount {cc})", c.memory_flush_compaction_count.unwrap_or(0))
            } else {
                let last = match c.memory_flush_compaction_count {
                    Some(m) if failed => format!(" (last flush failed at compaction {m})"),
                    Some(m) => format!(" (last flush at compaction {m})"),
                    None => String::new(),
                };
                format!("flush due: {} used ≥ flush line {} and no flush since compaction {cc}{last}", thousands(u), thousands(f))
            }
        }
        (Some(f), Some(u)) => format!("no flush: {} used < flush line {}", thousands(u), thousands(f)),
    };
    Thresholds {
        window: window.tokens,
        window_source: window.source,
        window_detail: window.detail,
        used,
        used_source,
        store_used: None,
        used_check: UsedCheck::Unknown,
        used_check_reason: String::new(),
        transcript_context: None,
        reserve,
        reserve_from,
        reserve_source,
        reserve_tokens: rt,
        reserve_floor: fl,
        soft_threshold: soft,
        flush_enabled: settings.flush_enabled,
        compact_at,
        flush_at,
        compaction_count: c.compaction_count,
        memory_flush_at: c.memory_flush_at,
        memory_flush_compaction_count: c.memory_flush_compaction_count,
        memory_flush_kind: c.memory_flush_kind.clone(),
        total_tokens_version: c.total_tokens_version,
        flushed_this_cycle,
        status,
        flush_reason,
        rules,
        unknown: Vec::new(),
    }
}

/// OpenClaw up to 2026.7 decides its flush on the stored `totalTokens`; where clawtop's `used`
/// is another figure (`used`), the flush reason says what OpenClaw's figure gives.
pub fn note_store_flush_figure(t: &mut Thresholds) {
    let (Some(stored), Some(line), Rules::V2026_2) = (t.store_used, t.flush_at, t.rules) else {
        return;
    };
    let side = if stored >= line {
        "at or past"
    } else {
        "below"
    };
    t.flush_reason.push_str(&format!(
        "; OpenClaw up to 2026.7 decides its flush on the stored totalTokens {}, {side} the flush line",
        thousands(stored)
    ));
}

/// OpenClaw's once-per-cycle rule: `memoryFlushCompactionCount == (compactionCount ?? 0)`.
pub fn flushed_this_cycle(c: &Counters) -> bool {
    c.memory_flush_compaction_count.is_some()
        && c.memory_flush_compaction_count == Some(c.compaction_count.unwrap_or(0))
}

/// Room from `used` to a line: positive while below it, negative once past it. The one
/// subtraction every surface shows (the list's headroom, the context view, `show`).
pub fn room(used: u64, line: u64) -> i64 {
    // Store counts are any u64: wide enough that the sign is right for every one of them.
    (line as i128 - used as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// The status of a used figure against the lines (precedence in [`Status`]).
pub fn status_of(
    used: Option<u64>,
    window: u64,
    compact_at: u64,
    flush_at: Option<u64>,
    flushed_this_cycle: bool,
) -> Status {
    match used {
        None => Status::Unknown,
        Some(u) if u >= window => Status::Over,
        Some(u) if u >= compact_at => Status::CompactDue,
        Some(u) if flush_at.is_some_and(|f| u >= f) => {
            if flushed_this_cycle {
                Status::Flushed
            } else {
                Status::FlushDue
            }
        }
        Some(_) => Status::Ok,
    }
}

/// `41200` → `41,200`.
/// How the reserve was reached, in words (the figure itself not included): one wording for
/// every front-end, following the host's rules (docs/numbers.md).
pub fn explain_reserve(
    rules: Rules,
    window: u64,
    reserve_tokens: Sourced<u64>,
    floor: Sourced<u64>,
) -> String {
    match rules {
        Rules::V2026_9 => format!(
            "min(max(reserveTokens {} [{}], floor {}), window/4 {})  (OpenClaw 2026.9)",
            thousands(reserve_tokens.value),
            reserve_tokens.source.name(),
            thousands(floor.value),
            thousands(window / 4)
        ),
        Rules::V2026_2 => format!(
            "max(reserveTokens {} [{}], reserveTokensFloor {} [{}])",
            thousands(reserve_tokens.value),
            reserve_tokens.source.name(),
            thousands(floor.value),
            floor.source.name()
        ),
    }
}

/// How the flush line was reached, in words (the figure itself not included); when there is
/// no flush line, why: the source cannot read the setting (`unknown`), or the flush is off.
pub fn explain_flush_line(
    rules: Rules,
    flush_at: Option<u64>,
    floor: Sourced<u64>,
    soft: Sourced<u64>,
    enabled: Sourced<bool>,
    unknown: Option<&str>,
) -> String {
    match (flush_at, unknown) {
        (Some(_), _) if rules == Rules::V2026_9 => format!(
            "compact line - softThresholdTokens {} [{}] (capped at half of window - reserve)",
            thousands(soft.value),
            soft.source.name()
        ),
        (Some(_), _) => format!(
            "window - reserveTokensFloor {} [{}] - softThresholdTokens {} [{}]",
            thousands(floor.value),
            floor.source.name(),
            thousands(soft.value),
            soft.source.name()
        ),
        (None, Some(why)) => format!("unknown: {why}"),
        (None, None) => format!("off: memoryFlush.enabled false [{}]", enabled.source.name()),
    }
}

// Reading a row back (`list --json` from another host, [`crate::usecase::list::SessionRow`]):
// a name this build does not know (a newer clawtop's) is read as the unknown or default
// variant, never a refusal of the whole row.
impl From<String> for Source {
    fn from(s: String) -> Source {
        [
            Source::Entry,
            Source::Config,
            Source::ModelCatalog,
            Source::Flag,
        ]
        .into_iter()
        .find(|v| v.name() == s)
        .unwrap_or(Source::Default)
    }
}

impl From<String> for UsedSource {
    fn from(s: String) -> UsedSource {
        [
            UsedSource::Fresh,
            UsedSource::Legacy,
            UsedSource::Transcript,
            UsedSource::Estimated,
        ]
        .into_iter()
        .find(|v| v.name() == s)
        .unwrap_or(UsedSource::Unknown)
    }
}

impl From<String> for Status {
    fn from(s: String) -> Status {
        [
            Status::Ok,
            Status::FlushDue,
            Status::Flushed,
            Status::CompactDue,
            Status::Over,
        ]
        .into_iter()
        .find(|v| v.name() == s)
        .unwrap_or(Status::Unknown)
    }
}

impl From<String> for UsedCheck {
    fn from(s: String) -> UsedCheck {
        [
            UsedCheck::Equal,
            UsedCheck::AfterCompaction,
            UsedCheck::RunSum,
            UsedCheck::Stale,
            UsedCheck::Differs,
        ]
        .into_iter()
        .find(|v| v.name() == s)
        .unwrap_or(UsedCheck::Unknown)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn room_has_the_right_sign_for_any_store_count() {
        assert_eq!(super::room(29_144, 30_000), 856);
        assert_eq!(super::room(31_000, 30_000), -1_000);
        assert!(super::room(u64::MAX, 30_000) < 0);
        assert!(super::room(1 << 63, 30_000) < 0);
        assert_eq!(super::room(0, u64::MAX), i64::MAX);
    }
    use super::*;
    use serde_json::json;

    #[test]
    fn explanations_follow_the_rules_and_say_unknown() {
        let d = |v| Sourced::new(v, Source::Default);
        assert_eq!(
            explain_reserve(Rules::V2026_9, 48_000, d(16_384), d(20_000)),
            "min(max(reserveTokens 16,384 [default], floor 20,000), window/4 12,000)  (OpenClaw 2026.9)"
        );
        assert_eq!(
            explain_reserve(Rules::V2026_2, 48_000, d(16_384), d(20_000)),
            "max(reserveTokens 16,384 [default], reserveTokensFloor 20,000 [default])"
        );
        let soft = Sourced::new(6_000, Source::Config);
        let on = Sourced::new(true, Source::Default);
        assert_eq!(
            explain_flush_line(Rules::V2026_9, Some(30_000), d(20_000), soft, on, None),
            "compact line - softThresholdTokens 6,000 [config] (capped at half of window - reserve)"
        );
        assert_eq!(
            explain_flush_line(Rules::V2026_2, Some(22_000), d(20_000), soft, on, None),
            "window - reserveTokensFloor 20,000 [default] - softThresholdTokens 6,000 [config]"
        );
        assert_eq!(
            explain_flush_line(
                Rules::V2026_9,
                None,
                d(20_000),
                soft,
                on,
                Some("not exposed")
            ),
            "unknown: not exposed"
        );
        let off = Sourced::new(false, Source::Config);
        assert_eq!(
            explain_flush_line(Rules::V2026_2, None, d(20_000), soft, off, None),
            "off: memoryFlush.enabled false [config]"
        );
    }

    #[test]
    fn what_a_source_cannot_read_is_masked_not_defaulted() {
        let c = Counters::default();
        let mut t = compute(win(48_000), fresh(25_000), &defaults(), &c);
        assert_eq!(t.status, Status::FlushDue);
        t.mask_not_exposed(&[
            ("memoryFlush", "not exposed".into()),
            ("flushAt", "not exposed".into()),
            ("compactionCount", "not exposed".into()),
        ]);
        assert_eq!(t.flush_at, None);
        assert_eq!(t.compaction_count, None);
        assert_eq!(t.status, Status::Unknown, "flush-due cannot be told");
        assert_eq!(t.unknown("flushAt"), Some("not exposed"));
        assert!(t.flush_reason.contains("flush state unknown"));
    }

    fn defaults() -> Settings {
        Settings::from_config(&json!({}))
    }

    fn win(n: u64) -> Window {
        Window {
            tokens: n,
            source: Source::Entry,
            detail: String::new(),
        }
    }

    fn fresh(n: u64) -> (Option<u64>, UsedSource) {
        (Some(n), UsedSource::Fresh)
    }

    #[test]
    fn host_a_numbers() {
        let cfg = json!({"models": {"providers": {"fake": {"models": [{"id": "fake-model", "contextWindow": 48000}]}}},
                         "agents": {"defaults": {"compaction": {"mode": "safeguard"}}}});
        let s = Settings::from_config(&cfg);
        let w = resolve_window(
            Some(48000),
            &s,
            &[Catalog {
                value: &cfg["models"],
                label: "config",
            }],
            Some("fake"),
            Some("fake-model"),
        );
        assert_eq!((w.tokens, w.source), (48000, Source::Entry));
        let c = Counters {
            total_tokens: Some(75943),
            total_tokens_fresh: Some(true),
            compaction_count: Some(12),
            ..Default::default()
        };
        let used = resolve_used(&c, || panic!("no estimate needed"));
        assert_eq!(used, (Some(75943), UsedSource::Fresh));
        let t = compute(w, used, &s, &c);
        assert_eq!(t.reserve, 20000);
        assert_eq!(
            (t.reserve_from, t.reserve_source),
            ("reserveTokensFloor", Source::Default)
        );
        assert_eq!(t.compact_at, 28000);
        assert_eq!(t.flush_at, Some(24000));
        assert!(!t.flushed_this_cycle);
        assert_eq!(t.status, Status::Over);
        assert_eq!(
            t.flush_reason,
            "flush due: 75,943 used ≥ flush line 24,000 and no flush since compaction 12"
        );
        assert!(t.percent().unwrap() > 158.0, "never clamped");
    }

    #[test]
    fn window_precedence() {
        let cfg = json!({"agents": {"defaults": {"contextTokens": 64000}}});
        let cat = json!({"providers": {"p": {"models": [{"id": "m", "contextWindow": 32768}]}, "q": {"models": [{"id": "m", "contextWindow": 1}]}}});
        let cats = [Catalog {
            value: &cat,
            label: "models.json",
        }];
        let s = Settings::from_config(&cfg);
        assert_eq!(
            resolve_window(Some(1000), &s, &cats, Some("p"), Some("m")).source,
            Source::Entry
        );
        assert_eq!(
            resolve_window(None, &s, &cats, Some("p"), Some("m")).tokens,
            64000
        );
        let d = defaults();
        let w = resolve_window(None, &d, &cats, Some("p"), Some("m"));
        assert_eq!((w.tokens, w.source), (32768, Source::ModelCatalog));
        assert!(w.detail.contains("models.json"));
        // Ambiguous without provider → default.
        assert_eq!(
            resolve_window(None, &d, &cats, None, Some("m")).source,
            Source::Default
        );
        assert_eq!(
            resolve_window(None, &d, &cats, Some("zz"), Some("m")).tokens,
            200000
        );
        // contextTokens on the model wins over contextWindow; qualified ids match.
        let cat2 = json!({"models": {"providers": {"p": {"models": [{"id": "p/m", "contextWindow": 9000, "contextTokens": 8000}]}}}});
        assert_eq!(
            resolve_window(
                None,
                &d,
                &[Catalog {
                    value: &cat2,
                    label: "c"
                }],
                Some("p"),
                Some("m")
            )
            .tokens,
            8000
        );
        assert_eq!(
            resolve_window(Some(0), &d, &[], None, None).source,
            Source::Default
        );
    }

    #[test]
    fn used_provenance() {
        let c = |t, f| Counters {
            total_tokens: t,
            total_tokens_fresh: f,
            ..Default::default()
        };
        assert_eq!(
            resolve_used(&c(Some(5), Some(true)), || None),
            (Some(5), UsedSource::Fresh)
        );
        assert_eq!(
            resolve_used(&c(Some(5), None), || None),
            (Some(5), UsedSource::Legacy)
        );
        assert_eq!(
            resolve_used(&c(Some(5), Some(false)), || Some(7)),
            (Some(7), UsedSource::Estimated)
        );
        assert_eq!(
            resolve_used(&c(None, Some(true)), || Some(7)),
            (Some(7), UsedSource::Estimated)
        );
        assert_eq!(
            resolve_used(&c(Some(5), Some(false)), || None),
            (None, UsedSource::Unknown)
        );
        let t = compute(
            win(1000),
            (None, UsedSource::Unknown),
            &defaults(),
            &Counters::default(),
        );
        assert_eq!(t.status, Status::Unknown);
        assert_eq!(t.used, None, "unknown never becomes 0");
        assert!(t.flush_reason.starts_with("unknown:"));
    }

    #[test]
    fn reserve_rules() {
        let s = Settings::from_config(
            &json!({"agents": {"defaults": {"compaction": {"reserveTokens": 30000}}}}),
        );
        let t = compute(win(100000), fresh(0), &s, &Counters::default());
        assert_eq!(
            (t.reserve, t.reserve_from, t.reserve_source),
            (30000, "reserveTokens", Source::Config)
        );
        assert_eq!(t.compact_at, 70000);
        assert_eq!(
            t.flush_at,
            Some(76000),
            "flush line uses the floor, not the reserve"
        );
        let s = Settings::from_config(
            &json!({"agents": {"defaults": {"compaction": {"reserveTokensFloor": 0}}}}),
        );
        let t = compute(win(100000), fresh(0), &s, &Counters::default());
        assert_eq!((t.reserve, t.reserve_source), (16384, Source::Default));
        assert_eq!(t.flush_at, Some(96000));
        let s = Settings::from_config(
            &json!({"agents": {"defaults": {"compaction": {"memoryFlush": {"enabled": false, "softThresholdTokens": 1}}}}}),
        );
        let t = compute(win(100000), fresh(79000), &s, &Counters::default());
        assert_eq!(t.flush_at, None);
        assert_eq!(t.status, Status::Ok);
        assert_eq!(
            t.flush_reason,
            "no flush line: memoryFlush.enabled is false"
        );
        let s = Settings::from_config(
            &json!({"agents": {"defaults": {"compaction": {"memoryFlush": {"softThresholdTokens": 1000}}}}}),
        );
        let t = compute(win(100000), fresh(0), &s, &Counters::default());
        assert_eq!(
            (t.flush_at, t.soft_threshold.source),
            (Some(79000), Source::Config)
        );
        // Tiny windows clamp lines at 0 rather than wrapping.
        let t = compute(win(10000), fresh(1), &defaults(), &Counters::default());
        assert_eq!((t.compact_at, t.flush_at), (0, Some(0)));
    }

    #[test]
    fn status_and_flush_cycle() {
        let s = defaults();
        let st = |used, cc, mfcc| {
            let c = Counters {
                compaction_count: cc,
                memory_flush_compaction_count: mfcc,
                ..Default::default()
            };
            compute(win(200000), fresh(used), &s, &c)
        };
        assert_eq!(st(100, None, None).status, Status::Ok);
        assert_eq!(
            st(100, None, None).flush_reason,
            "no flush: 100 used < flush line 176,000"
        );
        assert_eq!(st(176000, Some(2), None).status, Status::FlushDue);
        assert_eq!(st(176000, Some(2), Some(1)).status, Status::FlushDue);
        let f = st(176000, Some(2), Some(2));
        assert_eq!(f.status, Status::Flushed);
        assert_eq!(
            f.flush_reason,
            "no flush: flushed this cycle (memoryFlushCompactionCount 2 = compactionCount 2)"
        );
        assert!(
            st(176000, None, Some(0)).flushed_this_cycle,
            "compactionCount ?? 0"
        );
        assert_eq!(st(180000, Some(2), Some(2)).status, Status::CompactDue);
        assert_eq!(st(200000, None, None).status, Status::Over);
        assert_eq!(
            st(250000, None, None).percent().map(|p| p.round()),
            Some(125.0)
        );
    }

    #[test]
    fn rules_2026_9() {
        let s = Settings::from_config(
            &json!({"agents": {"defaults": {"compaction": {"memoryFlush": {"softThresholdTokens": 6000}}}}}),
        );
        let c = Counters {
            compaction_count: Some(1),
            memory_flush_compaction_count: Some(0),
            memory_flush_kind: Some("succeeded".into()),
            ..Default::default()
        };
        // host-f incident-7: W 48000 → R min(20000, 12000), C 36000, S 6000, F 30000.
        let t = compute_with(Rules::V2026_9, win(48000), fresh(29144), &s, &c);
        assert_eq!((t.reserve, t.reserve_from), (12000, "window/4"));
        assert_eq!((t.compact_at, t.flush_at), (36000, Some(30000)));
        assert!(!t.flushed_this_cycle);
        assert_eq!(t.status, Status::Ok);
        // The same session with the 2026.2 arithmetic: reserve 20000, lines 28000 / 22000.
        let old = compute(win(48000), fresh(29144), &s, &c);
        assert_eq!((old.compact_at, old.flush_at), (28000, Some(22000)));
        // W 200000: R 20000, C 180000, F 174000.
        let t = compute_with(
            Rules::V2026_9,
            win(200000),
            fresh(174000),
            &s,
            &Counters::default(),
        );
        assert_eq!(
            (t.reserve, t.compact_at, t.flush_at),
            (20000, 180000, Some(174000))
        );
        assert_eq!(t.status, Status::FlushDue);
        // Soft capped at half of W − R: W 20000 → R 5000, C 15000, S min(6000, 7500)... and W 8000 → R 2000, C 6000, S 3000.
        let t = compute_with(
            Rules::V2026_9,
            win(8000),
            fresh(0),
            &s,
            &Counters::default(),
        );
        assert_eq!(
            (t.reserve, t.compact_at, t.soft_threshold.value, t.flush_at),
            (2000, 6000, 3000, Some(3000))
        );
        // reserveTokens above the floor wins the max, then the window cap applies.
        let big = Settings::from_config(
            &json!({"agents": {"defaults": {"compaction": {"reserveTokens": 30000}}}}),
        );
        let t = compute_with(
            Rules::V2026_9,
            win(200000),
            fresh(0),
            &big,
            &Counters::default(),
        );
        assert_eq!((t.reserve, t.reserve_from), (30000, "reserveTokens"));
        let t = compute_with(
            Rules::V2026_9,
            win(100000),
            fresh(0),
            &big,
            &Counters::default(),
        );
        assert_eq!((t.reserve, t.reserve_from), (25000, "window/4"));
        // Flushed this cycle, from memoryFlush; a failed flush says so.
        let c = Counters {
            compaction_count: Some(2),
            memory_flush_compaction_count: Some(2),
            memory_flush_kind: Some("failed".into()),
            ..Default::default()
        };
        let t = compute_with(Rules::V2026_9, win(200000), fresh(175000), &s, &c);
        assert_eq!(t.status, Status::Flushed);
        assert_eq!(
            t.flush_reason,
            "no flush: a flush failed this cycle; OpenClaw does not retry it (memoryFlush.compactionCount 2 = compactionCount 2)"
        );
    }

    #[test]
    fn thousands_sep() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
