//! The agent workspace the flush writes into (docs/host-layout.md §3)
//! and the target file in it.

use serde_json::Value;
use std::path::{Path, PathBuf};

pub const SOURCE_AGENT_LIST: &str = "config agents.list[].workspace";
pub const SOURCE_DEFAULTS: &str = "config agents.defaults.workspace";
pub const SOURCE_DEFAULT: &str = "default <state>/workspace";
/// For callers that apply `--workspace DIR`.
pub const SOURCE_FLAG: &str = "--workspace";

/// `~` and `~/…` expand against `home`; anything else is taken as written.
pub fn expand_tilde(s: &str, home: &Path) -> PathBuf {
    if s == "~" {
        home.to_path_buf()
    } else if let Some(rest) = s.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(s)
    }
}

/// The workspace of `agent_id` and where it came from: `agents.list[].workspace` (the entry
/// whose normalized `id` matches), else `agents.defaults.workspace`, else OpenClaw's default
/// `<state>/workspace`. A leading `~` expands against `home`; a relative path is taken
/// relative to the state dir (clawtop's cwd means nothing on the host). `--workspace DIR`
/// is applied by the caller ([`SOURCE_FLAG`]).
///
/// Not modelled: `OPENCLAW_PROFILE`, which makes OpenClaw's default `<state>/workspace-<profile>`.
pub fn workspace_for(
    config: &Value,
    state_dir: &Path,
    agent_id: &str,
    home: &Path,
) -> (PathBuf, &'static str) {
    // One normalization for ids (the store's): an id that normalizes to nothing usable
    // matches no entry.
    let want = crate::store_entry::normalize_agent_id(agent_id);
    let non_blank = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let from_list = config
        .pointer("/agents/list")
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter()
                .find(|a| {
                    want.is_some()
                        && a.get("id")
                            .and_then(Value::as_str)
                            .and_then(crate::store_entry::normalize_agent_id)
                            == want
                })
                .and_then(|a| non_blank(a.get("workspace")))
        });
    let (raw, source) = match from_list {
        Some(w) => (w, SOURCE_AGENT_LIST),
        None => match non_blank(config.pointer("/agents/defaults/workspace")) {
            Some(w) => (w, SOURCE_DEFAULTS),
            None => return (state_dir.join("workspace"), SOURCE_DEFAULT),
        },
    };
    let p = expand_tilde(&raw, home);
    (
        if p.is_absolute() {
            p
        } else {
            state_dir.join(p)
        },
        source,
    )
}

/// `<workspace>/memory/<date>.md`.
pub fn target_path(workspace: &Path, date: &str) -> PathBuf {
    workspace.join("memory").join(format!("{date}.md"))
}

/// True for a `YYYY-MM-DD` string of ASCII digits (the only dates a target file may be named by).
pub fn is_valid_date(date: &str) -> bool {
    let b = date.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok()
}

/// Today's date in the local timezone (OpenClaw uses the user's timezone), `YYYY-MM-DD`.
pub fn today() -> String {
    chrono::Local::now().format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn precedence_and_expansion() {
        let home = Path::new("/home/op");
        let state = Path::new("/home/op/.openclaw");
        let cfg = json!({"agents": {
            "defaults": {"workspace": "~/.openclaw/workspace"},
            "list": [{"id": "Ops", "workspace": "/srv/ops-ws"}, {"id": "rel", "workspace": "ws-rel"}, {"id": "blank", "workspace": " "}]
        }});
        assert_eq!(
            workspace_for(&cfg, state, "ops", home),
            (PathBuf::from("/srv/ops-ws"), SOURCE_AGENT_LIST)
        );
        assert_eq!(
            workspace_for(&cfg, state, "rel", home),
            (state.join("ws-rel"), SOURCE_AGENT_LIST)
        );
        assert_eq!(
            workspace_for(&cfg, state, "blank", home),
            (
                PathBuf::from("/home/op/.openclaw/workspace"),
                SOURCE_DEFAULTS
            )
        );
        assert_eq!(
            workspace_for(&cfg, state, "main", home),
            (
                PathBuf::from("/home/op/.openclaw/workspace"),
                SOURCE_DEFAULTS
            )
        );
        assert_eq!(
            workspace_for(&json!({}), state, "main", home),
            (state.join("workspace"), SOURCE_DEFAULT)
        );
        assert_eq!(expand_tilde("~", home), PathBuf::from("/home/op"));
        assert_eq!(expand_tilde("~other/x", home), PathBuf::from("~other/x"));
    }

    #[test]
    fn dates() {
        assert!(is_valid_date("2026-11-21"));
        for bad in [
            "2026-13-01",
            "2026-1-01",
            "../../x.md",
            "2026-11-21/..",
            "２０２６-11-21",
            "",
        ] {
            assert!(!is_valid_date(bad), "{bad:?}");
        }
        assert!(is_valid_date(&today()));
        assert_eq!(
            target_path(Path::new("/w"), "2026-11-21"),
            PathBuf::from("/w/memory/2026-11-21.md")
        );
    }
}

#[cfg(test)]
mod one_normalization {
    use super::*;
    use serde_json::json;

    /// Issue 18: the flush normalized agent ids its own way; it now uses the store's rule, so
    /// the workspace found is the one of the agent the store lists.
    #[test]
    fn agent_ids_are_matched_as_the_store_normalizes_them() {
        let cfg = json!({"agents": {"list": [
            {"id": "Ops Team", "workspace": "/srv/ops"},
            {"id": "-bad", "workspace": "/srv/bad"}
        ]}});
        let home = Path::new("/home/op");
        let state = Path::new("/home/op/.openclaw");
        assert_eq!(
            workspace_for(&cfg, state, "ops-team", home),
            (PathBuf::from("/srv/ops"), SOURCE_AGENT_LIST)
        );
        assert_eq!(
            crate::store_entry::normalize_agent_id("Ops Team").as_deref(),
            Some("ops-team")
        );
        // An id the store would refuse matches no entry: the default applies.
        assert_eq!(crate::store_entry::normalize_agent_id("-bad"), None);
        assert_eq!(workspace_for(&cfg, state, "-bad", home).1, SOURCE_DEFAULT);
    }
}
