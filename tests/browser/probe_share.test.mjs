// Probe items that stay themselves, and Share from where a result is seen (issue 18 §1, §2,
// §5 Escape/focus), each checked at 1280 px and 400 px wide: the demo's row-deletion and
// word-order run on the paper split with the bundled demo model; paper-H5/row_deletion/3 opened from the run
// ticks "Running time" (its evidence, moved up by the deletion); the opened item keeps its
// gold label, operation, rule, expectation, certainty and predictions, asserts no label
// (the rule judges it) and its link is the probe result until edited; Copy link pressed
// while the edit is being scored waits for the scores; Share on a drill-down item, an
// evidence row and a word-order item opens in a fresh page as that result, with the
// transition drawn as one edge (black when the rule allows it, red when not) beside the
// rule; Escape closes the drill-down and focus lands on the opened heading. The demo run is
// saved to tests/artifacts/demo-row-deletion-run.json for the core link-size measurement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, openPage, snap, routeManifest, artifacts, graphLabelSpills } from './harness.mjs';

const { server, browser } = await openSite();
const WIDTHS = [1280, 400];
// docs/probes-and-metrics.md#default-rules, delete a row (relevance unknown): E → {E, N}, N → {N}, C → {C, N}.
const ROW_DELETION_VALID = { ENTAIL: ['ENTAIL', 'NEUTRAL'], NEUTRAL: ['NEUTRAL'], CONTRADICT: ['CONTRADICT', 'NEUTRAL'] };
const LABELS = ['ENTAIL', 'NEUTRAL', 'CONTRADICT'];
const predicted = (probs) => LABELS[probs.reduce((b, p, i) => (p > probs[b] ? i : b), 0)];

/** Saves a screenshot of one element under tests/artifacts/ (a whole 400 px page is too
 *  tall to read). */
async function snapEl(locator, name) {
  await mkdir(artifacts, { recursive: true });
  const path = join(artifacts, `${name}.png`);
  // An element without a box of its own (the 400 px workbench's `display: contents` side
  // column) cannot be shot alone: take the viewport instead.
  if (await locator.boundingBox()) await locator.screenshot({ path });
  else await locator.page().screenshot({ path });
}

async function downloadRun(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-json').first().click(),
  ]);
  return readFile(await download.path(), 'utf8');
}

/** Opens `url` in a fresh context at `width` with no model loaded: only the link. */
async function openLink(url, width) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await routeManifest(context); // no model: the page shows what the link carries
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.getByTestId('shared-result').waitFor();
  return { context, page, errors };
}

/** Presses Share in `scope` and returns the link it shows. */
async function shareFrom(scope) {
  await scope.getByTestId('copy-link').click();
  const link = scope.getByTestId('share-link');
  await link.waitFor();
  return link.inputValue();
}

/** The open drill-down's row for item `id`. */
const drillRow = (page, id) => page.getByTestId('drill-item').filter({ has: page.locator('code', { hasText: new RegExp(`^${id.replace(/[/]/g, '\\/')}$`) }) });

async function openSavedRun(page) {
  await page.getByTestId('nav-results').click();
  await page.getByTestId('saved-run').first().click();
  await page.getByTestId('run-report').waitFor({ timeout: 30_000 });
}

test('probe items from a run keep their evidence, label and probe; Share opens each as a one-edge result', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  const { page, errors } = await (async () => {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(server.url);
    return { page, errors };
  })();
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 }); // the bundled demo model
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  // The paper split (the reproduction): its 5 examples, row deletion and word order.
  for (const sp of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${sp}`);
    if ((await box.isChecked()) !== (sp === 'paper')) await box.click();
  }
  await page.getByTestId('probe-word_order').check();
  await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor();
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
  const text = await downloadRun(page);
  await mkdir(artifacts, { recursive: true });
  await writeFile(join(artifacts, 'demo-row-deletion-run.json'), text);
  const run = JSON.parse(text);
  const itemOf = (id) => run.items.find((i) => i.id === id);
  const transitionOf = (it) => [predicted(run.pairs[it.original_pair].score.probs), predicted(run.pairs[it.perturbed_pair].score.probs)];

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await openSavedRun(page);

    // §5: the drill-down's heading takes focus; Escape closes it.
    await page.getByTestId('head-count').click();
    await page.getByTestId('drill').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'drill-title', `${width}: focus on the drill-down heading`);
    await page.keyboard.press('Escape');
    await page.getByTestId('drill').waitFor({ state: 'detached', timeout: 5_000 });

    // §1.1: paper-H5's evidence is "Running time"; with "Starring" deleted the editor ticks it.
    await page.getByTestId('head-count').click();
    const h5 = drillRow(page, 'paper-H5/row_deletion/3');
    await h5.getByTestId('open-editor').click();
    await page.getByTestId('row-editor').first().waitFor();
    const ticked = await page.getByTestId('row-editor').evaluateAll((rows) => rows
      .filter((r) => r.querySelector('[data-testid=relevant-toggle]').checked)
      .map((r) => r.querySelector('[data-testid=key-input]').value));
    assert.deepEqual(ticked, ['Running time'], `${width}: the editor ticks paper-H5's evidence`);
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', `${width}: focus on the editor's heading`);

    // §1.2: the item keeps its gold label, operation, rule, expectation, certainty, predictions.
    const h5item = itemOf('paper-H5/row_deletion/3');
    const gold = run.examples[h5item.example].gold;
    const facts = page.getByTestId('probe-facts');
    await facts.waitFor();
    assert.equal(await facts.getByTestId('probe-operation').innerText(), 'row deletion');
    assert.equal(await facts.getByTestId('probe-gold').innerText(), gold);
    assert.match(await facts.getByTestId('probe-expectation').innerText(), /valid under the rule for row deletion/);
    assert.match(await facts.getByTestId('probe-rule').innerText(), /ENTAIL → \{ENTAIL, NEUTRAL\}/);
    assert.equal(await facts.getByTestId('probe-certainty').innerText(), 'certain');
    // Issue 43 §5: the rule that made it certain, in one line.
    assert.match(await facts.getByTestId('probe-why').innerText(), /^certain: the model's own transition is judged by the operation's validity rule/);
    const [b, a] = transitionOf(h5item);
    assert.equal(await facts.getByTestId('model-predictions').count(), 1);
    const shownBefore = JSON.parse(await facts.getByTestId('pred-before').getByTestId('prediction').getAttribute('data-probs'));
    assert.equal(predicted(shownBefore), b, `${width}: the run's prediction before`);
    const shownAfter = JSON.parse(await facts.getByTestId('pred-after').getByTestId('prediction').getAttribute('data-probs'));
    assert.equal(predicted(shownAfter), a, `${width}: the run's prediction after`);
    assert.equal(await facts.getByTestId('one-edge').getAttribute('data-valid'), ROW_DELETION_VALID[b].includes(a) ? 'valid' : 'invalid');
    // The rule judges it: no single expected label, so none is asserted and saving will ask.
    for (const l of ['entail', 'neutral', 'contradict']) {
      assert.equal(await page.getByTestId(`assert-${l}`).isChecked(), false, `${width}: ${l} not asserted`);
    }
    await snap(page, `probe-share-editor-item-${width}`);
    await snapEl(page.locator('.panel.probe-item'), `probe-share-editor-facts-${width}`);
    // Its link, before any edit, is the probe result: operation and expectation of the item.
    const itemLink = await shareFrom(page.getByTestId('editor'));
    {
      const { context: c, page: p, errors: e } = await openLink(itemLink, width);
      assert.equal(await p.getByTestId('share-operation').innerText(), 'row deletion');
      assert.equal(await p.getByTestId('share-origin').innerText(), 'probe item paper-H5/row_deletion/3');
      assert.match(await p.getByTestId('share-expectation').innerText(), /valid under the rule/);
      assert.deepEqual(e, []);
      await c.close();
    }

    // §1.3: Copy link pressed while the edit is scored waits for the scores, then copies them.
    await page.getByTestId('row-editor').nth(0).getByTestId('value-input').first().fill(`edited at ${width}`);
    await page.locator('[data-testid=score-after][data-state=pending]').waitFor({ timeout: 5_000 });
    await page.getByTestId('copy-link').click();
    assert.match(await page.getByTestId('copy-link').innerText(), /waiting for scores/, `${width}: the button says it waits`);
    await page.getByTestId('hand-edit-note').waitFor();
    await snapEl(page.locator('.wb-side'), `probe-share-waiting-${width}`);
    const waited = page.getByTestId('share-link');
    await waited.waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('[data-testid=score-after]').getAttribute('data-state'), 'done');
    {
      const { context: c, page: p, errors: e } = await openLink(await waited.inputValue(), width);
      await p.getByTestId('share-pred-after').getByTestId('prediction').waitFor();
      assert.equal(await p.getByTestId('share-operation').innerText(), 'hand edit table');
      assert.match(await p.getByTestId('share-origin').innerText(), /paper-H5\/row_deletion\/3.*hand edit/);
      assert.deepEqual(e, []);
      await c.close();
    }

    // Undo the edit: the kept draft of the item is then the item itself again (the next width
    // opens the same item).
    while (!(await page.getByTestId('undo').isDisabled())) await page.getByTestId('undo').click();
    await page.getByTestId('hand-edit-note').waitFor({ state: 'detached' });

    // §2: Share on a drill-down item (an edge of the row-deletion graph): the fresh page draws
    // the one edge, coloured by the rule, beside the rule.
    await openSavedRun(page);
    const edge = page.locator('[data-operation="row_deletion"]').getByTestId('edge').first();
    const [from, to] = [await edge.getAttribute('data-from'), await edge.getAttribute('data-to')];
    await edge.focus(); // the keyboard opens an edge's items (a thin path is a poor click target)
    await page.keyboard.press('Enter');
    await page.getByTestId('drill').waitFor();
    const row = page.getByTestId('drill-item').first();
    const id = await row.locator('code').first().innerText();
    const link = await shareFrom(row);
    assert.ok(link.length <= 2000, `${id}: ${link.length} characters`);
    await snapEl(page.getByTestId('drill'), `probe-share-drill-${width}`);
    // The list fits the window: nothing scrolled sideways (at 400 px its rows stack), and the
    // copied-link note wraps instead of widening the table.
    const sideways = await page.getByTestId('drill').locator('.drill-body').evaluate((el) => el.scrollWidth - el.clientWidth);
    assert.ok(sideways <= 1, `${width} px: the drill-down scrolls ${sideways} px sideways`);
    {
      const { context: c, page: p, errors: e } = await openLink(link, width);
      const one = p.getByTestId('one-edge');
      const valid = ROW_DELETION_VALID[from].includes(to);
      assert.equal(await one.getAttribute('data-valid'), valid ? 'valid' : 'invalid');
      const drawn = one.getByTestId('edge');
      assert.equal(await drawn.count(), 1);
      assert.deepEqual([await drawn.getAttribute('data-from'), await drawn.getAttribute('data-to')], [from, to]);
      assert.equal(await drawn.getAttribute('class'), valid ? 'edge valid' : 'edge invalid');
      assert.deepEqual(await graphLabelSpills(one.locator('svg')), [], `one-edge graph labels at ${width} px`);
      const stroke = await drawn.locator('path:not(.hit)').evaluate((el) => getComputedStyle(el).stroke);
      assert.ok(valid ? !/rgb\(2[0-9]{2}, [0-9]{1,2}, /.test(stroke) : /rgb\((1[5-9]|2)[0-9]+, /.test(stroke), `${valid ? 'black' : 'red'} edge: ${stroke}`);
      assert.ok(await p.getByTestId('share-rule').isVisible(), 'the rule is shown');
      assert.match(await p.getByTestId('one-edge-verdict').innerText(), valid ? / is allowed: after / : / is not allowed: after /);
      assert.equal(await p.getByTestId('share-origin').innerText(), `probe item ${id}`);
      await p.getByTestId('share-pred-after').getByTestId('prediction').waitFor();
      await snap(p, `probe-share-opened-${width}`);
      // The README's screenshot is rewritten only on request (UPDATE_DOCS_IMAGES=1), so a test
      // run leaves the committed file alone.
      if (width === 1280 && process.env.UPDATE_DOCS_IMAGES === '1') {
        await mkdir(join(artifacts, '..', '..', 'docs', 'images'), { recursive: true });
        await p.screenshot({ path: join(artifacts, '..', '..', 'docs', 'images', 'share-probe-result.png'), clip: { x: 0, y: 0, width: 1280, height: 900 } });
      }
      assert.deepEqual(e, []);
      await c.close();
    }
    await page.getByTestId('drill-close').click();

    // Share on an evidence row: the deletion of that row of the example shown.
    const evRow = page.getByTestId('evidence-row').first();
    await evRow.scrollIntoViewIfNeeded();
    // The row is named "Key (row n)"; the diff shows the key.
    const rowName = await evRow.locator('th').first().innerText();
    const key = rowName.replace(/ \(row \d+\)$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const evLink = await shareFrom(evRow);
    await snapEl(page.getByTestId('evidence-view'), `probe-share-evidence-${width}`);
    {
      const { context: c, page: p, errors: e } = await openLink(evLink, width);
      assert.equal(await p.getByTestId('share-operation').innerText(), 'row deletion');
      assert.match(await p.getByTestId('share-origin').innerText(), /^probe item .*\/row_deletion\/\d+$/);
      assert.ok(await p.getByTestId('one-edge').isVisible());
      assert.match(await p.locator('.table-diff, [data-testid=table-diff]').first().innerText(), new RegExp(key));
      assert.deepEqual(e, []);
      await c.close();
    }

    // Share on a word-order item (a BLEU-2 bin's drill-down).
    await page.locator('[data-testid=bleu-bin]:not([data-total="0"])').first().focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('drill').waitFor();
    const woRow = page.getByTestId('drill-item').first();
    const woLink = await shareFrom(woRow);
    {
      const { context: c, page: p, errors: e } = await openLink(woLink, width);
      assert.equal(await p.getByTestId('share-operation').innerText(), 'word order');
      assert.match(await p.getByTestId('share-origin').innerText(), /^probe item .*\/word_order\/\d+$/);
      assert.ok(await p.getByTestId('one-edge').isVisible());
      assert.deepEqual(e, []);
      await c.close();
    }
    await page.keyboard.press('Escape');
    await page.getByTestId('drill').waitFor({ state: 'detached', timeout: 5_000 });
  }
  assert.deepEqual(errors, []);
  await context.close();
});
