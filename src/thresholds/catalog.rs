//! Where a model is described in a catalog: `models.providers.<p>` of `openclaw.json` or
//! `providers.<p>` of an agent's `models.json`, and the `models[]` entry whose `id` is the
//! model or `<provider>/<model>`. The window lookup ([`super::catalog_window`]), the model
//! endpoint resolution (`crate::llm::resolve`) and prices all find a model here, so they
//! cannot disagree about which entry describes it.

use serde_json::{Map, Value};

/// The providers object of a catalog: `openclaw.json` (`models.providers`) or an agent's
/// `models.json` (`providers`).
pub fn providers(catalog: &Value) -> Option<&Map<String, Value>> {
    catalog
        .get("providers")
        .or_else(|| catalog.pointer("/models/providers"))?
        .as_object()
}

/// The `models[]` entry of `provider_obj` (the provider named `provider`) whose `id` is
/// `model` or `<provider>/<model>`.
pub fn find_model<'a>(
    provider_obj: &'a Map<String, Value>,
    provider: &str,
    model: &str,
) -> Option<&'a Map<String, Value>> {
    let qualified = format!("{provider}/{model}");
    provider_obj
        .get("models")?
        .as_array()?
        .iter()
        .filter_map(Value::as_object)
        .find(|m| {
            m.get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| id == model || id == qualified)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_catalog_shapes_and_both_id_forms() {
        let config = serde_json::json!({"models": {"providers": {"p": {"models": [{"id": "p/m", "contextWindow": 1}]}}}});
        let agent =
            serde_json::json!({"providers": {"p": {"models": [{"id": "m", "contextWindow": 2}]}}});
        for (c, want) in [(&config, 1), (&agent, 2)] {
            let p = providers(c).unwrap()["p"].as_object().unwrap();
            let m = find_model(p, "p", "m").unwrap();
            assert_eq!(m["contextWindow"], want);
            assert!(find_model(p, "p", "other").is_none());
        }
    }
}
