//! Styles. Colours only from the 16-colour palette; with `NO_COLOR` every style falls back to
//! attributes (bold, reverse, dim) and the glyphs carry the meaning.

use crate::tui::model::view::Status;
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn new(no_color: bool) -> Theme {
        Theme { color: !no_color }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    pub fn plain(&self) -> Style {
        Style::new()
    }

    pub fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn header(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    pub fn error(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    pub fn info(&self) -> Style {
        self.fg(Color::Yellow)
    }

    pub fn banner(&self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    /// Colour of a status (gauge fill, status column).
    pub fn status(&self, s: Status) -> Style {
        match s {
            Status::Ok => self.fg(Color::Green),
            Status::FlushDue => self.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Status::Flushed => self.fg(Color::Cyan),
            Status::CompactDue => self.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Status::Over => self.fg(Color::Red).add_modifier(Modifier::BOLD),
            Status::Unknown => self.dim(),
        }
    }

    pub fn compaction(&self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    pub fn marker(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn branch(&self) -> Style {
        self.fg(Color::Blue)
    }

    pub fn role(&self, label: &str) -> Style {
        match label {
            "user" => self.fg(Color::Green).add_modifier(Modifier::BOLD),
            "assistant" => self.fg(Color::Cyan),
            l if l.starts_with("tool") || l == "bash" => self.fg(Color::Blue),
            "compaction" => self.compaction(),
            l if l.starts_with('?') => self.fg(Color::Red),
            _ => self.dim(),
        }
    }
}
