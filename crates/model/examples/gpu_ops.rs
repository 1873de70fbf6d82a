//! Where a forward pass's time goes on the wgpu device (natively: a GPU through Vulkan, the
//! same WGSL kernels a browser's WebGPU runs): one roberta-base encoder layer at a batch
//! shape, timed whole and op by op, each op alone over many repeats between two device
//! syncs; square matmuls for the matmul kernel's own peak; f16 beside f32 where the adapter
//! has `shader-f16`. It also prints the adapter's limits that bound a batch's buffers.
//!
//! Not a test (issue 17's profile). Random inputs; the figures are the kernels'.
//!
//! ```text
//! cargo run --release -p tabprobe-model --example gpu_ops -- [--batches 1,32,128] [--seq 128] [--iters 20]
//! ```

use std::time::Instant;

use burn::prelude::*;
use burn::tensor::activation::{gelu, softmax};
use burn::tensor::{Distribution, FloatDType};
use tabprobe_model::blocks::encoder::{Attention, FeedForward, Layer};
use tabprobe_model::blocks::nn::{Dense, LayerNorm};
use tabprobe_model::HiddenAct;

const HIDDEN: usize = 768;
const INTER: usize = 3072;
const HEADS: usize = 12;

struct Args {
    batches: Vec<usize>,
    seq: usize,
    iters: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        batches: vec![1, 32, 128],
        seq: 128,
        iters: 20,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--batches" => {
                a.batches = value.split(',').map(number).collect::<Result<_, _>>()?;
            }
            "--seq" => a.seq = number(&value)?,
            "--iters" => a.iters = number(&value)?.max(1),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

/// Seconds per call of `f`: three warm-up calls, then `iters` calls between two syncs.
fn per_call<O>(device: &Device, iters: usize, mut f: impl FnMut() -> O) -> Result<f64, String> {
    for _ in 0..3 {
        drop(f());
    }
    device.sync().map_err(|e| format!("{e:?}"))?;
    let t = Instant::now();
    for _ in 0..iters {
        drop(f());
    }
    device.sync().map_err(|e| format!("{e:?}"))?;
    Ok(t.elapsed().as_secs_f64() / iters as f64)
}

fn random<const D: usize>(shape: [usize; D], device: &Device) -> Tensor<D> {
    Tensor::random(shape, Distribution::Uniform(-0.05, 0.05), device)
}

fn dense(inp: usize, out: usize, device: &Device) -> Dense {
    Dense::new(random([inp, out], device), random([out], device))
}

fn layer_norm(device: &Device) -> LayerNorm {
    LayerNorm {
        gamma: random([HIDDEN], device),
        beta: random([HIDDEN], device),
        eps: 1e-5,
    }
}

fn half(d: &Dense) -> Dense {
    Dense::new(
        d.weight.clone().cast(FloatDType::F16),
        d.bias.clone().cast(FloatDType::F16),
    )
}

/// One row of the table: what, how many times a layer runs it, seconds per call, FLOPs per call.
struct Row {
    name: String,
    per_layer: usize,
    secs: f64,
    flops: f64,
}

/// The rows of the three dense shapes — 768→768 (q, k, v and out), 768→3072, 3072→768 — on
/// `x: [.., 768]` and `h: [.., 3072]` with `tokens` rows; `in_layer`: counted in the layer's
/// sum (the f32 rows) or shown beside it (the f16 ones), and `prefix` names them.
fn dense_rows(
    device: &Device,
    iters: usize,
    tokens: f64,
    layers: [&Dense; 3],
    (x, h): (&Tensor<3>, &Tensor<3>),
    prefix: &str,
    in_layer: bool,
) -> Result<Vec<Row>, String> {
    let [square, up, down] = layers;
    let count = |n: usize| if in_layer { n } else { 0 };
    Ok(vec![
        Row {
            name: format!("{prefix}dense 768->768 (q, k, v, out)"),
            per_layer: count(4),
            secs: per_call(device, iters, || square.forward(x.clone()))?,
            flops: 2.0 * tokens * (HIDDEN * HIDDEN) as f64,
        },
        Row {
            name: format!("{prefix}dense 768->3072"),
            per_layer: count(1),
            secs: per_call(device, iters, || up.forward(x.clone()))?,
            flops: 2.0 * tokens * (HIDDEN * INTER) as f64,
        },
        Row {
            name: format!("{prefix}dense 3072->768"),
            per_layer: count(1),
            secs: per_call(device, iters, || down.forward(h.clone()))?,
            flops: 2.0 * tokens * (HIDDEN * INTER) as f64,
        },
    ])
}

fn main() -> Result<(), String> {
    let args = parse_args()?;
    let (device, setup) = Device::wgpu_options()
        .init_with_setup()
        .map_err(|e| format!("no adapter ({e})"))?;
    let info = setup.adapter.get_info();
    let limits = setup.adapter.limits();
    let features = setup.adapter.features();
    let has_f16 = features.contains(burn::tensor::wgpu::wgpu::Features::SHADER_F16);
    println!(
        "adapter: {} ({:?}, driver {} {})",
        info.name, info.backend, info.driver, info.driver_info
    );
    println!(
        "limits: max_storage_buffer_binding_size {} B ({} MiB), max_buffer_size {} B ({} MiB), \
         max_compute_workgroup_storage_size {} B, max_compute_invocations_per_workgroup {}; \
         shader-f16 {has_f16}, subgroup {}",
        limits.max_storage_buffer_binding_size,
        limits.max_storage_buffer_binding_size >> 20,
        limits.max_buffer_size,
        limits.max_buffer_size >> 20,
        limits.max_compute_workgroup_storage_size,
        limits.max_compute_invocations_per_workgroup,
        features.contains(burn::tensor::wgpu::wgpu::Features::SUBGROUP),
    );

    // The matmul kernel's peak on square products.
    for n in [2048usize, 4096] {
        let a = random([n, n], &device);
        let b = random([n, n], &device);
        let s = per_call(&device, args.iters, || a.clone().matmul(b.clone()))?;
        println!(
            "matmul {n}x{n}x{n} f32: {:.3} ms, {:.1} TFLOP/s",
            s * 1e3,
            2.0 * (n as f64).powi(3) / s / 1e12
        );
        if has_f16 {
            let (a, b) = (a.cast(FloatDType::F16), b.cast(FloatDType::F16));
            let s = per_call(&device, args.iters, || a.clone().matmul(b.clone()))?;
            println!(
                "matmul {n}x{n}x{n} f16: {:.3} ms, {:.1} TFLOP/s",
                s * 1e3,
                2.0 * (n as f64).powi(3) / s / 1e12
            );
        }
    }

    let attention = Attention {
        query: dense(HIDDEN, HIDDEN, &device),
        key: dense(HIDDEN, HIDDEN, &device),
        value: dense(HIDDEN, HIDDEN, &device),
        output: dense(HIDDEN, HIDDEN, &device),
        layer_norm: layer_norm(&device),
        heads: HEADS,
    };
    let feed_forward = FeedForward {
        intermediate: dense(HIDDEN, INTER, &device),
        output: dense(INTER, HIDDEN, &device),
        layer_norm: layer_norm(&device),
        act: HiddenAct::Gelu,
    };
    let layer = Layer {
        attention,
        feed_forward,
    };
    let (seq, d) = (args.seq, HIDDEN / HEADS);
    for &batch in &args.batches {
        let tokens = (batch * seq) as f64;
        let x = random([batch, seq, HIDDEN], &device);
        let h = random([batch, seq, INTER], &device);
        let mask = Tensor::<4>::zeros([batch, 1, 1, seq], &device);
        let split = |t: Tensor<3>| t.reshape([batch, seq, HEADS, d]).swap_dims(1, 2);
        let q = split(random([batch, seq, HIDDEN], &device));
        let k = split(random([batch, seq, HIDDEN], &device));
        let scores = random([batch, HEADS, seq, seq], &device);
        let a = &layer.attention;
        let f = &layer.feed_forward;
        let it = args.iters;
        let whole = per_call(&device, it, || {
            let y = layer.attention.forward(x.clone(), mask.clone());
            layer.feed_forward.forward(y)
        })?;
        let mut rows = dense_rows(
            &device,
            it,
            tokens,
            [&a.query, &f.intermediate, &f.output],
            (&x, &h),
            "",
            true,
        )?;
        rows.extend([
            Row {
                name: "q k^T (heads split)".into(),
                per_layer: 1,
                secs: per_call(&device, it, || q.clone().matmul(k.clone().swap_dims(2, 3)))?,
                flops: 2.0 * (batch * HEADS * seq * seq * d) as f64,
            },
            Row {
                name: "scale + mask + softmax".into(),
                per_layer: 1,
                secs: per_call(&device, it, || {
                    softmax(scores.clone() * 0.125 + mask.clone(), 3)
                })?,
                flops: 0.0,
            },
            Row {
                name: "probs v + heads merged".into(),
                per_layer: 1,
                secs: per_call(&device, it, || {
                    scores
                        .clone()
                        .matmul(k.clone())
                        .swap_dims(1, 2)
                        .reshape([batch, seq, HIDDEN])
                })?,
                flops: 2.0 * (batch * HEADS * seq * seq * d) as f64,
            },
            Row {
                name: "residual add + layer norm".into(),
                per_layer: 2,
                secs: per_call(&device, it, || a.layer_norm.forward(x.clone() + x.clone()))?,
                flops: 0.0,
            },
            Row {
                name: "gelu (erf)".into(),
                per_layer: 1,
                secs: per_call(&device, it, || gelu(h.clone()))?,
                flops: 0.0,
            },
        ]);
        if has_f16 {
            let (x16, h16) = (
                x.clone().cast(FloatDType::F16),
                h.clone().cast(FloatDType::F16),
            );
            let (qd, up, down) = (half(&a.query), half(&f.intermediate), half(&f.output));
            rows.extend(dense_rows(
                &device,
                it,
                tokens,
                [&qd, &up, &down],
                (&x16, &h16),
                "f16: ",
                false,
            )?);
        }
        let summed: f64 = rows.iter().map(|r| r.secs * r.per_layer as f64).sum();
        println!(
            "\nbatch {batch}, seq {seq}: one layer {:.3} ms whole ({:.1} ex/s for 12 layers), \
             ops summed {:.3} ms",
            whole * 1e3,
            batch as f64 / (12.0 * whole),
            summed * 1e3
        );
        println!("op\tper layer\tms per call\tshare of summed\tTFLOP/s");
        for r in &rows {
            let tflops = if r.flops > 0.0 {
                format!("{:.2}", r.flops / r.secs / 1e12)
            } else {
                "-".into()
            };
            println!(
                "{}\t{}\t{:.4}\t{:.1} %\t{tflops}",
                r.name,
                r.per_layer,
                r.secs * 1e3,
                100.0 * r.secs * r.per_layer as f64 / summed
            );
        }
    }
    Ok(())
}
