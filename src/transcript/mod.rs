//! pi / OpenClaw JSONL transcripts, read lazily.
//!
//! A transcript can be hundreds of megabytes. Opening one streams the file once, indexes the
//! lines with memchr and decodes only each line's envelope (`type`, `id`, `parentId`,
//! `message.role`); full entries are read back with positional reads and decoded on demand
//! with [`Transcript::entry_json`]. A transcript can also be built from a sequence of
//! entries ([`Transcript::from_entries`]: rows of a database), held in memory. A caller that
//! sums every entry's figures (the compaction plan) opens with
//! [`Transcript::open_with_figures`], which computes them in the same parse.
//!
//! Reading follows pi (docs/formats.md §2): lines that are not JSON are
//! skipped (and reported as [`Warning`]s naming the line), `session` lines are the header,
//! v1 files get a linear chain in file order (pi would assign random ids and rewrite the file;
//! clawtop never writes on open), the leaf is the last entry in file order.

pub mod archive;
pub mod content;
mod facts;
mod ids;
pub(crate) mod parse;
pub mod tail;
mod turn_heads;
pub(crate) mod usage_text;

use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

pub use facts::{Captured, LEAD_MAX};
pub use ids::Id;
use ids::{IdSpan, Ids};
pub use parse::LineHead;

/// What kind of entry a line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    Message(Role),
    Compaction,
    BranchSummary,
    CustomMessage,
    Custom,
    ModelChange,
    ThinkingLevelChange,
    Label,
    SessionInfo,
    Unknown,
}

/// `message.role` of a `message` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    BashExecution,
    /// `custom`, and `hookMessage` from files older than v3.
    Custom,
    BranchSummary,
    CompactionSummary,
    Other,
}

impl EntryKind {
    pub fn name(&self) -> &'static str {
        match self {
            EntryKind::Message(Role::User) => "user",
            EntryKind::Message(Role::Assistant) => "assistant",
            EntryKind::Message(Role::ToolResult) => "toolResult",
            EntryKind::Message(Role::BashExecution) => "bashExecution",
            EntryKind::Message(Role::Custom) => "custom",
            EntryKind::Message(Role::BranchSummary) => "branchSummary",
            EntryKind::Message(Role::CompactionSummary) => "compactionSummary",
            EntryKind::Message(Role::Other) => "message",
            EntryKind::Compaction => "compaction",
            EntryKind::BranchSummary => "branch_summary",
            EntryKind::CustomMessage => "custom_message",
            EntryKind::Custom => "custom",
            EntryKind::ModelChange => "model_change",
            EntryKind::ThinkingLevelChange => "thinking_level_change",
            EntryKind::Label => "label",
            EntryKind::SessionInfo => "session_info",
            EntryKind::Unknown => "unknown",
        }
    }

    pub fn is_message(&self) -> bool {
        matches!(self, EntryKind::Message(_))
    }
}

/// One non-header entry: where it is and the envelope fields. Kept small (48 bytes, its id
/// in the transcript's arena): a million-entry transcript is a million of these.
#[derive(Debug, Clone)]
pub struct EntryMeta {
    /// 1-based line number in the file.
    pub line: u32,
    pub offset: u64,
    pub len: u32,
    pub kind: EntryKind,
    /// Index of the parent entry plus one, 0 for none ([`Self::parent`]): four bytes where
    /// an `Option<u32>` takes eight, and an entry takes 40 bytes instead of 48 (a
    /// million-entry session, 8 MB).
    parent_plus_one: u32,
    /// `id` as written (v2+; v1 files have none: pi would invent random ones), a span of
    /// [`Transcript::ids`] ([`Transcript::written_id`]).
    id: IdSpan,
    /// What few entries have, in one box.
    rare: Option<Box<Rare>>,
}

#[derive(Debug, Clone, Default)]
struct Rare {
    /// The raw `type` string when the kind is [`EntryKind::Unknown`].
    raw_type: Option<Box<str>>,
    /// `parentId` as written, when it is not the id of the entry [`EntryMeta::parent`] holds
    /// (it did not resolve, or it names an entry that is not among the last few before it).
    parent_id: Option<Box<str>>,
    /// Set for a line over [`parse::LINE_MAX`]: indexed from its first bytes, never decoded.
    too_large: Option<TooLarge>,
}

// What keeps a million-entry session within its memory budget (issue 33 item 8).
const _: () = assert!(std::mem::size_of::<EntryMeta>() <= 40);

impl EntryMeta {
    /// The raw `type` string when the kind is [`EntryKind::Unknown`].
    pub fn raw_type(&self) -> Option<&str> {
        self.rare.as_ref()?.raw_type.as_deref()
    }

    /// Set for a line over [`parse::LINE_MAX`]: indexed from its first bytes, never decoded.
    pub fn too_large(&self) -> Option<&TooLarge> {
        self.rare.as_ref()?.too_large.as_ref()
    }

    pub fn has_id(&self) -> bool {
        self.id.is_some()
    }

    /// Index of the parent entry, resolved through ids (v2+) or file order (v1).
    pub fn parent(&self) -> Option<u32> {
        self.parent_plus_one.checked_sub(1)
    }

    fn set_parent(&mut self, parent: Option<u32>) {
        // An index is below u32::MAX: a transcript holds fewer entries than that.
        self.parent_plus_one = parent.map_or(0, |p| p.saturating_add(1));
    }
}

/// An entry too large to decode ([`parse::LINE_MAX`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    /// Its length in bytes.
    pub len: u64,
    /// Token estimate from a streaming count of its string characters (/ 4).
    pub est_tokens: u64,
}

/// A call's `provider` and `model`, as written.
pub type CallModel = (Option<Box<str>>, Option<Box<str>>);

/// An assistant call as the index scan read it, for `crate::cost` to price without reading
/// the line again.
#[derive(Debug, Clone)]
pub struct CallCapture {
    pub entry: u32,
    /// `usage` as written; None: the message has none (no call).
    pub usage: Option<Box<str>>,
    /// Index into [`Transcript::call_models`].
    pub model: u32,
    /// The message's numeric `timestamp`, else the entry's (ms since the epoch).
    pub at_ms: Option<i64>,
}

/// Something odd in the file that did not stop reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// 1-based line, 0 for the file as a whole.
    pub line: u32,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("cannot read transcript {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: line {line}: {message}")]
    Entry {
        path: PathBuf,
        line: u32,
        message: String,
    },
}

/// The header line (`{"type":"session",...}`).
#[derive(Debug, Clone, Default)]
pub struct Header {
    pub line: u32,
    pub id: Option<String>,
    pub version: u32,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
}

/// Where entry bytes are read from on demand.
enum Backing {
    /// Positional reads keep memory flat for huge files and cannot fault the way a memory
    /// map does if another process truncates the file.
    File(std::fs::File),
    Mem(Vec<u8>),
    /// One stored row per entry (a SQLite host's `transcript_events`), fetched and decoded
    /// when asked for; [`EntryMeta::offset`] is the row's key.
    Rows(Box<dyn RowFetch>),
}

/// Why a stored entry could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The row is gone or the store changed since the transcript was indexed: reload.
    #[error("{0}")]
    Stale(String),
    /// The store could not be read (its own error: this layer does not know the store).
    #[error(transparent)]
    Store(Box<dyn std::error::Error + Send + Sync>),
}

/// Fetches the full JSON of the entry stored under `key` (for a SQLite transcript, its `seq`).
pub trait RowFetch: Send + Sync {
    fn fetch(&self, key: u64) -> Result<Vec<u8>, FetchError>;

    /// Each of `keys` (ascending) that can be read, with its bytes, one at a time; false when
    /// what was handed over must not be used (the store changed while it was read). A store
    /// that can read many rows in one pass overrides this.
    fn fetch_each(&self, keys: &[u64], each: &mut dyn FnMut(u64, &[u8])) -> bool {
        for &k in keys {
            if let Ok(b) = self.fetch(k) {
                each(k, &b);
            }
        }
        true
    }
}

/// Entries larger than this are never decoded, whatever holds them (a file's line, a database
/// row): they are indexed from their first bytes and estimated from their size.
pub use parse::LINE_MAX as ENTRY_MAX;

/// Indexes a transcript stored as rows, fed one row at a time in append order, so nothing
/// but the index is kept: a row is handed over as its JSON or as a stored projection carrying
/// at least its envelope (`type`, `id`, `parentId`, `message.role`; the header's `version`),
/// as the first bytes of a row over [`ENTRY_MAX`], or as a row that could not be read.
/// Warnings name rows by their 1-based position among every row handed over. Full entries
/// are fetched by key on demand ([`RowFetch`]).
pub struct RowIndexer {
    sc: parse::Scanner,
}

impl Default for RowIndexer {
    fn default() -> Self {
        RowIndexer {
            sc: parse::Scanner::for_rows(),
        }
    }
}

impl RowIndexer {
    /// An indexer that also captures what the history's walk of the branch reads
    /// ([`Transcript::open_for_history`]): from each row handed over whole, and from the rows
    /// handed to [`Self::capture_row`].
    pub fn capturing() -> RowIndexer {
        RowIndexer {
            sc: parse::Scanner::for_rows().capturing(),
        }
    }

    /// Whether this indexer captures ([`Self::capturing`]) and has room for more: a reader
    /// that handed over a row's projection decodes the row for [`Self::capture_row`] only
    /// then.
    pub fn wants_rows(&self) -> bool {
        self.sc.wants_rows()
    }

    /// A row whose JSON, or projection, is `head`.
    pub fn head(&mut self, key: u64, head: &[u8]) {
        self.sc.line(key, head, false);
    }

    /// A row handed over whole (its JSON, not a projection): [`Self::head`], and when
    /// capturing, what the history's walk reads of it is captured too.
    pub fn whole(&mut self, key: u64, row: &[u8]) {
        self.sc.whole = true;
        self.sc.line(key, row, false);
        self.sc.whole = false;
    }

    /// The whole JSON of the row just handed over as its projection: what the history's
    /// walk reads of it is captured from here (the index stays the projection's).
    pub fn capture_row(&mut self, row: &[u8]) {
        self.sc.capture_row(row);
    }

    /// Rows indexed so far as entries, and the kind of the newest: a reader deciding what to
    /// keep of the row it just handed over compares the count before and after.
    pub fn count_and_last_kind(&self) -> (usize, Option<EntryKind>) {
        self.sc.count_and_last_kind()
    }

    /// While set, each row handed to [`Self::head`] that parses cleanly leaves its envelope
    /// ([`envelope`], made from the parse already done) for [`Self::take_envelope`].
    pub fn keep_envelopes(&mut self, on: bool) {
        self.sc.envelopes = on;
        if !on {
            self.sc.last_envelope = None;
        }
    }

    /// The envelope of the last row handed to [`Self::head`], when it parsed cleanly.
    pub fn take_envelope(&mut self) -> Option<Vec<u8>> {
        self.sc.last_envelope.take()
    }

    /// A row of `len` bytes, over [`ENTRY_MAX`]: `prefix` is its start (its envelope is read
    /// from there), `chars` counts the characters of its strings ([`StringChars`]).
    pub fn too_large(&mut self, key: u64, prefix: &[u8], len: u64, string_chars: u64) {
        self.sc.oversize_line(key, prefix, len, string_chars, false);
    }

    /// A row that could not be read, said in `message`.
    pub fn skipped(&mut self, message: String) {
        self.sc.skipped(message);
    }

    /// The transcript; `total_bytes` is the decoded size of every row.
    pub fn finish(
        self,
        label: impl Into<PathBuf>,
        fetch: Box<dyn RowFetch>,
        total_bytes: u64,
    ) -> Transcript {
        let scan = self.sc.finish(total_bytes);
        Transcript::finish(label.into(), Backing::Rows(fetch), scan, total_bytes)
    }
}

/// A streaming count of the characters inside JSON strings: the size estimate of an entry too
/// large to decode, fed its bytes in pieces.
#[derive(Default)]
pub struct StringChars(parse::StringChars);

impl StringChars {
    pub fn feed(&mut self, bytes: &[u8]) {
        self.0.feed(bytes);
    }

    pub fn chars(&self) -> u64 {
        self.0.chars
    }
}

/// How much of an over-long entry is kept to read its envelope.
pub const PREFIX_MAX: usize = parse::PREFIX_MAX;

/// The envelope of one entry's JSON as a small JSON object that indexes exactly as the entry
/// does (what [`RowIndexer::head`] reads), or None when the entry does not read cleanly as
/// JSON (then only the entry itself indexes the same, warnings included).
pub fn envelope(raw: &[u8]) -> Option<Vec<u8>> {
    parse::envelope(raw)
}

/// The most [`Transcript::for_each_raw`] reads from a file at once (one entry larger than
/// this is read alone).
const READ_CHUNK: u64 = 1 << 20;
/// Bytes of entries nobody asked for that a chunk reads through rather than starting anew:
/// about what one more read costs in copying. Larger, and a pass over every other entry
/// (the plan's assistant replies) would copy the whole file.
const READ_GAP: u64 = 8 << 10;

/// An opened transcript. Never modifies the file.
pub struct Transcript {
    path: PathBuf,
    backing: Backing,
    /// File length when opened (commit checks compare against it).
    pub file_len: u64,
    pub header: Option<Header>,
    /// Format version: the header's `version`, 1 when absent.
    pub version: u32,
    pub entries: Vec<EntryMeta>,
    pub warnings: Vec<Warning>,
    /// Every entry's id, one after the other ([`EntryMeta::id`] spans): one allocation
    /// instead of one per id, UUIDs packed ([`ids`]).
    ids: Ids,
    /// Indices of entries with an id, sorted by (id, index): a lookup is a binary search
    /// that takes the last of equal ids (the later entry wins, as in pi). Four bytes an entry
    /// instead of a second copy of every id in a hash map: 500,000 entries stay small.
    by_id: Vec<u32>,
    /// Token estimates per entry, one table per message view, filled as they are asked for:
    /// a plan, its outlook and the diagnosis ask for the same entries many times, and
    /// decoding is the cost. Four bytes an entry; `u32::MAX` = not yet estimated.
    estimates: [std::sync::OnceLock<Box<[std::sync::atomic::AtomicU32]>>; 2],
    /// Each entry's [`MessageFigures`], for the surfaces that need more than the estimate (the
    /// diagnosis: the overhead and the context breakdown read the same entries). Allocated
    /// only when first asked for.
    figures: std::sync::OnceLock<Box<[std::sync::OnceLock<MessageFigures>]>>,
    /// The heads ([`tail::slim`]) of the last entries asked for, at most [`SLIM_MEMO_MAX`]:
    /// the forecast's series, the context estimate and the model of the context all read the
    /// newest replies' heads, and a reply's content is most of its bytes.
    slims: std::sync::Mutex<Vec<(u32, Option<std::sync::Arc<serde_json::Value>>)>>,
    /// The assistant calls the scan captured (entry order); an assistant entry missing here
    /// is read back when cost asks.
    pub calls: Vec<CallCapture>,
    /// (provider, model) of [`CallCapture::model`].
    pub call_models: Vec<CallModel>,
    /// What the history's walk of the branch reads of each message and compaction, captured
    /// by the scan when asked for ([`Self::open_for_history`]).
    facts: Option<facts::BranchFacts>,
    /// The heads of the messages of the last turns, kept by the scan ([`turn_heads`]).
    turns: turn_heads::TurnHeads,
    /// Unit tests turn the figures table off on a short transcript, to compare both ways.
    #[cfg(test)]
    no_figures_table: std::sync::atomic::AtomicBool,
}

/// Ends the entry that is `bytes[start..]` as one JSONL line: false when it is not UTF-8 (a
/// transcript of rows is then read otherwise); a text with a raw line break is re-encoded
/// compactly first, and one that is not JSON is kept on one line, so the scan reports it as
/// that entry.
pub fn end_entry_line(bytes: &mut Vec<u8>, start: usize) -> bool {
    let Ok(e) = simdutf8::basic::from_utf8(&bytes[start..]) else {
        return false;
    };
    if memchr::memchr2(b'\n', b'\r', e.as_bytes()).is_some() {
        let one_line = match serde_json::from_str::<Value>(e) {
            Ok(v) => v.to_string(),
            Err(_) => e.replace(['\n', '\r'], " "),
        };
        bytes.truncate(start);
        bytes.extend_from_slice(one_line.as_bytes());
    }
    bytes.push(b'\n');
    true
}

/// Entry heads a transcript keeps ([`Transcript::slim`]): the first ones asked for, which are
/// the newest entries (every reader of heads reads from the end).
pub const SLIM_MEMO_MAX: usize = 64;
/// Lines longer than this are not kept (a head holds a user message's content): the kept
/// heads stay within a few MiB whatever the transcript.
pub const SLIM_MEMO_LINE_MAX: u32 = 64 << 10;

/// One entry line parsed once for both its envelope and its [`MessageFigures`] (the figures
/// only for an entry that yields a message; None where they are left to be computed later).
/// None when the line needs the scan's own parse (anything but a JSON object that parses
/// cleanly whole, with no repeated envelope field): then nothing of this parse is used.
/// Given only for a line that was parsed whole with every string read as `str`, so valid
/// UTF-8. `hook_is_custom`: the file predates v3. The rules of the figures live in
/// `crate::tokens`, which hands this over ([`Transcript::open_with_figures`]).
pub type FusedParse = for<'a> fn(&'a [u8], bool) -> Option<(LineHead<'a>, Option<MessageFigures>)>;

/// Entries past which a transcript keeps no figures table (24 bytes an entry: a
/// million-entry session would add half its index again, over the memory it is held to).
pub const FIGURES_MEMO_MAX: usize = 250_000;

/// What one entry's message weighs by pi's rules (docs/pi-compaction.md §3), as
/// `crate::tokens` computes it: its estimate and, for the context breakdown, an assistant's
/// characters by kind. Kept per entry so one decode serves every figure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MessageFigures {
    /// `estimateTokens` of the message the entry yields in the compaction view (0 for none).
    pub tokens: u32,
    /// Characters of an assistant's text, thinking and tool calls (name plus
    /// `JSON.stringify(arguments)`); 0 for other roles.
    pub text: u32,
    pub thinking: u32,
    pub tool: u32,
    pub class: MessageClass,
    /// The entry is a compaction: its summary is a message only in the compaction view.
    pub compaction: bool,
}

/// Which part of the context breakdown a message counts in (by its role).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MessageClass {
    /// No message (or one that counts nothing).
    #[default]
    None,
    User,
    Assistant,
    ToolResult,
    Other,
}

impl fmt::Debug for Transcript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transcript")
            .field("path", &self.path)
            .field("entries", &self.entries.len())
            .field("version", &self.version)
            .finish()
    }
}

impl Transcript {
    /// Opens and indexes `path` (read-only; nothing is written).
    pub fn open(path: &Path) -> Result<Transcript, TranscriptError> {
        Self::open_scanning(path, parse::Scanner::new())
    }

    /// [`Self::open`], computing each entry's [`MessageFigures`] with `fused` in the parse
    /// that indexes it, for a caller that will sum the whole context (the compaction plan and
    /// its diagnosis): the figures table then starts filled and the entries are not read
    /// again. Nothing else differs: the index is the one [`Self::open`] makes.
    pub fn open_with_figures(
        path: &Path,
        fused: FusedParse,
    ) -> Result<Transcript, TranscriptError> {
        Self::open_scanning(path, parse::Scanner::with_figures(fused))
    }

    /// [`Self::open`], also capturing what the history's walk of the active branch reads of
    /// each user and assistant message and each compaction ([`Self::captured`]), for a
    /// caller that builds the history from this read (the session list, for a compacted
    /// session): the walk then reads no entry again.
    pub fn open_for_history(path: &Path) -> Result<Transcript, TranscriptError> {
        Self::open_scanning(path, parse::Scanner::new().capturing())
    }

    fn open_scanning(path: &Path, sc: parse::Scanner) -> Result<Transcript, TranscriptError> {
        let io = |source| TranscriptError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = crate::regular_file::open(path).map_err(io)?;
        let mut reader = std::io::BufReader::with_capacity(0, &file);
        let (scan, len) = parse::scan_reader(sc, &mut reader).map_err(io)?;
        Ok(Self::finish(
            path.to_path_buf(),
            Backing::File(file),
            scan,
            len,
        ))
    }

    /// Indexes an in-memory transcript (tests, demo data).
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Transcript {
        Self::from_bytes_scanning(path.into(), bytes, parse::Scanner::new())
    }

    /// [`Self::from_bytes`] with the capture of [`Self::open_for_history`].
    pub fn from_bytes_for_history(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Transcript {
        Self::from_bytes_scanning(path.into(), bytes, parse::Scanner::new().capturing())
    }

    fn from_bytes_scanning(path: PathBuf, bytes: Vec<u8>, sc: parse::Scanner) -> Transcript {
        let scan = parse::scan(sc, &bytes);
        let len = bytes.len() as u64;
        Self::finish(path, Backing::Mem(bytes), scan, len)
    }

    /// [`Self::from_bytes`] with the figures computed while indexing
    /// ([`Self::open_with_figures`]).
    pub fn from_bytes_with_figures(
        path: impl Into<PathBuf>,
        bytes: Vec<u8>,
        fused: FusedParse,
    ) -> Transcript {
        let scan = parse::scan(parse::Scanner::with_figures(fused), &bytes);
        let len = bytes.len() as u64;
        Self::finish(path.into(), Backing::Mem(bytes), scan, len)
    }

    /// Builds a transcript from its entries in order, one JSON text each (the header first
    /// when there is one), e.g. the decoded rows of a SQLite store. `label` names it in
    /// messages (`<database>#<sessionId>`); entry "lines" are the 1-based positions. A text
    /// with a raw line break is re-encoded compactly first, so each entry stays one line.
    pub fn from_entries<I, S>(label: impl Into<PathBuf>, entries: I) -> Transcript
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self::from_bytes(label, Self::entry_lines(entries))
    }

    /// Entries as JSONL: one line each.
    fn entry_lines<I, S>(entries: I) -> Vec<u8>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut bytes = Vec::new();
        for e in entries {
            let start = bytes.len();
            bytes.extend_from_slice(e.as_ref().as_bytes());
            // A `str` is UTF-8: the line is always ended.
            end_entry_line(&mut bytes, start);
        }
        bytes
    }

    /// [`Self::from_entries`] (`capture`: with the capture of [`Self::open_for_history`]) of
    /// entries held as bytes, each checked as UTF-8 as it is copied into the one buffer the
    /// transcript keeps; None, and nothing built, when one is not UTF-8. The tests' way to
    /// hand rows over whole; a SQLite source makes its lines as it decodes them
    /// (`sqlite::events::read_text_within`).
    #[cfg(test)]
    pub fn from_entry_bytes(
        label: impl Into<PathBuf>,
        entries: Vec<Vec<u8>>,
        capture: bool,
    ) -> Option<Transcript> {
        let size = entries.iter().map(|e| e.len() + 1).sum();
        let mut bytes = Vec::with_capacity(size);
        for e in &entries {
            let start = bytes.len();
            bytes.extend_from_slice(e);
            if !end_entry_line(&mut bytes, start) {
                return None;
            }
        }
        drop(entries);
        Some(Self::from_entry_lines(label, bytes, capture))
    }

    /// A transcript of rows already made lines by [`end_entry_line`], one after another.
    pub fn from_entry_lines(
        label: impl Into<PathBuf>,
        lines: Vec<u8>,
        capture: bool,
    ) -> Transcript {
        if capture {
            Self::from_bytes_for_history(label, lines)
        } else {
            Self::from_bytes(label, lines)
        }
    }

    fn finish(path: PathBuf, backing: Backing, scan: parse::Scan, file_len: u64) -> Transcript {
        let mut t = Transcript {
            path,
            backing,
            file_len,
            header: scan.header,
            version: 1,
            entries: scan.entries,
            warnings: scan.warnings,
            ids: scan.ids,
            by_id: Vec::new(),
            estimates: Default::default(),
            figures: Default::default(),
            slims: Default::default(),
            calls: scan.calls,
            call_models: scan.call_models,
            facts: scan.facts,
            turns: scan.turns,
            #[cfg(test)]
            no_figures_table: Default::default(),
        };
        t.version = t.header.as_ref().map(|h| h.version).unwrap_or(1);
        if let Some(cells) = scan.figures {
            if cells.len() == t.entries.len() && t.keeps_figures() {
                let _ = t.figures.set(cells);
            }
        }
        t.link();
        t
    }

    /// The estimate of entry `idx` in table `table` (0 or 1, one per message view), from
    /// `compute` the first time only.
    pub fn memo_estimate(&self, idx: u32, table: usize, compute: impl FnOnce() -> u64) -> u64 {
        use std::sync::atomic::{AtomicU32, Ordering};
        let cells = self.estimates[table.min(1)].get_or_init(|| {
            (0..self.entries.len())
                .map(|_| AtomicU32::new(u32::MAX))
                .collect()
        });
        let Some(cell) = cells.get(idx as usize) else {
            return compute();
        };
        match cell.load(Ordering::Relaxed) {
            u32::MAX => {
                let n = compute();
                if let Ok(small) = u32::try_from(n) {
                    if small != u32::MAX {
                        cell.store(small, Ordering::Relaxed);
                    }
                }
                n
            }
            n => u64::from(n),
        }
    }

    /// Whether this transcript keeps a figures table ([`Self::memo_figures`]): not past
    /// [`FIGURES_MEMO_MAX`] entries, whose figures are read again where needed instead.
    pub fn keeps_figures(&self) -> bool {
        #[cfg(test)]
        if self
            .no_figures_table
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return false;
        }
        self.entries.len() <= FIGURES_MEMO_MAX
    }

    #[cfg(test)]
    pub fn without_figures_table(mut self) -> Transcript {
        self.no_figures_table
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.figures = Default::default();
        self
    }

    /// The figures of entry `idx`, from `compute` the first time only (every time on a
    /// transcript that keeps no table).
    pub fn memo_figures(
        &self,
        idx: u32,
        compute: impl FnOnce() -> MessageFigures,
    ) -> MessageFigures {
        if !self.keeps_figures() {
            return compute();
        }
        let cells = self.figures.get_or_init(|| {
            (0..self.entries.len())
                .map(|_| Default::default())
                .collect()
        });
        match cells.get(idx as usize) {
            Some(cell) => *cell.get_or_init(compute),
            None => compute(),
        }
    }

    /// Whether entry `idx`'s figures are already known.
    pub fn has_figures(&self, idx: u32) -> bool {
        self.figures
            .get()
            .and_then(|cells| cells.get(idx as usize))
            .is_some_and(|c| c.get().is_some())
    }

    /// Resolves ids and parents; v1 files become one chain in file order (as pi migrates them).
    ///
    /// The scan already linked each entry whose `parentId` is the id of an entry just before
    /// it (almost every entry: a chain, or siblings under one parent), checked by comparing
    /// the ids, so that its `parentId` need not be kept; the others kept theirs
    /// ([`Rare::parent_id`]) and are resolved here. With duplicate ids pi's rule (the later
    /// entry wins) can point elsewhere, so then every parent is looked up again.
    fn link(&mut self) {
        if self.version < 2 {
            for i in 0..self.entries.len() {
                // The written parentId, for display, before the chain replaces the link.
                if let Some(p) = self.entries[i].parent() {
                    let written: Option<Box<str>> = self.written_id(p).map(Into::into);
                    let e = &mut self.entries[i];
                    if e.rare.as_ref().is_none_or(|r| r.parent_id.is_none()) {
                        e.rare.get_or_insert_with(Default::default).parent_id = written;
                    }
                }
                self.entries[i].set_parent(if i == 0 { None } else { Some(i as u32 - 1) });
            }
            return;
        }
        let mut by_id: Vec<u32> = Vec::new();
        let mut id_warnings: Vec<Warning> = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            if e.has_id() {
                by_id.push(i as u32);
            } else {
                id_warnings.push(Warning {
                    line: e.line,
                    message: "entry has no id".into(),
                });
            }
        }
        let span = |i: &u32| self.entries[*i as usize].id;
        // The first 8 bytes as a number decide most comparisons without a call to memcmp
        // (cut and zero-padded, a prefix orders as the bytes do); worked out once per entry
        // and sorted beside it, not looked up in the entries twice per comparison. The index
        // breaks ties, so the order is total and an unstable sort gives the one order there
        // is.
        let mut keyed: Vec<(u64, u32)> =
            by_id.iter().map(|i| (self.ids.head(span(i)), *i)).collect();
        keyed.sort_unstable_by(|(ha, a), (hb, b)| {
            ha.cmp(hb)
                .then_with(|| self.ids.cmp(span(a), span(b)))
                .then(a.cmp(b))
        });
        by_id.clear();
        by_id.extend(keyed.into_iter().map(|(_, i)| i));
        let dups: Vec<Warning> = by_id
            .windows(2)
            .filter(|w| self.ids.cmp(span(&w[0]), span(&w[1])).is_eq())
            .map(|w| {
                let (prev, cur) = (&self.entries[w[0] as usize], &self.entries[w[1] as usize]);
                Warning {
                    line: cur.line,
                    message: format!(
                        "duplicate id {:?} (also on line {}); the later entry wins",
                        self.written_id(w[1]).as_deref().unwrap_or(""),
                        prev.line
                    ),
                }
            })
            .collect();
        let any_dups = !dups.is_empty();
        // Missing and duplicate ids, in file order after the scan's own warnings.
        id_warnings.extend(dups);
        id_warnings.sort_by_key(|w| w.line);
        self.by_id = by_id;
        self.warnings.extend(id_warnings);
        let mut unresolved = Vec::new();
        for i in 0..self.entries.len() {
            let e = &self.entries[i];
            let kept = e.rare.as_ref().and_then(|r| r.parent_id.as_deref());
            let had_kept = kept.is_some();
            let pid: Option<Box<str>> = match (kept, e.parent()) {
                (Some(pid), _) => Some(pid.into()),
                (None, Some(p)) if any_dups => self.written_id(p).map(Into::into),
                // Linked by the scan, and no duplicate id can take the link elsewhere.
                (None, _) => continue,
            };
            let parent = match pid.as_deref() {
                None | Some("") => None,
                Some(pid) => match self.lookup_id(pid) {
                    Some(p) if p as usize == i => {
                        unresolved.push((
                            self.entries[i].line,
                            format!("entry is its own parent ({pid:?})"),
                        ));
                        None
                    }
                    Some(p) => Some(p),
                    None => {
                        unresolved.push((
                            self.entries[i].line,
                            format!("parentId {pid:?} not found; entry starts a new root"),
                        ));
                        None
                    }
                },
            };
            let e = &mut self.entries[i];
            if parent.is_none() && !had_kept {
                // No longer the id of its parent: kept as written, for display.
                e.rare.get_or_insert_with(Default::default).parent_id = pid;
            }
            e.set_parent(parent);
        }
        for (line, message) in unresolved {
            self.warnings.push(Warning { line, message });
        }
    }

    /// The index of the last entry with id `id`.
    fn lookup_id(&self, id: &str) -> Option<u32> {
        let span = |i: u32| self.entries[i as usize].id;
        let probe = ids::Probe::new(id);
        // First position whose id is greater than `id`; the one before it is the last match.
        let end = self
            .by_id
            .partition_point(|&i| self.ids.cmp_probe(span(i), &probe).is_le());
        let i = *self.by_id.get(end.checked_sub(1)?)?;
        self.ids.cmp_probe(span(i), &probe).is_eq().then_some(i)
    }

    /// `id` as written, whatever the version (see [`Self::entry_id`] for the id to cite).
    pub fn written_id(&self, idx: u32) -> Option<Id<'_>> {
        self.ids.get(self.entries.get(idx as usize)?.id)
    }

    /// `parentId` as written (None when the entry has none).
    pub fn written_parent_id(&self, idx: u32) -> Option<Id<'_>> {
        let e = self.entries.get(idx as usize)?;
        if let Some(p) = e.rare.as_ref().and_then(|r| r.parent_id.as_deref()) {
            return Some(Id::text(p));
        }
        if self.version >= 2 {
            e.parent().and_then(|p| self.written_id(p))
        } else {
            None
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The leaf: the last entry in file order (pi's rule after loading).
    pub fn leaf(&self) -> Option<u32> {
        if self.entries.is_empty() {
            None
        } else {
            Some(self.entries.len() as u32 - 1)
        }
    }

    /// Id of an entry as a reader should cite it: the written id, or `#<index>` for v1 files.
    pub fn display_id(&self, idx: u32) -> String {
        match self.written_id(idx) {
            Some(id) if self.version >= 2 => id.to_string(),
            _ => format!("#{idx}"),
        }
    }

    /// Written id (None for v1 files, whose ids pi regenerates).
    pub fn entry_id(&self, idx: u32) -> Option<Id<'_>> {
        if self.version < 2 {
            return None;
        }
        self.written_id(idx)
    }

    pub fn index_of_id(&self, id: &str) -> Option<u32> {
        if self.version < 2 {
            return None;
        }
        self.lookup_id(id)
    }

    /// Raw bytes of an entry's line (without the newline). An entry over
    /// [`parse::LINE_MAX`] is refused rather than read into memory.
    pub fn raw_line(&self, idx: u32) -> Result<std::borrow::Cow<'_, [u8]>, TranscriptError> {
        let e = &self.entries[idx as usize];
        if let Some(big) = e.too_large() {
            return Err(TranscriptError::Entry {
                path: self.path.clone(),
                line: e.line,
                message: format!(
                    "entry is {} bytes, over the {} MiB clawtop decodes; not shown",
                    big.len,
                    parse::LINE_MAX >> 20
                ),
            });
        }
        match &self.backing {
            Backing::Mem(v) => Ok(std::borrow::Cow::Borrowed(
                &v[e.offset as usize..e.offset as usize + e.len as usize],
            )),
            Backing::File(f) => {
                use std::os::unix::fs::FileExt;
                let mut buf = vec![0u8; e.len as usize];
                f.read_exact_at(&mut buf, e.offset)
                    .map_err(|source| TranscriptError::Io {
                        path: self.path.clone(),
                        source,
                    })?;
                Ok(std::borrow::Cow::Owned(buf))
            }
            Backing::Rows(f) => f
                .fetch(e.offset)
                .map(std::borrow::Cow::Owned)
                .map_err(|err| TranscriptError::Entry {
                    path: self.path.clone(),
                    line: e.line,
                    message: err.to_string(),
                }),
        }
    }

    /// The raw bytes of each entry of `idxs` that can be read (entries too large to decode are
    /// left out), in no particular order: rows of a database are read in one pass rather
    /// than one query each. False when what was handed over must not be used (the database
    /// changed while it was read) or is not all there (a file that lost entries since it was
    /// indexed); [`Self::raw_line`] then reports each entry's error. A caller that takes
    /// true for "every entry" is never handed a shorter transcript quietly.
    pub fn for_each_raw(&self, idxs: &[u32], mut each: impl FnMut(u32, &[u8])) -> bool {
        let f = match &self.backing {
            Backing::Rows(f) => f,
            Backing::File(file) => return self.for_each_in_file(file, idxs, &mut each),
            Backing::Mem(_) => {
                for &i in idxs {
                    if let Ok(raw) = self.raw_line(i) {
                        each(i, &raw);
                    }
                }
                return true;
            }
        };
        let readable = |&&i: &&u32| self.entries[i as usize].too_large().is_none();
        let key = |i: u32| self.entries[i as usize].offset;
        // Entries asked for in row order (every caller's usual case) need no table from row to
        // entry: the entry is found by its row among the rows (a million entries, 8 MB less).
        let mut last = None;
        let ascending = idxs.iter().filter(readable).all(|&i| {
            let ok = last.is_none_or(|l| key(l) < key(i));
            last = Some(i);
            ok
        });
        if ascending {
            let order: Vec<u32> = idxs.iter().filter(readable).copied().collect();
            let keys: Vec<u64> = order.iter().map(|&i| key(i)).collect();
            return f.fetch_each(&keys, &mut |k, raw| {
                if let Ok(at) = keys.binary_search(&k) {
                    each(order[at], raw);
                }
            });
        }
        let mut keyed: Vec<(u64, u32)> =
            idxs.iter().filter(readable).map(|&i| (key(i), i)).collect();
        keyed.sort_unstable();
        keyed.dedup();
        let keys: Vec<u64> = keyed.iter().map(|k| k.0).collect();
        f.fetch_each(&keys, &mut |key, raw| {
            if let Ok(at) = keyed.binary_search_by_key(&key, |k| k.0) {
                each(keyed[at].1, raw);
            }
        })
    }

    /// [`Self::for_each_raw`] for a file: the entries in file order, neighbours read together
    /// in chunks of up to [`READ_CHUNK`] (a whole context is a few reads, not one per entry,
    /// and no buffer per entry). A chunk that cannot be read is retried entry by entry, so
    /// every readable entry is still handed over; false when one could not be.
    fn for_each_in_file(
        &self,
        file: &std::fs::File,
        idxs: &[u32],
        each: &mut dyn FnMut(u32, &[u8]),
    ) -> bool {
        use std::os::unix::fs::FileExt;
        let span = |i: u32| {
            let e = &self.entries[i as usize];
            (e.offset, e.offset + u64::from(e.len))
        };
        let mut order: Vec<u32> = idxs
            .iter()
            .copied()
            .filter(|&i| self.entries[i as usize].too_large().is_none())
            .collect();
        order.sort_unstable_by_key(|&i| self.entries[i as usize].offset);
        order.dedup();
        let mut buf = Vec::new();
        let mut all = true;
        let mut k = 0;
        while k < order.len() {
            let (start, mut end) = span(order[k]);
            let mut j = k + 1;
            while let Some(&i) = order.get(j) {
                let (s, e) = span(i);
                if s > end + READ_GAP || e - start > READ_CHUNK {
                    break;
                }
                end = end.max(e);
                j += 1;
            }
            buf.resize((end - start) as usize, 0);
            if file.read_exact_at(&mut buf, start).is_ok() {
                for &i in &order[k..j] {
                    let (s, e) = span(i);
                    each(i, &buf[(s - start) as usize..(e - start) as usize]);
                }
            } else {
                for &i in &order[k..j] {
                    match self.raw_line(i) {
                        Ok(raw) => each(i, &raw),
                        Err(_) => all = false,
                    }
                }
            }
            k = j;
        }
        all
    }

    /// Decodes one entry fully (`hookMessage` roles renamed to `custom` as pi's v3 migration does).
    pub fn entry_json(&self, idx: u32) -> Result<Value, TranscriptError> {
        let raw = self.raw_line(idx)?;
        self.decode_entry(idx, &raw)
    }

    /// [`Self::entry_json`] of entry `idx` whose bytes `raw` were read already (by
    /// [`Self::for_each_raw`]).
    pub fn decode_entry(&self, idx: u32, raw: &[u8]) -> Result<Value, TranscriptError> {
        let e = &self.entries[idx as usize];
        let mut v = parse::decode_value(raw).map_err(|err| TranscriptError::Entry {
            path: self.path.clone(),
            line: e.line,
            message: parse::short_err(&err),
        })?;
        rename_hook_role(&mut v, self.version < 3);
        Ok(v)
    }

    /// Entry `idx` as the history's walk of the branch reads it (what it reads of a message
    /// decoded by [`tail::slim`], a compaction decoded whole), from what the scan captured ([`Self::open_for_history`]): None when it captured nothing of the entry,
    /// which is then read as before.
    pub fn captured(&self, idx: u32) -> Option<Captured<'_>> {
        self.facts.as_ref()?.get(idx)
    }

    /// Whether the scan captured anything for the history's walk ([`Self::captured`]).
    pub fn captures(&self) -> bool {
        self.facts.is_some()
    }

    /// Whether [`Self::captured`] has entry `idx` (without making its view).
    pub fn has_captured(&self, idx: u32) -> bool {
        self.facts.as_ref().is_some_and(|f| f.has(idx))
    }

    /// An entry's head ([`tail::slim`]: the envelope, and of a message what decides a
    /// measurement, user content included), None where that shape does not take the line or
    /// it cannot be read. Kept for the first [`SLIM_MEMO_MAX`] entries asked for whose line is
    /// at most [`SLIM_MEMO_LINE_MAX`] bytes.
    pub fn slim(&self, idx: u32) -> Option<std::sync::Arc<serde_json::Value>> {
        match self.slim_kept(idx) {
            Some(v) => v,
            None => self.slim_made(idx),
        }
    }

    /// [`Self::slim`] of an entry whose head is not kept: made, and kept when it may be.
    fn slim_made(&self, idx: u32) -> Option<std::sync::Arc<serde_json::Value>> {
        // A message's head is made from what the scan kept of it, when it did
        // ([`turn_heads`]): its line is not read or parsed again.
        let v = match self.turns.head(idx) {
            Some(v) => Some(std::sync::Arc::new(v)),
            None => self
                .raw_line(idx)
                .ok()
                .and_then(|raw| tail::slim(&raw))
                .map(std::sync::Arc::new),
        };
        if self.entries[idx as usize].len > SLIM_MEMO_LINE_MAX {
            return v;
        }
        let mut slims = self.slims.lock().unwrap_or_else(|e| e.into_inner());
        if slims.len() < SLIM_MEMO_MAX && !slims.iter().any(|(i, _)| *i == idx) {
            slims.push((idx, v.clone()));
        }
        v
    }

    /// Entry `idx`'s head if [`Self::slim`] kept it.
    fn slim_kept(&self, idx: u32) -> Option<Option<std::sync::Arc<serde_json::Value>>> {
        self.slims
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(i, _)| *i == idx)
            .map(|(_, v)| v.clone())
    }

    /// Entry `idx`'s fields `names` as [`Self::entry_json`] decodes them (each a `Value`, None
    /// where absent), Err where it does not decode; without decoding the rest of the line when
    /// it reads as it stands ([`parse::named_fields`]).
    pub fn entry_fields<const N: usize>(
        &self,
        idx: u32,
        names: [&str; N],
    ) -> Result<[Option<Value>; N], TranscriptError> {
        let raw = self.raw_line(idx)?;
        if let Some(fields) = parse::named_fields(&raw, names) {
            return Ok(fields);
        }
        let v = self.decode_entry(idx, &raw)?;
        Ok(names.map(|n| v.get(n).cloned()))
    }

    /// The path from the root to `leaf` (root first). Guards against cycles, which pi does not.
    pub fn branch(&self, leaf: Option<u32>) -> Vec<u32> {
        // At most every entry: sized once, not grown by doubling down a long branch.
        let mut path = Vec::with_capacity(self.entries.len());
        let mut cur = leaf;
        let mut seen = vec![false; self.entries.len()];
        while let Some(i) = cur {
            if seen[i as usize] {
                break;
            }
            seen[i as usize] = true;
            path.push(i);
            cur = self.entries[i as usize].parent();
        }
        path.reverse();
        path
    }

    /// Branch of the current leaf.
    pub fn active_branch(&self) -> Vec<u32> {
        self.branch(self.leaf())
    }

    /// True when following parents from `leaf` revisits an entry (reported once per file).
    pub fn cycle_warnings(&self) -> Vec<Warning> {
        let mut out = Vec::new();
        let mut state = vec![0u8; self.entries.len()]; // 0 new, 1 on stack, 2 done
        // One chain reused from each start to the next (a new one each was an allocation per
        // entry of the file).
        let mut chain = Vec::new();
        for start in 0..self.entries.len() {
            chain.clear();
            let mut cur = Some(start as u32);
            while let Some(i) = cur {
                match state[i as usize] {
                    2 => break,
                    1 => {
                        out.push(Warning {
                            line: self.entries[i as usize].line,
                            message: "parentId cycle; the branch stops here".into(),
                        });
                        break;
                    }
                    _ => {}
                }
                state[i as usize] = 1;
                chain.push(i);
                cur = self.entries[i as usize].parent();
            }
            for &i in &chain {
                state[i as usize] = 2;
            }
        }
        out
    }

    /// The index `firstKeptEntryId` of compaction `idx` points at (legacy `firstKeptEntryIndex`
    /// for v1 files, resolved the way pi's migration resolves it).
    pub fn first_kept_of(&self, idx: u32, compaction: &Value) -> Option<u32> {
        self.first_kept_from(
            idx,
            compaction.get("firstKeptEntryId"),
            compaction.get("firstKeptEntryIndex"),
        )
    }

    /// [`Self::first_kept_of`] compaction `idx`, read from its line: its summary (most of the
    /// line) is not decoded when the line reads as it stands ([`Self::entry_fields`]).
    pub fn first_kept(&self, idx: u32) -> Option<u32> {
        let [id, index] = self
            .entry_fields(idx, ["firstKeptEntryId", "firstKeptEntryIndex"])
            .ok()?;
        self.first_kept_from(idx, id.as_ref(), index.as_ref())
    }

    /// The entry a compaction's `firstKeptEntryId` (`firstKeptEntryIndex` before v2) names.
    fn first_kept_from(&self, idx: u32, id: Option<&Value>, index: Option<&Value>) -> Option<u32> {
        if self.version < 2 {
            let fki = index?.as_f64()?;
            if fki.fract() != 0.0 || fki < 0.0 {
                return None;
            }
            // The legacy index counts file entries including the header at 0. Entries after
            // the compaction had no id yet when pi migrated, so they resolve to nothing.
            let target = (fki as usize).checked_sub(1)?;
            return if target <= idx as usize && target < self.entries.len() {
                Some(target as u32)
            } else {
                None
            };
        }
        let id = id?.as_str()?;
        self.lookup_id(id)
    }

    /// All warnings: parse problems plus tree problems.
    pub fn all_warnings(&self) -> Vec<Warning> {
        let mut w = self.warnings.clone();
        w.extend(self.cycle_warnings());
        w.sort_by_key(|w| w.line);
        w
    }
}

/// pi's v3 migration renames `hookMessage` roles to `custom` (`hook_is_custom`: the file
/// predates v3).
fn rename_hook_role(v: &mut Value, hook_is_custom: bool) {
    if hook_is_custom {
        if let Some(m) = v.get_mut("message").and_then(Value::as_object_mut) {
            if m.get("role").and_then(Value::as_str) == Some("hookMessage") {
                m.insert("role".into(), Value::String("custom".into()));
            }
        }
    }
}

#[cfg(test)]
mod serde_json_patch_tests;
#[cfg(test)]
mod tests;

/// Every transcript under `tests/fixtures/` (real OpenClaw and pi files and clawtop's edge
/// cases), for tests that check a figure on all of them.
#[cfg(test)]
pub(crate) fn fixture_transcripts() -> Vec<PathBuf> {
    let files = fixture_files("jsonl");
    assert!(files.len() >= 10, "{files:?}");
    files
}

/// Every file under `tests/fixtures/` whose name ends in `.{ext}`.
#[cfg(test)]
fn fixture_files(ext: &str) -> Vec<PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                files.push(p);
            }
        }
    }
    files
}

/// Every line of the fixtures' transcripts, JSONL files and OpenClaw 2026.9.6's rows (read
/// with SQLite and zstd directly, not through clawtop's reader), each with where it is.
#[cfg(test)]
pub(crate) fn fixture_lines() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for path in fixture_transcripts() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        out.extend(
            text.lines()
                .map(|l| (path.display().to_string(), l.to_string())),
        );
    }
    for p in fixture_files("sqlite") {
        let uri = format!("file:{}?mode=ro&immutable=1", p.display());
        let flags =
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
        let db = rusqlite::Connection::open_with_flags(uri, flags).unwrap();
        let Ok(mut st) = db.prepare("SELECT event_json, event_zstd FROM transcript_events") else {
            continue;
        };
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, Option<Vec<u8>>>(1)?,
                ))
            })
            .unwrap();
        for (json, zstd) in rows.flatten() {
            let line = match (json, zstd) {
                (Some(j), _) => j,
                (None, Some(z)) => String::from_utf8(zstd::decode_all(&z[..]).unwrap()).unwrap(),
                (None, None) => continue,
            };
            out.push((p.display().to_string(), line));
        }
    }
    out
}
