//! The Compact and Flush dialogs (docs/interface.md §2): their state. The part of `update`
//! that drives them is [`crate::tui::update::dialog`].
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
//! Nothing here does I/O: planning, generation and commit are
//! [`Effect`](crate::tui::model::effect::Effect)s; their results come back as
//! [`Action`](crate::tui::model::action::Action)s tagged with the dialog id (and the
//! generation id), so a result that arrives after a cancel or after the dialog closed is
//! dropped.
//!
//! Untrusted text: plan strings shown here are sanitized when drawn; model output (the summary
//! or the notes) is put into the editable preview only after [`strip_controls`] removed every
//! control character and escape, so what the operator sees and edits is byte for byte what a
//! commit writes.
//!
//! Here: the state and the rules every dialog shares.

use crate::llm::CancellationToken;
use crate::tui::model::view::thousands;
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
    pub keep_invalid: Option<KeepError>,
    /// The `error` that said the typed keepRecentTokens is not a value: cleared once it is
    /// one, unless another error has replaced it since.
    pub keep_error: Option<String>,
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
    /// Compact: the preview's edits, counted; the audit shown is of edit `audit_seq` once
    /// `audited_seq` reaches it. An edit asks for a new audit after [`AUDIT_QUIET_MS`] without
    /// typing (`audit_due`), one at a time (`audit_running`).
    pub edit_seq: u64,
    pub audited_seq: u64,
    pub audit_due: Option<i64>,
    pub audit_running: bool,
    /// Compact: what the operator said about a flush due first (F3 / F7).
    pub flush_choice: crate::usecase::compact::FlushChoice,
    /// Flush: opened from the Compact dialog's F3; once committed, the compaction comes back
    /// with these instructions and keepRecentTokens.
    pub then_compact: Option<ThenCompact>,
}

/// The Compact dialog's values kept while its flush runs first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThenCompact {
    pub instructions: String,
    pub keep: Option<u64>,
}

/// Quiet time after the last edit of a compaction's preview before its audit runs again.
pub const AUDIT_QUIET_MS: i64 = 400;

/// The preview's text changed (typing, undo, an external edit): a compaction's audit is
/// asked for again once the operator pauses.
pub fn draft_edited(d: &mut Dialog, now_ms: i64) {
    if d.kind != DialogKind::Compact || d.phase != Phase::Preview {
        return;
    }
    d.edit_seq += 1;
    d.audit_due = Some(now_ms + AUDIT_QUIET_MS);
}

/// Step of the dialog's keepRecentTokens keys.
pub const KEEP_STEP: u64 = 1_000;
/// Largest keepRecentTokens the dialog takes (far beyond any context window: a bigger
/// number is a typo).
pub const KEEP_MAX: u64 = 10_000_000;

/// Why the typed keepRecentTokens is not a value, in words for the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeepError {
    #[error("type a number of tokens")]
    Empty,
    #[error("not a number")]
    NotANumber,
    #[error("at most {}", thousands(KEEP_MAX))]
    TooLarge,
    #[error("at least 1")]
    Zero,
}

/// A typed keepRecentTokens: digits, with `,` `_` or spaces between groups, or a number of
/// thousands with `k` (`20k`).
pub fn parse_keep(text: &str) -> Result<u64, KeepError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(KeepError::Empty);
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
        return Err(KeepError::NotANumber);
    }
    let v = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n <= KEEP_MAX)
        .ok_or(KeepError::TooLarge)?;
    if v == 0 {
        return Err(KeepError::Zero);
    }
    Ok(v)
}

/// The one cleaning of text that is committed ([`crate::sanitize::committable`]); the TUI
/// applies it before text reaches the editable preview, so the preview is what is written.
pub use crate::sanitize::committable as strip_controls;

pub fn textarea(text: &str, _no_color: bool, placeholder: &str) -> TextArea<'static> {
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
    /// Back from the preview to editing the instructions: the draft, its warnings and its
    /// audit are dropped (a new draft is generated from the edited instructions).
    pub fn back_to_edit(&mut self) {
        self.phase = Phase::Edit;
        self.focus = Focus::Text;
        self.button = 0;
        self.warnings.clear();
        self.audit = None;
        self.audit_due = None;
        self.preview = textarea("", self.no_color, "");
        self.preview_base.clear();
        self.restyle();
    }

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
            keep_error: None,
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
            edit_seq: 0,
            audited_seq: 0,
            audit_due: None,
            audit_running: false,
            flush_choice: Default::default(),
            then_compact: None,
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
    pub(crate) fn focused_text(&mut self) -> Option<(EditTarget, &mut TextArea<'static>)> {
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
    pub(crate) fn next_focus(&self) -> Focus {
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
    pub(crate) fn start_running(&mut self, now: i64, label: &str) -> (u64, CancellationToken) {
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
