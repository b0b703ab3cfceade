//! Effects: the disk work `update` asks for. Each runs off the render path (a blocking tokio
//! task in the app; inline in tests via [`run_blocking`] / [`drive`]) and reports back as an
//! [`Action`].

use crate::transcript::Transcript;
use crate::tui::action::Action;
use crate::tui::model::SessionLoader;
use crate::tui::rows;
use crate::tui::state::AppState;
use crate::tui::update::update;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

pub enum Effect {
    LoadSessions,
    OpenTranscript { path: PathBuf, generation: u64, keep_recent_tokens: u64 },
    DecodeRows { transcript: Arc<Transcript>, generation: u64, indices: Vec<u32> },
    DecodeDetail { transcript: Arc<Transcript>, generation: u64, idx: u32 },
    /// Replace the set of files the watcher polls.
    Watch(Vec<PathBuf>),
}

impl std::fmt::Debug for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Effect::LoadSessions => write!(f, "LoadSessions"),
            Effect::OpenTranscript { path, generation, .. } => write!(f, "OpenTranscript({}, gen {generation})", path.display()),
            Effect::DecodeRows { generation, indices, .. } => write!(f, "DecodeRows(gen {generation}, {} rows)", indices.len()),
            Effect::DecodeDetail { generation, idx, .. } => write!(f, "DecodeDetail(gen {generation}, #{idx})"),
            Effect::Watch(p) => write!(f, "Watch({} files)", p.len()),
        }
    }
}

/// What effects need from outside the state.
#[derive(Clone, Default)]
pub struct EffectCtx {
    /// None in bare-file mode and demo mode without a store.
    pub loader: Option<SessionLoader>,
    /// Demo: the loader is replaced by fixed rows.
    pub demo: bool,
    /// "Now" for the demo rows' ages.
    pub demo_now_ms: i64,
}

/// Runs one effect to completion on the current thread. `Watch` is the app loop's business
/// (it owns the watcher) and yields nothing here.
pub fn run_blocking(effect: Effect, ctx: &EffectCtx) -> Option<Action> {
    match effect {
        Effect::LoadSessions => {
            // The built-in rows only when nobody supplied a loader (the store's demo host is a
            // real loader with real transcripts).
            if ctx.demo && ctx.loader.is_none() {
                return Some(Action::SessionsLoaded(Ok(crate::tui::model::SessionsSnapshot {
                    rows: crate::tui::model::demo_rows(ctx.demo_now_ms),
                    label: "demo data".into(),
                    ..Default::default()
                })));
            }
            let loader = ctx.loader.as_ref()?;
            // A panicking loader must not take the UI down with it.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loader()))
                .unwrap_or_else(|_| Err(anyhow::anyhow!("session loader panicked")));
            Some(Action::SessionsLoaded(result.map_err(|e| format!("{e:#}"))))
        }
        Effect::OpenTranscript { path, generation, keep_recent_tokens } => {
            let result = rows::load_transcript(&path, keep_recent_tokens).map(Box::new);
            Some(Action::TranscriptLoaded { generation, result })
        }
        Effect::DecodeRows { transcript, generation, indices } => {
            let rows = indices.into_iter().filter(|&i| (i as usize) < transcript.len()).map(|i| rows::decode_row(&transcript, i)).collect();
            Some(Action::RowsDecoded { generation, rows })
        }
        Effect::DecodeDetail { transcript, generation, idx } => {
            if idx as usize >= transcript.len() {
                return None;
            }
            let (title, body) = rows::detail_text(&transcript, idx);
            Some(Action::DetailLoaded { generation, idx, title, body })
        }
        Effect::Watch(_) => None,
    }
}

/// Headless driver: applies `action` and then every effect it causes, synchronously, until
/// nothing is left. Returns the effects that were run (for assertions). No threads, no sleeps.
pub fn drive(state: &mut AppState, ctx: &EffectCtx, action: Action) -> Vec<String> {
    let mut ran = Vec::new();
    let mut queue: VecDeque<Action> = VecDeque::from([action]);
    while let Some(a) = queue.pop_front() {
        for e in update(state, a) {
            ran.push(format!("{e:?}"));
            if let Some(next) = run_blocking(e, ctx) {
                queue.push_back(next);
            }
        }
    }
    ran
}
