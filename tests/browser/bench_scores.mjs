// Benchmark (not a test; scripts/bench-scores.sh runs it): the page's pairs export and scores
// import on the demo's dev split with every probe (issue 44). Prints the pairs and bytes of
// each file and the seconds from click to file, from pick to model bar, and from Run to the
// report, with the imported scores as the only model.
import { createHash } from 'node:crypto';
import { readFile, writeFile, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, openPage } from './harness.mjs';

const LABELS = ['ENTAIL', 'NEUTRAL', 'CONTRADICT'];
const server = await serveDist();
const browser = await launch();
try {
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'dev')) await box.click();
  }
  for (const box of await page.locator('input[type=checkbox][data-testid^="probe-"]:not([disabled])').all()) {
    if (!(await box.isChecked())) await box.check();
  }
  await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor();
  await page.waitForTimeout(1000);
  const items = await page.getByTestId('count-items').innerText();

  let t = Date.now();
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 300_000 }), page.getByTestId('download-pairs').click()]);
  const pairsPath = await d.path();
  const export_s = (Date.now() - t) / 1000;
  const text = await readFile(pairsPath, 'utf8');
  const ids = text.trim().split('\n').map((l) => JSON.parse(l).id);

  // Probabilities from each id's digest, at full precision, as a scorer writes them.
  const dir = await mkdtemp(join(tmpdir(), 'tabprobe-bench-scores-'));
  const scoresPath = join(dir, 'bench.scores.jsonl');
  await writeFile(scoresPath, ids.map((id) => {
    const h = createHash('sha256').update(id).digest();
    const w = [h[0] + 1, h[1] + 1, h[2] + 1];
    const sum = w[0] + w[1] + w[2];
    return JSON.stringify({ id, probs: Object.fromEntries(LABELS.map((l, i) => [l, w[i] / sum])) });
  }).join('\n') + '\n');

  t = Date.now();
  await page.getByTestId('scores-input-main').setInputFiles(scoresPath);
  await page.getByTestId('model-name').waitFor({ timeout: 300_000 });
  const import_s = (Date.now() - t) / 1000;

  t = Date.now();
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 900_000 });
  const run_s = (Date.now() - t) / 1000;
  console.log(JSON.stringify({
    split: 'dev', probes: 'all', items, pairs: ids.length,
    pairs_file_bytes: (await stat(pairsPath)).size, scores_file_bytes: (await stat(scoresPath)).size,
    export_s, import_s, run_to_report_s: run_s, page_errors: errors,
  }));
  if (errors.length) process.exitCode = 1;
} finally {
  await browser.close();
  await server.close();
}
