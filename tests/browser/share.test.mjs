// Share links (issue 6 item 7): a link copied in the editor opens in a fresh browser context
// with no dataset and shows the same result; re-running with the loaded model reproduces it
// and a different model is flagged; links carrying markup stay inert text; corrupted,
// truncated and foreign links give a clear message; a result too large for a link becomes a
// result file that the share view opens. Links are also built independently of the Rust
// encoder, from the documented format (share_links.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, snap, testModels, routeManifest, fixtures, watchLongTasks, longTasksSince } from './harness.mjs';
import { linkOf, linkOfMegabytes, largestResult, tinyRows, LEAST_COMPRESSIBLE, WIDEST } from './share_links.mjs';

const golden = JSON.parse(await readFile(join(testModels, 'golden.json'), 'utf8'));

// `gc()` for the long-task test: each case starts without the garbage of the one before.
const { server, browser } = await openSite(['--js-flags=--expose-gc']);

/** A fresh context with the demo dataset loaded and no bundled model, failing on any page or
 *  console error; `watch`: its long tasks watched from the start (`watchLongTasks`). */
async function demoPage({ watch = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await routeManifest(context);
  if (watch) await watchLongTasks(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await page.goto(server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  return { context, page, errors };
}

/** A fresh context in which the demo dataset cannot load: nothing is loaded but the link. */
async function freshPage(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await routeManifest(context); // no bundled model: the test loads the one it means
  await context.route('**/demo/dataset.json', (r) => r.abort());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // The blocked demo request is expected here.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  return { context, page, errors };
}

const probs = async (locator) => JSON.parse(await locator.getByTestId('prediction').getAttribute('data-probs'));

async function loadModel(page, dir) {
  await page.getByTestId('model-url').fill(`${server.url}test-models/${dir}/`);
  await page.getByTestId('model-url-load').click();
  await page.getByTestId('model-name').filter({ hasText: dir }).waitFor({ timeout: 120_000 });
}

test('a link copied in the editor opens with no dataset and shows the same result', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await routeManifest(context); // no bundled model: the test loads the one it means
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(server.url);
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await loadModel(page, 'tiny-f32');
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  await page.getByTestId('hypothesis').filter({ hasText: 'paper-H2' }).getByTestId('edit-table').click();
  await page.getByTestId('row-editor').nth(0).getByTestId('value-input').first().fill('29 December 1979');
  await page.locator('[data-testid=score-before][data-state=done]').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500); // past the debounce: the edited side is being re-scored
  await page.locator('[data-testid=score-after][data-state=done]').waitFor({ timeout: 60_000 });
  const before = await probs(page.getByTestId('score-before'));
  const afterProbs = await probs(page.getByTestId('score-after'));
  await page.getByTestId('copy-link').click();
  await page.getByTestId('share-note').filter({ hasText: 'Link copied' }).waitFor();
  const link = await page.getByTestId('share-link').inputValue();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  assert.ok(link.startsWith(`${server.url}#/share/v1.`), link);
  console.log(`# share link of a typical INFOTABS edit (paper-H2, Breakfast in America): ${link.length} characters (${link.length - server.url.length} after the site address)`);
  assert.ok(link.length < 2000);
  await snap(page, '30-share-link-copied');
  assert.deepEqual(errors, []);
  await context.close();

  // A fresh context: no dataset (the demo is blocked), no model.
  const fresh = await freshPage(link);
  const p = fresh.page;
  await p.getByTestId('shared-result').waitFor();
  assert.equal(await p.getByTestId('dataset-name').innerText(), '');
  assert.equal(await p.getByTestId('share-origin').innerText(), 'dataset example paper-H2, table edited by hand');
  assert.equal(await p.getByTestId('share-hyp-before').innerText(), 'Breakfast in America was released at the end of 1979.');
  assert.equal(await p.getByTestId('share-operation').innerText(), 'hand edit table');
  assert.equal(await p.getByTestId('share-model-name').innerText(), 'tiny-f32');
  assert.equal(await p.getByTestId('share-model-hash').getAttribute('title'), golden.variants.f32.weights_sha256);
  assert.equal(await p.getByTestId('share-linearization').innerText(), 'infotabs compat, premise first');
  assert.deepEqual(await probs(p.getByTestId('share-pred-before')), before);
  assert.deepEqual(await probs(p.getByTestId('share-pred-after')), afterProbs);
  // The link's figures are its claim until a re-run with the same weights confirms them.
  assert.match(await p.getByTestId('share-pred-claimed').innerText(), /^claimed by the link \(not re-run here\)$/);
  assert.equal(await p.getByTestId('share-hash-claimed').innerText(), '(claimed by the link)');
  assert.equal(await p.getByTestId('diff-summary').innerText(), '1 changed');
  await snap(p, '31-share-opened-no-dataset');
  // Re-run: disabled without a model; with the same model the numbers come back.
  assert.equal(await p.getByTestId('rerun').isDisabled(), true);
  await loadModel(p, 'tiny-f32');
  assert.equal(await p.getByTestId('hash-warning').count(), 0);
  await p.getByTestId('rerun').click();
  await p.getByTestId('rerun-predictions').waitFor({ timeout: 60_000 });
  const close = (a, b) => a.every((x, i) => Math.abs(x - b[i]) < 1e-6);
  assert.ok(close(await probs(p.getByTestId('rerun-before')), before));
  assert.ok(close(await probs(p.getByTestId('rerun-after')), afterProbs));
  assert.match(await p.getByTestId('share-pred-claimed').innerText(), /confirmed by your re-run with the same weights/);
  // A model with other weights: the page says so.
  await p.getByTestId('model-input').setInputFiles([
    join(testModels, 'tiny-bf16', 'config.json'), join(testModels, 'tiny-bf16', 'model.safetensors'), join(testModels, 'tiny-f32', 'tokenizer.json'),
  ]);
  await p.locator(`[data-testid=model-hash][title="${golden.variants.bf16.weights_sha256}"]`).waitFor({ timeout: 120_000 });
  assert.match(await p.getByTestId('hash-warning').innerText(), /is not the one that produced this result \(tiny-f32 \([0-9a-f]{12}\)\): its weights differ/);
  await snap(p, '32-share-rerun-other-model');
  assert.deepEqual(fresh.errors, []);
  await fresh.context.close();
});

const evilTable = (value) => ({
  kind: 'key_value',
  id: 'T<1>',
  title: '<img src=x onerror="window.__pwned=\'title\'">',
  rows: [
    { key: '<script>window.__pwned="key"</script>', values: [value, '<a href="javascript:window.__pwned=1">click</a>'] },
    { key: 'Genre', values: ['<b>bold</b> & "quoted"'] },
  ],
});
const evil = {
  origin: '<script>window.__pwned="origin"</script>',
  example_id: '<img src=x onerror="window.__pwned=\'id\'">',
  operation: '<b>hand_edit_table</b>',
  before: { table: evilTable('<i>one</i>'), hypothesis: '<script>window.__pwned="hyp"</script> is <i>true</i>' },
  after: { table: evilTable('<svg onload="window.__pwned=\'svg\'"></svg>'), hypothesis: '<iframe src="javascript:parent.__pwned=1"></iframe>' },
  gold: 'ENTAIL',
  expectation: { kind: 'label', labels: ['CONTRADICT'] },
  model: { name: '<img src=x onerror="window.__pwned=\'model\'">', weights_sha256: '<script>1</script>', label_set: 'three_way' },
  predictions: { before: { probs: [0.7, 0.2, 0.1] }, after: { probs: [0.1, 0.2, 0.7] } },
  linearization: { strategy: 'paragraph', order: 'premise_first' },
};

test('a link full of markup shows it as text and runs nothing', async () => {
  const { context, page, errors } = await freshPage(`${server.url}#/share/${linkOf(evil)}`);
  await page.getByTestId('shared-result').waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  const result = page.getByTestId('shared-result');
  assert.equal(await result.locator('img, script, iframe, b, i, a[href^="javascript"]').count(), 0);
  // The only SVG is the page's own one-edge transition graph, drawn from the link's labels.
  assert.equal(await result.locator('svg').count(), await result.locator('[data-testid=one-edge] svg').count());
  assert.equal(await page.getByTestId('share-origin').innerText(), evil.origin);
  assert.equal(await page.getByTestId('share-hyp-before').innerText(), evil.before.hypothesis);
  assert.equal(await page.getByTestId('share-hyp-after').innerText(), evil.after.hypothesis);
  assert.equal(await page.getByTestId('share-model-name').innerText(), evil.model.name);
  assert.equal(await page.getByTestId('share-example').innerText(), evil.example_id);
  const tableText = await result.getByTestId('table-view').first().innerText();
  assert.ok(tableText.includes(evilTable('').title), tableText);
  assert.ok(tableText.includes('<b>bold</b> & "quoted"'), tableText);
  assert.ok(tableText.includes('<script>window.__pwned="key"</script>'), tableText);
  await snap(page, '33-share-markup-inert');
  await page.setViewportSize({ width: 560, height: 900 });
  await snap(page, '36-share-narrow');
  assert.deepEqual(errors, []);
  await context.close();
});

test('corrupted, truncated and foreign links say what is wrong', async () => {
  const good = linkOf({ ...evil, origin: 'plain', model: undefined });
  const cases = [
    [good.slice(0, good.length - 25), /^this link is truncated: it holds \d+ of its \d+ bytes; copy the whole link again/],
    [good.slice(0, 40) + (good[40] === 'A' ? 'B' : 'A') + good.slice(41), /^this link is damaged: its checksum does not match/],
    [good.slice(0, 30) + '*' + good.slice(31), /^this link is corrupted: character '\*' at position 31 cannot occur in a link/],
    [good.replace('v1.', 'v7.'), /^this link was made by a different version of tabprobe \(link format v7; this site reads v1\)/],
    ['hello-world', /^this is not a tabprobe share link/],
  ];
  for (const [k, [payload, want]] of cases.entries()) {
    const { context, page, errors } = await freshPage(`${server.url}#/share/${payload}`);
    const message = await page.getByTestId('share-error-message').innerText();
    assert.match(message, want, `case ${k}: ${message}`);
    assert.equal(await page.getByTestId('shared-result').count(), 0);
    if (k < 2) await snap(page, `34-share-${k === 0 ? 'truncated' : 'corrupted'}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
  // The untouched link opens.
  const { context, page } = await freshPage(`${server.url}#/share/${good}`);
  await page.getByTestId('shared-result').waitFor();
  await context.close();
});

test('a result too large for a link becomes a result file that the share view opens', async () => {
  const { context, page, errors } = await freshPage(server.url);
  // This test needs the demo: let it through in this context.
  await context.unroute('**/demo/dataset.json');
  await page.reload();
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  await page.getByTestId('hypothesis').filter({ hasText: 'paper-H1' }).getByTestId('edit-table').click();
  // 3,000 pseudo-random characters barely compress.
  let x = 12345;
  const noise = Array.from({ length: 3000 }, () => { x = (x * 1103515245 + 12345) % 2147483648; return 'abcdefghijklmnopqrstuvwxyz0123456789'[x % 36]; }).join('');
  await page.getByTestId('row-editor').nth(2).getByTestId('value-input').first().fill(noise);
  await page.getByTestId('copy-link').click();
  const notice = page.getByTestId('share-too-long');
  assert.match(await notice.innerText(), /too large for a link \(\d+ characters; links stay under 2000\)\. Download it as a result file/);
  await snap(page, '35-share-too-long-file');
  const href = await page.getByTestId('share-file').getAttribute('href');
  const json = decodeURIComponent(href.slice(href.indexOf(',') + 1));
  assert.equal(JSON.parse(json).format, 'tabprobe-share');
  await page.goto(`${server.url}#/share`);
  await page.getByTestId('result-file').setInputFiles({ name: 'tabprobe-result.json', mimeType: 'application/json', buffer: Buffer.from(json) });
  await page.getByTestId('shared-result').waitFor();
  assert.match(await page.getByTestId('shared-result').getByTestId('table-diff').innerText(), new RegExp(noise.slice(0, 40)));
  // A broken file names itself and the JSON path.
  await page.goto(`${server.url}#/`);
  await page.goto(`${server.url}#/share`);
  await page.getByTestId('result-file').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"tabprobe-share","version":1,"result":{"origin":3}}') });
  assert.match(await page.getByTestId('share-error-message').innerText(), /^broken\.json: at result\.origin: invalid type/);
  assert.deepEqual(errors, []);
  await context.close();
});

// Issue 12 §4: a link may inflate to far more than any real result; the page refuses it at
// decoding, quickly, stays usable, and keeps the dataset the researcher had loaded.
test('oversized links are refused quickly and the loaded dataset stays', async () => {
  const { context, page, errors } = await demoPage();
  const items = await page.getByTestId('table-item').count();
  assert.ok(items > 0);
  const many = (n, key = (i) => `k${i}`) => ({
    kind: 'key_value', id: 'T-big', title: 'Big', rows: Array.from({ length: n }, (_, i) => ({ key: key(i), values: ['v'] })),
  });
  const base = { origin: 'hostile', operation: 'hand_edit_table', linearization: { strategy: 'infotabs_compat', order: 'premise_first' } };
  const cases = [
    // The 48 KB links of tests/fixtures/hostile/ (330,000 rows; 2 × 165,000 rows, edited):
    // 8.9 MB of JSON, more than any result within the limits takes.
    [(await readFile(join(fixtures, 'hostile', 'share-330k-rows.link'), 'utf8')).trim(), /^this result is too large to open: its data expands past 7\.6 MB, more than any result within the share limits takes$/],
    [(await readFile(join(fixtures, 'hostile', 'share-2x165k-rows.link'), 'utf8')).trim(), /^this result is too large to open: its data expands past 7\.6 MB/],
    // One row past the limit.
    [linkOf({ ...base, before: { table: many(1001), hypothesis: 'h' }, after: { hypothesis: 'h' } }), /the original table holds 1001 rows, more than the 1000/],
    // One text past 10,000 characters.
    [linkOf({ ...base, before: { hypothesis: 'x'.repeat(10001) }, after: { hypothesis: 'h' } }), /the original hypothesis holds 10001 characters, more than the 10000/],
    // A relational table whose records do not match its two header columns (1, 0 and 3
    // cells): opened, "Open in editor" → "Save as probe item" would put it in the working
    // dataset, which would then not load back (issue 36, item 2). Refused by the dataset
    // validator's own rule.
    [linkOf({ ...base, before: { table: { kind: 'relational', id: 'R1', caption: 'Ragged', header: ['Year', 'Title'], rows: [['1979'], [], ['1980', 'b', 'c']] }, hypothesis: 'The record came out in 1979.' }, after: { hypothesis: 'The record came out in 1979.' } }),
      /^this result's original breaks a dataset rule \(row length\) at table\.rows\[0\]: expected 2 cells \(one per header column\), found 1; it was not opened, so it cannot enter your dataset$/],
    // Probabilities no model outputs.
    [linkOf({ ...base, before: { hypothesis: 'h' }, after: { hypothesis: 'h' }, predictions: { before: { probs: [1.5, -0.25, -0.25] }, after: { probs: [0.2, 0.2, 0.2] } } }), /^this result's the prediction on the original is not a model's output: probability 1\.5 is outside \[0, 1\]$/],
    [linkOf({ ...base, before: { hypothesis: 'h' }, after: { hypothesis: 'h' }, predictions: { before: { probs: [0.5, 0.25, 0.25] }, after: { probs: [0.2, 0.2, 0.2] } } }), /^this result's the prediction on the edited item is not a model's output: its probabilities sum to 0\.6/],
  ];
  for (const [k, [payload, want]] of cases.entries()) {
    const started = Date.now();
    await page.evaluate((hash) => { window.location.hash = hash; }, `#/share/${payload}`);
    const message = await page.getByTestId('share-error-message').innerText({ timeout: 10_000 });
    const ms = Date.now() - started;
    console.log(`# oversized link case ${k} (${payload.length} characters): error shown in ${ms} ms`);
    assert.match(message, want, `case ${k}: ${message}`);
    assert.ok(ms < 5000, `case ${k}: ${ms} ms`);
    assert.equal(await page.getByTestId('shared-result').count(), 0);
    if (k === 0) await snap(page, '37-share-oversized-link');
    // The page stays usable and the loaded dataset is still there.
    await page.evaluate(() => { window.location.hash = '#/'; });
    await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
    assert.equal(await page.getByTestId('table-item').count(), items);
  }
  // The same limits apply to a result file.
  await page.evaluate(() => { window.location.hash = '#/share'; });
  const file = JSON.stringify({ format: 'tabprobe-share', version: 1, result: { ...base, before: { table: many(1001), hypothesis: 'h' }, after: { hypothesis: 'h' } } });
  await page.getByTestId('result-file').setInputFiles({ name: 'big-result.json', mimeType: 'application/json', buffer: Buffer.from(file) });
  assert.match(await page.getByTestId('share-error-message').innerText(), /^big-result\.json: this result is too large to open: the original table holds 1001 rows/);
  await page.evaluate(() => { window.location.hash = '#/'; });
  await page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  assert.equal(await page.getByTestId('table-item').count(), items);
  assert.deepEqual(errors, []);
  await context.close();
});

// Issue 47 item 5: a link's length is checked before it is decoded and its JSON's size and
// count of values before it is parsed; decoding and drawing go a slice at a time. A 15 MB
// link and links whose JSON runs past what any result within the share limits takes are
// refused with a named error, the largest links and result file within the limits are shown
// (their first rows, then all on request) — and no task of the page's thread takes 50 ms or
// more meanwhile (before: 0.5 s for the 15 MB link, 0.8 s for 15 MB of JSON, 5 to 8 s for the
// largest links).
test('links past the share limits are refused and the largest within them shown, with no long task on the page\'s thread', async () => {
  const { context, page, errors } = await demoPage({ watch: true });
  // Both tables and the comparison show their first rows and a button each for the rest.
  const firstRows = async () => {
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="show-all-rows"]').length === 3, null, { timeout: 60_000, polling: 100 });
    assert.match(await page.getByTestId('show-all-rows').first().innerText(), /^Show the other \d+ rows$/);
    const shown = await page.locator('[data-testid="table-view"] tbody tr:not(.more-rows)').count();
    assert.ok(shown >= 2 && shown < 400, `${shown} rows drawn at first`);
  };
  // Once asked, they are drawn to their last row (every row differs: the comparison has
  // 1,000 removed and 1,000 added). That is the browser's layout of 40,000 cells, frames of
  // 100 ms and more, logged here and not held to the goal.
  const allRows = async (what) => {
    const t0 = await page.evaluate(() => performance.now());
    const more = page.getByTestId('show-all-rows');
    while (await more.count()) await more.first().click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="table-view"] tbody tr').length === 2000
      && document.querySelectorAll('[data-testid="diff-row"]').length === 2000, null, { timeout: 60_000, polling: 100 });
    const longest = Math.max(0, ...(await longTasksSince(page, t0)).map((t) => t.duration));
    console.log(`# ${what}: all rows drawn on request; the longest task meanwhile ${longest.toFixed(0)} ms`);
  };
  const cases = [
    ['a link of 15 MB', linkOfMegabytes(15), new RegExp(`^this link is too long to open: 150\\d{5} characters, more than the 10096159 any result within the share limits can need; it was not decoded$`)],
    ['a link of 250,000 tiny rows (6.8 MB of JSON)', linkOf(tinyRows(250_000)), new RegExp(`^this result is too large to open: its JSON holds 1500029 values, more than the 49056 any result within the share limits holds$`)],
    ['a link of 560,000 tiny rows (15 MB of JSON)', linkOf(tinyRows(560_000)), new RegExp(`^this result is too large to open: its data expands past 7\\.6 MB, more than any result within the share limits takes$`)],
    ['the link with the most JSON the limits allow (5.9 MB)', linkOf(largestResult(WIDEST)), null],
    ['the longest link the limits allow', linkOf(largestResult(LEAST_COMPRESSIBLE)), null],
  ];
  // The page's long tasks since `t0` (its part of each, not the browser's handing over of
  // picked files).
  const longSince = async (t0) => {
    await page.waitForTimeout(300);
    return (await longTasksSince(page, t0)).filter((t) => t.pagePart >= 50)
      .map((t) => `${t.pagePart.toFixed(0)} ms of the page's at ${(t.start - t0).toFixed(0)} ms`);
  };
  // Opens `link` and returns the page's long tasks meanwhile.
  const open = async (what, link, refusal) => {
    await page.evaluate(() => { window.location.hash = '#/'; });
    await page.getByTestId('dataset-name').waitFor();
    // The garbage of the case before (a result drawn whole leaves 40,000 cells) is not this
    // case's to collect.
    await page.evaluate(() => window.gc());
    await page.waitForTimeout(500);
    const t0 = await page.evaluate(() => performance.now());
    const started = Date.now();
    await page.evaluate((hash) => { window.location.hash = hash; }, `#/share/${link}`);
    if (refusal) {
      assert.match(await page.getByTestId('share-error-message').innerText({ timeout: 30_000 }), refusal, what);
    } else {
      await page.getByTestId('shared-result').waitFor({ timeout: 30_000 });
      await firstRows();
    }
    const long = await longSince(t0);
    console.log(`# ${what} (${link.length} characters): ${refusal ? 'refused' : 'shown'} in ${Date.now() - started} ms; the page's long tasks: ${long.join(', ') || 'none'}`);
    return long;
  };
  for (const [what, link, refusal] of cases) {
    // A second try when the first had a long task: on a machine busy with other work (two
    // cores, another build) a task of a few milliseconds is sometimes stretched past 50 ms
    // by waiting for a core. Work the page really does in one task fails both.
    const long = (await open(what, link, refusal)).length ? await open(`${what}, again`, link, refusal) : [];
    assert.deepEqual(long, [], what);
  }
  // The last one shown, drawn whole on request.
  await allRows(cases.at(-1)[0]);
  // The largest result file the limits allow, as the site writes it (pretty-printed); the
  // browser's own work of handing the picked file over is not the page's.
  await page.evaluate(() => { window.location.hash = '#/share'; });
  const file = JSON.stringify({ format: 'tabprobe-share', version: 1, result: largestResult(WIDEST) }, null, 2);
  const t0 = await page.evaluate(() => performance.now());
  await page.getByTestId('result-file').setInputFiles({ name: 'largest.json', mimeType: 'application/json', buffer: Buffer.from(file) });
  await page.getByTestId('shared-result').waitFor({ timeout: 30_000 });
  await firstRows();
  assert.deepEqual(await longSince(t0), [], 'the largest result file');
  assert.deepEqual(errors, []);
  await context.close();
});
