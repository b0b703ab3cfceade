//! Counting clawtop's reads: the `clawtop::io` debug events (src/logging.rs), by their `io`
//! field, captured on the calling thread.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tracing_subscriber::layer::{Context, SubscriberExt};

/// Counts `clawtop::io` events by their `io` field.
#[derive(Clone, Default)]
pub struct IoCounts(Arc<Mutex<BTreeMap<String, usize>>>);

impl IoCounts {
    pub fn get(&self, what: &str) -> usize {
        self.0.lock().unwrap().get(what).copied().unwrap_or(0)
    }

    /// Runs `f` with this counter as the thread's subscriber.
    pub fn during<T>(&self, f: impl FnOnce() -> T) -> T {
        let subscriber = tracing_subscriber::registry().with(self.clone());
        tracing::subscriber::with_default(subscriber, f)
    }
}

struct IoField(Option<String>);

impl tracing::field::Visit for IoField {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "io" {
            self.0 = Some(value.to_string());
        }
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "io" {
            self.0 = Some(format!("{value:?}").trim_matches('"').to_string());
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for IoCounts {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "clawtop::io" {
            return;
        }
        let mut v = IoField(None);
        event.record(&mut v);
        if let Some(what) = v.0 {
            *self.0.lock().unwrap().entry(what).or_default() += 1;
        }
    }
}
