// Time and progress a person can plan with, and the model bar (issue 18 §3 and part of §5),
// each at 1280 and 400 px wide: the run estimate (passes ÷ measured pairs/s) follows the
// typing in a field before it loses focus; progress moves per batch of 8; the remaining time
// never grows while work is done; Cancel says "Cancelling…", is disabled, and the run ends
// within a batch; Tab reaches every "Load…" button and Enter opens its file chooser; the
// bundled-model buttons are not offered while their model loads or once it is loaded; the
// probability bars carry E/N/C; the model bar says "scoring n / m hypotheses".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openSite, openPage, snap, fixtures } from './harness.mjs';

const root = join(fixtures, '..', '..');
const goldenDir = join(root, 'crates', 'model', 'tests', 'golden');
const tinyFiles = ['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(goldenDir, 'tiny-f32', f));
/** Pairs per forward pass in the browser (`model_load::DEFAULT_BATCH_SIZE`). */
const BATCH = 8;
const WIDTHS = [1280, 400];

const { server, browser } = await openSite();

async function open(width, options = {}) {
  const opened = await openPage(browser, server.url, { viewport: { width, height: 800 }, ...options });
  await opened.page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  return opened;
}

async function loadTiny(page) {
  await page.getByTestId('model-input').setInputFiles(tinyFiles);
  await page.getByTestId('model-name').filter({ hasText: /^model$/ }).waitFor({ timeout: 120_000 });
}

/** Pairs per worker call: on the CPU path the worker and its helpers (the model bar's
 *  "N workers") each score one batch of a call at the same time. */
async function pairsPerCall(page) {
  const shown = page.getByTestId('model-workers');
  const workers = (await shown.count()) ? parseInt(await shown.innerText(), 10) : 1;
  return BATCH * workers;
}

async function openRunner(page) {
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
}

/** The estimate once measured: its seconds, the pairs/s it names, the passes shown. */
async function estimate(page) {
  const e = page.locator('[data-testid="count-estimate"][data-state="estimate"]');
  await e.waitFor({ timeout: 120_000 });
  const seconds = Number(await e.getAttribute('data-seconds'));
  const rate = Number((await e.innerText()).match(/([\d.]+) pairs\/s/)[1]);
  const passes = Number(await page.getByTestId('count-passes').innerText());
  return { seconds, rate, passes };
}

for (const width of WIDTHS) {
  test(`${width} px: the estimate is passes ÷ measured pairs/s and follows typing before the field loses focus`, async () => {
    const { page, errors } = await open(width);
    await loadTiny(page);
    await openRunner(page);
    const items = await page.getByTestId('count-items').innerText();
    const passes = Number(await page.getByTestId('count-passes').innerText());
    const field = page.getByTestId('cap-run');
    await field.focus();
    await page.keyboard.type('3');
    // No blur, no Enter: the counts follow the keystroke.
    await page.waitForFunction((before) =>
      document.querySelector('[data-testid="count-items"]')?.textContent !== before, items, { timeout: 5000 });
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'cap-run');
    assert.equal(await page.getByTestId('count-items').innerText(), '3');
    await page.keyboard.press('Backspace');
    await page.waitForFunction((before) =>
      document.querySelector('[data-testid="count-items"]')?.textContent === before, items, { timeout: 5000 });

    const first = await estimate(page);
    assert.equal(first.passes, passes);
    assert.ok(first.passes > 100, `${first.passes} passes`);
    // The rate is shown to 0.1 pairs/s and the seconds to 0.001: passes ÷ rate agrees with the
    // seconds to those roundings.
    assert.ok(Math.abs(first.seconds * first.rate - first.passes) <= 0.05 * first.seconds + 0.001 * first.rate,
      `${first.passes} passes ÷ ${first.rate} pairs/s ≈ ${first.seconds} s`);
    // The estimate follows the typing too.
    await page.keyboard.type('3');
    await page.waitForFunction((n) =>
      document.querySelector('[data-testid="count-passes"]')?.textContent !== String(n), passes, { timeout: 5000 });
    const second = await estimate(page);
    assert.ok(second.passes < first.passes, `${second.passes} < ${first.passes}`);
    assert.ok(Math.abs(second.seconds * second.rate - second.passes) <= 0.05 * second.seconds + 0.001 * second.rate,
      `${second.passes} passes ÷ ${second.rate} pairs/s ≈ ${second.seconds} s`);
    await snap(page, `progress-estimate-${width}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${width} px: progress moves per call (a batch on each worker), remaining never grows, Cancel answers within a call`, async () => {
    const { page, errors } = await open(width);
    await loadTiny(page);
    // A call's batches run side by side, so a call takes about one batch's time.
    const call = await pairsPerCall(page);
    await openRunner(page);
    // Every DOM change of the progress line is recorded in the page (each worker report is
    // its own message, so each is seen).
    await page.evaluate(() => {
      window.seen = [];
      window.cancelStates = [];
      const look = () => {
        const b = document.querySelector('[data-testid="cancel"]');
        const state = b && `${b.textContent.trim()}|${b.disabled ? 'disabled' : 'enabled'}`;
        if (state && window.cancelStates.at(-1) !== state) window.cancelStates.push(state);
        const c = document.querySelector('[data-testid="progress-count"]');
        if (!c) return;
        const done = Number(c.textContent.split(' ')[0]);
        const s = document.querySelector('[data-testid="progress-remaining"]')?.dataset.seconds;
        const remaining = s === undefined ? null : Number(s);
        const last = window.seen.at(-1);
        if (!last || last.done !== done || last.remaining !== remaining) window.seen.push({ done, remaining });
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      // The pairs done on screen at the moment Cancel is pressed.
      document.addEventListener('click', (e) => {
        if (e.target.closest('[data-testid="cancel"]')) window.pressedAt = window.seen.at(-1).done;
      }, true);
    });
    const total = Number(await page.getByTestId('count-passes').innerText());
    assert.ok(total > 500, `${total} passes: enough to watch and cancel`);
    await page.getByTestId('run').click();
    await page.waitForFunction((n) => window.seen.some((s) => s.done >= n), 5 * call, { timeout: 120_000 });
    await snap(page, `progress-running-${width}`);
    // Reports seen so far (the run goes on meanwhile).
    const seen = await page.evaluate(() => window.seen);
    // Helpers join as their loads finish: a call is BATCH × the workers ready at that moment.
    const early = new Set(seen.map((s) => s.done).filter((d) => d > 0 && d < 4 * call));
    assert.ok(early.size >= 2, `several values below ${4 * call}: ${[...early]}`);
    assert.ok([...early].every((d) => d % BATCH === 0), `whole batches of ${BATCH}: ${[...early]}`);
    const timed = seen.filter((s) => s.remaining !== null);
    assert.ok(timed.length >= 3, `remaining times seen: ${JSON.stringify(timed)}`);
    for (let i = 1; i < timed.length; i++) {
      if (timed[i].done > timed[i - 1].done) {
        assert.ok(timed[i].remaining <= timed[i - 1].remaining,
          `remaining grew from ${timed[i - 1].remaining} s at ${timed[i - 1].done} to ${timed[i].remaining} s at ${timed[i].done}`);
      }
    }
    const cancel = page.getByTestId('cancel');
    await cancel.click();
    const clicked = await page.evaluate(() => window.pressedAt);
    await page.getByTestId('run-report').waitFor({ timeout: 120_000 });
    // The run may end a few milliseconds after the press: the button's states were recorded.
    const states = await page.evaluate(() => window.cancelStates);
    assert.ok(states.includes('Cancelling…|disabled'), `Cancel said it was cancelling: ${states}`);
    assert.ok(!states.includes('Cancelling…|enabled'), `never pressable while cancelling: ${states}`);
    assert.equal(states.indexOf('Cancelling…|disabled'), states.indexOf('Cancel|enabled') + 1,
      `"Cancelling…" straight after the press: ${states}`);
    const banner = await page.getByTestId('result-cancelled').innerText();
    const [, done] = banner.match(/Cancelled after (\d+) of (\d+)/).map(Number);
    // The call in flight when the worker reads the cancel, plus at most one report still on
    // its way to the page when the button was pressed.
    assert.ok(done >= clicked && done - clicked <= 2 * call, `cancelled at ${done}, pressed at ${clicked} (${call} pairs a call)`);

    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${width} px: Tab reaches every Load… button and Enter opens its file chooser`, async () => {
    const { page, errors } = await open(width);
    // Listening early turns Playwright's file-chooser interception on before any key is pressed
    // (enabled only when the key arrives, the chooser can go to the headless browser instead).
    const choosers = [];
    page.on('filechooser', (c) => choosers.push(c));
    const reached = [];
    for (let i = 0; i < 200; i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);
      reached.push(id);
      if (id === 'model2-input') break;
    }
    for (const id of ['file-input', 'folder-input', 'model-input', 'model-folder-input', 'model2-input']) {
      assert.ok(reached.includes(id), `Tab reaches ${id}: ${reached.join(', ')}`);
    }
    // The focused Load… button shows its focus (the last one reached) and opens the picker
    // from the keyboard.
    await snap(page, `progress-tab-load-${width}`);
    await page.getByTestId('model-input').focus();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'model-input');
    assert.equal(choosers.length, 0);
    await page.keyboard.press('Enter');
    for (let i = 0; i < 100 && choosers.length === 0; i++) await page.waitForTimeout(100);
    assert.equal(choosers.length, 1, 'Enter opened the file chooser');
    await choosers[0].setFiles(tinyFiles);
    await page.getByTestId('model-name').filter({ hasText: /^model$/ }).waitFor({ timeout: 120_000 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${width} px: a bundled model's button is not offered while it loads or once it is loaded`, async () => {
    const { page, errors } = await open(width, { bundled: true });
    const offered = (id) => page.getByTestId(id).count();
    // The default model loads by itself: no button for it meanwhile, nor after.
    await page.getByTestId('model-status').waitFor({ timeout: 60_000 });
    assert.equal(await offered('load-bundled-default'), 0, 'default button hidden while it loads');
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
    assert.equal(await offered('load-bundled-default'), 0, 'default button hidden once loaded');
    // The second: offered, then gone while loading and once loaded.
    await page.getByTestId('load-bundled-second').click();
    assert.equal(await offered('load-bundled-second'), 0, 'second button hidden while it loads');
    await page.getByTestId('model2-name').waitFor({ timeout: 120_000 });
    assert.equal(await offered('load-bundled-second'), 0, 'second button hidden once loaded');
    await snap(page, `progress-bundled-loaded-${width}`);
    // Another model in slot 0: the bundled default is offered again.
    await loadTiny(page);
    await page.getByTestId('load-bundled-default').waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${width} px: the model bar says "scoring n / m hypotheses"; probability bars carry E/N/C`, async () => {
    const { page, errors } = await open(width);
    await page.getByTestId('table-item').filter({ hasText: 'T996' }).click();
    const hypotheses = await page.getByTestId('hypothesis').count();
    await page.evaluate(() => {
      window.scoring = [];
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid="model-scoring"]')?.textContent;
        if (t && window.scoring.at(-1) !== t) window.scoring.push(t);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await loadTiny(page);
    await page.getByTestId('prediction').nth(hypotheses - 1).waitFor({ timeout: 120_000 });
    const scoring = await page.evaluate(() => window.scoring);
    assert.ok(scoring.length >= 1, 'the model bar showed the scoring');
    for (const s of scoring) {
      const m = s.match(/^scoring (\d+) \/ (\d+) hypotheses$/);
      assert.ok(m, s);
      assert.equal(Number(m[2]), hypotheses);
    }
    await page.getByTestId('model-scoring').waitFor({ state: 'detached' });
    const letters = await page.getByTestId('prediction').first().getByTestId('prob-letter').allInnerTexts();
    assert.deepEqual(letters, ['E', 'N', 'C']);
    await snap(page, `progress-letters-${width}`);
    // The editor's live prediction: the same bars, the same letters.
    await page.getByTestId('edit-table').first().click();
    const card = page.locator('.score-card [data-testid="prediction"]').first();
    await card.waitFor({ timeout: 60_000 });
    assert.deepEqual(await card.getByTestId('prob-letter').allInnerTexts(), ['E', 'N', 'C']);
    await snap(page, `progress-letters-editor-${width}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
