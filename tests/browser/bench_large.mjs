// Benchmark (not a test; scripts/bench.sh runs it when LARGE=1): a roberta-large-shaped
// checkpoint (BENCH_LARGE_MODEL: 355 M parameters, 1.42 GB of f32 weights, made by
// make_golden.py) picked as files in the real page, on the CPU path (Chromium without WebGPU):
// the load must succeed within wasm32's 4 GiB and the model must score the open table's
// hypotheses. Prints the model bar, the load time and the scoring time.
import { join } from 'node:path';
import { serveDist, launch, openPage } from './harness.mjs';

const model = process.env.BENCH_LARGE_MODEL;
if (!model) throw new Error('bench_large.mjs: set BENCH_LARGE_MODEL to the checkpoint folder');
const server = await serveDist();
const browser = await launch();
try {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor({ timeout: 60_000 });
  const t0 = Date.now();
  await page.getByTestId('model-input').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(model, f)));
  const name = page.getByTestId('model-name');
  const failed = page.getByTestId('model-error');
  await Promise.race([name.waitFor({ timeout: 600_000 }), failed.waitFor({ timeout: 600_000 })]);
  if (await failed.count()) throw new Error(`the load failed: ${await failed.innerText()}`);
  const loaded = (Date.now() - t0) / 1000;
  const bar = `${await page.getByTestId('model-backend').innerText()} · ${await page.getByTestId('model-meta').innerText()}`;
  const t1 = Date.now();
  await page.getByTestId('scoring-status').filter({ hasText: 'model right on' }).waitFor({ timeout: 900_000 });
  const scored = (Date.now() - t1) / 1000;
  const status = await page.getByTestId('scoring-status').innerText();
  console.log(JSON.stringify({ model: 'roberta-large-shaped', bar, load_s: loaded, score_table_s: scored, status, page_errors: errors }));
  if (errors.length) process.exitCode = 1;
} finally {
  await browser.close();
  await server.close();
}
