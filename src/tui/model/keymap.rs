//! (mode, key) → Action. The help overlay and the status-line hints are generated from this
//! table (gitui's `commands()` idea), so they cannot drift from the bindings.
//!
//! One keymap for both TUIs: the fleet TUI's screens (`clawtop --hosts`) are modes here too
//! ([`Mode::FLEET`]), their keys are [`Action`]s, looked up by the same [`lookup`]. Its rows
//! are a table of their own ([`fleet_bindings`]) so that the single-host help lists the
//! single-host keys only.

use crate::tui::model::action::Action;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Applies in every mode (except that `?` types a `?` while filtering).
    Global,
    Sessions,
    /// Typing into the Sessions filter.
    Filter,
    Session,
    /// The expanded-entry popup on the Session screen.
    Detail,
    /// Typing into the Session screen's search or jump prompt.
    Prompt,
    Summaries,
    /// Compact/Flush dialog, typing into the instructions editor.
    DialogEdit,
    /// Compact/Flush dialog, editing the generated text.
    DialogPreview,
    /// Compact/Flush dialog, focus on its buttons.
    DialogButtons,
    /// Compact dialog, typing into the keepRecentTokens field.
    DialogKeep,
    /// Compact/Flush dialog, the model picker.
    DialogModel,
    /// "Discard your edits?" asked before a dialog with edited text closes.
    AskDiscard,
    /// Compact/Flush dialog while the model writes (or the commit runs).
    Generating,
    /// The read-only result of a compaction OpenClaw's Gateway ran.
    DialogResult,
    /// The commit confirmation popup.
    Confirm,
    Help,
    /// The fleet TUI, on either screen (its "everywhere", as [`Mode::Global`] is the
    /// single-host TUI's).
    Fleet,
    /// The fleet TUI's Fleet screen (one row per host).
    FleetHosts,
    /// The fleet TUI's Sessions screen (the sessions of one host, or of every host).
    FleetSessions,
}

impl Mode {
    pub fn title(self) -> &'static str {
        match self {
            Mode::Global => "Everywhere",
            Mode::Sessions => "Sessions",
            Mode::Filter => "Filter (typing)",
            Mode::Session => "Session",
            Mode::Detail => "Entry detail",
            Mode::Prompt => "Search / jump prompt (other keys type)",
            Mode::Summaries => "Summaries",
            Mode::DialogEdit => {
                "Compact / Flush dialog: instructions editor (other keys edit the text)"
            }
            Mode::DialogPreview => {
                "Compact / Flush dialog: editable preview (other keys edit the text)"
            }
            Mode::DialogButtons => "Compact / Flush dialog: buttons",
            Mode::DialogKeep => "Compact dialog: keepRecentTokens field (digits type)",
            Mode::DialogModel => "Compact / Flush dialog: model picker",
            Mode::AskDiscard => "Close the dialog and discard the edited text?",
            Mode::Generating => "Compact / Flush dialog: generating",
            Mode::DialogResult => "Compact dialog: what OpenClaw wrote (read-only)",
            Mode::Confirm => "Commit confirmation",
            Mode::Help => "Help",
            Mode::Fleet => "Fleet: everywhere",
            Mode::FleetHosts => "Fleet: hosts",
            Mode::FleetSessions => "Fleet: sessions",
        }
    }

    /// The fleet TUI's modes (the single-host ones are [`Mode::ALL`]).
    pub const FLEET: [Mode; 3] = [Mode::FleetHosts, Mode::FleetSessions, Mode::Fleet];

    pub fn is_fleet(self) -> bool {
        matches!(self, Mode::Fleet | Mode::FleetHosts | Mode::FleetSessions)
    }

    /// The mode whose bindings also apply in this one.
    fn everywhere(self) -> Mode {
        if self.is_fleet() {
            Mode::Fleet
        } else {
            Mode::Global
        }
    }

    pub const ALL: [Mode; 17] = [
        Mode::Sessions,
        Mode::Filter,
        Mode::Session,
        Mode::Prompt,
        Mode::Detail,
        Mode::Summaries,
        Mode::DialogEdit,
        Mode::DialogPreview,
        Mode::DialogKeep,
        Mode::DialogModel,
        Mode::DialogButtons,
        Mode::AskDiscard,
        Mode::Generating,
        Mode::DialogResult,
        Mode::Confirm,
        Mode::Help,
        Mode::Global,
    ];

    /// Modes where unbound keys are typed into a text area (and `?` is a character).
    pub fn typing(self) -> bool {
        matches!(
            self,
            Mode::Filter | Mode::Prompt | Mode::DialogEdit | Mode::DialogPreview
        )
    }
}

/// One line of the help: the keys of a mode that trigger one action.
#[derive(Debug, Clone)]
pub struct Binding {
    pub mode: Mode,
    pub keys: Vec<(KeyCode, KeyModifiers)>,
    pub action: Action,
    pub help: &'static str,
    /// Short text for the status-line hints (None: help overlay only).
    pub hint: Option<&'static str>,
}

impl Binding {
    /// "↑/k", "Ctrl-c", ...
    pub fn keys_label(&self) -> String {
        self.keys
            .iter()
            .map(|&(c, m)| key_label(c, m))
            .collect::<Vec<_>>()
            .join("/")
    }
}

pub fn key_label(code: KeyCode, mods: KeyModifiers) -> String {
    let base = match code {
        KeyCode::Up => "↑".to_string(),
        KeyCode::Down => "↓".to_string(),
        KeyCode::Left => "←".to_string(),
        KeyCode::Right => "→".to_string(),
        KeyCode::PageUp => "PgUp".to_string(),
        KeyCode::PageDown => "PgDn".to_string(),
        KeyCode::Home => "Home".to_string(),
        KeyCode::End => "End".to_string(),
        KeyCode::Enter => "Enter".to_string(),
        KeyCode::Esc => "Esc".to_string(),
        KeyCode::Tab => "Tab".to_string(),
        KeyCode::BackTab => "S-Tab".to_string(),
        KeyCode::Backspace => "Bksp".to_string(),
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::F(n) => format!("F{n}"),
        KeyCode::Char(c) => c.to_string(),
        other => format!("{other:?}"),
    };
    if mods.contains(KeyModifiers::CONTROL) {
        format!("Ctrl-{}", base.to_uppercase())
    } else {
        base
    }
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

/// A binding with modifiers per key (Ctrl-G, F5, ...).
fn bm(
    mode: Mode,
    keys: &[(KeyCode, KeyModifiers)],
    action: Action,
    help: &'static str,
    hint: Option<&'static str>,
) -> Binding {
    Binding {
        mode,
        keys: keys.to_vec(),
        action,
        help,
        hint,
    }
}

fn b(
    mode: Mode,
    keys: &[KeyCode],
    action: Action,
    help: &'static str,
    hint: Option<&'static str>,
) -> Binding {
    Binding {
        mode,
        keys: keys.iter().map(|&k| (k, NONE)).collect(),
        action,
        help,
        hint,
    }
}

fn movement(mode: Mode, what: &'static str) -> Vec<Binding> {
    use KeyCode::*;
    let (up, down) = match what {
        "scroll" => ("scroll up", "scroll down"),
        _ => ("previous", "next"),
    };
    vec![
        b(mode, &[Up, Char('k')], Action::Up, up, None),
        b(mode, &[Down, Char('j')], Action::Down, down, None),
        b(mode, &[PageUp, Char('b')], Action::PageUp, "page up", None),
        b(
            mode,
            &[PageDown, Char(' ')],
            Action::PageDown,
            "page down",
            None,
        ),
        b(mode, &[Home, Char('g')], Action::Top, "first", None),
        b(mode, &[End, Char('G')], Action::Bottom, "last", None),
    ]
}

static BINDINGS: LazyLock<Vec<Binding>> = LazyLock::new(|| {
    use KeyCode::*;
    let mut v = Vec::new();
    // Sessions
    v.push(b(
        Mode::Sessions,
        &[Enter],
        Action::Open,
        "open session",
        Some("open"),
    ));
    v.extend(movement(Mode::Sessions, "select"));
    v.push(b(
        Mode::Sessions,
        &[Char('s')],
        Action::CycleSort,
        "cycle sort: pressure, updated, agent/key, ETA",
        Some("sort"),
    ));
    v.push(b(
        Mode::Sessions,
        &[Char('/')],
        Action::StartFilter,
        "filter (type to narrow, Enter keeps, Esc clears)",
        Some("filter"),
    ));
    v.push(b(
        Mode::Sessions,
        &[Esc],
        Action::ClearFilter,
        "clear filter",
        None,
    ));
    v.push(b(
        Mode::Sessions,
        &[Char('r')],
        Action::Refresh,
        "reload now",
        None,
    ));
    v.push(b(
        Mode::Sessions,
        &[Char('c')],
        Action::OpenCompact,
        "compact the selected session",
        Some("compact"),
    ));
    v.push(b(
        Mode::Sessions,
        &[Char('C')],
        Action::OpenCompactViaGateway,
        "compact through the host's running gateway",
        None,
    ));
    v.push(b(
        Mode::Sessions,
        &[Char('f')],
        Action::OpenFlush,
        "memory flush of the selected session",
        Some("flush"),
    ));
    v.push(b(
        Mode::Sessions,
        &[Char('q')],
        Action::Close,
        "quit",
        Some("quit"),
    ));
    // Filter typing: other printable keys are typed (see `lookup`).
    v.push(b(
        Mode::Filter,
        &[Enter],
        Action::AcceptFilter,
        "keep filter",
        Some("keep"),
    ));
    v.push(b(
        Mode::Filter,
        &[Esc],
        Action::ClearFilter,
        "clear filter",
        Some("clear"),
    ));
    v.push(b(
        Mode::Filter,
        &[Backspace],
        Action::FilterBackspace,
        "delete a character",
        None,
    ));
    v.push(b(Mode::Filter, &[Up], Action::Up, "previous", None));
    v.push(b(Mode::Filter, &[Down], Action::Down, "next", None));
    // Session
    v.push(b(
        Mode::Session,
        &[Enter, Char('e')],
        Action::Open,
        "expand entry (full text, scrollable)",
        Some("expand"),
    ));
    v.extend(movement(Mode::Session, "select"));
    v.push(b(
        Mode::Session,
        &[Char('c')],
        Action::OpenCompact,
        "compact this session (plan, preview, commit)",
        Some("compact"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('C')],
        Action::OpenCompactViaGateway,
        "compact through the host's running gateway",
        None,
    ));
    v.push(b(
        Mode::Session,
        &[Char('f')],
        Action::OpenFlush,
        "memory flush of this session",
        Some("flush"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('/')],
        Action::StartSearch,
        "search the transcript (then n / N)",
        Some("search"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('n'), Char(']')],
        Action::FindNext,
        "next match: compaction, or what t / / chose",
        Some("next"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('N'), Char('[')],
        Action::FindPrev,
        "previous match",
        None,
    ));
    v.push(b(
        Mode::Session,
        &[Char('H')],
        Action::ToggleHistory,
        "history: context per turn, compactions, flushes",
        None,
    ));
    v.push(b(
        Mode::Session,
        &[Char('$')],
        Action::ToggleCost,
        "cost: spend, $/h, cache hit ratio and busts",
        None,
    ));
    v.push(b(
        Mode::Session,
        &[Char('t')],
        Action::CycleFindKind,
        "n / N find: compaction, error, tool, flush turn",
        Some("kind"),
    ));
    v.push(b(
        Mode::Session,
        &[Char(':')],
        Action::StartJump,
        "jump to an entry index (#) or id",
        Some("jump"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('x')],
        Action::JumpToCut,
        "jump to where the next compaction would cut",
        Some("cut"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('i')],
        Action::ShowContext,
        "context view: what the context holds, figures, advice",
        Some("context"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('S')],
        Action::ShowSummaries,
        "all compaction summaries",
        Some("summaries"),
    ));
    v.push(b(
        Mode::Session,
        &[Char('q')],
        Action::Close,
        "back (quit on the first screen)",
        Some("back"),
    ));
    v.push(b(Mode::Session, &[Esc], Action::Back, "back", None));
    // Prompt (search / jump): letters are text here, never commands.
    v.push(b(
        Mode::Prompt,
        &[Enter],
        Action::PromptAccept,
        "search / jump",
        Some("go"),
    ));
    v.push(b(
        Mode::Prompt,
        &[Esc],
        Action::PromptCancel,
        "close the prompt",
        Some("cancel"),
    ));
    v.push(b(
        Mode::Prompt,
        &[Backspace],
        Action::PromptBackspace,
        "delete a character",
        None,
    ));
    // Detail
    v.extend(movement(Mode::Detail, "scroll"));
    v.push(b(
        Mode::Detail,
        &[Enter, Esc, Char('q'), Char('e')],
        Action::Back,
        "close",
        Some("close"),
    ));
    // Summaries
    v.push(b(
        Mode::Summaries,
        &[Char('n'), Tab],
        Action::NextCompaction,
        "next compaction",
        Some("next compaction"),
    ));
    v.push(b(
        Mode::Summaries,
        &[Char('p'), BackTab],
        Action::PrevCompaction,
        "previous compaction",
        Some("prev"),
    ));
    v.push(b(
        Mode::Summaries,
        &[Char('d')],
        Action::ToggleSummaryDiff,
        "diff: what this compaction dropped and added",
        Some("diff"),
    ));
    v.push(b(
        Mode::Summaries,
        &[Char('e')],
        Action::ExportSummary,
        "export the summary to a file (asks to overwrite)",
        Some("export"),
    ));
    v.extend(movement(Mode::Summaries, "scroll"));
    v.push(b(
        Mode::Summaries,
        &[Char('q'), Esc],
        Action::Back,
        "back to the session",
        Some("back"),
    ));
    v.push(b(
        Mode::Summaries,
        &[Char(']')],
        Action::NextLost,
        "pick the next identifier this compaction lost",
        Some("lost"),
    ));
    v.push(b(
        Mode::Summaries,
        &[Char('[')],
        Action::PrevLost,
        "pick the previous lost identifier",
        None,
    ));
    v.push(b(
        Mode::Summaries,
        &[Enter],
        Action::JumpToLost,
        "go to the entry that held the picked lost identifier",
        Some("go to entry"),
    ));
    // Dialogs. Text areas take every other key; commands are Ctrl letters the editor does not
    // use (G, O, T) and function keys, which all reach the program over ssh (no Ctrl-S/Ctrl-Q:
    // terminals may eat them for flow control). The editor's own keys (ratatui-textarea) are
    // listed here too so help shows them: Ctrl-U undo and Ctrl-R redo are its history keys,
    // and Ctrl-E is its end-of-line, which is why `$EDITOR` is on Ctrl-T.
    for (mode, verb) in [
        (Mode::DialogEdit, "generate with these instructions"),
        (
            Mode::DialogPreview,
            "back to the instructions, generate again",
        ),
    ] {
        let (action, hint) = if mode == Mode::DialogEdit {
            (Action::DialogGenerate, "generate")
        } else {
            (Action::DialogRegenerate, "regenerate")
        };
        if mode == Mode::DialogPreview {
            v.push(bm(
                mode,
                &[(Char('o'), CTRL), (F(2), NONE)],
                Action::DialogCommit,
                "commit… (asks for confirmation first)",
                Some("commit"),
            ));
        }
        v.push(bm(
            mode,
            &[(Char('g'), CTRL), (F(5), NONE)],
            action,
            verb,
            Some(hint),
        ));
        if mode == Mode::DialogPreview {
            v.push(b(
                mode,
                &[F(6)],
                Action::DialogKeepIdentifiers,
                "compaction: instructions + the identifiers it lost",
                None,
            ));
            v.push(b(
                mode,
                &[F(8)],
                Action::DialogDiscard,
                "discard the result, close (nothing written)",
                Some("discard"),
            ));
        }
        v.push(b(
            mode,
            &[Esc],
            Action::DialogClose,
            "close; asks first if you edited the text",
            Some("close"),
        ));
        v.push(b(
            mode,
            &[Tab],
            Action::DialogFocus,
            "next field (keepRecentTokens, model, buttons)",
            Some("next"),
        ));
        v.push(bm(
            mode,
            &[(Char('t'), CTRL), (F(4), NONE)],
            Action::DialogExternalEdit,
            "edit this text in $VISUAL / $EDITOR (vi if unset)",
            Some("$EDITOR"),
        ));
        v.push(bm(
            mode,
            &[(Char('u'), CTRL)],
            Action::DialogUndo,
            "undo",
            Some("undo"),
        ));
        v.push(bm(
            mode,
            &[(Char('r'), CTRL)],
            Action::DialogRedo,
            "redo",
            Some("redo"),
        ));
        // `?` is text here: help is on F1.
        v.push(b(mode, &[F(1)], Action::ToggleHelp, "help", Some("help")));
    }
    // A flush due before the compaction: wherever the operator is before generating.
    for mode in [
        Mode::DialogEdit,
        Mode::DialogKeep,
        Mode::DialogModel,
        Mode::DialogButtons,
    ] {
        v.push(b(
            mode,
            &[F(3)],
            Action::DialogFlushFirst,
            "flush due: flush first (as f), then compact",
            None,
        ));
        v.push(b(
            mode,
            &[F(7)],
            Action::DialogSkipFlush,
            "flush due: compact without it",
            None,
        ));
    }
    // The keepRecentTokens field: digits type (other characters show as invalid).
    v.push(b(
        Mode::DialogKeep,
        &[Backspace],
        Action::DialogKeepBackspace,
        "delete a digit",
        None,
    ));
    v.push(b(
        Mode::DialogKeep,
        &[Char('+'), Char('='), Up],
        Action::DialogKeepMore,
        "keepRecentTokens +1,000",
        Some("+1k"),
    ));
    v.push(b(
        Mode::DialogKeep,
        &[Char('-'), Down],
        Action::DialogKeepLess,
        "keepRecentTokens -1,000",
        Some("-1k"),
    ));
    v.push(bm(
        Mode::DialogKeep,
        &[(Char('g'), CTRL), (F(5), NONE)],
        Action::DialogGenerate,
        "generate",
        Some("generate"),
    ));
    v.push(b(
        Mode::DialogKeep,
        &[Esc],
        Action::DialogClose,
        "close; asks first if you edited the text",
        Some("close"),
    ));
    v.push(b(
        Mode::DialogKeep,
        &[Tab, Enter],
        Action::DialogFocus,
        "next field (model)",
        Some("next"),
    ));
    // The model picker: the session's model, then every model openclaw.json and the agent's
    // models.json list (one per base URL where they disagree).
    v.push(b(
        Mode::DialogModel,
        &[Right, Down, Char('l'), Char('j')],
        Action::DialogModelNext,
        "next model for this operation",
        Some("model"),
    ));
    v.push(b(
        Mode::DialogModel,
        &[Left, Up, Char('h'), Char('k')],
        Action::DialogModelPrev,
        "previous model",
        None,
    ));
    v.push(bm(
        Mode::DialogModel,
        &[(Char('g'), CTRL), (F(5), NONE)],
        Action::DialogGenerate,
        "generate with this model",
        Some("generate"),
    ));
    v.push(b(
        Mode::DialogModel,
        &[Esc],
        Action::DialogClose,
        "close; asks first if you edited the text",
        Some("close"),
    ));
    v.push(b(
        Mode::DialogModel,
        &[Tab, Enter],
        Action::DialogFocus,
        "next field (buttons)",
        Some("next"),
    ));
    v.push(b(
        Mode::AskDiscard,
        &[Char('y')],
        Action::DialogDiscardYes,
        "discard the edited text and close (nothing written)",
        Some("discard"),
    ));
    v.push(b(
        Mode::AskDiscard,
        &[Char('n'), Esc],
        Action::DialogDiscardNo,
        "back to the dialog, text kept",
        Some("keep editing"),
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Right, Char('l')],
        Action::DialogButtonNext,
        "next button",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Left, Char('h')],
        Action::DialogButtonPrev,
        "previous button",
        None,
    ));
    // Enter presses; Space and other letters are text (see `lookup`): a key meant for the
    // text never runs an operation or gets lost.
    v.push(b(
        Mode::DialogButtons,
        &[Enter],
        Action::DialogPress,
        "press the selected button; letters type text",
        Some("press"),
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Char('+'), Char('=')],
        Action::DialogKeepMore,
        "keepRecentTokens +1,000 (compact)",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Char('-')],
        Action::DialogKeepLess,
        "keepRecentTokens -1,000 (compact)",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Char('g')],
        Action::DialogGenerate,
        "generate",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Char('c')],
        Action::DialogCommit,
        "commit… (preview only; asks first)",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Char('r')],
        Action::DialogRegenerate,
        "regenerate (preview only)",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Char('d')],
        Action::DialogDiscard,
        "discard (preview only; nothing written)",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Tab],
        Action::DialogFocus,
        "back to the text",
        Some("text"),
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Esc],
        Action::DialogClose,
        "close; asks first if you edited the text",
        None,
    ));
    v.push(b(
        Mode::DialogButtons,
        &[Char('q')],
        Action::DialogClose,
        "close the dialog (nothing written)",
        Some("close"),
    ));
    // OpenClaw's compaction result: saved on the host already, so one key closes it.
    v.push(b(
        Mode::DialogResult,
        &[Esc, Enter, Char('q')],
        Action::DialogClose,
        "close (OpenClaw's compaction stays saved on the host)",
        Some("close"),
    ));
    v.extend(movement(Mode::DialogResult, "scroll"));
    v.push(b(
        Mode::Generating,
        &[Esc],
        Action::DialogCancel,
        "cancel generation, back to the instructions",
        Some("cancel"),
    ));
    v.push(b(
        Mode::Confirm,
        &[Char('y'), Enter],
        Action::ConfirmYes,
        "write it",
        Some("write"),
    ));
    v.push(b(
        Mode::Confirm,
        &[Char('n'), Esc],
        Action::ConfirmNo,
        "back to the preview (nothing written)",
        Some("back"),
    ));
    // Help
    v.push(b(
        Mode::Help,
        &[Up, Char('k')],
        Action::Up,
        "scroll up",
        None,
    ));
    v.push(b(
        Mode::Help,
        &[Down, Char('j')],
        Action::Down,
        "scroll down",
        None,
    ));
    v.push(b(
        Mode::Help,
        &[PageUp, Char('b')],
        Action::PageUp,
        "page up",
        None,
    ));
    v.push(b(
        Mode::Help,
        &[PageDown, Char(' ')],
        Action::PageDown,
        "page down",
        None,
    ));
    v.push(b(
        Mode::Help,
        &[Home, Char('g')],
        Action::Top,
        "first",
        None,
    ));
    v.push(b(
        Mode::Help,
        &[End, Char('G')],
        Action::Bottom,
        "last",
        None,
    ));
    v.push(b(
        Mode::Help,
        &[Char('?'), Esc, Char('q'), F(1)],
        Action::Back,
        "close help",
        Some("close"),
    ));
    // Global
    v.push(b(
        Mode::Global,
        &[Char('?')],
        Action::ToggleHelp,
        "help",
        Some("help"),
    ));
    v.push(Binding {
        mode: Mode::Global,
        keys: vec![(Char('c'), KeyModifiers::CONTROL)],
        action: Action::Quit,
        help: "quit now",
        hint: None,
    });
    v
});

/// The fleet TUI's keys: the Fleet and Sessions screens, then both.
static FLEET_BINDINGS: LazyLock<Vec<Binding>> = LazyLock::new(|| {
    use KeyCode::*;
    use Mode::{Fleet, FleetHosts, FleetSessions};
    // Short hints: at 80 columns the footer keeps the screen's own keys and `? help`.
    vec![
        b(Fleet, &[Up, Char('k')], Action::Up, "previous row", None),
        b(Fleet, &[Down, Char('j')], Action::Down, "next row", None),
        b(
            FleetHosts,
            &[Enter],
            Action::Open,
            "the host's sessions (a host that failed: its whole error)",
            Some("sessions"),
        ),
        b(
            FleetSessions,
            &[Enter],
            Action::Open,
            "open the session in clawtop on its host (ssh -t for an ssh host); q there comes back here (a failed host's row: its whole error)",
            Some("open"),
        ),
        b(
            FleetHosts,
            &[Char('a')],
            Action::FleetAllSessions,
            "sessions of every host",
            Some("every host"),
        ),
        b(
            FleetSessions,
            &[Char('s')],
            Action::CycleSort,
            "cycle sort: act first, updated, agent/key, ETA",
            Some("sort"),
        ),
        b(
            FleetSessions,
            &[Char('/')],
            Action::StartFilter,
            "filter (type to narrow by host, agent, key, model or status; Enter keeps, Esc clears)",
            Some("filter"),
        ),
        b(
            FleetSessions,
            &[Char('h')],
            Action::FleetNextHost,
            "next host (then every host)",
            Some("next host"),
        ),
        b(
            FleetSessions,
            &[Esc],
            Action::Back,
            "clear the filter, else back to the fleet",
            Some("back"),
        ),
        b(
            Fleet,
            &[Char('r')],
            Action::Refresh,
            "read every host now",
            Some("refresh"),
        ),
        b(
            Fleet,
            &[Char('?')],
            Action::ToggleHelp,
            "help",
            Some("help"),
        ),
        b(Fleet, &[Char('q')], Action::Quit, "quit", Some("quit")),
        bm(Fleet, &[(Char('c'), CTRL)], Action::Quit, "quit now", None),
    ]
});

/// The single-host TUI's keys (every mode of [`Mode::ALL`]).
pub fn bindings() -> &'static [Binding] {
    &BINDINGS
}

/// The fleet TUI's keys (every mode of [`Mode::FLEET`]).
pub fn fleet_bindings() -> &'static [Binding] {
    &FLEET_BINDINGS
}

/// The table `mode` is in.
fn table(mode: Mode) -> &'static [Binding] {
    if mode.is_fleet() {
        fleet_bindings()
    } else {
        bindings()
    }
}

/// Bindings shown for a mode (its own, then the global ones).
pub fn for_mode(mode: Mode) -> impl Iterator<Item = &'static Binding> {
    let global = !mode.typing();
    table(mode)
        .iter()
        .filter(move |b| b.mode == mode || (global && b.mode == mode.everywhere()))
}

fn matches(code: KeyCode, mods: KeyModifiers, key: &KeyEvent) -> bool {
    // Shifted letters arrive as uppercase chars with SHIFT set; compare chars only.
    let relevant = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
    code == key.code && (mods & (KeyModifiers::CONTROL | KeyModifiers::ALT)) == relevant
}

/// The action for a key in a mode, if any.
pub fn lookup(mode: Mode, key: &KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let find = |m: Mode| {
        table(m)
            .iter()
            .find(|b| b.mode == m && b.keys.iter().any(|&(c, mo)| matches(c, mo, key)))
    };
    if let Some(b) = find(mode) {
        return Some(b.action.clone());
    }
    if matches!(mode, Mode::Filter | Mode::Prompt) {
        if let KeyCode::Char(c) = key.code {
            if !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                return Some(if mode == Mode::Filter {
                    Action::FilterChar(c)
                } else {
                    Action::PromptChar(c)
                });
            }
        }
    }
    if mode == Mode::DialogKeep {
        if let KeyCode::Char(c) = key.code {
            if c != '?'
                && !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                return Some(Action::DialogKeepChar(c));
            }
        }
    }
    // On the dialog's buttons, a character that is no button key was meant for the text: it
    // is typed there (the focus goes back), not dropped and never a button press.
    if mode == Mode::DialogButtons {
        if let KeyCode::Char(c) = key.code {
            if c != '?'
                && !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                return Some(Action::DialogInput(*key));
            }
        }
    }
    let global = find(mode.everywhere());
    if matches!(mode, Mode::DialogEdit | Mode::DialogPreview) {
        // Ctrl-C still quits; everything else edits the text (`?` included).
        return match global {
            Some(g) if !g.action.is_help() => Some(g.action.clone()),
            _ => Some(Action::DialogInput(*key)),
        };
    }
    let global = global?;
    // While typing, `?` is a character, not help.
    if matches!(mode, Mode::Filter | Mode::Prompt) && global.action.is_help() {
        return None;
    }
    Some(global.action.clone())
}

impl Action {
    fn is_help(&self) -> bool {
        matches!(self, Action::ToggleHelp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice_in_a_mode() {
        for mode in Mode::ALL {
            let mut seen = std::collections::HashSet::new();
            for b in bindings().iter().filter(|b| b.mode == mode) {
                for k in &b.keys {
                    assert!(
                        seen.insert(*k),
                        "{mode:?}: {} bound twice",
                        key_label(k.0, k.1)
                    );
                }
            }
        }
    }

    #[test]
    fn the_fleet_modes_have_their_own_keys_in_the_one_table_shape() {
        for mode in Mode::FLEET {
            let mut seen = std::collections::HashSet::new();
            for b in fleet_bindings().iter().filter(|b| b.mode == mode) {
                for k in &b.keys {
                    assert!(
                        seen.insert(*k),
                        "{mode:?}: {} bound twice",
                        key_label(k.0, k.1)
                    );
                }
            }
        }
        assert!(fleet_bindings().iter().all(|b| b.mode.is_fleet()));
        assert!(bindings().iter().all(|b| !b.mode.is_fleet()));
        let k = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(matches!(
            lookup(Mode::FleetHosts, &k('a')),
            Some(Action::FleetAllSessions)
        ));
        assert!(lookup(Mode::FleetSessions, &k('a')).is_none());
        assert!(matches!(
            lookup(Mode::FleetSessions, &k('h')),
            Some(Action::FleetNextHost)
        ));
        assert!(matches!(
            lookup(Mode::FleetSessions, &k('j')),
            Some(Action::Down)
        ));
        assert!(matches!(
            lookup(Mode::FleetHosts, &ctrl_c),
            Some(Action::Quit)
        ));
        // The single-host keys do not leak into the fleet, nor the fleet's into it.
        assert!(lookup(Mode::FleetHosts, &k('S')).is_none());
        assert!(!matches!(
            lookup(Mode::Sessions, &k('h')),
            Some(Action::FleetNextHost)
        ));
        let hosts: Vec<String> = for_mode(Mode::FleetHosts).map(|b| b.keys_label()).collect();
        assert_eq!(hosts, ["↑/k", "↓/j", "Enter", "a", "r", "?", "q", "Ctrl-C"]);
    }

    #[test]
    fn filter_mode_types_characters() {
        let k = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        assert!(matches!(
            lookup(Mode::Filter, &k('q')),
            Some(Action::FilterChar('q'))
        ));
        assert!(matches!(
            lookup(Mode::Filter, &k('?')),
            Some(Action::FilterChar('?'))
        ));
        assert!(matches!(
            lookup(Mode::Sessions, &k('?')),
            Some(Action::ToggleHelp)
        ));
        assert!(matches!(
            lookup(Mode::Session, &k('S')),
            Some(Action::ShowSummaries)
        ));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(matches!(lookup(Mode::Filter, &ctrl_c), Some(Action::Quit)));
        assert!(matches!(lookup(Mode::Session, &ctrl_c), Some(Action::Quit)));
        // Plain `c` in the Session mode opens the Compact dialog, not quit; `n` jumps.
        assert!(matches!(
            lookup(Mode::Session, &k('c')),
            Some(Action::OpenCompact)
        ));
        assert!(matches!(
            lookup(Mode::Session, &k('n')),
            Some(Action::FindNext)
        ));
        // In the search / jump prompt every letter is text, `?` too; Ctrl-C still quits.
        assert!(matches!(
            lookup(Mode::Prompt, &k('c')),
            Some(Action::PromptChar('c'))
        ));
        assert!(matches!(
            lookup(Mode::Prompt, &k('?')),
            Some(Action::PromptChar('?'))
        ));
        assert!(matches!(lookup(Mode::Prompt, &ctrl_c), Some(Action::Quit)));
        // In the dialog editors every plain key is typed, `?` and `q` included.
        assert!(matches!(
            lookup(Mode::DialogEdit, &k('q')),
            Some(Action::DialogInput(_))
        ));
        assert!(matches!(
            lookup(Mode::DialogPreview, &k('?')),
            Some(Action::DialogInput(_))
        ));
        assert!(matches!(
            lookup(Mode::DialogEdit, &ctrl_c),
            Some(Action::Quit)
        ));
        let ctrl_g = KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL);
        assert!(matches!(
            lookup(Mode::DialogEdit, &ctrl_g),
            Some(Action::DialogGenerate)
        ));
    }
}
