//! The fleet screens, a pure function of [`FleetState`]. Every string from a host (names,
//! keys, models, errors) is neutralised before it is laid out.

use crate::report::text::compact_number;
use crate::sanitize::one_line;
use crate::tui::model::fleet::{FleetItem, FleetScreen, FleetState};
use crate::tui::model::keymap::Mode;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Row, Table, TableState};

pub fn draw(f: &mut Frame, s: &FleetState) {
    let [title, body, status, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(f.area());
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let reading = s.hosts.iter().filter(|h| h.reading).count();
    let head = match s.screen {
        FleetScreen::Hosts => format!(
            "clawtop fleet · {} hosts · today {} · {} · every {} s{}",
            s.hosts.len(),
            fleet_spend(s).today_text(),
            fleet_spend(s).per_hour_text(),
            s.interval_ms / 1000,
            if reading > 0 {
                format!(" · reading {reading}")
            } else {
                String::new()
            }
        ),
        FleetScreen::Sessions => format!(
            "sessions · {} · sorted by {}{}",
            match s.host_filter {
                Some(i) => format!("host {}", one_line(&s.hosts[i].spec.name)),
                None => "every host".into(),
            },
            s.sort.name(),
            if s.filter.is_empty() {
                String::new()
            } else {
                format!(" · filter \"{}\"", one_line(&s.filter))
            }
        ),
    };
    f.render_widget(Paragraph::new(Line::styled(head, bold)), title);
    match s.screen {
        FleetScreen::Hosts => hosts_table(f, s, body),
        FleetScreen::Sessions => sessions_table(f, s, body),
    }
    // The status, else (Fleet screen) the selected host's error, which its column cuts.
    let selected_error = (s.screen == FleetScreen::Hosts)
        .then(|| s.hosts.get(s.host_sel))
        .flatten()
        .and_then(|h| h.error.as_deref())
        .map(|e| format!("Enter: the whole error · {e}"));
    f.render_widget(
        Paragraph::new(
            s.status
                .as_deref()
                .or(selected_error.as_deref())
                .map(one_line)
                .unwrap_or_default(),
        ),
        status,
    );
    // The filter being typed, else the keys that fit, `? help` always last.
    let hint = if s.mode() == Mode::Filter {
        format!("/{}▏ (Enter keeps, Esc clears)", one_line(&s.filter))
    } else {
        super::status::fitted_hints(s.mode(), hints.width as usize)
    };
    f.render_widget(Paragraph::new(hint), hints);
    if s.show_help {
        help(f, s);
    }
    if let Some(d) = &s.detail {
        detail(f, d);
    }
}

fn age(now: i64, at: Option<i64>) -> String {
    match crate::format::age(now, at) {
        None => "-".into(),
        Some(a) if a == "now" => a,
        Some(a) => format!("{a} ago"),
    }
}

fn hosts_table(f: &mut Frame, s: &FleetState, area: ratatui::layout::Rect) {
    let rows = s.hosts.iter().map(|h| {
        let up = match (h.reachable(), h.reading) {
            (None, _) => "…",
            (Some(true), _) => "yes",
            (Some(false), _) => "no",
        };
        let (today, hour) = h
            .totals
            .as_ref()
            .map(|t| crate::fleet::Spend::of([t]))
            .map_or(("-".into(), "-".into()), |sp| {
                (sp.today_text(), sp.per_hour_text())
            });
        let (n, worst, act) = match &h.summary {
            Some(sm) => (
                sm.sessions.to_string(),
                sm.worst.map_or("-", |w| w.name()).to_string(),
                sm.need_action.to_string(),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        Row::new(vec![
            one_line(&h.spec.name),
            h.spec.transport.kind().to_string(),
            up.to_string(),
            n,
            worst,
            act,
            today,
            hour,
            age(s.now_ms, h.last_ok_ms),
            h.error.as_deref().map(one_line).unwrap_or_default(),
        ])
    });
    // At 80 columns ERROR keeps a few: the selected host's error is on the status line, and
    // Enter on a failed host shows all of it.
    let widths = [
        Constraint::Length(12),
        Constraint::Length(7),
        Constraint::Length(3),
        Constraint::Length(5),
        Constraint::Length(11),
        Constraint::Length(3),
        Constraint::Length(7),
        Constraint::Length(9),
        Constraint::Length(8),
        Constraint::Min(5),
    ];
    let t = Table::new(rows, widths)
        .header(
            Row::new(vec![
                "HOST", "VIA", "UP", "SESS", "WORST", "ACT", "TODAY", "$/H", "READ", "ERROR",
            ])
            .style(Style::default().add_modifier(Modifier::BOLD)),
        )
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ");
    let mut ts = TableState::default().with_selected(Some(s.host_sel));
    f.render_stateful_widget(t, area, &mut ts);
}

fn sessions_table(f: &mut Frame, s: &FleetState, area: ratatui::layout::Rect) {
    let sessions = s.sessions();
    if sessions.is_empty() {
        f.render_widget(
            Paragraph::new("no sessions (yet): r reads every host now"),
            area,
        );
        return;
    }
    let rows = sessions.iter().map(|item| {
        let (i, r) = match *item {
            FleetItem::Session { host, row } => (host, row),
            FleetItem::Failed { host, cause } => {
                return Row::new(vec![
                    one_line(&s.hosts[host].spec.name),
                    "-".into(),
                    one_line(cause),
                    String::new(),
                    String::new(),
                    "ERROR".into(),
                    age(s.now_ms, s.hosts[host].last_ok_ms),
                ]);
            }
        };
        let i = &i;
        let used = r.used.map_or("?".into(), compact_number);
        let pct = crate::format::percent(r.used, r.window).map_or("?".into(), |p| format!("{p}%"));
        Row::new(vec![
            one_line(&s.hosts[*i].spec.name),
            one_line(r.agent_id.as_deref().unwrap_or("-")),
            one_line(r.session_key.as_deref().unwrap_or("-")),
            format!("{used}/{}", compact_number(r.window)),
            pct,
            r.status.name().to_string(),
            age(s.now_ms, r.updated_at),
        ])
    });
    let widths = [
        Constraint::Length(12),
        Constraint::Length(8),
        Constraint::Min(20),
        Constraint::Length(12),
        Constraint::Length(5),
        Constraint::Length(11),
        Constraint::Length(9),
    ];
    let t = Table::new(rows, widths)
        .header(
            Row::new(vec![
                "HOST",
                "AGENT",
                "KEY",
                "USED/WINDOW",
                "%",
                "STATUS",
                "UPDATED",
            ])
            .style(Style::default().add_modifier(Modifier::BOLD)),
        )
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ");
    let mut ts = TableState::default().with_selected(Some(s.session_sel));
    f.render_stateful_widget(t, area, &mut ts);
}

fn fleet_spend(s: &FleetState) -> crate::fleet::Spend {
    crate::fleet::Spend::of(s.hosts.iter().filter_map(|h| h.totals.as_ref()))
}

/// A host's whole error, wrapped, over the screen until a key is pressed.
fn detail(f: &mut Frame, text: &str) {
    let area = f.area();
    let w = area.width.min(100);
    let lines: Vec<Line> = super::status::wrap(&one_line(text), w.saturating_sub(2) as usize)
        .into_iter()
        .map(Line::from)
        .collect();
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = ratatui::layout::Rect::new(area.x + (area.width - w) / 2, area.y + 1, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" error (any key closes) "),
        ),
        r,
    );
}

fn help(f: &mut Frame, s: &FleetState) {
    let area = f.area();
    let w = area.width.min(100);
    // Every key of the screen, hinted or not; a long line wraps under its text (at 80
    // columns nothing is cut).
    let keys_w = 8;
    let text_w = (w as usize).saturating_sub(2 + keys_w).max(10);
    let mut lines: Vec<Line> = Vec::new();
    for b in crate::tui::model::keymap::for_mode(s.mode()) {
        for (i, part) in super::status::wrap(b.help, text_w).into_iter().enumerate() {
            let keys = if i == 0 {
                b.keys_label()
            } else {
                String::new()
            };
            lines.push(Line::from(format!("{keys:>6}  {part}")));
        }
    }
    let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(1));
    let r = ratatui::layout::Rect::new(area.x + (area.width - w) / 2, area.y + 1, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" keys ")),
        r,
    );
}
