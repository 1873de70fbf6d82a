// Benchmark (not a test; `node --test` does not pick this file up): inoculation of the bundled
// demo model on the row-deletion items of the demo's dev split, n = 100, the paper's learning
// rates, up to 30 epochs with early stopping — in Chromium on the CPU fallback (no WebGPU
// flag). Prints the wall time and the result's tables; writes the run file and the result to
// $OUT (default /tmp/tabprobe-bench-inoculation) for `scripts/bench-inoculation.sh`, which
// runs the CLI on the same run file.
import { writeFile, readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, openPage } from './harness.mjs';

const out = process.env.OUT ?? '/tmp/tabprobe-bench-inoculation';
await mkdir(out, { recursive: true });
const server = await serveDist();
const browser = await launch();
try {
  const { page } = await openPage(browser, server.url, { bundled: true, viewport: { width: 1280, height: 900 } });
  await page.getByTestId('model-name').filter({ hasText: 'infotabs-full' }).waitFor({ timeout: 120_000 });
  await page.getByTestId('nav-runner').click();
  for (const s of ['dev', 'paper', 'train']) {
    const box = page.getByTestId(`split-${s}`);
    if ((await box.isChecked()) !== (s === 'dev')) await box.click();
  }
  // Only the row-deletion probe: its items are the challenge set.
  for (const box of await page.locator('[data-testid^="probe-"][type="checkbox"]').all()) {
    const name = (await box.getAttribute('data-testid')).slice('probe-'.length);
    if ((await box.isChecked()) !== (name === 'row_deletion')) await box.click();
  }
  await page.getByTestId('count-items').filter({ hasNotText: /^0$/ }).waitFor();
  let t = Date.now();
  await page.getByTestId('run').click();
  await page.getByTestId('run-report').waitFor({ timeout: 1_800_000 });
  const probeSeconds = (Date.now() - t) / 1000;
  const [runFile] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').first().click()]);
  await writeFile(join(out, 'run.json'), await readFile(await runFile.path()));
  await page.getByTestId('inoculation').scrollIntoViewIfNeeded();
  await page.getByTestId('inoculation-sizes').fill('100');
  for (const box of await page.getByTestId('inoculation-probe').all()) {
    if ((await box.isChecked()) !== ((await box.getAttribute('data-probe')) === 'row_deletion')) await box.click();
  }
  console.log(`plan: ${await page.getByTestId('inoculation-plan').innerText()}`);
  t = Date.now();
  await page.getByTestId('inoculate').click();
  await page.getByTestId('inoculation-result').waitFor({ timeout: 3_600_000 });
  const inoculateSeconds = (Date.now() - t) / 1000;
  const [resultFile] = await Promise.all([page.waitForEvent('download'), page.getByTestId('inoculation-json').click()]);
  const text = await readFile(await resultFile.path(), 'utf8');
  await writeFile(join(out, 'browser-inoculation.json'), text);
  const result = JSON.parse(text);
  console.log(`browser (CPU fallback): probe run ${probeSeconds.toFixed(1)} s, inoculation ${inoculateSeconds.toFixed(1)} s (result: ${result.seconds.toFixed(1)} s)`);
  for (const g of result.grid) {
    console.log(`  n=${g.size} lr=${g.learning_rate} dev ${(100 * g.dev_accuracy).toFixed(2)}% best epoch ${g.best_epoch} steps ${g.steps} ${g.seconds.toFixed(1)} s ${g.chosen ? 'kept' : ''} (${g.stopped})`);
  }
  console.log(`wrote ${out}/run.json and ${out}/browser-inoculation.json`);
} finally {
  await browser.close();
  await server.close();
}
