//! How long the page's heavy steps hold its thread, logged (when asked) at the console's
//! debug level as `tabprobe-timing <step> <ms> at <start>`: `scripts/bench-longtasks.sh` collects them beside the long
//! tasks it observes, so a long task can be put down to the step that made it. Loops too long for
//! one task go in [`Slices`].

/// Steps quicker than this are not logged: most worker messages (progress) decode in well
/// under a millisecond, and a console line for each cost more than the decoding.
const LOG_FROM_MS: f64 = 1.0;

thread_local! {
    /// Whether the page was asked to log its steps, read once.
    static ON: bool = logging_asked();
}

/// Whether `window.tabprobeTiming` is `true` (the benchmark sets it before the page starts).
/// Off, nothing is measured or logged: with DevTools attached, the console lines alone took
/// about a fifth of the time of parsing a finished run's pieces.
fn logging_asked() -> bool {
    web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"tabprobeTiming".into()).ok())
        .is_some_and(|v| v.as_bool() == Some(true))
}

/// Runs `f`; when the page was asked to (`window.tabprobeTiming = true`), logs how many
/// milliseconds it took under `step` (from [`LOG_FROM_MS`]) and when it started
/// (`performance.now()`, the clock long tasks are timed by): `tabprobe-timing <step> <ms> at
/// <start>`.
pub fn timed<T>(step: &str, f: impl FnOnce() -> T) -> T {
    if !ON.with(|on| *on) {
        return f();
    }
    let start = js_sys::Date::now();
    let at = page_clock();
    let out = f();
    let ms = js_sys::Date::now() - start;
    if ms >= LOG_FROM_MS {
        web_sys::console::debug_1(&format!("tabprobe-timing {step} {ms:.0} at {at:.0}").into());
    }
    out
}

/// `performance.now()`, 0 where there is none.
fn page_clock() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Page work cut into slices: [`Slices::pause`] gives the event loop a turn once the current
/// slice has held the thread for [`Slices::BUDGET_MS`], so a long loop (reading a saved run
/// piece by piece) never makes a long task.
pub struct Slices {
    started: f64,
    budget_ms: f64,
}

impl Slices {
    /// How long a slice may hold the thread, ms (a long task is one over 50 ms).
    pub const BUDGET_MS: f64 = 25.0;

    /// A shorter slice, ms, for loops whose steps take milliseconds each (decoding a share
    /// link: about 3 ms a step, three times that on a machine busy with other work), so a
    /// slice and the step that ends it stay well under 50 ms.
    pub const SHORT_MS: f64 = 10.0;

    /// A first slice, starting now.
    pub fn new() -> Self {
        Self::of(Self::BUDGET_MS)
    }

    /// Slices of `budget_ms` instead of [`Slices::BUDGET_MS`]: for loops whose every step
    /// may take a while, so that a slice and the step that ends it stay under 50 ms on a
    /// loaded machine.
    pub fn of(budget_ms: f64) -> Self {
        Slices {
            started: js_sys::Date::now(),
            budget_ms,
        }
    }

    /// Yields to the event loop when the slice is used up, then starts the next.
    pub async fn pause(&mut self) {
        if js_sys::Date::now() - self.started >= self.budget_ms {
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

/// The pieces of `runs` (core's `run::pieces`, one run after the other), written in slices.
pub async fn run_pieces_sliced<'a>(
    runs: impl IntoIterator<Item = &'a tabprobe_core::run::RunResult>,
) -> Vec<Vec<u8>> {
    let mut slices = Slices::new();
    let mut out = Vec::new();
    for run in runs {
        for piece in tabprobe_core::run::pieces::run_pieces(run) {
            out.push(piece);
            slices.pause().await;
        }
    }
    out
}
