// The site as a new user opens it, with the REAL bundled demo models of public/models/: the
// default model loads by itself and scores the hypotheses of the table you open; the bundled
// hypothesis-only model, loaded as the second model, is given an empty premise for every pair
// of a probe run (it was trained on hypotheses alone), while the main model reads the table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, openPage, snap, fixtures } from './harness.mjs';

const root = join(fixtures, '..', '..');
const models = join(root, 'public', 'models');
const manifest = JSON.parse(await readFile(join(models, 'index.json'), 'utf8'));
const sha256 = async (file) => createHash('sha256').update(await readFile(file)).digest('hex');
const folder = (role) => manifest.models.find((m) => m.role === role).path.replace(/^models\//, '');

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

async function downloadRun(page, index) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-json').nth(index).click(),
  ]);
  return JSON.parse(await readFile(await download.path(), 'utf8'));
}

test('a fresh page loads the bundled default model and scores the opened table; the hypothesis-only model reads empty premises', async () => {
  const fullHash = await sha256(join(models, folder('default'), 'model.safetensors'));
  const hypHash = await sha256(join(models, folder('second'), 'model.safetensors'));
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser, server.url, { bundled: true });
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    // No click on any model control: the default model arrives by itself.
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
    assert.equal(await page.getByTestId('model-hash').getAttribute('title'), fullHash);
    assert.equal(await page.getByTestId('linearization').inputValue(), 'paragraph');

    // Bridesmaids (T996): every hypothesis gets the bundled model's prediction.
    await page.getByTestId('table-item').filter({ hasText: 'T996' }).click();
    const hypotheses = await page.getByTestId('hypothesis').count();
    assert.ok(hypotheses >= 10, `T996 has its hypotheses (${hypotheses})`);
    await page.getByTestId('prediction').nth(hypotheses - 1).waitFor({ timeout: 180_000 });
    const probs = await page.getByTestId('prediction').evaluateAll((ps) => ps.map((p) => JSON.parse(p.dataset.probs)));
    assert.equal(probs.length, hypotheses);
    for (const p of probs) {
      assert.equal(p.length, 3);
      assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-4, `probabilities sum to 1: ${p}`);
    }
    await snap(page, '50-bundled-default-model');

    // The bundled hypothesis-only model as the second model; a premise-removal run on the
    // paper split with both models.
    await page.getByTestId('load-bundled-second').click();
    await page.getByTestId('model2-name').waitFor({ timeout: 120_000 });
    assert.equal(await page.getByTestId('model2-hash').getAttribute('title'), hypHash);
    // The second model says where it runs, its size and what it holds in the worker, as the
    // first does.
    assert.match(await page.getByTestId('model2-backend').innerText(), /^(CPU|WebGPU)/);
    assert.match(await page.getByTestId('model2-meta').innerText(), /^RoBERTa · [\d.]+ M parameters · \d+ layers · hidden \d+/);
    assert.match(await page.getByTestId('model2-meta').getAttribute('title'), /^the model worker holds [\d.]+ MB after loading/);
    await page.getByTestId('model2-hypothesis-only').waitFor();
    await page.getByTestId('nav-runner').click();
    await page.getByTestId('runner').waitFor();
    for (const s of ['dev', 'paper', 'train']) {
      const box = page.getByTestId(`split-${s}`);
      if ((await box.isChecked()) !== (s === 'paper')) await box.click();
    }
    await page.getByTestId('probe-premise_removal').check();
    assert.ok(await page.getByTestId('use-second').isChecked());
    await page.getByTestId('run').click();
    await page.getByTestId('run-report').waitFor({ timeout: 300_000 });
    const main = await downloadRun(page, 0);
    const second = await downloadRun(page, 1);
    assert.equal(main.model.weights_sha256, fullHash);
    assert.equal(second.model.weights_sha256, hypHash);
    assert.ok(main.pairs.some((p) => p.pair.premise.length > 0), 'the main model reads table text');
    assert.ok(second.pairs.length > 0);
    assert.ok(second.pairs.every((p) => p.pair.premise === ''), 'the hypothesis-only model reads no premise');
    // It reads them in core's premise mode, which the run file records; without premises the
    // premise-removal pairs are their originals, so it scores fewer distinct pairs.
    assert.equal(second.settings.linearization.premise, 'hypothesis_only');
    assert.equal(main.settings.linearization.premise, undefined);
    assert.ok(second.pairs.length < main.pairs.length, `${second.pairs.length} < ${main.pairs.length}`);
    await snap(page, '51-bundled-both-models-results');
    // The run table's truncated_pairs row lists exactly the items whose original or perturbed
    // premise was cut. With 256 tokens only some paper tables are cut, so the list is a proper
    // subset of the items (the 96-token fixture model in runner.test.mjs cuts all of them).
    const truncatedIds = main.items.filter((it) =>
      main.pairs[it.original_pair].score.truncated || main.pairs[it.perturbed_pair].score.truncated).map((it) => it.id);
    assert.ok(truncatedIds.length > 0 && truncatedIds.length < main.items.length,
      `some but not all items truncated (${truncatedIds.length} of ${main.items.length})`);
    await page.locator('details.all-tables summary').first().click();
    await page.locator('[data-file="run"] tbody tr')
      .filter({ has: page.locator('td', { hasText: /^truncated_pairs$/ }) }).first().click();
    await page.getByTestId('drill').waitFor();
    const listed = await page.getByTestId('drill-item').evaluateAll((rs) => rs.map((r) => r.querySelector('code').textContent));
    assert.deepEqual([...listed].sort(), [...truncatedIds].sort());
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
