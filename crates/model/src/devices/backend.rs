//! Backends by name, as `--backend` takes them: `flex` (the CPU), `wgpu` (the first GPU
//! adapter, WGSL kernels, which is what a browser runs) and, in builds with the `vulkan`
//! feature, `vulkan` (the first Vulkan adapter, SPIR-V kernels, for cluster runs).
//!
//! A name must say which kernels ran, because a run file and its shards are stamped with it and
//! shards of different stamps do not merge. burn 0.22 compiles SPIR-V for *every* Vulkan device
//! of a build that has the `vulkan` feature, so in such a build `wgpu` on a Vulkan adapter is
//! refused (it would run SPIR-V under the WGSL name), and `vulkan` is refused when the adapter
//! lacks what CubeCL's SPIR-V needs (it would quietly run WGSL).

use crate::Device;

/// The backends this build can run, in the order help texts list them.
pub const BACKENDS: &[&str] = if cfg!(feature = "vulkan") {
    &["flex", "wgpu", "vulkan"]
} else {
    &["flex", "wgpu"]
};

/// This build's native GPU backend: `vulkan` in builds with the `vulkan` feature (where every
/// Vulkan adapter runs SPIR-V), `wgpu` otherwise. The native GPU tests run on it.
pub const NATIVE_GPU: &str = if cfg!(feature = "vulkan") {
    "vulkan"
} else {
    "wgpu"
};

/// The device a backend name stands for (see the module's text). Initialise a GPU backend once
/// per process: wgpu's runtime registers on first use and cannot be set up again.
pub fn device_by_name(name: &str) -> Result<Device, String> {
    match name {
        "flex" => Ok(Device::flex()),
        "wgpu" => {
            let device = Device::wgpu_options()
                .init()
                .map_err(|e| format!("no adapter ({e})"))?;
            refuse_spirv_under_wgpu()?;
            Ok(device)
        }
        "vulkan" => vulkan(),
        other => Err(format!(
            "unknown backend {other:?}; expected {}{}",
            BACKENDS.join(" or "),
            if cfg!(feature = "vulkan") {
                ""
            } else {
                " (vulkan needs a build with `--features vulkan`)"
            }
        )),
    }
}

/// What a build with the `vulkan` feature says when `wgpu` came up on Vulkan: its kernels are
/// SPIR-V there, so the run must carry the `vulkan` name.
#[cfg(feature = "vulkan")]
fn refuse_spirv_under_wgpu() -> Result<(), String> {
    use burn::cubecl::device::WgpuDeviceKind;
    let runtime = burn::cubecl::Device::wgpu(WgpuDeviceKind::DefaultDevice)
        .map_err(|e| format!("no adapter ({e})"))?
        .client()
        .name();
    if runtime.contains("spirv") {
        return Err(format!(
            "this build has the vulkan feature, so its Vulkan adapters run SPIR-V kernels \
             ({runtime}), not the browser's WGSL: say --backend vulkan, so that the run is \
             stamped with what ran"
        ));
    }
    Ok(())
}

#[cfg(not(feature = "vulkan"))]
fn refuse_spirv_under_wgpu() -> Result<(), String> {
    Ok(())
}

/// The first Vulkan adapter with SPIR-V kernels, or why not.
#[cfg(feature = "vulkan")]
fn vulkan() -> Result<Device, String> {
    use burn::cubecl::device::WgpuDeviceKind;
    use burn::tensor::wgpu::WgpuBackend;
    let device = Device::wgpu_options()
        .graphics_api(WgpuBackend::Vulkan)
        .init()
        .map_err(|e| format!("no Vulkan adapter ({e})"))?;
    // The same device as CubeCL names it, to ask which compiler its runtime chose.
    let runtime = burn::cubecl::Device::vulkan(WgpuDeviceKind::DefaultDevice)
        .map_err(|e| format!("no Vulkan adapter ({e})"))?
        .client()
        .name();
    if !runtime.contains("spirv") {
        return Err(format!(
            "the Vulkan adapter lacks what SPIR-V kernels need (Vulkan 1.1 or \
             VK_KHR_get_physical_device_properties2, the Vulkan memory model at device scope, \
             buffer device addresses, SPIR-V 1.3), so it would run WGSL ({runtime}): use \
             --backend wgpu with a build without the vulkan feature"
        ));
    }
    Ok(device)
}

#[cfg(not(feature = "vulkan"))]
fn vulkan() -> Result<Device, String> {
    Err("this build has no vulkan backend: build the CLI with \
         `cargo build --release -p tabprobe-cli --features vulkan`"
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_refused_with_the_known_ones() {
        let err = device_by_name("cuda").unwrap_err();
        assert!(err.contains("\"cuda\""), "{err}");
        assert!(err.contains("flex or wgpu"), "{err}");
    }

    #[cfg(not(feature = "vulkan"))]
    #[test]
    fn vulkan_without_the_feature_says_how_to_build_it() {
        let err = device_by_name("vulkan").unwrap_err();
        assert!(err.contains("--features vulkan"), "{err}");
        assert_eq!(NATIVE_GPU, "wgpu");
    }
}
