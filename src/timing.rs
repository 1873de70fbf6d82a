//! How long the page's heavy steps hold its thread, logged at the console's debug level as
//! `tabprobe-timing <step> <ms>`: `scripts/bench-longtasks.sh` collects them beside the long
//! tasks it observes, so a long task can be put down to the step that made it. Loops too long for
//! one task go in [`Slices`].

/// Steps quicker than this are not logged: most worker messages (progress) decode in well
/// under a millisecond, and a console line for each cost more than the decoding.
const LOG_FROM_MS: f64 = 1.0;

/// Runs `f`, logging how many milliseconds it took under `step` (from [`LOG_FROM_MS`]).
pub fn timed<T>(step: &str, f: impl FnOnce() -> T) -> T {
    let start = js_sys::Date::now();
    let out = f();
    let ms = js_sys::Date::now() - start;
    if ms >= LOG_FROM_MS {
        web_sys::console::debug_1(&format!("tabprobe-timing {step} {ms:.0}").into());
    }
    out
}

/// Page work cut into slices: [`Slices::pause`] gives the event loop a turn once the current
/// slice has held the thread for [`Slices::BUDGET_MS`], so a long loop (reading a saved run
/// piece by piece) never makes a long task.
pub struct Slices {
    started: f64,
}

impl Slices {
    /// How long a slice may hold the thread, ms (a long task is one over 50 ms).
    pub const BUDGET_MS: f64 = 25.0;

    /// A first slice, starting now.
    pub fn new() -> Self {
        Slices {
            started: js_sys::Date::now(),
        }
    }

    /// Yields to the event loop when the slice is used up, then starts the next.
    pub async fn pause(&mut self) {
        if js_sys::Date::now() - self.started >= Self::BUDGET_MS {
            gloo::timers::future::TimeoutFuture::new(0).await;
            self.started = js_sys::Date::now();
        }
    }
}

impl Default for Slices {
    fn default() -> Self {
        Self::new()
    }
}

/// The pieces of `runs` (core's `run::pieces`), written in slices.
pub async fn run_pieces_sliced(runs: &[tabprobe_core::run::RunResult]) -> Vec<Vec<u8>> {
    let mut slices = Slices::new();
    let mut out = Vec::new();
    for piece in tabprobe_core::run::pieces::runs_pieces(runs) {
        out.push(piece);
        slices.pause().await;
    }
    out
}
