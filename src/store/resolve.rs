//! Where the state dir and the config are (docs/host-layout.md §2).

use super::StoreError;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The process environment clawtop reads, captured once so resolution is testable.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `HOME` (or `USERPROFILE`).
    pub home: Option<PathBuf>,
    /// `OPENCLAW_HOME`, `~` expanded against `home`.
    pub openclaw_home: Option<PathBuf>,
    /// `OPENCLAW_STATE_DIR`, `~` expanded.
    pub state_dir: Option<PathBuf>,
    /// `OPENCLAW_CONFIG_PATH`, `~` expanded.
    pub config_path: Option<PathBuf>,
}

impl Env {
    pub fn from_process() -> Env {
        // OpenClaw trims these and treats blank as unset.
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.to_string_lossy().trim().is_empty());
        let home = var("HOME")
            .or_else(|| var("USERPROFILE"))
            .map(PathBuf::from);
        let expand =
            |v: std::ffi::OsString| expand_tilde(v.to_string_lossy().trim(), home.as_deref());
        Env {
            openclaw_home: var("OPENCLAW_HOME").map(expand),
            state_dir: var("OPENCLAW_STATE_DIR").map(expand),
            config_path: var("OPENCLAW_CONFIG_PATH").map(expand),
            home,
        }
    }

    /// OpenClaw's notion of home: `OPENCLAW_HOME` replaces `HOME`.
    pub fn effective_home(&self) -> Option<&Path> {
        self.openclaw_home.as_deref().or(self.home.as_deref())
    }
}

/// `~` and `~/x` against `home`; anything else as written.
pub fn expand_tilde(s: &str, home: Option<&Path>) -> PathBuf {
    match (s, home) {
        ("~", Some(h)) => h.to_path_buf(),
        (s, Some(h)) if s.starts_with("~/") => h.join(&s[2..]),
        (s, _) => PathBuf::from(s),
    }
}

/// The flags that pick a host.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub state_dir: Option<PathBuf>,
    pub config: Option<PathBuf>,
    pub profile: Option<String>,
}

/// Why a state dir was chosen (or considered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StateDirSource {
    Flag,
    Profile,
    EnvStateDir,
    OpenclawHome,
    Home,
    Legacy,
    Demo,
}

impl StateDirSource {
    pub fn describe(self) -> &'static str {
        match self {
            StateDirSource::Flag => "--state-dir",
            StateDirSource::Profile => "--profile",
            StateDirSource::EnvStateDir => "OPENCLAW_STATE_DIR",
            StateDirSource::OpenclawHome => "$OPENCLAW_HOME/.openclaw",
            StateDirSource::Home => "~/.openclaw",
            StateDirSource::Legacy => "legacy ~/.clawdbot",
            StateDirSource::Demo => "embedded demo",
        }
    }
}

/// One place resolution looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Looked {
    pub path: PathBuf,
    pub source: StateDirSource,
}

impl std::fmt::Display for Looked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.path.display(), self.source.describe())
    }
}

/// Profile names become a path component; keep them to one plain component.
pub fn valid_profile(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// State dir resolution, in order: `--state-dir`, `--profile NAME` (`<home>/.openclaw-NAME`,
/// which OpenClaw implements by setting `OPENCLAW_STATE_DIR`, so it beats the env var),
/// `OPENCLAW_STATE_DIR`, `$OPENCLAW_HOME/.openclaw`, `$HOME/.openclaw`, then legacy
/// `.clawdbot` under the same homes. An explicitly named dir (flag, profile, env) must exist:
/// falling through to another host would show the operator the wrong data.
pub fn resolve_state_dir(
    opts: &Options,
    env: &Env,
) -> Result<(PathBuf, StateDirSource, Vec<Looked>), StoreError> {
    let explicit = if let Some(d) = &opts.state_dir {
        Some((
            expand_tilde(&d.to_string_lossy(), env.home.as_deref()),
            StateDirSource::Flag,
        ))
    } else if let Some(p) = &opts.profile {
        let home = env.effective_home().ok_or_else(|| StoreError::NoStateDir {
            looked: Vec::new(),
            note: "HOME is not set".into(),
        })?;
        Some((home.join(format!(".openclaw-{p}")), StateDirSource::Profile))
    } else {
        env.state_dir
            .clone()
            .map(|d| (d, StateDirSource::EnvStateDir))
    };
    if let Some((dir, source)) = explicit {
        let looked = vec![Looked {
            path: dir.clone(),
            source,
        }];
        return if dir.is_dir() {
            Ok((dir, source, looked))
        } else {
            Err(StoreError::StateDirMissing {
                path: dir,
                from: source,
            })
        };
    }
    let mut candidates: Vec<Looked> = Vec::new();
    let mut push = |path: PathBuf, source| {
        if !candidates.iter().any(|c| c.path == path) {
            candidates.push(Looked { path, source });
        }
    };
    if let Some(h) = &env.openclaw_home {
        push(h.join(".openclaw"), StateDirSource::OpenclawHome);
    }
    if let Some(h) = &env.home {
        push(h.join(".openclaw"), StateDirSource::Home);
    }
    if let Some(h) = &env.openclaw_home {
        push(h.join(".clawdbot"), StateDirSource::Legacy);
    }
    if let Some(h) = &env.home {
        push(h.join(".clawdbot"), StateDirSource::Legacy);
    }
    for c in &candidates {
        if c.path.is_dir() {
            return Ok((c.path.clone(), c.source, candidates.clone()));
        }
    }
    let note = if candidates.is_empty() {
        "neither HOME nor OPENCLAW_HOME is set".to_string()
    } else {
        String::new()
    };
    Err(StoreError::NoStateDir {
        looked: candidates,
        note,
    })
}

impl ConfigSource {
    pub fn describe(self) -> &'static str {
        match self {
            ConfigSource::Flag => "--config",
            ConfigSource::Profile => "--profile",
            ConfigSource::EnvConfigPath => "OPENCLAW_CONFIG_PATH",
            ConfigSource::StateDir => "state dir",
            ConfigSource::Legacy => "legacy clawdbot.json",
            ConfigSource::None => "none",
        }
    }
}

/// Where the config came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ConfigSource {
    Flag,
    Profile,
    EnvConfigPath,
    StateDir,
    Legacy,
    /// No config file: an empty object.
    None,
}

/// Config resolution: `--config`, the profile dir's `openclaw.json` (a profile sets
/// `OPENCLAW_CONFIG_PATH` in OpenClaw), `OPENCLAW_CONFIG_PATH`, `<state>/openclaw.json`, legacy
/// `<state>/clawdbot.json`. Explicitly named files must exist; a missing default is `{}`.
pub fn resolve_config(
    opts: &Options,
    env: &Env,
    state_dir: &Path,
    state_source: StateDirSource,
) -> Result<(Option<PathBuf>, ConfigSource, Value), StoreError> {
    let explicit = if let Some(c) = &opts.config {
        Some((
            expand_tilde(&c.to_string_lossy(), env.home.as_deref()),
            ConfigSource::Flag,
        ))
    } else if state_source == StateDirSource::Profile {
        None
    } else {
        env.config_path
            .clone()
            .map(|c| (c, ConfigSource::EnvConfigPath))
    };
    if let Some((path, source)) = explicit {
        if std::fs::metadata(&path).is_err() {
            return Err(StoreError::ConfigMissing { path, from: source });
        }
        let v = load_config(&path)?;
        return Ok((Some(path), source, v));
    }
    let main_source = if state_source == StateDirSource::Profile {
        ConfigSource::Profile
    } else {
        ConfigSource::StateDir
    };
    for (name, source) in [
        ("openclaw.json", main_source),
        ("clawdbot.json", ConfigSource::Legacy),
    ] {
        let path = state_dir.join(name);
        // Present but not a regular file (a FIFO, a directory) is read, so it is refused by
        // name instead of silently falling back to defaults; a dangling link stays absent.
        if std::fs::metadata(&path).is_ok() {
            let v = load_config(&path)?;
            return Ok((Some(path), source, v));
        }
    }
    Ok((None, ConfigSource::None, Value::Object(Default::default())))
}

/// Reads an `openclaw.json` (JSON5). The top level must be an object.
pub fn load_config(path: &Path) -> Result<Value, StoreError> {
    let text =
        crate::regular_file::read_to_string(path).map_err(|source| StoreError::ConfigRead {
            path: path.to_path_buf(),
            source,
        })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let v: Value = json5::from_str(text).map_err(|e| StoreError::ConfigParse {
        path: path.to_path_buf(),
        message: one_line_error(&e.to_string()),
    })?;
    if !v.is_object() {
        return Err(StoreError::ConfigParse {
            path: path.to_path_buf(),
            message: format!("top level is {}, expected an object", json_kind(&v)),
        });
    }
    Ok(v)
}

pub(crate) fn one_line_error(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("clawtop-resolve-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn order_flag_profile_env_home_legacy() {
        let h = tmp("order");
        let oh = h.join("oh");
        std::fs::create_dir_all(h.join(".clawdbot")).unwrap();
        let env = Env {
            home: Some(h.clone()),
            openclaw_home: Some(oh.clone()),
            ..Default::default()
        };
        let (d, s, looked) = resolve_state_dir(&Options::default(), &env).unwrap();
        assert_eq!((d, s), (h.join(".clawdbot"), StateDirSource::Legacy));
        assert_eq!(looked[0].path, oh.join(".openclaw"));
        std::fs::create_dir_all(h.join(".openclaw")).unwrap();
        assert_eq!(
            resolve_state_dir(&Options::default(), &env).unwrap().1,
            StateDirSource::Home
        );
        std::fs::create_dir_all(oh.join(".openclaw")).unwrap();
        assert_eq!(
            resolve_state_dir(&Options::default(), &env).unwrap().1,
            StateDirSource::OpenclawHome
        );
        let env2 = Env {
            state_dir: Some(h.join(".clawdbot")),
            ..env.clone()
        };
        assert_eq!(
            resolve_state_dir(&Options::default(), &env2).unwrap().1,
            StateDirSource::EnvStateDir
        );
        std::fs::create_dir_all(oh.join(".openclaw-work")).unwrap();
        let p = Options {
            profile: Some("work".into()),
            ..Default::default()
        };
        assert_eq!(
            resolve_state_dir(&p, &env2).unwrap().0,
            oh.join(".openclaw-work")
        );
        let f = Options {
            state_dir: Some(h.join(".openclaw")),
            profile: Some("work".into()),
            ..Default::default()
        };
        assert_eq!(
            resolve_state_dir(&f, &env2).unwrap().1,
            StateDirSource::Flag
        );
        let missing = Options {
            state_dir: Some(h.join("nope")),
            ..Default::default()
        };
        assert!(matches!(
            resolve_state_dir(&missing, &env2),
            Err(StoreError::StateDirMissing { .. })
        ));
    }

    #[test]
    fn nothing_found_lists_places() {
        let h = tmp("none");
        let env = Env {
            home: Some(h.clone()),
            ..Default::default()
        };
        let e = resolve_state_dir(&Options::default(), &env)
            .unwrap_err()
            .to_string();
        assert!(e.contains(".openclaw") && e.contains(".clawdbot"), "{e}");
    }

    #[test]
    fn config_json5_missing_and_broken() {
        let d = tmp("cfg");
        let (p, s, v) = resolve_config(
            &Options::default(),
            &Env::default(),
            &d,
            StateDirSource::Flag,
        )
        .unwrap();
        assert_eq!(
            (p, s, v),
            (None, ConfigSource::None, Value::Object(Default::default()))
        );
        std::fs::write(
            d.join("openclaw.json"),
            "// c\n{ agents: { defaults: { contextTokens: 1000, } } }",
        )
        .unwrap();
        let (_, s, v) = resolve_config(
            &Options::default(),
            &Env::default(),
            &d,
            StateDirSource::Flag,
        )
        .unwrap();
        assert_eq!(s, ConfigSource::StateDir);
        assert_eq!(v["agents"]["defaults"]["contextTokens"], 1000);
        std::fs::write(d.join("openclaw.json"), "{ agents: ").unwrap();
        let e = resolve_config(
            &Options::default(),
            &Env::default(),
            &d,
            StateDirSource::Flag,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("openclaw.json"), "{e}");
        std::fs::write(d.join("openclaw.json"), "[1]").unwrap();
        assert!(
            resolve_config(
                &Options::default(),
                &Env::default(),
                &d,
                StateDirSource::Flag
            )
            .is_err()
        );
    }

    #[test]
    fn tilde() {
        assert_eq!(
            expand_tilde("~/x", Some(Path::new("/h"))),
            PathBuf::from("/h/x")
        );
        assert_eq!(
            expand_tilde("~", Some(Path::new("/h"))),
            PathBuf::from("/h")
        );
        assert_eq!(
            expand_tilde("/a/~", Some(Path::new("/h"))),
            PathBuf::from("/a/~")
        );
    }
}
