//! The model worker's entry point (Trunk builds it with `data-type="worker"`): it only
//! installs the message handler; everything else is in `tabprobe_worker::host`.

fn main() {
    console_error_panic_hook::set_once();
    tabprobe_worker::host::start();
}
