//! Session screen: the numbers (docs/numbers.md) with their sources, the reason in plain words, a
//! gauge, and the transcript as a viewport over the entry index.
//!
//! ```text
//! Session main · agent:main:main · fake-model · read-only
//! used      75,943 ● fresh      entry totalTokens (totalTokensFresh: true)
//! window    48,000              entry contextTokens
//! reserve   20,000              default max(reserveTokens 16384, reserveTokensFloor 20000)
//! compact ┃ 28,000              window − reserve
//! flush   │ 24,000              window − reserveTokensFloor − softThresholdTokens
//! OVER · 12 compactions · memory flush: never · reason in plain words …
//! ▕███████████████████│███████┃███████████████▶ 158%
//! ┌ transcript · 41 entries · v3 ───────────────────── ✂ next cut 0e49b72e ┐
//! │▌  0aadfb2d assistant    12 → read {"path":"NOTES.md"}                   │
//! │ ┄┄ kept from here by compaction 27ed3704 ┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄ │
//! │▌◆ 27ed3704 COMPACTION tokensBefore 75,943 · kept from 0e49b72e          │
//! └────────────────────────────────────────────────────────────────────────┘
//! ```

use super::gauge::{self, ThresholdGauge};
use super::theme::Theme;
use super::{compact_num, pad, rpad, truncate, wrap};
use crate::sanitize::one_line;
use crate::tui::model::rows::kind_label;
use crate::tui::model::state::{AppState, SessionView, layout};
use crate::tui::model::view::thousands;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// Number column width in the header.
const NUM_W: usize = 9;

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let Some(v) = &state.session else { return };
    let r = &v.row;
    let w = area.width;
    let mut y = area.y;
    let buf = frame.buffer_mut();
    buf.set_line(area.x, y, &title_line(state, v, t), w);
    if state.demo {
        let banner = " DEMO DATA ";
        buf.set_string(
            area.x + w.saturating_sub(banner.len() as u16),
            y,
            banner,
            t.banner(),
        );
    }
    y += 1;
    y = draw_numbers(buf, area.x, y, w, r, t);
    draw_reason(buf, area.x, y, w, state, v, t);
    y = area.y + 8;
    // Gauge across the width, percentage at the end.
    let gw = w.saturating_sub(6);
    frame.render_widget(
        ThresholdGauge { row: r, theme: t },
        Rect {
            x: area.x,
            y,
            width: gw,
            height: 1,
        },
    );
    frame
        .buffer_mut()
        .set_string(area.x + gw + 1, y, gauge::percent(r), t.status(r.status));
    y += 1;
    let list_area = Rect {
        x: area.x,
        y,
        width: w,
        height: area.bottom().saturating_sub(y),
    };
    draw_list(frame, list_area, state, v, t);
    if let (true, Some(l)) = (v.history_open, &v.loaded) {
        let turns = l.history.as_ref().map_or(&[][..], |h| &h.turns[..]);
        let (chart_area, events) = match &l.history {
            Some(h) => {
                let events = super::history::HistoryEvents::new(h, t, list_area.width);
                let (chart, below) = history_split(list_area, events.height_wanted());
                (chart, below.map(|a| (events, a)))
            }
            None => (list_area, None),
        };
        frame.render_widget(
            super::history::HistoryChart {
                turns,
                pending: l.history.is_none() && l.details_pending(),
                window: r.window,
                compact_at: r.compact_at,
                flush_at: r.flush_at,
                used: r.used,
                theme: t,
            },
            chart_area,
        );
        if let Some((events, area)) = events {
            frame.render_widget(events, area);
        }
    }
    if let (true, Some(l)) = (v.cost_open, &v.loaded) {
        let d = l.diagnosis.as_deref();
        frame.render_widget(
            super::cost::CostPane {
                cost: d.and_then(|d| d.cost.as_ref()),
                pending: l.details_pending(),
                economics: d.and_then(|d| d.economics.as_ref()),
                now_ms: state.now_ms,
                theme: t,
            },
            list_area,
        );
    }
    if let Some(d) = &v.detail {
        draw_detail(frame, area, state, d, t);
    }
}

/// The History pane's areas: the chart on top (at least [`CHART_MIN_H`] rows) and, when
/// there is room, the compactions, flushes and warnings under it: what they need, within
/// what the chart leaves.
fn history_split(area: Rect, wanted: u16) -> (Rect, Option<Rect>) {
    const CHART_MIN_H: u16 = 12;
    const EVENTS_MIN_H: u16 = 4;
    if area.height < CHART_MIN_H + EVENTS_MIN_H {
        return (area, None);
    }
    let below = wanted.clamp(EVENTS_MIN_H, area.height - CHART_MIN_H);
    let chart = Rect {
        height: area.height - below,
        ..area
    };
    let events = Rect {
        y: area.y + chart.height,
        height: below,
        ..area
    };
    (chart, Some(events))
}

/// The title: who, when the figures were read, and what holds or guards the transcript.
fn title_line(state: &AppState, v: &SessionView, t: Theme) -> Line<'static> {
    let r = &v.row;
    let file = v.label_file_name();
    let mut title = vec![Span::styled(
        if state.bare_file { "File " } else { "Session " },
        t.title(),
    )];
    // When the figures were read, and whether the last reload failed (docs/interface.md §2):
    // before the file name, which is the first thing a narrow title loses.
    let read = [state.sessions.refreshed_ms, v.read_ms]
        .into_iter()
        .flatten()
        .max();
    let mut read_mark = Vec::new();
    if let Some(ms) = read {
        read_mark.push(Span::styled(
            format!(" · read {}", super::sessions::clock(ms)),
            t.dim(),
        ));
    }
    if state.sessions.reload_failed_ms.is_some() {
        read_mark.push(Span::styled(" · reload FAILED", t.error()));
    }
    // The figures that need the whole transcript (diagnosis, history, audits) follow the
    // first screen; until they land the screen says so (a reload shows the previous ones
    // meanwhile: no mark that would blink with every turn).
    if v.loaded
        .as_ref()
        .is_some_and(|l| l.details == crate::tui::model::rows::Details::Pending)
    {
        read_mark.push(Span::styled(" · measuring…", t.dim()));
    }
    // A stale lock `check` reports is said here too, in the same words (up to the advice),
    // before the file name.
    if let Some(words) = crate::diagnosis::busy::stale_lock_words(v.row.lock.as_ref()) {
        let short = words.split(';').next().unwrap_or(&words).to_string();
        read_mark.push(Span::styled(format!(" · {short}"), t.error()));
    }
    if state.bare_file {
        title.push(Span::styled(file, t.bold()));
        title.extend(read_mark);
    } else {
        title.push(Span::styled(
            format!("{} · {}", one_line(r.agent()), one_line(r.key())),
            t.bold(),
        ));
        if let Some(m) = &r.provider_model() {
            title.push(Span::raw(format!(" · {}", one_line(m))));
        }
        title.extend(read_mark);
        title.push(Span::styled(format!(" · {file}"), t.dim()));
    }
    // "read-only" only where the source offers no writer (docs/interface.md §2).
    if let Some(l) = &v.loaded {
        if l.read_only.is_some() {
            title.push(Span::styled(" · read-only", t.dim()));
        }
        if let Some(b) = &l.busy {
            title.push(Span::styled(
                format!(
                    " · BUSY pid {}",
                    b.pid.map(|p| p.to_string()).unwrap_or_else(|| "?".into())
                ),
                t.status(crate::thresholds::Status::Over),
            ));
        }
    }
    Line::from(title)
}

/// The five figures with their sources, from line `y`; returns the line after them.
fn draw_numbers(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    mut y: u16,
    w: u16,
    r: &crate::tui::model::view::SessionRow,
    t: Theme,
) -> u16 {
    let used = match r.used {
        Some(u) => format!(
            "{} {} {}",
            rpad(&thousands(u), NUM_W),
            crate::tui::model::view::provenance_marker(r.used_source),
            r.used_source.name()
        ),
        None => format!("{} ? unknown", rpad("?", NUM_W)),
    };
    let lines: [(&str, String, &str); 5] = [
        ("used     ", used, &r.sources.used),
        (
            "window   ",
            rpad(&thousands(r.window), NUM_W),
            &r.sources.window,
        ),
        (
            "reserve  ",
            rpad(&thousands(r.reserve), NUM_W),
            &r.sources.reserve,
        ),
        (
            "compact ┃",
            rpad(&thousands(r.compact_at), NUM_W),
            &r.sources.compact_at,
        ),
        (
            "flush   │",
            match r.flush_at {
                Some(f) => rpad(&thousands(f), NUM_W),
                None if has_unknown(r, "flushAt") => rpad("?", NUM_W),
                None => rpad("off", NUM_W),
            },
            &r.sources.flush_at,
        ),
    ];
    for (label, value, source) in lines {
        let value = format!("{value:<24}");
        // A stale store figure says so where its source would be.
        let source = match (&r.stale, label) {
            (Some(why), "used     ") => Span::styled(one_line(why), t.marker()),
            _ => Span::styled(one_line(source), t.dim()),
        };
        let line = Line::from(vec![
            Span::styled(label, t.bold()),
            Span::raw(" "),
            Span::raw(value),
            source,
        ]);
        buf.set_line(x, y, &line, w);
        y += 1;
    }
    y
}

/// The flush state in words. 2026.9 records no flush time, only the compaction count at the
/// flush: say that, never a time. Empty when the reason says the flush state is unknown.
fn flush_words(state: &AppState, r: &crate::tui::model::view::SessionRow) -> String {
    match (
        r.memory_flush_at,
        r.memory_flush_compaction_count,
        r.flushed_this_cycle,
    ) {
        // The reason that follows says the flush state is unknown, and why.
        _ if has_unknown(r, "memoryFlush") => String::new(),
        // The time from the 1 s tick, never the system clock here.
        (Some(at), _, true) => format!(
            "flushed this cycle, {}",
            crate::format::age(state.now_ms, Some(at))
                .map(|a| format!("{a} ago"))
                .unwrap_or_else(|| "time unknown".into())
        ),
        (_, _, true) => "flushed this cycle".to_string(),
        (Some(at), _, false) => format!(
            "last flush {} ago, in an earlier cycle",
            crate::format::age(state.now_ms, Some(at)).unwrap_or_else(|| "?".into())
        ),
        (None, Some(n), false) => format!("flushed at compaction {n}"),
        (None, None, false) => "never flushed".to_string(),
    }
}

/// One compaction count per screen: the store's counter, with the transcript's entries
/// beside it when they differ; a bare file has only the transcript's.
fn compaction_count_words(
    r: &crate::tui::model::view::SessionRow,
    entries: Option<usize>,
) -> String {
    match (r.compaction_count, entries) {
        (None, Some(e)) if has_unknown(r, "compactionCount") => {
            format!("compaction count unknown ({e} in the transcript)")
        }
        (None, None) if has_unknown(r, "compactionCount") => "compaction count unknown".into(),
        (Some(n), Some(e)) if e as u64 != n => format!(
            "{} ({} in the transcript)",
            super::plural_or(Some(n), "compaction"),
            e
        ),
        (Some(n), _) => super::plural_or(Some(n), "compaction"),
        (None, Some(e)) => super::plural_or(Some(e as u64), "compaction"),
        (None, None) => super::plural_or(None, "compaction"),
    }
}

/// Status, compaction count, flush state and the reason, wrapped over two lines from `y`.
fn draw_reason(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    mut y: u16,
    w: u16,
    state: &AppState,
    v: &SessionView,
    t: Theme,
) {
    let r = &v.row;
    let flush_state = flush_words(state, r);
    let count = compaction_count_words(r, v.loaded.as_ref().map(|l| l.summaries.len()));
    let lead = if flush_state.is_empty() {
        format!("{} · {count} · ", r.status.name().to_uppercase())
    } else {
        format!(
            "{} · {count} · {flush_state} · ",
            r.status.name().to_uppercase(),
        )
    };
    let text = format!("{lead}{}", one_line(&r.flush_reason));
    let wrapped = wrap(&text, w as usize);
    for (i, l) in wrapped.iter().take(2).enumerate() {
        let l = if i == 1 && wrapped.len() > 2 {
            truncate(&format!("{l} …"), w as usize)
        } else {
            l.clone()
        };
        if i == 0 && l.len() >= lead.len() && l.starts_with(&lead) {
            let (a, b) = l.split_at(lead.len());
            buf.set_line(
                x,
                y,
                &Line::from(vec![
                    Span::styled(a.to_string(), t.status(r.status)),
                    Span::raw(b.to_string()),
                ]),
                w,
            );
        } else {
            buf.set_string(x, y, l, t.plain());
        }
        y += 1;
    }
}

/// Writes the list's lines one under the other, dropping what falls below its height.
struct ListLines {
    inner: Rect,
    y: u16,
    bottom: u16,
}

impl ListLines {
    fn put(&mut self, frame: &mut Frame, line: Line, style: Style) {
        if self.y < self.bottom {
            let row = Rect {
                x: self.inner.x,
                y: self.y,
                width: self.inner.width,
                height: 1,
            };
            frame
                .buffer_mut()
                .set_line(self.inner.x, self.y, &line, self.inner.width);
            if style != Style::default() {
                frame.buffer_mut().set_style(row, style);
            }
            self.y += 1;
        }
    }
}

/// The list's border, titled with the entry count and version, and where the next cut is.
fn list_block(l: &crate::tui::model::rows::LoadedTranscript, t: Theme) -> Block<'static> {
    let tr = &l.transcript;
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.dim())
        .title(Line::from(vec![
            Span::styled(" transcript ", t.bold()),
            Span::raw(format!("· {} entries · v{} ", tr.len(), tr.version)),
        ]));
    if let Some(cut) = l.next_cut {
        block = block.title(
            Line::from(Span::styled(
                format!(" ✂ next cut {} ", one_line(&tr.display_id(cut))),
                t.marker(),
            ))
            .right_aligned(),
        );
    }
    block
}

fn draw_list(frame: &mut Frame, area: Rect, state: &AppState, v: &SessionView, t: Theme) {
    let Some(l) = &v.loaded else {
        let msg = match (&v.error, v.loading) {
            (Some(e), _) => e.clone(),
            (None, true) => "Opening transcript…".into(),
            (None, false) => "No transcript.".into(),
        };
        let block = Block::default().borders(Borders::ALL).border_style(t.dim());
        frame.render_widget(Paragraph::new(msg).block(block.title(" transcript ")), area);
        return;
    };
    let tr = &l.transcript;
    let block = list_block(l, t);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = layout::session_list(state.size).min(inner.height as usize);
    let mut out = ListLines {
        inner,
        y: inner.y,
        bottom: inner.y + height as u16,
    };
    for idx in v.visible_range(height) {
        put_markers(frame, &mut out, l, idx, t);
        put_entry(frame, &mut out, v, l, idx, t);
    }
    if tr.is_empty() {
        frame.buffer_mut().set_string(
            inner.x + 1,
            inner.y,
            "This transcript has no entries.",
            t.dim(),
        );
    }
}

/// The marker lines above an entry: where the next compaction would cut, and where a
/// compaction keeps from.
fn put_markers(
    frame: &mut Frame,
    out: &mut ListLines,
    l: &crate::tui::model::rows::LoadedTranscript,
    idx: u32,
    t: Theme,
) {
    let iw = out.inner.width as usize;
    if l.next_cut == Some(idx) {
        let text = format!(
            "✂┄ next compaction would cut here: entries above are summarized (keepRecentTokens {}) {}",
            thousands(l.keep_recent_tokens),
            "┄".repeat(iw)
        );
        out.put(
            frame,
            Line::from(Span::styled(clip_fill(&text, iw), t.marker())),
            Style::default(),
        );
    }
    if let Some(&c) = l.kept_from.get(&idx) {
        let text = format!(
            " ┄┄ kept from here by compaction {} {}",
            one_line(&l.transcript.display_id(c)),
            "┄".repeat(iw)
        );
        out.put(
            frame,
            Line::from(Span::styled(clip_fill(&text, iw), t.compaction())),
            Style::default(),
        );
    }
}

/// One entry: a line, or a three-line card for a compaction (decoded or not yet).
fn put_entry(
    frame: &mut Frame,
    out: &mut ListLines,
    v: &SessionView,
    l: &crate::tui::model::rows::LoadedTranscript,
    idx: u32,
    t: Theme,
) {
    let tr = &l.transcript;
    let iw = out.inner.width as usize;
    let meta = &tr.entries[idx as usize];
    let on_branch = l.on_branch.get(idx as usize).copied().unwrap_or(false);
    let id = one_line(&tr.display_id(idx));
    let row = v.cache.get(&idx);
    let label = row
        .map(|r| r.label.clone())
        .unwrap_or_else(|| kind_label(meta.kind, meta.raw_type()));
    let flag = match row {
        Some(r) if r.silent_flush => "∅",
        Some(r) if r.error => "!",
        _ if meta.kind == crate::transcript::EntryKind::Compaction => "◆",
        _ => " ",
    };
    let gutter = Span::styled(if on_branch { "▌" } else { " " }, t.branch());
    let base = if on_branch { Style::default() } else { t.dim() };
    let sel = if idx == v.selected {
        t.selected()
    } else {
        Style::default()
    };
    if let Some((row, card)) = row.and_then(|r| Some((r, r.card.as_ref()?))) {
        let c = Card {
            id: &id,
            row,
            card,
            summary: l.summaries.iter().find(|c| c.idx == idx),
            summary_unknown: has_unknown(&v.row, "compactionSummary"),
            auditing: l.details_pending(),
            gutter,
            flag,
            base,
            sel,
        };
        put_card(frame, out, &c, t);
        return;
    }
    let tokens = row
        .map(|r| {
            if r.tokens > 0 {
                compact_num(r.tokens)
            } else {
                String::new()
            }
        })
        .unwrap_or_default();
    let head_w = 1 + 1 + 1 + 8 + 1 + 11 + 1 + 5 + 1;
    let pw = iw.saturating_sub(head_w);
    let preview = match row {
        None => "…".to_string(),
        Some(r) if r.silent_flush => {
            format!("silent memory-flush turn (NO_REPLY) · {}", r.preview)
        }
        Some(r) => r.preview.clone(),
    };
    let mut spans = vec![
        gutter,
        Span::styled(flag, if flag == "!" { t.error() } else { t.marker() }),
        Span::raw(" "),
        Span::styled(pad(&id, 8), t.dim()),
        Span::raw(" "),
        Span::styled(
            pad(&label, 11),
            if on_branch { t.role(&label) } else { t.dim() },
        ),
        Span::raw(" "),
        Span::styled(rpad(&tokens, 5), t.dim()),
        Span::raw(" "),
        Span::styled(truncate(&preview, pw), base),
    ];
    if meta.kind == crate::transcript::EntryKind::Compaction {
        // Not decoded yet: still a 3-line card so the layout does not jump.
        spans[5] = Span::styled(pad("compaction", 11), t.compaction());
        out.put(frame, Line::from(spans), sel);
        out.put(frame, Line::from(Span::styled("  │ …", t.dim())), sel);
        out.put(frame, Line::from(Span::styled("  └ …", t.dim())), sel);
        return;
    }
    out.put(frame, Line::from(spans), sel);
}

/// What a decoded compaction's card shows, and how its lines look (branch gutter, flag,
/// text style, selection).
struct Card<'a> {
    id: &'a str,
    row: &'a crate::tui::model::rows::EntryRow,
    card: &'a crate::tui::model::rows::CompactionCard,
    summary: Option<&'a crate::tui::model::rows::SummaryCard>,
    /// A gateway does not return summaries: unknown, not ≈0 (nor its files).
    summary_unknown: bool,
    /// The audits are still being computed: a missing badge would read as nothing lost.
    auditing: bool,
    gutter: Span<'static>,
    flag: &'static str,
    base: Style,
    sel: Style,
}

/// A decoded compaction's card: head with the audit badge, summary head, size and files.
fn put_card(frame: &mut Frame, out: &mut ListLines, c: &Card, t: Theme) {
    let iw = out.inner.width as usize;
    let (card, summary, gutter, sel) = (c.card, c.summary, &c.gutter, c.sel);
    let before = card
        .tokens_before
        .map(thousands)
        .unwrap_or_else(|| "?".into());
    let kept = card.first_kept_id.clone().unwrap_or_else(|| "?".into());
    let badge = match summary {
        Some(s) => match s.audit.as_deref() {
            Some(a) => format!(" · {}", crate::report::audit::badge(a)),
            None if c.auditing && s.on_branch => " · auditing…".into(),
            None => String::new(),
        },
        None => String::new(),
    };
    let head = format!(
        " {} COMPACTION · tokensBefore {before} · kept from {kept}{badge} ",
        pad(c.id, 8)
    );
    let fill = "━".repeat(iw.saturating_sub(head.chars().count() + 2));
    out.put(
        frame,
        Line::from(vec![
            gutter.clone(),
            Span::styled(c.flag, t.compaction()),
            Span::styled(format!("{head}{fill}"), t.compaction()),
        ]),
        sel,
    );
    let files = summary
        .map(|s| (s.read_files.len(), s.modified_files.len()))
        .unwrap_or((0, 0));
    out.put(
        frame,
        Line::from(vec![
            gutter.clone(),
            Span::styled(
                truncate(&format!("  │ {}", card.summary_head), iw - 1),
                c.base,
            ),
        ]),
        sel,
    );
    let foot = if c.summary_unknown {
        "  └ summary unknown (not exposed by the gateway) · S: all summaries".to_string()
    } else {
        format!(
            "  └ summary ≈{} tokens · {} read · {} modified files · S: all summaries",
            compact_num(c.row.tokens),
            files.0,
            files.1
        )
    };
    out.put(
        frame,
        Line::from(vec![
            gutter.clone(),
            Span::styled(truncate(&foot, iw - 1), t.dim()),
        ]),
        sel,
    );
}

fn draw_detail(
    frame: &mut Frame,
    area: Rect,
    state: &AppState,
    d: &crate::tui::model::state::Detail,
    t: Theme,
) {
    // Full width below the title: the header underneath would only be confusing fragments.
    let popup = Rect {
        x: area.x,
        y: area.y + 1,
        width: area.width,
        height: area.height.saturating_sub(1),
    };
    frame.render_widget(Clear, popup);
    let title = if d.loading {
        " loading… ".to_string()
    } else {
        format!(" {} ", d.title)
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.title())
        .title(Span::styled(title, t.bold()))
        .title_bottom(
            Line::from(format!(
                " {}/{} lines · Esc close ",
                (d.scroll as usize + 1).min(d.lines.max(1)),
                d.lines
            ))
            .right_aligned(),
        );
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    // `update` wrapped the body to this width; only the visible slice is drawn.
    let _ = state;
    let h = inner.height as usize;
    let text: Vec<Line> = d
        .wrapped
        .iter()
        .skip(d.scroll as usize)
        .take(h)
        .map(|l| Line::from(l.as_str()))
        .collect();
    frame.render_widget(Paragraph::new(text), inner);
}

/// Marker lines end in a run of `┄`: cut them at the width without an ellipsis.
fn clip_fill(s: &str, width: usize) -> String {
    if s.trim_end_matches('┄').chars().count() + 2 > width {
        return truncate(s.trim_end_matches('┄'), width);
    }
    s.chars().take(width).collect()
}

/// Whether the source cannot read `field` of this row (it is then shown as unknown).
fn has_unknown(r: &crate::tui::model::view::SessionRow, field: &str) -> bool {
    r.unknown.contains_key(field)
}
