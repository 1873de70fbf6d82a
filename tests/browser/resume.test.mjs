// A run in progress survives a reload (issue 36, item 5): the page keeps the scores of a run
// in IndexedDB as they come (src/run_keep.rs); after a reload mid-run the runner offers to
// resume it, the worker scores only the rest, and the finished run file is byte-identical to
// the one an uninterrupted run of the same form writes. Discarding a kept run removes it. A
// worker that crashes mid-run leaves what was scored kept and offered the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, snap, routeManifest, fixtures } from './harness.mjs';

const { server, browser } = await openSite();

/** A page whose bundled default model is the tiny golden checkpoint, loaded by itself on
 *  every (re)load, as the demo model is on the real site. */
async function openWithTinyDefault() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await routeManifest(page, [{ id: 'tiny-f32', name: 'Tiny f32', path: '/test-models/tiny-f32/', role: 'default', card: 'fixture' }]);
  await page.goto(server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  return { page, errors };
}

async function toRunner(page) {
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 120_000 });
}

/** The form of both runs: the dev split, row deletion and row permutation (k = 5). */
async function setForm(page) {
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'dev')) await box.click();
  }
  const perm = page.getByTestId('probe-row_permutation');
  if (!(await perm.isChecked())) await perm.click();
  await page.getByTestId('count-passes').waitFor();
  return Number(await page.getByTestId('count-passes').innerText());
}

/** The run file of the main model, as its bytes. */
async function runFileText(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-json').first().click(),
  ]);
  return readFile(await download.path(), 'utf8');
}

const keptCount = async (page) =>
  Number(((await page.getByTestId('run-kept').textContent().catch(() => '')) ?? '').split(' ')[0]) || 0;

test('a run interrupted by a reload resumes where it was kept; the run file is byte-identical to an uninterrupted one', async () => {
  const { page, errors } = await openWithTinyDefault();
  await toRunner(page);
  const total = await setForm(page);
  assert.ok(total > 1000, `${total} forward passes: enough to reload in the middle`);

  // 1. The reference: the same form, uninterrupted.
  let t0 = Date.now();
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
  const reference = await runFileText(page);
  console.log(`# uninterrupted run: ${total} forward passes in ${Date.now() - t0} ms`);
  // A finished run keeps nothing to resume.
  await toRunner(page);
  assert.equal(await page.getByTestId('run-interrupted').count(), 0);

  // 2. The same run, reloaded once a third of its scores are kept.
  await page.getByTestId('run').click();
  await page.waitForFunction((third) => {
    const t = document.querySelector('[data-testid="run-kept"]')?.textContent ?? '';
    return Number(t.split(' ')[0]) >= third;
  }, Math.ceil(total / 3), { timeout: 120_000 });
  const keptBefore = await keptCount(page);
  const doneText = await page.getByTestId('progress-count').textContent();
  const doneBefore = Number(doneText.split(' ')[0]);
  assert.ok(doneBefore < total, `the run finished before the reload (${doneText}): make it longer`);
  await snap(page, '95-run-kept-before-reload');
  await page.reload();

  // 3. After the reload: the runner offers the kept run; resuming scores only the rest.
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await toRunner(page);
  const notice = page.getByTestId('run-interrupted');
  await notice.waitFor({ timeout: 30_000 });
  const text = await notice.innerText();
  assert.match(text, /A run was interrupted/);
  const [, keptNow, of] = text.match(/tiny-f32 (\d+) of (\d+) pairs/).map(Number);
  assert.equal(of, total);
  assert.ok(keptNow >= keptBefore && keptNow < total, `kept ${keptNow} (${keptBefore} when reloaded) of ${total}`);
  await snap(page, '96-run-interrupted');
  const resume = page.getByTestId('resume-run');
  await page.waitForFunction(() => !document.querySelector('[data-testid="resume-run"]')?.disabled, null, { timeout: 60_000 });
  // Every progress line the resumed run shows (issue 47, item 4: its rate counts only the
  // pairs scored since the resume, and it shows a time left).
  await page.evaluate(() => {
    window.__progress = [];
    const text = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    new MutationObserver(() => {
      if (text('progress-count') !== null) {
        window.__progress.push({ count: text('progress-count'), rate: text('progress-rate'), remaining: text('progress-remaining') });
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  t0 = Date.now();
  await resume.click();
  await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
  const resumedMs = Date.now() - t0;
  console.log(`# resumed run: ${total - keptNow} of ${total} forward passes in ${resumedMs} ms`);
  const shown = await page.evaluate(() => window.__progress);
  const rates = shown.map((p) => p.rate).filter(Boolean).map((r) => Number(r.replace(' pairs/s', '')));
  const newRate = (total - keptNow) / (resumedMs / 1000);
  console.log(`# resumed run's rates shown: first ${rates.slice(0, 4).join(', ')} … highest ${Math.max(...rates)} pairs/s; its pairs over its time ${newRate.toFixed(1)} pairs/s; ${shown.length} progress lines`);
  assert.ok(rates.length > 0, 'a rate was shown');
  assert.ok(Math.max(...rates) < 3 * newRate, `no rate counts the kept pairs as scored now: ${Math.max(...rates)} against ${newRate.toFixed(1)} pairs/s`);
  assert.ok(shown.some((p) => /\d/.test(p.remaining ?? '')), `a time left was shown: ${JSON.stringify(shown.slice(0, 5))}`);
  const resumed = await runFileText(page);
  assert.equal(resumed.length, reference.length, 'same length as the uninterrupted run file');
  assert.ok(resumed === reference, 'the resumed run file is byte-identical to the uninterrupted one');
  await page.getByTestId('nav-runner').click();
  assert.equal((await page.getByTestId('run-resumed').innerText()).trim(),
    `Resumed: ${keptNow} of them were scored before the interruption and kept.`);
  assert.equal(await page.getByTestId('run-interrupted').count(), 0, 'nothing kept once it finished');
  await snap(page, '97-run-resumed');

  // 4. Discard: a run interrupted again, then discarded, is gone after a reload too.
  await page.getByTestId('run').click();
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid="run-kept"]')?.textContent ?? '';
    return Number(t.split(' ')[0]) > 0;
  }, null, { timeout: 120_000 });
  await page.reload();
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('run-interrupted').waitFor({ timeout: 30_000 });
  await page.getByTestId('discard-run').click();
  await page.getByTestId('run-interrupted').waitFor({ state: 'detached' });
  await page.reload();
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  await page.waitForTimeout(1000);
  assert.equal(await page.getByTestId('run-interrupted').count(), 0, 'discarded for good');
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
  await page.close();
});

test('a worker crash during a run keeps what was scored and offers it for resuming', async () => {
  const { page, errors } = await openWithTinyDefault();
  await toRunner(page);
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'paper')) await box.click();
  }
  // The second model panics in the worker when it scores (tests/fixtures/hostile/panic-model):
  // the main model's run finishes, then the worker dies during the second model's.
  const hostile = join(fixtures, 'hostile', 'panic-model');
  await page.getByTestId('model2-input').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(hostile, f)));
  await page.getByTestId('model2-name').waitFor({ timeout: 120_000 });
  await page.getByTestId('count-passes').waitFor();
  await page.getByTestId('run').click();
  const error = page.getByTestId('run-error');
  await error.waitFor({ timeout: 180_000 });
  assert.match(await error.innerText(), /model worker crashed: .*tabprobe_test_panic.*the (\d+) pairs scored so far are kept in this browser/s);
  const notice = page.getByTestId('run-interrupted');
  await notice.waitFor();
  const text = await notice.innerText();
  // The main model's whole run is kept; the second model's, not begun.
  const [, kept, of] = text.match(/tiny-f32 (\d+) of (\d+) pairs/).map(Number);
  assert.equal(kept, of, text);
  assert.match(text, /, \S+ 0 (of \d+ )?pairs/, 'the second model (picked files: named "model") kept nothing');
  // The crash unloaded the models: resuming asks for them back.
  await page.getByTestId('resume-needs').waitFor();
  assert.match(await page.getByTestId('resume-needs').innerText(), /^load tiny-f32 \(weights [0-9a-f]{12}\) as the main model to resume/);
  await snap(page, '98-run-kept-after-crash');
  await page.getByTestId('discard-run').click();
  await notice.waitFor({ state: 'detached' });
  const unexpected = errors.filter((e) => !/Failed to load resource|tabprobe_test_panic|unreachable|panicked|RuntimeError|model worker crashed/.test(e));
  assert.deepEqual(unexpected, []);
  await page.close();
});

// Issue 47, item 2: a worker that stops without an error event — closed from its own scope,
// terminated from outside, or stuck in a loop — is noticed by the page's watch within seconds
// (src/worker/watch.rs: pinged every second while a job waits; reported after 5 s of silence),
// which says so in words and offers to stop it; a worker stuck while scoring is stopped by the
// watch itself after 30 s. Every pair kept before is kept, and the run resumes on a new worker.
/** The model worker (not its scoring helpers), as Playwright sees it. */
async function modelWorker(page) {
  for (let i = 0; i < 100; i++) {
    const w = page.workers().find((w) => w.url().endsWith('/worker_loader.js'));
    if (w) return w;
    await page.waitForTimeout(100);
  }
  throw new Error(`no model worker among ${page.workers().map((w) => w.url()).join(', ')}`);
}

const stops = {
  // The worker closes itself: no event reaches the page.
  closed: async (page) => { (await modelWorker(page)).evaluate(() => self.close()).catch(() => {}); },
  // The page's Worker object is terminated from outside the app (captured by an init script,
  // as a debugger or extension holding it could): no event either.
  terminated: async (page) => { await page.evaluate(() => window.__tabprobeWorkers.at(-1).terminate()); },
  // A loop that never yields: the worker is alive and answers nothing.
  hung: async (page) => { (await modelWorker(page)).evaluate(() => { for (;;) { /* stuck */ } }).catch(() => {}); },
};

for (const [how, stop] of Object.entries(stops)) {
  test(`a model worker ${how} mid-run is noticed within seconds; the run's pairs are kept and it resumes on a new worker`, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.addInitScript(() => {
      const Original = window.Worker;
      window.__tabprobeWorkers = [];
      window.Worker = class extends Original {
        constructor(...args) { super(...args); window.__tabprobeWorkers.push(this); }
      };
    });
    await routeManifest(page, [{ id: 'tiny-f32', name: 'Tiny f32', path: '/test-models/tiny-f32/', role: 'default', card: 'fixture' }]);
    await page.goto(server.url);
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    await toRunner(page);
    const total = await setForm(page);
    await page.getByTestId('run').click();
    await page.waitForFunction(() => {
      const t = document.querySelector('[data-testid="run-kept"]')?.textContent ?? '';
      return Number(t.split(' ')[0]) >= 100;
    }, null, { timeout: 120_000 });

    const t0 = Date.now();
    await stop(page);
    const silent = page.getByTestId('worker-silent');
    await silent.waitFor({ timeout: 15_000 });
    const noticed = Date.now() - t0;
    console.log(`# ${how}: the watch's notice after ${noticed} ms`);
    assert.ok(noticed < 8_000, `noticed after ${noticed} ms`);
    assert.match(await page.getByTestId('worker-silent-message').innerText(), /^The model worker has not answered for \d+ s\./);
    await snap(page, `99-worker-${how}-silent`);
    const frozen = Number((await page.getByTestId('progress-count').innerText()).split(' ')[0]);
    assert.ok(frozen < total, `the run went on (${frozen} of ${total})`);

    const error = page.getByTestId('run-error');
    if (how === 'hung') {
      // Left alone: stuck while scoring, the worker is stopped by the watch at 30 s.
      await error.waitFor({ timeout: 40_000 });
      const stopped = Date.now() - t0;
      console.log(`# hung: stopped by the watch after ${stopped} ms`);
      assert.ok(stopped >= 30_000 && stopped < 36_000, `stopped after ${stopped} ms`);
    } else {
      await page.getByTestId('worker-silent-stop').click();
      await error.waitFor({ timeout: 10_000 });
    }
    assert.equal(await silent.count(), 0, 'the notice goes once the worker is given up');
    assert.match(await error.innerText(), /the model worker stopped answering \(nothing from it for \d+ s.*the (\d+) pairs scored so far are kept in this browser/s);
    const kept = Number((await error.innerText()).match(/the (\d+) pairs scored so far are kept/)[1]);
    assert.ok(kept >= 100 && kept <= frozen, `kept ${kept}; ${frozen} were shown done`);
    await page.getByTestId('worker-crash').waitFor();
    await page.getByTestId('worker-reload').click();
    await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 60_000 });
    const notice = page.getByTestId('run-interrupted');
    await notice.waitFor();
    const [, keptNow, of] = (await notice.innerText()).match(/tiny-f32 (\d+) of (\d+) pairs/).map(Number);
    assert.equal(keptNow, kept);
    assert.equal(of, total);
    await page.waitForFunction(() => !document.querySelector('[data-testid="resume-run"]')?.disabled, null, { timeout: 60_000 });
    await page.getByTestId('resume-run').click();
    await page.getByTestId('run-report').waitFor({ timeout: 120_000 });
    await page.getByTestId('nav-runner').click();
    assert.equal((await page.getByTestId('run-resumed').innerText()).trim(),
      `Resumed: ${kept} of them were scored before the interruption and kept.`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
