// Every published format the importers read, loaded in the site as a user would (the file or
// folder picker), with the summary's counts equal to the counts core's importer tests assert on
// the same fixtures (crates/core/tests/import_fixtures.rs), then accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openSite, openPage, snap, fixtures } from './harness.mjs';

const imp = join(fixtures, 'import');
const { server, browser } = await openSite();

const text = (page, id) => page.getByTestId(id).innerText();

/** Opens the demo, picks `files` (or a folder), checks the summary, accepts, checks the result. */
async function importAndAccept({ files, folder, counts, splits, filesMatch, shot }) {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  if (folder) await page.getByTestId('folder-input').setInputFiles(join(imp, folder));
  else await page.getByTestId('file-input').setInputFiles(files.map((f) => join(imp, f)));
  await page.getByTestId('import-summary').waitFor();
  assert.equal(await text(page, 'import-counts'), counts);
  if (splits) {
    const rows = await page.getByTestId('import-splits').locator('tbody tr').allInnerTexts();
    assert.deepEqual(rows.map((r) => r.split('\t').join(' ')), splits);
  }
  const listed = (await page.getByTestId('import-files').locator('li').allInnerTexts()).join('\n');
  for (const re of filesMatch) assert.match(listed, re);
  await snap(page, shot);
  await page.getByTestId('import-accept').click();
  await page.getByTestId('dataset-summary').filter({ hasText: counts }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
}

test('TabFact: #-delimited CSV tables, statements JSON and split id lists', async () => {
  await importAndAccept({
    files: [
      'tabfact/all_csv/2-17933602-1.html.csv', 'tabfact/all_csv/2-10814487-4.html.csv',
      'tabfact/collected_data/r1_training_all.json', 'tabfact/train_id.json', 'tabfact/test_id.json',
    ],
    counts: '2 tables · 5 examples',
    filesMatch: [/r1_training_all\.json: TabFact/i, /\.html\.csv/],
    shot: '23-import-tabfact',
  });
});

test('Table-BERT TSV with the tables it refers to', async () => {
  await importAndAccept({
    files: ['tabfact/all_csv/2-17933602-1.html.csv', 'tabfact/all_csv/2-10814487-4.html.csv', 'tabfact/tablebert/dev.tsv'],
    counts: '2 tables · 3 examples',
    filesMatch: [/dev\.tsv: Table-BERT/i],
    shot: '24-import-tablebert',
  });
});

test('the probing paper\'s counterfactual pairs (TSV + tables_json + tables_mod_json)', async () => {
  await importAndAccept({
    folder: 'tabprobe',
    counts: '3 tables · 4 examples',
    splits: ['counterfactual 2 0 2 4'],
    filesMatch: [/cf_training_anonymized\.tsv/],
    shot: '25-import-tabprobe-counterfactuals',
  });
});

test('TabPert hypotheses with their relevant rows', async () => {
  await importAndAccept({
    folder: 'tabpert',
    counts: '1 tables · 4 examples',
    filesMatch: [/counterfactual_hypotheses\.tsv: TabPert/i],
    shot: '26-import-tabpert',
  });
});

test('INFOTABS with human relevant-row votes (CSV, majority vote)', async () => {
  await importAndAccept({
    files: [
      'infotabs/tables/T1.json', 'infotabs/tables/T2.json', 'infotabs/tables/T3.json',
      'infotabs/maindata/infotabs_dev.tsv', 'infotabs/maindata/infotabs_test_alpha1.tsv', 'relevance/votes.csv',
    ],
    counts: '3 tables · 7 examples',
    filesMatch: [/votes\.csv/],
    shot: '27-import-relevance-votes',
  });
});
