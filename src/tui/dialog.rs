//! The Compact and Flush dialogs (docs/interface.md §2): state, and the part of `update` that
//! drives them.
//!
//! One [`Dialog`] shape serves both operations:
//!
//! ```text
//! Preparing ──prepared──▶ Edit ──Generate──▶ Generating ──done──▶ Preview ──Commit──▶ Confirm
//!     │                    ▲  ▲                 │ Esc (cancel)       │  │ Regenerate      │ y
//!     └─error (shown)──────┘  └─────────────────┘                    │  └──▶ Edit         ▼
//!                             ▲──────────────────────────────────────┘ Discard: close   Committing
//!                                                                                       │ ok: close,
//!                                                                                       │ reload
//!                                                                                       └ err: Preview
//! ```
//!
//! Nothing here does I/O: planning, generation and commit are [`Effect`]s; their results come
//! back as [`Action`]s tagged with the dialog id (and the generation id), so a result that
//! arrives after a cancel or after the dialog closed is dropped.
//!
//! Untrusted text: plan strings shown here are sanitized when drawn; model output (the summary
//! or the notes) is put into the editable preview only after [`strip_controls`] removed every
//! control character and escape, so what the operator sees and edits is byte for byte what a
//! commit writes.

use crate::compaction::model::GenProgress;
use crate::llm::CancellationToken;
use crate::tui::action::Action;
use crate::tui::effects::{CommitJob, Effect, GenJob, PrepareRequest};
use crate::tui::state::AppState;
use crate::tui::view::thousands;
use crate::usecase::route::{Door, Route};
use ratatui::style::{Modifier, Style};
use ratatui_textarea::{TextArea, WrapMode};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogKind {
    Compact,
    Flush,
}

impl DialogKind {
    pub fn name(self) -> &'static str {
        match self {
            DialogKind::Compact => "Compact",
            DialogKind::Flush => "Memory flush",
        }
    }

    /// What the model writes, in words.
    pub fn product(self) -> &'static str {
        match self {
            DialogKind::Compact => "summary",
            DialogKind::Flush => "notes",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Planning runs (an effect); the editor is usable already.
    Preparing,
    /// Instructions editor and plan.
    Edit,
    Generating,
    /// The result in the editable preview.
    Preview,
    Committing,
    /// A compaction OpenClaw's Gateway ran: what it wrote, read-only (saved on the host
    /// already; nothing to commit, regenerate or discard).
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The instructions editor (Edit) or the preview (Preview).
    Text,
    /// The Compact dialog's keepRecentTokens field (before generating).
    Keep,
    /// The model picker (before generating).
    Model,
    Buttons,
}

/// Which text an external edit (`$EDITOR`) was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditTarget {
    Instructions,
    Preview,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Generate,
    Close,
    Commit,
    Regenerate,
    Discard,
}

impl Button {
    pub fn label(self) -> &'static str {
        match self {
            Button::Generate => "Generate",
            Button::Close => "Close",
            Button::Commit => "Commit…",
            Button::Regenerate => "Regenerate",
            Button::Discard => "Discard",
        }
    }
}

pub use crate::usecase::ModelInfo;
/// The compaction plan as the dialog shows it, plus what generation and commit need.
pub type CompactPrep = crate::usecase::compact::Prepared;
/// The flush plan as the dialog shows it, plus what generation and commit need.
pub type FlushPrep = crate::usecase::flush::Prepared;

#[derive(Debug, Clone)]
pub enum Prep {
    Compact(Box<CompactPrep>),
    Flush(Box<FlushPrep>),
    /// A compaction OpenClaw's Gateway runs (a SQLite host): OpenClaw plans and writes the
    /// summary with its own model, so there is no plan, model or edited-text commit here.
    Gateway(Box<GatewayPrep>),
}

/// What the Compact dialog of a gateway-written session needs: where the gateway is, and what
/// the operator must know before typing.
#[derive(Debug, Clone)]
pub struct GatewayPrep {
    pub target: crate::gateway::GatewayTarget,
    pub key: String,
    /// Who writes ("OpenClaw's Gateway at ws://…") and what differs from a local compaction.
    pub via: String,
    pub note: String,
    /// Always `Err`: OpenClaw compacts with its own model.
    pub model: Result<ModelInfo, crate::usecase::NoModel>,
    /// Where clawtop's device identity lives (its config dir); None: no HOME to keep one in.
    pub identity_dir: Option<std::path::PathBuf>,
    /// Set once the gateway answered: the preview then shows what OpenClaw wrote, which is
    /// already saved on the host (nothing to commit).
    pub done: bool,
    /// A file-backed host's own gateway: OpenClaw's transcript lock is checked here before
    /// sending, and that check stands where the gateway does not report runs (2026.7.1).
    pub vouch_idle: bool,
}

impl Prep {
    pub fn model(&self) -> &Result<ModelInfo, crate::usecase::NoModel> {
        match self {
            Prep::Compact(c) => &c.model,
            Prep::Flush(f) => &f.model,
            Prep::Gateway(g) => &g.model,
        }
    }
}

/// A running generation.
#[derive(Debug, Clone)]
pub struct GenState {
    pub id: u64,
    /// `AppState::now_ms` when it started (elapsed = now − this, from the 1 s tick).
    pub started_ms: i64,
    pub call: usize,
    pub label: String,
    pub chars: usize,
    pub tokens: Option<u64>,
    /// Elapsed time as the generation task measured it at its last report.
    pub elapsed_ms: u64,
    pub retry: Option<String>,
    pub cancel: CancellationToken,
}

impl GenState {
    pub fn elapsed_ms(&self, now_ms: i64) -> u64 {
        self.elapsed_ms
            .max((now_ms - self.started_ms).max(0) as u64)
    }
}

/// The commit the confirmation popup carries: exactly this text is written on "yes".
#[derive(Debug, Clone)]
pub struct PendingCommit {
    pub text: String,
    /// What will be written, in words (one item per line).
    pub lines: Vec<String>,
}

/// The result of one generation.
#[derive(Debug, Clone)]
pub struct Generated {
    pub text: String,
    pub calls: usize,
    pub warnings: Vec<String>,
    /// Flush: the model answered `NO_REPLY` (the preview then shows `NO_REPLY`).
    pub no_reply: bool,
    /// Flush: the target's content as the draft read it (fresher than the plan's).
    pub current: Option<String>,
    /// Compact: what the draft loses of the span it replaces (computed with the draft, in the
    /// generation task, never while drawing).
    pub audit: Option<Box<crate::audit::CompactionAudit>>,
}

#[derive(Debug, Clone)]
pub enum GenFailure {
    Cancelled,
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct Dialog {
    pub id: u64,
    pub kind: DialogKind,
    /// Who: agent and session key, or the file name of a bare transcript (raw).
    pub who: String,
    pub session: crate::source::SessionHandle,
    pub phase: Phase,
    pub focus: Focus,
    pub button: usize,
    pub instructions: TextArea<'static>,
    pub prep: Option<Prep>,
    pub prep_error: Option<String>,
    pub running: Option<GenState>,
    pub next_gen: u64,
    pub preview: TextArea<'static>,
    pub warnings: Vec<String>,
    pub confirm: Option<PendingCommit>,
    /// Last failure (generation, commit), shown in the dialog.
    pub error: Option<String>,
    pub no_color: bool,
    /// keepRecentTokens the operator chose in the dialog (None: the session's).
    pub keep: Option<u64>,
    /// The keepRecentTokens field as typed (None: not typed into; it shows the plan's value).
    pub keep_text: Option<String>,
    /// Why the typed keepRecentTokens is not a value (shown; generation refused meanwhile).
    pub keep_invalid: Option<String>,
    /// The instructions / preview as last set by the program (the config's default, the
    /// model's answer, an external edit is the operator's own): text differing from these
    /// is the operator's edit, which Esc asks about before throwing it away.
    pub instructions_base: String,
    pub preview_base: String,
    /// Esc/close asked "discard your edits?" and waits for y/n.
    pub ask_discard: bool,
    /// What "yes" does after the edits are thrown away (None: close the dialog): Regenerate
    /// and Discard of an edited preview ask first too.
    pub ask_then: Option<Button>,
    /// Sequence number of the last plan requested, whether one is running, and whether the
    /// values changed while it ran (then one more is requested when it answers: typing
    /// coalesces into at most one plan in flight plus one queued).
    pub prep_seq: u64,
    pub prep_running: bool,
    pub prep_again: bool,
    /// The Session screen's keepRecentTokens the dialog opened with (0: the config's).
    pub base_keep: u64,
    /// What the model picker offers (from the last plan; the session's own model first)
    /// and which one is picked.
    pub models: Vec<crate::usecase::ModelCandidate>,
    pub model_pick: usize,
    /// The diagnosis's suggested keepRecentTokens for this session (prefilled when the
    /// session's own value gives no plan), and what the dialog says about it.
    pub suggested_keep: Option<u64>,
    pub keep_note: Option<String>,
    /// [`Phase::Done`]: what OpenClaw wrote, and how far its summary is scrolled.
    pub result: Option<Box<crate::usecase::gateway_compact::GatewayReport>>,
    pub result_scroll: u16,
    /// The preview's audit: what the model's draft would lose (Compact only).
    pub audit: Option<Box<crate::audit::CompactionAudit>>,
}

/// Step of the dialog's keepRecentTokens keys.
pub const KEEP_STEP: u64 = 1_000;
/// Largest keepRecentTokens the dialog takes (far beyond any context window: a bigger
/// number is a typo).
pub const KEEP_MAX: u64 = 10_000_000;

/// A typed keepRecentTokens: digits, with `,` `_` or spaces between groups, or a number of
/// thousands with `k` (`20k`). `Err` says why it is not a value, in words for the field.
pub fn parse_keep(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("type a number of tokens".into());
    }
    let (digits, scale) = match t.strip_suffix(['k', 'K']) {
        Some(d) => (d.trim_end(), 1_000),
        None => (t, 1),
    };
    let digits: String = digits
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' '))
        .collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err("not a number".into());
    }
    let v = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n <= KEEP_MAX)
        .ok_or_else(|| format!("at most {}", thousands(KEEP_MAX)))?;
    if v == 0 {
        return Err("at least 1".into());
    }
    Ok(v)
}

/// The one cleaning of text that is committed ([`crate::sanitize::committable`]); the TUI
/// applies it before text reaches the editable preview, so the preview is what is written.
pub use crate::sanitize::committable as strip_controls;

/// The dialog an answer is for, while it still waits for that generation; None for an answer
/// that arrives late (the dialog closed, moved on, or asked again): it is dropped.
fn awaiting(dialog: &mut Option<Dialog>, id: u64, generation: u64) -> Option<&mut Dialog> {
    dialog.as_mut().filter(|d| {
        d.id == id
            && d.running.as_ref().map(|g| g.id) == Some(generation)
            && d.phase == Phase::Generating
    })
}

fn textarea(text: &str, _no_color: bool, placeholder: &str) -> TextArea<'static> {
    let lines: Vec<String> = if text.is_empty() {
        vec![String::new()]
    } else {
        text.split('\n').map(str::to_string).collect()
    };
    let mut t = TextArea::new(lines);
    t.set_wrap_mode(WrapMode::WordOrGlyph);
    t.set_cursor_line_style(Style::new());
    t.set_placeholder_text(placeholder);
    t
}

/// The text of a text area as it will be committed (lines joined with `\n`).
pub fn text_of(t: &TextArea<'_>) -> String {
    t.lines().join("\n")
}

impl Dialog {
    pub fn new(
        id: u64,
        kind: DialogKind,
        who: String,
        session: crate::source::SessionHandle,
        no_color: bool,
    ) -> Dialog {
        let placeholder = match kind {
            DialogKind::Compact => {
                "Optional: what the summary must keep (e.g. the open PR numbers)"
            }
            DialogKind::Flush => "Optional: what the notes must cover",
        };
        let mut d = Dialog {
            id,
            kind,
            who,
            session,
            phase: Phase::Preparing,
            focus: Focus::Text,
            button: 0,
            instructions: textarea("", no_color, placeholder),
            prep: None,
            prep_error: None,
            running: None,
            next_gen: 1,
            keep: None,
            keep_text: None,
            keep_invalid: None,
            instructions_base: String::new(),
            preview_base: String::new(),
            ask_discard: false,
            ask_then: None,
            prep_seq: 1,
            prep_running: true,
            prep_again: false,
            base_keep: 0,
            models: Vec::new(),
            model_pick: 0,
            suggested_keep: None,
            keep_note: None,
            result: None,
            result_scroll: 0,
            audit: None,
            preview: textarea("", no_color, ""),
            warnings: Vec::new(),
            confirm: None,
            error: None,
            no_color,
        };
        d.restyle();
        d
    }

    pub fn buttons(&self) -> &'static [Button] {
        match self.phase {
            Phase::Preview | Phase::Committing => {
                &[Button::Commit, Button::Regenerate, Button::Discard]
            }
            Phase::Done => &[Button::Close],
            _ => &[Button::Generate, Button::Close],
        }
    }

    /// Cursor shown only in the focused text area.
    pub fn restyle(&mut self) {
        let on = Style::new().add_modifier(Modifier::REVERSED);
        let off = Style::new();
        let text_focus = self.focus == Focus::Text;
        let edit = matches!(self.phase, Phase::Edit | Phase::Preparing);
        let preview = self.phase == Phase::Preview;
        self.instructions
            .set_cursor_style(if text_focus && edit { on } else { off });
        self.preview
            .set_cursor_style(if text_focus && preview { on } else { off });
    }

    /// Whether the operator changed the instructions or the preview (what Esc would lose).
    pub fn edited(&self) -> bool {
        self.instructions_edited() || self.preview_edited()
    }

    pub fn instructions_edited(&self) -> bool {
        text_of(&self.instructions) != self.instructions_base
    }

    pub fn preview_edited(&self) -> bool {
        matches!(self.phase, Phase::Preview | Phase::Committing)
            && text_of(&self.preview) != self.preview_base
    }

    /// The focused text area and which one it is (None: focus elsewhere, or nothing to edit
    /// in this phase).
    fn focused_text(&mut self) -> Option<(EditTarget, &mut TextArea<'static>)> {
        if self.focus != Focus::Text {
            return None;
        }
        match self.phase {
            Phase::Edit | Phase::Preparing => {
                Some((EditTarget::Instructions, &mut self.instructions))
            }
            Phase::Preview => Some((EditTarget::Preview, &mut self.preview)),
            _ => None,
        }
    }

    /// The next field for Tab: text, keepRecentTokens (Compact, before generating), buttons.
    fn next_focus(&self) -> Focus {
        let keep_field = self.kind == DialogKind::Compact
            && matches!(self.phase, Phase::Edit | Phase::Preparing);
        let model_field = matches!(self.phase, Phase::Edit | Phase::Preparing);
        match self.focus {
            Focus::Text if keep_field => Focus::Keep,
            Focus::Text | Focus::Keep if model_field => Focus::Model,
            Focus::Text | Focus::Keep | Focus::Model => Focus::Buttons,
            Focus::Buttons => Focus::Text,
        }
    }

    /// Enters the Generating phase with a new generation id (answers for older ids are
    /// ignored) and the token that cancels it.
    fn start_running(&mut self, now: i64, label: &str) -> (u64, CancellationToken) {
        let id = self.next_gen;
        self.next_gen += 1;
        let cancel = CancellationToken::new();
        self.running = Some(GenState {
            id,
            started_ms: now,
            call: 0,
            label: label.into(),
            chars: 0,
            tokens: None,
            elapsed_ms: 0,
            retry: None,
            cancel: cancel.clone(),
        });
        self.phase = Phase::Generating;
        self.error = None;
        self.confirm = None;
        self.restyle();
        (id, cancel)
    }

    /// The keepRecentTokens value on screen: typed, else chosen with +/-, else the plan's.
    pub fn keep_shown(&self) -> Option<u64> {
        self.keep.or(match &self.prep {
            Some(Prep::Compact(c)) => Some(c.keep_recent_tokens),
            // No plan: the value it was asked for (the session's).
            _ => Some(self.base_keep).filter(|&k| k > 0),
        })
    }

    /// A plan for the values on screen: requested now, or queued behind the running one.
    fn request_prepare(&mut self, fx: &mut Vec<Effect>) {
        if self.prep_running {
            self.prep_again = true;
            return;
        }
        self.prep_seq += 1;
        self.prep_running = true;
        fx.push(Effect::Prepare(Box::new(PrepareRequest {
            dialog: self.id,
            seq: self.prep_seq,
            kind: self.kind,
            session: self.session.clone(),
            keep_recent_tokens: self.keep.unwrap_or(self.base_keep),
            model: self.picked_model(),
        })));
    }

    /// The overrides of the picked model (none: the session's own).
    pub fn picked_model(&self) -> crate::llm::ModelOverrides {
        self.models
            .get(self.model_pick)
            .map(|m| m.overrides.clone())
            .unwrap_or_default()
    }

    /// The editor's instructions. It starts with the config's default, so its text is what
    /// the operator gave (blank: none; see [`crate::usecase::compact::instructions`]).
    pub fn instructions_text(&self) -> Option<String> {
        crate::usecase::compact::instructions(Some(text_of(&self.instructions)), None)
    }
}

/// Asks the source who writes `op` for `session` (a cheap question, no I/O). A dialog opens
/// only on a local writer; otherwise the status line says why not.
fn can_write(
    state: &mut AppState,
    session: Option<&crate::source::SessionHandle>,
    op: crate::source::Operation,
) -> bool {
    let what = match op {
        crate::source::Operation::Compact => "compact",
        crate::source::Operation::Flush => "flush",
    };
    let Some(session) = session else {
        state.status.info = Some(if state.demo {
            format!("This is a demo row, with no session behind it: nothing to {what}.")
        } else {
            format!("This row has no session behind it: nothing to {what}.")
        });
        return false;
    };
    match crate::usecase::route::route(session, op, Default::default()) {
        Route::Local(_) => true,
        Route::ReadOnly(why) => {
            state.status.info = Some(format!("Cannot {what} here: {why}."));
            false
        }
        Route::Gateway(r) => {
            state.status.info = Some(format!(
                "This session is written through {}, which clawtop cannot drive for a {what} ({}).",
                r.via, r.note
            ));
            false
        }
    }
}

/// Opens the Compact dialog on the Session screen's session.
pub fn open_compact(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(v) = &state.session else { return };
    let (row, session, file) = (v.row.clone(), v.session.clone(), v.label_file_name());
    let loaded = v.loaded.is_some();
    // OpenClaw's gateway compacts without clawtop reading the transcript: the row's session
    // is enough for it.
    if let Some(s) = session.as_ref().or(row.session.as_ref()) {
        if let Route::Gateway(r) =
            crate::usecase::route::route(s, crate::source::Operation::Compact, Door::Default)
        {
            open_gateway_compact(state, s.clone(), who_of(&row), *r);
            return;
        }
    }
    if session.is_none() && row.session.is_some() {
        state.status.info = Some(format!(
            "No transcript for {}: nothing to compact here (a compaction summarizes the transcript; only the store's numbers are known).",
            crate::sanitize::one_line(&row.session_key)
        ));
        return;
    }
    if !can_write(state, session.as_ref(), crate::source::Operation::Compact) {
        return;
    }
    let Some(session) = session else { return };
    if !loaded {
        state.status.info = Some("The transcript is still loading.".into());
        return;
    }
    let id = state.next_generation;
    state.next_generation += 1;
    let who = if state.bare_file { file } else { who_of(&row) };
    let mut d = Dialog::new(
        id,
        DialogKind::Compact,
        who,
        session.clone(),
        state.no_color,
    );
    d.base_keep = row.keep_recent_tokens;
    d.suggested_keep = state
        .session
        .as_ref()
        .and_then(|v| v.loaded.as_ref())
        .and_then(|l| l.diagnosis.as_ref())
        .and_then(|diag| diag.suggested_keep_recent_tokens);
    state.dialog = Some(d);
    fx.push(Effect::Prepare(Box::new(PrepareRequest {
        dialog: id,
        seq: 1,
        model: Default::default(),
        kind: DialogKind::Compact,
        session,
        keep_recent_tokens: row.keep_recent_tokens,
    })));
}

/// Opens the Flush dialog for the Session screen's session or the selected Sessions row.
pub fn open_flush(state: &mut AppState, fx: &mut Vec<Effect>) {
    use crate::tui::state::Screen;
    let row = match state.screen() {
        Screen::Session => match &state.session {
            Some(v) => v.row.clone(),
            None => return,
        },
        _ => match state.sessions.selected_row() {
            Some(r) => r.clone(),
            None => return,
        },
    };
    if !can_write(state, row.session.as_ref(), crate::source::Operation::Flush) {
        return;
    }
    let Some(session) = row.session.clone().filter(|_| row.transcript.is_some()) else {
        state.status.error = Some(format!(
            "No transcript file for {}.",
            crate::sanitize::one_line(&row.session_key)
        ));
        return;
    };
    let id = state.next_generation;
    state.next_generation += 1;
    let mut d = Dialog::new(
        id,
        DialogKind::Flush,
        who_of(&row),
        session.clone(),
        state.no_color,
    );
    d.base_keep = row.keep_recent_tokens;
    state.dialog = Some(d);
    fx.push(Effect::Prepare(Box::new(PrepareRequest {
        dialog: id,
        seq: 1,
        model: Default::default(),
        kind: DialogKind::Flush,
        session,
        keep_recent_tokens: row.keep_recent_tokens,
    })));
}

/// `C`: the Compact dialog through a file-backed host's running gateway. Needs no transcript
/// (OpenClaw plans), so it opens from the Sessions screen too.
pub fn open_compact_via_gateway(state: &mut AppState) {
    let on_list = state.screen() == crate::tui::state::Screen::Sessions;
    let (row, session) = match (&state.session, on_list) {
        (Some(v), false) => (v.row.clone(), v.session.clone()),
        _ => match state.sessions.selected_row() {
            Some(r) => (r.clone(), r.session.clone()),
            None => return,
        },
    };
    let Some(session) = session else {
        state.status.info = Some("This session has no host to compact through.".into());
        return;
    };
    let door = Door::HostGateway {
        seen_port: state.sessions.running_gateway,
    };
    match crate::usecase::route::route(&session, crate::source::Operation::Compact, door) {
        Route::Gateway(r) => open_gateway_compact(state, session, who_of(&row), *r),
        Route::ReadOnly(why) => {
            state.status.info = Some(format!("Cannot compact through a gateway here: {why}."));
        }
        Route::Local(_) => {
            state.status.info = Some("This session is compacted here: press c.".into());
        }
    }
}

/// The Compact dialog for a session OpenClaw's Gateway compacts ([`Route::Gateway`]). Nothing
/// is planned (OpenClaw plans); the connection is made when the operator sends.
fn open_gateway_compact(
    state: &mut AppState,
    session: crate::source::SessionHandle,
    who: String,
    route: crate::usecase::route::GatewayRoute,
) {
    let id = state.next_generation;
    state.next_generation += 1;
    let mut d = Dialog::new(
        id,
        DialogKind::Compact,
        who,
        session.clone(),
        state.no_color,
    );
    d.prep = Some(Prep::Gateway(Box::new(GatewayPrep {
        target: route.target,
        key: session.session.key.clone(),
        via: route.via,
        note: route.note,
        model: Err(crate::usecase::NoModel::Gateway),
        identity_dir: crate::gateway::identity::config_dir(),
        done: false,
        vouch_idle: route.vouch_idle,
    })));
    // Nothing to plan: the instructions can be typed and sent at once.
    d.phase = Phase::Edit;
    d.prep_running = false;
    state.dialog = Some(d);
}

/// Why there is no plan, in words for the dialog: the reason first (the file at the end: the
/// title already names the session), and "too small" said as what it means at the value
/// asked for.
pub fn no_plan_reason(problem: &crate::usecase::Problem, keep: u64) -> String {
    use crate::usecase::Problem;
    match problem {
        Problem::NoPlan {
            reason: crate::plan::NoPlan::TooSmall,
            ..
        } => format!(
            "Nothing to summarize at keepRecentTokens {}: it would keep every message a compaction could summarize.",
            thousands(keep)
        ),
        Problem::NoPlan { transcript, reason } => match transcript.file_name() {
            Some(f) => format!("{reason} ({})", f.to_string_lossy()),
            None => reason.to_string(),
        },
        other => other.to_string(),
    }
}

fn who_of(row: &crate::tui::view::SessionRow) -> String {
    format!("{} · {}", row.agent_id, row.session_key)
}

/// Builds the confirmation of a compaction commit of `text`.
pub fn compact_confirm(c: &CompactPrep, text: &str) -> Vec<String> {
    let bytes = c.line_overhead
        + crate::jsjson::stringify(&serde_json::Value::String(text.to_string())).len()
        - 2
        + 1;
    let summary_tokens = crate::tokens::estimate_message(
        &serde_json::json!({"role": "compactionSummary", "summary": text}),
    );
    let after = c.kept_tokens + summary_tokens;
    let mut lines = vec![
        format!(
            "Append 1 compaction entry ({} bytes) to {},",
            thousands(bytes as u64),
            c.transcript.display()
        ),
        format!("parent {}, keeping from {}.", c.leaf_id, c.first_kept_id),
    ];
    match &c.store {
        Some(s) => {
            let cc = c.compaction_count.unwrap_or(0);
            lines.push(format!(
                "Update {} entry {}:",
                s.store_path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s.session_key
            ));
            lines.push(format!(
                "set compactionCount {cc}→{}, totalTokens→{}, totalTokensFresh→true, updatedAt→now;",
                cc + 1,
                thousands(after)
            ));
            lines.push("clear inputTokens, outputTokens, cacheRead, cacheWrite.".into());
            if let Some(m) = c.store_mode.filter(|&m| m != crate::commit::STORE_MODE) {
                lines.push(format!(
                    "File mode {m:04o}→{:04o} (the store is rewritten as OpenClaw writes it).",
                    crate::commit::STORE_MODE
                ));
            }
        }
        None => lines.push(format!(
            "Bare file: the transcript only (context after ≈{} tokens).",
            thousands(after)
        )),
    }
    lines
}

/// Dialog actions. Returns true when `action` was a dialog action (handled here).
pub fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::OpenCompact => open_compact(state, fx),
        Action::OpenCompactViaGateway => open_compact_via_gateway(state),
        Action::DialogKeepMore | Action::DialogKeepLess => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            // Only while nothing was generated: a summary belongs to the cut it was made for.
            if d.kind != DialogKind::Compact || d.phase != Phase::Edit {
                return true;
            }
            let Some(now) = d.keep_shown() else {
                return true;
            };
            let next = if matches!(action, Action::DialogKeepMore) {
                now.saturating_add(KEEP_STEP).min(KEEP_MAX)
            } else {
                now.saturating_sub(KEEP_STEP).max(KEEP_STEP)
            };
            d.keep_invalid = None;
            if d.keep_text.is_some() {
                d.keep_text = Some(next.to_string());
            }
            if next != now || d.keep != Some(next) {
                d.keep = Some(next);
                d.request_prepare(fx);
            }
        }
        Action::DialogModelNext | Action::DialogModelPrev => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            // Only before generating: a preview belongs to the model that wrote it.
            let n = d.models.len();
            if d.phase != Phase::Edit || d.focus != Focus::Model || n < 2 {
                return true;
            }
            d.model_pick = if matches!(action, Action::DialogModelNext) {
                (d.model_pick + 1) % n
            } else {
                (d.model_pick + n - 1) % n
            };
            d.request_prepare(fx);
        }
        Action::DialogKeepChar(_) | Action::DialogKeepBackspace => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.kind != DialogKind::Compact || d.phase != Phase::Edit || d.focus != Focus::Keep {
                return true;
            }
            let mut text = d
                .keep_text
                .take()
                .or_else(|| d.keep_shown().map(|k| k.to_string()))
                .unwrap_or_default();
            match action {
                Action::DialogKeepChar(c) if text.chars().count() < 24 => text.push(*c),
                Action::DialogKeepChar(_) => {}
                _ => {
                    text.pop();
                }
            }
            match parse_keep(&text) {
                Ok(v) => {
                    d.keep_invalid = None;
                    if d.error
                        .as_deref()
                        .is_some_and(|e| e.starts_with("keepRecentTokens:"))
                    {
                        d.error = None;
                    }
                    if d.keep != Some(v) {
                        d.keep = Some(v);
                        d.request_prepare(fx);
                    }
                }
                Err(why) => d.keep_invalid = Some(why),
            }
            d.keep_text = Some(text);
        }
        Action::OpenFlush => open_flush(state, fx),
        Action::DialogPrepared {
            dialog,
            seq,
            result,
            models,
        } => {
            let Some(d) = state.dialog.as_mut().filter(|d| d.id == *dialog) else {
                return true;
            };
            if *seq != d.prep_seq {
                return true;
            }
            d.prep_running = false;
            if d.models.is_empty() {
                d.models = models.clone();
            }
            // The values changed while this plan ran: it is not the one for the screen.
            if std::mem::take(&mut d.prep_again) {
                d.request_prepare(fx);
                return true;
            }
            match result {
                Ok(prep) => {
                    if let Prep::Compact(c) = prep.as_ref() {
                        if let Some(ci) = &c.default_instructions {
                            if d.instructions_text().is_none() {
                                let ci = strip_controls(ci);
                                d.instructions = textarea(&ci, d.no_color, "");
                                d.instructions_base = ci;
                            }
                        }
                    }
                    d.prep = Some(prep.as_ref().clone());
                    d.prep_error = None;
                }
                Err(e) => {
                    let asked = d.keep.unwrap_or(d.base_keep);
                    let reason = no_plan_reason(e, asked);
                    let too_small = matches!(
                        e,
                        crate::usecase::Problem::NoPlan {
                            reason: crate::plan::NoPlan::TooSmall,
                            ..
                        }
                    );
                    match d.suggested_keep.filter(|&s| s < asked) {
                        // The session's own value leaves nothing to summarize: the
                        // diagnosis's value is prefilled and its plan asked for.
                        Some(s)
                            if too_small && d.keep.is_none() && d.kind == DialogKind::Compact =>
                        {
                            d.keep = Some(s);
                            d.keep_note = Some(format!(
                                "{reason} The diagnosis suggests keepRecentTokens {} (prefilled; +/- or type to change).",
                                thousands(s)
                            ));
                            d.prep = None;
                            d.prep_error = None;
                            d.request_prepare(fx);
                            if d.phase == Phase::Preparing {
                                d.phase = Phase::Edit;
                            }
                            d.restyle();
                            return true;
                        }
                        _ => {
                            // The plan shown must be the one for the value on screen.
                            d.prep = None;
                            d.prep_error = Some(if too_small && d.suggested_keep.is_none() {
                                format!(
                                    "{reason} No smaller keepRecentTokens is suggested for this session (i explains why)."
                                )
                            } else if too_small {
                                format!("{reason} (- keeps less)")
                            } else {
                                reason
                            });
                        }
                    }
                }
            }
            if d.phase == Phase::Preparing {
                d.phase = Phase::Edit;
            }
            d.restyle();
        }
        Action::DialogInput(key) => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            // A character typed on the buttons goes back to the text (keymap's `lookup`).
            if d.focus == Focus::Buttons
                && matches!(d.phase, Phase::Edit | Phase::Preparing | Phase::Preview)
            {
                d.focus = Focus::Text;
                d.restyle();
            }
            if d.focus != Focus::Text {
                return true;
            }
            match d.phase {
                Phase::Edit | Phase::Preparing => {
                    d.instructions.input(*key);
                }
                Phase::Preview => {
                    d.preview.input(*key);
                }
                _ => {}
            }
        }
        Action::DialogUndo | Action::DialogRedo => {
            let Some((_, ta)) = state.dialog.as_mut().and_then(|d| d.focused_text()) else {
                return true;
            };
            if matches!(action, Action::DialogUndo) {
                ta.undo();
            } else {
                ta.redo();
            }
        }
        Action::DialogExternalEdit => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let id = d.id;
            let Some((target, ta)) = d.focused_text() else {
                return true;
            };
            fx.push(Effect::ExternalEdit {
                dialog: id,
                target,
                text: text_of(ta),
            });
        }
        Action::ExternalEdited {
            dialog,
            target,
            result,
        } => {
            let Some(d) = state.dialog.as_mut().filter(|d| d.id == *dialog) else {
                return true;
            };
            let text = match result {
                Ok(t) => t,
                Err(e) => {
                    d.error = Some(format!("{e}; the text is unchanged"));
                    return true;
                }
            };
            let ta = match (target, d.phase) {
                (EditTarget::Instructions, Phase::Edit | Phase::Preparing) => &mut d.instructions,
                (EditTarget::Preview, Phase::Preview) => &mut d.preview,
                // The dialog moved on meanwhile (cannot happen while the TUI waits for the
                // editor, but an answer for another phase must not land in the wrong text).
                _ => return true,
            };
            // What a commit writes is what the preview shows: the same control characters
            // are removed as from the model's answer. One undoable edit.
            let text = strip_controls(text);
            if text != text_of(ta) {
                ta.select_all();
                ta.insert_str(&text);
            }
            d.error = None;
            state.status.info = Some(format!(
                "Read back from the editor: {} lines.",
                thousands(text.lines().count() as u64)
            ));
        }
        Action::DialogDiscardYes => {
            let then = state
                .dialog
                .as_mut()
                .filter(|d| d.ask_discard)
                .and_then(|d| d.ask_then.take());
            if let (Some(b), Some(d)) = (then, state.dialog.as_mut()) {
                // The edits are given up: the preview as it stands is no longer "edited".
                d.ask_discard = false;
                d.preview_base = text_of(&d.preview);
                let next = match b {
                    Button::Regenerate => Action::DialogRegenerate,
                    _ => Action::DialogDiscard,
                };
                return update(state, &next, fx);
            }
            if state.dialog.as_ref().is_some_and(|d| d.ask_discard) {
                if let Some(g) = state.dialog.as_ref().and_then(|d| d.running.as_ref()) {
                    fx.push(Effect::Cancel(g.cancel.clone()));
                }
                state.dialog = None;
                state.status.info =
                    Some("Closed; the edited text was discarded, nothing written.".into());
            }
        }
        Action::DialogDiscardNo => {
            if let Some(d) = state.dialog.as_mut() {
                d.ask_discard = false;
                d.ask_then = None;
            }
        }
        Action::DialogFocus => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            d.focus = d.next_focus();
            d.button = 0;
            d.restyle();
        }
        Action::DialogButtonNext | Action::DialogButtonPrev => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let n = d.buttons().len();
            d.button = if matches!(action, Action::DialogButtonNext) {
                (d.button + 1) % n
            } else {
                (d.button + n - 1) % n
            };
        }
        Action::DialogPress => {
            let Some(d) = state.dialog.as_ref() else {
                return true;
            };
            let b = d.buttons().get(d.button).copied();
            let next = match b {
                Some(Button::Generate) => Action::DialogGenerate,
                Some(Button::Close) => Action::DialogClose,
                Some(Button::Commit) => Action::DialogCommit,
                Some(Button::Regenerate) => Action::DialogRegenerate,
                Some(Button::Discard) => Action::DialogDiscard,
                None => return true,
            };
            return update(state, &next, fx);
        }
        Action::DialogGenerate => generate(state, fx),
        Action::DialogCancel => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.phase == Phase::Generating {
                if let Some(g) = d.running.take() {
                    fx.push(Effect::Cancel(g.cancel));
                }
                d.phase = Phase::Edit;
                d.focus = Focus::Text;
                d.error = None;
                d.restyle();
                state.status.info = Some(if matches!(d.prep, Some(Prep::Gateway(_))) {
                    "Stopped waiting for the gateway. OpenClaw may still finish the compaction on the host; the list shows it when it does.".into()
                } else {
                    "Generation cancelled; nothing written. Instructions kept.".into()
                });
            }
        }
        Action::GenProgress {
            dialog,
            generation,
            event,
            elapsed_ms,
        } => {
            let Some(g) = state
                .dialog
                .as_mut()
                .filter(|d| d.id == *dialog)
                .and_then(|d| d.running.as_mut())
                .filter(|g| g.id == *generation)
            else {
                return true;
            };
            g.elapsed_ms = g.elapsed_ms.max(*elapsed_ms);
            match event {
                GenProgress::Call { call, label } => {
                    g.call = *call;
                    g.label = label.clone();
                    g.chars = 0;
                    g.tokens = None;
                    g.retry = None;
                }
                GenProgress::Delta { chars, tokens } => {
                    g.chars = *chars;
                    g.tokens = *tokens;
                    g.retry = None;
                }
                GenProgress::Retrying {
                    attempt,
                    after_ms,
                    reason,
                } => {
                    g.retry = Some(format!(
                        "attempt {attempt} failed ({reason}); retrying in {:.1}s",
                        *after_ms as f64 / 1000.0
                    ));
                }
            }
        }
        Action::GenDone {
            dialog,
            generation,
            result,
        } => {
            let Some(d) = awaiting(&mut state.dialog, *dialog, *generation) else {
                return true;
            };
            d.running = None;
            match result {
                Ok(g) => {
                    if let (Some(Prep::Flush(f)), Some(cur)) = (d.prep.as_mut(), &g.current) {
                        if f.current.is_some() || !cur.is_empty() {
                            f.current = Some(cur.clone());
                        }
                    }
                    // A NO_REPLY answer previews as NO_REPLY: committing the preview as it
                    // stands records the flush; emptied notes are refused (the use case's rule).
                    let text = if g.no_reply && g.text.trim().is_empty() {
                        crate::flush::prompts::SILENT_TOKEN
                    } else {
                        g.text.as_str()
                    };
                    let text = strip_controls(text);
                    d.preview = textarea(&text, d.no_color, "");
                    d.preview_base = text;
                    d.warnings = g.warnings.clone();
                    d.audit = g.audit.clone();
                    d.phase = Phase::Preview;
                    d.focus = Focus::Text;
                    d.error = None;
                }
                Err(GenFailure::Cancelled) => {
                    d.phase = Phase::Edit;
                }
                Err(GenFailure::Failed(e)) => {
                    d.phase = Phase::Edit;
                    d.error = Some(format!("Generation failed, nothing written: {e}"));
                }
            }
            d.button = 0;
            d.restyle();
        }
        Action::GatewayDone {
            dialog,
            generation,
            result,
        } => {
            let Some(d) = awaiting(&mut state.dialog, *dialog, *generation) else {
                return true;
            };
            d.running = None;
            d.button = 0;
            match result {
                Ok(r) => {
                    if let Some(Prep::Gateway(gp)) = d.prep.as_mut() {
                        gp.done = true;
                    }
                    d.result = Some(r.clone());
                    d.result_scroll = 0;
                    d.phase = Phase::Done;
                    d.focus = Focus::Buttons;
                    d.error = None;
                    state.status.info = Some(format!(
                        "OpenClaw compacted {} through its gateway and saved it on the host.",
                        crate::sanitize::one_line(&d.who)
                    ));
                    // OpenClaw changed the session: the list and the open transcript follow.
                    after_commit(state, fx);
                }
                Err(GenFailure::Cancelled) => d.phase = Phase::Edit,
                Err(GenFailure::Failed(e)) => {
                    d.phase = Phase::Edit;
                    d.focus = Focus::Text;
                    d.error = Some(e.clone());
                }
            }
            if let Some(d) = state.dialog.as_mut() {
                d.restyle();
            }
        }
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
            if state
                .dialog
                .as_ref()
                .is_some_and(|d| d.phase == Phase::Done) =>
        {
            let width = state.size.0.saturating_sub(4).max(1) as usize;
            let page = state.size.1.saturating_sub(12).max(1);
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let lines = d
                .result
                .as_ref()
                .and_then(|r| r.written.summary.as_deref())
                .map(|s| crate::tui::draw::wrap(s, width).len())
                .unwrap_or(0);
            let last = u16::try_from(lines).unwrap_or(u16::MAX).saturating_sub(1);
            d.result_scroll = match action {
                Action::Up => d.result_scroll.saturating_sub(1),
                Action::Down => d.result_scroll.saturating_add(1),
                Action::PageUp => d.result_scroll.saturating_sub(page),
                Action::PageDown => d.result_scroll.saturating_add(page),
                Action::Bottom => last,
                _ => 0,
            }
            .min(last);
        }
        Action::DialogRegenerate => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.phase == Phase::Preview && d.preview_edited() {
                d.ask_discard = true;
                d.ask_then = Some(Button::Regenerate);
                return true;
            }
            if d.phase == Phase::Preview {
                d.phase = Phase::Edit;
                d.focus = Focus::Text;
                d.button = 0;
                d.warnings.clear();
                d.audit = None;
                d.preview = textarea("", d.no_color, "");
                d.preview_base.clear();
                d.restyle();
            }
        }
        Action::DialogKeepIdentifiers => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let Some(audit) = d
                .audit
                .clone()
                .filter(|a| d.phase == Phase::Preview && a.lost() > Some(0))
            else {
                state.status.info = Some("The preview loses no identifier: nothing to add.".into());
                return true;
            };
            // Back to the instructions with the lost identifiers asked for: the operator reads
            // and edits them, then generates (Ctrl-G) as usual.
            let current = text_of(&d.instructions);
            let asked =
                crate::usecase::compact::keep_identifiers_instructions(Some(&current), &audit)
                    .unwrap_or_default();
            d.instructions = textarea(&asked, d.no_color, "");
            // The cursor after the list, where the operator adds to it.
            d.instructions
                .move_cursor(ratatui_textarea::CursorMove::Bottom);
            d.instructions
                .move_cursor(ratatui_textarea::CursorMove::End);
            let n = audit.lost().unwrap_or(0);
            d.phase = Phase::Edit;
            d.focus = Focus::Text;
            d.button = 0;
            d.warnings.clear();
            d.audit = None;
            d.preview = textarea("", d.no_color, "");
            d.preview_base.clear();
            d.restyle();
            state.status.info = Some(format!(
                "Instructions now ask to keep the {n} lost identifiers: edit them, then Ctrl-G to generate."
            ));
        }
        Action::DialogDiscard => {
            if let Some(d) = state
                .dialog
                .as_mut()
                .filter(|d| d.phase == Phase::Preview && d.preview_edited())
            {
                d.ask_discard = true;
                d.ask_then = Some(Button::Discard);
                return true;
            }
            if state
                .dialog
                .as_ref()
                .is_some_and(|d| d.phase == Phase::Preview)
            {
                state.dialog = None;
                state.status.info = Some("Discarded; nothing written.".into());
            }
        }
        Action::DialogClose => {
            let Some(d) = state.dialog.as_ref() else {
                return true;
            };
            match d.phase {
                Phase::Generating => return update(state, &Action::DialogCancel, fx),
                Phase::Committing => {}
                // OpenClaw's compaction is saved on the host: closing loses nothing.
                Phase::Done => {
                    let who = crate::sanitize::one_line(&d.who);
                    state.dialog = None;
                    state.status.info = Some(format!(
                        "Closed. OpenClaw's compaction of {who} is saved on the host."
                    ));
                }
                _ if d.edited() => {
                    if let Some(d) = state.dialog.as_mut() {
                        d.ask_discard = true;
                    }
                }
                _ => {
                    if let Some(g) = &d.running {
                        fx.push(Effect::Cancel(g.cancel.clone()));
                    }
                    state.dialog = None;
                }
            }
        }
        Action::DialogCommit => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.phase != Phase::Preview {
                return true;
            }
            let text = text_of(&d.preview);
            let lines = match &d.prep {
                Some(Prep::Compact(c)) => {
                    if text.trim().is_empty() {
                        d.error = Some("The summary is empty: nothing to commit.".into());
                        return true;
                    }
                    compact_confirm(c.as_ref(), &text)
                }
                Some(Prep::Flush(f)) => {
                    // The use case's rule: empty notes are refused (NO_REPLY records a
                    // flush without notes).
                    if let Err(e) = crate::usecase::flush::notes_to_commit(&text) {
                        d.error = Some(e.to_string());
                        return true;
                    }
                    crate::tui::flush_ui::confirm_lines(f.as_ref(), &text)
                }
                Some(Prep::Gateway(_)) => {
                    d.error = Some(
                        "Nothing to commit: OpenClaw wrote and saved this summary on the host itself. Close with q."
                            .into(),
                    );
                    return true;
                }
                None => return true,
            };
            d.confirm = Some(PendingCommit { text, lines });
        }
        Action::ConfirmNo => {
            if let Some(d) = state.dialog.as_mut() {
                d.confirm = None;
            }
        }
        Action::ConfirmYes => {
            let now = state.now_ms;
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let Some(p) = d.confirm.take() else {
                return true;
            };
            if let Some(Prep::Gateway(g)) = &d.prep {
                let g = g.as_ref().clone();
                start_gateway_compaction(d, &g, now, fx);
                return true;
            }
            let job = match &d.prep {
                Some(Prep::Compact(c)) => CommitJob::Compact {
                    prep: c.clone(),
                    text: p.text,
                },
                Some(Prep::Flush(f)) => CommitJob::Flush {
                    prep: f.clone(),
                    text: p.text,
                },
                Some(Prep::Gateway(_)) | None => return true,
            };
            d.phase = Phase::Committing;
            d.error = None;
            d.restyle();
            fx.push(Effect::Commit {
                dialog: d.id,
                job: Box::new(job),
            });
        }
        Action::Committed { dialog, result } => {
            let Some(d) = state.dialog.as_mut().filter(|d| d.id == *dialog) else {
                return true;
            };
            match result {
                Ok(msg) => {
                    state.dialog = None;
                    state.status.info = Some(msg.clone());
                    after_commit(state, fx);
                }
                Err(p) => {
                    use crate::usecase::Problem;
                    let e = match p {
                        Problem::Refused(m) => format!("Commit refused, nothing written: {m}"),
                        Problem::Failed(m) => format!("Commit failed, nothing written: {m}"),
                        Problem::PartlyWritten(m) => format!("Partly committed: {m}"),
                        Problem::Usage(m) => m.clone(),
                        Problem::Cancelled | Problem::NoPlan { .. } => p.to_string(),
                    };
                    d.phase = Phase::Preview;
                    d.focus = Focus::Text;
                    d.error = Some(e.clone());
                    d.restyle();
                    state.status.error = Some(e);
                }
            }
        }
        _ => return false,
    }
    true
}

/// Reloads what a commit changed: the sessions list and the open transcript.
fn after_commit(state: &mut AppState, fx: &mut Vec<Effect>) {
    if !state.bare_file {
        fx.push(Effect::LoadSessions);
    }
    if let Some(v) = state.session.as_mut() {
        v.generation = state.next_generation;
        state.next_generation += 1;
        v.loading = true;
        fx.extend(crate::tui::update::open_transcript_effect(v));
    }
}

fn generate(state: &mut AppState, fx: &mut Vec<Effect>) {
    let now = state.now_ms;
    let Some(d) = state.dialog.as_mut() else {
        return;
    };
    if d.phase != Phase::Edit {
        return;
    }
    if let Some(why) = &d.keep_invalid {
        d.error = Some(format!("keepRecentTokens: {why}"));
        return;
    }
    if d.prep_running {
        d.error = Some("The plan for these values is still being made; try again.".into());
        return;
    }
    let Some(prep) = d.prep.clone() else {
        d.error = Some(
            d.prep_error
                .clone()
                .unwrap_or_else(|| "The plan is not ready.".into()),
        );
        return;
    };
    if let Prep::Gateway(g) = &prep {
        ask_gateway_send(d, g);
        return;
    }
    let model = match prep.model() {
        Ok(m) => m.clone(),
        Err(e) => {
            d.error = Some(format!("No model to call: {e}"));
            return;
        }
    };
    let (gen_id, cancel) = d.start_running(now, "starting");
    let instructions = d.instructions_text();
    let job = match prep {
        Prep::Compact(c) => GenJob::Compact {
            prep: c,
            instructions,
        },
        Prep::Flush(f) => GenJob::Flush {
            prep: f,
            instructions,
        },
        Prep::Gateway(_) => return,
    };
    fx.push(Effect::Generate {
        dialog: d.id,
        generation: gen_id,
        model: Box::new(model),
        cancel,
        job: Box::new(job),
    });
}

/// What sending would do, checked: the instructions within OpenClaw's cap (it would cut
/// longer text silently) and an identity to connect with. Err: why it cannot be sent.
fn gateway_send(
    d: &Dialog,
    g: &GatewayPrep,
) -> Result<(Option<String>, std::path::PathBuf), String> {
    if g.done {
        return Err("OpenClaw has already compacted this session; close the dialog (q).".into());
    }
    let instructions =
        crate::usecase::gateway_compact::instructions(d.instructions_text().as_deref())
            .map_err(|e| e.to_string())?;
    let identity_dir = g.identity_dir.clone().ok_or_else(|| {
        "No config dir for clawtop's device identity: set HOME or CLAWTOP_CONFIG_DIR.".to_string()
    })?;
    Ok((instructions, identity_dir))
}

/// Ctrl-G in the gateway's Compact dialog: OpenClaw compacts and saves at once (no preview,
/// nothing clawtop can undo), so the popup names what will be asked before anything is sent.
fn ask_gateway_send(d: &mut Dialog, g: &GatewayPrep) {
    let instructions = match gateway_send(d, g) {
        Ok((i, _)) => i,
        Err(e) => {
            d.error = Some(e);
            return;
        }
    };
    let how = match &instructions {
        Some(_) => "/compact with your instructions as focus text",
        None => "sessions.compact, no instructions",
    };
    let lines = vec![
        format!(
            "Ask {} to compact {} now ({how}).",
            g.via,
            crate::sanitize::one_line(&g.key)
        ),
        "OpenClaw writes the summary with its own model and saves it at once: there is no preview, and clawtop cannot undo it.".into(),
        "Refused, nothing sent, while a run is active on the session.".into(),
    ];
    d.error = None;
    d.confirm = Some(PendingCommit {
        text: instructions.unwrap_or_default(),
        lines,
    });
}

/// Sends the compaction to the gateway (after [`ask_gateway_send`]'s popup): one
/// [`Effect::GatewayCompact`] runs it.
fn start_gateway_compaction(d: &mut Dialog, g: &GatewayPrep, now: i64, fx: &mut Vec<Effect>) {
    let (instructions, identity_dir) = match gateway_send(d, g) {
        Ok(x) => x,
        Err(e) => {
            d.error = Some(e);
            return;
        }
    };
    let (gen_id, cancel) = d.start_running(now, "connecting to the gateway");
    fx.push(Effect::GatewayCompact {
        dialog: d.id,
        generation: gen_id,
        cancel,
        job: Box::new(crate::tui::effects::GatewayJob {
            target: g.target.clone(),
            session: d.session.clone(),
            identity_dir,
            instructions,
            vouch_idle: g.vouch_idle,
        }),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_controls_keeps_text_and_newlines() {
        assert_eq!(
            strip_controls("a\u{1b}[31mb\r\n\tc\u{7}\u{9b}\u{202e}d"),
            "a[31mb\n    cd"
        );
    }
}
