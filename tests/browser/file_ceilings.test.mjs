// Issue 47 item 3: every checkpoint file is held to its kind's ceiling (core's
// checkpoint::ceiling: a config.json 1 MiB, a tokenizer_config.json 4 MiB, a tokenizer.json
// 64 MiB, …), from "Load from URL", "Load from the Hub", picked files and the browser's cache
// alike. A config.json that never ends, one that announces 3.2 GB and a gzip bomb (200 KB that
// inflate to 200 MB) were read up to the weights' 2 GiB before anything refused them; now each
// is refused within moments, the message names the file, its ceiling and what was announced
// or read, and the model loaded before stays. The misbehaving server is harness.mjs's
// `serveHostile` (`/hostile/<target>-<how>/` and, as a Hub, `/hostile-hub/`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, openPage, snap, testModels } from './harness.mjs';

/** Console errors the hostile downloads provoke on purpose. */
const EXPECTED = /Failed to load resource|net::ERR_/;
const unexpected = (errors) => errors.filter((e) => e.startsWith('pageerror') || !EXPECTED.test(e));

/** The longest a refusal may take (the goal is about 2 s; measured ones are logged). */
const REFUSED_WITHIN_MS = 3000;

const { server, browser } = await openSite();
const tiny = join(testModels, 'tiny-f32');

/** A page with the tiny test model loaded from its URL: the model that must stay. */
async function pageWithTiny() {
  const opened = await openPage(browser, server.url);
  await loadUrl(opened.page, `${server.url}test-models/tiny-f32/`);
  await opened.page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor({ timeout: 120_000 });
  return opened;
}

async function loadUrl(page, url) {
  await page.getByTestId('model-url').fill(url);
  await page.getByTestId('model-url-load').click();
}

/** Runs `start`, waits for the model bar's error to match `want`, and checks that the model
 *  loaded before is still there; returns the error and how long the refusal took (ms). */
async function refused(page, what, start, want) {
  const started = Date.now();
  await start();
  const error = page.getByTestId('model-error').filter({ hasText: want });
  await error.waitFor({ timeout: 60_000 });
  const ms = Date.now() - started;
  const text = await error.innerText();
  console.log(`# ${what}: refused in ${ms} ms: ${text}`);
  assert.ok(ms < REFUSED_WITHIN_MS, `${what}: refused after ${ms} ms`);
  // The model bar says the model loaded before is still loaded, and shows it.
  assert.ok(text.endsWith(' — tiny-f32 is still loaded.'), `${what}: ${text}`);
  assert.match(await page.getByTestId('model-name').innerText(), /tiny-f32/, `${what}: the loaded model stays`);
  return text;
}

/** What each misbehaviour's message says, for a file whose ceiling reads `most`. */
const says = (file, most) => ({
  endless: new RegExp(`stopped after reading [\\d.]+ (kB|MB): a ${file.replace('.', '\\.')} is at most ${most} \\(a body that never ends, or a compressed one that inflates past it\\)`),
  'huge-length': new RegExp(`: the server announces 3\\.20 GB; a ${file.replace('.', '\\.')} is at most ${most} — `),
  'gzip-bomb': new RegExp(`stopped after reading [\\d.]+ (kB|MB): a ${file.replace('.', '\\.')} is at most ${most} \\(a body`),
});
const HOWS = ['endless', 'huge-length', 'gzip-bomb'];

test('from a URL: a config.json or tokenizer.json that never ends, announces 3.2 GB or is a gzip bomb is refused at its ceiling; the model stays, nothing of it is cached', async () => {
  const { page, errors } = await pageWithTiny();
  for (const [target, file, most] of [['config', 'config.json', '1\\.0 MB'], ['tokenizer', 'tokenizer.json', '67\\.1 MB']]) {
    for (const how of HOWS) {
      const base = `${server.url}hostile/${target}-${how}/`;
      const text = await refused(page, `URL ${file} ${how}`, () => loadUrl(page, base), says(file, most)[how]);
      assert.ok(text.startsWith(`${file} (${base}${file})`), `names the file and its URL: ${text}`);
    }
  }
  await snap(page, '95-url-config-ceiling');
  const cached = await page.evaluate(async () => (await (await caches.open('tabprobe-models-v1')).keys()).map((r) => r.url));
  assert.deepEqual(cached.filter((u) => /hostile\/(config-[a-z-]+\/config|tokenizer-[a-z-]+\/tokenizer)\.json$/.test(u)), [], 'nothing refused was cached');
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});

test('from the Hub: a config.json or tokenizer_config.json that never ends, announces 3.2 GB or is a gzip bomb is refused at its ceiling; the model stays', async () => {
  const { page, errors } = await pageWithTiny();
  await page.getByTestId('hub-form').locator('summary').click();
  await page.getByTestId('hub-endpoint').fill(`${server.url}hostile-hub`);
  for (const [target, file, most] of [['config', 'config.json', '1\\.0 MB'], ['tokenizer-config', 'tokenizer_config.json', '4\\.2 MB']]) {
    for (const how of HOWS) {
      const name = `tabprobe-test/${target}-${how}`;
      const text = await refused(page, `Hub ${file} ${how}`, async () => {
        await page.getByTestId('hub-name').fill(name);
        await page.getByTestId('hub-load').click();
      }, says(file, most)[how]);
      assert.ok(text.startsWith(`${file} (${server.url}hostile-hub/${name}/resolve/main/${file})`), `names the file and its URL: ${text}`);
    }
  }
  await snap(page, '96-hub-tokenizer-config-ceiling');
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});

test('picked files past their ceilings are refused by their size before any is read; a cached entry past its ceiling is dropped and downloaded again', async () => {
  const { page, errors } = await pageWithTiny();
  const files = async (config) => [
    { name: 'config.json', mimeType: 'application/json', buffer: config },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: await readFile(join(tiny, 'model.safetensors')) },
    { name: 'tokenizer.json', mimeType: 'application/json', buffer: await readFile(join(tiny, 'tokenizer.json')) },
  ];
  const large = Buffer.alloc(2_000_000, 0x20);
  await refused(page, 'picked config.json of 2 MB', async () => page.getByTestId('model-input').setInputFiles(await files(large)),
    /^config\.json holds 2\.0 MB; a config\.json is at most 1\.0 MB — /);
  // An entry in the model cache past its ceiling (as a build without ceilings could have
  // cached it) is not used: it is dropped, downloaded again, and the model loads.
  const url = `${server.url}test-models/tiny-f32/config.json`;
  await page.evaluate(async ([u, n]) => {
    const cache = await caches.open('tabprobe-models-v1');
    await cache.put(u, new Response(' '.repeat(n), { headers: { 'content-type': 'application/json' } }));
  }, [url, large.length]);
  await loadUrl(page, `${server.url}test-models/tiny-f32/`);
  // Loaded: neither a status line nor an error (the picked files' error was there before).
  await page.waitForFunction(() => !document.querySelector('[data-testid="model-status"], [data-testid="model-error"]'),
    null, { timeout: 120_000, polling: 100 });
  const size = await page.evaluate(async (u) => (await (await (await caches.open('tabprobe-models-v1')).match(u)).blob()).size, url);
  assert.equal(size, (await readFile(join(tiny, 'config.json'))).length, 'the cached config.json is the one downloaded again');
  await page.getByTestId('model-name').filter({ hasText: 'tiny-f32' }).waitFor();
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});
