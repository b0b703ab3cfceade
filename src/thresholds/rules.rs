//! OpenClaw release numbers (`2026.9.6`, `2026.5.30-beta.1`) and the arithmetic each follows.
//! It lives with the thresholds, which own their rules for both eras; the SQLite reader and
//! the Gateway source only supply the version string they read.

use serde::Serialize;

/// A release as `year.month.day`; anything after a `-` is a pre-release and sorts before the
/// release itself.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release {
    pub parts: (u32, u32, u32),
    /// `true` for a final release (sorts after its pre-releases).
    pub is_final: bool,
}

impl Release {
    pub fn parse(s: &str) -> Option<Release> {
        let s = s.trim();
        let (core, pre) = match s.split_once('-') {
            Some((c, _)) => (c, true),
            None => (s, false),
        };
        let mut it = core.split('.').map(|p| p.parse::<u32>().ok());
        let y = it.next()??;
        let m = it.next()??;
        let d = it.next().unwrap_or(Some(0))?;
        if it.next().is_some() {
            return None;
        }
        Some(Release {
            parts: (y, m, d),
            is_final: !pre,
        })
    }

    pub fn at_least(&self, y: u32, m: u32, d: u32) -> bool {
        self.parts >= (y, m, d)
    }
}

/// Which release's thresholds arithmetic applies (docs/numbers.md §1–§6 and
/// docs/numbers.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Default)]
#[serde(from = "String")]
pub enum Rules {
    /// 2026.2.26–2026.7.1: reserve = max(reserveTokens, reserveTokensFloor); flush line =
    /// window − floor − soft; flush state in `memoryFlushCompactionCount`.
    #[default]
    #[serde(rename = "2026.2")]
    V2026_2,
    /// 2026.9: reserve = min(max(reserveTokens, 20000), floor(window / 4)); soft capped at
    /// half of window − reserve; flush state in the `memoryFlush` object.
    #[serde(rename = "2026.9")]
    V2026_9,
}

impl Rules {
    /// The rules of a host written by `app_version` (None: not known). SQLite hosts older than
    /// 2026.9 were not observed; they get the 2026.9 rules, and `assumed` says so.
    pub fn for_sqlite_host(app_version: Option<&str>) -> (Rules, Option<String>) {
        match app_version.and_then(Release::parse) {
            Some(r) if r.at_least(2026, 9, 0) => (Rules::V2026_9, None),
            Some(_) => (
                Rules::V2026_9,
                Some(format!(
                    "the database was written by OpenClaw {}; clawtop applies the 2026.9 arithmetic (the earlier SQLite releases were not observed)",
                    crate::sanitize::one_line(app_version.unwrap_or_default())
                )),
            ),
            None => (
                Rules::V2026_9,
                Some("the database does not say which OpenClaw release wrote it; clawtop applies the 2026.9 arithmetic".into()),
            ),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rules::V2026_2 => "2026.2",
            Rules::V2026_9 => "2026.9",
        }
    }
}

/// A row read back from another host: "2026.9", else the file-backed releases' rules.
impl From<String> for Rules {
    fn from(s: String) -> Rules {
        if s == Rules::V2026_9.name() {
            Rules::V2026_9
        } else {
            Rules::V2026_2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_orders() {
        let a = Release::parse("2026.9.6").unwrap();
        assert_eq!(a.parts, (2026, 9, 6));
        assert!(Release::parse("2026.5.30-beta.1").unwrap() < Release::parse("2026.5.30").unwrap());
        assert!(Release::parse("2026.10.1").unwrap() > a);
        assert!(Release::parse("x.9.6").is_none());
        assert_eq!(
            Rules::for_sqlite_host(Some("2026.9.6")),
            (Rules::V2026_9, None)
        );
        assert!(
            Rules::for_sqlite_host(Some("2026.7.2"))
                .1
                .unwrap()
                .contains("not observed")
        );
    }
}
