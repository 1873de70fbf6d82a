// Steps a researcher takes on the kept work, shared by the tests of two tabs and of a full
// storage quota: open an example in the table editor, mark its evidence, save an item, export
// the dataset, wait for the page to keep what changed.
import { readFile } from 'node:fs/promises';

/** Waits until every change of `page` is written to the browser's storage (or failed). */
export async function kept(page) {
  await page.waitForTimeout(400);
  await page.locator('[data-testid=kept-status]:is([data-state=saved], [data-state=failed])').waitFor({ state: 'attached' });
}

/** Opens a Breakfast in America hypothesis (`id`) of the site at `url` in the table editor. */
export async function editTable(page, url, id) {
  await page.goto(`${url}#/`);
  await page.getByTestId('search').fill('breakfast');
  await page.getByTestId('table-item').first().click();
  await page.getByTestId('hypothesis').filter({ hasText: id }).getByTestId('edit-table').click();
}

/** Saves the open table, retitled `title`, as a NEUTRAL hand-made item; returns its id. */
export async function saveItem(page, title) {
  await page.getByTestId('title-input').fill(title);
  await page.getByTestId('assert-neutral').check();
  await page.getByTestId('save-item').click();
  return (await page.getByTestId('saved').innerText()).match(/^Saved as (\S+) /)[1];
}

/** Ticks row `row` (0-based) alone in the editor's evidence marks, ready to save. */
export async function mark(page, row) {
  const toggles = page.getByTestId('relevant-toggle');
  // The editor may still be drawing the item it just opened: mark again until it holds.
  for (let tries = 0; tries < 20; tries++) {
    for (let i = 0; i < await toggles.count(); i++) await toggles.nth(i).setChecked(i === row);
    if (await page.getByTestId('save-evidence').isEnabled()) return;
    await page.waitForTimeout(250);
  }
}

/** Marks row `row` (0-based) alone as the open example's evidence. */
export async function annotate(page, row) {
  await mark(page, row);
  await page.getByTestId('save-evidence').click();
  await page.getByText(/^Saved: the evidence of /).waitFor();
}

/** The working dataset of the site at `url` as its "Export JSON" button writes it. */
export async function exported(page, url) {
  await page.goto(`${url}#/`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  return JSON.parse(await readFile(await download.path(), 'utf8'));
}

/** Runs the paper split's probe sets with the model named `model` (started; not awaited). */
export async function startRun(page, model = 'tiny-f32') {
  await page.getByTestId('nav-runner').click();
  await page.getByTestId('model-name').filter({ hasText: model }).waitFor({ timeout: 120_000 });
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'paper')) await box.click();
  }
  await page.getByTestId('count-passes').waitFor();
  await page.getByTestId('run').click();
}
