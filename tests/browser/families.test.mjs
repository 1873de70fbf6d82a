// Every model family through the page (issue 16): each tiny random checkpoint made by
// transformers (crates/model/tests/golden/families/, written by make_golden_families.py) is
// picked as files, loaded in the worker, named with its architecture and parameter count in the
// model bar, and its logits for the golden pairs equal transformers' within 1e-4 — on the CPU
// fallback for every family and on WebGPU for both DeBERTa fixtures (gathers, its own
// attention) and BART (the encoder-decoder).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, openPage, snap, fixtures } from './harness.mjs';

const familiesDir = join(fixtures, '..', '..', 'crates', 'model', 'tests', 'golden', 'families');
const golden = JSON.parse(await readFile(join(familiesDir, 'golden.json'), 'utf8'));
const TOLERANCE = 1e-4;
/** The model bar's names for the families (Family::display_name). */
const DISPLAY = {
  BertForSequenceClassification: 'BERT',
  DistilBertForSequenceClassification: 'DistilBERT',
  ElectraForSequenceClassification: 'ELECTRA',
  XLMRobertaForSequenceClassification: 'XLM-RoBERTa',
  DebertaV2ForSequenceClassification: 'DeBERTa-v2/v3',
  BartForSequenceClassification: 'BART',
};

/** The golden pairs as a dataset of plain-text premises (labels are irrelevant here). */
function goldenDataset() {
  const examples = golden.pairs
    .map((p, i) => ({ id: `g${i}`, premise: p.premise, hypothesis: p.hypothesis, label: 'ENTAIL' }))
    .filter((e) => e.hypothesis.trim() !== '');
  return { format: 'tabprobe-dataset', version: 1, name: 'Golden pairs', tables: [], examples };
}

/** "86,019" for 86019, as the model bar writes counts under a million. */
const grouped = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} M` : n.toLocaleString('en-US'));

let server;
before(async () => { server = await serveDist(); });
after(async () => { await server?.close(); });

/** Loads one family's checkpoint in a fresh page, scores the golden pairs, returns the worst
 *  |logit difference| from transformers. */
async function checkFamily(browser, name, choice, backendPattern, shot) {
  const family = golden.families[name];
  const { page, errors } = await openPage(browser, server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  // "The faster" would be the CPU on a software adapter: the WebGPU run asks for WebGPU.
  await page.getByTestId('backend-choice').selectOption(choice);
  const dataset = goldenDataset();
  await page.getByTestId('file-input').setInputFiles({
    name: 'golden-pairs.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(dataset)),
  });
  await page.getByTestId('dataset-name').filter({ hasText: 'golden-pairs.json' }).waitFor();
  const files = ['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(familiesDir, family.dir, f));
  await page.getByTestId('model-input').setInputFiles(files);
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('model-hash').getAttribute('title'), family.weights_sha256, name);
  const meta = await page.getByTestId('model-meta').innerText();
  const expected = `${DISPLAY[family.architecture]} · ${grouped(family.parameter_count)} parameters`;
  assert.ok(meta.startsWith(expected), `${name}: model bar says "${meta}", expected it to start with "${expected}"`);
  assert.match(await page.getByTestId('model-backend').innerText(), backendPattern);
  await page.getByTestId('text-premises-item').click();
  await page.getByTestId('scoring-status').filter({ hasText: 'model right on' }).waitFor({ timeout: 180_000 });
  const items = await page.getByTestId('hypothesis').all();
  assert.equal(items.length, dataset.examples.length);
  let worst = 0;
  for (const [k, item] of items.entries()) {
    const index = Number(dataset.examples[k].id.slice(1));
    const logits = JSON.parse(await item.getByTestId('prediction').getAttribute('data-logits'));
    const want = family.logits[index];
    assert.equal(logits.length, want.length);
    for (let j = 0; j < want.length; j++) worst = Math.max(worst, Math.abs(logits[j] - want[j]));
  }
  assert.ok(worst <= TOLERANCE, `${name}: max |logit - transformers| = ${worst}`);
  if (shot) await snap(page, shot);
  assert.deepEqual(errors, []);
  await page.close();
  return worst;
}

async function checkFamilies(browser, names, choice, backendPattern, shot) {
  const report = [];
  for (const name of names) {
    const worst = await checkFamily(browser, name, choice, backendPattern, name === names[0] ? shot : null);
    report.push(`${name} ${worst.toExponential(2)}`);
  }
  console.log(`# max |logit diff| vs transformers: ${report.join(', ')}`);
}

test('CPU fallback: every family loads through the page and matches transformers within 1e-4', async () => {
  const browser = await launch();
  try {
    await checkFamilies(browser, Object.keys(golden.families), 'auto', /^CPU \(WebGPU unavailable: .+\)$/, '40-families-cpu');
  } finally {
    await browser.close();
  }
});

test('WebGPU: DeBERTa-v3, DeBERTa-v2 and BART match transformers within 1e-4', async () => {
  const browser = await launch(['--enable-unsafe-webgpu']);
  try {
    await checkFamilies(browser, ['deberta-v3', 'deberta-v2', 'bart'], 'webgpu', /^WebGPU$/, '41-families-webgpu');
  } finally {
    await browser.close();
  }
});
