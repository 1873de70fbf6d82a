// "Load from the Hugging Face Hub" (issue 36, item 4) against a local stand-in that answers
// like the Hub — never the real Hub: `/<org>/<name>/resolve/<revision>/<file>` serves the small
// files and redirects model.safetensors to a second server on another host (127.0.0.2, as the
// Hub redirects to its storage), with CORS headers as the Hub sends them. A missing model
// answers 404, a gated one 401, and a checkpoint with only pytorch_model.bin 404 for
// model.safetensors. The Hub address is the form's "Hub address" field (HF_ENDPOINT's role).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, routeManifest, snap, testModels } from './harness.mjs';

const golden = JSON.parse(await readFile(join(testModels, 'golden.json'), 'utf8'));
const { server, browser } = await openSite();
const tiny = join(testModels, 'tiny-f32');
const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-length' };
const asked = [];

/** Listens on `host` at a free port; returns the base URL. */
async function listen(handler, host) {
  const s = createServer(handler);
  await new Promise((resolve) => s.listen(0, host, resolve));
  after(() => new Promise((r) => { s.close(r); s.closeAllConnections(); }));
  return `http://${host}:${s.address().port}`;
}

// The Hub's storage: serves blobs by name.
const storage = await listen(async (req, res) => {
  asked.push(`storage ${req.url}`);
  if (req.url === '/blobs/tiny-weights') {
    res.writeHead(200, { ...cors, 'content-type': 'application/octet-stream' });
    res.end(await readFile(join(tiny, 'model.safetensors')));
  } else {
    res.writeHead(404, cors).end('no such blob');
  }
}, '127.0.0.2');

const hub = await listen(async (req, res) => {
  asked.push(`hub ${req.url}`);
  const m = req.url.match(/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/([^/]+)$/);
  if (!m) return res.writeHead(404, cors).end('Entry not found');
  const [, repo, revision, file] = m;
  if (repo === 'tabprobe-test/gated') return res.writeHead(401, cors).end('Access to this model is restricted');
  const models = { 'tabprobe-test/tiny-nli': 'v1', 'tabprobe-test/bin-only': 'main' };
  if (!(repo in models) || ![models[repo], 'main'].includes(revision)) return res.writeHead(404, cors).end('Revision not found');
  if (file === 'model.safetensors') {
    if (repo === 'tabprobe-test/bin-only') return res.writeHead(404, cors).end('Entry not found');
    res.writeHead(302, { ...cors, location: `${storage}/blobs/tiny-weights` });
    return res.end();
  }
  // tiny-nli's tokenizer_config.json sets a shorter input than its 96 positions, as
  // save_pretrained writes it; bin-only has none (the Hub answers 404, as for many models).
  if (file === 'tokenizer_config.json' && repo === 'tabprobe-test/tiny-nli') {
    res.writeHead(200, { ...cors, 'content-type': 'application/json' });
    return res.end(JSON.stringify({ model_max_length: 40, tokenizer_class: 'RobertaTokenizer' }));
  }
  if (!['config.json', 'tokenizer.json'].includes(file)) return res.writeHead(404, cors).end('Entry not found');
  res.writeHead(200, { ...cors, 'content-type': 'application/json' });
  res.end(await readFile(join(tiny, file)));
}, '127.0.0.1');

async function hubPage() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await routeManifest(page);
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  // A 404 or 401 is logged by the browser itself; anything else is a failure.
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`); });
  await page.goto(server.url);
  await page.getByTestId('hub-form').locator('summary').click();
  await page.getByTestId('hub-endpoint').fill(hub);
  return { page, errors };
}

async function loadFromHub(page, name, revision = '') {
  await page.getByTestId('hub-name').fill(name);
  await page.getByTestId('hub-revision').fill(revision);
  await page.getByTestId('hub-load').click();
}

test('a model named org/name loads from the Hub, the weights through a redirect to another host', async () => {
  const { page, errors } = await hubPage();
  await loadFromHub(page, 'tabprobe-test/tiny-nli', 'v1');
  await page.getByTestId('model-name').filter({ hasText: 'tabprobe-test/tiny-nli' }).waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
  // tokenizer_config.json's model_max_length (40) is below the network's 96 positions: inputs
  // are cut at 40 tokens, as transformers cuts them.
  assert.ok(asked.includes('hub /tabprobe-test/tiny-nli/resolve/v1/tokenizer_config.json'), asked.join('\n'));
  assert.match(await page.getByTestId('model-meta').innerText(), /max 40 tokens/);
  assert.ok(asked.includes('hub /tabprobe-test/tiny-nli/resolve/v1/model.safetensors'), asked.join('\n'));
  assert.ok(asked.includes('storage /blobs/tiny-weights'), 'the weights came from the other host');
  await snap(page, '90-hub-loaded');
  // A second load of the same revision comes from the browser's cache, not the Hub.
  const before = asked.length;
  await page.reload();
  await page.getByTestId('hub-form').locator('summary').click();
  await page.getByTestId('hub-endpoint').fill(hub);
  await loadFromHub(page, 'tabprobe-test/tiny-nli@v1');
  await page.getByTestId('model-name').filter({ hasText: 'tabprobe-test/tiny-nli' }).waitFor({ timeout: 120_000 });
  assert.deepEqual(asked.slice(before), [], 'nothing was downloaded again');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a missing model, a gated one and one with only pytorch_model.bin say what is wrong', async () => {
  const { page, errors } = await hubPage();
  const cases = [
    ['tabprobe-test/no-such-model', '', /^tabprobe-test\/no-such-model: the Hub has no such model or revision \(.*\/tabprobe-test\/no-such-model\/resolve\/main\/config\.json answered 404\)/],
    ['tabprobe-test/tiny-nli', 'v9', /^tabprobe-test\/tiny-nli: the Hub has no such model or revision \(.*\/resolve\/v9\/config\.json answered 404\)/],
    ['tabprobe-test/gated', '', /^config\.json \(.*\): the server answered 401 Unauthorized: the model is gated or private\. tabprobe sends no login or token/],
    ['tabprobe-test/bin-only', '', /^tabprobe-test\/bin-only has no model\.safetensors .* If it has only pytorch_model\.bin, convert it once: .*`tabprobe convert-weights FOLDER`/],
    ['not a name/at/all', '', /^"not a name\/at\/all" is not a Hugging Face model name: expected org\/name/],
  ];
  for (const [name, revision, want] of cases) {
    await loadFromHub(page, name, revision);
    const error = page.getByTestId('model-error');
    await error.filter({ hasText: want }).waitFor({ timeout: 30_000 });
    assert.match(await error.innerText(), want, name);
  }
  await snap(page, '91-hub-gated');
  assert.equal(await page.getByTestId('model-name').count(), 0, 'no model was loaded');
  assert.deepEqual(errors, []);
  await page.close();
});
