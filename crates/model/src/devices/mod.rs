//! Devices: native initialisation by name (`--backend`) and the products the worker times to
//! choose between the CPU and the GPU.

// Backends by name (`--backend`): native device initialisation only.
#[cfg(not(target_family = "wasm"))]
pub mod backend;
pub mod device_speed;
