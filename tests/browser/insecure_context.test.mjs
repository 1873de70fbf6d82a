// The site served where the browser gives it no secure context: plain http on a name other
// than localhost (a LAN address, a static host without TLS). There the Cache API (`caches`),
// `navigator.clipboard` and Web Crypto's `crypto.subtle` do not exist. The page must load the
// bundled demo model without its cache, the worker must hash the weights without Web Crypto
// (the same SHA-256 as Node's), and a share link must be shown for copying by hand — each with
// no page error. Chromium is told to resolve `insecure.test` to the test server, so the
// page's origin is http://insecure.test:PORT/, which is not potentially trustworthy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, openPage, snap, fixtures } from './harness.mjs';

const models = join(fixtures, '..', '..', 'public', 'models');
const manifest = JSON.parse(await readFile(join(models, 'index.json'), 'utf8'));
const defaultFolder = manifest.models.find((m) => m.role === 'default').path.replace(/^models\//, '');

let server;
let browser;
let base;
before(async () => {
  server = await serveDist();
  browser = await launch(['--host-resolver-rules=MAP insecure.test 127.0.0.1']);
  base = server.url.replace('127.0.0.1', 'insecure.test');
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('without a secure context the bundled model loads, hashed in wasm, and a share link is offered for copying by hand', async () => {
  const weights = await readFile(join(models, defaultFolder, 'model.safetensors'));
  const sha256 = createHash('sha256').update(weights).digest('hex');
  const { page, errors } = await openPage(browser, base, { bundled: true });
  assert.equal(await page.evaluate(() => isSecureContext), false, `${base} is not a secure context`);
  assert.deepEqual(await page.evaluate(() => [typeof caches, typeof navigator.clipboard]), ['undefined', 'undefined']);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  // The default model arrives by itself, downloaded without the Cache API.
  await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('model-hash').getAttribute('title'), sha256);
  assert.equal(await page.getByTestId('model-error').count(), 0);

  // A rewrite suggestion's share link: the clipboard is missing, so the page says to copy it.
  await page.goto(`${base}#/`);
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  await page.getByTestId('hypothesis').filter({ hasText: 'paper-H1' }).getByTestId('rewrite').click();
  const negation = page.locator('[data-testid=suggestion][data-probe=negation]');
  await negation.waitFor({ timeout: 60_000 });
  await negation.getByTestId('copy-link').click();
  await negation.getByTestId('share-note').filter({ hasText: 'Copy the link below' }).waitFor();
  const link = await negation.getByTestId('share-link').inputValue();
  assert.ok(link.startsWith(base), link);
  const shared = await browser.newPage();
  await shared.goto(link);
  await shared.getByTestId('shared-result').waitFor();
  assert.equal(await shared.getByTestId('share-operation').innerText(), 'negation');
  await shared.close();
  await snap(page, '80-insecure-context');
  assert.deepEqual(errors, []);
  await page.close();
});
