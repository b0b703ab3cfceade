//! Endpoint resolution (docs/models.md): session model, OpenClaw config, agent `models.json`,
//! built-in defaults and operator flags give a [`ModelEndpoint`]. Pure: the environment
//! is a lookup closure so tests never touch the process environment.

use serde_json::{Map, Value};

use super::{Api, LlmError, MaxTokensField, ModelEndpoint, Secret, redact_url};

/// Operator overrides from the command line; `None` (or an empty string) = not given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelOverrides {
    /// `--provider`
    pub provider: Option<String>,
    /// `--model`
    pub model: Option<String>,
    /// `--base-url`
    pub base_url: Option<String>,
    /// `--api anthropic-messages|openai-completions`
    pub api: Option<Api>,
    /// `--api-key-env VAR`: read the key from this variable, nothing else.
    pub api_key_env: Option<String>,
}

struct Builtin {
    base_url: &'static str,
    api: Api,
    key_env: &'static str,
}

fn builtin(provider: &str) -> Option<Builtin> {
    match provider {
        "anthropic" => Some(Builtin {
            base_url: "https://api.anthropic.com",
            api: Api::AnthropicMessages,
            key_env: "ANTHROPIC_API_KEY",
        }),
        "openai" => Some(Builtin {
            base_url: "https://api.openai.com/v1",
            api: Api::OpenAiCompletions,
            key_env: "OPENAI_API_KEY",
        }),
        _ => None,
    }
}

/// One source of provider settings, highest priority first in a list.
struct Layer<'a> {
    /// Human path for messages, e.g. `config models.providers.x`.
    label: String,
    provider: &'a Map<String, Value>,
    /// The matching `models[]` entry, if the catalog lists the model.
    model: Option<&'a Map<String, Value>>,
}

/// Resolve the endpoint for a session's model. See the module docs of [`crate::llm`]
/// for the precedence rules and key decisions.
pub fn resolve_endpoint(
    config: &Value,
    agent_models: Option<&Value>,
    session_provider: Option<&str>,
    session_model: Option<&str>,
    ov: &ModelOverrides,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ModelEndpoint, LlmError> {
    let config_providers = config
        .pointer("/models/providers")
        .and_then(Value::as_object);
    let agent_providers = agent_models
        .and_then(|v| v.get("providers"))
        .and_then(Value::as_object);
    let is_known = |p: &str| {
        builtin(p).is_some()
            || find_key(config_providers, p).is_some()
            || find_key(agent_providers, p).is_some()
    };

    let (provider, model) =
        pick_provider_model(config, session_provider, session_model, ov, &is_known)?;

    let layers = layers_of(agent_providers, config_providers, &provider, &model);
    let builtin = builtin(&provider);
    let (base_url, url) = base_url(ov, &layers, builtin.as_ref(), &provider)?;
    let api = api(ov, &layers, builtin.as_ref(), &provider)?;
    let ModelFacts {
        reasoning,
        context_window,
        max_tokens,
        max_tokens_field,
    } = model_facts(&layers, &url);

    let headers = collect_headers(&provider, &layers, env)?;
    let (api_key, key_source) = resolve_key(
        &provider,
        &layers,
        builtin.as_ref(),
        ov,
        is_loopback(&url),
        env,
    )?;

    let ep = ModelEndpoint {
        provider,
        model,
        api,
        base_url,
        api_key,
        headers,
        reasoning,
        context_window,
        max_tokens,
        max_tokens_field,
        key_source,
    };
    tracing::debug!(
        provider = %ep.provider, model = %ep.model, api = %ep.api, base_url = %ep.shown_base_url(),
        key_source = %ep.key_source, "resolved model endpoint"
    );
    Ok(ep)
}

/// The catalogs that describe `provider`, in the order their values win: the agent's
/// `models.json` first (its non-empty values win over the config's), then the config.
fn layers_of<'a>(
    agent_providers: Option<&'a Map<String, Value>>,
    config_providers: Option<&'a Map<String, Value>>,
    provider: &str,
    model: &str,
) -> Vec<Layer<'a>> {
    let mut layers = Vec::new();
    if let Some((key, map)) = find_key(agent_providers, provider) {
        layers.push(Layer {
            label: format!("models.json providers.{key}"),
            provider: map,
            model: find_model(map, provider, model),
        });
    }
    if let Some((key, map)) = find_key(config_providers, provider) {
        layers.push(Layer {
            label: format!("config models.providers.{key}"),
            provider: map,
            model: find_model(map, provider, model),
        });
    }
    layers
}

/// Where a provider's settings were looked for, for the error that finds none.
fn looked_at(provider: &str, builtin: Option<&Builtin>) -> String {
    let mut places = vec![
        format!("config models.providers.{provider}"),
        format!("models.json providers.{provider}"),
    ];
    places.push(if builtin.is_some() {
        "built-in defaults".to_string()
    } else {
        "built-in defaults (only anthropic, openai)".to_string()
    });
    places.join(", ")
}

/// The base URL: `--base-url`, else the first catalog's `baseUrl`, else the built-in one;
/// it must be an http(s) URL.
fn base_url(
    ov: &ModelOverrides,
    layers: &[Layer<'_>],
    builtin: Option<&Builtin>,
    provider: &str,
) -> Result<(String, reqwest::Url), LlmError> {
    let provider = provider.to_string();
    let base_url = match nonempty(ov.base_url.as_deref()) {
        Some(u) => u.to_string(),
        None => match layers.iter().find_map(|l| str_field(l.provider, "baseUrl")) {
            Some(u) => u.to_string(),
            None => match builtin {
                Some(b) => b.base_url.to_string(),
                None => {
                    let looked = format!(
                        "no baseUrl in {} (or pass --base-url)",
                        looked_at(&provider, builtin)
                    );
                    return Err(LlmError::UnknownProvider { provider, looked });
                }
            },
        },
    };
    let url = reqwest::Url::parse(&base_url).map_err(|e| LlmError::InvalidEndpoint {
        provider: provider.clone(),
        reason: format!("base URL `{}` is not a URL: {e}", redact_url(&base_url)),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(LlmError::InvalidEndpoint {
            provider,
            reason: format!("base URL `{}` is not http(s)", redact_url(&base_url)),
        });
    }
    Ok((base_url, url))
}

/// The API: `--api`, else a model's own `api`, else its provider's, else the built-in one.
fn api(
    ov: &ModelOverrides,
    layers: &[Layer<'_>],
    builtin: Option<&Builtin>,
    provider: &str,
) -> Result<Api, LlmError> {
    let provider = provider.to_string();
    Ok(match ov.api {
        Some(a) => a,
        None => {
            // A model's own `api` beats its provider's.
            let configured = layers
                .iter()
                .find_map(|l| l.model.and_then(|m| str_field(m, "api")))
                .or_else(|| layers.iter().find_map(|l| str_field(l.provider, "api")));
            match (configured, builtin) {
                (Some(a), _) => a.parse::<Api>().map_err(|_| LlmError::UnsupportedApi {
                    provider: Some(provider.clone()),
                    api: a.to_string(),
                })?,
                (None, Some(b)) => b.api,
                (None, None) => {
                    let looked = format!(
                        "no `api` in {} (or pass --api)",
                        looked_at(&provider, builtin)
                    );
                    return Err(LlmError::UnknownProvider { provider, looked });
                }
            }
        }
    })
}

/// What the catalogs say about the model itself.
struct ModelFacts {
    reasoning: bool,
    context_window: Option<u64>,
    max_tokens: Option<u64>,
    max_tokens_field: MaxTokensField,
}

/// The model's facts from the first catalog that has each; the max-tokens field defaults to
/// OpenAI's own name on api.openai.com.
fn model_facts(layers: &[Layer<'_>], url: &reqwest::Url) -> ModelFacts {
    let model_u64 = |field: &str| {
        layers
            .iter()
            .find_map(|l| l.model.and_then(|m| u64_field(m, field)))
    };
    let reasoning = layers
        .iter()
        .find_map(|l| {
            l.model
                .and_then(|m| m.get("reasoning"))
                .and_then(Value::as_bool)
        })
        .unwrap_or(false);
    let context_window = model_u64("contextWindow").or_else(|| {
        layers
            .iter()
            .find_map(|l| u64_field(l.provider, "contextWindow"))
    });
    let max_tokens = model_u64("maxTokens");
    let max_tokens_field = layers
        .iter()
        .find_map(|l| {
            l.model
                .and_then(|m| m.get("compat"))
                .or_else(|| l.provider.get("compat"))
                .and_then(|c| c.get("maxTokensField"))
                .and_then(Value::as_str)
        })
        .and_then(|f| match f {
            "max_tokens" => Some(MaxTokensField::MaxTokens),
            "max_completion_tokens" => Some(MaxTokensField::MaxCompletionTokens),
            _ => None,
        })
        .unwrap_or(if url.host_str() == Some("api.openai.com") {
            MaxTokensField::MaxCompletionTokens
        } else {
            MaxTokensField::MaxTokens
        });

    ModelFacts {
        reasoning,
        context_window,
        max_tokens,
        max_tokens_field,
    }
}

/// Provider and model id: flags, then the session, then `agents.defaults.model`.
fn pick_provider_model(
    config: &Value,
    session_provider: Option<&str>,
    session_model: Option<&str>,
    ov: &ModelOverrides,
    is_known: &dyn Fn(&str) -> bool,
) -> Result<(String, String), LlmError> {
    let ov_provider = nonempty(ov.provider.as_deref());
    let ov_model = nonempty(ov.model.as_deref());
    let s_provider = nonempty(session_provider);
    let s_model = nonempty(session_model);
    // OpenClaw writes the default as "provider/model" (string or `{primary}`).
    let default_ref = config
        .pointer("/agents/defaults/model")
        .and_then(|m| {
            m.as_str()
                .or_else(|| m.get("primary").and_then(Value::as_str))
        })
        .and_then(|s| s.split_once('/'))
        .filter(|(p, m)| !p.is_empty() && !m.is_empty());

    // A bare "p/m" model without a provider is split only when `p` is a provider we know,
    // because OpenRouter-style ids ("anthropic/claude-…") legitimately contain '/'.
    let split_known = |m: &str| {
        m.split_once('/')
            .filter(|(p, rest)| !rest.is_empty() && is_known(p))
            .map(|(p, rest)| (p.to_string(), rest.to_string()))
    };

    if let Some(p) = ov_provider {
        if let Some(m) = ov_model {
            return Ok((p.to_string(), m.to_string()));
        }
        // The session's model only makes sense with the session's provider.
        if s_provider == Some(p) || (s_provider.is_none() && s_model.is_some()) {
            if let Some(m) = s_model {
                return Ok((p.to_string(), m.to_string()));
            }
        }
        if let Some((dp, dm)) = default_ref {
            if dp == p {
                return Ok((p.to_string(), dm.to_string()));
            }
        }
        let why = match (s_provider, s_model) {
            (Some(sp), Some(sm)) => format!(
                "--provider {p} was given without --model, and the session's model `{sm}` belongs to `{sp}`"
            ),
            _ => format!(
                "--provider {p} was given without --model, the session has no model, and agents.defaults.model is not a `{p}` model"
            ),
        };
        return Err(LlmError::NoModel {
            provider: p.to_string(),
            looked: why,
        });
    }

    if let Some(m) = ov_model {
        if let Some(p) = s_provider {
            return Ok((p.to_string(), m.to_string()));
        }
        if let Some(pm) = split_known(m) {
            return Ok(pm);
        }
        return Err(LlmError::NoProvider {
            looked: format!(
                "--model {m} was given without --provider, and the session has no modelProvider"
            ),
        });
    }

    match (s_provider, s_model) {
        (Some(p), Some(m)) => Ok((p.to_string(), m.to_string())),
        (Some(p), None) => match default_ref {
            Some((dp, dm)) if dp == p => Ok((p.to_string(), dm.to_string())),
            _ => Err(LlmError::NoModel {
                provider: p.to_string(),
                looked: format!(
                    "no --model flag, the session has no model, and agents.defaults.model is not a `{p}` model"
                ),
            }),
        },
        (None, Some(m)) => split_known(m).ok_or_else(|| LlmError::NoProvider {
            looked: format!(
                "no --provider flag and the session has model `{m}` but no modelProvider"
            ),
        }),
        (None, None) => match default_ref {
            Some((dp, dm)) => Ok((dp.to_string(), dm.to_string())),
            None => Err(LlmError::NoProvider {
                looked: "no --provider/--model flags, the session has no modelProvider/model, and the config has no agents.defaults.model".to_string(),
            }),
        },
    }
}

/// The API key and where it came from. Order: `--api-key-env`; per layer `apiKey`
/// (env reference or literal); `<PROVIDER>_API_KEY` and the built-in's variable;
/// nothing (loopback only).
fn resolve_key(
    provider: &str,
    layers: &[Layer<'_>],
    builtin: Option<&Builtin>,
    ov: &ModelOverrides,
    loopback: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Option<Secret>, String), LlmError> {
    let get = |var: &str| env(var).filter(|v| !v.is_empty());

    if let Some(var) = nonempty(ov.api_key_env.as_deref()) {
        return match get(var) {
            Some(v) => Ok((Some(Secret::new(v)), format!("env {var} (--api-key-env)"))),
            None => Err(LlmError::MissingKey {
                provider: provider.to_string(),
                looked: format!("--api-key-env {var}, which is not set or empty"),
            }),
        };
    }

    let mut looked = Vec::new();
    for layer in layers {
        let here = format!("{}.apiKey", layer.label);
        match layer.provider.get("apiKey") {
            Some(Value::String(s)) if !s.trim().is_empty() => {
                let s = s.trim();
                if s.contains("${") {
                    match expand_env(s, &get) {
                        Ok(v) if !v.is_empty() => {
                            return Ok((Some(Secret::new(v)), format!("{here} (env reference)")));
                        }
                        Ok(_) => looked.push(format!("{here} (expands to nothing)")),
                        Err(UnsetVar(var)) => {
                            looked.push(format!("{here} (refers to {var}, not set)"))
                        }
                    }
                } else if is_env_name(s) && get(s).is_some() {
                    // An all-caps identifier naming a set variable is a reference; unset,
                    // it is taken literally (vLLM's conventional placeholder is "EMPTY").
                    let v = get(s).unwrap_or_default();
                    return Ok((Some(Secret::new(v)), format!("env {s} (named by {here})")));
                } else {
                    return Ok((Some(Secret::new(s)), here));
                }
            }
            // OpenClaw SecretRef: {"source":"env","id":"VAR"}.
            Some(Value::Object(r)) => {
                let source = r.get("source").and_then(Value::as_str).unwrap_or("");
                let id = r.get("id").and_then(Value::as_str).unwrap_or("");
                if source == "env" && !id.is_empty() {
                    match get(id) {
                        Some(v) => {
                            return Ok((
                                Some(Secret::new(v)),
                                format!("env {id} (named by {here})"),
                            ));
                        }
                        None => looked.push(format!("{here} (refers to {id}, not set)")),
                    }
                } else {
                    looked.push(format!(
                        "{here} (secret source `{source}` is not supported)"
                    ));
                }
            }
            _ => {}
        }
    }

    let mut vars = vec![conventional_env(provider)];
    if let Some(b) = builtin {
        if !vars.iter().any(|v| v == b.key_env) {
            vars.push(b.key_env.to_string());
        }
    }
    for var in &vars {
        if let Some(v) = get(var) {
            return Ok((Some(Secret::new(v)), format!("env {var}")));
        }
    }

    if loopback {
        return Ok((None, "none (loopback server)".to_string()));
    }
    if layers.is_empty() {
        looked.push(format!(
            "config models.providers.{provider}.apiKey (no such provider)"
        ));
    } else if looked.is_empty() {
        looked.push("apiKey in config and models.json (not set)".to_string());
    }
    for var in &vars {
        looked.push(format!("env {var} (not set)"));
    }
    Err(LlmError::MissingKey {
        provider: provider.to_string(),
        looked: format!("{}; or pass --api-key-env VAR", looked.join(", ")),
    })
}

/// Config headers: provider then model level, agent values over config values.
fn collect_headers(
    provider: &str,
    layers: &[Layer<'_>],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, LlmError> {
    let get = |var: &str| env(var).filter(|v| !v.is_empty());
    let mut out: Vec<(String, String)> = Vec::new();
    let mut sources: Vec<(String, &Map<String, Value>)> = Vec::new();
    // Lowest priority first, so later inserts replace earlier ones.
    for l in layers.iter().rev() {
        if let Some(h) = l.provider.get("headers").and_then(Value::as_object) {
            sources.push((format!("{}.headers", l.label), h));
        }
    }
    for l in layers.iter().rev() {
        if let Some(h) = l
            .model
            .and_then(|m| m.get("headers"))
            .and_then(Value::as_object)
        {
            sources.push((format!("{} model headers", l.label), h));
        }
    }
    for (label, map) in sources {
        for (name, value) in map {
            let Some(raw) = value.as_str() else { continue };
            let value =
                expand_env(raw, &get).map_err(|UnsetVar(var)| LlmError::InvalidEndpoint {
                    provider: provider.to_string(),
                    reason: format!("header `{name}` in {label} refers to {var}, which is not set"),
                })?;
            if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err()
                || reqwest::header::HeaderValue::from_str(&value).is_err()
            {
                // Don't quote the value: it may be a token.
                return Err(LlmError::InvalidEndpoint {
                    provider: provider.to_string(),
                    reason: format!("header `{name}` in {label} is not a valid HTTP header"),
                });
            }
            out.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
            out.push((name.clone(), value));
        }
    }
    Ok(out)
}

/// The first variable a `${VAR}` reference names that is not set.
#[derive(Debug, Clone, PartialEq, Eq)]
struct UnsetVar(String);

/// Replace every `${VAR}` (VAR = `[A-Z_][A-Z0-9_]*`, as OpenClaw's config substitution)
/// with its value. Other text is kept.
fn expand_env(s: &str, get: &dyn Fn(&str) -> Option<String>) -> Result<String, UnsetVar> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        if !is_env_name(name) {
            out.push_str(&rest[..start + 2]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..start]);
        out.push_str(&get(name).ok_or_else(|| UnsetVar(name.to_string()))?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// `openai-codex` → `OPENAI_CODEX_API_KEY`.
fn conventional_env(provider: &str) -> String {
    let stem: String = provider
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("{stem}_API_KEY")
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost") || host.ends_with(".localhost"),
    }
}

/// The provider's entry: exact key first, then case-insensitive (OpenClaw lower-cases ids).
fn find_key<'a>(
    providers: Option<&'a Map<String, Value>>,
    provider: &str,
) -> Option<(&'a str, &'a Map<String, Value>)> {
    let providers = providers?;
    let pick = |exact: bool| {
        providers.iter().find_map(|(k, v)| match v {
            Value::Object(m)
                if (exact && k == provider) || (!exact && k.eq_ignore_ascii_case(provider)) =>
            {
                Some((k.as_str(), m))
            }
            _ => None,
        })
    };
    pick(true).or_else(|| pick(false))
}

/// `models[]` entry whose `id` is the model or `<provider>/<model>` (the one lookup,
/// [`crate::thresholds::catalog::find_model`]).
use crate::thresholds::catalog::find_model;

fn nonempty(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

fn str_field<'a>(m: &'a Map<String, Value>, field: &str) -> Option<&'a str> {
    nonempty(m.get(field).and_then(Value::as_str))
}

/// Positive integer, also when written as a float (`200000.0`).
fn u64_field(m: &Map<String, Value>, field: &str) -> Option<u64> {
    let v = m.get(field)?;
    v.as_u64()
        .or_else(|| {
            v.as_f64()
                .filter(|f| f.is_finite() && *f >= 1.0 && f.fract() == 0.0 && *f < 9.0e15)
                .map(|f| f as u64)
        })
        .filter(|n| *n > 0)
}

/// When `openclaw.json` (`models.providers.<p>.baseUrl`) and the agent's `models.json`
/// (`providers.<p>.baseUrl`) disagree: which one `ep` uses and why, in words for the operator.
pub fn base_url_disagreement(
    config: &Value,
    agent_models: Option<&Value>,
    ep: &ModelEndpoint,
) -> Option<String> {
    let url_in = |providers: Option<&serde_json::Map<String, Value>>| {
        find_key(providers, &ep.provider)
            .and_then(|(_, m)| str_field(m, "baseUrl"))
            .map(str::to_string)
    };
    let from_config = url_in(
        config
            .pointer("/models/providers")
            .and_then(Value::as_object),
    )?;
    let from_agent = url_in(
        agent_models
            .and_then(|v| v.get("providers"))
            .and_then(Value::as_object),
    )?;
    if from_config.trim_end_matches('/') == from_agent.trim_end_matches('/') {
        return None;
    }
    let (used, other, why) = if ep.base_url == from_agent {
        (
            &from_agent,
            format!(
                "openclaw.json models.providers.{} says {}",
                ep.provider,
                redact_url(&from_config)
            ),
            "the agent's models.json wins over openclaw.json, as in OpenClaw",
        )
    } else {
        (
            &from_config,
            format!(
                "models.json providers.{} says {}",
                ep.provider,
                redact_url(&from_agent)
            ),
            "the agent's models.json has no usable value",
        )
    };
    Some(format!(
        "endpoint {} is used ({why}); {other}",
        redact_url(used)
    ))
}

/// A model listed in the host's config (`openclaw.json` `models.providers`) or the agent's
/// `models.json`, as a dialog offers it for one operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedModel {
    pub provider: String,
    pub model: String,
    /// The base URL this entry reaches (raw; redact before showing).
    pub base_url: Option<String>,
    /// Where it is listed: `openclaw.json`, `models.json` or both.
    pub listed_in: &'static str,
    /// Set when this entry is the endpoint resolution would not pick by itself (the
    /// config's base URL where `models.json` names another): it must be passed as an override.
    pub base_url_override: Option<String>,
}

/// Every model of every provider in the config and the agent's `models.json`, in file
/// order. A provider whose two files name different base URLs gives one entry per URL, the
/// one resolution uses (`models.json`'s) first.
pub fn listed_models(config: &Value, agent_models: Option<&Value>) -> Vec<ListedModel> {
    let config_providers = config
        .pointer("/models/providers")
        .and_then(Value::as_object);
    let agent_providers = agent_models
        .and_then(|v| v.get("providers"))
        .and_then(Value::as_object);
    // (provider, model) in order of first appearance: models.json first, as resolution.
    let mut pairs: Vec<(String, String)> = Vec::new();
    for providers in [agent_providers, config_providers].into_iter().flatten() {
        for (p, v) in providers {
            let ids = v
                .get("models")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| m.get("id").and_then(Value::as_str))
                .map(|id| {
                    id.strip_prefix(&format!("{p}/"))
                        .unwrap_or(id)
                        .trim()
                        .to_string()
                })
                .filter(|id| !id.is_empty());
            for id in ids {
                if !pairs
                    .iter()
                    .any(|(pp, m)| pp.eq_ignore_ascii_case(p) && *m == id)
                {
                    pairs.push((p.clone(), id));
                }
            }
        }
    }
    let url_in = |providers: Option<&Map<String, Value>>, p: &str| {
        find_key(providers, p)
            .and_then(|(_, m)| str_field(m, "baseUrl"))
            .map(str::to_string)
    };
    let listed = |providers: Option<&Map<String, Value>>, p: &str, m: &str| {
        find_key(providers, p).is_some_and(|(_, map)| find_model(map, p, m).is_some())
    };
    let mut out = Vec::new();
    for (p, m) in pairs {
        let (in_agent, in_config) = (
            listed(agent_providers, &p, &m),
            listed(config_providers, &p, &m),
        );
        let listed_in = match (in_agent, in_config) {
            (true, true) => "openclaw.json + models.json",
            (true, false) => "models.json",
            _ => "openclaw.json",
        };
        let (agent_url, config_url) = (url_in(agent_providers, &p), url_in(config_providers, &p));
        match (agent_url, config_url) {
            (Some(a), Some(c)) if a.trim_end_matches('/') != c.trim_end_matches('/') => {
                out.push(ListedModel {
                    provider: p.clone(),
                    model: m.clone(),
                    base_url: Some(a),
                    listed_in: "models.json",
                    base_url_override: None,
                });
                out.push(ListedModel {
                    provider: p,
                    model: m,
                    base_url: Some(c.clone()),
                    listed_in: "openclaw.json",
                    base_url_override: Some(c),
                });
            }
            (a, c) => out.push(ListedModel {
                provider: p,
                model: m,
                base_url: a.or(c),
                listed_in,
                base_url_override: None,
            }),
        }
    }
    out
}

/// How a provider entry names its key, in words that never contain a key: the variable a
/// reference names, or "a literal key".
fn key_name(provider: &Map<String, Value>) -> Option<String> {
    match provider.get("apiKey")? {
        Value::String(s) if !s.trim().is_empty() => {
            let s = s.trim();
            if let Some(start) = s.find("${") {
                let name: String = s[start + 2..].chars().take_while(|&c| c != '}').collect();
                if is_env_name(&name) {
                    return Some(format!("env {name}"));
                }
            }
            if is_env_name(s) {
                Some(format!("env {s} (or the literal text)"))
            } else {
                Some("a literal key".to_string())
            }
        }
        Value::Object(r) => Some(
            match (
                r.get("source").and_then(Value::as_str),
                r.get("id").and_then(Value::as_str),
            ) {
                (Some("env"), Some(id)) => format!("env {id}"),
                (Some(src), _) => format!("a `{src}` secret"),
                _ => "a secret reference".to_string(),
            },
        ),
        _ => None,
    }
}

/// Where `openclaw.json` and the agent's `models.json` disagree on `ep`'s provider (base
/// URL, api, how the key is named): which value is used and why, in words for the operator,
/// said before any request is sent. `chosen_url` is set when the operator chose the base URL
/// (`--base-url`, the dialog's model picker). Never contains a key.
pub fn endpoint_disagreements(
    config: &Value,
    agent_models: Option<&Value>,
    ep: &ModelEndpoint,
    chosen_url: bool,
) -> Option<String> {
    let config_p = find_key(
        config
            .pointer("/models/providers")
            .and_then(Value::as_object),
        &ep.provider,
    )
    .map(|(_, m)| m);
    let agent_p = find_key(
        agent_models
            .and_then(|v| v.get("providers"))
            .and_then(Value::as_object),
        &ep.provider,
    )
    .map(|(_, m)| m);
    let (Some(c), Some(a)) = (config_p, agent_p) else {
        return None;
    };
    let mut notes = Vec::new();
    if chosen_url {
        if let (Some(cu), Some(au)) = (str_field(c, "baseUrl"), str_field(a, "baseUrl")) {
            if cu.trim_end_matches('/') != au.trim_end_matches('/') {
                notes.push(format!(
                    "endpoint {} is used (chosen for this run); openclaw.json says {}, models.json says {}",
                    redact_url(&ep.base_url),
                    redact_url(cu),
                    redact_url(au)
                ));
            }
        }
    } else if let Some(n) = base_url_disagreement(config, agent_models, ep) {
        notes.push(n);
    }
    if let (Some(ca), Some(aa)) = (str_field(c, "api"), str_field(a, "api")) {
        if ca != aa {
            notes.push(format!(
                "api {} is used (the model's or models.json's api wins); openclaw.json says {ca}, models.json says {aa}",
                ep.api
            ));
        }
    }
    if let (Some(ck), Some(ak)) = (key_name(c), key_name(a)) {
        let differ = ck != ak || (ck == "a literal key" && c.get("apiKey") != a.get("apiKey"));
        if differ {
            notes.push(format!(
                "key: {} is used (models.json's is tried first, then openclaw.json's); openclaw.json names {ck}, models.json names {ak}",
                ep.key_source
            ));
        }
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names() {
        assert!(is_env_name("OPENAI_API_KEY"));
        assert!(is_env_name("_X1"));
        assert!(!is_env_name("sk-abc"));
        assert!(!is_env_name("1ABC"));
        assert!(!is_env_name(""));
        assert_eq!(conventional_env("openai-codex"), "OPENAI_CODEX_API_KEY");
    }

    #[test]
    fn expand() {
        let get = |v: &str| (v == "A").then(|| "1".to_string());
        assert_eq!(expand_env("x${A}y${A}", &get).as_deref(), Ok("x1y1"));
        assert_eq!(expand_env("${B}", &get), Err(UnsetVar("B".to_string())));
        assert_eq!(expand_env("${lower}", &get).as_deref(), Ok("${lower}"));
        assert_eq!(expand_env("${A", &get).as_deref(), Ok("${A"));
        assert_eq!(expand_env("plain", &get).as_deref(), Ok("plain"));
    }

    #[test]
    fn disagreements_name_key_variables_never_values() {
        let config = serde_json::json!({"models": {"providers": {"p": {
            "baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions",
            "apiKey": "sk-literal-secret",
            "models": [{"id": "m"}]}}}});
        let agent = serde_json::json!({"providers": {"p": {
            "baseUrl": "http://user:pw@127.0.0.1:2/v1", "api": "anthropic-messages",
            "apiKey": "${P_KEY}", "models": [{"id": "p/m"}, {"id": "n"}]}}});
        let env = |k: &str| (k == "P_KEY").then(|| "sk-env-secret".to_string());
        let ep = resolve_endpoint(
            &config,
            Some(&agent),
            Some("p"),
            Some("m"),
            &ModelOverrides::default(),
            &env,
        )
        .unwrap();
        let n = endpoint_disagreements(&config, Some(&agent), &ep, false).unwrap();
        assert!(n.contains("is used (the agent's models.json wins"), "{n}");
        assert!(n.contains("api anthropic-messages is used"), "{n}");
        assert!(
            n.contains("openclaw.json names a literal key, models.json names env P_KEY"),
            "{n}"
        );
        for secret in ["sk-literal-secret", "sk-env-secret", "pw@"] {
            assert!(!n.contains(secret), "{secret} in {n}");
        }
        // Listed: models.json's URL first, then openclaw.json's, the `p/` prefix dropped.
        let l = listed_models(&config, Some(&agent));
        let got: Vec<_> = l
            .iter()
            .map(|m| (m.model.as_str(), m.listed_in, m.base_url_override.is_some()))
            .collect();
        assert_eq!(
            got,
            [
                ("m", "models.json", false),
                ("m", "openclaw.json", true),
                ("n", "models.json", false),
                ("n", "openclaw.json", true),
            ]
        );
        // Agreeing files: no note.
        assert_eq!(
            endpoint_disagreements(&config, Some(&config["models"]), &ep, false),
            None
        );
    }

    #[test]
    fn loopback() {
        for (u, want) in [
            ("http://127.0.0.1:11434/v1", true),
            ("http://localhost:8000", true),
            ("http://[::1]:8080", true),
            ("https://api.openai.com/v1", false),
            ("http://10.0.0.2:8000", false),
        ] {
            assert_eq!(is_loopback(&reqwest::Url::parse(u).unwrap()), want, "{u}");
        }
    }
}
