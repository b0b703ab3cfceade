//! The Compact and Flush dialogs: a full-screen overlay (80×24 has no room for less).
//!
//! ```text
//! ┌ Compact · main · agent:main:main ─────────────────────────────────────────┐
//! │ summarize  23 messages · turn prefix 0 (no split turn)                    │
//! │ keep       from 0e49b72e: 9 messages (11 entries), ≈3.2k tokens           │
//! │ before     tokensBefore 75,943 · previous summary: yes, updated           │
//! │ model      fake/fake-model @ http://127.0.0.1:18999/v1 · key: config …    │
//! │┌ Instructions ───────────────────────────────────────────────────────────┐│
//! ││ keep the open PR numbers▌                                              ││
//! │└─────────────────────────────────────────────────────────────────────────┘│
//! │ ⟳ call 1 · history · 1,234 chars ≈309 tokens · 3s · Esc cancels           │  (generating)
//! │ [ Generate ]  [ Close ]                                                   │
//! └───────────────────────────────────────────────────────────────────────────┘
//! ```
//! Preview: the plan shrinks to one line, warnings above the editable result; the Flush
//! preview puts the target file's current content next to the notes (side by side from 100
//! columns, stacked below that). The confirmation is a popup naming what will be written.

use super::theme::Theme;
use super::{centered, compact_num, truncate, wrap};
use crate::sanitize::{for_terminal, one_line};
use crate::tui::layout::flush_ui;
use crate::tui::model::dialog::{CompactPrep, Dialog, DialogKind, FlushPrep, Focus, Phase, Prep};
use crate::tui::model::state::AppState;
use crate::tui::model::view::thousands;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// Width from which the Flush preview shows notes and current file side by side.
pub const SIDE_BY_SIDE: u16 = 100;

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let Some(d) = &state.dialog else { return };
    frame.render_widget(Clear, area);
    let title = format!(" {} · {} ", d.kind.name(), one_line(&d.who));
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.title())
        .title(Span::styled(
            truncate(&title, area.width.saturating_sub(4) as usize),
            t.bold(),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let w = inner.width as usize;
    if let (Phase::Done, Some(r)) = (d.phase, &d.result) {
        gateway_result(frame, inner, d, r, t);
        return;
    }

    let mut top: Vec<Line> = Vec::new();
    let preview_phase = matches!(d.phase, Phase::Preview | Phase::Committing);
    match (&d.prep, &d.prep_error) {
        (_, Some(e)) => {
            // The field stays on screen so a value with no plan can be corrected.
            if d.kind == DialogKind::Compact && !preview_phase {
                top.push(keep_line(d, None, w, t));
            }
            // The reason in full, wrapped: it is what the operator needs to decide.
            for l in wrap(&format!("✖ {}", one_line(e)), w).into_iter().take(4) {
                top.push(Line::from(Span::styled(l, t.error())));
            }
        }
        (None, None) => top.push(Line::from(Span::styled("planning…", t.dim()))),
        (Some(Prep::Compact(c)), None) => {
            // Why the session's own keepRecentTokens is not the one shown, before the plan.
            if let (Some(n), false) = (&d.keep_note, preview_phase) {
                for l in wrap(&one_line(n), w).into_iter().take(3) {
                    top.push(Line::from(Span::styled(l, t.info())));
                }
            }
            top.extend(compact_plan(d, c, preview_phase, w, t))
        }
        (Some(Prep::Flush(f)), None) => top.extend(flush_plan(d, f, preview_phase, w, t)),
        (Some(Prep::Gateway(g)), None) => top.extend(gateway_plan(d, g, preview_phase, w, t)),
    }
    if let Some(e) = &d.error {
        for l in wrap(&one_line(e), w).into_iter().take(2) {
            top.push(Line::from(Span::styled(l, t.error())));
        }
    }
    if preview_phase {
        if let Some(a) = &d.audit {
            let lossy = a.lost().is_some_and(|n| n > 0);
            let text = if lossy {
                format!(
                    "audit (F6: ask again, keeping them): {}",
                    crate::report::audit::draft_line(a)
                )
            } else {
                format!("audit: {}", crate::report::audit::draft_line(a))
            };
            let style = if lossy { t.error() } else { t.dim() };
            for l in wrap(&text, w).into_iter().take(3) {
                top.push(Line::from(Span::styled(l, style)));
            }
        }
        for warn in &d.warnings {
            top.push(Line::from(Span::styled(
                truncate(&format!("⚠ {}", one_line(warn)), w),
                t.info(),
            )));
        }
        if d.kind == DialogKind::Flush
            && crate::flush::is_no_reply(&crate::tui::model::dialog::text_of(&d.preview))
        {
            top.push(Line::from(Span::styled(
                truncate("NO_REPLY — nothing worth keeping: commit records the flush without writing notes", w),
                t.marker(),
            )));
        }
    }
    let top_h = (top.len() as u16).min(inner.height.saturating_sub(4));
    let [top_area, main, footer] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(top), top_area);

    if preview_phase {
        draw_preview(frame, main, d, t);
    } else {
        let focused = d.focus == Focus::Text && d.phase != Phase::Generating;
        let title = if focused {
            " Instructions (editing) "
        } else {
            " Instructions "
        };
        text_box(frame, main, &d.instructions, title, focused, t);
    }
    frame.buffer_mut().set_line(
        footer.x,
        footer.y,
        &footer_line(state, d, w, t),
        footer.width,
    );

    if let Some(p) = &d.confirm {
        draw_confirm(frame, area, d, p, t);
    }
    if d.ask_discard {
        draw_ask_discard(frame, area, d, t);
    }
}

/// The keepRecentTokens line of the Compact plan, with the field the operator types into:
/// `[12000▏]` while focused, the reason in red when the text is not a value.
fn keep_line(d: &Dialog, c: Option<&CompactPrep>, w: usize, t: Theme) -> Line<'static> {
    let focused = d.focus == Focus::Keep && matches!(d.phase, Phase::Edit | Phase::Preparing);
    let value = match &d.keep_text {
        Some(text) => one_line(text),
        None => d.keep_shown().map(thousands).unwrap_or_else(|| "?".into()),
    };
    let field = if focused {
        format!("[{value}▏]")
    } else {
        value
    };
    let mut spans = vec![
        Span::styled(format!("{:<10} ", "keep"), t.bold()),
        Span::raw("keepRecentTokens "),
        Span::styled(
            field.clone(),
            match (&d.keep_invalid, focused) {
                (Some(_), _) => t.error(),
                (None, true) => t.selected(),
                (None, false) => t.plain(),
            },
        ),
    ];
    let used = 11 + 17 + unicode_width::UnicodeWidthStr::width(field.as_str());
    let rest = match (&d.keep_invalid, c) {
        (Some(why), Some(c)) => {
            format!(" ✖ {why}; plan shown: {}", thousands(c.keep_recent_tokens))
        }
        (Some(why), None) => format!(" ✖ {why}"),
        (None, Some(c)) if d.prep_running => {
            format!(" · planning… (shown: {})", thousands(c.keep_recent_tokens))
        }
        (None, Some(c)) => format!(
            ": from {}, {}, {}, ≈{} tokens",
            one_line(&c.first_kept_id),
            super::plural(c.kept_messages, "message"),
            super::plural(c.kept_entries, "entry").replace("entrys", "entries"),
            thousands(c.kept_tokens)
        ),
        (None, None) => String::new(),
    };
    let style = if d.keep_invalid.is_some() {
        t.error()
    } else {
        t.plain()
    };
    spans.push(Span::styled(truncate(&rest, w.saturating_sub(used)), style));
    Line::from(spans)
}

/// "Discard your edits?": asked before Esc (or Close) throws edited text away.
fn draw_ask_discard(frame: &mut Frame, area: Rect, d: &Dialog, t: Theme) {
    let what = match (d.instructions_edited(), d.preview_edited()) {
        (true, true) => format!("the instructions and the {}", d.kind.product()),
        (false, true) => format!("the {}", d.kind.product()),
        _ => "the instructions".to_string(),
    };
    let (doing, yes) = match d.ask_then {
        Some(crate::tui::model::dialog::Button::Regenerate) => {
            ("Regenerating", " discard and regenerate · ")
        }
        _ => ("Closing", " discard and close · "),
    };
    let lines = vec![
        Line::from(format!("You edited {what}.")),
        Line::from(format!(
            "{doing} throws the edits away; nothing is written."
        )),
        Line::from(""),
        Line::from(vec![
            Span::styled("y", t.bold()),
            Span::raw(yes),
            Span::styled("n/Esc", t.bold()),
            Span::raw(" keep editing"),
        ]),
    ];
    let w = area.width.saturating_sub(4).min(60);
    let popup = centered(area, w, (lines.len() as u16 + 2).min(area.height));
    frame.render_widget(Clear, popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.marker())
        .title(Span::styled(" Discard your edits? ", t.bold()));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

fn text_box(
    frame: &mut Frame,
    area: Rect,
    ta: &ratatui_textarea::TextArea<'static>,
    title: &str,
    focused: bool,
    t: Theme,
) {
    let style = if focused { t.title() } else { t.dim() };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(style)
        .title(Span::styled(
            title.to_string(),
            if focused { t.bold() } else { t.plain() },
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(ta, inner);
}

fn kv(label: &str, value: String, w: usize, t: Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<10} "), t.bold()),
        Span::raw(truncate(&value, w.saturating_sub(11))),
    ])
}

/// `provider/model @ base_url` with the picker's position (`◀ … ▶` while it has the focus),
/// where the key comes from on its own line (the variable's name, never the key), and where
/// openclaw.json and models.json disagree, which value is used and why.
fn model_lines(
    d: &Dialog,
    m: &Result<crate::tui::model::dialog::ModelInfo, crate::usecase::NoModel>,
    w: usize,
    t: Theme,
) -> Vec<Line<'static>> {
    let focused = d.focus == Focus::Model && matches!(d.phase, Phase::Edit | Phase::Preparing);
    let pick = d.models.get(d.model_pick);
    let whence = match pick {
        Some(c) if d.model_pick > 0 => {
            format!(" · {}/{} {}", d.model_pick + 1, d.models.len(), c.listed_in)
        }
        _ if d.models.len() > 1 => format!(" · the session's (1/{})", d.models.len()),
        _ => String::new(),
    };
    let value = match m {
        Ok(m) => one_line(&m.label()),
        Err(e) => format!(
            "✖ {}{}",
            pick.filter(|_| d.model_pick > 0)
                .map(|c| format!("{}: ", one_line(&c.label)))
                .unwrap_or_default(),
            one_line(&e.to_string())
        ),
    };
    let text = if focused {
        format!("◀ {value}{whence} ▶")
    } else {
        format!("{value}{whence}")
    };
    let style = match (m.is_err(), focused) {
        (true, _) => t.error(),
        (false, true) => t.selected(),
        (false, false) => t.plain(),
    };
    let mut v = vec![Line::from(vec![
        Span::styled(format!("{:<10} ", "model"), t.bold()),
        Span::styled(truncate(&text, w.saturating_sub(11)), style),
    ])];
    if let Ok(m) = m {
        v.push(kv("key", one_line(&m.endpoint.key_source), w, t));
        if let Some(n) = &m.endpoint_note {
            for (i, l) in wrap(&one_line(n), w.saturating_sub(11))
                .into_iter()
                .take(4)
                .enumerate()
            {
                v.push(kv(if i == 0 { "endpoint" } else { "" }, l, w, t));
            }
        }
    }
    v
}

fn compact_plan(
    d: &Dialog,
    c: &CompactPrep,
    short: bool,
    w: usize,
    t: Theme,
) -> Vec<Line<'static>> {
    if short {
        return vec![kv(
            "plan",
            format!(
                "{} + {} turn-prefix messages summarized · keep from {} (≈{} tokens) · tokensBefore {}",
                c.messages,
                c.turn_prefix,
                one_line(&c.first_kept_id),
                compact_num(c.kept_tokens),
                thousands(c.tokens_before)
            ),
            w,
            t,
        )];
    }
    let split = if c.split_turn {
        " (split turn)"
    } else {
        " (no split turn)"
    };
    let prev = match &c.previous_summary {
        Some(first) => format!("yes, updated: \"{}\"", one_line(first)),
        None => "none".into(),
    };
    let mut out = vec![
        kv(
            "summarize",
            format!(
                "{} + {}{split}",
                super::plural(c.messages, "message"),
                super::plural(c.turn_prefix, "turn-prefix message")
            ),
            w,
            t,
        ),
        keep_line(d, Some(c), w, t),
        kv(
            "before",
            format!(
                "tokensBefore {} · previous summary {prev}",
                thousands(c.tokens_before)
            ),
            w,
            t,
        ),
        kv(
            "files",
            format!(
                "{} read, {} modified (listed after the summary)",
                c.read_files, c.modified_files
            ),
            w,
            t,
        ),
    ];
    if let Some(d) = &c.outlook {
        let line = c.compact_line();
        // Short enough for 80 columns: the verdict first, the details in the context view.
        let verdict = match (d.expected_tokens_after, d.compaction_can_help) {
            (Some(e), true) => format!(
                "≈{}, under {} (overhead {})",
                thousands(e),
                thousands(line),
                d.overhead_tokens
                    .map(thousands)
                    .unwrap_or_else(|| "?".into()),
            ),
            (e, false) => format!(
                "{}not under {}{}",
                e.map(|e| format!("≈{}, ", thousands(e)))
                    .unwrap_or_default(),
                thousands(line),
                d.suggested_keep_recent_tokens
                    .map(|k| format!(" · try keepRecentTokens ≤ {} (+/-)", thousands(k)))
                    .unwrap_or_else(|| " at any keepRecentTokens".into())
            ),
            (None, true) => "lands under the compaction line".into(),
        };
        out.push(kv("after", verdict, w, t));
        if let Some(e) = &d.economics {
            out.push(kv("cost", e.line(), w, t));
        }
    }
    // A flush due first (OpenClaw's order), and what the operator chose; the reason in full
    // comes with Generate (the use case's words).
    if let (Some(_), Some(g)) = (crate::usecase::compact::flush_due(c), c.flush_gate.as_ref()) {
        use crate::usecase::compact::FlushChoice;
        let line = |n: Option<u64>| n.map(thousands).unwrap_or_else(|| "?".into());
        let (text, style) = match d.flush_choice {
            FlushChoice::Skip => (
                "skipped (F7): compact without it · F3 flush first".to_string(),
                t.dim(),
            ),
            _ => (
                format!(
                    "due first: used {} ≥ {} · F3 flush first · F7 skip",
                    line(g.used),
                    line(g.flush_line)
                ),
                t.error(),
            ),
        };
        out.push(Line::from(vec![
            Span::styled(format!("{:<10} ", "flush"), t.bold()),
            Span::styled(truncate(&text, w.saturating_sub(11)), style),
        ]));
    }
    out.extend(model_lines(d, &c.model, w, t));
    out
}

/// The gateway's Compact dialog: who writes, what differs (said before the operator types),
/// and the instructions counted against OpenClaw's cap.
fn gateway_plan(
    d: &Dialog,
    g: &crate::tui::model::dialog::GatewayPrep,
    short: bool,
    w: usize,
    t: Theme,
) -> Vec<Line<'static>> {
    let mut out = vec![kv("via", one_line(&g.via), w, t)];
    if short {
        return out;
    }
    for (i, l) in wrap(&one_line(&g.note), w.saturating_sub(11))
        .into_iter()
        .take(5)
        .enumerate()
    {
        out.push(kv(if i == 0 { "note" } else { "" }, l, w, t));
    }
    let n = crate::tui::model::dialog::text_of(&d.instructions)
        .trim()
        .chars()
        .count();
    let cap = crate::gateway::MAX_COMPACT_INSTRUCTIONS;
    let count = if n > cap {
        format!("{n}/{cap} characters: too long, OpenClaw takes at most {cap}")
    } else if n == 0 {
        format!("0/{cap} characters: none (sessions.compact)")
    } else {
        format!("{n}/{cap} characters (sent as /compact <instructions>)")
    };
    let line = kv("instructions", count, w, t);
    out.push(if n > cap {
        Line::from(Span::styled(line.to_string(), t.error()))
    } else {
        line
    });
    out
}

fn flush_plan(d: &Dialog, f: &FlushPrep, short: bool, w: usize, t: Theme) -> Vec<Line<'static>> {
    let target = f.target.display().to_string();
    if short {
        let mut out = vec![kv(
            "target",
            format!(
                "{} · {}",
                one_line(&target),
                if f.gate.due {
                    "flush due"
                } else {
                    "flush not due"
                }
            ),
            w,
            t,
        )];
        if f.unrecorded.is_some() {
            out.push(kv(
                "record",
                "notes only: the flush is not recorded, OpenClaw's own flush stays armed".into(),
                w,
                t,
            ));
        }
        return out;
    }
    let reasons = f.gate.reasons();
    let (sys_src, prompt_src) = flush_ui::prompt_sources(&f.prompts);
    let first = |s: &str| one_line(s.lines().find(|l| !l.trim().is_empty()).unwrap_or(""));
    let exists = match &f.current {
        Some(_) => format!(
            "exists, {} bytes: notes are appended",
            thousands(f.current_len)
        ),
        None => "new file".into(),
    };
    // One fact per line: why a flush is (not) due, as OpenClaw decides it.
    let mut out: Vec<Line<'static>> = reasons
        .iter()
        .enumerate()
        .map(|(i, r)| kv(if i == 0 { "why" } else { "" }, one_line(r), w, t))
        .collect();
    out.push(kv(
        "system",
        format!("{sys_src}: \"{}\"", first(&f.prompts.system)),
        w,
        t,
    ));
    out.push(kv(
        "prompt",
        format!("{prompt_src}: \"{}\"", first(&f.prompts.prompt)),
        w,
        t,
    ));
    out.push(kv(
        "target",
        format!("{} ({exists})", one_line(&target)),
        w,
        t,
    ));
    // The reason in full is in the confirmation; here what matters, short enough for 80
    // columns: the notes are written, the flush is not, OpenClaw will still flush.
    if f.unrecorded.is_some() {
        out.push(kv(
            "record",
            "not recorded (only OpenClaw writes its SQLite database): OpenClaw's own flush stays armed".into(),
            w,
            t,
        ));
    }
    out.extend(model_lines(d, &f.model, w, t));
    for warn in &f.warnings {
        out.push(Line::from(Span::styled(
            truncate(&format!("⚠ {}", one_line(warn)), w),
            t.info(),
        )));
    }
    out
}

fn draw_preview(frame: &mut Frame, area: Rect, d: &Dialog, t: Theme) {
    let focused = d.focus == Focus::Text && d.phase == Phase::Preview;
    let text = crate::tui::model::dialog::text_of(&d.preview);
    let title = format!(
        " {} (editable{}) · {} chars ",
        if d.kind == DialogKind::Compact {
            "Summary"
        } else {
            "Notes to append"
        },
        if focused { ", editing" } else { "" },
        thousands(text.chars().count() as u64)
    );
    let Some(Prep::Flush(f)) = &d.prep else {
        text_box(frame, area, &d.preview, &title, focused, t);
        return;
    };
    let (notes, current) = if area.width >= SIDE_BY_SIDE {
        let [a, b] = Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
            .areas(area);
        (a, b)
    } else {
        let [a, b] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
        (a, b)
    };
    text_box(frame, notes, &d.preview, &title, focused, t);
    let name = f
        .target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.dim())
        .title(format!(" Current memory/{} (end) ", one_line(&name)));
    let inner = block.inner(current);
    frame.render_widget(block, current);
    let lines: Vec<Line> = match &f.current {
        None => vec![Line::from(Span::styled(
            "(does not exist yet: the commit creates it)",
            t.dim(),
        ))],
        Some(c) if c.is_empty() => vec![Line::from(Span::styled("(empty)", t.dim()))],
        Some(c) => {
            // The end of the file is where the notes go: show its last lines.
            let wrapped = wrap(
                &for_terminal(c.trim_end_matches('\n'), true),
                inner.width as usize,
            );
            let h = inner.height as usize;
            wrapped[wrapped.len().saturating_sub(h)..]
                .iter()
                .map(|l| Line::from(l.clone()))
                .collect()
        }
    };
    frame.render_widget(Paragraph::new(lines), inner);
}

fn footer_line(state: &AppState, d: &Dialog, w: usize, t: Theme) -> Line<'static> {
    match d.phase {
        Phase::Generating => {
            let Some(g) = &d.running else {
                return Line::default();
            };
            let secs = g.elapsed_ms(state.now_ms) / 1000;
            let tokens = match g.tokens {
                Some(n) => format!("{} tokens", thousands(n)),
                None => format!("≈{} tokens", thousands(crate::jsjson::ceil_div4(g.chars))),
            };
            let call = if g.call > 0 {
                format!("call {} · {}", g.call, one_line(&g.label))
            } else {
                one_line(&g.label)
            };
            let mut s = format!(
                "⟳ {call} · {} chars {tokens} · {secs}s · Esc cancels",
                thousands(g.chars as u64)
            );
            if let Some(r) = &g.retry {
                s = format!("⟳ {call} · {} · {secs}s · Esc cancels", one_line(r));
            }
            Line::from(Span::styled(truncate(&s, w), t.marker()))
        }
        Phase::Committing => Line::from(Span::styled("writing…", t.marker())),
        _ => {
            let mut spans = Vec::new();
            for (i, b) in d.buttons().iter().enumerate() {
                let selected = d.focus == Focus::Buttons && d.button == i;
                let style = if selected { t.selected() } else { t.bold() };
                spans.push(Span::styled(format!("[ {} ]", b.label()), style));
                spans.push(Span::raw("  "));
            }
            // The keys are in the status line below (from the keymap).
            let _ = w;
            Line::from(spans)
        }
    }
}

fn draw_confirm(
    frame: &mut Frame,
    area: Rect,
    d: &Dialog,
    p: &crate::tui::model::dialog::PendingCommit,
    t: Theme,
) {
    let w = area.width.saturating_sub(4).min(90);
    let inner_w = w.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    lines.push(Line::from(Span::styled(
        truncate(&one_line(&d.who), inner_w),
        t.bold(),
    )));
    for l in &p.lines {
        for x in wrap(&one_line(l), inner_w) {
            lines.push(Line::from(x));
        }
    }
    let gateway = matches!(d.prep, Some(Prep::Gateway(_)));
    let text_lines: Vec<&str> = p.text.lines().collect();
    if !p.text.trim().is_empty() {
        let what = if gateway {
            format!("Your instructions ({} lines), begin:", text_lines.len())
        } else {
            format!(
                "The {} as previewed ({} lines), begins:",
                d.kind.product(),
                text_lines.len()
            )
        };
        lines.push(Line::from(Span::styled(what, t.dim())));
        for l in text_lines.iter().take(3) {
            lines.push(Line::from(Span::raw(truncate(
                &format!("  {}", one_line(l)),
                inner_w,
            ))));
        }
    }
    lines.push(Line::from(""));
    let (yes, no) = if gateway {
        (" send · ", " back to the instructions, nothing sent")
    } else {
        (" write · ", " back to the preview")
    };
    lines.push(Line::from(vec![
        Span::styled("y/Enter", t.bold()),
        Span::raw(yes),
        Span::styled("n/Esc", t.bold()),
        Span::raw(no),
    ]));
    let h = (lines.len() as u16 + 2).min(area.height);
    let popup = centered(area, w, h);
    frame.render_widget(Clear, popup);
    let title = match d.kind {
        _ if gateway => " Send this compaction to OpenClaw? ",
        DialogKind::Compact => " Commit this compaction? ",
        DialogKind::Flush => " Commit this memory flush? ",
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.marker())
        .title(Span::styled(title, t.bold()));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

/// [`Phase::Done`]: what OpenClaw wrote, read-only. Saved on the host already, so there is
/// nothing to commit, regenerate or discard: the figures read back, its summary (scrolls), and
/// one key to close.
fn gateway_result(
    frame: &mut Frame,
    area: Rect,
    d: &Dialog,
    r: &crate::usecase::gateway_compact::GatewayReport,
    t: Theme,
) {
    use crate::usecase::gateway_compact::{or_unknown, row_used};
    let w = area.width as usize;
    let (c, wr) = (&r.compaction, &r.written);
    let mut top = Vec::new();
    if let Some(Prep::Gateway(g)) = &d.prep {
        top.push(kv("via", one_line(&g.via), w, t));
    }
    top.push(Line::from(Span::styled(
        truncate(
            "✔ OpenClaw compacted this session and saved it on the host: nothing to commit.",
            w,
        ),
        t.bold(),
    )));
    top.push(kv(
        "tokens",
        format!(
            "tokensBefore {} → tokensAfter {}",
            or_unknown(wr.tokens_before),
            or_unknown(wr.tokens_after)
        ),
        w,
        t,
    ));
    let count = match (wr.compaction_count_before, wr.compaction_count) {
        (None, None) => "unknown (this host does not expose it)".to_string(),
        (b, a) => format!("{} → {}", or_unknown(b), or_unknown(a)),
    };
    top.push(kv("count", format!("compactionCount {count}"), w, t));
    let window = or_unknown(c.after.context_tokens);
    top.push(kv(
        "used",
        format!(
            "{} → {} of {window} (the gateway's row)",
            row_used(&c.before),
            row_used(&c.after)
        ),
        w,
        t,
    ));
    if let crate::gateway::CompactOutcome::Compacted {
        notice: Some(n), ..
    } = &c.outcome
    {
        top.push(kv("notice", one_line(n), w, t));
    }
    for (i, l) in wrap(&one_line(&wr.summary_from), w.saturating_sub(11))
        .into_iter()
        .take(2)
        .enumerate()
    {
        top.push(kv(if i == 0 { "summary" } else { "" }, l, w, t));
    }
    let top_h = (top.len() as u16).min(area.height.saturating_sub(4));
    let [top_area, main, footer] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(top), top_area);

    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.dim())
        .title(" OpenClaw's summary (read-only) ");
    let inner = block.inner(main);
    frame.render_widget(block, main);
    let lines: Vec<Line> = match &wr.summary {
        Some(s) => {
            let wrapped = wrap(&for_terminal(s, true), inner.width as usize);
            let max = wrapped.len().saturating_sub(inner.height as usize);
            let from = (d.result_scroll as usize).min(max);
            wrapped[from..]
                .iter()
                .take(inner.height as usize)
                .map(|l| Line::from(l.clone()))
                .collect()
        }
        None => vec![Line::from(Span::styled(
            "(not readable here: see the summary line above)",
            t.dim(),
        ))],
    };
    frame.render_widget(Paragraph::new(lines), inner);
    frame.buffer_mut().set_line(
        footer.x,
        footer.y,
        &Line::from(vec![
            Span::styled("[ Close ]", t.selected()),
            Span::raw("  "),
            Span::styled("saved on the host; Esc/Enter/q close", t.dim()),
        ]),
        footer.width,
    );
}
