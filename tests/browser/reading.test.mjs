// Reading the results without the paper, narrow windows and the first visit (issue 18 §4 and
// parts of §5), each checked at 1280 px and at 400 px: the shorthand's tooltips on hover and
// keyboard focus with a link to the glossary, one unit (%) for every share, Tables 4/7 as
// bars with ±sd error bars, transition-graph labels ≥ 12 px on screen, a single split shown
// once, rows named by key with 1-based numbers in every view, jump links only to sections the
// run has; the compact header at 400 px, the first hypothesis in the first viewport, the
// editor's prediction beside the rows being edited, the first-visit guidance, and every
// navigation opening its view at the top.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSite, openPage, snap, fixtures, graphLabelSpills } from './harness.mjs';

const { server, browser } = await openSite();
const WIDTHS = [1280, 400];
const HEIGHT = 800;
const root = join(fixtures, '..', '..');
const goldenDir = join(root, 'crates', 'model', 'tests', 'golden');
const MODEL = ['config.json', 'model.safetensors'].map((f) => join(goldenDir, 'tiny-f32', f))
  .concat(join(goldenDir, 'tiny-f32', 'tokenizer.json'));

/** A page of `width` on the demo dataset. */
async function openDemo(width) {
  const opened = await openPage(browser, server.url, { viewport: { width, height: HEIGHT } });
  await opened.page.getByTestId('dataset-name').filter({ hasText: 'INFOTABS demo' }).waitFor();
  return opened;
}

/** Loads the golden test model and runs `probes` on the paper split (the runner's form). */
async function runProbes(page, probes, extra = async () => {}) {
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('runner').waitFor();
  if (!(await page.getByTestId('model-name').isVisible())) {
    await page.getByTestId('model-input').setInputFiles(MODEL);
    await page.getByTestId('model-name').waitFor({ timeout: 120_000 });
  }
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'paper')) await box.click();
  }
  for (const box of await page.locator('[data-testid^="probe-"][type="checkbox"]').all()) {
    const name = (await box.getAttribute('data-testid')).slice('probe-'.length);
    if ((await box.isChecked()) !== probes.includes(name)) await box.click();
  }
  await extra();
  await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor();
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 240_000 });
}

async function downloadRun(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-json').first().click(),
  ]);
  return JSON.parse(await readFile(await download.path(), 'utf8'));
}

/** The keys of a key–value table premise of a run example. */
const keysOf = (ex) => ex.input.premise.value.rows.map((r) => r.key ?? r[0]);

/** A term's tooltip shows on hover and on keyboard focus, says something, and links to the
 *  glossary entry of the docs' anchor. */
async function checkTerm(page, term, anchor, width, shot) {
  await term.scrollIntoViewIfNeeded();
  const tip = term.getByTestId('term-tip');
  assert.equal(await tip.isVisible(), false, `${anchor}: hidden until asked for`);
  await term.hover();
  await tip.waitFor({ state: 'visible' });
  const text = await tip.innerText();
  assert.ok(text.length > 30, `${anchor}: ${text}`);
  assert.equal(await term.getAttribute('aria-describedby'), await tip.getAttribute('id'));
  assert.equal(await term.getByTestId('term-link').getAttribute('href'), `#/about/${anchor}`);
  // Keyboard: the term is focusable and its focus alone shows the line.
  await page.mouse.move(0, 0);
  await tip.waitFor({ state: 'hidden' });
  assert.equal(await term.getAttribute('tabindex'), '0');
  await term.focus();
  await tip.waitFor({ state: 'visible' });
  const box = await tip.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= width + 1, `${anchor}: tooltip inside the window at ${width} px`);
  if (shot) await page.screenshot({ path: join(root, 'tests', 'artifacts', `${shot}.png`) });
  await term.blur();
}

test('first visit: a guidance sentence, a compact header, the first hypothesis in the first viewport; each navigation opens at the top', async () => {
  for (const width of WIDTHS) {
    const { page, errors } = await openDemo(width);
    const guidance = page.getByTestId('guidance');
    await guidance.waitFor();
    assert.match(await guidance.innerText(), /INFOTABS demo.*Pick a hypothesis.*Probe runner/s);
    const g = await guidance.boundingBox();
    assert.ok(g.y < 200, `guidance where the eye lands (y = ${g.y}) at ${width} px`);
    const header = await page.locator('.app-header').boundingBox();
    assert.ok(header.height <= 72, `header ${header.height} px tall at ${width} px`);
    const hyp = await page.getByTestId('hypotheses').locator('li').first().boundingBox();
    assert.ok(hyp.y + 24 <= HEIGHT, `first hypothesis at y = ${hyp.y} at ${width} px`);
    await snap(page, `reading-first-visit-${width}`);
    // At 400 px the header scrolls away instead of covering the page.
    await page.evaluate(() => window.scrollTo(0, 600));
    const after = await page.locator('.app-header').boundingBox();
    if (width === 400) assert.ok(after.y + after.height <= 0, `header left the viewport: ${JSON.stringify(after)}`);
    // Navigation from a scrolled view opens the next at its top.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    assert.ok(await page.evaluate(() => window.scrollY) > 0);
    await page.getByTestId('nav-runner').click();
    await page.getByTestId('runner').waitFor();
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => window.scrollY), 0, `runner opens at the top at ${width} px`);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.getByTestId('nav-results').click();
    await page.getByTestId('results').waitFor();
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => window.scrollY), 0, `results open at the top at ${width} px`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('results read without the paper: tooltips, %, the Tables 4/7 plot, graph labels, one split, rows by key, jump links, editor at 400 px', async () => {
  const { page, errors } = await openDemo(1280);
  await runProbes(page, ['row_deletion', 'negation', 'title_swap', 'word_order'], async () => {
    await page.getByTestId('word-order-q').fill('4');
    await page.getByTestId('word-order-q').press('Enter');
    await page.getByTestId('word-order-target').selectOption('hypothesis');
    // Table 8 needs hypothesis-only scores (O-Hypo).
    await page.getByTestId('hypothesis-only').check();
  });
  const run = await downloadRun(page);
  const runUrl = page.url();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    // By the route, not a reload: the model stays loaded for the editor's predictions.
    await page.evaluate((h) => { window.location.hash = h; }, new URL(runUrl).hash);
    await page.getByTestId('run-report').waitFor();
    await snap(page, `reading-results-${width}`);
    const head = await page.locator('.app-header').boundingBox();
    assert.ok(head.height <= 72, `header ${head.height} px tall on the results at ${width} px`);

    // Jump links: exactly the sections on the page, each leading to one.
    const toc = await page.getByTestId('toc-link').evaluateAll((as) => as.map((a) => a.dataset.section));
    assert.deepEqual(toc, ['accuracy', 'graphs', 'scores', 'table8', 'evidence', 'word-order', 'inoculation']);
    for (const id of toc) assert.equal(await page.locator(`#${id}`).count(), 1, id);

    // Tooltips on the paper's shorthand, on hover and on focus, with the glossary link.
    const term = (file, anchor) => page.locator(`[data-file="${file}"] thead [data-term="${anchor}"]`).first();
    await checkTerm(page, term('table8_paired_label_preserving', 'glossary-c-thp'), 'glossary-c-thp', width, `reading-tooltip-${width}`);
    await checkTerm(page, term('table8_paired_label_preserving', 'glossary-o-hypo'), 'glossary-o-hypo', width);
    await checkTerm(page, term('table8_paired_label_preserving', 'glossary-in-paper'), 'glossary-in-paper', width);
    await checkTerm(page, term('evidence', 'glossary-ignores-premise-within-none'), 'glossary-ignores-premise-within-none', width);
    await checkTerm(page, term('word_order', 'glossary-omega-max'), 'glossary-omega-max', width);
    await checkTerm(page, term('word_order', 'glossary-p-c'), 'glossary-p-c', width);
    for (const t of ['c_thp', 'o_thp', 'o_hypo', 'in_paper']) {
      assert.equal(await page.locator(`#table8 [data-file="table8_paired_label_preserving"] thead th[data-column="${t}"] [data-testid="term"]`).count(), 1, t);
    }

    // One unit: every share reads as a percentage, word order (UNLI's fractions) included.
    const cell = (file, column) => page.locator(`[data-file="${file}"] tbody tr`).first().locator('td').nth(column);
    for (const [file, column] of [['word_order', 'omega_max'], ['word_order', 'accuracy'], ['evidence', 'precision'], ['table4_scores', 'original_mean'], ['table1_accuracy', 'accuracy']]) {
      const names = await page.locator(`[data-file="${file}"] thead th`).evaluateAll((ths) => ths.map((th) => th.dataset.column));
      const k = names.indexOf(column);
      assert.ok(k >= 0, `${file} has ${column}: ${names}`);
      const text = await cell(file, k).innerText();
      assert.match(text, /^\d+\.\d{2}%$/, `${file}.${column} = ${text}`);
    }
    for (const t of await page.getByTestId('invalid-cell').allInnerTexts()) assert.match(t, /^\d+\.\d{2}%$/);
    for (const t of await page.getByTestId('edge-label').allTextContents()) assert.match(t, /^\d+\.\d%$/);

    // Tables 4 and 7 as bars with ±sd error bars: one bar per mean of the tables' `all` rows.
    for (const file of ['table4_scores', 'table7_scores']) {
      const plot = page.locator(`[data-testid="score-plot"][data-file="${file}"]`);
      assert.equal(await plot.count(), 1, `${file} plot`);
      const means = await page.locator(`#scores .report-section[data-file="${file}"] tbody tr`).evaluateAll((rows) => rows
        .filter((r) => r.cells[0].textContent === 'all')
        .flatMap((r) => [4, 7, 10].map((k) => r.cells[k].textContent).filter((t) => t !== '–').map((t) => t.replace('%', ''))));
      const bars = await plot.getByTestId('plot-bar').evaluateAll((bs) => bs.map((b) => b.dataset.mean));
      assert.deepEqual([...bars].sort(), [...means].sort(), `${file}: bars = table means`);
      assert.equal(await plot.getByTestId('plot-err').count(), bars.length, 'an error bar per bar');
      if (file === 'table4_scores') await plot.screenshot({ path: join(root, 'tests', 'artifacts', `reading-plot-${width}.png`) });
      const box = await plot.boundingBox();
      assert.ok(box.width > 200 && box.x + box.width <= width, `${file} plot fits at ${width} px`);
    }

    // Transition-graph labels: at least 12 px on screen, after the SVG's scaling.
    await page.getByTestId('transition-graph').first().waitFor();
    const sizes = await page.locator('[data-testid="transition-graph"] svg').evaluateAll((svgs) => svgs.flatMap((svg) => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    }));
    assert.ok(sizes.length > 0);
    await page.getByTestId('transition-graph').first().screenshot({ path: join(root, 'tests', 'artifacts', `reading-graph-${width}.png`) });
    assert.ok(Math.min(...sizes) >= 12, `smallest graph label ${Math.min(...sizes).toFixed(2)} px at ${width} px`);
    // Node names inside their nodes ("CONTRADICT" spilled out of a 30-unit circle over the
    // self-loop's percentage), and no edge label over a node name.
    const spills = await graphLabelSpills(page.locator('[data-testid="transition-graph"] svg'));
    assert.deepEqual(spills, [], `graph labels at ${width} px`);

    // One split (paper): never again as `split:paper`, nor as Table 1's `all`, nor as a mean column.
    await page.locator('details.all-tables summary').first().click();
    const splitRows = await page.locator('.report-section tbody tr').evaluateAll((rows) => rows
      .filter((r) => r.cells[0]?.textContent === 'split:paper').map((r) => r.closest('.report-section').dataset.file));
    assert.deepEqual(splitRows, [], 'no split:paper row');
    const t1 = await page.locator('[data-testid="table1"] tbody tr').evaluateAll((rows) => rows.map((r) => r.cells[0].textContent));
    assert.deepEqual(t1, ['paper']);
    assert.equal(await page.locator('[data-testid="invalid-table"] thead th').filter({ hasText: /^mean$/ }).count(), 0);

    // Rows by key, 1-based: the evidence view, the per-example evidence table, the drill-down.
    // The evidence view comes two tasks after its stage (src/views/results/evidence_view.rs).
    await page.getByTestId('evidence-row').first().waitFor();
    const evRows = await page.getByTestId('evidence-row').evaluateAll((rs) => rs.map((r) => r.cells[0].textContent));
    evRows.forEach((t, k) => assert.match(t, new RegExp(`^.+ \\(row ${k + 1}\\)$`), t));
    await page.getByTestId('evidence-view').screenshot({ path: join(root, 'tests', 'artifacts', `reading-evidence-${width}.png`) });
    const perEx = await page.locator('#evidence [data-file="evidence_examples"] tbody tr').evaluateAll((rs) => rs.map((r) => [r.cells[0].textContent, r.cells[1].textContent]));
    assert.ok(perEx.length > 0);
    for (const [id, human] of perEx) {
      const ex = run.examples.find((e) => e.id === id);
      const want = ex.relevant_rows.map((i) => `${keysOf(ex)[i]} (row ${i + 1})`).join('; ');
      assert.equal(human, want, `evidence rows of ${id}`);
    }
    const edge = page.locator('[data-operation="row_deletion"]').getByTestId('edge').first();
    await edge.click();
    await page.getByTestId('drill').waitFor();
    const listed = await page.getByTestId('drill-item').evaluateAll((rs) => rs.map((r) => [r.querySelector('code').textContent, r.cells[2].textContent]));
    for (const [id, what] of listed) {
      const it = run.items.find((i) => i.id === id);
      const ex = run.examples[it.example];
      const i = it.edit.rows[0];
      assert.equal(what, `deleted: ${keysOf(ex)[i]} (row ${i + 1})`, id);
    }
    await page.getByTestId('drill').screenshot({ path: join(root, 'tests', 'artifacts', `reading-drill-${width}.png`) });
    // The editor names the item's row the same way, and at 400 px keeps the prediction on the
    // edited table in view beside the rows being edited.
    await page.getByTestId('open-editor').first().click();
    await page.getByTestId('editor').waitFor();
    const editorHead = await page.locator('.app-header').boundingBox();
    assert.ok(editorHead.height <= 72, `header ${editorHead.height} px tall in the editor at ${width} px`);
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the editor opens at the top');
    assert.match(await page.getByTestId('work-origin').innerText(), /deleted: .+ \(row \d+\)/);
    const rows = page.getByTestId('rows-editor').locator(':scope > li');
    await page.getByTestId('score-after').waitFor();
    const inView = (b) => b.y >= 0 && b.y + Math.min(b.height, 40) <= HEIGHT;
    // Whichever row is being edited, first or last, the prediction is in view with it.
    for (const row of [rows.first(), rows.last()]) {
      await row.locator('input').first().focus();
      await row.scrollIntoViewIfNeeded();
      const r = await row.boundingBox();
      const pred = await page.getByTestId('score-after').boundingBox();
      assert.ok(inView(r), `row in view: ${JSON.stringify(r)}`);
      assert.ok(inView(pred), `the edited table's prediction in view beside the row at ${width} px: ${JSON.stringify(pred)}`);
      // …and not on top of it.
      assert.ok(pred.y + pred.height <= r.y || pred.y >= r.y + r.height, `prediction beside, not over, the row: ${JSON.stringify([pred, r])}`);
    }
    await page.screenshot({ path: join(root, 'tests', 'artifacts', `reading-editor-${width}.png`) });
  }
  // A glossary link opens the About page at its entry.
  await page.evaluate((h) => { window.location.hash = h; }, new URL(runUrl).hash);
  await page.getByTestId('run-report').waitFor();
  const t = page.locator('[data-file="word_order"] thead [data-term="glossary-omega-max"]').first();
  await t.focus();
  await t.getByTestId('term-link').click();
  const entry = page.locator('#glossary-omega-max');
  await entry.waitFor();
  await page.waitForTimeout(200);
  const e = await entry.boundingBox();
  assert.ok(e.y >= -2 && e.y < HEIGHT, `glossary entry in view: ${JSON.stringify(e)}`);
  assert.match(await entry.innerText(), /Ω_max/);
  await page.screenshot({ path: join(root, 'tests', 'artifacts', 'reading-glossary-400.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('jump links only for the sections a run has', async () => {
  for (const width of WIDTHS) {
    const { page, errors } = await openDemo(width);
    await runProbes(page, ['premise_removal']);
    const toc = await page.getByTestId('toc-link').evaluateAll((as) => as.map((a) => a.dataset.section));
    // Inoculation is offered for every finished run (its panel says when nothing can be trained on).
    assert.deepEqual(toc, ['accuracy', 'graphs', 'inoculation']);
    for (const id of ['scores', 'evidence', 'word-order', 'table8']) assert.equal(await page.locator(`#${id}`).count(), 0, id);
    await snap(page, `reading-toc-${width}`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
