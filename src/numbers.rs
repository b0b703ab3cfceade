//! The numbers of every session of a source (docs/numbers.md), shared by every front-end: `list`,
//! `show`, the use cases and the TUI rows all compute them here. Caches the config settings
//! and the agents' model catalogs, and the transcript estimates (sessions can share one).

use crate::source::{Session, SessionSource};
use crate::thresholds::{self, Catalog, Counters, Rules, Settings, Thresholds};
use crate::transcript::{EntryKind, Transcript, Warning};
use crate::used::{StoreSide, TranscriptFacts};
use serde_json::Value;
use std::collections::HashMap;

/// One transcript read for its figures: the facts, its warnings, why it could not be read.
type Opened = (Option<TranscriptFacts>, Vec<String>, Option<String>);

pub struct Numbers<'s> {
    pub source: &'s dyn SessionSource,
    pub settings: Settings,
    /// The host release's arithmetic ([`SessionSource::rules`]).
    pub rules: Rules,
    config_label: String,
    models_json: HashMap<String, Option<(String, Value)>>,
    /// What `used` needs from each transcript, per location: sessions can share a transcript
    /// (forks, copies). The third field: why the transcript could not be read.
    facts: HashMap<String, Opened>,
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
        let (facts, unread) = match (&s.transcript, self.source.transcripts_decide_used()) {
            (Some(at), true) => {
                let source = self.source;
                let (f, ws, unread) = self.facts.entry(at.clone()).or_insert_with(|| {
                    let mut ws = Vec::new();
                    let opened = source.open_transcript_for_figures(&s.reference);
                    let unread = opened.as_ref().err().map(|e| e.to_string());
                    let f = opened_transcript(opened, &mut ws).map(|t| {
                        also(&t);
                        crate::used::facts(&t)
                    });
                    (f, ws, unread)
                });
                warnings.extend(ws.iter().cloned());
                (f.clone(), unread.clone())
            }
            _ => (None, None),
        };
        self.session_from(s, facts.as_ref(), unread.as_deref())
    }

    /// Numbers of a session whose transcript the caller has open (or None: the store alone,
    /// unless the source said the transcript is there and refused it).
    pub fn session_with_transcript(&mut self, s: &Session, t: Option<&Transcript>) -> Thresholds {
        let facts = t
            .filter(|_| self.source.transcripts_decide_used())
            .map(crate::used::facts);
        self.session_from(s, facts.as_ref(), None)
    }

    /// Numbers of a session whose transcript the caller tried to open and could not (`why`):
    /// every figure that needs it is unknown ([`crate::used::unread`]).
    pub fn session_unread(&mut self, s: &Session, why: &str) -> Thresholds {
        self.session_from(s, None, Some(why))
    }

    /// The one place a session's figures are put together: window and lines from the
    /// settings, `used` from [`crate::used::resolve`]. `unread`: why the transcript could not
    /// be read (the source's own refusal, [`Session::transcript_unread`], counts too).
    fn session_from(
        &mut self,
        s: &Session,
        facts: Option<&TranscriptFacts>,
        unread: Option<&str>,
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
        let store = StoreSide {
            total_tokens: counters.total_tokens,
            total_tokens_fresh: counters.total_tokens_fresh,
            updated_at: e.updated_at,
        };
        let unread = unread
            .or(s.transcript_unread.as_deref())
            .filter(|_| facts.is_none() && source.transcripts_decide_used());
        let used = match unread {
            Some(why) => crate::used::unread(store, why),
            None => crate::used::resolve(store, facts, self.rules),
        };
        let mut t = with_used(self.rules, window, used, facts, &self.settings, &counters);
        if let Some(why) = unread {
            t.unknown
                .push((crate::thresholds::TRANSCRIPT_UNREAD, why.to_string()));
        }
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
