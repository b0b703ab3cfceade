//! The numbers of every session of a source (docs/numbers.md), shared by every front-end: `list`,
//! `show`, the use cases and the TUI rows all compute them here. Caches the config settings
//! and the agents' model catalogs, and the transcript estimates (sessions can share one).

use crate::source::{Session, SessionSource};
use crate::thresholds::{self, Catalog, Counters, Rules, Settings, Thresholds};
use crate::transcript::{EntryKind, Transcript, Warning};
use crate::used::{StoreSide, TranscriptFacts};
use foldhash::HashMap;
use serde_json::Value;

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
    /// Where calls without a recorded price are priced (loaded once per process).
    pub prices: crate::cost::prices::Prices,
    /// The time cost figures are taken at (the last hour's spend, the cache's warmth).
    pub now_ms: i64,
}

impl<'s> Numbers<'s> {
    pub fn new(source: &'s dyn SessionSource) -> Numbers<'s> {
        Numbers {
            source,
            settings: Settings::from_config(source.config()),
            rules: source.rules().0,
            config_label: source.config_label(),
            models_json: HashMap::default(),
            facts: HashMap::default(),
            prices: crate::cost::prices::Prices::load(&crate::paths::Env::from_process()),
            now_ms: crate::cost::now_ms(),
        }
    }

    /// A session's cost from its open transcript: its calls priced by the host's catalogs
    /// for its agent, then the price tables.
    pub fn cost(
        &mut self,
        s: &Session,
        t: &crate::transcript::Transcript,
    ) -> crate::cost::SessionCost {
        let source = self.source;
        let mj = self
            .models_json
            .entry(s.agent_id().to_string())
            .or_insert_with(|| source.models_json(s.agent_id()));
        cost_with(source, mj, &self.prices, self.now_ms, t)
    }

    /// A session's cost and the rates of its model (for a compaction's economics).
    pub fn cost_and_rates(
        &mut self,
        s: &Session,
        t: &crate::transcript::Transcript,
    ) -> (
        crate::cost::SessionCost,
        Option<(crate::cost::prices::Rates, String)>,
    ) {
        let cost = self.cost(s, t);
        let source = self.source;
        let mj = self
            .models_json
            .entry(s.agent_id().to_string())
            .or_insert_with(|| source.models_json(s.agent_id()));
        let rates = with_context(source, mj, &self.prices, self.now_ms, |cx| {
            crate::cost::session_rates(
                cx,
                &cost,
                s.entry.model_provider.as_deref(),
                s.entry.model.as_deref(),
            )
        });
        (cost, rates)
    }

    /// The archived transcripts, each agent's priced with its catalogs: on a file host those
    /// beside the sessions' own (`*.jsonl.reset.*`, `*.jsonl.deleted.*`), elsewhere those the
    /// source keeps ([`crate::source::SessionSource::each_archived_transcript`]: a SQLite
    /// host's archive tables); None where the source has none to offer (a Gateway).
    pub fn archived(&mut self, sessions: &[Session]) -> Option<crate::cost::host::Archived> {
        let source = self.source;
        if source.kind() != crate::source::SourceKind::Files {
            let mut all = crate::cost::host::Archived::default();
            let (models_json, prices, now_ms) = (&mut self.models_json, &self.prices, self.now_ms);
            let offered = source.each_archived_transcript(&mut |a| {
                let mj = models_json
                    .entry(a.agent.clone())
                    .or_insert_with(|| source.models_json(&a.agent));
                with_context(source, mj, prices, now_ms, |cx| {
                    all.add(&a.name, a.transcript, cx)
                });
            });
            return offered.then_some(all);
        }
        let mut dirs: std::collections::BTreeMap<String, Vec<std::path::PathBuf>> =
            Default::default();
        for s in sessions {
            let Some(dir) = s
                .transcript
                .as_deref()
                .and_then(|t| std::path::Path::new(t).parent())
            else {
                continue;
            };
            let v = dirs.entry(s.agent_id().to_string()).or_default();
            if !v.iter().any(|d| d == dir) {
                v.push(dir.to_path_buf());
            }
        }
        let mut all = crate::cost::host::Archived::default();
        for (agent, dirs) in dirs {
            let mj = self
                .models_json
                .entry(agent.clone())
                .or_insert_with(|| source.models_json(&agent));
            let a = with_context(source, mj, &self.prices, self.now_ms, |cx| {
                crate::cost::host::archived_in(&dirs, cx)
            });
            all.merge(a);
        }
        Some(all)
    }

    /// Numbers of a session, its transcript read through the source when it has one (and the
    /// source decides `used` with transcripts: [`SessionSource::transcripts_decide_used`]);
    /// the transcript's problems are added to `warnings`. Sessions sharing a transcript read it
    /// once; the session list opens each one itself ([`Self::session_open`]) to take the row's
    /// other figures from the same read.
    pub fn session(&mut self, s: &Session, warnings: &mut Vec<String>) -> Thresholds {
        let (facts, unread) = match (&s.transcript, self.source.transcripts_decide_used()) {
            (Some(at), true) => {
                let source = self.source;
                let (f, ws, unread) = self.facts.entry(at.clone()).or_insert_with(|| {
                    tracing::debug!(target: "clawtop::io", io = "transcript read", "transcript read for its figures");
                    let mut ws = Vec::new();
                    let opened = source.open_transcript_for_figures(&s.reference);
                    let unread = opened.as_ref().err().map(|e| e.to_string());
                    let f = opened_transcript(opened, &mut ws).map(|t| crate::used::facts(&t));
                    (f, ws, unread)
                });
                warnings.extend(ws.iter().cloned());
                (f.clone(), unread.clone())
            }
            _ => (None, None),
        };
        self.session_from(s, facts.as_ref(), unread.as_deref())
    }

    /// Numbers of a session, and its transcript, opened for them, still open: the session
    /// list takes every other figure of the row from it before dropping it, so each
    /// transcript is read once for the whole row. None when the session has no transcript or
    /// the source does not decide `used` with transcripts (its problems are in `warnings`).
    /// `history`: the caller builds the session's history from it too
    /// ([`SessionSource::open_transcript_for_history`]).
    pub fn session_open(
        &mut self,
        s: &Session,
        history: bool,
        warnings: &mut Vec<String>,
    ) -> (Thresholds, Option<Transcript>) {
        if !(s.transcript.is_some() && self.source.transcripts_decide_used()) {
            return (self.session_with_transcript(s, None), None);
        }
        tracing::debug!(target: "clawtop::io", io = "transcript read", "transcript read for its figures");
        let opened = if history {
            self.source.open_transcript_for_history(&s.reference)
        } else {
            self.source.open_transcript_for_figures(&s.reference)
        };
        // A transcript that is there and cannot be read makes every figure that needs it
        // unknown, never the store's figure taken quietly instead.
        let unread = opened.as_ref().err().map(|e| e.to_string());
        match opened_transcript(opened, warnings) {
            Some(t) => (self.session_with_transcript(s, Some(&t)), Some(t)),
            None => {
                let why = unread.unwrap_or_else(|| "the transcript could not be read".into());
                (self.session_unread(s, &why), None)
            }
        }
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

/// The cost of a transcript on a host: `models.json` of its agent, then the config's models.
fn cost_with(
    source: &dyn SessionSource,
    models_json: &Option<(String, Value)>,
    prices: &crate::cost::prices::Prices,
    now_ms: i64,
    t: &Transcript,
) -> crate::cost::SessionCost {
    with_context(source, models_json, prices, now_ms, |cx| {
        crate::cost::of_transcript(t, cx)
    })
}

/// Calls `f` with the pricing context of an agent of `source`.
fn with_context<R>(
    source: &dyn SessionSource,
    models_json: &Option<(String, Value)>,
    prices: &crate::cost::prices::Prices,
    now_ms: i64,
    f: impl FnOnce(&crate::cost::Context<'_>) -> R,
) -> R {
    let mut catalogs = Vec::new();
    if let Some((_, v)) = models_json {
        catalogs.push(v);
    }
    if let Some(m) = source.config().get("models") {
        catalogs.push(m);
    }
    let cx = crate::cost::Context {
        prices,
        host: crate::cost::prices::HostCatalogs { catalogs },
        config: Some(source.config()),
        now_ms,
    };
    f(&cx)
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
