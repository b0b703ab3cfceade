//! The fleet screens, a pure function of [`FleetState`]. Every string from a host (names,
//! keys, models, errors) is neutralised before it is laid out.

use crate::report::text::compact_number;
use crate::sanitize::one_line;
use crate::tui::model::fleet::{FleetScreen, FleetState, bindings};
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
            "clawtop fleet · {} hosts · every {} s{}",
            s.hosts.len(),
            s.interval_ms / 1000,
            if reading > 0 {
                format!(" · reading {reading}")
            } else {
                String::new()
            }
        ),
        FleetScreen::Sessions => format!(
            "sessions · {}",
            match s.host_filter {
                Some(i) => format!("host {}", one_line(&s.hosts[i].spec.name)),
                None => "every host".into(),
            }
        ),
    };
    f.render_widget(Paragraph::new(Line::styled(head, bold)), title);
    match s.screen {
        FleetScreen::Hosts => hosts_table(f, s, body),
        FleetScreen::Sessions => sessions_table(f, s, body),
    }
    f.render_widget(
        Paragraph::new(s.status.as_deref().map(one_line).unwrap_or_default()),
        status,
    );
    let hint: Vec<String> = bindings(s.screen)
        .map(|b| {
            format!(
                "{} {}",
                b.keys_label(),
                b.help.split(['(', ';']).next().unwrap_or("").trim()
            )
        })
        .collect();
    f.render_widget(Paragraph::new(hint.join(" · ")), hints);
    if s.show_help {
        help(f, s);
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
            age(s.now_ms, h.last_ok_ms),
            h.error.as_deref().map(one_line).unwrap_or_default(),
        ])
    });
    let widths = [
        Constraint::Length(14),
        Constraint::Length(7),
        Constraint::Length(3),
        Constraint::Length(8),
        Constraint::Length(11),
        Constraint::Length(4),
        Constraint::Length(10),
        Constraint::Min(10),
    ];
    let t = Table::new(rows, widths)
        .header(
            Row::new(vec![
                "HOST",
                "VIA",
                "UP",
                "SESSIONS",
                "WORST",
                "ACT",
                "REFRESHED",
                "ERROR",
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
    let rows = sessions.iter().map(|(i, r)| {
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

fn help(f: &mut Frame, s: &FleetState) {
    let lines: Vec<Line> = bindings(s.screen)
        .map(|b| Line::from(format!("{:>6}  {}", b.keys_label(), b.help)))
        .collect();
    let area = f.area();
    let h = (lines.len() as u16 + 2).min(area.height);
    let w = area.width.min(100);
    let r = ratatui::layout::Rect::new(area.x + (area.width - w) / 2, area.y + 1, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" keys ")),
        r,
    );
}
