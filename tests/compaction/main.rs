//! Compaction from plan to committed entry: pi's known figures, summaries through the fake
//! model server, commits read back by pi, and crash safety of the real commit.

#[path = "../support/mod.rs"]
mod support;

mod commit;
mod crash;
mod model;
mod plan_vectors;
