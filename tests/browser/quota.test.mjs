// Storage that runs out (issue 47, item 6): with the origin's quota set below what it uses
// (Chrome's debugging protocol, Storage.overrideQuotaForOrigin), editing, finishing a run and
// loading a model from a URL say what could not be kept; what was kept before stays kept, and nothing half-written
// is left: after a reload the dataset is the version kept before the quota ran out, no run is
// half-saved and no run in progress is offered with scores missing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launchProfile, routeManifest, snap } from './harness.mjs';
import { annotate, editTable, exported, kept, saveItem, startRun } from './work.mjs';

const server = await serveDist();
const profile = await mkdtemp(join(tmpdir(), 'tabprobe-quota-'));
after(async () => {
  await server.close();
  await rm(profile, { recursive: true, force: true });
});
const tiny = [{ id: 'tiny-f32', name: 'Tiny f32', path: '/test-models/tiny-f32/', role: 'default', card: 'fixture' }];

test('a storage quota too small for the work says what is not kept and keeps what was', async () => {
  // 1. With room: an annotation is kept. The browser then closes.
  let browser = await launchProfile(profile);
  let page = await browser.newPage();
  await routeManifest(browser, tiny);
  await page.goto(server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await editTable(page, server.url, 'paper-H1');
  await annotate(page, 1);
  await kept(page);
  assert.equal(await page.getByTestId('kept-error').count(), 0);
  const { usage } = await page.evaluate(() => navigator.storage.estimate());
  await browser.close();

  // 2. The same profile with the origin's quota set below what it uses (Chrome's debugging
  // protocol; set before the page opens, since Chrome checks writes against the room it
  // measured when the origin's storage was first written in the browser's life).
  browser = await launchProfile(profile);
  page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await routeManifest(browser, tiny);
  const cdp = await browser.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(server.url).origin, quotaSize: Math.floor(usage / 2) });
  await page.goto(server.url);
  await page.getByTestId('restored-note').waitFor();
  // Editing: a hand-made item cannot be kept, and the page says so and what is kept instead.
  await editTable(page, server.url, 'train-5910');
  const item = await saveItem(page, 'Breakfast in America (not kept)');
  // (The drafts cannot be kept either, and say so on their own line.)
  const said = await page.getByTestId('kept-error').filter({ hasText: 'cannot keep the working dataset' }).innerText({ timeout: 10_000 });
  assert.match(said, /Your work is not kept in this browser: browser storage \(IndexedDB\): cannot keep the working dataset: the browser's storage for this site is full \(QuotaExceededError/);
  assert.match(said, /The version of the dataset kept before this change is still kept: a reload brings that version back/);
  assert.equal(await page.locator('[data-testid=kept-status][data-state=failed]').count(), 1, 'the header says "not kept"');
  await snap(page, '102-quota-edit-not-kept');

  // Finishing a run: its scores are not kept as it runs, and the finished run is not saved;
  // it stays open with its run file to download.
  await startRun(page);
  await page.getByTestId('run-report').waitFor({ timeout: 180_000 });
  assert.match(await page.getByTestId('storage-error').innerText(), /storage for this site is full \(QuotaExceededError.*the run is NOT saved/s);
  await page.getByTestId('download-unsaved').first().waitFor();
  await snap(page, '103-quota-run-not-saved');

  // Loading: a model from a URL loads, but the browser's cache cannot keep its files; the
  // model bar says which, and that the next load downloads them again.
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('model-url').fill(`${server.url}test-models/families/bert/`);
  await page.getByTestId('model-url-load').click();
  const note = page.getByTestId('model-note');
  await note.waitFor({ timeout: 60_000 });
  assert.match(await note.innerText(), /^bert is loaded, but the browser's cache did not keep config\.json \(the browser's storage for this site is full\); model\.safetensors \(.*\); tokenizer\.json \(.*\); the next load downloads them again$/);
  await page.getByTestId('model-name').filter({ hasText: 'bert' }).waitFor();

  // After a reload: the dataset kept before (the annotation, not the item), no saved run, no
  // run in progress to resume — nothing half-written.
  await page.reload();
  await page.getByTestId('restored-note').waitFor();
  const data = await exported(page, server.url);
  assert.deepEqual(data.examples.find((e) => e.id === 'paper-H1').relevant_rows, [1], 'the annotation kept before the quota ran out');
  assert.ok(!data.examples.some((e) => e.id === item), `${item} was never kept`);
  assert.equal(await page.getByTestId('kept-invalid').count(), 0);
  await page.getByTestId('nav-results').click();
  await page.getByTestId('results').waitFor();
  assert.equal(await page.getByTestId('saved-run').count(), 0, 'no run saved in part');
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  await page.waitForTimeout(1000);
  assert.equal(await page.getByTestId('run-interrupted').count(), 0, 'no run in progress left behind');
  assert.deepEqual(errors, []);
  await browser.close();
});
