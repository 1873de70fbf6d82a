// Times the exports of lib.rs in Chromium (playwright-core, as the browser tests drive it):
// each product the median and best of 7 timings of 5 calls, after V8 has compiled the module
// at its top tier (two warm-up rounds). Arguments: the wasm file and shapes `m,k,n` …
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [wasm, ...shapes] = process.argv.slice(2);
const bytes = readFileSync(wasm).toString('base64');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.log(m.text()));
  console.log(`Chromium ${browser.version()}`);
  await page.evaluate(async ({ bytes, shapes }) => {
    const bin = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0));
    const { instance } = await WebAssembly.instantiate(bin, {});
    const e = instance.exports;
    const kinds = [['gemm', (i) => e.run_gemm(i)]];
    for (const [r, v] of [[2, 4], [3, 3], [4, 2], [4, 3], [6, 2]]) {
      kinds.push([`${r} x ${v}, packed ahead`, (i) => e.run_tile(r, v, 0, i)]);
    }
    kinds.push(['3 x 3, each panel packed as reached', (i) => e.run_tile(3, 3, 1, i)]);
    kinds.push(['3 x 3, weight in place', (i) => e.run_tile(3, 3, 2, i)]);
    for (const shape of shapes) {
      const [m, k, n] = shape.split(',').map(Number);
      e.setup(m, k, n);
      const flop = 2 * m * k * n;
      for (let round = 0; round < 3; round++) {
        for (const [label, f] of kinds) {
          f(1);
          const ms = [];
          for (let rep = 0; rep < 7; rep++) { const t = performance.now(); f(5); ms.push((performance.now() - t) / 5); }
          ms.sort((a, b) => a - b);
          if (round === 2) {
            console.log(`[${m}, ${k}] · [${k}, ${n}]  ${label.padEnd(36)} median ${(flop / ms[3] / 1e6).toFixed(1)} GFLOP/s, best ${(flop / ms[0] / 1e6).toFixed(1)}, |error| ${e.check().toExponential(1)}`);
          }
        }
      }
    }
  }, { bytes, shapes });
} finally {
  await browser.close();
}
