// The dataset browser as a user meets it: the demo on start, search, a valid upload replacing
// it (picker and drag-and-drop), and broken uploads that show located errors while the
// previous dataset stays on screen. Each state is saved as a screenshot in tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, openPage, snap, fixtures } from './harness.mjs';

// The dataset browser needs no WebGPU; the model tests launch their own browsers.
const { server, browser } = await openSite();

const text = (page, id) => page.getByTestId(id).innerText();

async function openDemo() {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  return { page, errors };
}

test('the bundled demo dataset is shown on start', async () => {
  const { page, errors } = await openDemo();
  assert.equal(await text(page, 'table-count'), '42 of 42 tables');
  assert.match(await text(page, 'dataset-summary'), /42 tables · 392 examples/);
  // The running example: search, open, see the table as lists and H1 with its gold label.
  await page.getByTestId('search').fill('breakfast');
  assert.equal(await text(page, 'table-count'), '1 of 42 tables');
  await page.getByTestId('table-item').first().click();
  const table = page.getByTestId('table-view');
  assert.match(await table.innerText(), /Breakfast in America/);
  assert.deepEqual(await table.locator('tr').filter({ hasText: 'Genre' }).locator('li').allInnerTexts(), ['Pop', 'art rock', 'soft rock']);
  const h1 = page.getByTestId('hypothesis').filter({ hasText: 'paper-H1' });
  assert.equal(await h1.locator('.badge').innerText(), 'ENTAIL');
  assert.equal(await h1.locator('.text').innerText(), 'Breakfast in America is a pop album with a length of 46 minutes.');
  // Choosing H1 marks its evidence rows, Genre and Length (paper §3).
  await h1.click();
  assert.deepEqual(await table.locator('tr.relevant th').allInnerTexts(), ['Genre', 'Length']);
  await snap(page, '01-demo-breakfast-in-america');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the split and label counts match the demo file', async () => {
  const { page, errors } = await openDemo();
  const rows = await page.locator('.split-counts tbody tr').allInnerTexts();
  // dev: 40 tables × 9 hypotheses, balanced; paper: H1–H5; train: the two running examples.
  assert.deepEqual(rows.map((r) => r.split('\t').join(' ')), ['dev 120 120 120 360', 'paper 1 2 2 5', 'train 9 9 9 27']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a valid upload replaces the demo', async () => {
  const { page, errors } = await openDemo();
  await page.getByTestId('file-input').setInputFiles(join(fixtures, 'small-dataset.json'));
  await page.getByTestId('dataset-name').filter({ hasText: 'Uploaded sample — small-dataset.json' }).waitFor();
  assert.equal(await text(page, 'table-count'), '2 of 2 tables');
  assert.match(await text(page, 'dataset-summary'), /2 tables · 4 examples · 1 with a text premise/);
  // The relational table renders with its header.
  await page.getByTestId('table-item').filter({ hasText: '1979 albums' }).click();
  assert.deepEqual(await page.locator('.rel-table thead th').allInnerTexts(), ['album', 'artist', 'length']);
  assert.equal(await page.getByTestId('problems').count(), 0);
  await snap(page, '02-uploaded-valid-dataset');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a dataset dropped on the page replaces the demo', async () => {
  const { page, errors } = await openDemo();
  const body = await readFile(join(fixtures, 'small-dataset.json'), 'utf8');
  await page.evaluate((content) => {
    const dt = new DataTransfer();
    dt.items.add(new File([content], 'dropped.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, body);
  await page.getByTestId('dataset-name').filter({ hasText: 'dropped.json' }).waitFor();
  assert.equal(await text(page, 'table-count'), '2 of 2 tables');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a broken upload lists every located problem and keeps the demo', async () => {
  const { page, errors } = await openDemo();
  await page.getByTestId('file-input').setInputFiles(join(fixtures, 'broken-dataset.json'));
  const panel = page.getByTestId('problems');
  await panel.waitFor();
  // Each problem reads "<place> <kind> <message>".
  const flat = await Promise.all((await panel.getByTestId('problem').all()).map(async (li) =>
    [await li.locator('.place').innerText(), await li.locator('.kind').innerText(), await li.locator('.message').innerText()].join(' ')));
  assert.equal(flat.length, 6, flat.join('\n'));
  const expect = [
    ['$.examples[0].label UNKNOWN LABEL', 'unknown label "entailment"; expected one of ENTAIL, NEUTRAL, CONTRADICT (did you mean ENTAIL?)'],
    ['$.tables[1].id', 'table id "K1" is used by an earlier table'],
    ['$.examples[1].table', 'unknown table id "K9"'],
    ['$.examples[2].id', 'example id "b" is already used by $.examples[1]'],
    ['$.examples[2].hypothesis', 'expected a non-empty hypothesis'],
    ['$.examples[3].relevant_rows[0]', 'row index 5 is past the table\'s 1 rows'],
  ];
  for (const [place, message] of expect) {
    assert.ok(flat.some((p) => p.startsWith(place) && p.includes(message)), `missing ${place}: ${message}\n${flat.join('\n')}`);
  }
  assert.match(await panel.innerText(), /broken-dataset\.json: 6 problems/);
  assert.match(await text(page, 'problems-kept'), /Nothing was loaded; “INFOTABS demo” \(demo\/dataset\.json\) is still open\./);
  // The demo is still on screen and usable.
  assert.match(await text(page, 'dataset-name'), /INFOTABS demo/);
  assert.equal(await text(page, 'table-count'), '42 of 42 tables');
  await snap(page, '03-broken-upload-keeps-demo');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a JSON syntax error is shown with line and column', async () => {
  const { page, errors } = await openDemo();
  await page.getByTestId('file-input').setInputFiles(join(fixtures, 'syntax-error.json'));
  const problem = page.getByTestId('problem');
  await problem.waitFor();
  assert.equal(await problem.locator('.place').innerText(), 'line 5, column 39');
  assert.equal(await problem.locator('.message').innerText(), 'not valid JSON: expected `,` or `}`');
  assert.match(await text(page, 'dataset-name'), /INFOTABS demo/);
  await snap(page, '04-syntax-error');
  // A later valid upload clears the problems.
  await page.getByTestId('file-input').setInputFiles(join(fixtures, 'small-dataset.json'));
  await page.getByTestId('dataset-name').filter({ hasText: 'small-dataset.json' }).waitFor();
  assert.equal(await page.getByTestId('problems').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the About page credits the data and the schema is served', async () => {
  const { page, errors } = await openDemo();
  await page.getByRole('link', { name: 'About' }).click();
  const credits = await text(page, 'credits');
  for (const needle of ['INFOTABS', 'Apache-2.0', 'TabPert', 'Wikipedia', 'CC BY-SA']) {
    assert.ok(credits.includes(needle), `About lacks ${needle}`);
  }
  const schema = await page.evaluate(async () => (await fetch('schema/dataset-v1.json')).json());
  assert.equal(schema.title, 'tabprobe dataset, version 1');
  assert.equal(schema.properties.format.const, 'tabprobe-dataset');
  await snap(page, '05-about');
  assert.deepEqual(errors, []);
  await page.close();
});

/** The demo dataset seven times over (every table and example id suffixed): about 0.7 MB, more
 *  than the page parses on its own thread (512 KiB). `breakLabels` examples get a bad label. */
async function largeDataset(breakLabels = 0) {
  const demo = JSON.parse(await readFile(join(fixtures, '..', '..', 'public', 'demo', 'dataset.json'), 'utf8'));
  const copies = [0, 1, 2, 3, 4, 5, 6];
  const tables = copies.flatMap((k) => demo.tables.map((t) => ({ ...t, id: `${t.id}-${k}` })));
  const examples = copies.flatMap((k) => demo.examples.map((e) => ({ ...e, id: `${e.id}-${k}`, table: `${e.table}-${k}` })));
  examples.slice(0, breakLabels).forEach((e) => { e.label = 'entailment'; });
  return Buffer.from(JSON.stringify({ ...demo, name: 'Demo seven times', tables, examples }));
}

// Issue 47 item 5: a dataset JSON over 512 KiB is parsed in the model worker, not on the
// page's thread; it still loads at once, and a broken one names its first problem and how many
// there are (the page's own loader, which lists them all, parses about 30 ms per megabyte).
test('a large dataset JSON is read by the worker: it loads at once, a broken one names its first problem', async () => {
  const { page, errors } = await openDemo();
  await page.addInitScript(() => { window.tabprobeTiming = true; });
  await page.reload();
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  const parsed = [];
  page.on('console', (m) => { if (/^tabprobe-timing dataset-parse /.test(m.text())) parsed.push(m.text()); });
  const big = await largeDataset();
  assert.ok(big.length > 512 * 1024, `${big.length} bytes`);
  await page.getByTestId('file-input').setInputFiles({ name: 'seven-times.json', mimeType: 'application/json', buffer: big });
  await page.getByTestId('dataset-name').filter({ hasText: 'Demo seven times' }).waitFor({ timeout: 60_000 });
  assert.equal(await text(page, 'table-count'), '294 of 294 tables');
  assert.deepEqual(parsed, [], 'not parsed on the page\'s thread');
  const broken = await largeDataset(3);
  await page.getByTestId('file-input').setInputFiles({ name: 'seven-times-broken.json', mimeType: 'application/json', buffer: broken });
  const panel = page.getByTestId('problems');
  await panel.waitFor({ timeout: 60_000 });
  assert.match(await panel.innerText(), /seven-times-broken\.json: 1 problem/);
  assert.match(await panel.getByTestId('problem').innerText(), /unknown label "entailment".*\(3 problem\(s\) in all; `tabprobe validate` lists them\)/s);
  assert.match(await text(page, 'dataset-name'), /Demo seven times/, 'the loaded dataset stays');
  assert.deepEqual(parsed, []);
  assert.deepEqual(errors, []);
  await page.close();
});
