//! Command-line entry (clap) and dispatch; filled in by the CLI work.
pub fn main() -> i32 {
    0
}
