// Truncation in the worker's wasm (issue 43, item 4): the long natural INFOTABS pairs of
// crates/model/tests/golden/families/truncation/ (premises far past, and a few tokens past,
// each fixture's model_max_length of 96), scored by the worker's own wasm on Dawn with
// SwiftShader, give transformers' logits within 1e-4 and the premise tokens transformers cut
// (its only_first strategy), for every family and both DeBERTa-v3 tokenizers (converted from
// a SentencePiece model, and as Hub checkpoints ship it). The native test
// (crates/model/tests/truncation.rs) checks the same fixture's token ids.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startWorker, loadCheckpoint, score, SWIFTSHADER_ICD } from './worker_on_dawn.mjs';

const TOLERANCE = 1e-4;
const familiesDir = new URL('../../crates/model/tests/golden/families/', import.meta.url).pathname;
const golden = JSON.parse(await readFile(join(familiesDir, 'truncation', 'golden.json'), 'utf8'));
const pairs = golden.pairs.map((p) => ({ premise: p.premise, hypothesis: p.hypothesis }));

process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
process.env.XDG_RUNTIME_DIR ??= '/tmp';

let worker;
before(async () => {
  assert.ok(existsSync(process.env.VK_ICD_FILENAMES), `no Vulkan driver at ${process.env.VK_ICD_FILENAMES}`);
  worker = await startWorker();
});

let load = 1000;
for (const [name, family] of Object.entries(golden.families)) {
  test(`${name}: long natural pairs are cut as transformers cuts them, in wasm on WebGPU`, async () => {
    const info = await loadCheckpoint(worker, join(familiesDir, family.dir), {
      name,
      load: ++load,
      tokenizerDir: join(familiesDir, family.tokenizer_dir),
    });
    assert.equal(info.backend, 'WebGpu', `${name}: ran on ${JSON.stringify(info.backend)}`);
    const { scores } = await score(worker, pairs);
    assert.equal(scores.length, pairs.length);
    let worst = 0;
    scores.forEach((s, k) => {
      const want = family.premise_first[k];
      assert.equal(s.truncated, want.truncated, `${name}, pair ${k}: truncated`);
      assert.equal(s.premise_tokens_dropped, want.premise_tokens_dropped, `${name}, pair ${k}: premise tokens cut`);
      family.logits[k].forEach((l, j) => { worst = Math.max(worst, Math.abs(s.logits[j] - l)); });
    });
    console.log(`${name}: ${pairs.length} pairs, ${scores.filter((s) => s.truncated).length} cut, max |Δlogit| ${worst.toExponential(2)}`);
    assert.ok(worst <= TOLERANCE, `${name}: max |logit - transformers| = ${worst}`);
  });
}
