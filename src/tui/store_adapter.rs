//! From a [`SessionSource`] and the numbers (`crate::numbers`, `crate::thresholds`) to the
//! TUI's rows. The arithmetic stays there; this only renames and words the sources.

use crate::numbers::Numbers;
use crate::source::{Changes, Session, SessionHandle, SourceHandle, Watch};
use crate::thresholds::{self, Source, Thresholds, UsedSource};
use crate::tui::TuiLaunch;
use crate::tui::view::{NamedLoader, NumberSources, SessionLoader, SessionRow, SessionsSnapshot};
use std::sync::Arc;

fn src(s: Source) -> &'static str {
    match s {
        Source::Entry => "store entry",
        Source::Config => "config",
        Source::ModelCatalog => "model catalog",
        Source::Flag => "flag",
        Source::Default => "default",
    }
}

/// The numeric part of a row, with each source in words.
pub fn numbers_row(t: &Thresholds) -> SessionRow {
    let used = crate::used::describe(t);
    let reserve = thresholds::explain_reserve(t.rules, t.window, t.reserve_tokens, t.reserve_floor);
    let flush_at = thresholds::explain_flush_line(
        t.rules,
        t.flush_at,
        t.reserve_floor,
        t.soft_threshold,
        t.flush_enabled,
        t.unknown("flushAt"),
    );
    SessionRow {
        used: t.used,
        used_source: t.used_source,
        window: t.window,
        reserve: t.reserve,
        compact_at: t.compact_at,
        flush_at: t.flush_at,
        compaction_count: t.compaction_count,
        memory_flush_at: t.memory_flush_at,
        memory_flush_compaction_count: t.memory_flush_compaction_count,
        flushed_this_cycle: t.flushed_this_cycle,
        status: t.status,
        flush_reason: t.flush_reason.clone(),
        unknown: t.unknown.clone(),
        store_used: t.store_used,
        used_check: t.used_check,
        used_check_reason: t.used_check_reason.clone(),
        sources: NumberSources {
            used,
            window: format!("{} [{}]", t.window_detail, src(t.window_source)),
            reserve,
            compact_at: "window − reserve".into(),
            flush_at,
        },
        ..SessionRow::default()
    }
}

/// A listed session of `source` with its numbers.
pub fn row_from(
    source: &SourceHandle,
    s: &Session,
    t: &Thresholds,
    keep_recent_tokens: u64,
) -> SessionRow {
    let e = &s.entry;
    let model = match (&e.model_provider, &e.model) {
        (Some(p), Some(m)) if !m.contains('/') => Some(format!("{p}/{m}")),
        (_, Some(m)) => Some(m.clone()),
        (Some(p), None) => Some(p.clone()),
        (None, None) => None,
    };
    let mut row = SessionRow {
        agent_id: s.agent_id().to_string(),
        session_key: s.key().to_string(),
        session_id: e.session_id.clone(),
        model,
        updated_at_ms: e.updated_at,
        session: Some(SessionHandle::new(source.clone(), s.reference.clone())),
        transcript: s.transcript.clone(),
        keep_recent_tokens,
        model_provider: e.model_provider.clone(),
        model_id: e.model.clone(),
        ..numbers_row(t)
    };
    name_entry(&mut row.sources, source.kind());
    row
}

/// A gateway's sessions are its `sessions.list` rows: clawtop reads no store there, so the
/// figures' source is named the gateway's row.
pub fn name_entry(n: &mut NumberSources, source_kind: crate::source::SourceKind) {
    if source_kind == crate::source::SourceKind::Gateway {
        for text in [&mut n.used, &mut n.window, &mut n.reserve, &mut n.flush_at] {
            *text = text.replace("store entry", "gateway row");
        }
    }
}

/// Numbers of a bare transcript: no store entry, no config, so every setting is its default;
/// `used` is the transcript estimate when there is one.
pub fn bare_row(t: Option<&crate::transcript::Transcript>) -> SessionRow {
    let (th, settings) = crate::numbers::bare_file(t, None);
    let mut row = numbers_row(&th);
    row.keep_recent_tokens = settings.keep_recent_tokens.value;
    row
}

/// Reads every agent's sessions of `source` (or one agent's). Runs in an effect, off the UI.
///
/// Watched: the stores and the sessions' transcripts (an estimated figure follows its
/// transcript; a store figure older than the transcript's last entry is marked stale). Each
/// file is stamped before it is read, so the poller misses no change made meanwhile.
pub fn snapshot(source: &SourceHandle, agent: Option<&str>) -> SessionsSnapshot {
    snapshot_of(source, agent, |source| source.list(agent))
}

/// The row of the one session `name` names, read without the rest of the host when the
/// source can ([`crate::source::SessionSource::listing_named`]): what `clawtop KEY` opens
/// before the whole list is read. None when the source cannot read it alone. Its stamps are
/// taken after the read: the poller is seeded by the whole list's, never by these.
pub fn snapshot_named(
    source: &SourceHandle,
    agent: Option<&str>,
    name: &str,
) -> Option<SessionsSnapshot> {
    let listing = source.listing_named(agent, name)?;
    Some(snapshot_of(source, agent, move |_| listing))
}

fn snapshot_of(
    source: &SourceHandle,
    agent: Option<&str>,
    list: impl FnOnce(&dyn crate::source::SessionSource) -> crate::source::Listing,
) -> SessionsSnapshot {
    let mut watch = match source.changes(Watch::Sessions { agent }) {
        Changes::Poll(files) => files,
        Changes::Pushed => Vec::new(),
    };
    let mut stamps = crate::tui::watch::stamps(&watch);
    let loaded = list(source.as_ref());
    let mut watched: std::collections::HashSet<std::path::PathBuf> =
        watch.iter().cloned().collect();
    let mut transcript_of = Vec::with_capacity(loaded.sessions.len());
    for s in &loaded.sessions {
        let files = match source.changes(Watch::Transcript(&s.reference)) {
            Changes::Poll(files) => files,
            Changes::Pushed => Vec::new(),
        };
        transcript_of.push(
            files
                .iter()
                .find(|f| f.extension().is_some_and(|e| e == "jsonl"))
                .cloned(),
        );
        for f in files {
            if watched.insert(f.clone()) {
                stamps.push((f.clone(), crate::tui::watch::stamp(&f)));
                watch.push(f);
            }
        }
    }
    let mut numbers = Numbers::new(source.as_ref());
    let keep = numbers.settings.keep_recent_tokens.value;
    // The running-gateway notice first: it is what the status line shows at start.
    let notice = loaded.running_gateway.as_ref().map(|g| g.notice());
    let mut warnings: Vec<String> = notice
        .iter()
        .map(|n| format!("{n}; here, C on a session does"))
        .collect();
    warnings.extend(source.warnings());
    warnings.extend(loaded.errors.iter().cloned());
    let errors = loaded.errors.clone();
    warnings.extend(
        loaded
            .warnings
            .iter()
            .filter(|w| Some(*w) != notice.as_ref())
            .cloned(),
    );
    let mut rows = Vec::with_capacity(loaded.sessions.len());
    let mut forecasts = crate::history::tail::Forecasts::default();
    for (s, file) in loaded.sessions.iter().zip(transcript_of) {
        let mut w = Vec::new();
        let rules = numbers.rules;
        let t = numbers.session_seeing(s, &mut w, |open| forecasts.read_open(s, open, rules));
        let mut row = row_from(source, s, &t, keep);
        row.forecast = Some(forecasts.of(source.as_ref(), s, &t));
        row.recent = forecasts.recent(source.as_ref(), s, t.rules, TREND_TURNS);
        row.lock = source
            .lock(&s.reference)
            .filter(|l| *l != crate::commit::LockStatus::Free);
        if matches!(row.used_source, UsedSource::Fresh | UsedSource::Legacy) {
            row.stale = file.and_then(|f| stale(s.entry.updated_at, &f));
        }
        // The domain found the store behind the transcript and used the transcript's figure:
        // the row still carries the mark, with the domain's reason.
        if row.used_check == crate::used::UsedCheck::Stale && row.stale.is_none() {
            row.stale = Some(format!("stale: {}", row.used_check_reason));
        }
        rows.push(row);
    }
    SessionsSnapshot {
        rows,
        watch,
        stamps,
        label: source.label(),
        warnings,
        errors,
        running_gateway: loaded.running_gateway.as_ref().map(|g| g.port),
    }
}

/// Turns the Sessions list's trend column shows.
pub const TREND_TURNS: usize = 12;

/// Why a store figure is stale: the transcript's last entry is later than the store's
/// `updatedAt` (OpenClaw records the tokens after the turn is written).
fn stale(updated_at: Option<i64>, transcript: &std::path::Path) -> Option<String> {
    let last = crate::transcript::tail::last_entry_ms(transcript)?;
    let hms = |ms: i64| {
        chrono::DateTime::from_timestamp_millis(ms)
            .map(|d| d.format("%H:%M:%S").to_string())
            .unwrap_or_else(|| "?".into())
    };
    match updated_at {
        Some(u) if last > u => Some(format!(
            "stale: store updated {}, transcript has an entry at {}",
            hms(u),
            hms(last)
        )),
        // No updatedAt: clawtop cannot tell.
        _ => None,
    }
}

/// A loader over a source.
pub fn host_loader(source: SourceHandle, agent: Option<String>) -> SessionLoader {
    Arc::new(move || {
        let snap = snapshot(&source, agent.as_deref());
        // Nothing listed and the source said why: a failed read, not an empty host (the
        // screen keeps the rows it had and says the reload failed).
        if snap.rows.is_empty() && !snap.errors.is_empty() {
            return Err(crate::tui::view::ReloadError::Unreadable(snap.errors));
        }
        Ok(snap)
    })
}

/// The launch session's own loader ([`crate::tui::TuiLaunch::named_loader`]).
pub fn named_loader(source: SourceHandle, agent: String, key: String) -> NamedLoader {
    Arc::new(move || snapshot_named(&source, Some(&agent), &key))
}

impl TuiLaunch {
    /// From the CLI's [`crate::store::Launch`]: a host (maybe the embedded demo) or a bare file.
    /// Mouse off; colours per `NO_COLOR`.
    pub fn from_store(launch: crate::store::Launch) -> TuiLaunch {
        let demo = launch.host.as_ref().is_some_and(|h| h.is_demo);
        let source = launch.host.map(crate::source::for_host);
        TuiLaunch {
            live: source.clone(),
            loader: source.map(|s| host_loader(s, launch.agent.clone())),
            file: launch.file,
            demo,
            mouse: false,
            no_color: TuiLaunch::no_color_from_env(),
            open: None,
            named_loader: None,
            notice: None,
            logs: Vec::new(),
        }
    }
}
