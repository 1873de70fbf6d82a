// Two tabs, one kept dataset (issue 47, item 1; docs/browser-storage.md#two-tabs). Two tabs of
// the site in one browser save hand-made items (two of them of the same example), annotate
// evidence and run probe sets at once; each tab shows the other and what it is doing; every
// write is merged into the other tab's dataset as it happens; after both tabs reload, each holds
// every item, every annotation and both runs. Where both tabs change the same entry differently,
// the second is asked which version to keep, and its choice is what both keep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, routeManifest, snap } from './harness.mjs';
import { annotate, editTable as openIn, exported as exportedFrom, kept, mark, saveItem, startRun } from './work.mjs';

const { server, browser } = await openSite();

const editTable = (page, id) => openIn(page, server.url, id);
const exported = (page) => exportedFrom(page, server.url);
const tiny = [{ id: 'tiny-f32', name: 'Tiny f32', path: '/test-models/tiny-f32/', role: 'default', card: 'fixture' }];

/** Two tabs of one browser profile (shared IndexedDB, BroadcastChannel and Web Locks). */
async function twoTabs() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await routeManifest(context, tiny);
  const errors = [];
  const open = async (name) => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`${name} pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`${name} console: ${m.text()}`); });
    await page.goto(server.url);
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    return page;
  };
  const a = await open('A');
  const b = await open('B');
  return { context, a, b, errors };
}

test('two tabs saving, annotating and running at once lose nothing; each shows the other', async () => {
  const { context, a, b, errors } = await twoTabs();
  // Each tab sees the other.
  await a.getByTestId('other-tabs').waitFor({ timeout: 10_000 });
  await b.getByTestId('other-tabs').waitFor({ timeout: 10_000 });
  assert.match(await a.getByTestId('other-tabs').innerText(), /^Another tab of tabprobe is open in this browser: open\./);

  // Both run at once; each says so to the other.
  await startRun(a);
  await startRun(b);
  await a.getByTestId('other-tabs').filter({ hasText: /running a probe set \(tiny-f32: \d+ of \d+ pairs\)/ }).waitFor({ timeout: 20_000 });
  await snap(a, '100-tabs-other-running');

  // Meanwhile, each tab annotates a different example and saves an item of the same example
  // (both get `~hand1` in their own tab).
  await editTable(a, 'paper-H1');
  await annotate(a, 1);
  await editTable(b, 'paper-H2');
  await annotate(b, 2);
  await editTable(a, 'train-5910');
  const itemA = await saveItem(a, 'Breakfast in America (tab A)');
  await editTable(b, 'train-5910');
  const itemB = await saveItem(b, 'Breakfast in America (tab B)');
  await kept(a);
  await kept(b);
  // Both runs finish and are saved.
  for (const page of [a, b]) {
    await page.getByTestId('nav-runner').click();
    await page.getByTestId('run-finished').waitFor({ timeout: 180_000 }).catch(async (e) => {
      await snap(page, '100-tabs-run-not-finished');
      throw new Error(`${e.message}\n${await page.getByTestId('runner').innerText()}`);
    });
  }

  // Reload both: each holds both items (one renamed apart), both annotations and both runs.
  await a.reload();
  await b.reload();
  for (const [name, page] of [['A', a], ['B', b]]) {
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    const data = await exported(page);
    const hand = data.examples.filter((e) => e.derived_from === 'train-5910' && e.operation === 'hand_edit_table');
    assert.deepEqual(hand.map((e) => e.id).sort(), ['train-5910~hand1', 'train-5910~hand2'], `${name}: both tabs' items (saved as ${itemA} and ${itemB})`);
    const titles = hand.map((e) => data.tables.find((t) => t.id === e.table).title).sort();
    assert.deepEqual(titles, ['Breakfast in America (tab A)', 'Breakfast in America (tab B)'], `${name}: each item keeps its own table`);
    assert.deepEqual(data.examples.find((e) => e.id === 'paper-H1').relevant_rows, [1], `${name}: A's annotation`);
    assert.deepEqual(data.examples.find((e) => e.id === 'paper-H2').relevant_rows, [2], `${name}: B's annotation`);
    await page.getByTestId('nav-results').click();
    await page.getByTestId('saved-run').nth(1).waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('saved-run').count(), 2, `${name}: both tabs' runs are saved`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('two tabs changing the same evidence differently: the second is asked, and its choice is kept in both', async () => {
  const { context, a, b, errors } = await twoTabs();
  await b.getByTestId('other-tabs').waitFor({ timeout: 10_000 });
  // B opens the example before A changes it, and edits its evidence without A's change.
  await editTable(b, 'train-5910');
  await editTable(a, 'train-5910');
  await annotate(a, 0);
  await kept(a);
  // B merged A's annotation in as it happened (a later edit in B would simply be newer).
  await b.getByTestId('evidence-current').filter({ hasText: '(row 1)' }).waitFor();
  // Both now save a different row from that same version at the same moment, before either
  // write lands (writes wait 300 ms for the next change): the tab whose write comes second
  // is asked.
  await mark(a, 2);
  await mark(b, 3);
  const save = () => document.querySelector('[data-testid=save-evidence]').click();
  await Promise.all([a.evaluate(save), b.evaluate(save)]);
  const t0 = Date.now();
  while (!(await a.getByTestId('tabs-conflict').count()) && !(await b.getByTestId('tabs-conflict').count())) {
    assert.ok(Date.now() - t0 < 10_000, 'neither tab was asked within 10 s');
    await a.waitForTimeout(100);
  }
  const [asked, other] = (await a.getByTestId('tabs-conflict').count()) ? [a, b] : [b, a];
  assert.equal(await other.getByTestId('tabs-conflict').count(), 0, 'only one tab is asked');
  assert.match(await asked.getByTestId('tabs-conflict-what').innerText(), /changed the same things as this tab, differently: example train-5910\./);
  await snap(asked, '101-tabs-conflict');
  const mine = asked === a ? 2 : 3;
  await asked.getByTestId('tabs-keep-mine').click();
  await asked.getByTestId('tabs-conflict').waitFor({ state: 'detached' });
  await kept(asked);
  await other.waitForTimeout(1000);
  await a.reload();
  await b.reload();
  for (const page of [a, b]) {
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    const data = await exported(page);
    assert.deepEqual(data.examples.find((e) => e.id === 'train-5910').relevant_rows, [mine]);
  }
  assert.deepEqual(errors, []);
  await context.close();
});
