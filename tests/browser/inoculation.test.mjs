// Inoculation (issue 13, paper §7) in a real browser on the CPU fallback: run a row-deletion
// probe with the bundled demo model, click "Inoculate", watch it train (progress with phase,
// elapsed and remaining), read the tables and the named outcome, drill a figure down to its
// items, reload (the result is kept in IndexedDB), and load the fine-tuned model as the second
// model. The same inoculation run natively by `tabprobe inoculate` gives the same accuracies
// (within 1e-4) and the same dev accuracies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, openPage, snap, fixtures } from './harness.mjs';

const root = join(fixtures, '..', '..');
// The CLI `cargo test --workspace` builds (debug); TABPROBE overrides it (e.g. a release build).
const cli = process.env.TABPROBE ?? join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'debug', 'tabprobe');
const SIZES = '4,8';
const LRS = '1e-3,1e-4';
const EPOCHS = 2;

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

/** Keeps only the `keep` split checked. */
async function onlySplit(page, keep) {
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === keep)) await box.click();
  }
}

async function download(page, testid) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).first().click()]);
  return JSON.parse(await readFile(await d.path(), 'utf8'));
}

/** Accuracy of every cell kind as core counts it, recomputed from a result file. */
function accuracies(result) {
  const out = {};
  const correct = (it, m) => it.expected.includes(it.predicted[m]);
  for (let m = 0; m < result.models.length; m++) {
    const groups = {
      original: result.items.filter((i) => i.class === 'original'),
      challenge: result.items.filter((i) => i.class !== 'original'),
    };
    for (const [k, items] of Object.entries(groups)) {
      out[`${m}/${k}`] = items.filter((i) => correct(i, m)).length / items.length;
    }
  }
  return out;
}

test('inoculate in the browser: progress, Tables 9–12, outcome, drill-down, kept after reload, second model; equals the CLI', async () => {
  const browser = await launch();
  const dir = await mkdtemp(join(tmpdir(), 'tabprobe-inoculation-'));
  try {
    const { page, errors } = await openPage(browser, server.url, { bundled: true, viewport: { width: 1280, height: 900 } });
    await page.getByTestId('model-name').filter({ hasText: 'infotabs-full' }).waitFor({ timeout: 120_000 });
    await page.getByTestId('nav-runner').click();
    await onlySplit(page, 'paper');
    await page.getByTestId('run').click();
    await page.getByTestId('run-report').waitFor({ timeout: 180_000 });
    const run = await download(page, 'export-json');
    const resultsUrl = page.url();
    await writeFile(join(dir, 'run.json'), JSON.stringify(run));

    const panel = page.getByTestId('inoculation');
    await panel.scrollIntoViewIfNeeded();
    // The paper's sizes are too large for the paper split: refused with the numbers.
    assert.match(await page.getByTestId('inoculation-plan-error').innerText(), /n = 300 needs 300 items/);
    assert.ok(await page.getByTestId('inoculate').isDisabled());
    await page.getByTestId('inoculation-sizes').fill(SIZES);
    // The plan says what is trained on and what only evaluated, and why: row deletion from
    // the two NEUTRAL examples (7 rows each) has one expected label.
    const plan = await page.getByTestId('inoculation-plan').innerText();
    assert.match(plan, /14 have one expected label/, plan);
    assert.match(plan, /evaluated only — their rule allows several labels/, plan);
    await page.getByTestId('inoculation-lrs').fill(LRS);
    await page.getByTestId('inoculation-epochs').fill(String(EPOCHS));
    const started = Date.now();
    await page.getByTestId('inoculate').click();
    await page.getByTestId('inoculation-progress').waitFor();
    await page.getByTestId('inoculation-phase').filter({ hasText: /epoch \d of 2, step/ }).waitFor({ timeout: 120_000 });
    assert.match(await page.getByTestId('inoculation-elapsed').innerText(), /\d+ s/);
    await snap(page, '90-inoculation-training');
    await page.getByTestId('inoculation-result').waitFor({ timeout: 300_000 });
    const seconds = (Date.now() - started) / 1000;
    await page.getByTestId('inoculation-result').scrollIntoViewIfNeeded();
    await snap(page, '91-inoculation-result');
    const result = await download(page, 'inoculation-json');
    assert.equal(result.format, 'tabprobe-inoculation');
    assert.deepEqual(result.models.map((m) => m.size), [0, 4, 8]);
    assert.equal(result.grid.length, 4);
    // Every figure on screen equals its count in the result file.
    const cells = await page.getByTestId('inoculation-cell').evaluateAll((cs) => cs.map((c) => ({ ...c.dataset, text: c.textContent })));
    assert.ok(cells.length >= 3 * 5, `${cells.length} cells`);
    for (const c of cells) {
      const counted = result.items.filter((it) => {
        if (c.split !== it.split) return false;
        if (c.column === 'OriginalTest') return it.class === 'original';
        if (c.column === 'ChallengeOriginal') return it.class === 'original' && it.held_out_items > 0;
        const cls = { 'Challenge(Preserved)': 'preserved', 'Challenge(Flipped)': 'flipped', 'Challenge(Several)': 'several' }[c.column];
        return it.class === cls;
      });
      const right = counted.filter((it) => it.expected.includes(it.predicted[Number(c.model)])).length;
      assert.equal(Number(c.total), counted.length, JSON.stringify(c));
      assert.equal(Number(c.correct), right, JSON.stringify(c));
      assert.equal(c.text, counted.length ? (100 * right / counted.length).toFixed(2) : '–');
    }
    // The outcome is named for each size.
    const outcomes = await page.getByTestId('inoculation-outcome').allInnerTexts();
    assert.equal(outcomes.length, 2);
    for (const o of outcomes) assert.match(o, /^n = \d+: (Outcome [123] —|none of §7's three outcomes)/, o);
    // A figure drills down to exactly the items it counts.
    const several = page.locator('[data-testid="inoculation-cell"][data-column="Challenge(Several)"][data-model="2"]');
    const total = Number(await several.getAttribute('data-total'));
    await several.click();
    assert.equal(Number(await page.getByTestId('inoculation-drill').getAttribute('data-count')), total);
    assert.equal(await page.getByTestId('inoculation-item').count(), Math.min(total, 200));
    await snap(page, '92-inoculation-drill');

    // The CLI on the same run file gives the same accuracies.
    await promisify(execFile)(cli, [
      'inoculate', '--model', join(root, 'public', 'models', 'infotabs-full'), '--run', join(dir, 'run.json'),
      '--probes', 'row_deletion', '--sizes', SIZES, '--lrs', LRS, '--epochs', String(EPOCHS), '--out', join(dir, 'out'),
    ], { maxBuffer: 1 << 26 });
    const native = JSON.parse(await readFile(join(dir, 'out', 'inoculation.json'), 'utf8'));
    const [a, b] = [accuracies(result), accuracies(native)];
    for (const k of Object.keys(b)) assert.ok(Math.abs(a[k] - b[k]) <= 1e-4, `${k}: browser ${a[k]} vs native ${b[k]}`);
    for (const [g, h] of result.grid.map((g, i) => [g, native.grid[i]])) {
      assert.ok(Math.abs(g.dev_accuracy - h.dev_accuracy) <= 1e-4, `grid ${g.size}/${g.learning_rate}`);
      assert.equal(g.chosen, h.chosen);
    }
    console.log(`browser inoculation ${seconds.toFixed(1)} s (result says ${result.seconds.toFixed(1)} s); native ${native.seconds.toFixed(1)} s; accuracies ${JSON.stringify(a)}`);

    // Load the n = 8 model as the second model and re-run the probe with both models.
    await page.locator('[data-testid="load-inoculated"][data-size="8"]').click();
    await page.getByTestId('inoculation-to-runner').click();
    await page.getByTestId('model2-name').filter({ hasText: 'inoculated n=8' }).waitFor({ timeout: 120_000 });
    assert.equal(await page.getByTestId('model2-hash').getAttribute('title'), result.models[2].weights_sha256);
    assert.ok(await page.getByTestId('use-second').isChecked());
    await page.getByTestId('run').click();
    await page.getByTestId('run-report').waitFor({ timeout: 180_000 });
    const files = page.getByTestId('export-json');
    assert.equal(await files.count(), 2, 'a run file per model');
    const [d] = await Promise.all([page.waitForEvent('download'), files.nth(1).click()]);
    const rerun = JSON.parse(await readFile(await d.path(), 'utf8'));
    assert.equal(rerun.model.weights_sha256, result.models[2].weights_sha256);
    // The fine-tuned model's predictions of the originals are the ones the inoculation
    // reported for it.
    for (const it of result.items.filter((i) => i.class === 'original')) {
      const pair = rerun.pairs[rerun.examples[it.example].pair];
      const probs = pair.score.probs;
      const best = probs.indexOf(Math.max(...probs));
      assert.equal(['ENTAIL', 'NEUTRAL', 'CONTRADICT'][best], it.predicted[2], it.id);
    }

    // A reload keeps the result (IndexedDB); the weights are gone and the page says so.
    await page.goto(resultsUrl);
    await page.reload();
    await page.getByTestId('inoculation-result').waitFor({ timeout: 60_000 });
    await page.getByTestId('inoculation-weights-gone').waitFor();
    assert.equal(await page.getByTestId('inoculation-outcome').count(), 2);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('WebGPU: the worker fine-tunes on the GPU path; cancel keeps nothing; the download is a Hugging Face folder', async () => {
  const browser = await launch(['--enable-unsafe-webgpu']);
  try {
    const { page, errors } = await openPage(browser, server.url);
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    await page.getByTestId('nav-runner').click();
    await page.getByTestId('backend-choice').selectOption('webgpu');
    const tiny = join(root, 'crates', 'model', 'tests', 'golden', 'tiny-f32');
    await page.getByTestId('model-input').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(tiny, f)));
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
    assert.equal(await page.getByTestId('model-backend').innerText(), 'WebGPU');
    await onlySplit(page, 'paper');
    await page.getByTestId('run').click();
    await page.getByTestId('run-report').waitFor({ timeout: 180_000 });
    await page.getByTestId('inoculation').scrollIntoViewIfNeeded();
    // A long grid, cancelled once it trains: the page says nothing was kept.
    await page.getByTestId('inoculation-sizes').fill('4');
    await page.getByTestId('inoculation-epochs').fill('50');
    await page.getByTestId('inoculation-patience').fill('50');
    await page.getByTestId('inoculate').click();
    await page.getByTestId('inoculation-phase').filter({ hasText: /step/ }).waitFor({ timeout: 120_000 });
    await page.getByTestId('inoculation-cancel').click();
    await page.getByTestId('inoculation-error').filter({ hasText: 'cancelled' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId('inoculation-result').count(), 0);
    // A short one finishes on WebGPU.
    await page.getByTestId('inoculation-epochs').fill('2');
    await page.getByTestId('inoculation-lrs').fill('1e-3');
    await page.getByTestId('inoculate').click();
    await page.getByTestId('inoculation-result').waitFor({ timeout: 300_000 });
    const result = await download(page, 'inoculation-json');
    assert.deepEqual(result.models.map((m) => m.size), [0, 4]);
    assert.notEqual(result.models[1].weights_sha256, result.models[0].weights_sha256, 'training changed the weights');
    // The download: config.json, model.safetensors (the kept weights) and tokenizer.json.
    const got = new Map();
    const all = new Promise((resolve) => {
      page.on('download', async (d) => {
        got.set(d.suggestedFilename(), await readFile(await d.path()));
        if (got.size === 3) resolve();
      });
    });
    await page.locator('[data-testid="download-inoculated"][data-size="4"]').click();
    await all;
    // Picked files carry no folder name: the model is called "model".
    const name = (f) => `${result.model.name}-inoculated-n4-${f}`;
    assert.deepEqual([...got.keys()].sort(), ['config.json', 'model.safetensors', 'tokenizer.json'].map(name));
    assert.deepEqual(got.get(name('config.json')), await readFile(join(tiny, 'config.json')));
    const sha = (await import('node:crypto')).createHash('sha256').update(got.get(name('model.safetensors'))).digest('hex');
    assert.equal(sha, result.models[1].weights_sha256);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
