// scripts/bench.sh's quantized browser rows (a benchmark, not a test), beside the f32 rows of
// tests/browser/bench_speed.mjs, in a Chromium of their own, on the same checkpoint, text and
// shapes, measured the same way (the median of REPEATS timed calls after one warm-up call,
// text in → scores out, tokenization included):
//   - transformers.js (npm @huggingface/transformers, onnxruntime-web) at dtype q8, its default
//     on wasm (utils/dtypes.js: DEFAULT_DEVICE_DTYPE_MAPPING = { wasm: q8 }), which loads
//     onnx/model_quantized.onnx (written by scripts/bench_native.py prepare as transformers.js'
//     own scripts/quantize.py makes q8 files), on 1 and THREADS wasm threads;
//   - tabprobe's model worker at precision int8 (the load message's `precision: "int8"`, the
//     dense layers of the transformer body in int8 on the CPU path), one worker and then the
//     worker with its helpers, as bench_speed.mjs measures f32. A worker that refuses the
//     choice (a build without it answers BadRequest or LoadFailed) or loads the model at
//     another precision is recorded as unavailable — the table prints "not available in this
//     build" — and the rest still runs.
// Rows carry "precision": "q8" (transformers.js) or "int8" (tabprobe), appended to OUT.
//
// Environment: BENCH_MODEL (the checkpoint folder, with onnx/model_quantized.onnx), SEQ_LENS,
// BATCH_SIZES, REPEATS, THREADS, OUT, as bench_speed.mjs; DIST (default dist/: the site build
// whose worker runs).
import { createServer } from 'node:http';
import { appendFile, readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { launch, root, dist } from '../tests/browser/harness.mjs';

const model = process.env.BENCH_MODEL;
if (!model) throw new Error('bench_int8.mjs: set BENCH_MODEL to the checkpoint folder');
const list = (v, d) => (v ?? d).split(',').filter(Boolean);
const seqLens = list(process.env.SEQ_LENS, '128').map(Number);
const batchSizes = list(process.env.BATCH_SIZES, '1,8').map(Number);
const repeats = Number(process.env.REPEATS ?? 3);
const threads = Number(process.env.THREADS ?? 2);
const out = process.env.OUT;
const benchModules = join(root, 'bench', 'node_modules');
const tjs = join(benchModules, '@huggingface', 'transformers', 'dist');
const ort = join(benchModules, 'onnxruntime-web', 'dist');
const inputs = JSON.parse(await readFile(join(model, 'bench-inputs.json'), 'utf8'));
const NOT_AVAILABLE = 'not available in this build';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const benchPage = `<!DOCTYPE html><meta charset="utf-8"><title>tabprobe bench (int8)</title>
<script type="module">
window.tjs = await import('/tjs/transformers.js');
window.benchReady = true;
</script>`;

async function record(row) {
  console.log(JSON.stringify(row));
  if (out) await appendFile(out, `${JSON.stringify(row)}\n`);
}

/** dist/ at /, the checkpoint at /bench-model/, transformers.js at /tjs/ (onnxruntime-web's
 *  files at /tjs/ort*), the bench page; cross-origin isolated so wasm threads can run. */
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

/** In the page: tabprobe's worker loading the checkpoint on the CPU path at `precision`
 *  (`single`: no helpers). Returns { info } once the helpers it planned score beside it, or
 *  { refused } with the worker's answer when it does not load the model at that precision. */
async function tabprobeLoad({ batchSize, precision, single }) {
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
  const parts = [];
  for (const f of ['config.json', 'tokenizer.json']) {
    parts.push(new Uint8Array(await (await fetch(`/bench-model/${f}`)).arrayBuffer()));
  }
  const weights = await (await fetch('/bench-model/model.safetensors')).blob();
  const header = { LoadModel: { slot: 'main', name: 'bench', tokenizer: 'Json', batch_size: batchSize, load: 1, backend: 'cpu', precision, helper: single } };
  worker.postMessage([JSON.stringify(header), ...parts, weights], parts.map((p) => p.buffer));
  const loaded = await next((h) => h.ModelLoaded || h.LoadFailed || h.BadRequest);
  if (loaded.BadRequest) { worker.terminate(); return { refused: `the worker refused the load message: ${loaded.BadRequest.message}` }; }
  if (loaded.LoadFailed) { worker.terminate(); return { refused: `the load failed: ${loaded.LoadFailed.message}` }; }
  const { info } = loaded.ModelLoaded;
  const got = info.id?.precision ?? 'f32';
  if (got !== precision) {
    worker.terminate();
    return { refused: `the worker loaded the model at ${got} (${info.precision_note ?? ''})` };
  }
  let job = 0;
  // Returns how many distinct logit vectors came back: every pair of a bench call is the same
  // text, so a worker and helpers computing alike give one (helpers at another precision would
  // give two).
  window.tabprobeScore = async (pairs) => {
    job += 1;
    const mine = job;
    worker.postMessage([JSON.stringify({ Score: { job: mine, slot: 'main', pairs } })]);
    const r = await next((h) => (h.Scores ?? h.JobFailed)?.job === mine);
    if (r.JobFailed) throw new Error(`tabprobe score failed: ${JSON.stringify(r.JobFailed.error)}`);
    window.tabprobeWorkers = r.Scores.workers;
    return new Set(r.Scores.scores.map((s) => JSON.stringify(s.logits))).size;
  };
  const until = performance.now() + 180_000;
  const pair = { premise: 'A short premise.', hypothesis: 'A hypothesis.' };
  while (performance.now() < until) {
    await window.tabprobeScore(Array.from({ length: 2 * batchSize * info.workers }, () => pair));
    if (window.tabprobeWorkers === info.workers) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (window.tabprobeWorkers !== info.workers) throw new Error(`only ${window.tabprobeWorkers} of ${info.workers} workers joined`);
  return { info };
}

/** In the page: transformers.js with the checkpoint's q8 file. */
async function tjsLoad({ threads }) {
  const { env, AutoTokenizer, AutoModelForSequenceClassification } = window.tjs;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = '/';
  env.useBrowserCache = false;
  env.backends.onnx.wasm.wasmPaths = '/tjs/';
  env.backends.onnx.wasm.numThreads = threads;
  const t = performance.now();
  const tokenizer = await AutoTokenizer.from_pretrained('bench-model');
  const net = await AutoModelForSequenceClassification.from_pretrained('bench-model', { dtype: 'q8', device: 'wasm' });
  window.tjsScore = async (pairs) => {
    const enc = await tokenizer(pairs.map((p) => p.premise), { text_pair: pairs.map((p) => p.hypothesis), padding: true, truncation: true });
    const { logits } = await net(enc);
    if (logits.dims[0] !== pairs.length) throw new Error('transformers.js: wrong number of outputs');
    return enc.input_ids.dims[1];
  };
  return { load_ms: performance.now() - t, crossOriginIsolated: self.crossOriginIsolated };
}

/** Times `score` over the configured shapes (see bench_speed.mjs: a call carries one batch per
 *  tabprobe worker, one batch for transformers.js). */
async function measure(page, runtime, precision, score, threadsUsed, workers = 1, sizes = batchSizes) {
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
      if (runtime === 'transformers.js' && rates.seen !== n) {
        throw new Error(`transformers.js tokenized the ${n}-token pair to ${rates.seen} tokens`);
      }
      if (runtime === 'tabprobe' && rates.seen !== 1) {
        console.error(`tabprobe int8, ${workers} worker(s): the same pair scored ${rates.seen} different ways — do the helpers run at int8 too?`);
      }
      const sorted = [...rates.rates].sort((a, c) => a - c);
      await record({
        runtime, backend: 'cpu', precision, threads: threadsUsed, seq_len: n, batch_size: b,
        median: Number(sorted[Math.floor(sorted.length / 2)].toFixed(3)),
        best: Number(sorted[sorted.length - 1].toFixed(3)),
      });
    }
  }
}

const server = await serve();
const browser = await launch([]);
try {
  const open = async () => {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.goto(`${server.url}bench.html`);
    await page.waitForFunction(() => window.benchReady, null, { timeout: 60_000 });
    return page;
  };
  // A fresh page per runtime and thread count: onnxruntime-web fixes its threads at its first session.
  for (const t of [...new Set([1, threads])]) {
    const page = await open();
    const loaded = await page.evaluate(tjsLoad, { threads: t });
    console.error(`transformers.js (wasm, q8, ${t} thread(s)): loaded in ${(loaded.load_ms / 1000).toFixed(1)} s; crossOriginIsolated ${loaded.crossOriginIsolated}`);
    await measure(page, 'transformers.js', 'q8', 'tjsScore', t);
    await page.close();
  }

  let refused = null;
  for (const single of [true, false]) {
    for (const b of batchSizes) {
      if (refused) break;
      const page = await open();
      const r = await page.evaluate(tabprobeLoad, { batchSize: b, precision: 'int8', single });
      if (r.refused) {
        refused = r.refused;
        console.error(`tabprobe int8: ${NOT_AVAILABLE}: ${refused}`);
        await record({ runtime: 'tabprobe', backend: 'cpu', precision: 'int8', threads: 1, unavailable: refused });
      } else {
        const { info } = r;
        console.error(`tabprobe: ${info.architecture}, ${info.parameters} parameters, ${JSON.stringify(info.backend)}, ${info.workers} worker(s), batch ${b}, int8 (${info.precision_note}), loaded in ${(info.load_ms / 1000).toFixed(1)} s`);
        if (single || info.workers > 1) await measure(page, 'tabprobe', 'int8', 'tabprobeScore', info.workers, info.workers, [b]);
        else console.error('tabprobe: one core only, so no helpers');
      }
      await page.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
