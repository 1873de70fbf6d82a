//! How long the page's heavy steps hold its thread, logged at the console's debug level as
//! `tabprobe-timing <step> <ms>`: `scripts/bench-longtasks.sh` collects them beside the long
//! tasks it observes, so a long task can be put down to the step that made it.

/// Runs `f`, logging how many milliseconds it took under `step`.
pub fn timed<T>(step: &str, f: impl FnOnce() -> T) -> T {
    let start = js_sys::Date::now();
    let out = f();
    let ms = js_sys::Date::now() - start;
    web_sys::console::debug_1(&format!("tabprobe-timing {step} {ms:.0}").into());
    out
}
