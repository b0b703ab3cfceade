//! The numbers of every session of a source (docs/numbers.md), shared by every front-end: `list`,
//! `show`, the use cases and the TUI rows all compute them here. Caches the config settings
//! and the agents' model catalogs, and the transcript estimates (sessions can share one).

use crate::source::{Session, SessionSource};
use crate::thresholds::{self, Catalog, Counters, Rules, Settings, Thresholds};
use crate::transcript::{EntryKind, Transcript, Warning};
use crate::used::{StoreSide, TranscriptFacts};
use serde_json::Value;
use std::collections::HashMap;

pub mod cache;

pub struct Numbers<'s> {
    pub source: &'s dyn SessionSource,
    pub settings: Settings,
    /// The host release's arithmetic ([`SessionSource::rules`]).
    pub rules: Rules,
    config_label: String,
    models_json: HashMap<String, Option<(String, Value)>>,
    /// What `used` needs from each transcript, per location: sessions can share a transcript
    /// (forks, copies).
    facts: HashMap<String, (Option<TranscriptFacts>, Vec<String>)>,
    /// The figures remembered from earlier runs ([`cache`]): None until a listing first
    /// asks, Some(None) when the source keeps none.
    cache: Option<Option<cache::FiguresCache>>,
}

impl<'s> Numbers<'s> {
    pub fn new(source: &'s dyn SessionSource) -> Numbers<'s> {
        Numbers {
            source,
            settings: Settings::from_config(source.config()),
            rules: source.rules().0,
            config_label: source.config_label(),
            models_json: HashMap::new(),
            facts: HashMap::new(),
            cache: None,
        }
    }

    /// [`Self::session`] for a listing (`list`, `check`, `metrics`, the fleet, the Sessions
    /// screen): the transcript's figures and forecast turns come from the [`cache`] when its
    /// stamp is unchanged, else from one read of it (handing the turns to `forecasts` and
    /// remembering both). The numbers are the same either way; [`Self::save_cache`] writes
    /// what was measured.
    pub fn session_listed(
        &mut self,
        s: &Session,
        warnings: &mut Vec<String>,
        forecasts: &mut crate::history::tail::Forecasts,
    ) -> Thresholds {
        let rules = self.rules;
        let at = match &s.transcript {
            Some(at) if self.source.transcripts_decide_used() && !self.facts.contains_key(at) => {
                at.clone()
            }
            _ => {
                return self
                    .session_seeing(s, warnings, |open| forecasts.read_open(s, open, rules));
            }
        };
        let source = self.source;
        let cache = self.cache.get_or_insert_with(|| {
            source
                .figures_cache()
                .map(|dir| cache::FiguresCache::open(&dir, &source.label()))
        });
        let Some(cache) = cache.as_mut() else {
            return self.session_seeing(s, warnings, |open| forecasts.read_open(s, open, rules));
        };
        let rules_key = format!("{rules:?}");
        let stamp = source.transcript_stamp(&s.reference);
        if let Some(stamp) = &stamp {
            if let Some((facts, turns)) = cache.get(&at, stamp, &rules_key) {
                tracing::debug!(target: "clawtop::io", io = "figures cached", "transcript figures remembered");
                forecasts.remember(s, Ok(turns));
                self.facts.insert(at, (Some(facts), Vec::new()));
                return self.session_seeing(s, warnings, |_| {});
            }
        }
        let mut turns = None;
        let th = self.session_seeing(s, warnings, |open| {
            let t = crate::history::tail::turns_of_transcript(open, rules);
            turns = Some(t.clone());
            forecasts.remember(s, Ok(t));
        });
        if let (Some(stamp), Some(turns), Some((Some(facts), ws)), Some(Some(cache))) =
            (stamp, turns, self.facts.get(&at), self.cache.as_mut())
        {
            if ws.is_empty() {
                cache.put(&at, stamp, &rules_key, facts, &turns);
            }
        }
        th
    }

    /// Writes back the figures [`Self::session_listed`] measured (when the source keeps
    /// them; a cache that cannot be written is skipped).
    pub fn save_cache(&mut self) {
        if let Some(Some(c)) = self.cache.as_mut() {
            c.save();
        }
    }

    /// Numbers of a session, its transcript read through the source when it has one (and the
    /// source decides `used` with transcripts: [`SessionSource::transcripts_decide_used`]);
    /// the transcript's problems are added to `warnings`.
    pub fn session(&mut self, s: &Session, warnings: &mut Vec<String>) -> Thresholds {
        self.session_seeing(s, warnings, |_| {})
    }

    /// [`Self::session`], handing the transcript, while it is open, to `also` (at most once
    /// per transcript): `list` takes the forecast's turns from it, so a session's rows are
    /// read once for both.
    pub fn session_seeing(
        &mut self,
        s: &Session,
        warnings: &mut Vec<String>,
        mut also: impl FnMut(&Transcript),
    ) -> Thresholds {
        let facts = match (&s.transcript, self.source.transcripts_decide_used()) {
            (Some(at), true) => {
                let source = self.source;
                let (f, ws) = self.facts.entry(at.clone()).or_insert_with(|| {
                    tracing::debug!(target: "clawtop::io", io = "transcript read", "transcript read for its figures");
                    let mut ws = Vec::new();
                    let opened = source.open_transcript_for_figures(&s.reference);
                    let f = opened_transcript(opened, &mut ws).map(|t| {
                        also(&t);
                        crate::used::facts(&t)
                    });
                    (f, ws)
                });
                warnings.extend(ws.iter().cloned());
                f.clone()
            }
            _ => None,
        };
        self.session_from(s, facts.as_ref())
    }

    /// Numbers of a session, and its transcript, opened for them, still open: the session
    /// list takes every other figure of the row from it before dropping it, so each
    /// transcript is read once for the whole row. None when the session has no transcript or
    /// the source does not decide `used` with transcripts (its problems are in `warnings`).
    pub fn session_open(
        &mut self,
        s: &Session,
        warnings: &mut Vec<String>,
    ) -> (Thresholds, Option<Transcript>) {
        let t = match (&s.transcript, self.source.transcripts_decide_used()) {
            (Some(_), true) => {
                tracing::debug!(target: "clawtop::io", io = "transcript read", "transcript read for its figures");
                opened_transcript(
                    self.source.open_transcript_for_figures(&s.reference),
                    warnings,
                )
            }
            _ => None,
        };
        (self.session_with_transcript(s, t.as_ref()), t)
    }

    /// Numbers of a session whose transcript the caller has open (or None: the store alone).
    pub fn session_with_transcript(&mut self, s: &Session, t: Option<&Transcript>) -> Thresholds {
        let facts = t
            .filter(|_| self.source.transcripts_decide_used())
            .map(crate::used::facts);
        self.session_from(s, facts.as_ref())
    }

    /// The one place a session's figures are put together: window and lines from the
    /// settings, `used` from [`crate::used::resolve`].
    fn session_from(&mut self, s: &Session, facts: Option<&TranscriptFacts>) -> Thresholds {
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
        let used = crate::used::resolve(
            StoreSide {
                total_tokens: counters.total_tokens,
                total_tokens_fresh: counters.total_tokens_fresh,
                updated_at: e.updated_at,
            },
            facts,
            self.rules,
        );
        let mut t = with_used(self.rules, window, used, facts, &self.settings, &counters);
        thresholds::note_store_flush_figure(&mut t);
        t.mask_not_exposed(&source.not_exposed());
        t
    }
}

/// Numbers of a bare transcript (no store entry): `used` from the transcript alone, by the
/// same rules as a session's ([`crate::used::resolve`]).
pub fn bare(t: Option<&Transcript>, window: thresholds::Window, settings: &Settings) -> Thresholds {
    let facts = t.map(crate::used::facts);
    let used = crate::used::resolve(StoreSide::default(), facts.as_ref(), Rules::V2026_2);
    with_used(
        Rules::V2026_2,
        window,
        used,
        facts.as_ref(),
        settings,
        &Counters::default(),
    )
}

/// The numbers of a bare transcript file, the one definition for `show FILE`, its diagnosis
/// and the TUI's bare row: no store entry and no config, so every setting is its default;
/// window 200000 unless `--window`; used from the transcript ([`bare`]).
pub fn bare_file(t: Option<&Transcript>, window: Option<u64>) -> (Thresholds, Settings) {
    let settings = Settings::from_config(&Value::Object(Default::default()));
    let window = match window {
        Some(n) => thresholds::Window {
            tokens: n,
            source: thresholds::Source::Flag,
            detail: "--window".into(),
        },
        None => thresholds::Window {
            tokens: thresholds::DEFAULT_WINDOW,
            source: thresholds::Source::Default,
            detail: "default 200000 (bare file; use --window)".into(),
        },
    };
    let th = bare(t, window, &settings);
    (th, settings)
}

/// The lines and status of `used`, with the decision's own figures (the store's figure, the
/// check, the transcript's view) carried on the thresholds: the one place both a session and
/// a bare transcript get them.
fn with_used(
    rules: Rules,
    window: thresholds::Window,
    used: crate::used::Used,
    facts: Option<&TranscriptFacts>,
    settings: &Settings,
    counters: &Counters,
) -> Thresholds {
    let mut t =
        thresholds::compute_with(rules, window, (used.value, used.source), settings, counters);
    t.store_used = used.store_differs;
    t.used_check = used.check;
    t.used_check_reason = used.check_reason;
    t.transcript_context = facts.map(|f| f.context.clone());
    t
}

/// Opens a session's transcript, turning its problems into warnings naming it (and the line).
pub fn open_transcript(
    source: &dyn SessionSource,
    s: &Session,
    warnings: &mut Vec<String>,
) -> Option<Transcript> {
    opened_transcript(source.open_transcript(&s.reference), warnings)
}

fn opened_transcript(
    opened: Result<Transcript, crate::source::SourceError>,
    warnings: &mut Vec<String>,
) -> Option<Transcript> {
    match opened {
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
            let ty = e.raw_type().unwrap_or("?");
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
