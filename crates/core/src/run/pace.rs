//! Time a person can plan with (docs/using-the-site.md#the-probe-runner):
//! the estimate shown before a run, and the remaining time shown during it.
//!
//! - **Estimate** = forward passes ÷ the pairs per second last measured on this model (weight
//!   hash) and backend ([`estimate_seconds`]).
//! - **Remaining** during a run ([`RemainingClock`]): at each progress report in which work
//!   was done, the rate of that report (pairs done since the previous report with work ÷ seconds since
//!   it) enters an exponential moving average with weight [`EMA_WEIGHT`]; remaining = pairs
//!   left ÷ that average, clamped so it is never more than the remaining time of the previous
//!   report. A report without new work changes nothing. So the shown time only falls while
//!   work is done, and one slow batch does not throw it about.

/// Weight of the newest report's rate in the moving average of [`RemainingClock`].
pub const EMA_WEIGHT: f64 = 0.3;

/// Seconds that `passes` forward passes take at `pairs_per_s`; `None` without a usable
/// (positive, finite) rate.
pub fn estimate_seconds(passes: usize, pairs_per_s: f64) -> Option<f64> {
    (pairs_per_s.is_finite() && pairs_per_s > 0.0).then(|| passes as f64 / pairs_per_s)
}

/// Pairs per second of `pairs` scored in `ms` milliseconds; `None` when nothing was timed.
pub fn pairs_per_second(pairs: usize, ms: f64) -> Option<f64> {
    (pairs > 0 && ms.is_finite() && ms > 0.0).then(|| pairs as f64 * 1000.0 / ms)
}

/// The remaining time of a run in progress, smoothed (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct RemainingClock {
    total: usize,
    last_done: usize,
    last_ms: f64,
    rate: Option<f64>,
    remaining_s: Option<f64>,
}

impl RemainingClock {
    /// A run of `total` pairs started at `start_ms`; `prior_rate` (pairs/s measured before on
    /// this model and backend) gives a remaining time before the first report.
    pub fn new(total: usize, start_ms: f64, prior_rate: Option<f64>) -> RemainingClock {
        let rate = prior_rate.filter(|r| r.is_finite() && *r > 0.0);
        RemainingClock {
            total,
            last_done: 0,
            last_ms: start_ms,
            rate,
            remaining_s: rate.and_then(|r| estimate_seconds(total, r)),
        }
    }

    /// A progress report: `done` pairs scored at `now_ms`. Returns the remaining seconds.
    pub fn report(&mut self, done: usize, now_ms: f64) -> Option<f64> {
        let done = done.min(self.total);
        if done <= self.last_done {
            return self.remaining_s;
        }
        if let Some(instant) = pairs_per_second(done - self.last_done, now_ms - self.last_ms) {
            let rate = match self.rate {
                Some(r) => EMA_WEIGHT * instant + (1.0 - EMA_WEIGHT) * r,
                None => instant,
            };
            self.rate = Some(rate);
            let fresh = (self.total - done) as f64 / rate;
            self.remaining_s = Some(match self.remaining_s {
                Some(before) => fresh.min(before),
                None => fresh,
            });
        }
        self.last_done = done;
        self.last_ms = now_ms;
        self.remaining_s
    }

    /// Corrects the run's size once it is known (the page estimates it before the worker has
    /// built the probe sets): the remaining time is recomputed from the current rate, and
    /// may then grow.
    pub fn set_total(&mut self, total: usize) {
        if total == self.total {
            return;
        }
        self.total = total;
        self.remaining_s = self
            .rate
            .and_then(|r| estimate_seconds(total.saturating_sub(self.last_done), r));
    }

    /// The remaining seconds as of the last report (or the prior estimate).
    pub fn remaining_s(&self) -> Option<f64> {
        self.remaining_s
    }

    /// The smoothed rate, pairs per second.
    pub fn rate(&self) -> Option<f64> {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64) {
        let a = a.expect("a value");
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn estimate_is_passes_over_rate() {
        // 1,200 passes at 16 pairs/s: 75 s.
        close(estimate_seconds(1200, 16.0), 75.0);
        assert_eq!(estimate_seconds(10, 0.0), None);
        assert_eq!(estimate_seconds(10, f64::NAN), None);
        // 24 pairs in 1,500 ms: 16 pairs/s.
        close(pairs_per_second(24, 1500.0), 16.0);
        assert_eq!(pairs_per_second(0, 1500.0), None);
        assert_eq!(pairs_per_second(8, 0.0), None);
    }

    #[test]
    fn a_corrected_total_recomputes_the_remaining_time() {
        // Estimated 100 pairs at a prior 10/s: 10 s. 20 done in 2 s (10/s): 8 s left.
        let mut c = RemainingClock::new(100, 0.0, Some(10.0));
        close(c.remaining_s(), 10.0);
        close(c.report(20, 2000.0), 8.0);
        // The worker's probe set has 140 pairs: 120 left at 10/s, 12 s.
        c.set_total(140);
        close(c.remaining_s(), 12.0);
        close(c.report(40, 4000.0), 10.0);
    }

    #[test]
    fn remaining_is_smoothed_and_never_grows_while_work_is_done() {
        // 100 pairs, batches of 8, started at t = 0, no prior rate.
        let mut c = RemainingClock::new(100, 0.0, None);
        assert_eq!(c.remaining_s(), None);
        // 8 pairs in 1 s: rate 8/s, 92 left → 11.5 s.
        close(c.report(8, 1000.0), 11.5);
        // 8 more in 0.5 s: instant 16/s; EMA 0.3·16 + 0.7·8 = 10.4/s; 84 left → 8.0769… s.
        close(c.report(16, 1500.0), 84.0 / 10.4);
        close(c.rate(), 10.4);
        // A slow batch: 8 in 4 s = 2/s; EMA 0.3·2 + 0.7·10.4 = 7.88/s; 76/7.88 = 9.64 s would
        // be more than 8.08 s: clamped, the clock keeps 8.0769… s.
        close(c.report(24, 5500.0), 84.0 / 10.4);
        close(c.rate(), 7.88);
        // A report without new work changes nothing.
        close(c.report(24, 9000.0), 84.0 / 10.4);
        // The time without work counts: 8 pairs between t = 5.5 s (the last report with work)
        // and 9.5 s are 2/s; EMA 0.3·2 + 0.7·7.88 = 6.116/s; 68/6.116 = 11.1 s: clamped.
        close(c.report(32, 9500.0), 84.0 / 10.4);
        close(c.rate(), 6.116);
        // 8 in 0.5 s: 16/s; EMA 0.3·16 + 0.7·6.116 = 9.0812/s; 60 left → 6.6070… s.
        close(c.report(40, 10_000.0), 60.0 / 9.0812);
    }

    #[test]
    fn a_prior_rate_gives_a_remaining_time_before_the_first_report() {
        // 40 pairs at a measured 20 pairs/s: 2 s before anything is scored.
        let mut c = RemainingClock::new(40, 0.0, Some(20.0));
        close(c.remaining_s(), 2.0);
        // 8 pairs in 0.8 s (10/s): EMA 0.3·10 + 0.7·20 = 17/s; 32/17 = 1.882… s.
        close(c.report(8, 800.0), 32.0 / 17.0);
        // Done: nothing left.
        close(c.report(40, 2000.0), 0.0);
    }
}
