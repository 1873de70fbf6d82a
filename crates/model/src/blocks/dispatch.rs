//! Running a kernel on the widest vectors this CPU has: pulp's run-time dispatch natively
//! (AVX-512, AVX2, …), WebAssembly SIMD128 in the browser.
//!
//! In WebAssembly pulp's own dispatch would compile every kernel a second time for relaxed
//! SIMD (a dependency turns on pulp's `relaxed-simd` feature), and an engine without relaxed
//! SIMD refuses the whole module when it holds one such opcode, used or not: Node's V8 did
//! ("simd opcode not available"), as would any browser without it. So in WebAssembly the
//! kernels are compiled for SIMD128 only (which every wasm build here has, see
//! `.cargo/config.toml`), or scalar in a build without it.

use pulp::WithSimd;

/// `op` on the widest vectors available: see the module's text.
#[inline(always)]
pub fn vectorize<Op: WithSimd>(op: Op) -> Op::Output {
    #[cfg(target_arch = "wasm32")]
    {
        use pulp::Simd;
        match pulp::wasm::Simd128::try_new() {
            Some(simd) => <pulp::wasm::Simd128 as Simd>::vectorize(simd, op),
            None => <pulp::Scalar as Simd>::vectorize(pulp::Scalar, op),
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        pulp::Arch::new().dispatch(op)
    }
}
