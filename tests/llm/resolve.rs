//! `clawtop::llm::resolve_endpoint`: config, models.json, built-ins, flags, keys.

use std::collections::HashMap;

use clawtop::llm::{
    Api, LlmError, MaxTokensField, ModelEndpoint, ModelOverrides, resolve_endpoint,
};
use serde_json::{Value, json};

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

fn resolve(
    config: &Value,
    agent: Option<&Value>,
    session: (Option<&str>, Option<&str>),
    ov: &ModelOverrides,
    env: &[(&str, &str)],
) -> Result<ModelEndpoint, LlmError> {
    resolve_endpoint(config, agent, session.0, session.1, ov, &env_of(env))
}

fn key(ep: &ModelEndpoint) -> Option<&str> {
    ep.api_key.as_ref().map(|k| k.expose())
}

fn fake_config() -> Value {
    json!({
        "models": { "providers": { "fake": {
            "baseUrl": "https://llm.example.com/v1",
            "api": "openai-completions",
            "apiKey": "sk-literal-config-key",
            "headers": { "X-Org": "org-1" },
            "models": [
                { "id": "fake-large", "reasoning": true, "contextWindow": 128000, "maxTokens": 8192 },
                { "id": "fake-small", "api": "anthropic-messages" }
            ]
        }}}
    })
}

#[test]
fn config_only() {
    let ep = resolve(
        &fake_config(),
        None,
        (Some("fake"), Some("fake-large")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap();
    assert_eq!(ep.provider, "fake");
    assert_eq!(ep.model, "fake-large");
    assert_eq!(ep.api, Api::OpenAiCompletions);
    assert_eq!(ep.base_url, "https://llm.example.com/v1");
    assert_eq!(key(&ep), Some("sk-literal-config-key"));
    assert_eq!(ep.key_source, "config models.providers.fake.apiKey");
    assert_eq!(ep.headers, vec![("X-Org".to_string(), "org-1".to_string())]);
    assert!(ep.reasoning);
    assert_eq!(ep.context_window, Some(128000));
    assert_eq!(ep.max_tokens, Some(8192));
    assert_eq!(ep.max_tokens_field, MaxTokensField::MaxTokens);

    // The model's own `api` beats the provider's; a model missing from the catalog is fine.
    let ep = resolve(
        &fake_config(),
        None,
        (Some("fake"), Some("fake-small")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap();
    assert_eq!(ep.api, Api::AnthropicMessages);
    assert!(!ep.reasoning);
    let ep = resolve(
        &fake_config(),
        None,
        (Some("fake"), Some("uncatalogued")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap();
    assert_eq!(
        (ep.model.as_str(), ep.context_window, ep.max_tokens),
        ("uncatalogued", None, None)
    );
}

#[test]
fn models_json_wins_when_non_empty() {
    let agent = json!({ "providers": { "fake": {
        "baseUrl": "https://agent-proxy.example.com/v1",
        "apiKey": "",
        "headers": { "x-org": "org-agent", "X-Extra": "e" },
        "models": [ { "id": "fake-large", "reasoning": false, "contextWindow": 64000 } ]
    }}});
    let ep = resolve(
        &fake_config(),
        Some(&agent),
        (Some("fake"), Some("fake-large")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap();
    assert_eq!(ep.base_url, "https://agent-proxy.example.com/v1");
    // Empty agent apiKey: the config's applies. Config api kept (agent has none).
    assert_eq!(key(&ep), Some("sk-literal-config-key"));
    assert_eq!(ep.api, Api::OpenAiCompletions);
    assert!(!ep.reasoning);
    assert_eq!(ep.context_window, Some(64000));
    assert_eq!(
        ep.max_tokens,
        Some(8192),
        "config model value where the agent has none"
    );
    let mut headers = ep.headers.clone();
    headers.sort();
    assert_eq!(
        headers,
        vec![
            ("X-Extra".into(), "e".into()),
            ("x-org".into(), "org-agent".into())
        ]
    );

    // A provider only in models.json works too.
    let agent = json!({ "providers": { "local": { "baseUrl": "http://127.0.0.1:11434/v1", "api": "openai-completions", "apiKey": "ollama" } } });
    let ep = resolve(
        &json!({}),
        Some(&agent),
        (Some("local"), Some("llama3")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap();
    assert_eq!(ep.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(key(&ep), Some("ollama"));
    assert_eq!(ep.key_source, "models.json providers.local.apiKey");
}

#[test]
fn builtin_anthropic_and_openai() {
    let ep = resolve(
        &json!({}),
        None,
        (Some("anthropic"), Some("claude-sonnet-4-6")),
        &ModelOverrides::default(),
        &[("ANTHROPIC_API_KEY", "sk-ant-x")],
    )
    .unwrap();
    assert_eq!(
        (ep.base_url.as_str(), ep.api),
        ("https://api.anthropic.com", Api::AnthropicMessages)
    );
    assert_eq!(key(&ep), Some("sk-ant-x"));
    assert_eq!(ep.key_source, "env ANTHROPIC_API_KEY");

    let ep = resolve(
        &json!({}),
        None,
        (Some("openai"), Some("gpt-5")),
        &ModelOverrides::default(),
        &[("OPENAI_API_KEY", "sk-oa")],
    )
    .unwrap();
    assert_eq!(
        (ep.base_url.as_str(), ep.api),
        ("https://api.openai.com/v1", Api::OpenAiCompletions)
    );
    assert_eq!(ep.key_source, "env OPENAI_API_KEY");
    assert_eq!(ep.max_tokens_field, MaxTokensField::MaxCompletionTokens);

    // Config that only sets a key for a built-in keeps the built-in endpoint.
    let cfg = json!({"models": {"providers": {"anthropic": {"apiKey": "sk-ant-config"}}}});
    let ep = resolve(
        &cfg,
        None,
        (Some("anthropic"), Some("claude-x")),
        &ModelOverrides::default(),
        &[("ANTHROPIC_API_KEY", "env-loses")],
    )
    .unwrap();
    assert_eq!(ep.base_url, "https://api.anthropic.com");
    assert_eq!(key(&ep), Some("sk-ant-config"));
}

#[test]
fn flags_override_everything() {
    let ov = ModelOverrides {
        provider: Some("fake".into()),
        model: Some("flag-model".into()),
        base_url: Some("http://10.1.2.3:8000".into()),
        api: Some(Api::AnthropicMessages),
        api_key_env: Some("MY_FLAG_KEY".into()),
    };
    let ep = resolve(
        &fake_config(),
        None,
        (Some("anthropic"), Some("claude-x")),
        &ov,
        &[("MY_FLAG_KEY", "sk-from-flag")],
    )
    .unwrap();
    assert_eq!(ep.provider, "fake");
    assert_eq!(ep.model, "flag-model");
    assert_eq!(ep.base_url, "http://10.1.2.3:8000");
    assert_eq!(ep.api, Api::AnthropicMessages);
    assert_eq!(key(&ep), Some("sk-from-flag"));
    assert_eq!(ep.key_source, "env MY_FLAG_KEY (--api-key-env)");

    // An unconfigured provider is usable with --base-url and --api.
    let ov = ModelOverrides {
        provider: Some("adhoc".into()),
        model: Some("m".into()),
        base_url: Some("http://localhost:8080/v1".into()),
        api: Some(Api::OpenAiCompletions),
        api_key_env: None,
    };
    let ep = resolve(&json!({}), None, (None, None), &ov, &[]).unwrap();
    assert_eq!(ep.provider, "adhoc");
    assert!(ep.api_key.is_none());

    // --api-key-env naming an unset variable is an error, not a fallback.
    let ov = ModelOverrides {
        api_key_env: Some("NOPE".into()),
        ..ModelOverrides::default()
    };
    let e = resolve(
        &fake_config(),
        None,
        (Some("fake"), Some("fake-large")),
        &ov,
        &[],
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::MissingKey { .. }), "{e:?}");
    assert!(e.to_string().contains("--api-key-env NOPE"), "{e}");
}

#[test]
fn flag_model_and_provider_combine_with_session() {
    // --model alone keeps the session's provider.
    let ov = ModelOverrides {
        model: Some("fake-small".into()),
        ..Default::default()
    };
    let ep = resolve(
        &fake_config(),
        None,
        (Some("fake"), Some("fake-large")),
        &ov,
        &[],
    )
    .unwrap();
    assert_eq!(
        (ep.provider.as_str(), ep.model.as_str()),
        ("fake", "fake-small")
    );
    // --provider alone with another provider's session model is refused.
    let ov = ModelOverrides {
        provider: Some("fake".into()),
        ..Default::default()
    };
    let e = resolve(
        &fake_config(),
        None,
        (Some("anthropic"), Some("claude-x")),
        &ov,
        &[],
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::NoModel { .. }), "{e:?}");
    assert!(e.to_string().contains("belongs to `anthropic`"), "{e}");
}

#[test]
fn env_var_keys() {
    let with_key = |k: Value| json!({"models": {"providers": {"p": {"baseUrl": "https://p.example.com", "api": "openai-completions", "apiKey": k}}}});
    let s = (Some("p"), Some("m"));
    let d = ModelOverrides::default();

    let ep = resolve(
        &with_key(json!("${P_SECRET}")),
        None,
        s,
        &d,
        &[("P_SECRET", "v1")],
    )
    .unwrap();
    assert_eq!(key(&ep), Some("v1"));
    assert_eq!(
        ep.key_source,
        "config models.providers.p.apiKey (env reference)"
    );

    let ep = resolve(
        &with_key(json!("P_SECRET")),
        None,
        s,
        &d,
        &[("P_SECRET", "v2")],
    )
    .unwrap();
    assert_eq!(key(&ep), Some("v2"));
    assert_eq!(
        ep.key_source,
        "env P_SECRET (named by config models.providers.p.apiKey)"
    );

    let ep = resolve(
        &with_key(json!({"source": "env", "provider": "default", "id": "P_SECRET"})),
        None,
        s,
        &d,
        &[("P_SECRET", "v3")],
    )
    .unwrap();
    assert_eq!(key(&ep), Some("v3"));

    // An all-caps word that names no set variable is a literal (vLLM's "EMPTY").
    let ep = resolve(&with_key(json!("EMPTY")), None, s, &d, &[]).unwrap();
    assert_eq!(key(&ep), Some("EMPTY"));

    // An unset ${VAR} falls through to the conventional variable.
    let ep = resolve(
        &with_key(json!("${UNSET}")),
        None,
        s,
        &d,
        &[("P_API_KEY", "conv")],
    )
    .unwrap();
    assert_eq!(key(&ep), Some("conv"));
    assert_eq!(ep.key_source, "env P_API_KEY");

    // Conventional variable for a provider with punctuation.
    let cfg = json!({"models": {"providers": {"my-proxy": {"baseUrl": "https://proxy.example.com", "api": "anthropic-messages"}}}});
    let ep = resolve(
        &cfg,
        None,
        (Some("my-proxy"), Some("m")),
        &d,
        &[("MY_PROXY_API_KEY", "pk")],
    )
    .unwrap();
    assert_eq!(key(&ep), Some("pk"));
}

#[test]
fn header_env_references() {
    let cfg = json!({"models": {"providers": {"p": {
        "baseUrl": "https://p.example.com", "api": "openai-completions", "apiKey": "k-123456",
        "headers": {"Authorization-Proxy": "Bearer ${PROXY_TOKEN}"}
    }}}});
    let s = (Some("p"), Some("m"));
    let ep = resolve(
        &cfg,
        None,
        s,
        &ModelOverrides::default(),
        &[("PROXY_TOKEN", "tok")],
    )
    .unwrap();
    assert_eq!(
        ep.headers,
        vec![("Authorization-Proxy".to_string(), "Bearer tok".to_string())]
    );
    let e = resolve(&cfg, None, s, &ModelOverrides::default(), &[]).unwrap_err();
    assert!(
        matches!(e, LlmError::InvalidEndpoint { .. }) && e.to_string().contains("PROXY_TOKEN"),
        "{e}"
    );
}

#[test]
fn missing_key_errors_unless_loopback() {
    let cfg = json!({"models": {"providers": {"remote": {"baseUrl": "https://remote.example.com/v1", "api": "openai-completions"}}}});
    let e = resolve(
        &cfg,
        None,
        (Some("remote"), Some("m")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::MissingKey { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("`remote`") && msg.contains("REMOTE_API_KEY") && msg.contains("--api-key-env"),
        "{msg}"
    );

    let e = resolve(
        &json!({}),
        None,
        (Some("anthropic"), Some("claude-x")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");

    for base in [
        "http://127.0.0.1:11434/v1",
        "http://localhost:8000/v1",
        "http://[::1]:8080",
    ] {
        let cfg = json!({"models": {"providers": {"ollama": {"baseUrl": base, "api": "openai-completions"}}}});
        let ep = resolve(
            &cfg,
            None,
            (Some("ollama"), Some("llama3")),
            &ModelOverrides::default(),
            &[],
        )
        .unwrap();
        assert!(ep.api_key.is_none());
        assert_eq!(ep.key_source, "none (loopback server)");
    }
}

#[test]
fn missing_provider_or_model_errors() {
    let d = ModelOverrides::default();
    let e = resolve(&json!({}), None, (None, None), &d, &[]).unwrap_err();
    assert!(matches!(e, LlmError::NoProvider { .. }), "{e:?}");
    assert!(
        e.to_string().contains("modelProvider") && e.to_string().contains("agents.defaults.model"),
        "{e}"
    );

    let e = resolve(&json!({}), None, (Some("anthropic"), None), &d, &[]).unwrap_err();
    assert!(matches!(e, LlmError::NoModel { .. }), "{e:?}");

    let e = resolve(&json!({}), None, (None, Some("some-model")), &d, &[]).unwrap_err();
    assert!(
        matches!(e, LlmError::NoProvider { .. }) && e.to_string().contains("some-model"),
        "{e}"
    );

    // Unknown provider: says where it looked.
    let e = resolve(&fake_config(), None, (Some("nowhere"), Some("m")), &d, &[]).unwrap_err();
    assert!(matches!(e, LlmError::UnknownProvider { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("config models.providers.nowhere")
            && msg.contains("models.json providers.nowhere"),
        "{msg}"
    );

    // Configured base URL but no api.
    let cfg = json!({"models": {"providers": {"x": {"baseUrl": "https://x.example.com"}}}});
    let e = resolve(&cfg, None, (Some("x"), Some("m")), &d, &[]).unwrap_err();
    assert!(e.to_string().contains("no `api`"), "{e}");

    // An api clawtop does not speak.
    let cfg = json!({"models": {"providers": {"x": {"baseUrl": "https://x.example.com", "api": "openai-responses"}}}});
    let e = resolve(&cfg, None, (Some("x"), Some("m")), &d, &[]).unwrap_err();
    assert!(
        matches!(e, LlmError::UnsupportedApi { .. }) && e.to_string().contains("openai-responses"),
        "{e}"
    );

    // A base URL that is not http(s).
    let ov = ModelOverrides {
        base_url: Some("ftp://x".into()),
        ..Default::default()
    };
    let e = resolve(&fake_config(), None, (Some("fake"), Some("m")), &ov, &[]).unwrap_err();
    assert!(matches!(e, LlmError::InvalidEndpoint { .. }), "{e:?}");
}

#[test]
fn default_model_and_provider_prefixes() {
    let cfg = json!({"agents": {"defaults": {"model": {"primary": "anthropic/claude-opus-4-6"}}}});
    let env = [("ANTHROPIC_API_KEY", "k-123456")];
    let d = ModelOverrides::default();
    let ep = resolve(&cfg, None, (None, None), &d, &env).unwrap();
    assert_eq!(
        (ep.provider.as_str(), ep.model.as_str()),
        ("anthropic", "claude-opus-4-6")
    );
    // String form, and only for the same provider when the session names one.
    let cfg2 = json!({"agents": {"defaults": {"model": "anthropic/claude-opus-4-6"}}});
    let ep = resolve(&cfg2, None, (Some("anthropic"), None), &d, &env).unwrap();
    assert_eq!(ep.model, "claude-opus-4-6");

    // "provider/model" without a provider splits only on a known provider.
    let ep = resolve(
        &json!({}),
        None,
        (None, Some("anthropic/claude-x")),
        &d,
        &env,
    )
    .unwrap();
    assert_eq!(
        (ep.provider.as_str(), ep.model.as_str()),
        ("anthropic", "claude-x")
    );
    // OpenRouter ids keep their slash.
    let cfg = json!({"models": {"providers": {"openrouter": {"baseUrl": "https://openrouter.ai/api/v1", "api": "openai-completions", "apiKey": "k-123456"}}}});
    let ep = resolve(
        &cfg,
        None,
        (Some("openrouter"), Some("anthropic/claude-sonnet-4")),
        &d,
        &[],
    )
    .unwrap();
    assert_eq!(ep.model, "anthropic/claude-sonnet-4");
}

#[test]
fn provider_and_model_matching_details() {
    // Provider ids match case-insensitively; model ids may be provider-qualified.
    let cfg = json!({"models": {"providers": {"Fake": {
        "baseUrl": "https://x.example.com", "api": "anthropic-messages", "apiKey": "k-123456",
        "models": [{"id": "fake/big", "contextWindow": 1000000.0, "compat": {"maxTokensField": "max_completion_tokens"}}]
    }}}});
    let ep = resolve(
        &cfg,
        None,
        (Some("fake"), Some("big")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap();
    assert_eq!(ep.key_source, "config models.providers.Fake.apiKey");
    assert_eq!(ep.context_window, Some(1_000_000));
    assert_eq!(ep.max_tokens_field, MaxTokensField::MaxCompletionTokens);
    // Garbage in the config never panics.
    let bad = json!({"models": {"providers": {"fake": {"baseUrl": 5, "models": "nope", "headers": [1], "apiKey": 7}}}});
    let e = resolve(
        &bad,
        Some(&json!([])),
        (Some("fake"), Some("m")),
        &ModelOverrides::default(),
        &[],
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::UnknownProvider { .. }), "{e:?}");
}
