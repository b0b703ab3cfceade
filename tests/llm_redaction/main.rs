//! The API key never shows, not even in tracing output captured at TRACE. A binary of its own:
//! its one test installs a thread-local subscriber, and tracing caches each callsite's
//! interest process-wide, so a test of another module hitting the same callsites first on a
//! thread without the subscriber could leave them "never" interested and the capture empty
//! (it did, under load, when this test shared the `llm` binary).

#[path = "../support/mod.rs"]
mod support;

mod redaction;
