//! The retry policy, one definition for every retry clawtop makes: the model client's
//! retries of a failed request and the gateway watcher's reconnects. Each waits `first`,
//! then twice as long after every further failure, never more than `max`
//! ([`Backoff::delay`]); the model client also spreads its waits ([`Backoff::jittered`]) so
//! that clients failing together do not retry together. How many attempts are made is the
//! caller's (the model client stops after `max_attempts`; the watcher never gives up).
//!
//! The doubling schedule is `backon`'s exponential backoff. Its own jitter adds up to one more
//! delay (`[d, 2d)`); clawtop keeps each wait within `[d/2, d]` so that `max` stays a real
//! cap, as it always was.

use std::time::Duration;

/// Waits that start at `first` and double up to `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub first: Duration,
    pub max: Duration,
}

/// Past this many doublings every delay is `max` (2⁶⁴ × any first overflows a `Duration`),
/// so a long outage's retry count costs nothing to turn into a delay.
const DOUBLINGS: u32 = 64;

impl Backoff {
    /// The wait before retry `n` (0-based: after the first failure, `delay(0)` = `first`):
    /// `first × 2ⁿ`, capped at `max`, in whole milliseconds.
    pub fn delay(&self, n: u32) -> Duration {
        use backon::BackoffBuilder;
        let d = backon::ExponentialBuilder::default()
            .with_min_delay(self.first.min(self.max))
            .with_max_delay(self.max)
            .with_factor(2.0)
            .without_max_times()
            .build()
            .nth(n.min(DOUBLINGS) as usize)
            .unwrap_or(self.max);
        // backon doubles in f32 seconds; whole milliseconds undo its rounding (a 100 ms first
        // wait is 200 ms after one doubling, not 200.000003 ms).
        Duration::from_millis((d.as_secs_f64() * 1000.0).round() as u64).min(self.max)
    }

    /// [`Self::delay`] scaled by a random factor in `[0.5, 1.0)`.
    pub fn jittered(&self, n: u32) -> Duration {
        let d = self.delay(n);
        // Checked: a huge configured max must not panic the conversion.
        Duration::try_from_secs_f64(d.as_secs_f64() * (0.5 + 0.5 * random_unit())).unwrap_or(d)
    }
}

/// A random number in [0, 1) without a PRNG dependency: std's `RandomState` is seeded
/// randomly per instance, which is plenty for jitter.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x636c_6177);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schedule as both hand-written copies computed it before this module.
    fn former(first: Duration, max: Duration, n: u32) -> Duration {
        first
            .saturating_mul(2u32.saturating_pow(n.min(16)))
            .min(max)
    }

    #[test]
    fn the_delays_are_what_they_were() {
        let ms = Duration::from_millis;
        for (first, max) in [
            (ms(500), ms(15_000)),  // the gateway watcher's reconnects
            (ms(1000), ms(30_000)), // the model client's defaults
            (ms(100), ms(1000)),
            (ms(1), ms(5)),
            (ms(7), ms(60_000)),
        ] {
            let b = Backoff { first, max };
            for n in 0..20 {
                assert_eq!(b.delay(n), former(first, max, n), "{b:?} retry {n}");
            }
            assert_eq!(b.delay(u32::MAX), max);
        }
        let gateway = Backoff {
            first: ms(500),
            max: ms(15_000),
        };
        let waits: Vec<u64> = (0..7)
            .map(|n| gateway.delay(n).as_millis() as u64)
            .collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 15_000, 15_000]);
    }

    #[test]
    fn jitter_stays_between_half_and_the_whole_delay() {
        let b = Backoff {
            first: Duration::from_millis(1000),
            max: Duration::from_secs(30),
        };
        let mut seen = std::collections::BTreeSet::new();
        for n in 0..6 {
            let d = b.delay(n);
            for _ in 0..50 {
                let j = b.jittered(n);
                assert!(
                    j >= d / 2 && j <= d,
                    "retry {n}: {j:?} outside [{:?}, {d:?}]",
                    d / 2
                );
                seen.insert(j);
            }
        }
        assert!(seen.len() > 100, "the waits are spread: {}", seen.len());
    }
}
