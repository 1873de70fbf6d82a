// The worker can fail without taking the page down (issue 12 §2, §3): a model whose outputs
// are NaN ends its job with an error naming the model and the pair; a worker that panics is
// replaced, the models are marked unloaded and can be reloaded, nothing else is lost; a
// checkpoint server that lies (length, never-ending body, HTML, 404, 500) gives errors naming
// the file and URL, and nothing of it is cached; a two-model run cancelled during the second
// model opens in the evidence view, with the examples it lacks shown as "not run".
// Fixtures: tests/fixtures/hostile/ (README there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openSite, openPage, snap, fixtures, routeManifest } from './harness.mjs';

const root = join(fixtures, '..', '..');
const goldenDir = join(root, 'crates', 'model', 'tests', 'golden');
const hostileDir = join(fixtures, 'hostile');
const checkpoint = (dir) => ['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(dir, f));
// The golden variants share tiny-f32's tokenizer.
const golden = (name) => [...checkpoint(join(goldenDir, name)).slice(0, 2), join(goldenDir, 'tiny-f32', 'tokenizer.json')];
const hostile = (name) => checkpoint(join(hostileDir, name));

/** Console errors a test provokes on purpose: failed downloads, the worker's panic log. */
const EXPECTED = /Failed to load resource|net::ERR_|tabprobe_test_panic|unreachable|panicked|RuntimeError/;
const unexpected = (errors) => errors.filter((e) => e.startsWith('pageerror') || !EXPECTED.test(e));

const { server, browser } = await openSite();

async function openDemo(options) {
  const opened = await openPage(browser, server.url, options);
  await opened.page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  return opened;
}

async function toRunner(page) {
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
}

/** Keeps only the `keep` split checked. */
async function onlySplit(page, keep) {
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === keep)) await box.click();
  }
}

/** Picks tiny-f32 as the main model and the checkpoint folder `second` as the second one,
 *  and waits for both to load. */
async function loadTwoModels(page, second) {
  await page.getByTestId('model-input').setInputFiles(golden('tiny-f32'));
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  await page.getByTestId('model2-input').setInputFiles(second);
  await page.getByTestId('model2-name').waitFor({ timeout: 120_000 });
}

async function datasetStillThere(page) {
  await page.goto(`${server.url}#/`);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
}

test('a model with NaN outputs: the run stops with an error naming the model and the pair; the other model\'s run is kept', async () => {
  const { page, errors } = await openDemo();
  await toRunner(page);
  await loadTwoModels(page, hostile('nan-model'));
  await onlySplit(page, 'paper');
  await page.getByTestId('run').click();
  const error = page.getByTestId('run-error');
  await error.waitFor({ timeout: 180_000 });
  const text = await error.innerText();
  assert.match(text, /gave non-finite outputs \(logits \[NaN, NaN, NaN\]\)/);
  assert.match(text, /pair 1 \((example|item) [^,]+, hypothesis "/);
  const [, id] = text.match(/saved as (run-\d+-[0-9a-z]{12})/);
  await snap(page, '70-nan-model-error');
  // The main model's run is saved and opens.
  await page.goto(`${server.url}#/results/${id}`);
  await page.getByTestId('run-report').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('result-model').count(), 1);

  await datasetStillThere(page);
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});

test('a worker that panics: the page says so, unloads the models, starts a fresh worker, reloads the bundled one; the dataset and an unsaved edit stay', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await routeManifest(page, [{ id: 'tiny-second', name: 'Tiny second', path: '/test-models/tiny-f32/', role: 'second', card: 'fixture' }]);
  await page.goto(server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await page.getByTestId('load-bundled-second').click();
  await page.getByTestId('model2-name').waitFor({ timeout: 120_000 });
  // An unsaved edit in the table editor.
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  await page.getByTestId('hypothesis').filter({ hasText: 'paper-H2' }).getByTestId('edit-table').click();
  await page.getByTestId('editor').waitFor();
  const released = page.getByTestId('row-editor').nth(0).getByTestId('value-input').first();
  await released.fill('29 December 1979');
  // The panic model: loading works, the editor's live prediction scores with it, it panics.
  await page.getByTestId('model-input').setInputFiles(hostile('panic-model'));
  const notice = page.getByTestId('worker-crash');
  await notice.waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId('worker-crash-message').innerText(), /model worker crashed: .*tabprobe_test_panic/s);
  assert.equal(await page.getByTestId('model-name').count(), 0, 'main model unloaded');
  assert.equal(await page.getByTestId('model2-name').count(), 0, 'second model unloaded');
  const lost = await page.getByTestId('worker-lost-model').allInnerTexts();
  assert.equal(lost.length, 2);
  assert.match(lost.find((l) => l.startsWith('model ')), /picked files: pick them again/);
  assert.match(lost.find((l) => l.startsWith('second model')), /reloadable from the site's bundled models/);
  for (let t = 0; t < 300 && workers.length < 2; t++) await page.waitForTimeout(100);
  assert.ok(workers.length >= 2, `a fresh worker was started (${workers.length} workers)`);
  // The edit and the dataset are still there.
  assert.equal(await released.inputValue(), '29 December 1979');
  await snap(page, '71-worker-crashed');
  // Reload: the bundled model comes back in the fresh worker (from the browser cache).
  await page.getByTestId('worker-reload').click();
  await page.getByTestId('model2-name').waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('worker-lost-model').count(), 1, 'only the picked model is still lost');
  assert.equal(await page.getByTestId('worker-reload').count(), 0);
  // The fresh worker scores: the main model loaded again by URL gives the editor a prediction.
  await page.getByTestId('model-url').fill(`${server.url}test-models/tiny-f32/`);
  await page.getByTestId('model-url-load').click();
  await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 120_000 });
  await page.locator('[data-testid=score-after][data-state=done]').waitFor({ timeout: 60_000 });
  assert.equal(await released.inputValue(), '29 December 1979');
  await datasetStillThere(page);
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});

test('a checkpoint server that lies: each answer is an error naming the file and URL, nothing of it is cached', async () => {
  const { page, errors } = await openDemo();
  const load = async (url) => {
    await page.getByTestId('model-url').fill(url);
    await page.getByTestId('model-url-load').click();
  };
  const failsWith = async (mode, pattern, timeout = 60_000) => {
    await load(`${server.url}hostile/${mode}/`);
    const error = page.getByTestId('model-error');
    await page.waitForFunction((u) => {
      const e = document.querySelector('[data-testid="model-error"]');
      return e && e.textContent.includes(u);
    }, `hostile/${mode}/`, { timeout, polling: 100 });
    const text = await error.innerText();
    assert.match(text, pattern, mode);
    assert.ok(text.includes(`${server.url}hostile/${mode}/`), `${mode}: names the URL: ${text}`);
    return text;
  };
  await failsWith('huge-length', /model\.safetensors .*announces 4\.00 GB; a model\.safetensors is at most 2\.15 GB in a browser tab/);
  await failsWith('truncated', /model\.safetensors .*(truncated|failed)/);
  await failsWith('html', /config\.json .*is an HTML page, not JSON/);
  await failsWith('not-found', /config\.json was not found \(404\)/);
  await failsWith('status-500', /model\.safetensors .*answered 500/);
  await failsWith('never-ends', /model\.safetensors .*stalled \(no data for 20 s/, 90_000);
  // The user can cancel a download that hangs.
  await load(`${server.url}hostile/never-ends/`);
  await page.getByTestId('model-cancel-load').click();
  await page.getByTestId('model-error').filter({ hasText: 'loading cancelled' }).waitFor();
  // Only http: and https: URLs.
  await load('file:///etc/');
  await page.getByTestId('model-error').filter({ hasText: 'only http: and https: URLs' }).waitFor();
  await snap(page, '72-url-lies');
  // Nothing hostile in the cache but the honest config.json files.
  const cached = await page.evaluate(async () => (await (await caches.open('tabprobe-models-v1')).keys()).map((r) => r.url));
  const bad = cached.filter((u) => u.includes('/hostile/') && (u.endsWith('model.safetensors') || u.includes('/html/')));
  assert.deepEqual(bad, []);
  // The page still works: a real checkpoint loads.
  await load(`${server.url}test-models/tiny-f32/`);
  await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 120_000 });
  await datasetStillThere(page);
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});

test('a two-model run cancelled during the second model: the evidence view opens, the examples it lacks are "not run"', async () => {
  const { page, errors } = await openDemo();
  await toRunner(page);
  await loadTwoModels(page, golden('tiny-f16'));
  await onlySplit(page, 'dev');
  await page.getByTestId('run').click();
  await page.getByText(/\(model 2 of 2\)/).waitFor({ timeout: 300_000 });
  const count = async () => Number((await page.getByTestId('progress-count').innerText()).split(' ')[0]);
  const atSecond = await count();
  await page.waitForFunction((n) => {
    const t = document.querySelector('[data-testid="progress-count"]')?.textContent ?? '';
    return Number(t.split(' ')[0]) > n + 40;
  }, atSecond, { timeout: 120_000 });
  await page.getByTestId('cancel').click();
  await page.getByTestId('run-report').waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('result-model').count(), 2);
  const view = page.getByTestId('evidence-view');
  await view.waitFor();
  // Every example of the main run opens; some were never run by the cancelled second model.
  const options = await page.getByTestId('evidence-example').locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(options.length > 1);
  let notRun = 0;
  for (const value of options) {
    await page.getByTestId('evidence-example').selectOption(value);
    await page.getByTestId('evidence-table').waitFor();
    notRun += (await page.getByTestId('evidence-not-run').count()) > 0 ? 1 : 0;
  }
  // No page error while opening them (a position past the shorter run used to panic).
  assert.deepEqual(unexpected(errors), []);
  assert.ok(notRun > 0, 'some examples are "not run" by the second model');
  await snap(page, '73-evidence-partial-second');
  await datasetStillThere(page);
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});
