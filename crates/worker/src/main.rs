//! The model worker's entry point (Trunk builds it with `data-type="worker"`): it only
//! installs the message handler; everything else is in `tabprobe_worker::host`.

fn main() {
    // Log the panic to the console as before, and tell the page what it was: the page learns
    // the worker died from its `error` event, which only says "unreachable".
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        tabprobe_worker::host::report_panic(&info.to_string());
    }));
    tabprobe_worker::host::start();
}
