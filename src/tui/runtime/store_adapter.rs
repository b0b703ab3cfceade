//! The Sessions screen's loader: the session list's rows ([`crate::usecase::list`], the one
//! builder every surface renders) paired with their sessions, and the files whose change
//! means "reload". Nothing is computed here; it only pairs and watches.

use crate::source::{Changes, SessionHandle, SourceHandle, Watch};
use crate::tui::model::view::{NamedLoader, SessionLoader, SessionRow, SessionsSnapshot};
use crate::tui::runtime::TuiLaunch;
use std::sync::Arc;

/// Numbers of a bare transcript (no store entry, no config: every setting is its default;
/// `used` is the transcript estimate when there is one), by the one rule
/// ([`crate::numbers::bare_file`]).
pub fn bare_row(t: Option<&crate::transcript::Transcript>) -> crate::usecase::list::SessionRow {
    let (th, settings) = crate::numbers::bare_file(t, None);
    let mut row = crate::usecase::list::SessionRow::numbers(&th);
    row.keep_recent_tokens = settings.keep_recent_tokens.value;
    row
}

/// Reads every agent's sessions of `source` (or one agent's). Runs in an effect, off the UI.
///
/// Watched: the stores and the sessions' transcripts (an estimated figure follows its
/// transcript; a store figure older than the transcript's last entry is marked stale). Each
/// file is stamped before it is read, so the poller misses no change made meanwhile.
pub fn snapshot(source: &SourceHandle, agent: Option<&str>) -> SessionsSnapshot {
    snapshot_of(source, agent, &mut Default::default(), |source| {
        source.list(agent)
    })
    .0
}

/// [`snapshot`] keeping the rows of `memo` whose session did not change since it was filled
/// ([`crate::usecase::list::RowMemo`]): a reload after one session's turn reads that
/// session's transcript only.
pub fn snapshot_kept(
    source: &SourceHandle,
    agent: Option<&str>,
    memo: &mut crate::usecase::list::RowMemo,
) -> SessionsSnapshot {
    snapshot_of(source, agent, memo, |source| source.list(agent)).0
}

/// [`snapshot_kept`] for the first load of a TUI: the rows the last run of clawtop on this
/// host remembered in the cache directory `dir` are taken where their session did not change
/// since (docs/cache.md), the rows are written back, and `memo` is filled for the reloads
/// that follow.
pub fn snapshot_remembered(
    source: &SourceHandle,
    agent: Option<&str>,
    dir: &std::path::Path,
    memo: &mut crate::usecase::list::RowMemo,
) -> SessionsSnapshot {
    let (cache, mut remembered) =
        crate::usecase::rows_cache::RowsCache::open_live(dir, source.as_ref());
    let (snap, loaded) = snapshot_of(source, agent, &mut remembered, |source| source.list(agent));
    cache.save(&remembered, source.as_ref());
    *memo = remembered.into_live(&loaded);
    snap
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
    snapshot_named_remembered(source, agent, name, None)
}

/// [`snapshot_named`] taking the row the last run remembered in clawtop's cache directory
/// `cache` when its session did not change since (docs/cache.md); nothing is written back
/// (the whole list's first load does that).
pub fn snapshot_named_remembered(
    source: &SourceHandle,
    agent: Option<&str>,
    name: &str,
    cache: Option<&std::path::Path>,
) -> Option<SessionsSnapshot> {
    let listing = source.listing_named(agent, name)?;
    let mut memo = match cache {
        // Keyed as the TUI keys (no host totals); the tips it takes are dropped with it. Only
        // the named session's rows are decoded: the rest of the host waits for its list.
        Some(dir) => {
            let keys: Vec<(&str, &str)> = listing
                .sessions
                .iter()
                .map(|s| (s.agent_id(), s.key()))
                .collect();
            crate::usecase::rows_cache::RowsCache::open_some(dir, source.as_ref(), &keys)
        }
        None => Default::default(),
    };
    Some(snapshot_of(source, agent, &mut memo, move |_| listing).0)
}

fn snapshot_of(
    source: &SourceHandle,
    agent: Option<&str>,
    memo: &mut crate::usecase::list::RowMemo,
    list: impl FnOnce(&dyn crate::source::SessionSource) -> crate::source::Listing,
) -> (SessionsSnapshot, crate::source::Listing) {
    let built = snapshot_built(source, agent, memo, |source, opts, memo, watch| {
        let loaded = list(source);
        let report = crate::usecase::list::from_listing_kept(source, opts, &loaded, memo, watch);
        Some((report, loaded))
    });
    built.unwrap_or_default()
}

/// A reload's snapshot of only the sessions that changed since the last one
/// ([`crate::usecase::list::changed_kept`]; [`SessionsSnapshot::patch`]). None when the
/// source cannot tell which: the whole host is listed again.
pub fn snapshot_changed(
    source: &SourceHandle,
    agent: Option<&str>,
    memo: &mut crate::usecase::list::RowMemo,
) -> Option<SessionsSnapshot> {
    let (mut snap, _) = snapshot_built(source, agent, memo, |source, opts, memo, watch| {
        crate::usecase::list::changed_kept(source, opts, memo, watch)
    })?;
    snap.patch = true;
    Some(snap)
}

/// The snapshot of the rows `build` makes (with the watcher told of each session's files),
/// the host's files stamped before it reads.
fn snapshot_built(
    source: &SourceHandle,
    agent: Option<&str>,
    memo: &mut crate::usecase::list::RowMemo,
    build: impl FnOnce(
        &dyn crate::source::SessionSource,
        &crate::usecase::list::Options<'_>,
        &mut crate::usecase::list::RowMemo,
        &mut dyn FnMut(&[std::path::PathBuf]),
    ) -> Option<(crate::usecase::list::ListReport, crate::source::Listing)>,
) -> Option<(SessionsSnapshot, crate::source::Listing)> {
    let mut watch = match source.changes(Watch::Sessions { agent }) {
        Changes::Poll(files) => files,
        Changes::Pushed => Vec::new(),
    };
    let mut stamps = crate::tui::runtime::watch::stamps(&watch);
    let mut watched: std::collections::HashSet<std::path::PathBuf> =
        watch.iter().cloned().collect();
    let mut last: Vec<std::path::PathBuf> = Vec::new();
    // The agent shown: a memo kept on disk keeps the other agents' rows.
    let opts = crate::usecase::list::Options {
        agent,
        ..Default::default()
    };
    let (report, loaded) = build(
        source.as_ref(),
        &opts,
        memo,
        &mut |files: &[std::path::PathBuf]| {
            // Most sessions share their files (a SQLite host's database): the files of the
            // session before are not looked up again (hashing a path walks its components),
            // and a path already watched is not copied.
            if last.as_slice() == files {
                return;
            }
            last = files.to_vec();
            for f in files {
                if !watched.contains(f) && watched.insert(f.clone()) {
                    stamps.push((f.clone(), crate::tui::runtime::watch::stamp(f)));
                    watch.push(f.clone());
                }
            }
        },
    )?;
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
    let rows = report
        .sessions
        .into_iter()
        .zip(report.refs)
        .map(|(row, r)| SessionRow::new(row, Some(SessionHandle::new(source.clone(), r))))
        .collect();
    let snap = SessionsSnapshot {
        rows,
        watch,
        stamps,
        label: source.label(),
        warnings,
        errors,
        running_gateway: loaded.running_gateway.as_ref().map(|g| g.port),
        patch: false,
    };
    Some((snap, loaded))
}

/// Turns the Sessions list's trend column shows.
pub use crate::usecase::list::TREND_TURNS;

/// A loader over a source.
pub fn host_loader(source: SourceHandle, agent: Option<String>) -> SessionLoader {
    remembering_loader(source, agent, None)
}

/// A reload of the whole list at least this often while patches would do
/// ([`snapshot_changed`]), so no row's clock-bound figures or lock stay older than this.
pub const WHOLE_RELOAD_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// [`host_loader`] whose first load takes the rows remembered in clawtop's cache directory
/// `cache` ([`snapshot_remembered`]; None: `--no-cache`).
pub fn remembering_loader(
    source: SourceHandle,
    agent: Option<String>,
    cache: Option<std::path::PathBuf>,
) -> SessionLoader {
    // A gateway stamps no transcript: nothing to remember.
    let cache = cache.filter(|_| source.kind() != crate::source::SourceKind::Gateway);
    let memo = std::sync::Mutex::new((
        crate::usecase::list::RowMemo::default(),
        cache,
        std::time::Instant::now(),
    ));
    Arc::new(move || {
        let mut held = memo.lock().unwrap_or_else(|e| e.into_inner());
        let (memo, cache, whole_at) = &mut *held;
        // Only the sessions that changed, while the last whole reload is recent: the rows
        // not named keep their clock-bound figures (the last hour's spend, the cache's
        // countdown) and their lock from it.
        let patch = (whole_at.elapsed() < WHOLE_RELOAD_EVERY)
            .then(|| snapshot_changed(&source, agent.as_deref(), memo))
            .flatten();
        let snap = match (cache.take(), patch) {
            (Some(dir), _) => snapshot_remembered(&source, agent.as_deref(), &dir, memo),
            (None, Some(patch)) => patch,
            (None, None) => {
                *whole_at = std::time::Instant::now();
                snapshot_kept(&source, agent.as_deref(), memo)
            }
        };
        // Nothing listed and the source said why: a failed read, not an empty host (the
        // screen keeps the rows it had and says the reload failed).
        if snap.rows.is_empty() && !snap.errors.is_empty() {
            return Err(crate::tui::model::view::ReloadError::Unreadable(
                snap.errors,
            ));
        }
        Ok(snap)
    })
}

/// The launch session's own loader ([`crate::tui::runtime::TuiLaunch::named_loader`]);
/// `cache`: clawtop's cache directory ([`snapshot_named_remembered`]; None: `--no-cache`).
pub fn named_loader(
    source: SourceHandle,
    agent: String,
    key: String,
    cache: Option<std::path::PathBuf>,
) -> NamedLoader {
    Arc::new(move || snapshot_named_remembered(&source, Some(&agent), &key, cache.as_deref()))
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
            session_only: false,
        }
    }
}
