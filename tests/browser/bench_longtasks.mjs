// Benchmark (not a test; `node --test` does not pick this file up): how long the page's main
// thread is blocked while a researcher imports the whole INFOTABS dev split (1,800
// hypotheses, its tables), runs the row-deletion probe on it and reads the report — measured
// with a PerformanceObserver('longtask') installed before the page starts. The model is the
// tiny test checkpoint (crates/model/tests/golden/tiny-f32), so the scoring itself is quick
// and the figures are the page's own work; the CPU fallback (no WebGPU flag). Prints, per
// phase, the wall time, the number of long tasks (> 50 ms), the longest and their sum, and the
// steps the page timed inside them (src/timing.rs).
// Then (issue 47 item 5) it opens the largest share links and result file the share limits
// allow, and hostile links past them (15 MB of link; JSON of hundreds of thousands of rows),
// each from the address bar as a reader would.
// Needs ../shared/data (INFOTABS) and a release build in dist/; `scripts/bench-longtasks.sh`
// runs it. WORKER_CORES=n makes the model worker see n cores (n scoring workers in all);
// PHASES=share runs the share phases alone (no INFOTABS needed); DIST=<folder> measures
// another build.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, openPage, root, testModels, watchLongTasks, longTasksSince } from './harness.mjs';
import { linkOf, linkOfMegabytes, largestResult, tinyRows, LEAST_COMPRESSIBLE, WIDEST } from './share_links.mjs';

const shareOnly = process.env.PHASES === 'share';
const infotabs = process.env.INFOTABS ?? join(root, '..', 'shared', 'data', 'infotabs', 'data');
const tsv = join(infotabs, 'maindata', 'infotabs_dev.tsv');
const tables = shareOnly ? [] : [...new Set((await readFile(tsv, 'utf8')).split('\n').slice(1)
  .map((l) => l.split('\t')[1]).filter(Boolean))]
  .map((id) => join(infotabs, 'tables', 'json', `${id}.json`));

const server = await serveDist({ workerCores: process.env.WORKER_CORES });
const browser = await launch();
try {
  const { page } = await openPage(browser, server.url, { viewport: { width: 1280, height: 900 } });
  // The page logs its timed steps only when asked (src/timing.rs).
  await page.addInitScript(() => { window.tabprobeTiming = true; });
  await watchLongTasks(page);
  // The page's own timings of its heavy steps (src/timing.rs), by phase.
  const timings = [];
  page.on('console', (m) => {
    const t = m.text().match(/^tabprobe-timing (\S+) (\d+) at (\d+)$/);
    if (t) timings.push([t[1], Number(t[2]), Number(t[3])]);
  });
  await page.reload();
  await page.getByTestId('dataset-name').waitFor({ timeout: 60_000 });
  const now = () => page.evaluate(() => performance.now());
  const rows = [];
  // `reloads`: the work reloads the page, whose clock and long-task list start afresh.
  const phase = async (name, work, { reloads = false } = {}) => {
    timings.splice(0);
    let t0 = await now();
    await work();
    if (reloads) t0 = 0;
    const t1 = await now();
    const watched = await longTasksSince(page, t0, t1);
    const tasks = watched.map((t) => [t.start, t.duration]);
    const max = Math.max(0, ...tasks.map(([, d]) => d));
    const pageMax = Math.max(0, ...watched.map((t) => t.pagePart));
    const sum = tasks.reduce((a, [, d]) => a + d, 0);
    rows.push({ name, wall: (t1 - t0) / 1000, n: tasks.length, max, pageMax, sum });
    console.log(`${name}: ${((t1 - t0) / 1000).toFixed(1)} s, ${tasks.length} long task(s), longest ${max.toFixed(0)} ms, total ${sum.toFixed(0)} ms; the page's longest part of a task ${pageMax.toFixed(0)} ms`);
    if (tasks.length) console.log(`  long tasks (ms into the phase: length): ${tasks.map(([s, d]) => `${(s - t0).toFixed(0)}: ${d.toFixed(0)}`).join(', ')}`);
    for (const { start: s, filesAt: at, pagePart } of watched) {
      if (at !== undefined) console.log(`  the task at ${(s - t0).toFixed(0)}: ${(at - s).toFixed(1)} ms of the browser's handing over the picked files, then ${pagePart.toFixed(1)} ms of the page`);
    }
    const all = timings.splice(0);
    for (const [s, d] of tasks) {
      const inside = all.filter(([, , at]) => at >= s - 1 && at <= s + d);
      if (inside.length) console.log(`  inside the task at ${(s - t0).toFixed(0)}: ${inside.map(([n, ms]) => `${n} ${ms} ms`).join(', ')}`);
    }
    const steps = all.filter(([, ms]) => ms >= 10);
    if (steps.length) console.log(`  steps over 10 ms (ms into the phase): ${steps.map(([s, ms, at]) => `${s} ${ms} ms at ${(at - t0).toFixed(0)}`).join(', ')}`);
  };
  if (!shareOnly) await infotabsPhases();
  await sharePhases();
  const worst = Math.max(...rows.map((r) => r.max));
  const pageWorst = Math.max(...rows.slice(shareOnly ? 0 : 1).map((r) => r.pageMax));
  console.log(`longest main-thread task over all phases: ${worst.toFixed(0)} ms; the page's own longest part of a task${shareOnly ? '' : ', after the comparison phase'}: ${pageWorst.toFixed(0)} ms (goal ≤ 50 ms)`);

  /** Import the dev split, run the row-deletion probe, read the report, reload. */
  async function infotabsPhases() {
    await page.getByTestId('model-input').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json']
      .map((f) => join(testModels, 'tiny-f32', f)));
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
    // For comparison: the browser's own work of taking the files into a file input (the
    // picker's part, before the page sees them), on an input the page does not listen to.
    // Chromium reports a long task only when script ran in it: the capturing listener of
    // `watchLongTasks` (harness.mjs) is that script here, which makes the browser's share
    // visible (without any listener the same task goes unreported).
    await phase(`the browser alone: ${tables.length + 1} files into an input the page ignores`, async () => {
      await page.evaluate(() => {
        const input = Object.assign(document.createElement('input'), { type: 'file', multiple: true, id: 'bench-files' });
        document.body.append(input);
      });
      await page.locator('#bench-files').setInputFiles([tsv, ...tables]);
      await page.evaluate(() => document.getElementById('bench-files').remove());
    });
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
    // The whole report is on screen: built (by the worker) and shown to its last stage.
    const reportShown = async () => {
      await page.locator('[data-testid=run-report][data-report] details.all-tables').first()
        .waitFor({ state: 'attached', timeout: 300_000 });
      await page.waitForTimeout(500);
    };
    await phase(`run and report (${items} items)`, async () => {
      await page.getByTestId('run').click();
      await page.getByTestId('run-report').waitFor({ timeout: 3_600_000 });
      await reportShown();
    });
    await phase('back to the run (the report built again)', async () => {
      await page.getByTestId('nav-runner').click();
      await page.getByTestId('nav-results').click();
      await page.getByTestId('saved-run').first().click();
      await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
      await reportShown();
    });
    await phase('reload on the results (the page starts, the run is read back from IndexedDB)', async () => {
      await page.reload();
      await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
      await reportShown();
    }, { reloads: true });
    // The long lists built a chunk per task are whole in the end.
    const listed = await page.evaluate(() => ({
      longest: Math.max(...[...document.querySelectorAll('[data-testid="report-section"]')]
        .map((s) => s.querySelectorAll('tbody tr').length)),
      options: document.querySelectorAll('[data-testid="evidence-example"] option').length,
    }));
    console.log(`rows of the longest report table: ${listed.longest}; example select options: ${listed.options}`);
  }

  /** Share links and a result file at the share limits and past them, opened one by one. */
  async function sharePhases() {
    const shown = async () => {
      const which = await Promise.race([
        page.getByTestId('shared-result').waitFor({ timeout: 120_000 }).then(() => 'shown'),
        page.getByTestId('share-error-message').waitFor({ timeout: 120_000 }).then(() => 'refused'),
      ]);
      await page.waitForTimeout(500);
      const said = which === 'refused' ? `: ${(await page.getByTestId('share-error-message').innerText()).slice(0, 150)}` : '';
      console.log(`  ${which}${said}`);
    };
    const longest = linkOfMegabytes(15);
    // For comparison: the browser's own work of taking a 15 MB fragment (and the harness's of
    // handing it over), on a page without the app (the server's 404 answer).
    await page.goto(`${server.url}no-app.txt`);
    await phase('the browser alone: a fragment of 15 MB on a page without the app', async () => {
      await page.evaluate((hash) => { window.location.hash = hash; }, `#/share/${longest}`);
      await page.waitForTimeout(500);
    });
    await page.goto(server.url);
    await page.getByTestId('dataset-name').waitFor({ timeout: 60_000 });
    const links = [
      ['the longest link the share limits allow (2 tables of 1,000 rows and 20,000 cells, 960,000 astral characters)', linkOf(largestResult(LEAST_COMPRESSIBLE))],
      ['the link with the most JSON the share limits allow (the same, 960,000 control characters: 5.9 MB of JSON)', linkOf(largestResult(WIDEST))],
      ['a link of 15 MB', longest],
      ['a link of 250,000 tiny rows (6.8 MB of JSON)', linkOf(tinyRows(250_000))],
      ['a link of 560,000 tiny rows (15 MB of JSON)', linkOf(tinyRows(560_000))],
    ];
    for (const [name, link] of links) {
      await page.evaluate(() => { window.location.hash = '#/'; });
      await page.waitForTimeout(300);
      await phase(`share: ${name}, ${link.length} characters`, async () => {
        await page.evaluate((hash) => { window.location.hash = hash; }, `#/share/${link}`);
        await shown();
      });
    }
    const file = JSON.stringify({ format: 'tabprobe-share', version: 1, result: largestResult(WIDEST) }, null, 2);
    await page.evaluate(() => { window.location.hash = '#/share'; });
    await page.getByTestId('result-file').waitFor();
    await phase(`share: the largest result file the share limits allow (${file.length} characters)`, async () => {
      await page.getByTestId('result-file').setInputFiles({ name: 'largest.json', mimeType: 'application/json', buffer: Buffer.from(file) });
      await shown();
    });
  }
} finally {
  await browser.close();
  await server.close();
}
