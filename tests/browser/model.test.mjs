// The model in the browser (issue 3): a Hugging Face checkpoint picked as files is loaded in
// the Web Worker, on WebGPU when Chromium offers an adapter (--enable-unsafe-webgpu gives
// SwiftShader) and on burn's CPU backend when it does not, and its logits equal Hugging Face
// transformers' (crates/model/tests/golden/golden.json, written by make_golden.py) within 1e-4.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, openPage, snap, fixtures, routeManifest } from './harness.mjs';

const goldenDir = join(fixtures, '..', '..', 'crates', 'model', 'tests', 'golden');
const golden = JSON.parse(await readFile(join(goldenDir, 'golden.json'), 'utf8'));
const TOLERANCE = 1e-4;

/** A dataset of the golden pairs as plain-text premises (labels are irrelevant here). */
function goldenDataset() {
  const examples = golden.pairs
    .map((p, i) => ({ id: `g${i}`, premise: p.premise, hypothesis: p.hypothesis, label: 'ENTAIL' }))
    .filter((e) => e.hypothesis.trim() !== '');
  return { format: 'tabprobe-dataset', version: 1, name: 'Golden pairs', tables: [], examples };
}

const modelFiles = (dir, names = ['config.json', 'model.safetensors', 'tokenizer.json']) =>
  names.map((n) => join(goldenDir, dir, n));

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

/** Loads tiny-f32 with the model bar's backend choice `backend`, scores the golden pairs, and
 *  checks them against transformers; returns the model bar's backend line, the worst logit
 *  difference and the page (open when `keep`). */
async function scoreGoldenPairs(browser, shotName, backend = 'auto', keep = false) {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await page.getByTestId('backend-choice').selectOption(backend);
  const dataset = goldenDataset();
  await page.getByTestId('file-input').setInputFiles({
    name: 'golden-pairs.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(dataset)),
  });
  await page.getByTestId('dataset-name').filter({ hasText: 'golden-pairs.json' }).waitFor();
  await page.getByTestId('model-input').setInputFiles(modelFiles('tiny-f32'));
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
  await page.getByTestId('text-premises-item').click();
  await page.getByTestId('scoring-status').filter({ hasText: 'model right on' }).waitFor({ timeout: 180_000 });
  const items = await page.getByTestId('hypothesis').all();
  assert.equal(items.length, dataset.examples.length);
  let worst = 0;
  let truncatedSeen = 0;
  for (const [k, item] of items.entries()) {
    const index = Number(dataset.examples[k].id.slice(1));
    const logits = JSON.parse(await item.getByTestId('prediction').getAttribute('data-logits'));
    const want = golden.variants.f32.logits[index];
    assert.equal(logits.length, want.length);
    for (let j = 0; j < want.length; j++) worst = Math.max(worst, Math.abs(logits[j] - want[j]));
    const pair = golden.pairs[index];
    const marker = item.getByTestId('truncated');
    if (pair.truncated) {
      truncatedSeen++;
      assert.equal(await marker.innerText(), `premise truncated: ${pair.premise_tokens_dropped} tokens dropped`);
    } else {
      assert.equal(await marker.count(), 0);
    }
  }
  assert.ok(worst <= TOLERANCE, `max |logit - transformers| = ${worst}`);
  assert.ok(truncatedSeen > 0, 'the golden pairs include truncated ones');
  const shown = await page.getByTestId('model-backend').innerText();
  await snap(page, shotName);
  assert.deepEqual(errors, []);
  if (!keep) await page.close();
  return { backend: shown, worst, page, errors };
}

test('WebGPU: the worker runs the checkpoint and matches transformers within 1e-4', async () => {
  const browser = await launch(['--enable-unsafe-webgpu']);
  try {
    const { backend, worst } = await scoreGoldenPairs(browser, '10-model-webgpu', 'webgpu');
    assert.equal(backend, 'WebGPU');
    console.log(`# WebGPU max |logit diff| vs transformers: ${worst.toExponential(2)}`);
  } finally {
    await browser.close();
  }
});

test('CPU fallback: without a WebGPU adapter the same numbers come from the CPU backend', async () => {
  const browser = await launch();
  try {
    const { backend, worst } = await scoreGoldenPairs(browser, '11-model-cpu-fallback');
    assert.match(backend, /^CPU \(WebGPU unavailable: .+\)$/);
    console.log(`# CPU max |logit diff| vs transformers: ${worst.toExponential(2)}`);
  } finally {
    await browser.close();
  }
});

test('backend: on a software WebGPU adapter "the faster" is the CPU, measured; helper workers score beside the worker; choosing WebGPU moves the model and is kept', async () => {
  const browser = await launch(['--enable-unsafe-webgpu']);
  try {
    const { page, errors, worst } = await scoreGoldenPairs(browser, '13-model-backend-auto', 'auto', true);
    assert.ok(worst <= TOLERANCE);
    // SwiftShader: the worker timed one product on each device and took the CPU, saying why.
    const backend = page.getByTestId('model-backend');
    assert.equal(await backend.innerText(), 'CPU (faster here than WebGPU)',
      `the automatic choice on this machine: ${await backend.getAttribute('title')}`);
    const why = await backend.getAttribute('title');
    assert.match(why,
      /^CPU, the faster here: one \[128×768\]·\[768×768\] product took [\d.]+ ms on WebGPU \(google swiftshader, a software fallback adapter\) and [\d.]+ ms on the CPU$/);
    console.log(`# ${why}`);
    // One model copy per core (at most 4) on the CPU path.
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const copies = Math.min(cores, 4);
    assert.equal(await page.getByTestId('model-precision').getAttribute('title'), 'f32: f16-mixed runs on WebGPU only');
    if (copies > 1) assert.equal(await page.getByTestId('model-workers').innerText(), `${copies} workers`);
    else assert.equal(await page.getByTestId('model-workers').count(), 0);
    // Choosing WebGPU moves the loaded model there (from the files the worker kept).
    await page.getByTestId('backend-choice').selectOption('webgpu');
    await page.getByTestId('model-backend').filter({ hasText: /^WebGPU$/ }).waitFor({ timeout: 120_000 });
    // On WebGPU the worker runs 64 pairs per pass, with an activation budget from the device's
    // limits: the smaller of its binding and buffer limits, at most 256 MiB. The page asks the
    // same browser's adapter for them (the worker's device is granted the adapter's limits).
    const limits = await page.evaluate(async () => {
      const a = await navigator.gpu.requestAdapter();
      return { binding: a.limits.maxStorageBufferBindingSize, buffer: a.limits.maxBufferSize };
    });
    const mib = (bytes) => Math.floor(bytes / 2 ** 20);
    const budget = Math.min(limits.binding, limits.buffer, 256 * 2 ** 20);
    assert.equal(await page.getByTestId('model-backend').getAttribute('title'),
      'WebGPU (google swiftshader, a software fallback adapter), as chosen in the model bar; '
      + `64 pairs per pass, activations up to ${mib(budget)} MiB (the device binds up to `
      + `${mib(limits.binding)} MiB and allocates buffers up to ${mib(limits.buffer)} MiB)`);
    assert.equal(await page.getByTestId('model-workers').count(), 0);
    assert.equal(await page.getByTestId('model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
    // f16-mixed is allowed by default, but SwiftShader has no shader-f16: the model runs in
    // f32 and the model bar says why (a GPU with shader-f16 would say f16-mixed).
    assert.equal(await page.getByTestId('precision-choice').inputValue(), 'f16');
    const precision = page.getByTestId('model-precision');
    assert.equal(await precision.innerText(), 'f32');
    assert.match(await precision.getAttribute('title'), /^f32: f16-mixed needs f16 arithmetic on the device/);
    // Choosing f32 loads the model again; the note says it was chosen.
    await page.getByTestId('precision-choice').selectOption('f32');
    await page.locator('[data-testid="model-precision"][title="f32, as chosen in the model bar"]').waitFor({ timeout: 120_000 });
    // The choices are kept in this browser.
    await page.reload();
    await page.getByTestId('dataset-name').waitFor();
    assert.equal(await page.getByTestId('backend-choice').inputValue(), 'webgpu');
    assert.equal(await page.getByTestId('precision-choice').inputValue(), 'f32');
    await snap(page, '14-model-backend-webgpu');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});

test('an incomplete or mismatched checkpoint is refused and the loaded model stays', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url);
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    await page.getByTestId('model-input').setInputFiles(modelFiles('tiny-f32', ['config.json', 'tokenizer.json']));
    assert.match(await page.getByTestId('model-error').innerText(), /missing model\.safetensors/);
    await page.getByTestId('model-input').setInputFiles(modelFiles('tiny-f32'));
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
    // The two-way checkpoint's weights under the three-way config: the disagreement is named.
    await page.getByTestId('model-input').setInputFiles([
      join(goldenDir, 'tiny-f32', 'config.json'), join(goldenDir, 'tiny-2way', 'model.safetensors'), join(goldenDir, 'tiny-f32', 'tokenizer.json'),
    ]);
    const error = page.getByTestId('model-error');
    await error.waitFor({ timeout: 120_000 });
    const text = await error.innerText();
    assert.match(text, /num_labels \(id2label\) = 3, but the weights have 2/);
    assert.match(text, /still loaded/);
    assert.equal(await page.getByTestId('model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
    await snap(page, '12-model-load-error');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});

test('a checkpoint that would not fit the worker once widened to f32 is refused from its header, with the numbers; the loaded model stays', async () => {
  // A 2.0 GB f16 safetensors file (1 B parameters), below the 2 GiB file limit: its 4.0 GB
  // widened to f32 do not fit a worker's 4 GiB (the file itself is not held). Written sparse:
  // only its header is on disk, and only its header is read (src/model_fit.rs).
  const dir = await mkdtemp(join(tmpdir(), 'tabprobe-big-'));
  // 40 tensors of 25 M elements (a 32-bit worker's safetensors reader refuses one tensor of
  // over 2^29 bytes' worth of bits, as it would refuse to load it).
  const per = 25_000_000;
  const tensors = Object.fromEntries(Array.from({ length: 40 }, (_, k) =>
    [`layer.${k}.weight`, { dtype: 'F16', shape: [5_000, 5_000], data_offsets: [k * per * 2, (k + 1) * per * 2] }]));
  const elements = 40 * per;
  const header = Buffer.from(JSON.stringify(tensors));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  const weights = join(dir, 'model.safetensors');
  await writeFile(weights, Buffer.concat([length, header]));
  await truncate(weights, 8 + header.length + elements * 2);
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url);
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    await page.getByTestId('model-input').setInputFiles(modelFiles('tiny-f32'));
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
    await page.getByTestId('model-input').setInputFiles([
      join(goldenDir, 'tiny-f32', 'config.json'), weights, join(goldenDir, 'tiny-f32', 'tokenizer.json'),
    ]);
    const error = page.getByTestId('model-error');
    await error.waitFor({ timeout: 60_000 });
    const text = await error.innerText();
    assert.match(text, /model\.safetensors does not fit in a browser tab: its 2\.00 GB of weights take 4\.00 GB once widened to f32 for the CPU, and a model worker addresses at most 4\.29 GB/);
    assert.match(text, /still loaded/);
    assert.equal(await page.getByTestId('model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
    await snap(page, '13-model-does-not-fit');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a checkpoint at a URL downloads with progress, is cached, and loads again without network', async () => {
  const browser = await launch();
  try {
    const context = await browser.newContext();
    await routeManifest(context);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(server.url);
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    const base = `${server.url}test-models/tiny-f32/`;
    // Progress is reported while downloading (the status line names the file and MB).
    const seen = [];
    const watcher = setInterval(async () => {
      try { seen.push(await page.getByTestId('model-status').innerText({ timeout: 50 })); } catch { /* not shown now */ }
    }, 20);
    await page.getByTestId('model-url').fill(base);
    await page.getByTestId('model-url-load').click();
    await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 120_000 });
    clearInterval(watcher);
    assert.equal(await page.getByTestId('model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
    assert.ok(seen.some((s) => /downloading model\.safetensors|from the browser cache|loading tiny-f32/.test(s)), seen.join(' | '));
    assert.equal(server.requests.get('/test-models/tiny-f32/model.safetensors'), 1);
    // Same browser profile, network to the models cut: the Cache API serves the files.
    await page.reload();
    await page.route('**/test-models/**', (route) => route.abort());
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    await page.getByTestId('model-url').fill(base);
    await page.getByTestId('model-url-load').click();
    await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 120_000 });
    assert.equal(server.requests.get('/test-models/tiny-f32/model.safetensors'), 1, 'the second load did not hit the network');
    // A wrong URL names what is missing and keeps the loaded model.
    await page.unroute('**/test-models/**');
    await page.getByTestId('model-url').fill(`${server.url}test-models/nowhere/`);
    await page.getByTestId('model-url-load').click();
    await page.getByTestId('model-error').waitFor();
    assert.match(await page.getByTestId('model-error').innerText(), /config\.json was not found \(404\).*tiny-f32 is still loaded/s);
    await snap(page, '13-model-from-url-cached');
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await browser.close();
  }
});

test('dropping the files of a checkpoint loads the model', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url);
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    const names = ['config.json', 'model.safetensors', 'tokenizer.json'];
    const contents = await Promise.all(names.map(async (n) => [...await readFile(join(goldenDir, 'tiny-f32', n))]));
    await page.evaluate(({ names, contents }) => {
      const dt = new DataTransfer();
      names.forEach((n, i) => dt.items.add(new File([new Uint8Array(contents[i])], n)));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, { names, contents });
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
    assert.equal(await page.getByTestId('model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
    // The demo dataset is still there, and its hypotheses are now scored.
    await page.getByTestId('search').fill('breakfast');
    await page.getByTestId('table-item').first().click();
    await page.getByTestId('scoring-status').filter({ hasText: 'model right on' }).waitFor({ timeout: 120_000 });
    assert.equal(await page.getByTestId('prediction').count(), 22);
    await snap(page, '14-model-dropped-predictions');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});
