// Issue 44 in the page: a model tabprobe cannot run, probed from a scores file. The runner's
// "Download the pairs" writes the pairs of the probe set the form describes (the main model's
// and the second model's, which also has every hypothesis alone); a scores file made for them
// elsewhere (here: written by this test, as a scorer would) is imported as the second model,
// named by the user, beside the tiny model loaded as the main one; both run side by side; the
// imported model's probabilities in its run file are the file's, its identity is the file's
// SHA-256 (model bar, report, run file, share link); a bad file is refused by name, line and
// count with the slot left as it was; a file made for another probe set refuses the run and
// saves nothing; labels alone give a run whose word-order entropies say n/a.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, openPage, snap, fixtures, routeManifest } from './harness.mjs';

const root = join(fixtures, '..', '..');
const goldenDir = join(root, 'crates', 'model', 'tests', 'golden');
const tiny = ['config.json', 'model.safetensors'].map((f) => join(goldenDir, 'tiny-f32', f)).concat(join(goldenDir, 'tiny-f32', 'tokenizer.json'));
const LABELS = ['ENTAIL', 'NEUTRAL', 'CONTRADICT'];

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** A pair's id as docs/scoring-elsewhere.md defines it (recomputed here, not read). */
/** (A run file leaves out `order` when it is premise first.) */
function pairId({ premise, hypothesis, order = 'premise_first' }) {
  const bytes = (s) => Buffer.byteLength(s, 'utf8');
  return sha256(`tabprobe-pair-v1\n${order}\n${bytes(premise)}\n${premise}\n${bytes(hypothesis)}\n${hypothesis}`).slice(0, 16);
}

/** What a model elsewhere said of the pair `id`: probabilities from its digits, so every pair
 *  differs and nothing resembles the tiny model. */
function elsewhere(id) {
  const w = [0, 4, 8].map((k) => parseInt(id.slice(k, k + 4), 16) + 1);
  const sum = w.reduce((a, b) => a + b, 0);
  return Object.fromEntries(LABELS.map((l, i) => [l, w[i] / sum]));
}

const argmax = (probs) => LABELS.reduce((best, l) => (probs[l] > probs[best] ? l : best), LABELS[0]);

async function download(page, testid) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()]);
  return { name: d.suggestedFilename(), text: await readFile(await d.path(), 'utf8') };
}

async function savedRuns(page) {
  await page.getByTestId('nav-results').click();
  await page.getByTestId('results').waitFor();
  await page.waitForTimeout(300);
  return page.getByTestId('saved-run').count();
}

test('a scores file is a model: pairs out, scores in, side by side with a loaded model, shared; bad files refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tabprobe-scores-'));
  const { page, errors } = await openPage(browser, server.url);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  await page.getByTestId('model-input').setInputFiles(tiny);
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'paper')) await box.click();
  }
  await page.getByTestId('probe-word_order').check();
  await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor();

  // 1. The pairs of both models' probe sets: every line has the id of exactly what it holds.
  const main = await download(page, 'download-pairs');
  assert.equal(main.name, 'infotabs-demo.pairs.jsonl');
  const second = await download(page, 'download-pairs-second');
  assert.equal(second.name, 'infotabs-demo.second-model.pairs.jsonl');
  const lines = second.text.trim().split('\n').map((l) => JSON.parse(l));
  const mainLines = main.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.match(await page.getByTestId('pairs-status').innerText(), new RegExp(`${lines.length} pairs`));
  for (const l of lines.concat(mainLines)) {
    assert.equal(l.id, pairId(l), `${l.hypothesis}: the id is the digest of what the model reads`);
    assert.deepEqual(l.labels, LABELS);
    assert.equal(l.linearization, 'infotabs_compat');
  }
  assert.ok(lines.some((l) => l.premise === ''), 'the second model also reads every hypothesis alone');
  assert.ok(!mainLines.some((l) => l.premise === ''));
  assert.ok(lines.length > mainLines.length);

  // 2. A bad scores file: refused by name, count and first line; the slot stays empty.
  const scored = lines.map((l) => ({ id: l.id, probs: elsewhere(l.id) }));
  const bad = scored.map((s, i) => (i === 2 || i === 5 ? { id: s.id, probs: { ENTAIL: 0.6, NEUTRAL: 0.3, CONTRADICT: 0.2 } } : s));
  await writeFile(join(dir, 'bad.scores.jsonl'), bad.map((s) => JSON.stringify(s)).join('\n') + '\n');
  await page.getByTestId('scores-input-second').setInputFiles(join(dir, 'bad.scores.jsonl'));
  const refusal = await page.getByTestId('model2-error').innerText({ timeout: 30_000 });
  assert.match(refusal, /bad\.scores\.jsonl: 2 line\(s\) give probabilities that are not the dataset's labels, finite, at least 0 and summing to 1 \(± 0\.001\); the first is line 3: the probabilities sum to 1\.1/);
  assert.equal(await page.getByTestId('model2-name').count(), 0, 'nothing was loaded');

  // 3. The good file, named by the user: a model in the second slot, identified by its digest.
  const good = scored.map((s) => JSON.stringify(s)).join('\n') + '\n';
  const goodPath = join(dir, 'llm.scores.jsonl');
  await writeFile(goodPath, good);
  const digest = sha256(Buffer.from(good));
  await page.getByTestId('scores-name-second').fill('elsewhere-llm');
  await page.getByTestId('scores-input-second').setInputFiles(goodPath);
  await page.getByTestId('model2-name').filter({ hasText: 'elsewhere-llm' }).waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('model2-hash').innerText(), digest.slice(0, 12));
  assert.match(await page.getByTestId('model2-meta').innerText(), new RegExp(`imported scores · llm\\.scores\\.jsonl .* · ${lines.length} pairs · probabilities`));
  assert.match(await page.getByTestId('model2-backend').innerText(), /scores file/);
  await snap(page, 'scores-imported-second-model');
  const before = await savedRuns(page);

  // 4. Both run side by side; the imported run's probabilities are the file's.
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
  const models = await page.getByTestId('result-model').allInnerTexts();
  assert.deepEqual(models, ['model', 'elsewhere-llm'], 'picked files are named "model"');
  assert.equal(await page.getByTestId('result-imported').count(), 1);
  // The graphs are a later stage of the report (built after it opens): wait for them.
  await page.locator('[data-testid=model-column][data-model="elsewhere-llm"]').first().waitFor({ timeout: 60_000 });
  assert.ok(await page.locator('[data-testid=model-column][data-model="model"]').count() > 0, 'a column of its own beside the tiny model');
  // The run files, one per model, in the report's order (one download at a time).
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').nth(1).click()]);
  const imported = JSON.parse(await readFile(await d.path(), 'utf8'));
  assert.equal(imported.model.name, 'elsewhere-llm');
  assert.equal(imported.model.weights_sha256, digest);
  assert.equal(imported.model.scores_file, true);
  const byId = new Map(scored.map((s) => [s.id, s.probs]));
  let worst = 0;
  for (const p of imported.pairs) {
    const want = byId.get(pairId(p.pair));
    assert.ok(want, `${p.pair.hypothesis}: a pair of the downloaded file`);
    LABELS.forEach((l, i) => { worst = Math.max(worst, Math.abs(p.score.probs[i] - want[l])); });
  }
  assert.equal(imported.pairs.length, lines.length, 'every pair of the file is in the run');
  assert.ok(worst < 1e-6, `probabilities as imported (f32): max |Δp| = ${worst}`);
  await snap(page, 'scores-run-side-by-side');

  // 5. Share one of the imported model's results: the link names it and the file's digest.
  const column = page.locator('[data-testid=model-column][data-model="elsewhere-llm"]').first();
  const edge = column.getByTestId('edge').first();
  await edge.focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('drill').waitFor();
  const row = page.getByTestId('drill-item').first();
  await row.getByTestId('copy-link').click();
  const link = await row.getByTestId('share-link').inputValue();
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await routeManifest(context);
    const shared = await context.newPage();
    await shared.goto(link);
    await shared.getByTestId('shared-result').waitFor();
    assert.equal(await shared.getByTestId('share-model-name').innerText(), 'elsewhere-llm');
    assert.equal(await shared.getByTestId('share-model-hash').innerText(), digest.slice(0, 12));
    assert.match(await shared.locator('.share-model').innerText(), /imported scores, file SHA-256/);
    await snap(shared, 'scores-shared-result');
    await context.close();
  }
  await page.keyboard.press('Escape');
  const afterGood = await savedRuns(page);
  assert.equal(afterGood, before + 1);

  // 6. A file made for another probe set: the run is refused before scoring, nothing saved.
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('probe-word_order').uncheck();
  await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor();
  await page.waitForTimeout(400);
  await page.getByTestId('run').click();
  const runError = await page.getByTestId('run-error').innerText({ timeout: 120_000 });
  assert.match(runError, /llm\.scores\.jsonl: \d+ line\(s\) name no pair of this probe set; the first is line \d+/);
  assert.equal(await savedRuns(page), afterGood, 'the refused run saved nothing');

  // 7. Labels alone: a run whose word-order entropies are n/a, every other figure computed.
  const labelsPath = join(dir, 'labels.scores.jsonl');
  await writeFile(labelsPath, scored.map((s) => JSON.stringify({ id: s.id, label: argmax(s.probs) })).join('\n') + '\n');
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('probe-word_order').check();
  await page.getByTestId('scores-name-second').fill('');
  await page.getByTestId('scores-input-second').setInputFiles(labelsPath);
  await page.getByTestId('model2-name').filter({ hasText: /^labels$/ }).waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('model2-meta').innerText(), /labels only/);
  await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor();
  await page.waitForTimeout(400);
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
  assert.equal(await page.getByTestId('result-label-only').count(), 1);
  // The report's tables are built in the worker after the report opens: wait for the note.
  await page.locator('#word-order .note').filter({ hasText: /^entropy: n\/a — the model's scores file gives some pairs a label without probabilities/ }).first().waitFor({ timeout: 60_000 });
  await snap(page, 'scores-label-only-run');
  assert.deepEqual(errors, []);
});
