//! Everything the screens draw from. Owned by the app loop, changed only by `update`, read by
//! `draw` (which takes `&AppState`).

use crate::transcript::EntryKind;
use crate::tui::model::keymap::Mode;
use crate::tui::model::rows::{EntryRow, LoadedTranscript};
use crate::tui::model::view::{SessionRow, Status};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Sessions,
    Session,
    Summaries,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    /// What to act on first: over, compact-due, flush-due, then headroom to the next line.
    #[default]
    Urgency,
    /// Most recently updated first.
    Updated,
    /// Agent, then session key.
    Name,
    /// Fewest turns to the compaction line first (the forecast); unknown last.
    Eta,
}

impl SortKey {
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Urgency => SortKey::Updated,
            SortKey::Updated => SortKey::Name,
            SortKey::Name => SortKey::Eta,
            SortKey::Eta => SortKey::Urgency,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Urgency => "act first",
            SortKey::Updated => "updated",
            SortKey::Name => "agent/key",
            SortKey::Eta => "turns to compaction",
        }
    }
}

/// The Sessions screen.
#[derive(Debug, Clone, Default)]
pub struct SessionsState {
    /// Sorted by `sort`; the filter is applied on top (see [`SessionsState::visible`]).
    pub rows: Vec<SessionRow>,
    pub label: String,
    pub sort: SortKey,
    pub filter: String,
    /// Typing into the filter.
    pub filtering: bool,
    /// Index into `visible()`.
    pub selected: usize,
    pub offset: usize,
    pub loaded: bool,
    pub watch: Vec<PathBuf>,
    /// When the rows were last read (ms since epoch), shown in the title.
    pub refreshed_ms: Option<i64>,
    /// The last reload failed (when): the rows shown are from `refreshed_ms`.
    pub reload_failed_ms: Option<i64>,
    /// A read of the sessions is under way ([`SessionsState::request_load`]).
    pub load_in_flight: bool,
    /// Something changed while it was: one more read when it ends.
    pub reload_wanted: bool,
    /// The source pushes changes: `Some(true)` while its channel is up ("live"),
    /// `Some(false)` while it reconnects; `None` for sources that are only polled.
    pub live: Option<bool>,
    /// The port of a gateway likely running on this file-backed host (the title says so:
    /// commits are refused while a run holds a transcript lock).
    pub running_gateway: Option<u16>,
    /// Launched on one session (`clawtop KEY`): the list is read once that session's first
    /// screen is up, not beside it ([`SessionsState::waits_for_first_screen`]).
    pub deferred: Deferred,
}

/// Where a list deferred behind the launch session's first screen stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Deferred {
    /// Not deferred (or started).
    #[default]
    No,
    /// The launch session's row is being read alone.
    Named,
    /// That read answered.
    Answered,
}

impl SessionsState {
    /// Asks for the sessions to be read. Reads never overlap: on a host whose list takes
    /// longer than the poll interval (thousands of sessions, a busy writer), a change seen
    /// during a read asks for one more after it, however many changes come, so reads
    /// neither pile up nor land out of order (an older read overwriting a newer one).
    pub fn request_load(&mut self, fx: &mut Vec<crate::tui::model::effect::Effect>) {
        // Asked for (`r`, a pushed change) while it waited behind the first screen: read
        // once, not again when the wait ends.
        self.deferred = Deferred::No;
        if self.load_in_flight {
            self.reload_wanted = true;
        } else {
            self.load_in_flight = true;
            fx.push(crate::tui::model::effect::Effect::LoadSessions);
        }
    }

    /// Whether a deferred list still waits: for the launch session's row, or for its first
    /// screen (the Session screen open, its transcript not read yet).
    pub fn waits_for_first_screen(&self, session: Option<&SessionView>) -> bool {
        match self.deferred {
            Deferred::No => false,
            Deferred::Named => {
                session.is_none()
                    || session.is_some_and(|v| v.loaded.is_none() && v.error.is_none())
            }
            Deferred::Answered => session.is_some_and(|v| v.loaded.is_none() && v.error.is_none()),
        }
    }

    /// A read ended (rows or an error): the one asked for meanwhile, if any, starts.
    pub fn load_ended(&mut self, fx: &mut Vec<crate::tui::model::effect::Effect>) {
        self.load_in_flight = false;
        if std::mem::take(&mut self.reload_wanted) {
            self.request_load(fx);
        }
    }
    /// Indices into `rows` that pass the filter ([`row_matches`]).
    pub fn visible(&self) -> Vec<usize> {
        let needle = self.filter.to_lowercase();
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| row_matches(r, &needle))
            .map(|(i, _)| i)
            .collect()
    }

    pub fn selected_row(&self) -> Option<&SessionRow> {
        self.visible().get(self.selected).map(|&i| &self.rows[i])
    }

    /// Sorts `rows` by [`SortKey::compare`], stably: each row's rank is worked out once and
    /// only the rows out of their place are moved, each once, straight into it (a row is
    /// large, a reload sorts thousands of them, and after one turn nearly all are in place).
    pub fn sort_rows(&mut self) {
        let sort = self.sort;
        let ranked: Vec<_> = self.rows.iter().map(|r| sort.rank(r)).collect();
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        order.sort_by(|&i, &j| {
            let (a, b) = (&self.rows[i], &self.rows[j]);
            ranked[i]
                .cmp(&ranked[j])
                .then_with(|| (a.agent(), a.key()).cmp(&(b.agent(), b.key())))
        });
        // The permutation applied a cycle at a time: the row at `k` is swapped with the one
        // that belongs there (`order[k]`), and the walk goes on from where that one was.
        let mut placed = vec![false; order.len()];
        for start in 0..order.len() {
            let mut k = start;
            while !placed[k] {
                placed[k] = true;
                let from = order[k];
                if from == start {
                    break;
                }
                self.rows.swap(k, from);
                k = from;
            }
        }
    }
}

/// Whether a row passes the Sessions filter `needle` (already lowercase): a case-insensitive
/// substring of its agent, key, session id, model or status. The fleet's Sessions screen
/// filters with it too.
pub fn row_matches(r: &crate::usecase::list::SessionRow, needle: &str) -> bool {
    needle.is_empty()
        || [
            r.agent(),
            r.key(),
            r.id(),
            r.provider_model().as_deref().unwrap_or(""),
            r.status.name(),
        ]
        .iter()
        .any(|f| f.to_lowercase().contains(needle))
}

impl SortKey {
    /// The order of two rows under this key (ties by agent, then key). The fleet's Sessions
    /// screen sorts with it too.
    pub fn compare(
        self,
        a: &crate::usecase::list::SessionRow,
        b: &crate::usecase::list::SessionRow,
    ) -> std::cmp::Ordering {
        self.rank(a)
            .cmp(&self.rank(b))
            .then_with(|| (a.agent(), a.key()).cmp(&(b.agent(), b.key())))
    }

    /// What [`Self::compare`] orders by before the agent and key, computed once per row when
    /// the Sessions list sorts ([`SessionsState::sort_rows`]): a reload sorts thousands of
    /// rows (issue 31, live), and working the urgency out again at every comparison, with
    /// owned copies of the names, was most of the UI thread's work.
    fn rank(self, r: &crate::usecase::list::SessionRow) -> (u8, i64, std::cmp::Reverse<i64>, u64) {
        let none = (0, 0, std::cmp::Reverse(0), 0);
        match self {
            SortKey::Urgency => {
                let (rank, room) = r.urgency();
                (rank, room, none.2, 0)
            }
            SortKey::Updated => (0, 0, std::cmp::Reverse(r.updated_at.unwrap_or(i64::MIN)), 0),
            SortKey::Name => none,
            SortKey::Eta => {
                let eta = r
                    .forecast
                    .as_ref()
                    .and_then(|f| f.turns_to_compaction)
                    .unwrap_or(u64::MAX);
                (0, 0, none.2, eta)
            }
        }
    }
}

/// The expanded entry (popup over the list).
#[derive(Debug, Clone, Default)]
pub struct Detail {
    pub idx: u32,
    pub title: String,
    pub body: String,
    /// `body` wrapped to the popup width (re-wrapped on resize), so drawing slices it.
    pub wrapped: Vec<String>,
    pub lines: usize,
    pub scroll: u16,
    pub loading: bool,
}

pub use crate::tui::model::rows::Find;

/// The prompt open on the Session screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Search,
    Jump,
    /// Summaries: the file to export the selected summary to.
    Export,
    /// Summaries: the export's file exists; `y` replaces it.
    Overwrite,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

/// The Session screen.
#[derive(Debug, Clone, Default)]
pub struct SessionView {
    /// The search / jump prompt, while it is open (keys type into it).
    pub prompt: Option<Prompt>,
    /// The export waiting for an answer to "overwrite?" (its path).
    pub pending_export: Option<PathBuf>,
    /// What `n`/`N` find.
    pub find: Find,
    pub row: SessionRow,
    /// The session shown; its transcript is opened through its source.
    pub session: Option<crate::source::SessionHandle>,
    /// Where the transcript is, for the title.
    pub label: String,
    /// Files whose change means "reopen the transcript" (empty when the source pushes).
    pub watch: Vec<PathBuf>,
    /// Bumped on every (re)open; results of older generations are dropped.
    pub generation: u64,
    /// When the transcript was last read (ms since epoch), shown in the title.
    pub read_ms: Option<i64>,
    pub loaded: Option<Box<LoadedTranscript>>,
    pub loading: bool,
    pub error: Option<String>,
    /// First entry drawn at the top of the list.
    pub offset: u32,
    pub selected: u32,
    /// Decoded rows of the visible window (plus a margin); bounded, see `update::WINDOW_MARGIN`.
    pub cache: BTreeMap<u32, EntryRow>,
    /// Indices asked for and not yet delivered.
    pub requested: BTreeSet<u32>,
    /// Rows decoded since the view opened (tests assert it stays bounded).
    pub decoded_total: u64,
    pub detail: Option<Detail>,
    /// The History pane (`H`) is shown over the transcript list.
    pub history_open: bool,
    /// The Cost pane (`$`) is shown over the transcript list.
    pub cost_open: bool,
}

impl SessionView {
    /// The last component of the transcript's location (its file name), sanitized.
    pub fn label_file_name(&self) -> String {
        std::path::Path::new(&self.label)
            .file_name()
            .map(|f| crate::sanitize::one_line(&f.to_string_lossy()))
            .unwrap_or_default()
    }

    pub fn len(&self) -> u32 {
        self.loaded
            .as_ref()
            .map(|l| l.transcript.len() as u32)
            .unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lines entry `idx` takes in the list: one, a three-line card for compactions, plus a
    /// marker line above it for the next cut and for a kept boundary. Known from the index
    /// alone, so scrolling never decodes to lay out.
    pub fn entry_height(&self, idx: u32) -> usize {
        let Some(l) = &self.loaded else { return 1 };
        let Some(meta) = l.transcript.entries.get(idx as usize) else {
            return 1;
        };
        let mut h = if meta.kind == EntryKind::Compaction {
            3
        } else {
            1
        };
        if l.next_cut == Some(idx) {
            h += 1;
        }
        if l.kept_from.contains_key(&idx) {
            h += 1;
        }
        h
    }

    /// Entries from `offset` that fit in `height` lines (the last may be cut off).
    pub fn visible_range(&self, height: usize) -> std::ops::Range<u32> {
        let len = self.len();
        let mut used = 0usize;
        let mut end = self.offset;
        while end < len && used < height {
            used += self.entry_height(end);
            end += 1;
        }
        self.offset.min(len)..end
    }
}

/// Summaries screen: which compaction is selected and how far its text is scrolled.
#[derive(Debug, Clone, Copy, Default)]
pub struct SummariesState {
    pub selected: usize,
    pub scroll: u16,
    /// Show the diff against the previous summary instead of the summary.
    pub diff: bool,
    /// The picked lost identifier of the selected compaction (index into its audit's
    /// `lost`); None until `]` / `[` picks one, and again when the compaction changes.
    pub lost: Option<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct StatusLine {
    pub error: Option<String>,
    pub info: Option<String>,
}

#[derive(Debug, Clone)]
pub struct AppState {
    pub stack: Vec<Screen>,
    pub sessions: SessionsState,
    pub session: Option<SessionView>,
    pub summaries: SummariesState,
    /// Help overlay open, with its scroll offset.
    pub help: Option<u16>,
    /// The Compact or Flush dialog (an overlay over the current screen).
    pub dialog: Option<crate::tui::model::dialog::Dialog>,
    pub status: StatusLine,
    /// The data is the built-in demo (bannered).
    pub demo: bool,
    /// `NO_COLOR`: attributes and symbols only.
    pub no_color: bool,
    /// Bare-file mode: no store, opened straight on the Session screen.
    pub bare_file: bool,
    /// "Now" for ages (ms since epoch); set by `Tick`, fixed in tests.
    pub now_ms: i64,
    /// Terminal size (columns, rows); layouts of update and draw both derive from it.
    pub size: (u16, u16),
    pub should_quit: bool,
    /// Generation counter for transcript opens.
    pub next_generation: u64,
    /// (agent, key) to open when the sessions are first listed (`clawtop KEY`).
    pub open_on_load: Option<(String, String)>,
    /// `--session-only`: leaving the Session screen ends the TUI (the fleet's hand-over).
    pub session_only: bool,
    /// `c` on the Sessions screen: open the Compact dialog once the transcript is loaded.
    pub compact_on_load: bool,
}

impl AppState {
    pub fn new(now_ms: i64, size: (u16, u16)) -> AppState {
        AppState {
            stack: vec![Screen::Sessions],
            sessions: SessionsState::default(),
            session: None,
            summaries: SummariesState::default(),
            help: None,
            dialog: None,
            status: StatusLine::default(),
            demo: false,
            no_color: false,
            bare_file: false,
            now_ms,
            size,
            should_quit: false,
            open_on_load: None,
            session_only: false,
            compact_on_load: false,
            next_generation: 1,
        }
    }

    pub fn screen(&self) -> Screen {
        self.stack.last().copied().unwrap_or(Screen::Sessions)
    }

    /// Keymap mode: overlays first, then the top screen.
    pub fn mode(&self) -> Mode {
        if self.help.is_some() {
            return Mode::Help;
        }
        if let Some(d) = &self.dialog {
            use crate::tui::model::dialog::{Focus, Phase};
            return if d.confirm.is_some() {
                Mode::Confirm
            } else if d.ask_discard {
                Mode::AskDiscard
            } else {
                match d.phase {
                    Phase::Generating | Phase::Committing => Mode::Generating,
                    Phase::Done => Mode::DialogResult,
                    _ if d.focus == Focus::Buttons => Mode::DialogButtons,
                    Phase::Edit | Phase::Preparing if d.focus == Focus::Keep => Mode::DialogKeep,
                    Phase::Edit | Phase::Preparing if d.focus == Focus::Model => Mode::DialogModel,
                    Phase::Preview => Mode::DialogPreview,
                    _ => Mode::DialogEdit,
                }
            };
        }
        match self.screen() {
            Screen::Sessions if self.sessions.filtering => Mode::Filter,
            Screen::Sessions => Mode::Sessions,
            Screen::Session if self.session.as_ref().is_some_and(|s| s.prompt.is_some()) => {
                Mode::Prompt
            }
            Screen::Session if self.session.as_ref().is_some_and(|s| s.detail.is_some()) => {
                Mode::Detail
            }
            Screen::Session => Mode::Session,
            Screen::Summaries if self.session.as_ref().is_some_and(|s| s.prompt.is_some()) => {
                Mode::Prompt
            }
            Screen::Summaries => Mode::Summaries,
        }
    }

    /// Count of rows per status, for the title.
    pub fn status_counts(&self) -> Vec<(Status, usize)> {
        let order = [
            Status::Over,
            Status::CompactDue,
            Status::FlushDue,
            Status::Flushed,
            Status::Ok,
            Status::Unknown,
        ];
        order
            .iter()
            .map(|&s| {
                (
                    s,
                    self.sessions.rows.iter().filter(|r| r.status == s).count(),
                )
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}

/// Screen geometry shared by `update` (scrolling) and `draw` (drawing), so both agree.
pub mod layout {
    /// Session: title + 7 header lines + gauge above; list borders; status line.
    pub const SESSION_HEADER: u16 = 9;

    // The Sessions screen's rows: `crate::tui::layout::sessions_rows` (its legend wraps).

    pub fn session_list(size: (u16, u16)) -> usize {
        size.1.saturating_sub(SESSION_HEADER + 2 + 1).max(1) as usize
    }

    /// Inner height of the detail popup.
    pub fn detail_body(size: (u16, u16)) -> usize {
        // status line, title line, borders
        size.1.saturating_sub(1 + 1 + 2).max(1) as usize
    }

    /// Lines of the compaction list on the Summaries screen (inside its border).
    pub fn summaries_list(count: usize) -> u16 {
        count.clamp(1, 5) as u16
    }

    pub fn summaries_body(size: (u16, u16), count: usize) -> usize {
        size.1
            .saturating_sub(1 + summaries_list(count) + 2 + 2 + 1)
            .max(1) as usize
    }
}

/// Takes the next generation id from `counter` (`AppState::next_generation`): each load and
/// each dialog gets its own, so a result that arrives for an older one is recognised and
/// dropped. A function of the counter alone, so it can be called while a screen of the
/// state is borrowed.
pub fn take_generation(counter: &mut u64) -> u64 {
    let id = *counter;
    *counter += 1;
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thresholds::Status;

    /// Rows with ties on every rank (same status and room, same update time, same
    /// forecast) and on agent and key, so the order of equal rows shows.
    fn rows() -> Vec<SessionRow> {
        let statuses = [Status::Ok, Status::Over, Status::FlushDue, Status::Unknown];
        (0..40u64)
            .map(|i| {
                let mut r = crate::usecase::list::SessionRow {
                    agent_id: Some(["main", "ops"][(i % 2) as usize].into()),
                    session_key: Some(format!("agent:k{}", i % 7)),
                    session_id: Some(format!("id-{i}")),
                    window: 200_000,
                    used: (i % 5 != 0).then_some(10_000 * (i % 3)),
                    compact_at: 150_000,
                    flush_at: Some(140_000),
                    status: statuses[(i % 4) as usize],
                    updated_at: (i % 6 != 0).then_some((i % 4) as i64 * 1000),
                    ..Default::default()
                };
                r.forecast = Some(crate::history::series::Forecast {
                    turns_to_compaction: (i % 3 != 0).then_some(i % 4),
                    ..Default::default()
                });
                SessionRow::new(r, None)
            })
            .collect()
    }

    /// The list's sort (ranks worked out once, rows moved once) puts the rows where a stable
    /// sort by [`SortKey::compare`] does, under every key.
    #[test]
    fn sort_rows_orders_as_compare_does() {
        for sort in [
            SortKey::Urgency,
            SortKey::Updated,
            SortKey::Name,
            SortKey::Eta,
        ] {
            let mut want = rows();
            want.sort_by(|a, b| sort.compare(a, b));
            let mut s = SessionsState {
                rows: rows(),
                sort,
                ..Default::default()
            };
            s.sort_rows();
            let ids =
                |rows: &[SessionRow]| rows.iter().map(|r| r.id().to_string()).collect::<Vec<_>>();
            assert_eq!(ids(&s.rows), ids(&want), "{sort:?}");
            assert_ne!(ids(&s.rows), ids(&rows()), "{sort:?}: the rows moved");
        }
    }
}
