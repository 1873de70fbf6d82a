//! Where a model runs: WebGPU or burn's CPU backend, by the user's choice or, by default, the
//! faster of the two here. The automatic choice is measured once per worker (one product by the
//! code each device's dense layers run: [`tabprobe_model::devices::device_speed::matmul_ms`] on
//! WebGPU, [`tabprobe_model::devices::device_speed::cpu_product_ms`] on the CPU) and says why,
//! with the figures; the adapter's `isFallbackAdapter` flag (a software adapter such as SwiftShader) is
//! named beside them. On WebGPU a model runs [`GPU_BATCH_SIZE`] pairs per pass with an
//! activation budget taken from the device's own limits ([`gpu_tensor_budget`]).

use tabprobe_model::devices::device_speed::{cpu_product_ms, matmul_ms};
use tabprobe_model::text::batch::{gpu_tensor_budget, GPU_BATCH_SIZE, MAX_TENSOR_BYTES};
use tabprobe_model::Device;
use wasm_bindgen::JsCast;

use crate::protocol::{Backend, BackendChoice};

/// Timed products per device in the automatic choice (after one untimed).
const REPEATS: usize = 3;

/// A device, what the model bar calls it, and why it was taken.
#[derive(Clone)]
pub struct Chosen {
    /// The device.
    pub device: Device,
    /// WebGPU or CPU (with its reason).
    pub backend: Backend,
    /// Why: the choice, and the measurement behind an automatic one; on WebGPU also the
    /// pairs per pass and the activation budget, with the device limits behind it.
    pub note: String,
    /// Pairs per forward pass on this device (`None`: the page's batch size, the CPU's).
    pub batch_size: Option<usize>,
    /// Bytes the largest activation of a pass may take here
    /// ([`tabprobe_model::NliModel::set_tensor_budget`]).
    pub tensor_budget: usize,
}

/// The WebGPU device and the activation budget its limits allow.
#[derive(Clone)]
struct Gpu {
    device: Device,
    tensor_budget: usize,
    /// "64 pairs per pass, activations up to 256 MiB (the device binds up to …)".
    plan: String,
}

impl Gpu {
    /// This GPU as the chosen device, `why` leading the note.
    fn chosen(&self, why: String) -> Chosen {
        Chosen {
            device: self.device.clone(),
            backend: Backend::WebGpu,
            note: format!("{why}; {}", self.plan),
            batch_size: Some(GPU_BATCH_SIZE),
            tensor_budget: self.tensor_budget,
        }
    }
}

/// The CPU as the chosen device: the page's batch size, the default budget.
fn cpu(reason: &str, note: String) -> Chosen {
    Chosen {
        device: Device::flex(),
        backend: Backend::Cpu {
            reason: reason.to_string(),
        },
        note,
        batch_size: None,
        tensor_budget: MAX_TENSOR_BYTES,
    }
}

/// Bytes as whole MiB, rounded down.
fn mib(bytes: u64) -> u64 {
    bytes >> 20
}

/// The devices this worker has set up, and its automatic choice once made.
#[derive(Default)]
pub struct Devices {
    /// WebGPU, initialised once (wgpu allows one initialisation per worker), or why not.
    webgpu: Option<Result<Gpu, String>>,
    /// What the adapter says about itself, e.g. "google swiftshader, a software fallback adapter".
    adapter: String,
    /// The automatic choice, measured once.
    auto: Option<Chosen>,
}

impl Devices {
    /// The device for `choice`; an error only when WebGPU is asked for and there is none.
    pub async fn get(&mut self, choice: BackendChoice) -> Result<Chosen, String> {
        match choice {
            BackendChoice::Cpu => Ok(cpu("chosen", "CPU, as chosen in the model bar".to_string())),
            BackendChoice::WebGpu => match self.webgpu().await {
                Ok(gpu) => Ok(gpu.chosen(format!(
                    "WebGPU ({}), as chosen in the model bar",
                    self.adapter
                ))),
                Err(why) => Err(format!("WebGPU was chosen, but {why}")),
            },
            BackendChoice::Auto => {
                if let Some(chosen) = &self.auto {
                    return Ok(chosen.clone());
                }
                let chosen = self.measure().await;
                self.auto = Some(chosen.clone());
                Ok(chosen)
            }
        }
    }

    /// WebGPU's device (initialised on first use) with its budget, or why there is none.
    async fn webgpu(&mut self) -> Result<Gpu, String> {
        if let Some(done) = &self.webgpu {
            return done.clone();
        }
        self.adapter = adapter_description().await;
        let result = match Device::wgpu_options().init_with_setup_async().await {
            Ok((device, setup)) => {
                // The limits granted to the device (cubecl asks for all the adapter has).
                let limits = setup.device.limits();
                let binding = limits.max_storage_buffer_binding_size;
                let buffer = limits.max_buffer_size;
                let tensor_budget = gpu_tensor_budget(binding, buffer);
                Ok(Gpu {
                    device,
                    tensor_budget,
                    plan: format!(
                        "{GPU_BATCH_SIZE} pairs per pass, activations up to {} MiB (the device \
                         binds up to {} MiB and allocates buffers up to {} MiB)",
                        mib(tensor_budget as u64),
                        mib(binding),
                        mib(buffer)
                    ),
                })
            }
            // wgpu's message lists every graphics API it tried; say the part a user can act on.
            Err(e) => {
                let full = e.to_string();
                Err(if full.contains("webgpu found no adapters") {
                    "the browser offers no WebGPU adapter".to_string()
                } else {
                    full
                })
            }
        };
        self.webgpu = Some(result.clone());
        result
    }

    /// The automatic choice: the CPU when there is no WebGPU, else the faster of the two on
    /// one measured product.
    async fn measure(&mut self) -> Chosen {
        let gpu = match self.webgpu().await {
            Ok(gpu) => gpu,
            Err(why) => {
                return cpu(
                    &format!("WebGPU unavailable: {why}"),
                    format!("CPU: WebGPU is unavailable ({why})"),
                )
            }
        };
        let cpu_ms = cpu_product_ms(REPEATS, &now);
        let gpu_ms = matmul_ms(&gpu.device, REPEATS, &now).await;
        let [m, k, n] = tabprobe_model::devices::device_speed::PRODUCT;
        let figures = |gpu: &str, cpu: &str| {
            format!(
                "one [{m}×{k}]·[{k}×{n}] product took {gpu} on WebGPU ({}) and {cpu} on the CPU",
                self.adapter
            )
        };
        let ms = |r: &Result<f64, String>| match r {
            Ok(v) => format!("{v:.1} ms"),
            Err(e) => format!("an error ({e})"),
        };
        let text = figures(&ms(&gpu_ms), &ms(&cpu_ms));
        match (gpu_ms, cpu_ms) {
            (Ok(g), Ok(c)) if c < g => cpu(
                "faster here than WebGPU",
                format!("CPU, the faster here: {text}"),
            ),
            (Ok(_), _) => gpu.chosen(format!("WebGPU, the faster here: {text}")),
            (Err(_), _) => cpu("WebGPU failed its test", format!("CPU: {text}")),
        }
    }
}

/// `performance.now()` of the worker, in milliseconds.
fn now() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| {
            let now = js_sys::Reflect::get(&p, &"now".into()).ok()?;
            let now: js_sys::Function = now.dyn_into().ok()?;
            now.call0(&p).ok()?.as_f64()
        })
        .unwrap_or_else(js_sys::Date::now)
}

/// The WebGPU adapter's vendor and architecture, and whether it is a fallback (software)
/// adapter, from `navigator.gpu.requestAdapter()`; "adapter unknown" when it cannot be asked.
async fn adapter_description() -> String {
    let ask = async {
        let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
        let gpu = js_sys::Reflect::get(&navigator, &"gpu".into()).ok()?;
        let request: js_sys::Function = js_sys::Reflect::get(&gpu, &"requestAdapter".into())
            .ok()?
            .dyn_into()
            .ok()?;
        let promise: js_sys::Promise = request.call0(&gpu).ok()?.dyn_into().ok()?;
        let adapter = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
        let info = js_sys::Reflect::get(&adapter, &"info".into()).ok()?;
        let text = |key: &str| {
            js_sys::Reflect::get(&info, &key.into())
                .ok()
                .and_then(|v| v.as_string())
                .filter(|s| !s.is_empty())
        };
        let fallback = js_sys::Reflect::get(&info, &"isFallbackAdapter".into())
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        let name = [text("vendor"), text("architecture")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let name = if name.is_empty() {
            "adapter".to_string()
        } else {
            name
        };
        Some(if fallback {
            format!("{name}, a software fallback adapter")
        } else {
            name
        })
    };
    ask.await.unwrap_or_else(|| "adapter unknown".to_string())
}
