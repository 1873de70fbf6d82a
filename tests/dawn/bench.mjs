// Speed through Chrome's WebGPU engine (issue 33, item 2; run by scripts/bench-dawn.sh, not a
// test): the worker's own wasm on Dawn scores pairs of exactly SEQ tokens at each batch size
// and prints examples/s, one JSON line per (seq, batch) — the same figures the page's runner
// would see on that adapter, without a browser.
//
// Environment: BENCH_MODEL (a checkpoint folder, e.g. scripts/make_random_checkpoint.py's
// roberta-base shape), SEQ_LENS (128), BATCH_SIZES (1,8,32,64), REPEATS (3), DAWN_FLAGS
// (comma-separated Dawn toggles, e.g. backend=vulkan), OUT (a .jsonl file to append to), DIST
// (the site build whose worker runs; dist/ by default). Each line says whether the worker's
// device asked for subgroups, and counts the WGSL modules it compiled and those that enable
// subgroups (CubeCL's plane kernels).
// Which adapter Dawn finds is up to the Vulkan driver: VK_ICD_FILENAMES / VK_DRIVER_FILES.
import { appendFile } from 'node:fs/promises';
import { startWorker, loadCheckpoint, score, gpuLog, DIST } from './worker_on_dawn.mjs';

const list = (value, fallback) => (value || fallback).split(',').map((s) => s.trim()).filter(Boolean);
const model = process.env.BENCH_MODEL;
if (!model) throw new Error('BENCH_MODEL: name a checkpoint folder (config.json, tokenizer.json, model.safetensors)');
const seqLens = list(process.env.SEQ_LENS, '128').map(Number);
const batches = list(process.env.BATCH_SIZES, '1,8,32,64').map(Number);
const repeats = Number(process.env.REPEATS || 3);
const flags = list(process.env.DAWN_FLAGS, '');
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const worker = await startWorker({ flags, dist: process.env.DIST || DIST });
const adapter = await worker.gpu.requestAdapter();
if (!adapter) throw new Error('Dawn offers no adapter (check VK_ICD_FILENAMES / VK_DRIVER_FILES)');
const card = `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}`.trim();
const features = [...adapter.features].sort().join(' ');
console.error(`[bench-dawn] adapter: ${card}; features: ${features}`);

// A premise far longer than any sequence: the tokenizer's model_max_length (given as the
// checkpoint's tokenizer_config.json) cuts every pair to exactly `seq` tokens.
const long = 'The Venue of Cycling at the Games of the XXXI Olympiad is Olympic BMX Center. '.repeat(200);
const pair = { premise: long, hypothesis: 'Cycling at the Games had 18 events.' };
let load = 0;
for (const seq of seqLens) {
  load += 1;
  const info = await loadCheckpoint(worker, model, {
    backend: 'webgpu', load, name: `bench-${seq}`, tokenizerConfig: { model_max_length: seq },
  });
  const warm = await score(worker, [pair]);
  if (!warm.scores[0].truncated) throw new Error(`seq ${seq}: the pair was not cut to ${seq} tokens`);
  for (const batch of batches) {
    const pairs = Array.from({ length: batch }, () => pair);
    await score(worker, pairs); // kernels for this shape compiled and tuned before timing
    const rates = [];
    for (let r = 0; r < repeats; r++) {
      const start = performance.now();
      await score(worker, pairs);
      rates.push(batch / ((performance.now() - start) / 1000));
    }
    const line = {
      runtime: 'tabprobe-worker-dawn', backend: 'webgpu', adapter: card, note: info.backend_note,
      seq_len: seq, batch_size: batch, median: median(rates), best: Math.max(...rates),
      subgroups_asked: gpuLog.requiredFeatures.includes('subgroups'),
      wgsl_modules: gpuLog.modules, subgroup_modules: gpuLog.subgroupModules,
      date: new Date().toISOString().slice(0, 10),
    };
    console.log(JSON.stringify(line));
    if (process.env.OUT) await appendFile(process.env.OUT, `${JSON.stringify(line)}\n`);
  }
}
process.exit(0);
