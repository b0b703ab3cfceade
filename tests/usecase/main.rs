//! The data-source seam (`seam`) and the use-case layer the CLI and the TUI share
//! (`decisions`: each former disagreement between the front-ends, decided once).

#[path = "../support/mod.rs"]
mod support;

mod decisions;
mod seam;
