// Benchmark (not a test; `node --test` does not pick this file up): how long the page's main
// thread is blocked while a researcher imports the whole INFOTABS dev split (1,800
// hypotheses, its tables), runs the row-deletion probe on it and reads the report — measured
// with a PerformanceObserver('longtask') installed before the page starts. The model is the
// tiny test checkpoint (crates/model/tests/golden/tiny-f32), so the scoring itself is quick
// and the figures are the page's own work; the CPU fallback (no WebGPU flag). Prints, per
// phase, the wall time, the number of long tasks (> 50 ms), the longest and their sum.
// Needs ../shared/data (INFOTABS) and a release build in dist/; `scripts/bench-longtasks.sh`
// runs it. WORKER_CORES=n makes the model worker see n cores (n scoring workers in all).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, openPage, root, testModels } from './harness.mjs';

const infotabs = process.env.INFOTABS ?? join(root, '..', 'shared', 'data', 'infotabs', 'data');
const tsv = join(infotabs, 'maindata', 'infotabs_dev.tsv');
const tables = [...new Set((await readFile(tsv, 'utf8')).split('\n').slice(1)
  .map((l) => l.split('\t')[1]).filter(Boolean))]
  .map((id) => join(infotabs, 'tables', 'json', `${id}.json`));

const server = await serveDist({ workerCores: process.env.WORKER_CORES });
const browser = await launch();
try {
  const { page } = await openPage(browser, server.url, { viewport: { width: 1280, height: 900 } });
  await page.addInitScript(() => {
    window.__longtasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  });
  // The page's own timings of its heavy steps (src/timing.rs), by phase.
  const timings = [];
  page.on('console', (m) => {
    const t = m.text().match(/^tabprobe-timing (\S+) (\d+)$/);
    if (t) timings.push([t[1], Number(t[2])]);
  });
  await page.reload();
  await page.getByTestId('dataset-name').waitFor({ timeout: 60_000 });
  const now = () => page.evaluate(() => performance.now());
  const rows = [];
  const phase = async (name, work) => {
    timings.splice(0);
    const t0 = await now();
    await work();
    const t1 = await now();
    const tasks = (await page.evaluate(() => window.__longtasks)).filter(([s]) => s >= t0 && s < t1);
    const max = Math.max(0, ...tasks.map(([, d]) => d));
    const sum = tasks.reduce((a, [, d]) => a + d, 0);
    rows.push({ name, wall: (t1 - t0) / 1000, n: tasks.length, max, sum });
    console.log(`${name}: ${((t1 - t0) / 1000).toFixed(1)} s, ${tasks.length} long task(s), longest ${max.toFixed(0)} ms, total ${sum.toFixed(0)} ms`);
    const steps = timings.splice(0).filter(([, ms]) => ms >= 10);
    if (steps.length) console.log(`  steps over 10 ms: ${steps.map(([s, ms]) => `${s} ${ms} ms`).join(', ')}`);
  };
  await page.getByTestId('model-input').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json']
    .map((f) => join(testModels, 'tiny-f32', f)));
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  await phase(`import (dev split: ${tables.length} tables + infotabs_dev.tsv)`, async () => {
    await page.getByTestId('file-input').setInputFiles([tsv, ...tables]);
    await page.getByTestId('import-summary').waitFor({ timeout: 300_000 });
    await page.getByTestId('import-accept').click();
    await page.getByTestId('dataset-name').filter({ hasText: /more files/ }).waitFor({ timeout: 300_000 });
  });
  await phase('runner form (counts of the row-deletion probe set)', async () => {
    await page.getByTestId('nav-runner').click();
    for (const box of await page.locator('[data-testid^="probe-"][type="checkbox"]').all()) {
      const name = (await box.getAttribute('data-testid')).slice('probe-'.length);
      if ((await box.isChecked()) !== (name === 'row_deletion')) await box.click();
    }
    await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor({ timeout: 300_000 });
  });
  const items = await page.getByTestId('count-items').innerText();
  await phase(`run and report (${items} items)`, async () => {
    await page.getByTestId('run').click();
    await page.getByTestId('run-report').waitFor({ timeout: 3_600_000 });
  });
  await phase('reopen the saved run (report from IndexedDB)', async () => {
    await page.getByTestId('nav-runner').click();
    await page.getByTestId('nav-results').click();
    await page.getByTestId('saved-run').first().click();
    await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
  });
  const worst = Math.max(...rows.map((r) => r.max));
  console.log(`longest main-thread task over all phases: ${worst.toFixed(0)} ms (goal ≤ 50 ms)`);
} finally {
  await browser.close();
  await server.close();
}
