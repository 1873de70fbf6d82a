//! A run's progress: bar, pairs done of total (moving after every batch), pairs per second so
//! far (of the pairs scored since the run started or resumed: a resumed run's kept pairs are
//! done, not scored now), elapsed time (ticking every half second) and the remaining time of the run's
//! [`tabprobe_core::run::pace::RemainingClock`] (smoothed; it never grows while work is done).

use leptos::prelude::*;

/// `1 min 05 s` / `42 s`.
pub fn duration(ms: f64) -> String {
    let s = (ms / 1000.0).max(0.0).round() as u64;
    if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// The bar; `done`/`total` in forward passes (pairs).
#[component]
pub fn ProgressBar(
    /// Pairs scored.
    done: Signal<usize>,
    /// Pairs to score.
    total: Signal<usize>,
    /// `Date.now()` when the run started (or resumed).
    started_ms: f64,
    /// Pairs of `done` that an interrupted run had scored before (kept, not scored now).
    #[prop(optional)]
    resumed: usize,
    /// Seconds left, `None` while unknown.
    remaining_s: Signal<Option<f64>>,
) -> impl IntoView {
    let now = RwSignal::new(js_sys::Date::now());
    let tick = set_interval_with_handle(
        move || now.set(js_sys::Date::now()),
        std::time::Duration::from_millis(500),
    )
    .ok();
    on_cleanup(move || {
        if let Some(t) = tick {
            t.clear();
        }
    });
    let elapsed = move || now.get() - started_ms;
    let rate = move || {
        let e = elapsed();
        let scored = done.get().saturating_sub(resumed);
        (e > 0.0 && scored > 0).then(|| scored as f64 / (e / 1000.0))
    };
    let percent = move || {
        let t = total.get();
        if t == 0 {
            0.0
        } else {
            100.0 * done.get() as f64 / t as f64
        }
    };
    let remaining = move || {
        remaining_s
            .get()
            .map(|s| duration(1000.0 * s))
            .unwrap_or_else(|| "—".to_string())
    };
    view! {
        <div class="progress" data-testid="progress">
            <div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax=move || total.get() aria-valuenow=move || done.get()>
                <div class="fill" style:width=move || format!("{:.1}%", percent())></div>
            </div>
            <p class="progress-text">
                <span data-testid="progress-count">{move || format!("{} of {} forward passes", done.get(), total.get())}</span>
                " · "<span data-testid="progress-rate">{move || rate().map(|r| format!("{r:.1} pairs/s")).unwrap_or_default()}</span>
                " · elapsed "<span data-testid="progress-elapsed">{move || duration(elapsed())}</span>
                " · remaining "<span data-testid="progress-remaining" data-seconds=move || remaining_s.get().map(|s| format!("{s:.3}"))>{remaining}</span>
            </p>
        </div>
    }
}
