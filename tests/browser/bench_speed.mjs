// Benchmark (not a test; `node --test` does not pick this file up; scripts/bench.sh runs it):
// examples/s of tabprobe's model worker and of transformers.js (npm @huggingface/transformers,
// onnxruntime-web, dtype fp32) on the same checkpoint, in one Chromium session, on the same
// text: for each sequence length one premise/hypothesis pair of exactly that many tokens
// (bench-inputs.json, written by scripts/bench_native.py prepare), repeated to the batch size.
// Each figure is the median of REPEATS timed calls after one warm-up call, text in → scores
// out (tokenization included on both sides). tabprobe's worker is driven directly through its
// message protocol (crates/worker/src/protocol.rs) from a bench page served beside dist/.
//
// Environment: BENCH_MODEL (the checkpoint folder, with onnx/model.onnx), SEQ_LENS, BATCH_SIZES,
// REPEATS, THREADS (transformers.js' wasm threads; the page is cross-origin isolated so that
// more than one can run), BACKENDS (cpu and/or webgpu; webgpu adds Chromium's
// --enable-unsafe-webgpu, which on a machine without a GPU is the SwiftShader software adapter),
// OUT (a JSON-lines file the figures are appended to).
import { createServer } from 'node:http';
import { appendFile, readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { launch, root, dist } from './harness.mjs';

const model = process.env.BENCH_MODEL;
if (!model) throw new Error('bench_speed.mjs: set BENCH_MODEL to the checkpoint folder');
const list = (v, d) => (v ?? d).split(',').filter(Boolean);
const seqLens = list(process.env.SEQ_LENS, '128').map(Number);
const batchSizes = list(process.env.BATCH_SIZES, '1,8').map(Number);
const repeats = Number(process.env.REPEATS ?? 3);
const threads = Number(process.env.THREADS ?? 2);
const backends = list(process.env.BACKENDS, 'cpu');
const out = process.env.OUT;
const benchModules = join(root, 'bench', 'node_modules');
const tjs = join(benchModules, '@huggingface', 'transformers', 'dist');
const ort = join(benchModules, 'onnxruntime-web', 'dist');
const inputs = JSON.parse(await readFile(join(model, 'bench-inputs.json'), 'utf8'));

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const benchPage = `<!DOCTYPE html><meta charset="utf-8"><title>tabprobe bench</title>
<script type="module">
window.tjs = await import('/tjs/transformers.js');
window.benchReady = true;
</script>`;

/** dist/ at /, the checkpoint at /bench-model/, transformers.js at /tjs/, the bench page;
 *  onnxruntime-web's wasm files at /tjs/ort*; cross-origin isolated (COOP/COEP), so SharedArrayBuffer and wasm threads are available. */
async function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const headers = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
    if (path === '/bench.html') {
      res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(benchPage);
      return;
    }
    const file = path.startsWith('/bench-model/') ? join(model, path.slice('/bench-model/'.length))
      : path.startsWith('/tjs/ort') ? join(ort, path.slice('/tjs/'.length))
        : path.startsWith('/tjs/') ? join(tjs, path.slice('/tjs/'.length))
        : join(dist, path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404, headers).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}

/** In the page: tabprobe's worker, loaded with the checkpoint on `backend` ('cpu' or
 *  'webgpu'); `single` keeps it to one worker (no helpers on the CPU path). Waits until the
 *  helpers the worker planned score beside it; returns its model info. */
async function tabprobeLoad({ batchSize, backend, single }) {
  const worker = new Worker('/worker_loader.js');
  const replies = [];
  let wake = () => {};
  worker.onmessage = (e) => { replies.push(e.data); wake(); };
  const next = async (want) => {
    for (;;) {
      const i = replies.findIndex((m) => want(JSON.parse(m[0])));
      if (i >= 0) return JSON.parse(replies.splice(i, 1)[0][0]);
      await new Promise((r) => { wake = r; });
    }
  };
  await next((h) => h === 'Ready');
  // As the page sends a checkpoint: config and tokenizer as bytes, the weights as a Blob last
  // (the worker reads it a range at a time).
  const parts = [];
  for (const f of ['config.json', 'tokenizer.json']) {
    parts.push(new Uint8Array(await (await fetch(`/bench-model/${f}`)).arrayBuffer()));
  }
  const weights = await (await fetch('/bench-model/model.safetensors')).blob();
  const header = { LoadModel: { slot: 'main', name: 'bench', tokenizer: 'Json', batch_size: batchSize, load: 1, backend, helper: single } };
  worker.postMessage([JSON.stringify(header), ...parts, weights], parts.map((p) => p.buffer));
  const loaded = await next((h) => h.ModelLoaded || h.LoadFailed);
  if (loaded.LoadFailed) throw new Error(`tabprobe load failed: ${loaded.LoadFailed.message}`);
  let job = 0;
  window.tabprobeScore = async (pairs) => {
    job += 1;
    const mine = job;
    worker.postMessage([JSON.stringify({ Score: { job: mine, slot: 'main', pairs } })]);
    const r = await next((h) => (h.Scores ?? h.JobFailed)?.job === mine);
    if (r.JobFailed) throw new Error(`tabprobe score failed: ${JSON.stringify(r.JobFailed.error)}`);
    window.tabprobeWorkers = r.Scores.workers;
    return r.Scores.scores.length;
  };
  const { info } = loaded.ModelLoaded;
  const until = performance.now() + 180_000;
  const pair = { premise: 'A short premise.', hypothesis: 'A hypothesis.' };
  while (performance.now() < until) {
    await window.tabprobeScore(Array.from({ length: 2 * batchSize * info.workers }, () => pair));
    if (window.tabprobeWorkers === info.workers) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (window.tabprobeWorkers !== info.workers) throw new Error(`only ${window.tabprobeWorkers} of ${info.workers} workers joined`);
  return info;
}

/** In the page: transformers.js with the ONNX export of the checkpoint. */
async function tjsLoad({ device, threads }) {
  const { env, AutoTokenizer, AutoModelForSequenceClassification } = window.tjs;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = '/';
  env.useBrowserCache = false;
  env.backends.onnx.wasm.wasmPaths = '/tjs/';
  env.backends.onnx.wasm.numThreads = threads;
  const t = performance.now();
  const tokenizer = await AutoTokenizer.from_pretrained('bench-model');
  const net = await AutoModelForSequenceClassification.from_pretrained('bench-model', { dtype: 'fp32', device });
  window.tjsScore = async (pairs) => {
    const enc = await tokenizer(pairs.map((p) => p.premise), { text_pair: pairs.map((p) => p.hypothesis), padding: true, truncation: true });
    const { logits } = await net(enc);
    if (logits.dims[0] !== pairs.length) throw new Error('transformers.js: wrong number of outputs');
    return enc.input_ids.dims[1];
  };
  return { load_ms: performance.now() - t, crossOriginIsolated: self.crossOriginIsolated };
}

/** Times `score` (a page function name) over the configured shapes. `batch` is the rows of
 *  one forward pass; a call carries a batch for each of tabprobe's `workers` (its helpers score
 *  whole batches beside it, as in a probe run), one batch for transformers.js (whose threads
 *  split each forward pass). */
async function measure(page, runtime, backend, score, threadsUsed, workers = 1, sizes = batchSizes) {
  const rows = [];
  for (const n of seqLens) {
    for (const b of sizes) {
      const pairs = Array.from({ length: b * workers }, () => inputs[String(n)]);
      const rates = await page.evaluate(async ({ score, pairs, repeats }) => {
        const seen = await window[score](pairs); // warm-up
        const rates = [];
        for (let i = 0; i < repeats; i += 1) {
          const t = performance.now();
          await window[score](pairs);
          rates.push(pairs.length / ((performance.now() - t) / 1000));
        }
        return { rates, seen };
      }, { score, pairs, repeats });
      const sorted = [...rates.rates].sort((a, c) => a - c);
      const row = {
        runtime, backend, threads: threadsUsed, seq_len: n, batch_size: b,
        median: Number(sorted[Math.floor(sorted.length / 2)].toFixed(3)),
        best: Number(sorted[sorted.length - 1].toFixed(3)),
      };
      if (runtime === 'transformers.js' && rates.seen !== n) {
        throw new Error(`transformers.js tokenized the ${n}-token pair to ${rates.seen} tokens`);
      }
      console.log(JSON.stringify(row));
      rows.push(row);
      if (out) await appendFile(out, `${JSON.stringify(row)}\n`);
    }
  }
  return rows;
}

const server = await serve();
try {
  for (const backend of backends) {
    const browser = await launch(backend === 'webgpu' ? ['--enable-unsafe-webgpu'] : []);
    try {
      // A fresh page per runtime: onnxruntime-web fixes its thread count at its first session.
      const open = async () => {
        const page = await browser.newPage();
        page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
        await page.goto(`${server.url}bench.html`);
        await page.waitForFunction(() => window.benchReady, null, { timeout: 60_000 });
        return page;
      };
      let page;
      // On the CPU path: one worker, then the worker with its helpers (one model copy per core).
      // The model's batch size is the benchmark's, so a call of `workers` batches splits evenly.
      for (const single of backend === 'cpu' ? [true, false] : [false]) {
        for (const b of batchSizes) {
          page = await open();
          const info = await page.evaluate(tabprobeLoad, { batchSize: b, backend, single });
          const got = info.backend === 'WebGpu' ? 'webgpu' : 'cpu';
          console.error(`tabprobe: ${info.architecture}, ${info.parameters} parameters, ${JSON.stringify(info.backend)}, ${info.workers} worker(s), batch ${b}, loaded in ${(info.load_ms / 1000).toFixed(1)} s`);
          if (got !== backend) throw new Error(`tabprobe's worker runs on ${got}, the bench asked for ${backend}`);
          if (single || info.workers > 1) await measure(page, 'tabprobe', backend, 'tabprobeScore', info.workers, info.workers, [b]);
          else console.error('tabprobe: one core only, so no helpers');
          await page.close();
        }
      }

      for (const t of backend === 'cpu' ? [...new Set([1, threads])] : [threads]) {
        page = await open();
        const loaded = await page.evaluate(tjsLoad, { device: backend === 'cpu' ? 'wasm' : 'webgpu', threads: t });
        console.error(`transformers.js (${backend}, ${t} thread(s)): loaded in ${(loaded.load_ms / 1000).toFixed(1)} s; crossOriginIsolated ${loaded.crossOriginIsolated}`);
        await measure(page, 'transformers.js', backend, 'tjsScore', t);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
