//! Kill delays for the SIGKILL crash tests (`tests/commit/crash.rs`,
//! `tests/compaction/crash.rs`).
//!
//! A crash test kills a committing child at seeded points spread over a window that was
//! calibrated on one uninterrupted child. On a loaded machine (CI runs the other tests of
//! the binary beside it) later children can be several times slower or faster than the
//! calibration run, and a fixed window then lands every kill before the commit wrote
//! anything, or after it finished, which proves nothing. So the window follows what the
//! kills find: a streak of kills that found nothing written widens it, a streak that found
//! everything written narrows it. The delays stay seeded; only the scale moves.

use std::time::Duration;

/// What one kill left behind, as far as the window is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landed {
    /// Nothing written yet: the kill came before the commit's first write.
    Before,
    /// Some but not all of the commit's writes are on disk.
    Inside,
    /// Every write is on disk: the kill came after the commit.
    After,
}

/// How many kills in a row on one side move the window.
const STREAK: u32 = 8;
const MIN_US: u64 = 1_000;
const MAX_US: u64 = 5_000_000;

pub struct KillWindow {
    rng: u64,
    window_us: u64,
    before_streak: u32,
    after_streak: u32,
}

impl KillWindow {
    /// `calibrated`: READY-to-exit time of an uninterrupted child.
    pub fn new(seed: u64, calibrated: Duration) -> Self {
        KillWindow {
            rng: seed | 1,
            window_us: (calibrated.as_micros() as u64 * 11 / 10).clamp(MIN_US, MAX_US),
            before_streak: 0,
            after_streak: 0,
        }
    }

    pub fn window(&self) -> Duration {
        Duration::from_micros(self.window_us)
    }

    /// The next kill delay, uniform over the current window.
    pub fn next_delay(&mut self) -> Duration {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        Duration::from_micros(self.rng % self.window_us)
    }

    /// Record where the last kill landed; a one-sided streak rescales the window.
    pub fn observe(&mut self, landed: Landed) {
        match landed {
            Landed::Before => {
                self.before_streak += 1;
                self.after_streak = 0;
            }
            Landed::After => {
                self.after_streak += 1;
                self.before_streak = 0;
            }
            Landed::Inside => {
                self.before_streak = 0;
                self.after_streak = 0;
            }
        }
        if self.before_streak >= STREAK {
            self.window_us = (self.window_us * 2).min(MAX_US);
            self.before_streak = 0;
        } else if self.after_streak >= STREAK {
            self.window_us = (self.window_us * 2 / 3).max(MIN_US);
            self.after_streak = 0;
        }
    }
}
