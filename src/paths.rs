//! clawtop's own directories, one definition each (the XDG base directories): its config dir
//! (the device identity, the default hosts file) and its state dir (the log), and the home
//! directory `~` means in what the operator types. OpenClaw's own state dir and config path
//! are OpenClaw's rules and live with the host (`crate::store::resolve`).
//!
//! Rules, as the XDG base directory spec has them: a variable that is unset or blank counts
//! as unset, and a relative `XDG_*` path is ignored (the spec calls it invalid), so the
//! fallback under `HOME` applies. `CLAWTOP_CONFIG_DIR` replaces the whole config dir (tests
//! and operators who keep clawtop's files elsewhere); it is taken as given.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment the directories are computed from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub xdg_state_home: Option<PathBuf>,
    pub xdg_cache_home: Option<PathBuf>,
    pub clawtop_config_dir: Option<PathBuf>,
}

impl Env {
    pub fn from_process() -> Env {
        Env::from_vars(|k| std::env::var_os(k))
    }

    /// From a variable lookup (tests pass their own).
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Env {
        let get = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let absolute = |k: &str| get(k).filter(|p| p.is_absolute());
        Env {
            home: get("HOME"),
            xdg_config_home: absolute("XDG_CONFIG_HOME"),
            xdg_state_home: absolute("XDG_STATE_HOME"),
            xdg_cache_home: absolute("XDG_CACHE_HOME"),
            clawtop_config_dir: get("CLAWTOP_CONFIG_DIR"),
        }
    }

    /// `CLAWTOP_CONFIG_DIR`, else `$XDG_CONFIG_HOME/clawtop`, else `~/.config/clawtop`.
    pub fn config_dir(&self) -> Option<PathBuf> {
        if let Some(d) = &self.clawtop_config_dir {
            return Some(d.clone());
        }
        let base = self
            .xdg_config_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".config")))?;
        Some(base.join("clawtop"))
    }

    /// `$XDG_STATE_HOME/clawtop`, else `~/.local/state/clawtop`: where the log goes.
    pub fn state_dir(&self) -> Option<PathBuf> {
        let base = self
            .xdg_state_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".local/state")))?;
        Some(base.join("clawtop"))
    }

    /// `$XDG_CACHE_HOME/clawtop`, else `~/.cache/clawtop`: what was measured and can be
    /// measured again (the per-transcript figures, `numbers::cache`). Deleting it loses
    /// nothing but time.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        let base = self
            .xdg_cache_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".cache")))?;
        Some(base.join("clawtop"))
    }

    /// The default hosts file: `hosts.toml` in the config dir.
    pub fn hosts_file(&self) -> Option<PathBuf> {
        self.config_dir().map(|d| d.join(HOSTS_FILE))
    }

    /// The home directory (`~`).
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }
}

/// The hosts file's name inside the config dir.
pub const HOSTS_FILE: &str = "hosts.toml";

/// clawtop's config dir for this process ([`Env::config_dir`]).
pub fn config_dir() -> Option<PathBuf> {
    Env::from_process().config_dir()
}

/// clawtop's state dir for this process ([`Env::state_dir`]).
pub fn state_dir() -> Option<PathBuf> {
    Env::from_process().state_dir()
}

/// clawtop's cache dir for this process ([`Env::cache_dir`]).
pub fn cache_dir() -> Option<PathBuf> {
    Env::from_process().cache_dir()
}

/// `HOME` for this process, blank counted as unset.
pub fn home() -> Option<PathBuf> {
    Env::from_process().home
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env::from_vars(|k| {
            vars.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| OsString::from(v))
        })
    }

    fn p(s: &str) -> Option<PathBuf> {
        Some(PathBuf::from(s))
    }

    #[test]
    fn config_dir_override_then_xdg_then_home() {
        let all = [
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/x"),
            ("CLAWTOP_CONFIG_DIR", "/c"),
        ];
        assert_eq!(env(&all).config_dir(), p("/c"));
        assert_eq!(env(&all[..2]).config_dir(), p("/x/clawtop"));
        assert_eq!(env(&all[..1]).config_dir(), p("/h/.config/clawtop"));
        assert_eq!(env(&[]).config_dir(), None);
    }

    #[test]
    fn a_relative_or_blank_xdg_dir_is_ignored() {
        let e = env(&[
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "rel"),
            ("XDG_STATE_HOME", ""),
        ]);
        assert_eq!(e.config_dir(), p("/h/.config/clawtop"));
        assert_eq!(e.state_dir(), p("/h/.local/state/clawtop"));
        assert_eq!(env(&[("HOME", "")]).home(), None);
    }

    #[test]
    fn state_dir_xdg_then_home() {
        let e = env(&[("HOME", "/h"), ("XDG_STATE_HOME", "/s")]);
        assert_eq!(e.state_dir(), p("/s/clawtop"));
        assert_eq!(env(&[]).state_dir(), None);
    }

    #[test]
    fn cache_dir_xdg_then_home() {
        let e = env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "/c")]);
        assert_eq!(e.cache_dir(), p("/c/clawtop"));
        assert_eq!(env(&[("HOME", "/h")]).cache_dir(), p("/h/.cache/clawtop"));
        assert_eq!(
            env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "rel")]).cache_dir(),
            p("/h/.cache/clawtop")
        );
        assert_eq!(env(&[]).cache_dir(), None);
    }

    #[test]
    fn hosts_file_is_in_the_config_dir() {
        assert_eq!(
            env(&[("HOME", "/h")]).hosts_file(),
            p("/h/.config/clawtop/hosts.toml")
        );
        assert_eq!(
            env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]).hosts_file(),
            p("/x/clawtop/hosts.toml")
        );
        assert_eq!(
            env(&[("CLAWTOP_CONFIG_DIR", "/c")]).hosts_file(),
            p("/c/hosts.toml")
        );
    }
}
