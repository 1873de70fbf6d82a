// The table editor and the hypothesis rewriter (issue 6 items 1, 2, 8) with the demo data and
// the fixture model (crates/model/tests/golden/tiny-f32, a tiny random RoBERTa: its labels
// mean nothing, but its probabilities move when the premise or hypothesis changes, which is
// what these tests check). Screenshots of each view go to tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openSite, openPage, snap } from './harness.mjs';

const { server, browser } = await openSite();

/** The demo with the fixture model loaded (CPU backend: no WebGPU flag). */
export async function demoWithModel(page, modelUrl) {
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await page.getByTestId('model-url').fill(modelUrl);
  await page.getByTestId('model-url-load').click();
  await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 120_000 });
}

/** Opens a Breakfast in America hypothesis with the given button (`edit-table` / `rewrite`). */
async function openItem(page, id, button) {
  await page.goto(`${server.url}#/`);
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  await page.getByTestId('hypothesis').filter({ hasText: id }).getByTestId(button).click();
}

const probsOf = async (page, card) => JSON.parse(await page.getByTestId(card).getByTestId('prediction').getAttribute('data-probs'));
const done = (page, card) => page.locator(`[data-testid=${card}][data-state=done]`).waitFor({ timeout: 60_000 });
/** Waits until the card's probabilities differ from `old`. */
async function changedFrom(page, card, old) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await page.getByTestId(card).getAttribute('data-state');
    if (state === 'done') {
      const now = await probsOf(page, card);
      if (JSON.stringify(now) !== JSON.stringify(old)) return now;
    }
    if (Date.now() > deadline) throw new Error(`${card} never changed from ${JSON.stringify(old)}`);
    await page.waitForTimeout(50);
  }
}

test('empty states say what to do next', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#/editor`);
  assert.match(await page.getByTestId('no-work-item').innerText(), /Nothing open in the table editor.*edit table/s);
  await page.getByTestId('nav-rewriter').click();
  assert.match(await page.getByTestId('no-work-item').innerText(), /Nothing open in the hypothesis rewriter/);
  await snap(page, '20-editor-empty');
  // Every header link is reachable with the keyboard.
  const reached = [];
  for (let k = 0; k < 12; k++) {
    await page.keyboard.press('Tab');
    reached.push(await page.evaluate(() => document.activeElement?.textContent?.trim()));
  }
  for (const name of ['Dataset', 'Probe runner', 'Results', 'Table editor', 'Rewriter', 'Share']) assert.ok(reached.includes(name), `${name} in ${reached}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('editing a relevant value changes the live prediction; the edit is saved as a probe item', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoWithModel(page, `${server.url}test-models/tiny-f32/`);
  // paper-H2 (CONTRADICT): "released at the end of 1979"; its evidence is row 0, Released.
  // (The fixture model reads at most 98 tokens, so the edit is made where it reads.)
  await openItem(page, 'paper-H2', 'edit-table');
  await page.getByTestId('editor').waitFor();
  assert.equal(await page.getByTestId('work-hypothesis').innerText(), 'Breakfast in America was released at the end of 1979.');
  await done(page, 'score-before');
  await done(page, 'score-after');
  const original = await probsOf(page, 'score-before');
  assert.deepEqual(await probsOf(page, 'score-after'), original, 'unedited table: same prediction on both sides');
  const rows = page.getByTestId('row-editor');
  const released = rows.nth(0);
  assert.equal(await released.getByTestId('key-input').inputValue(), 'Released');
  assert.deepEqual(await page.getByTestId('relevant-toggle').evaluateAll((els) => els.map((e) => e.checked)), [true, false, false, false, false, false, false]);
  // Edit the relevant value so that the label flips: the edited side is re-scored, the
  // original side stays.
  await released.getByTestId('value-input').first().fill('29 December 1979');
  const edited = await changedFrom(page, 'score-after', original);
  assert.notDeepEqual(edited, original);
  assert.deepEqual(await probsOf(page, 'score-before'), original);
  assert.equal(await page.getByTestId('diff-summary').innerText(), '1 changed');
  assert.equal(await released.getAttribute('data-mark'), 'changed');
  await snap(page, '21-editor-value-edited');
  // Undo and redo, by keyboard.
  await page.keyboard.press('Control+z');
  assert.equal(await released.getByTestId('value-input').first().inputValue(), '29 March 1979');
  assert.equal(await page.getByTestId('diff-summary').innerText(), 'no changes');
  await page.keyboard.press('Control+Shift+z');
  assert.equal(await released.getByTestId('value-input').first().inputValue(), '29 December 1979');
  // Save as a label-flipping counterfactual (§4.6): ENTAIL asserted.
  await page.getByTestId('assert-entail').check();
  await page.getByTestId('save-item').click();
  assert.equal(
    await page.getByTestId('saved').innerText(),
    'Saved as paper-H2~hand1 with the edited table T1264~edit1, label ENTAIL. It is in the dataset now; the probe runner\'s “hand-made items” include it.',
  );
  // The dataset now holds the new table and example.
  await page.goto(`${server.url}#/`);
  await page.getByTestId('search').fill('breakfast');
  assert.equal(await page.getByTestId('table-count').innerText(), '2 of 43 tables');
  await page.getByTestId('table-item').nth(1).click();
  assert.match(await page.getByTestId('table-view').innerText(), /29 December 1979/);
  const saved = page.getByTestId('hypothesis').filter({ hasText: 'paper-H2~hand1' });
  assert.equal(await saved.locator('.badge').first().innerText(), 'ENTAIL');
  assert.equal(await saved.getByTestId('derived-tag').innerText(), 'hand edit table of paper-H2');
  await snap(page, '26-dataset-with-hand-made-item');
  assert.deepEqual(errors, []);
  await page.close();
});

test('rows are added, deleted and reordered by buttons, keyboard and drag; values are lists', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await openItem(page, 'paper-H1', 'edit-table');
  const rows = page.getByTestId('row-editor');
  const keys = () => page.getByTestId('key-input').evaluateAll((els) => els.map((e) => e.value));
  assert.deepEqual(await keys(), ['Released', 'Recorded', 'Studio', 'Genre', 'Length', 'Label', 'Producer']);
  // Multi-valued cell: Genre has three values; add one, remove one.
  const genre = rows.nth(3);
  assert.deepEqual(await genre.getByTestId('value-input').evaluateAll((els) => els.map((e) => e.value)), ['Pop', 'art rock', 'soft rock']);
  await genre.getByTestId('add-value').click();
  await genre.getByTestId('value-input').nth(3).fill('disco');
  await genre.getByTestId('remove-value').first().click();
  assert.deepEqual(await genre.getByTestId('value-input').evaluateAll((els) => els.map((e) => e.value)), ['art rock', 'soft rock', 'disco']);
  // Add a row at the end and fill it.
  await page.getByTestId('add-row').click();
  await rows.nth(7).getByTestId('key-input').fill('Singles');
  await rows.nth(7).getByTestId('value-input').first().fill('The Logical Song');
  // Keyboard: Alt+↑ on the new row's handle moves it up, focus follows.
  await rows.nth(7).getByTestId('row-handle').focus();
  await page.keyboard.press('Alt+ArrowUp');
  await page.keyboard.press('Alt+ArrowUp');
  assert.deepEqual(await keys(), ['Released', 'Recorded', 'Studio', 'Genre', 'Length', 'Singles', 'Label', 'Producer']);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.row), '5');
  // Drag: Producer onto the first row.
  await rows.nth(7).getByTestId('row-handle').dragTo(rows.nth(0));
  assert.deepEqual(await keys(), ['Producer', 'Released', 'Recorded', 'Studio', 'Genre', 'Length', 'Singles', 'Label']);
  // Delete Recorded with its button; move Label up with the ↑ button.
  await rows.nth(2).getByTestId('row-delete').click();
  await rows.nth(6).getByTestId('row-up').click();
  assert.deepEqual(await keys(), ['Producer', 'Released', 'Studio', 'Genre', 'Length', 'Label', 'Singles']);
  // Edit the title, mark Studio relevant.
  await page.getByTestId('title-input').fill('Breakfast in America (1979 album)');
  await rows.nth(2).getByTestId('relevant-toggle').check();
  // The comparison with the original: one changed, one added, one removed, one moved.
  assert.equal(await page.getByTestId('diff-summary').innerText(), '1 changed · 1 added · 1 removed · 1 moved · title changed');
  const marks = await page.getByTestId('diff-row').evaluateAll((els) => els.map((e) => `${e.dataset.mark}:${e.querySelector('th').textContent}`));
  assert.deepEqual(marks, ['moved:Producer', 'same:Released', 'same:Studio', 'changed:Genre', 'same:Length', 'same:Label', 'added:Singles', 'removed:Recorded']);
  // An empty key blocks saving and says which row.
  await rows.nth(6).getByTestId('key-input').fill('');
  assert.match(await page.getByTestId('save-blocked').innerText(), /row 7 has no key/);
  assert.equal(await page.getByTestId('save-item').isDisabled(), true);
  await rows.nth(6).getByTestId('key-input').fill('Singles');
  await snap(page, '22-editor-rows-reordered');
  // Undo all the way back to the original by the toolbar button.
  while (await page.getByTestId('undo').isEnabled()) await page.getByTestId('undo').click();
  assert.deepEqual(await keys(), ['Released', 'Recorded', 'Studio', 'Genre', 'Length', 'Label', 'Producer']);
  assert.equal(await page.getByTestId('diff-summary').innerText(), 'no changes');
  // Narrow window: still one column, usable.
  await page.setViewportSize({ width: 560, height: 900 });
  await snap(page, '23-editor-narrow');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: 'tests/artifacts/24-editor-1280x800.png' });
  assert.deepEqual(errors, []);
  await page.close();
});

test('rows marked in the editor become the example\'s evidence annotation', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  // train-5910 has no annotated evidence rows.
  await openItem(page, 'train-5910', 'edit-table');
  assert.equal(await page.getByTestId('evidence-current').innerText(), 'not annotated yet');
  assert.equal(await page.getByTestId('save-evidence').isDisabled(), true);
  await page.getByTestId('row-editor').nth(0).getByTestId('relevant-toggle').check();
  await page.getByTestId('save-evidence').click();
  assert.equal(await page.getByTestId('evidence-saved').innerText(), 'Saved: the evidence of train-5910 is now row(s) 1 (relevance probes can use it).');
  assert.match(await page.getByTestId('evidence-current').innerText(), /^annotated: \S.* \(row 1\)$/);
  // Moving a row makes the marks describe another table: not an annotation of the original.
  await page.getByTestId('row-editor').nth(0).getByTestId('row-down').click();
  assert.equal(await page.getByTestId('save-evidence').isDisabled(), true);
  // The dataset browser shows the new annotation.
  await page.goto(`${server.url}#/`);
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  const h = page.getByTestId('hypothesis').filter({ hasText: 'train-5910' });
  assert.equal(await h.locator('.tag.evidence').count(), 1);
  await h.locator('.text').click();
  assert.deepEqual(await page.getByTestId('table-view').locator('tr.relevant th').allInnerTexts(), ['Released']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the rewriter offers §4.4 suggestions; trying one changes the prediction and accepting saves it', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await demoWithModel(page, `${server.url}test-models/tiny-f32/`);
  await openItem(page, 'paper-H1', 'rewrite');
  // Timed out once in a full run (2026-11-27) and never alone: keep what the page showed.
  await page.getByTestId('rewriter').waitFor().catch(async (e) => {
    await snap(page, '25-rewriter-missing');
    console.log(`# the rewriter did not open; the page was at ${page.url()}`);
    throw e;
  });
  await done(page, 'score-before');
  await done(page, 'score-after');
  const original = await probsOf(page, 'score-before');
  const suggestions = page.getByTestId('suggestion');
  const probes = await suggestions.evaluateAll((els) => els.map((e) => e.dataset.probe));
  assert.ok(probes.includes('negation'), probes.join());
  // Negation of an ENTAIL hypothesis: expected CONTRADICT, certain (§4.4).
  const negation = page.locator('[data-testid=suggestion][data-probe=negation]');
  assert.match(await negation.innerText(), /expected\s*CONTRADICT/);
  assert.equal(await negation.getByTestId('certainty').innerText(), 'certain');
  // Issue 43 §5: why it is certain, in one line, on the suggestion and in its share link.
  const why = /^certain: the main claim's auxiliary negated/;
  assert.match(await negation.getByTestId('suggestion-why').innerText(), why);
  await negation.getByTestId('suggestion-try').click();
  assert.equal(await page.getByTestId('hypothesis-input').inputValue(), 'Breakfast in America is not a pop album with a length of 46 minutes.');
  assert.equal(await page.getByTestId('assert-contradict').isChecked(), true);
  const rewritten = await changedFrom(page, 'score-after', original);
  assert.notDeepEqual(rewritten, original);
  await snap(page, '25-rewriter-suggestion-tried');
  // Every suggestion has its own share link (generated, unscored: no model in it).
  await negation.getByTestId('copy-link').click();
  const link = await negation.getByTestId('share-link').inputValue();
  const shared = await browser.newPage();
  await shared.goto(link);
  await shared.getByTestId('shared-result').waitFor();
  assert.equal(await shared.getByTestId('share-operation').innerText(), 'negation');
  assert.equal(await shared.getByTestId('share-certainty').innerText(), 'certain');
  assert.match(await shared.getByTestId('share-why').innerText(), why);
  assert.equal(await shared.getByTestId('share-hyp-after').innerText(), 'Breakfast in America is not a pop album with a length of 46 minutes.');
  assert.equal(await shared.getByTestId('share-model-name').innerText(), 'No model was loaded when this result was shared.');
  await shared.close();
  // Accept it: on a dataset example as it stands the suggestion is the probe run's item
  // paper-H1/negation/0, and accepting records a review of it in the dataset (issue 11 §4).
  await negation.getByTestId('suggestion-accept').click();
  assert.match(await negation.getByTestId('suggestion-accepted').innerText(), /^Accepted: probe item paper-H1\/negation\/0 is reviewed as CONTRADICT;/);
  // Reject another; edit the text by hand and save that too.
  const other = page.locator('[data-testid=suggestion]:not(.accepted)').first();
  await other.getByTestId('suggestion-reject').click();
  assert.equal(await page.locator('.suggestion.rejected').count(), 1);
  await page.getByTestId('hypothesis-input').fill('Breakfast in America is a rock album with a length of 46 minutes.');
  await page.getByTestId('assert-neutral').check();
  await page.getByTestId('save-item').click();
  assert.match(await page.getByTestId('saved').innerText(), /^Saved as paper-H1~hand1 on table T1264, label NEUTRAL\./);
  // The exported dataset holds the review and the rejection; the hand rewrite is an example.
  await page.goto(`${server.url}#/`);
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  const hand = page.getByTestId('hypothesis').filter({ hasText: 'paper-H1~hand' });
  assert.deepEqual(await hand.getByTestId('derived-tag').allInnerTexts(), ['hand rewrite hypothesis of paper-H1']);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = JSON.parse(await readFile(await download.path(), 'utf8'));
  const accepted = exported.reviews.find((r) => r.item === 'paper-H1/negation/0');
  assert.deepEqual([accepted.decision, accepted.label], ['accept', 'CONTRADICT']);
  assert.equal(accepted.hypothesis, 'Breakfast in America is not a pop album with a length of 46 minutes.');
  assert.equal(exported.reviews.filter((r) => r.decision === 'reject' && r.item.startsWith('paper-H1/')).length, 1);
  assert.deepEqual(errors, []);
  await page.close();
});
