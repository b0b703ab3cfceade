//! The numbers of every session of a source (docs/numbers.md), shared by every front-end: `list`,
//! `show`, the use cases and the TUI rows all compute them here. Caches the config settings
//! and the agents' model catalogs, and the transcript estimates (sessions can share one).

use crate::source::{Session, SessionSource};
use crate::thresholds::{self, Catalog, Counters, Rules, Settings, Thresholds};
use crate::tokens::ContextEstimate;
use crate::transcript::{EntryKind, Transcript, Warning};
use serde_json::Value;
use std::collections::HashMap;

pub struct Numbers<'s> {
    pub source: &'s dyn SessionSource,
    pub settings: Settings,
    /// The host release's arithmetic ([`SessionSource::rules`]).
    pub rules: Rules,
    config_label: String,
    models_json: HashMap<String, Option<(String, Value)>>,
    /// Estimates per transcript location: sessions can share a transcript (forks, copies).
    estimates: HashMap<String, (Option<ContextEstimate>, Vec<String>)>,
}

impl<'s> Numbers<'s> {
    pub fn new(source: &'s dyn SessionSource) -> Numbers<'s> {
        Numbers {
            source,
            settings: Settings::from_config(source.config()),
            rules: source.rules().0,
            config_label: source.config_label(),
            models_json: HashMap::new(),
            estimates: HashMap::new(),
        }
    }

    /// Numbers of a session. The transcript is opened only when `used` has to be estimated;
    /// its problems are added to `warnings`.
    pub fn session(
        &mut self,
        s: &Session,
        warnings: &mut Vec<String>,
    ) -> (Thresholds, Option<ContextEstimate>) {
        let mut est = None;
        let mut cache = std::mem::take(&mut self.estimates);
        let source = self.source;
        let rules = self.rules;
        let t = self.session_with(s, || {
            let at = s.transcript.clone()?;
            let (e, ws) = cache.entry(at).or_insert_with(|| {
                let mut ws = Vec::new();
                let e = open_transcript(source, s, &mut ws).and_then(|t| estimate(rules, &t));
                (e, ws)
            });
            warnings.extend(ws.iter().cloned());
            est = *e;
            est.map(|e| e.tokens)
        });
        self.estimates = cache;
        (t, est)
    }

    /// Numbers of a session with a caller-supplied estimator (called only when needed).
    pub fn session_with(
        &mut self,
        s: &Session,
        estimate: impl FnOnce() -> Option<u64>,
    ) -> Thresholds {
        let source = self.source;
        let mj = self
            .models_json
            .entry(s.agent_id().to_string())
            .or_insert_with(|| source.models_json(s.agent_id()));
        let mut catalogs = Vec::new();
        if let Some(m) = source.config().get("models") {
            catalogs.push(Catalog {
                value: m,
                label: &self.config_label,
            });
        }
        if let Some((label, v)) = mj.as_ref() {
            catalogs.push(Catalog { value: v, label });
        }
        let e = &s.entry;
        let window = thresholds::resolve_window(
            e.context_tokens(),
            &self.settings,
            &catalogs,
            e.model_provider.as_deref(),
            e.model.as_deref(),
        );
        let counters = Counters::from_entry(e);
        let used = thresholds::resolve_used(&counters, estimate);
        let mut t = thresholds::compute_with(self.rules, window, used, &self.settings, &counters);
        t.mask_not_exposed(&source.not_exposed());
        t
    }
}

/// The used estimate from a transcript, as the host's release measures it: pi's context
/// estimate (last usage + the messages after it) up to 2026.7.1; from 2026.9 the prompt of
/// the last model call, which is what `totalTokens` records there
/// ([`crate::sqlite::transcript::last_prompt_tokens`]).
pub fn estimate(rules: Rules, t: &Transcript) -> Option<ContextEstimate> {
    match rules {
        Rules::V2026_2 => crate::context::current_tokens(t),
        Rules::V2026_9 => {
            crate::sqlite::transcript::last_prompt_tokens(t).map(|p| ContextEstimate {
                tokens: p.tokens(),
                usage_tokens: p.tokens(),
                trailing_tokens: 0,
                last_usage_index: None,
            })
        }
    }
}

/// Opens a session's transcript, turning its problems into warnings naming it (and the line).
pub fn open_transcript(
    source: &dyn SessionSource,
    s: &Session,
    warnings: &mut Vec<String>,
) -> Option<Transcript> {
    match source.open_transcript(&s.reference) {
        Ok(t) => {
            push_transcript_warnings(&t, warnings);
            Some(t)
        }
        Err(e) => {
            warnings.push(crate::sanitize::one_line(&e.to_string()));
            None
        }
    }
}

pub fn push_transcript_warnings(t: &Transcript, warnings: &mut Vec<String>) {
    let mut ws = t.all_warnings();
    if t.is_empty() && ws.is_empty() {
        ws.push(Warning {
            line: 0,
            message: "transcript has no entries".into(),
        });
    }
    for e in t.entries.iter() {
        if e.kind == EntryKind::Unknown {
            let ty = e.raw_type.as_deref().unwrap_or("?");
            ws.push(Warning {
                line: e.line,
                message: format!(
                    "unknown entry type {ty:?}; shown raw, not part of the model context"
                ),
            });
        }
    }
    ws.sort_by_key(|w| w.line);
    for w in ws {
        warnings.push(crate::sanitize::one_line(&format!(
            "{}: {w}",
            t.path().display()
        )));
    }
}
