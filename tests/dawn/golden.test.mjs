// Every model family through Chrome's WebGPU engine (issue 33, item 1): the worker's own wasm
// from dist/ runs under Node on Dawn (npm `webgpu`) with SwiftShader's Vulkan driver, loads
// each tiny checkpoint that transformers made (crates/model/tests/golden/families/), and its
// logits for the golden pairs equal transformers' within 1e-4 — one pair per pass (batch 1,
// every fifth pair) and all 34 in one request (one pass: the worker's GPU batch is 64 pairs). A last test
// breaks the GPU path on purpose (every third compute dispatch dropped) and checks that the
// same comparison then fails, so a broken kernel cannot pass unseen.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startWorker, loadCheckpoint, score, SWIFTSHADER_ICD } from './worker_on_dawn.mjs';

const TOLERANCE = 1e-4;
const familiesDir = new URL('../../crates/model/tests/golden/families/', import.meta.url).pathname;
const golden = JSON.parse(await readFile(join(familiesDir, 'golden.json'), 'utf8'));
/** The golden pairs the worker scores (an empty hypothesis is refused before any model runs),
 *  with their index in golden.json. */
const pairs = golden.pairs
  .map((p, index) => ({ index, pair: { premise: p.premise, hypothesis: p.hypothesis } }))
  .filter(({ pair }) => pair.hypothesis.trim() !== '');
/** The families the page loads from files (bert-bin is the pytorch_model.bin variant). */
const families = Object.keys(golden.families).filter((name) => existsSync(join(familiesDir, golden.families[name].dir, 'model.safetensors')));

// Dawn picks its Vulkan driver from these; SwiftShader is what Chromium itself uses here.
process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
process.env.XDG_RUNTIME_DIR ??= '/tmp';

let worker;
before(async () => {
  assert.ok(existsSync(process.env.VK_ICD_FILENAMES), `no Vulkan driver at ${process.env.VK_ICD_FILENAMES} (scripts/install-tools.sh test installs Debian's chromium, which carries SwiftShader)`);
  worker = await startWorker();
});

/** Worst |logit − transformers'| over the golden pairs for `family`, scoring them singly and
 *  then all at once; also returns the backend the worker reported. */
async function worstDifference(name) {
  const family = golden.families[name];
  const info = await loadCheckpoint(worker, join(familiesDir, family.dir), { name, load: Math.floor(Math.random() * 1e9) });
  const compare = (scores, at) => {
    let worst = 0;
    scores.forEach((s, k) => {
      const want = family.logits[at[k].index];
      assert.equal(s.logits.length, want.length, `${name}: logits per pair`);
      for (let j = 0; j < want.length; j++) worst = Math.max(worst, Math.abs(s.logits[j] - want[j]));
    });
    return worst;
  };
  // One pair per pass for every fifth pair (7 of 34, short, long and cut ones): each new
  // length compiles its kernels again, which on a software adapter is most of the time.
  let single = 0;
  for (const p of pairs.filter((_, k) => k % 5 === 0)) single = Math.max(single, compare((await score(worker, [p.pair])).scores, [p]));
  const all = await score(worker, pairs.map((p) => p.pair));
  assert.equal(all.scores.length, pairs.length);
  return { info, single, batched: compare(all.scores, pairs) };
}

test('the worker runs on Dawn with SwiftShader, the adapter Chrome uses here', async () => {
  const adapter = await worker.gpu.requestAdapter();
  assert.ok(adapter, 'Dawn offers no adapter');
  const info = adapter.info;
  assert.match(`${info.vendor} ${info.architecture} ${info.description}`, /swiftshader/i);
});

for (const name of families) {
  test(`${name}: WebGPU through Dawn matches transformers within 1e-4 at batch 1 and the GPU batch`, async () => {
    const { info, single, batched } = await worstDifference(name);
    assert.equal(info.backend, 'WebGpu', `${name}: the worker ran on ${JSON.stringify(info.backend)}, not WebGPU`);
    assert.match(info.backend_note, /64 pairs per pass/);
    // SwiftShader has no shader-f16: the default precision choice falls back to f32 and says so.
    assert.equal(info.id.precision, undefined, `${name}: ran in ${info.id.precision}`);
    assert.match(info.precision_note, /^f32: f16-mixed needs f16 arithmetic/);
    console.log(`${name}: max |Δlogit| ${single.toExponential(2)} one pair per pass, ${batched.toExponential(2)} ${pairs.length} pairs in one pass`);
    assert.ok(single <= TOLERANCE, `${name}, one pair per pass: max |logit - transformers| = ${single}`);
    assert.ok(batched <= TOLERANCE, `${name}, ${pairs.length} pairs per pass: max |logit - transformers| = ${batched}`);
  });
}

test('a broken GPU path fails the same comparison (every third compute dispatch dropped)', async () => {
  const encoder = globalThis.GPUComputePassEncoder.prototype;
  const dispatch = encoder.dispatchWorkgroups;
  let n = 0;
  encoder.dispatchWorkgroups = function dropSome(...args) {
    n += 1;
    if (n % 3 !== 0) dispatch.apply(this, args);
  };
  try {
    const outcome = await worstDifference('bert').then(
      ({ single, batched }) => `max |Δlogit| ${Math.max(single, batched)}`,
      (error) => `an error: ${error.message}`,
    );
    console.log(`with dispatches dropped: ${outcome}`);
    assert.ok(n > 0, 'no compute dispatch went through the stand-in');
    const worst = Number(outcome.match(/^max \|Δlogit\| (.+)$/)?.[1]);
    assert.ok(!(worst <= TOLERANCE), `dropping every third dispatch still matched transformers (${outcome})`);
  } finally {
    encoder.dispatchWorkgroups = dispatch;
  }
});
