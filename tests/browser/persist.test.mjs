// The work survives (issue 12 §1) and saved runs are data (§3): the working dataset with a
// hand-made item, an evidence annotation and a review decision, and the editor's and
// rewriter's unsaved drafts, are kept in IndexedDB and restored after navigation and a reload
// with a "restored from this browser" note, until discarded; the demo arriving late never
// replaces a dataset the user loaded; a dataset holding work is never replaced without the
// import summary; a saved run that does not read shows an error panel with "delete this run";
// a save the browser refuses (quota) says so and keeps the run with a download button.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, openPage, snap, fixtures } from './harness.mjs';

const root = join(fixtures, '..', '..');
const goldenDir = join(root, 'crates', 'model', 'tests', 'golden');
const hostile = join(fixtures, 'hostile');

const { server, browser } = await openSite();

const demoLoaded = (page) => page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();

/** Opens a Breakfast in America hypothesis with the given button (`edit-table` / `rewrite`). */
async function openItem(page, id, button) {
  await page.goto(`${server.url}#/`);
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  await page.getByTestId('hypothesis').filter({ hasText: id }).getByTestId(button).click();
}

/** Waits until every change is written to the browser's storage. */
async function kept(page) {
  await page.waitForTimeout(100);
  // (A build without the status line: give its writes, if any, time instead.)
  if (await page.getByTestId('kept-status').count() === 0) return page.waitForTimeout(1000);
  await page.locator('[data-testid=kept-status][data-state=saved]').waitFor({ state: 'attached' });
}

/** The loaded dataset as its "Export JSON" button writes it. */
async function exported(page) {
  await page.goto(`${server.url}#/`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  return JSON.parse(await readFile(await download.path(), 'utf8'));
}

/** Writes `text` under `key` in object store `store` of the page's database. */
async function idbPut(page, store, key, text) {
  await page.evaluate(([store, key, text]) => new Promise((resolve, reject) => {
    const open = indexedDB.open('tabprobe');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction(store, 'readwrite');
      tx.objectStore(store).put(text, key);
      tx.oncomplete = () => { open.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  }), [store, key, text]);
}

test('hand-made item, annotation, review and drafts survive navigation and a reload; discard goes back to the demo', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoLoaded(page);
  await kept(page);
  assert.equal(await page.getByTestId('restored-note').count(), 0, 'nothing is restored in a fresh browser');
  // A review decision: accepting a suggestion on a dataset example as it stands.
  await openItem(page, 'paper-H1', 'rewrite');
  const negation = page.locator('[data-testid=suggestion][data-probe=negation]');
  await negation.getByTestId('suggestion-accept').click();
  await negation.getByTestId('suggestion-accepted').waitFor();
  // An annotation and a hand-made item, from the table editor on train-5910.
  await openItem(page, 'train-5910', 'edit-table');
  await page.getByTestId('row-editor').nth(0).getByTestId('relevant-toggle').check();
  await page.getByTestId('save-evidence').click();
  assert.match(await page.getByTestId('evidence-current').innerText(), /^annotated: \S.* \(row 1\)$/);
  await page.getByTestId('title-input').fill('Breakfast in America (hand edit)');
  await page.getByTestId('assert-neutral').check();
  await page.getByTestId('save-item').click();
  assert.match(await page.getByTestId('saved').innerText(), /^Saved as train-5910~hand1 /);
  // An unsaved draft: it survives going to the results, to a share link, and back.
  await page.getByTestId('title-input').fill('Breakfast in America (draft)');
  await page.getByTestId('row-editor').nth(1).getByTestId('relevant-toggle').check();
  await page.getByTestId('nav-results').click();
  await page.getByTestId('results').waitFor();
  await page.getByTestId('nav-share').click();
  await page.getByTestId('nav-editor').click();
  assert.equal(await page.getByTestId('title-input').inputValue(), 'Breakfast in America (draft)');
  // The rewriter's unsaved draft on the same item.
  await page.getByTestId('nav-rewriter').click();
  await page.getByTestId('hypothesis-input').fill('A draft rewrite nobody saved.');
  await page.getByTestId('assert-contradict').check();
  await page.getByTestId('nav-editor').click();
  await page.getByTestId('nav-rewriter').click();
  assert.equal(await page.getByTestId('hypothesis-input').inputValue(), 'A draft rewrite nobody saved.');
  await kept(page);

  // Reload (a crash loses the page the same way): everything is back, with the note.
  await page.reload();
  await page.getByTestId('restored-note').waitFor();
  assert.match(await page.getByTestId('restored-note').innerText(), /^Restored from this browser \(\d\d\/\d\d\/\d{4}, \d\d:\d\d:\d\d\): demo\/dataset\.json/);
  await demoLoaded(page);
  await page.getByTestId('nav-rewriter').click();
  assert.equal(await page.getByTestId('hypothesis-input').inputValue(), 'A draft rewrite nobody saved.');
  assert.equal(await page.getByTestId('assert-contradict').isChecked(), true);
  await page.getByTestId('nav-editor').click();
  assert.equal(await page.getByTestId('title-input').inputValue(), 'Breakfast in America (draft)');
  assert.deepEqual((await page.getByTestId('relevant-toggle').evaluateAll((els) => els.map((e) => e.checked))).slice(0, 2), [true, true]);
  assert.match(await page.getByTestId('evidence-current').innerText(), /^annotated: \S.* \(row 1\)$/);
  await snap(page, '60-restored-editor-draft');
  const data = await exported(page);
  assert.ok(data.examples.some((e) => e.id === 'train-5910~hand1'), 'the hand-made item is back');
  assert.deepEqual(data.examples.find((e) => e.id === 'train-5910').relevant_rows, [0]);
  const review = data.reviews.find((r) => r.item === 'paper-H1/negation/0');
  assert.deepEqual([review?.decision, review?.label], ['accept', 'CONTRADICT']);
  await page.getByTestId('restored-note').waitFor();
  await snap(page, '61-restored-note');

  // Discard: back to the demo as shipped, and nothing is restored after the next reload.
  await page.getByTestId('discard-kept').click();
  await page.getByTestId('restored-note').waitFor({ state: 'detached' });
  await demoLoaded(page);
  await kept(page);
  const fresh = await exported(page);
  assert.equal(fresh.reviews?.length ?? 0, 0);
  assert.ok(!fresh.examples.some((e) => e.id === 'train-5910~hand1'));
  await page.reload();
  await demoLoaded(page);
  assert.equal(await page.getByTestId('restored-note').count(), 0);
  await page.getByTestId('nav-editor').click();
  await page.getByTestId('no-work-item').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('an editor draft restored before the demo arrives can still save its marks as the example\'s evidence', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoLoaded(page);
  await openItem(page, 'paper-H1', 'edit-table');
  // Non-ASCII text in the draft, and a mark the annotation does not have.
  await page.getByTestId('row-editor').nth(0).getByTestId('value-input').first().fill('İstanbul K ß 🎸 1979');
  await page.getByTestId('row-editor').nth(0).getByTestId('relevant-toggle').check();
  await kept(page);
  // The untouched demo is not kept: after the reload the draft is back before the demo is.
  await page.reload();
  await demoLoaded(page);
  await page.getByTestId('row-editor').first().waitFor();
  assert.equal(await page.getByTestId('row-editor').nth(0).getByTestId('value-input').first().inputValue(), 'İstanbul K ß 🎸 1979');
  const save = page.getByTestId('save-evidence');
  assert.equal(await save.isEnabled(), true, 'the example\'s own table: its marks can be saved');
  await save.click();
  await page.getByTestId('evidence-saved').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('the demo arriving late never replaces a dataset the user loaded; that dataset is kept', async () => {
  const page = await browser.newPage();
  await page.route('**/models/index.json', (r) => r.fulfill({ status: 404, body: 'none' }));
  let demoServed;
  const demoDone = new Promise((resolve) => { demoServed = resolve; });
  await page.route('**/demo/dataset.json', async (route) => {
    await new Promise((r) => setTimeout(r, 2500));
    await route.continue();
    demoServed();
  });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.getByTestId('file-input').setInputFiles(join(fixtures, 'small-dataset.json'));
  await page.getByTestId('dataset-name').filter({ hasText: 'small-dataset.json' }).waitFor();
  await demoDone;
  await page.waitForTimeout(500);
  assert.match(await page.getByTestId('dataset-name').innerText(), /small-dataset\.json/);
  await kept(page);
  await page.reload();
  await page.getByTestId('restored-note').waitFor();
  assert.match(await page.getByTestId('dataset-name').innerText(), /Uploaded sample — small-dataset\.json/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a dataset holding work is not replaced by a picked or dropped file without the summary', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoLoaded(page);
  await openItem(page, 'train-5910', 'edit-table');
  await page.getByTestId('row-editor').nth(0).getByTestId('relevant-toggle').check();
  await page.getByTestId('save-evidence').click();
  // Picking a dataset JSON: the summary asks, and Cancel keeps the work.
  await page.getByTestId('file-input').setInputFiles(join(fixtures, 'small-dataset.json'));
  await page.getByTestId('import-summary').waitFor();
  assert.match(await page.getByTestId('import-holds-work').innerText(), /holds work done in this page/);
  await snap(page, '62-replace-dialog');
  await page.getByTestId('import-cancel').click();
  assert.match(await page.getByTestId('dataset-name').innerText(), /INFOTABS demo/);
  assert.match(await page.getByTestId('evidence-current').innerText(), /^annotated: \S.* \(row 1\)$/);
  // Dropping one: the same summary; Replace loads it.
  const body = await readFile(join(fixtures, 'small-dataset.json'), 'utf8');
  await page.evaluate((content) => {
    const dt = new DataTransfer();
    dt.items.add(new File([content], 'dropped.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, body);
  await page.getByTestId('import-summary').waitFor();
  await page.getByTestId('import-accept').click();
  await page.getByTestId('dataset-name').filter({ hasText: 'dropped.json' }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a saved run that does not read shows an error panel and can be deleted; empty and unlisted entries too', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoLoaded(page);
  await kept(page);
  const truncated = await readFile(join(hostile, 'saved-run-truncated.json'), 'utf8');
  const empty = await readFile(join(hostile, 'saved-run-empty.json'), 'utf8');
  const meta = (id, ms) => JSON.stringify({ id, created_ms: ms, dataset: 'demo/dataset.json', probes: ['row_deletion'], models: ['tiny-f32'], items: 3, cancelled: false });
  await idbPut(page, 'runs', 'run-1', truncated);
  await idbPut(page, 'meta', 'run-1', meta('run-1', 1700000000000));
  await idbPut(page, 'meta', 'run-2', 'not JSON at all');
  await idbPut(page, 'runs', 'run-3', empty);
  await idbPut(page, 'meta', 'run-3', meta('run-3', 1700000300000));
  await page.getByTestId('nav-results').click();
  await page.getByTestId('saved-run').nth(2).waitFor();
  assert.equal(await page.getByTestId('saved-run').count(), 3, 'an unreadable list entry is listed, to be deleted');
  // The truncated run: an error panel naming the run and place, with "delete this run".
  await page.goto(`${server.url}#/results/run-1`);
  const panel = page.getByTestId('results-error');
  await panel.waitFor();
  assert.match(await panel.innerText(), /saved run run-1: line 1, column \d+: not a saved run/);
  await snap(page, '63-broken-saved-run');
  await page.getByTestId('delete-broken-run').click();
  await page.waitForURL(/#\/results$/);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=saved-run]').length === 2);
  // The empty run: refused with a reason, deletable.
  await page.goto(`${server.url}#/results/run-3`);
  assert.match(await panel.innerText(), /saved run run-3: \$\.results is empty: it holds no run file/);
  await page.getByTestId('delete-broken-run').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=saved-run]').length === 1);
  // The unreadable list entry: no run under it; its delete button removes it.
  assert.match(await page.getByTestId('saved-run').innerText(), /unreadable entry/);
  await page.getByTestId('delete-run').click();
  await page.getByTestId('no-results').waitFor();
  // A run stored as the page stores runs (list entry, piece lengths, a Blob of the pieces)
  // whose first piece is not a run's head: the panel names the run and the piece.
  await page.evaluate((meta) => new Promise((resolve, reject) => {
    const open = indexedDB.open('tabprobe');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction(['runs', 'meta'], 'readwrite');
      const piece = '{"Items":[]}';
      tx.objectStore('runs').put([meta, `[${piece.length}]`, new Blob([piece])], 'run-4');
      tx.objectStore('meta').put(meta, 'run-4');
      tx.oncomplete = () => { open.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  }), meta('run-4', 1700000400000));
  await page.goto(`${server.url}#/results/run-4`);
  await panel.waitFor();
  assert.match(await panel.innerText(), /saved run run-4, piece 0: expected the head of a run first/);
  await page.getByTestId('delete-broken-run').click();
  await page.getByTestId('no-results').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a save the browser refuses (quota) says so and keeps the run, with a download', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoLoaded(page);
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  await page.getByTestId('model-input').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(goldenDir, 'tiny-f32', f)));
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'paper')) await box.click();
  }
  // From now on the browser's storage is full.
  await page.evaluate(() => {
    IDBObjectStore.prototype.put = function put() {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  });
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 180_000 });
  assert.match(await page.getByTestId('storage-error').innerText(), /storage for this site is full \(QuotaExceededError.*the run is NOT saved/s);
  await snap(page, '64-run-not-saved-quota');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-unsaved').first().click()]);
  const run = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.equal(run.format, 'tabprobe-run');
  assert.ok(run.items.length > 0);
  // Nothing was listed as saved.
  await page.getByTestId('saved-run').first().waitFor({ state: 'detached', timeout: 1000 }).catch(() => {});
  assert.equal(await page.getByTestId('saved-run').count(), 0);
  // A run file with no items or pairs (checked like a file, then shown without a crash).
  const hollow = { ...run, examples: [], items: [], pairs: [], hypothesis_only_pairs: [], skipped: [] };
  await page.reload();
  await demoLoaded(page);
  await idbPut(page, 'runs', 'run-9', JSON.stringify({ meta: { id: 'run-9', created_ms: 1, dataset: 'x', probes: [], models: ['m'], items: 0, cancelled: false }, results: [hollow] }));
  await page.goto(`${server.url}#/results/run-9`);
  await page.locator('[data-testid=run-report], [data-testid=results-error]').first().waitFor();
  // A run saved as one JSON text has no stored pieces: the page writes them and the worker
  // still builds its report.
  if (await page.getByTestId('run-report').count()) {
    await page.locator('[data-testid=run-report][data-report=worker]').waitFor({ timeout: 60_000 });
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a storage upgrade blocked by an old tab is reported, not waited on forever', async () => {
  const context = await browser.newContext();
  await context.route('**/models/index.json', (r) => r.fulfill({ status: 404, body: 'none' }));
  // An "old tab": version 1 of the database, held open and never closed on request.
  const old = await context.newPage();
  await old.goto(`${server.url}old-tab.txt`);
  await old.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('tabprobe', 1);
    open.onupgradeneeded = () => { open.result.createObjectStore('meta'); open.result.createObjectStore('runs'); };
    open.onsuccess = () => { window.keep = open.result; resolve(); };
    open.onerror = () => reject(open.error);
  }));
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  const note = page.getByTestId('kept-error').first();
  await note.waitFor();
  assert.match(await note.innerText(), /another tabprobe tab keeps an older version of this site's storage open; close or reload the other tabs/);
  await snap(page, '65-storage-blocked');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a kept dataset that no longer validates is shown with its problems, downloadable, and only dropped on discard', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoLoaded(page);
  await kept(page);
  const broken = await readFile(join(fixtures, 'broken-dataset.json'), 'utf8');
  await idbPut(page, 'work', 'dataset', JSON.stringify({ saved_ms: Date.now(), file: 'mine.json', edited: true, dataset: broken }));
  await page.reload();
  const panel = page.getByTestId('kept-invalid');
  await panel.waitFor();
  assert.match(await panel.innerText(), /The dataset kept in this browser \(mine\.json, saved .*\) cannot be loaded/);
  await page.getByTestId('problems').waitFor();
  assert.equal(await page.getByTestId('dataset-name').innerText(), '', 'the demo does not take its place');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('kept-download').click()]);
  assert.equal(await readFile(await download.path(), 'utf8'), broken);
  await snap(page, '66-kept-dataset-invalid');
  // Still there after another reload: nothing dropped it silently.
  await page.reload();
  await panel.waitFor();
  await page.getByTestId('discard-kept').click();
  await demoLoaded(page);
  assert.equal(await panel.count(), 0);
  assert.deepEqual(errors.filter((e) => !e.includes('Failed to load resource')), []);
  await page.close();
});
