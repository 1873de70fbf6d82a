// Importing published data in the browser: several files, a folder, a zip; the summary shown
// before anything is replaced; accept (replace or merge), cancel and export; and one test per
// error class, each checking that the dataset already loaded (the demo) stays on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, openPage, snap, fixtures } from './harness.mjs';

const imp = join(fixtures, 'import');
const { server, browser } = await openSite();

const text = (page, id) => page.getByTestId(id).innerText();

async function openDemo() {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  return { page, errors };
}

const infotabsFiles = [
  'infotabs/tables/T1.json', 'infotabs/tables/T2.json', 'infotabs/tables/T3.json',
  'infotabs/maindata/infotabs_dev.tsv', 'infotabs/maindata/infotabs_test_alpha1.tsv',
].map((p) => join(imp, p));

async function splitRows(page) {
  const rows = await page.getByTestId('import-splits').locator('tbody tr').allInnerTexts();
  return rows.map((r) => r.split('\t').join(' '));
}

test('several INFOTABS files: the summary first, then Replace', async () => {
  const { page, errors } = await openDemo();
  await page.getByTestId('file-input').setInputFiles(infotabsFiles);
  const summary = page.getByTestId('import-summary');
  await summary.waitFor();
  assert.equal(await summary.locator('h2').innerText(), 'Import T1.json and 4 more files');
  const files = await page.getByTestId('import-files').locator('li').allInnerTexts();
  assert.ok(files.includes('infotabs_dev.tsv: INFOTABS split TSV — 5 examples'), files.join('\n'));
  assert.ok(files.includes('INFOTABS table JSON: 3 file(s) (T1.json … T3.json)'), files.join('\n'));
  assert.equal(await text(page, 'import-counts'), '3 tables · 7 examples');
  assert.deepEqual(await splitRows(page), ['alpha1 1 0 1 2', 'dev 2 1 2 5']);
  // Nothing is replaced before the user accepts.
  assert.match(await text(page, 'dataset-name'), /INFOTABS demo/);
  await snap(page, '20-import-summary-infotabs');
  await page.getByTestId('import-accept').click();
  await page.getByTestId('dataset-name').filter({ hasText: 'T1.json and 4 more files' }).waitFor();
  // Named after the first file (issue 18 §5), not "5 files — 5 files".
  assert.equal(await text(page, 'dataset-name'), 'T1 — T1.json and 4 more files');
  assert.equal(await text(page, 'table-count'), '3 of 3 tables');
  assert.match(await text(page, 'dataset-summary'), /3 tables · 7 examples/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a folder, with Merge into the demo, and Cancel', async () => {
  const { page, errors } = await openDemo();
  await page.getByTestId('folder-input').setInputFiles(join(imp, 'nli'));
  await page.getByTestId('import-summary').waitFor();
  assert.equal(await text(page, 'import-counts'), '0 tables · 3 examples');
  assert.match(await text(page, 'import-skipped'), /1 × gold label "-" \(no annotator majority\)\s*nli\/multinli_dev_matched\.jsonl:line 2/);
  // Cancel keeps the demo and closes the summary.
  await page.getByTestId('import-cancel').click();
  assert.equal(await page.getByTestId('import-summary').count(), 0);
  assert.match(await text(page, 'dataset-name'), /INFOTABS demo/);
  await page.getByTestId('folder-input').setInputFiles(join(imp, 'nli'));
  await page.getByTestId('import-merge').click();
  await page.getByTestId('dataset-name').filter({ hasText: 'merged with nli' }).waitFor();
  assert.match(await text(page, 'dataset-summary'), /42 tables · 395 examples · 3 with a text premise/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a zip: unmatched ids and skipped files are listed', async () => {
  const { page, errors } = await openDemo();
  await page.getByTestId('file-input').setInputFiles([
    join(imp, 'infotabs-small.zip'), join(imp, 'bad/infotabs_unknown_table.tsv'),
  ]);
  await page.getByTestId('import-summary').waitFor();
  const files = await text(page, 'import-files');
  assert.match(files, /infotabs-small\.zip: zip archive — 7 files/);
  assert.equal(await text(page, 'import-counts'), '3 tables · 7 examples');
  assert.match(await text(page, 'import-unmatched'), /T404 \(1 examples\)/);
  assert.match(await text(page, 'import-skipped'), /1 × documentation, not data\s*infotabs-small\.zip\/infotabs-small\/README\.md/);
  await snap(page, '21-import-summary-zip');
  await page.getByTestId('import-accept').click();
  await page.getByTestId('dataset-name').filter({ hasText: 'infotabs-small.zip and 1 more file' }).waitFor();
  assert.equal(await text(page, 'dataset-name'), 'infotabs-small — infotabs-small.zip and 1 more file');
  assert.equal(await text(page, 'table-count'), '3 of 3 tables');
  assert.deepEqual(errors, []);
  await page.close();
});

test('exports: the product JSON and INFOTABS TSV download', async () => {
  const { page, errors } = await openDemo();
  await page.getByTestId('file-input').setInputFiles(infotabsFiles);
  await page.getByTestId('import-accept').click();
  await page.getByTestId('dataset-name').filter({ hasText: 'T1.json and 4 more files' }).waitFor();
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  assert.equal(json.suggestedFilename(), 'T1.json');
  const dataset = JSON.parse(await readFile(await json.path(), 'utf8'));
  assert.equal(dataset.format, 'tabprobe-dataset');
  assert.equal(dataset.tables.length, 3);
  assert.equal(dataset.examples.length, 7);
  const [tsv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-tsv').click()]);
  const lines = (await readFile(await tsv.path(), 'utf8')).trimEnd().split('\n');
  assert.equal(lines[0], 'annotater_id\ttable_id\thypothesis\tlabel');
  assert.equal(lines.length, 8);
  assert.equal(lines[1], 'GW1\tT1\tBreakfast in America was released in the 1970s.\tE');
  assert.deepEqual(errors, []);
  await page.close();
});

/** Loads `paths`, expects one located problem and the demo still loaded. */
async function expectProblem(page, paths, place, message) {
  await page.getByTestId('file-input').setInputFiles(paths);
  const problem = page.getByTestId('problem');
  await problem.waitFor();
  assert.equal(await problem.locator('.place').innerText(), place);
  assert.match(await problem.locator('.message').innerText(), message);
  assert.equal(await page.getByTestId('import-summary').count(), 0);
  assert.match(await text(page, 'problems-kept'), /Nothing was loaded; “INFOTABS demo” \(demo\/dataset\.json\) is still open\./);
  assert.match(await text(page, 'dataset-name'), /INFOTABS demo/);
  assert.equal(await text(page, 'table-count'), '42 of 42 tables');
}

const errorCases = [
  ['syntax', ['bad/syntax.json'], 'line 3, column 0', /not valid JSON/, 'syntax.json'],
  ['wrong schema', ['bad/table_wrong_schema.json'], '$["Max. depth"]', /expected a list of strings/, 'table_wrong_schema.json'],
  ['unknown table id', ['bad/infotabs_unknown_table.tsv'], 'all files', /nothing to load: every example names a table none of the files holds \(e\.g\. T404\)/, 'infotabs_unknown_table.tsv'],
  ['empty hypothesis', ['infotabs/tables/T1.json', 'bad/infotabs_empty_hypothesis.tsv'], 'line 2', /empty hypothesis/, 'infotabs_empty_hypothesis.tsv'],
  ['unknown label', ['infotabs/tables/T1.json', 'bad/infotabs_unknown_label.tsv'], 'line 3', /unknown label "X"; expected E, N or C/, 'infotabs_unknown_label.tsv'],
  ['bad zip', ['bad/not_a_zip.zip'], 'zip', /not a readable zip archive/, 'not_a_zip.zip'],
];

for (const [name, paths, place, message, file] of errorCases) {
  test(`error class: ${name} — located, and the demo stays`, async () => {
    const { page, errors } = await openDemo();
    await expectProblem(page, paths.map((p) => join(imp, p)), place, message);
    assert.match(await page.getByTestId('problems').locator('header strong').innerText(), new RegExp(`^${file.replace('.', '\\.')}: 1 problem$`));
    if (name === 'unknown label') await snap(page, '22-import-error-unknown-label');
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('error class: too large — refused from its size before it is read', async () => {
  const { page, errors } = await openDemo();
  // A 101 MiB file dropped on the page: File.size is checked before any byte is read.
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(101 * 1024 * 1024)], 'huge.tsv'));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  const problem = page.getByTestId('problem');
  await problem.waitFor();
  assert.equal(await problem.locator('.place').innerText(), 'size');
  assert.equal(await problem.locator('.message').innerText(),
    'the file is 105.9 MB; the limit is 104.9 MB per file. Split it, or convert it with `tabprobe convert` on the command line');
  assert.match(await text(page, 'dataset-name'), /INFOTABS demo/);
  assert.equal(await text(page, 'loading'), '');
  assert.deepEqual(errors, []);
  await page.close();
});
