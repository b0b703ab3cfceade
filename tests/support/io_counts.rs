//! Counting clawtop's reads: the `clawtop::io` debug events (src/logging.rs), by their `io`
//! field, captured on the calling thread.
//!
//! The counter is a process-wide subscriber that counts for the threads that asked, not a
//! scoped one: tracing caches each callsite's interest the first time it fires, and a
//! callsite first fired by another test's thread while a scoped subscriber was being set up
//! could be cached as "never" and go uncounted (1 run in 5 saw the gateway probe missing).
//! With one global subscriber there is nothing to race: every callsite is always of interest.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Once};
use tracing_subscriber::layer::{Context, SubscriberExt};

type Counts = Arc<Mutex<BTreeMap<String, usize>>>;

/// Counts `clawtop::io` events by their `io` field.
#[derive(Clone, Default)]
pub struct IoCounts(Counts);

thread_local! {
    /// The counter of the `during` running on this thread, if any.
    static COUNTING: RefCell<Option<Counts>> = const { RefCell::new(None) };
}

impl IoCounts {
    pub fn get(&self, what: &str) -> usize {
        self.0.lock().unwrap().get(what).copied().unwrap_or(0)
    }

    /// Runs `f` with this counter counting the events of this thread.
    pub fn during<T>(&self, f: impl FnOnce() -> T) -> T {
        static GLOBAL: Once = Once::new();
        GLOBAL.call_once(|| {
            let subscriber = tracing_subscriber::registry().with(ThreadCounts);
            tracing::subscriber::set_global_default(subscriber)
                .expect("no other global subscriber in a test binary that counts reads");
            tracing::callsite::rebuild_interest_cache();
        });
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                COUNTING.with(|c| *c.borrow_mut() = None);
            }
        }
        COUNTING.with(|c| *c.borrow_mut() = Some(self.0.clone()));
        let _reset = Reset;
        f()
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

/// The global layer: counts an event for the thread's `during`, if one is running.
struct ThreadCounts;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ThreadCounts {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "clawtop::io" {
            return;
        }
        let Some(counts) = COUNTING.with(|c| c.borrow().clone()) else {
            return;
        };
        let mut v = IoField(None);
        event.record(&mut v);
        if let Some(what) = v.0 {
            *counts.lock().unwrap().entry(what).or_default() += 1;
        }
    }
}
