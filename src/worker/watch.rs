//! The watch on the model worker (docs/limits.md#a-worker-that-stops-answering): a
//! worker that is closed, terminated from outside or stuck in a loop fires no event, so while
//! anything waits on it the page pings it every [`PING_EVERY_MS`] and counts the time since
//! it last said anything. The worker answers a ping whenever its event loop is free — between
//! a job's chunks, during a load's reads — so a silence longer than any the worker has shown
//! while it worked means it stopped.
//!
//! This module is the pure rule ([`Watch`]); `client.rs` feeds it the worker's messages and
//! its clock, `crash.rs` shows what it says.

/// How often the page pings a busy worker.
pub const PING_EVERY_MS: u32 = 1_000;

/// The shortest silence that is reported: the model bar then says the worker has not
/// answered and offers to stop it and start a new one.
pub const NOTICE_AFTER_MS: f64 = 5_000.0;

/// A silence of this many times the longest one the worker ended by answering is reported
/// (when that is longer than [`NOTICE_AFTER_MS`]): a machine on which one step takes 4 s is
/// not called stuck at 5 s twice.
pub const NOTICE_GAP_FACTOR: f64 = 3.0;

/// The shortest silence after which a worker busy with scoring only (probe runs, scoring
/// jobs: every chunk reports) is stopped without asking; every pair it finished is kept.
pub const STOP_AFTER_MS: f64 = 30_000.0;

/// [`STOP_AFTER_MS`]'s multiple of the longest silence the worker ended by answering.
pub const STOP_GAP_FACTOR: f64 = 10.0;

/// What the watch makes of the worker at a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// It answers (or nothing waits on it).
    Answering,
    /// It has said nothing for `ms` while something waits on it: tell the user.
    Silent {
        /// Milliseconds since its last message.
        ms: f64,
    },
    /// Silent for so long while only scoring that it is stopped.
    Stop {
        /// Milliseconds since its last message.
        ms: f64,
    },
}

/// What the page has heard from one worker.
#[derive(Debug, Clone, PartialEq)]
pub struct Watch {
    /// When it last said anything (or when work began after an idle time).
    last_heard_ms: f64,
    /// Whether anything waited on it at the last tick.
    busy: bool,
    /// The longest silence it ended by answering while busy.
    longest_gap_ms: f64,
}

impl Watch {
    /// A worker started at `now_ms`.
    pub fn new(now_ms: f64) -> Watch {
        Watch {
            last_heard_ms: now_ms,
            busy: false,
            longest_gap_ms: 0.0,
        }
    }

    /// The worker said something at `now_ms`.
    pub fn heard(&mut self, now_ms: f64) {
        if self.busy {
            self.longest_gap_ms = self.longest_gap_ms.max(now_ms - self.last_heard_ms);
        }
        self.last_heard_ms = now_ms;
    }

    /// When the worker last said anything (or work began).
    pub fn last_heard_ms(&self) -> f64 {
        self.last_heard_ms
    }

    /// A tick at `now_ms`: `busy` when a load or job waits on the worker, `scoring_only` when
    /// every job waiting is one that reports each chunk.
    pub fn tick(&mut self, now_ms: f64, busy: bool, scoring_only: bool) -> Verdict {
        if !busy || !self.busy {
            // Idle, or work that just began: its silence counts from now.
            self.busy = busy;
            self.last_heard_ms = now_ms;
            return Verdict::Answering;
        }
        let ms = now_ms - self.last_heard_ms;
        let stop_after = STOP_AFTER_MS.max(STOP_GAP_FACTOR * self.longest_gap_ms);
        if scoring_only && ms >= stop_after {
            return Verdict::Stop { ms };
        }
        if ms >= NOTICE_AFTER_MS.max(NOTICE_GAP_FACTOR * self.longest_gap_ms) {
            return Verdict::Silent { ms };
        }
        Verdict::Answering
    }
}

impl Default for Watch {
    /// A worker started at time 0; the first tick sets the clock.
    fn default() -> Self {
        Watch::new(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_worker_is_never_silent() {
        let mut w = Watch::new(0.0);
        assert_eq!(w.tick(60_000.0, false, false), Verdict::Answering);
        // Work begins after a minute of quiet: the silence counts from its start.
        assert_eq!(w.tick(61_000.0, true, true), Verdict::Answering);
        assert_eq!(w.tick(65_000.0, true, true), Verdict::Answering);
        assert_eq!(
            w.tick(66_000.0, true, true),
            Verdict::Silent { ms: 5_000.0 }
        );
    }

    #[test]
    fn silence_is_reported_after_five_seconds_and_stops_scoring_after_thirty() {
        let mut w = Watch::new(0.0);
        w.tick(0.0, true, true);
        // Answers every 200 ms: the longest gap is 200 ms, far below the floors.
        for k in 1..=10 {
            w.heard(200.0 * k as f64);
            assert_eq!(w.tick(200.0 * k as f64, true, true), Verdict::Answering);
        }
        // Then nothing from t = 2 s.
        assert_eq!(w.tick(6_999.0, true, true), Verdict::Answering);
        assert_eq!(w.tick(7_000.0, true, true), Verdict::Silent { ms: 5_000.0 });
        assert_eq!(
            w.tick(31_999.0, true, true),
            Verdict::Silent { ms: 29_999.0 }
        );
        assert_eq!(w.tick(32_000.0, true, true), Verdict::Stop { ms: 30_000.0 });
        // A load or an import waiting too: told, never stopped without asking.
        assert_eq!(
            w.tick(90_000.0, true, false),
            Verdict::Silent { ms: 88_000.0 }
        );
    }

    #[test]
    fn the_deadlines_grow_with_the_longest_silence_the_worker_ended() {
        let mut w = Watch::new(0.0);
        w.tick(0.0, true, true);
        // One step took 4 s before the worker answered: reported at 3 × 4 = 12 s, stopped
        // at 10 × 4 = 40 s.
        w.heard(4_000.0);
        assert_eq!(w.tick(15_999.0, true, true), Verdict::Answering);
        assert_eq!(
            w.tick(16_000.0, true, true),
            Verdict::Silent { ms: 12_000.0 }
        );
        assert_eq!(
            w.tick(43_999.0, true, true),
            Verdict::Silent { ms: 39_999.0 }
        );
        assert_eq!(w.tick(44_000.0, true, true), Verdict::Stop { ms: 40_000.0 });
    }

    #[test]
    fn an_answer_ends_the_silence() {
        let mut w = Watch::new(0.0);
        w.tick(0.0, true, false);
        assert_eq!(
            w.tick(6_000.0, true, false),
            Verdict::Silent { ms: 6_000.0 }
        );
        w.heard(6_500.0);
        // 6.5 s is now the longest gap it ended: the next report waits for 19.5 s.
        assert_eq!(w.tick(7_000.0, true, false), Verdict::Answering);
        assert_eq!(w.tick(25_999.0, true, false), Verdict::Answering);
        assert_eq!(
            w.tick(26_000.0, true, false),
            Verdict::Silent { ms: 19_500.0 }
        );
    }
}
